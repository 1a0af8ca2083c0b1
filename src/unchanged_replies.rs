//! Moves that leave the opponent's replies as they were: *inert* moves, in this code ([`Inert`]).
//!
//! At a node two plies from the leaves, perft counts the opponent's replies to each of our
//! moves. A quiet move far from everything the opponent's moves depend on leaves those replies
//! exactly as they are with no move made at all: so their number, counted once on the board
//! with the opponent to move and nothing changed, stands for every such move. What the
//! opponent's replies depend on, and so what makes one of our moves count separately:
//!
//! - the occupancy of a square an enemy slider reaches (its first blocker included), a square
//!   an enemy pawn pushes to (one or two steps) or captures on, or a square a castling of
//!   theirs needs empty: a move from or to such a square opens, closes or fills it;
//! - whether we attack a square their king stands on, could step to (not holding a piece of
//!   theirs), or passes through castling: a move from or to a square from which the moving
//!   piece attacks one of those, and a move from or to a square on a line between one of those
//!   and a slider of ours that could attack along it, if at most one piece stands between (two
//!   from their king's square, for pins): one move can open or close only such a line;
//! - the pins on their pieces: a slider of ours arriving where it looks at their king through
//!   one of their pieces, and (as above) every square between their king and a slider of ours
//!   on one of its lines;
//! - en passant: a double push next to one of their pawns.
//!
//! Captures, promotions, castling and en passant always count separately, and when we are in
//! check every move does. Every rule is a superset of what changes the replies: a move may
//! count separately without need, never the other way round.
//!
//! Leaf statistics ask more of an inert move ([`Inert::for_statistics`]): each reply must also
//! capture, and give check, exactly as it does with no move made. Whether a checking reply
//! mates depends on all of our pieces, so the statistics leave moves unplayed only where no
//! reply to the board with no move made can give check (no pawn of theirs about to promote,
//! among other things); an inert move must then leave every reply without a check too. A
//! reply captures on a square it reaches that holds one of our pieces, so a move from or to a
//! square one of their pieces attacks counts separately (their knights' squares added to the
//! above; the rest are there already). A reply gives check along a line to our king as far as
//! our first piece on it (a reply cannot take a piece of ours off that line without standing
//! there itself): a move onto such a line only shortens it, and takes away no check where
//! there was none, so it may go unplayed; a move of that first piece off it counts separately
//! where the part of the line it opens holds a square one of theirs that attacks along the
//! line's kind can land on (a queen by either kind of move, a castling rook anywhere on its
//! path, their king's square included), or a piece of theirs in front of a slider of theirs of
//! that kind (its move uncovers a check), or an en-passant capture is on the board; king moves
//! always do. No other piece of theirs there gives check by moving, and no reply lands a slider
//! on the square of a piece of theirs but a castle's.

use crate::attacks::{self, PawnDirs, Sliders};
use crate::bitboard::Bitboard;
use crate::movegen::PawnTargets;
use crate::position::{Board, CastlePaths};
use crate::types::{PieceKind, Square};

/// Which quiet moves of the side to move leave the opponent's replies unchanged: those from a
/// square outside `from` to a square outside `to` of the moving piece's kind (captures,
/// promotions, castling and en passant aside).
#[derive(Clone, Copy)]
pub(crate) struct Inert {
    /// Squares a move from counts separately.
    pub(crate) from: Bitboard,
    /// Per kind of the moving piece, squares a move to counts separately.
    pub(crate) to: [Bitboard; 6],
}

/// Where the sliders of the side not to move reach on a board, first blockers included, by
/// the kind of line they attack along from where they land: a queen counts for both kinds,
/// whichever kind of move takes it there.
#[derive(Clone, Copy)]
pub(crate) struct SliderReach {
    /// Of the pieces that attack along ranks and files: their rooks' reach and their queens'.
    pub(crate) straight: Bitboard,
    /// Of the pieces that attack along diagonals: their bishops' reach and their queens'.
    pub(crate) diagonal: Bitboard,
}

