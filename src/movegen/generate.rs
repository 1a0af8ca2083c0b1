//! The legal (or pseudo-legal) moves of one side, compiled per side to move: pawns, pieces
//! (pinned ones along their pin line only), en passant, the king and castling, each tested
//! against the checkers and pins found once.

use super::{PawnMovers, Sink, pawn_moves};
use crate::attacks::{self, PawnDirs, Sliders};
use crate::bitboard::Bitboard;
use crate::position::{Board, CastlePath, CastlePaths};
use crate::types::{Color, Move, MoveKind, PieceKind, Square};

/// [`generate`] compiled once per side to move, so that pawn directions, ranks and colour
/// lookups are constants.
///
/// [`generate`]: super::generate
#[inline(always)]
pub(super) fn generate_for<S: Sliders, K: Sink, const LEGAL: bool, const WHITE: bool>(
    pos: &Board,
    paths: &CastlePaths,
    sink: &mut K,
) {
    let us = if WHITE { Color::White } else { Color::Black };
    let them = !us;
    let ksq = pos.king(us);
    let occupied = pos.occupied();
    let own = pos.color(us);
    let enemies = pos.color(them);
    if !LEGAL {
        sink.piece_moves(PieceKind::King, ksq, attacks::king(ksq) - own, enemies);
        let checkers = pos.checkers();
        pieces::<S, K, false, WHITE, false>(pos, sink, checkers, Bitboard::EMPTY);
        if checkers.is_empty() && pos.castling_rooks_of(us).any() {
            let leapers = pos.leaper_attacks(them);
            for path in paths.of(us) {
                if castling_is_open(pos, path, occupied)
                    && castle_path_is_safe::<S>(pos, path, us, ksq, occupied, leapers)
                {
                    sink.single(Move::new(ksq, path.rook.lsb(), MoveKind::Castle));
                }
            }
        }
        return;
    }
    let (checkers, pinned) = pos.checkers_and_pinned();
    sink.checkers(checkers);

    // King moves: the squares no enemy leaper attacks, less the attacks of the enemy sliders,
    // through the occupancy without the king. Only sliders within reach of the king's
    // neighbourhood (a table per king square) and aligned with a remaining target are looked up:
    // that loop runs over the few sliders near the king instead of over the targets (faster
    // most of all in endgames, docs/performance.md).
    let leapers = pos.leaper_attacks(them);
    let without_king = occupied ^ Bitboard::from_square(ksq);
    let steps = attacks::king(ksq) - own - leapers;
    if checkers.is_empty() && pos.castling_rooks_of(us).any() {
        king_moves_and_castling::<S, K>(pos, paths, sink, us, steps, leapers);
    } else {
        let safe = pos.without_slider_attacks::<S>(
            steps,
            them,
            attacks::king_zone_reach(ksq),
            without_king,
        );
        sink.piece_moves(PieceKind::King, ksq, safe, enemies);
    }

    if checkers.is_empty() {
        pieces::<S, K, true, WHITE, false>(pos, sink, checkers, pinned);
    } else if !checkers.more_than_one() {
        pieces::<S, K, true, WHITE, true>(pos, sink, checkers, pinned);
    }
}