impl SliderReach {
    /// Where the sliders of the side not to move reach on `board`.
    #[inline(always)]
    pub(crate) fn of<S: Sliders>(board: &Board) -> SliderReach {
        let occ = board.occupied();
        let (rq, bq) = board.sliders(!board.side_to_move());
        let mut reach = SliderReach {
            straight: Bitboard::EMPTY,
            diagonal: Bitboard::EMPTY,
        };
        for s in rq - bq {
            reach.straight |= S::rook(s, occ);
        }
        for s in bq - rq {
            reach.diagonal |= S::bishop(s, occ);
        }
        for q in rq & bq {
            let both = S::rook(q, occ) | S::bishop(q, occ);
            reach.straight |= both;
            reach.diagonal |= both;
        }
        reach
    }
}

impl Inert {
    /// No move is inert.
    pub(crate) const NONE: Inert = Inert {
        from: Bitboard(!0),
        to: [Bitboard(!0); 6],
    };

    /// The inert moves of the side to move on `board`, which must not be in check (in check
    /// every move counts separately: [`Inert::NONE`]).
    #[inline(always)]
    pub(crate) fn of<S: Sliders>(board: &Board, paths: &CastlePaths) -> Inert {
        // Their sliders' reach added into the open squares where they are gathered, square
        // by square, as a closure: computed apart and handed over as one set (the same
        // result), the AVX-512 copy of the plain count ran 0.77x as fast on Zen 4, its machine
        // code the same size but laid out otherwise (docs/performance.md).
        Inert::with_reach::<S>(board, paths, |open, occ| {
            let (their_rq, their_bq) = board.sliders(!board.side_to_move());
            for s in their_rq {
                *open |= S::rook(s, occ);
            }
            for s in their_bq {
                *open |= S::bishop(s, occ);
            }
        })
    }

    /// [`Inert::of`], with `reach` adding to the squares it is given the squares the opponent's
    /// sliders reach (given the occupancy).
    #[inline(always)]
    fn with_reach<S: Sliders>(
        board: &Board,
        paths: &CastlePaths,
        reach: impl FnOnce(&mut Bitboard, Bitboard),
    ) -> Inert {
        let us = board.side_to_move();
        let them = !us;
        let theirs = board.color(them);
        let occ = board.occupied();
        let k = board.king(them);

        // Squares whose occupancy the opponent's moves read.
        let pawns = board.pieces(them, PieceKind::Pawn);
        let their_dirs = PawnDirs::of(them);
        let mut open = their_dirs.reach(pawns);
        reach(&mut open, occ);

        // Squares whose being attacked by us the opponent's moves read.
        let mut zone = Bitboard::from_square(k) | (attacks::king(k) - theirs);
        let rights = board.castling_rooks_of(them);
        for path in paths.of(them) {
            if (rights & path.rook).any() {
                open |= path.empty;
                zone |= path.king_path;
            }
        }
        open |= zone;
        // Lines are looked along with their castling rooks gone: a castling rook may leave a
        // line onto the king's path (Chess960).
        let seen = occ - rights;

        let (rq, bq) = board.sliders(us);
        // Gathered in locals, not in `to` itself: the array, indexed by kind later, lives in
        // memory, and each square's additions would wait on the last one's store.
        let (mut pawn, mut knight, mut king) = (Bitboard::EMPTY, Bitboard::EMPTY, Bitboard::EMPTY);
        let (mut rook, mut bishop) = (Bitboard::EMPTY, Bitboard::EMPTY);
        let mut lines = Bitboard::EMPTY;
        for q in zone {
            pawn |= attacks::pawn(them, q);
            knight |= attacks::knight(q);
            king |= attacks::king(q);
            // A line with two pieces between stays shut whatever one move does; from their
            // king's square three (one move can turn two pieces between into one: a pin).
            let most = if q == k { 2 } else { 1 };
            if rq.any() {
                rook |= S::rook(q, seen);
                for s in rq & attacks::rook_empty(q) {
                    let b = attacks::between(q, s);
                    if (b & seen).count() <= most {
                        lines |= b | Bitboard::from_square(s);
                    }
                }
            }
            if bq.any() {
                bishop |= S::bishop(q, seen);
                for s in bq & attacks::bishop_empty(q) {
                    let b = attacks::between(q, s);
                    if (b & seen).count() <= most {
                        lines |= b | Bitboard::from_square(s);
                    }
                }
            }
        }
        // A slider arriving behind one of their pieces pins it.
        if rq.any() {
            let first = S::rook(k, occ) & theirs;
            rook |= S::rook(k, occ - first);
        }
        if bq.any() {
            let first = S::bishop(k, occ) & theirs;
            bishop |= S::bishop(k, occ - first);
        }

        // Our pieces already attacking one of those squares.
        let attackers = (board.pieces(us, PieceKind::Pawn) & pawn)
            | (board.pieces(us, PieceKind::Knight) & knight)
            | (board.pieces(us, PieceKind::King) & king)
            | (rq & rook)
            | (bq & bishop);

        // A double push next to one of their pawns gives them en passant; a push onto the
        // last rank promotes.
        let beside = ((pawns - Bitboard::FILE_A).shift(-1)) | ((pawns - Bitboard::FILE_H).shift(1));
        let our_dirs = PawnDirs::of(us);
        pawn |= (beside & our_dirs.double_landing()) | our_dirs.last_rank();

        let every = open | lines;
        let mut to = [Bitboard::EMPTY; 6];
        to[PieceKind::Pawn.index()] = pawn | every;
        to[PieceKind::Knight.index()] = knight | every;
        to[PieceKind::Bishop.index()] = bishop | every;
        to[PieceKind::Rook.index()] = rook | every;
        to[PieceKind::Queen.index()] = rook | bishop | every;
        to[PieceKind::King.index()] = king | every;
        Inert {
            from: every | attackers,
            to,
        }
    }

    /// The quiet moves (to `quiet`) of the piece of `kind` on `from` that go unplayed.
    #[inline(always)]
    pub(crate) fn unplayed(&self, kind: PieceKind, from: Square, quiet: Bitboard) -> Bitboard {
        if self.from.contains(from) {
            Bitboard::EMPTY
        } else {
            quiet - self.to[kind.index()]
        }
    }

    /// The single and double pushes among `t` that go unplayed, as their destinations: a pawn
    /// reaching `to` by a push came from `to - up` (or `to - 2 up`).
    #[inline(always)]
    pub(crate) fn unplayed_pushes(&self, t: &PawnTargets) -> (Bitboard, Bitboard) {
        let to = self.to[PieceKind::Pawn.index()];
        (
            t.single - to - self.from.shift(t.up),
            t.double - to - self.from.shift(2 * t.up),
        )
    }