/// The moves of every piece but the king, compiled apart for the side in check (`CHECK`: one
/// checker) and not, so that the common case carries no evasion mask. In check a pinned piece
/// cannot move at all: its line and the checking line meet only at the king.
#[inline(always)]
fn pieces<S: Sliders, K: Sink, const LEGAL: bool, const WHITE: bool, const CHECK: bool>(
    pos: &Board,
    sink: &mut K,
    checkers: Bitboard,
    pinned: Bitboard,
) {
    let us = if WHITE { Color::White } else { Color::Black };
    let them = !us;
    let ksq = pos.king(us);
    let occupied = pos.occupied();
    let own = pos.color(us);
    let enemies = pos.color(them);
    // Evasion mask: in single check, capture the checker or block its line.
    let mask = if CHECK {
        attacks::between(ksq, checkers.lsb()) | checkers
    } else {
        Bitboard::FULL
    };
    let targets = mask - own;
    // Knights and sliders. A sink that only adds up (`K::TOTALS`, the counter) gets them all as
    // if none were pinned, and the pinned ones' impossible moves are taken back below: then the
    // lookups do not wait for the pin walk through the set of pieces to visit. Other sinks
    // skip the pinned pieces here.
    let totals = LEGAL && K::TOTALS;
    let skipped = if totals { Bitboard::EMPTY } else { pinned };

    for from in pos.kind(PieceKind::Knight) & (own - skipped) {
        sink.piece_moves(
            PieceKind::Knight,
            from,
            attacks::knight(from) & targets,
            enemies,
        );
    }
    let queens = pos.kind(PieceKind::Queen);
    let diagonal = (pos.kind(PieceKind::Bishop) | queens) & own;
    let straight = (pos.kind(PieceKind::Rook) | queens) & own;
    // A queen moves in both loops; its kind is a select, not a branch, and a sink that does
    // not read it (the counter) does not compute it.
    let diagonal_kind = |from| slider_kind(queens, from, PieceKind::Bishop);
    let straight_kind = |from| slider_kind(queens, from, PieceKind::Rook);
    for from in diagonal - skipped {
        let t = S::bishop(from, occupied) & targets;
        sink.piece_moves(diagonal_kind(from), from, t, enemies);
    }
    for from in straight - skipped {
        let t = S::rook(from, occupied) & targets;
        sink.piece_moves(straight_kind(from), from, t, enemies);
    }
    // Pinned pieces: in check none can move; otherwise a pinned knight cannot, a pinned slider
    // only along its pin line. The counter had them all above and takes back what they cannot
    // do; other sinks get what they can.
    if LEGAL && (totals || !CHECK) && pinned.any() {
        if totals {
            for from in pos.kind(PieceKind::Knight) & pinned {
                sink.retract(attacks::knight(from) & targets);
            }
        }
        for from in diagonal & pinned {
            let t = S::bishop(from, occupied) & targets;
            pinned_slider_moves::<K, CHECK>(sink, diagonal_kind(from), from, t, ksq, enemies);
        }
        for from in straight & pinned {
            let t = S::rook(from, occupied) & targets;
            pinned_slider_moves::<K, CHECK>(sink, straight_kind(from), from, t, ksq, enemies);
        }
    }

    // Pawns, all at once. A pinned pawn stays on its pin line: it pushes if pinned along its
    // file and captures one way if pinned along that diagonal (only the pinner can stand
    // there), never if pinned along its rank. Which line through the king it stands on says
    // which, so the pinned pawns join the free ones in each kind of move they may make.
    let d = PawnDirs::of(us);
    let pawns = pos.pieces(us, PieceKind::Pawn);
    let free_pawns = pawns - pinned;
    let pinned_pawns = pawns & pinned;
    let movers = if LEGAL && !CHECK && pinned_pawns.any() {
        let (diagonal, anti) = (attacks::diagonal(ksq), attacks::anti_diagonal(ksq));
        let (east_line, west_line) = if d.east_on_diagonal {
            (diagonal, anti)
        } else {
            (anti, diagonal)
        };
        PawnMovers {
            push: free_pawns | (pinned_pawns & Bitboard::file(ksq.file())),
            east: free_pawns | (pinned_pawns & east_line),
            west: free_pawns | (pinned_pawns & west_line),
        }
    } else {
        PawnMovers {
            push: free_pawns,
            east: free_pawns,
            west: free_pawns,
        }
    };
    pawn_moves(sink, &d, movers, !occupied, enemies, mask);

    if let Some(ep) = pos.ep_square() {
        let victim = ep.offset(-d.up);
        for from in attacks::pawn(them, ep) & pawns {
            if !LEGAL || ep_is_legal::<S>(pos, from, ep, victim, ksq) {
                sink.single(Move::new(from, ep, MoveKind::EnPassant));
            }
        }
    }
}

/// The moves of a pinned slider of `kind` on `from` whose targets, pin ignored, are `moves`:
/// those along the line through it and the king on `ksq` (none in check). A sink that only
/// adds up ([`Sink::TOTALS`]) was given all of `moves` and takes back the rest.
#[inline(always)]
fn pinned_slider_moves<K: Sink, const CHECK: bool>(
    sink: &mut K,
    kind: PieceKind,
    from: Square,
    moves: Bitboard,
    ksq: Square,
    enemies: Bitboard,
) {
    let legal = if CHECK {
        Bitboard::EMPTY
    } else {
        moves & attacks::line(ksq, from)
    };
    if K::TOTALS {
        sink.retract(moves - legal);
    } else {
        sink.piece_moves(kind, from, legal, enemies);
    }
}

/// The kind of the slider on `from`: a queen if it is one of `queens`, else `kind`.
#[inline(always)]
fn slider_kind(queens: Bitboard, from: Square, kind: PieceKind) -> PieceKind {
    if queens.contains(from) {
        PieceKind::Queen
    } else {
        kind
    }
}

/// The pawns of the side to move on `pos` that may take en passant (none without an
/// en-passant square): each capture tested as the generator tests it. For the statistics'
/// lanes, which only x86-64 has.
#[cfg(target_arch = "x86_64")]
pub(crate) fn en_passant_takers<S: Sliders>(pos: &Board) -> Bitboard {
    let Some(ep) = pos.ep_square() else {
        return Bitboard::EMPTY;
    };
    let us = pos.side_to_move();
    let victim = ep.offset(-PawnDirs::of(us).up);
    let ksq = pos.king(us);
    let mut takers = Bitboard::EMPTY;
    for from in attacks::pawn(!us, ep) & pos.pieces(us, PieceKind::Pawn) {
        if ep_is_legal::<S>(pos, from, ep, victim, ksq) {
            takers |= Bitboard::from_square(from);
        }
    }
    takers
}