    /// The moves of the side to move on `board` (not in check) inert for leaf statistics: those
    /// of [`Inert::of`] after which every reply also captures as it does with no move made, and
    /// gives no check where none of the replies to the board with no move made does (see the
    /// module documentation). Their boards' leaves are then those of the board with no move
    /// made; where a reply to it gives check they may differ, and each must be played.
    /// `reach`: where the opponent's sliders reach on `board`.
    #[inline(always)]
    pub(crate) fn for_statistics<S: Sliders>(
        board: &Board,
        paths: &CastlePaths,
        reach: &SliderReach,
    ) -> Inert {
        let mut inert = Inert::with_reach::<S>(board, paths, |open, _| {
            *open |= reach.straight | reach.diagonal
        });
        let us = board.side_to_move();
        let them = !us;
        let mut separate = Bitboard::EMPTY;
        for n in board.pieces(them, PieceKind::Knight) {
            separate |= attacks::knight(n);
        }
        let k = board.king(us);
        let ours = board.color(us);
        let (rq, bq) = board.sliders(them);
        let (straight, diagonal) = (S::rook(k, ours), S::bishop(k, ours));
        // A move off a line from our king (its first piece of ours) counts separately only if
        // a reply may then check along it ([`uncovers`]): the part of the line it opens holds
        // a square a piece of theirs that attacks along the line's kind reaches (a queen by
        // either kind of move; a castling rook anywhere on its path), or a piece of theirs
        // whose move may uncover a check there. En passant could take a pawn of ours off the
        // opened part as well: then every such move counts.
        let opened = if board.ep_square().is_some() {
            let mut lines = Bitboard::EMPTY;
            if rq.any() {
                lines |= straight;
            }
            if bq.any() {
                lines |= diagonal;
            }
            lines
        } else {
            let occ = board.occupied();
            let theirs = board.color(them);
            let mut rook_reach = reach.straight;
            let rights = board.castling_rooks_of(them);
            for path in paths.of(them) {
                if (rights & path.rook).any() {
                    rook_reach |= path.empty | path.king_path | path.rook;
                }
            }
            // The squares of their pieces on which no reply can land a slider: all but their
            // king's and their castling rooks' (a castle moves two pieces, and may land the
            // rook on the king's square). Any piece of theirs on the opened part still counts
            // if it stands in front of a slider of theirs of the line's kind, which its move
            // would uncover ([`uncovers`]).
            let no_landing = theirs - Bitboard::from_square(board.king(them)) - rights;
            let mut opened = Bitboard::EMPTY;
            if rq.any() {
                for f in straight & ours {
                    if uncovers(k, f, occ, S::rook, rook_reach - no_landing, theirs, rq) {
                        opened |= Bitboard::from_square(f);
                    }
                }
            }
            if bq.any() {
                for f in diagonal & ours {
                    if uncovers(
                        k,
                        f,
                        occ,
                        S::bishop,
                        reach.diagonal - no_landing,
                        theirs,
                        bq,
                    ) {
                        opened |= Bitboard::from_square(f);
                    }
                }
            }
            opened
        };
        inert.from |= separate | opened;
        // A move onto a line from our king need not count separately: where no reply checks,
        // a piece blocking that line takes no check away.
        for t in &mut inert.to {
            *t |= separate;
        }
        inert.to[PieceKind::King.index()] = Bitboard(!0);
        inert
    }
}