/// Whether the en-passant capture `from` x `ep` (taking the pawn on `victim`) leaves the king
/// on `ksq` unattacked: played on a copy of the occupancy, tested against every enemy piece.
#[inline(never)]
fn ep_is_legal<S: Sliders>(
    pos: &Board,
    from: Square,
    ep: Square,
    victim: Square,
    ksq: Square,
) -> bool {
    let us = pos.side_to_move();
    let them = !us;
    let occ = pos.occupied()
        ^ Bitboard::from_square(from)
        ^ Bitboard::from_square(victim)
        ^ Bitboard::from_square(ep);
    let leapers = (attacks::knight(ksq) & pos.pieces(them, PieceKind::Knight))
        | (attacks::pawn(us, ksq)
            & (pos.pieces(them, PieceKind::Pawn) - Bitboard::from_square(victim)));
    leapers.is_empty() && !pos.slider_attacks_square::<S>(ksq, them, occ)
}

/// King moves and castling (not in check, a castling right left), tested in one pass over the
/// enemy sliders: the squares a castling king crosses or lands on join its steps (`steps`: the
/// squares next to it, neither own nor attacked by an enemy leaper), so that a slider that
/// could stop both is looked up once. That occupancy still holds the castling rook; the rook
/// can only shield a square of the path along the back rank, from beyond itself, which a rook
/// in the corner never does, and a path where it can ([`CastlePath::rook_screens`], Chess960)
/// is tested on its own with the rook taken off the board.
#[inline(always)]
fn king_moves_and_castling<S: Sliders, K: Sink>(
    pos: &Board,
    paths: &CastlePaths,
    sink: &mut K,
    us: Color,
    steps: Bitboard,
    leapers: Bitboard,
) {
    let ksq = pos.king(us);
    let ksq_bb = Bitboard::from_square(ksq);
    let occupied = pos.occupied();
    let [a, b] = paths.of(us);
    // A path an enemy pawn, knight or king already attacks is closed before any slider is
    // looked up for it.
    let (open_a, open_b) = (
        castling_is_open(pos, a, occupied) && (a.king_path & leapers).is_empty(),
        castling_is_open(pos, b, occupied) && (b.king_path & leapers).is_empty(),
    );
    let mut targets = steps;
    let mut reach = attacks::king_zone_reach(ksq);
    for (open, path) in [(open_a, a), (open_b, b)] {
        if open {
            targets |= path.king_path - ksq_bb;
            reach = reach | path.reach;
        }
    }
    let safe = pos.without_slider_attacks::<S>(targets, !us, reach, occupied ^ ksq_bb);
    sink.piece_moves(PieceKind::King, ksq, safe & steps, pos.color(!us));
    for (open, path) in [(open_a, a), (open_b, b)] {
        let legal = open
            && if path.rook_screens {
                castle_path_is_safe::<S>(pos, path, us, ksq, occupied, leapers)
            } else {
                // The king's square is safe: not in check.
                (path.king_path - ksq_bb - safe).is_empty()
            };
        if legal {
            sink.single(Move::new(ksq, path.rook.lsb(), MoveKind::Castle));
        }
    }
}

/// Whether castling along `path` is still allowed and its squares are empty (the rook's right
/// is left, nothing stands between).
#[inline(always)]
fn castling_is_open(pos: &Board, path: &CastlePath, occupied: Bitboard) -> bool {
    (pos.castling_rooks() & path.rook).any() && (occupied & path.empty).is_empty()
}

/// Whether no enemy piece attacks a square of `path`'s king path, the castling rook and the
/// king taken off the board (`leapers`: the squares enemy pawns, knights and king attack): the
/// full test, for pseudo-legal generation and for the paths the rook screens (Chess960).
#[inline(always)]
fn castle_path_is_safe<S: Sliders>(
    pos: &Board,
    path: &CastlePath,
    us: Color,
    ksq: Square,
    occupied: Bitboard,
    leapers: Bitboard,
) -> bool {
    // The start square too: with the rook gone it may be attacked (king c1, rook b1, enemy
    // queen a1, castling a-side leaves the king on c1).
    let occ = occupied - path.rook - Bitboard::from_square(ksq);
    (path.king_path & leapers).is_empty()
        && pos.without_slider_attacks::<S>(path.king_path, !us, path.reach, occ) == path.king_path
}