/// Whether a reply may give check along the line from our king on `k` through `f`, the first
/// piece of ours on it, once `f` has left the line (`along`: the attacks of the line's kind;
/// `occ`: the occupancy): the part of the line `f` opens, as far as the next piece, holds a
/// square of `landing` (where a piece of theirs that attacks along the line may land), or that
/// next piece is theirs with one of `sliders` (theirs, of the line's kind) behind it, which
/// its move would uncover.
#[inline(always)]
fn uncovers(
    k: Square,
    f: Square,
    occ: Bitboard,
    along: impl Fn(Square, Bitboard) -> Bitboard,
    landing: Bitboard,
    theirs: Bitboard,
    sliders: Bitboard,
) -> bool {
    let line = attacks::line(k, f);
    let beyond = (along(f, occ) & line) - attacks::between(k, f) - Bitboard::from_square(k);
    if (beyond & landing).any() {
        return true;
    }
    match (beyond & theirs).single() {
        Some(x) => {
            let behind = (along(x, occ) & line) - attacks::between(k, x) - Bitboard::from_square(k);
            (behind & sliders).any()
        }
        None => false,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::Inert;
    use crate::attacks::Magic;
    use crate::attacks::magic::Prng;
    use crate::bitboard::Bitboard;
    use crate::movegen::{count_legal, count_legal_on, legal_moves};
    use crate::position::{Position, STARTPOS};
    use crate::types::MoveKind;

    /// Positions reached by random play from openings, middle games and endings (standard
    /// and Chess960), and random placements of kings and up to 24 other pieces (mostly
    /// unreachable, with checks from every side), all with the side to move not in check: the
    /// depth-2 nodes where moves may go unplayed.
    pub(crate) fn depth_2_nodes() -> Vec<Position> {
        let mut rng = Prng::new(0x1EAF);
        let mut found = Vec::new();
        for (fen, chess960) in [
            (STARTPOS, false),
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                false,
            ),
            ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", false),
            (
                "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
                false,
            ),
            (
                "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
                false,
            ),
            (
                "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
                true,
            ),
        ] {
            for _ in 0..30 {
                let mut pos = Position::from_fen_with(fen, chess960).unwrap();
                for _ in 0..60 {
                    let moves = legal_moves::<Magic>(&pos);
                    if moves.is_empty() {
                        break;
                    }
                    if !pos.board().in_check() {
                        found.push(pos.clone());
                    }
                    pos.make(moves[(rng.next_u64() % moves.len() as u64) as usize]);
                }
            }
        }
        for _ in 0..3000 {
            let mut squares = [None::<char>; 64];
            let others: Vec<char> = (0..rng.next_u64() % 25)
                .map(|_| b"PPPPNBRQppppnbrq"[(rng.next_u64() % 16) as usize] as char)
                .collect();
            for piece in "Kk".chars().chain(others) {
                let sq = loop {
                    let sq = (rng.next_u64() % 64) as usize;
                    let back = !(8..56).contains(&sq);
                    if squares[sq].is_none() && !(back && matches!(piece, 'P' | 'p')) {
                        break sq;
                    }
                };
                squares[sq] = Some(piece);
            }
            let ranks: Vec<String> = squares
                .chunks(8)
                .rev()
                .map(|rank| {
                    let mut text = String::new();
                    let mut empty = 0;
                    for square in rank {
                        match square {
                            None => empty += 1,
                            Some(c) => {
                                if empty > 0 {
                                    text += &empty.to_string();
                                    empty = 0;
                                }
                                text.push(*c);
                            }
                        }
                    }
                    if empty > 0 {
                        text += &empty.to_string();
                    }
                    text
                })
                .collect();
            let side = if rng.next_u64().is_multiple_of(2) {
                'w'
            } else {
                'b'
            };
            let fen = format!("{} {side} - - 0 1", ranks.join("/"));
            if let Ok(pos) = Position::from_fen(&fen)
                && !pos.board().in_check()
            {
                found.push(pos);
            }
        }
        found
    }

    /// Each move [`Inert::of`] lets go unplayed leaves the opponent as many replies as the
    /// board with no move made has: made one by one, on every position of [`depth_2_nodes`].
    #[test]
    fn inert_moves_leave_the_opponent_its_replies() {
        let (mut nodes, mut moves) = (0, 0);
        for pos in depth_2_nodes() {
            let board = pos.board();
            let inert = Inert::of::<Magic>(board, pos.castle_path_table());
            let replies = count_legal_on::<Magic>(&board.passed(), pos.castle_path_table());
            let mut any = false;
            for &mv in &legal_moves::<Magic>(&pos) {
                let Some(piece) = pos.piece_at(mv.from()) else {
                    continue;
                };
                let quiet = matches!(mv.kind(), MoveKind::Quiet | MoveKind::DoublePush);
                let to = Bitboard::from_square(mv.to());
                if quiet && inert.unplayed(piece.kind, mv.from(), to).any() {
                    let mut child = pos.clone();
                    child.make(mv);
                    assert_eq!(
                        count_legal::<Magic>(&child),
                        replies,
                        "{} after {mv:?}",
                        pos.to_fen()
                    );
                    moves += 1;
                    any = true;
                }
            }
            nodes += usize::from(any);
        }
        eprintln!("{nodes} positions, {moves} moves");
        assert!(
            nodes > 2000 && moves > 20000,
            "{nodes} positions, {moves} moves"
        );
    }
}
