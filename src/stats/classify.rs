//! Classifying one move's leaf: its kind (capture, en passant, castle, promotion), and for a
//! move that gives or may give check, the check's kind and whether it is mate, the move played
//! on a copy of the board only then.

use super::Stats;
use super::leaf::Check;
use crate::attacks::{self, PawnDirs, Sliders};
use crate::bitboard::Bitboard;
use crate::movegen::{self, MAX_MOVES};
use crate::position::{Board, CastlePaths, Position};
use crate::types::{Color, Move, MoveKind, PieceKind, Square};

/// How [`play_and_record`] plays a move.
#[derive(Clone, Copy)]
pub(super) enum Play {
    /// The piece of `kind` goes (no double push, promotion, en passant or castle), taking what
    /// stands on the destination if `capture`.
    Piece {
        kind: PieceKind,
        capture: bool,
    },
    DoublePush,
    Promotion {
        piece: PieceKind,
        capture: bool,
    },
    /// En passant or castling.
    Special(Move),
}

/// Plays the move from `from` to `to` (`how`) on a copy of `board` and counts its leaf's check
/// and mate, if any: in the kind `check` if known, else as the board after the move shows
/// ([`record`]); and the en-passant captures and promotions. Out of line: the played moves are
/// few (about one leaf in a hundred gives check).
///
/// The generator gives knights and sliders as if none were pinned (the sink's `TOTALS`) and
/// takes back the pinned ones' impossible moves afterwards; such a move that leaves a line
/// through the mover's king is tested on the child, and not recorded if that king is attacked.
/// Without `PINS` that test is left out: for the moves the lanes hand over, which come from
/// their sets of legal moves (there it ran the whole attack test on our king for every
/// checking move of a piece on one of its lines).
#[inline(never)]
pub(super) fn play_and_record<S: Sliders, const PINS: bool>(
    board: &Board,
    paths: &CastlePaths,
    from: Square,
    to: Square,
    how: Play,
    check: Option<Check>,
    st: &mut Stats<u64>,
) {
    let mut child = *board;
    let dest = match how {
        Play::Piece { kind, capture } => {
            board.play_piece_move_on(kind, from, to, capture, &mut child);
            if PINS
                && matches!(
                    kind,
                    PieceKind::Knight | PieceKind::Bishop | PieceKind::Rook | PieceKind::Queen
                )
            {
                let ksq = board.king(board.side_to_move());
                let line = attacks::line(ksq, from);
                if line.any()
                    && !line.contains(to)
                    && child.is_attacked_by::<S>(ksq, child.side_to_move(), child.occupied())
                {
                    return;
                }
            }
            to
        }
        Play::DoublePush => {
            board.play_double_push_on(from, to, &mut child);
            to
        }
        Play::Promotion { piece, capture } => {
            st.promotions += 1;
            board.play_promotion_on(from, to, piece, capture, &mut child);
            to
        }
        Play::Special(mv) => {
            if mv.kind() == MoveKind::EnPassant {
                st.enpassants += 1;
            }
            board.play_special_on(mv, &mut child);
            moved_to(mv)
        }
    };
    match check {
        Some(check) => {
            let (direct, double) = check.by_mover_and_double();
            record_checked::<S>(&child, paths, direct, double, st);
        }
        None => record::<S>(&child, paths, dest, st),
    }
}

/// `moves` moves of which `captures` capture, as the statistics leaf's sink (`LeafSink`) adds
/// them up: the moves in the word's lowest 21 bits, the captures in the next 21, the castles
/// (added by the sink itself) above them. Each count is below [`MAX_MOVES`] < 2^21, so no field
/// carries into the next.
#[inline(always)]
pub(super) fn tally(moves: u32, captures: u32) -> u64 {
    u64::from(moves) | u64::from(captures) << CAPTURES_AT
}

/// Where [`tally`]'s captures and castles begin, and the mask of one field.
pub(super) const CAPTURES_AT: u32 = 21;

pub(super) const CASTLES_AT: u32 = 42;

pub(super) const TALLY_FIELD: u64 = (1 << CAPTURES_AT) - 1;

const _: () = assert!(MAX_MOVES < 1 << CAPTURES_AT);

pub(super) const PROMOTIONS: [PieceKind; 4] = [
    PieceKind::Queen,
    PieceKind::Rook,
    PieceKind::Bishop,
    PieceKind::Knight,
];

/// Counts the leaf `child` (reached by a move whose moved piece stands on `dest`; `paths`, the
/// game's castling paths) if it is in check: by kind of check, and as a mate when it has no
/// legal move.
#[inline(always)]
pub(super) fn record<S: Sliders>(
    child: &Board,
    paths: &CastlePaths,
    dest: Square,
    st: &mut Stats<u64>,
) {
    let checkers = child.checkers();
    if checkers.is_empty() {
        return;
    }
    record_checked::<S>(
        child,
        paths,
        checkers.contains(dest),
        checkers.more_than_one(),
        st,
    );
}

/// Counts the leaf `child`, in check by the moved piece (`direct`) or not, and by two pieces
/// (`double`) or one: as a mate when it has no legal move.
#[inline(always)]
pub(super) fn record_checked<S: Sliders>(
    child: &Board,
    paths: &CastlePaths,
    direct: bool,
    double: bool,
    st: &mut Stats<u64>,
) {
    let mate = !has_reply::<S>(child, paths);
    let field = match (double, direct, mate) {
        (false, true, false) => &mut st.direct_checks,
        (false, false, false) => &mut st.single_discovered_checks,
        (true, true, false) => &mut st.direct_discovered_checks,
        (true, false, false) => &mut st.double_discovered_checks,
        (false, true, true) => &mut st.direct_mates,
        (false, false, true) => &mut st.single_discovered_mates,
        (true, true, true) => &mut st.direct_discovered_mates,
        (true, false, true) => &mut st.double_discovered_mates,
    };
    *field += 1;
}

/// Whether the side to move on `child`, in check, has a legal move. Most checked kings can step
/// aside: a king step to a square no enemy piece attacks (the king lifted off the board, so
/// sliders see through its square) answers at once; otherwise [`answers_check`] looks further.
#[inline(always)]
pub(super) fn has_reply<S: Sliders>(child: &Board, paths: &CastlePaths) -> bool {
    let us = child.side_to_move();
    let ksq = child.king(us);
    let occupied = child.occupied() - Bitboard::from_square(ksq);
    for to in attacks::king(ksq) - child.color(us) {
        if !child.is_attacked_by::<S>(to, !us, occupied) {
            return true;
        }
    }
    answers_check::<S>(child, paths)
}

/// Whether the side to move on `child`, in check and with no king step, has a legal move: in
/// double check none; in single check, a piece of ours that is not pinned (a pinned piece
/// cannot move in check) taking the checker or stepping between it and our king. Where an
/// en-passant capture is possible the legal moves are counted instead. Out of line: needed
/// only where the king cannot step aside, and it keeps `play_and_record`'s frame small.
#[inline(never)]
pub(super) fn answers_check<S: Sliders>(child: &Board, paths: &CastlePaths) -> bool {
    let (checkers, pinned) = child.checkers_and_pinned();
    if checkers.more_than_one() {
        return false;
    }
    if checkers.is_empty() || child.ep_square().is_some() {
        return count_replies::<S>(child, paths) > 0;
    }
    let us = child.side_to_move();
    let ksq = child.king(us);
    let free = child.color(us) - pinned - Bitboard::from_square(ksq);
    piece_answers::<S>(child, us, free, ksq, checkers.lsb(), child.occupied())
}

/// Whether a piece of `side` among `free` (its pieces that can move in check: neither its
/// king nor a pinned one) takes the lone checker on `checker` or steps between it and the king
/// on `ksq`, on `board` with the pieces `occupied` (the board's own, or those after a move
/// not made on it: `free` then leaves out a piece the move took).
#[inline(always)]
fn piece_answers<S: Sliders>(
    board: &Board,
    side: Color,
    free: Bitboard,
    ksq: Square,
    checker: Square,
    occupied: Bitboard,
) -> bool {
    let between = attacks::between(ksq, checker);
    // Pawns: a capture of the checker, a push or a double push between.
    let pawns = board.pieces(side, PieceKind::Pawn) & free;
    let d = PawnDirs::of(side);
    let double_pushed = (between & d.start_rank.shift(2 * d.up)).shift(-d.up) - occupied;
    let pawn_answers =
        attacks::pawn(!side, checker) | between.shift(-d.up) | double_pushed.shift(-d.up);
    if (pawn_answers & pawns).any() {
        return true;
    }
    let targets = between | Bitboard::from_square(checker);
    for n in board.pieces(side, PieceKind::Knight) & free {
        if (attacks::knight(n) & targets).any() {
            return true;
        }
    }
    let (straight, diagonal) = board.sliders(side);
    for s in diagonal & free {
        if (S::bishop(s, occupied) & targets).any() {
            return true;
        }
    }
    for s in straight & free {
        if (S::rook(s, occupied) & targets).any() {
            return true;
        }
    }
    false
}

/// Whether their king, in check from our piece of `kind` alone once it has gone from `from`
/// to `to` on `board` (a legal move giving direct check, and no other: not a double push, so
/// that no en-passant capture can answer it), has a reply taking that piece or stepping
/// between it and their king, by a piece of theirs the move leaves unpinned. Then the leaf is
/// a check, not a mate, and the move need not be played; where this says no, their king may
/// still step aside (or the check be a mate), and the move is played. The same replies as
/// [`answers_check`] looks for ([`piece_answers`]), without the board after the move: its
/// occupancy and our sliders (the moved one on `to`, none on `from`) are all the pins and the
/// lines need. A slider of ours other than the moved one with nothing between it and their
/// king would be a second checker: the answer is then no, and the move is played. Out of
/// line: it is asked only of the checking moves that leave no sure king step.
#[inline(never)]
pub(super) fn interposed<S: Sliders>(
    board: &Board,
    kind: PieceKind,
    from: Square,
    to: Square,
) -> bool {
    let us = board.side_to_move();
    let them = !us;
    let ksq = board.king(them);
    let (gone, at) = (Bitboard::from_square(from), Bitboard::from_square(to));
    let occupied = (board.occupied() - gone) | at;
    // Their pieces after the move, less their king; a piece taken on `to` is gone.
    let theirs = board.color(them) - at - Bitboard::from_square(ksq);
    let (straight, diagonal) = board.sliders(us);
    let (mut straight, mut diagonal) = (straight - gone, diagonal - gone);
    match kind {
        PieceKind::Rook => straight |= at,
        PieceKind::Bishop => diagonal |= at,
        PieceKind::Queen => {
            straight |= at;
            diagonal |= at;
        }
        _ => {}
    }
    // Their pieces our sliders pin after the move (the checker, on the line it checks along,
    // pins nothing): a pinned piece cannot answer a check.
    let snipers = (attacks::rook_empty(ksq) & straight) | (attacks::bishop_empty(ksq) & diagonal);
    let mut pinned = Bitboard::EMPTY;
    for s in snipers - at {
        let b = attacks::between(ksq, s) & occupied;
        if b.is_empty() {
            return false;
        }
        if !b.more_than_one() {
            pinned |= b & theirs;
        }
    }
    piece_answers::<S>(board, them, theirs - pinned, ksq, to, occupied)
}

/// The legal moves of `child`, out of line: inlined, the whole generator made its caller's
/// frame large.
#[inline(never)]
pub(super) fn count_replies<S: Sliders>(child: &Board, paths: &CastlePaths) -> u64 {
    movegen::count_legal_on::<S>(child, paths)
}

/// The statistics of the one leaf `mv` (a legal move of `pos`) leads to, the move played
/// without any filter: for the root's moves of a depth-1 divide. Summed over the moves, it
/// must equal [`leaf_stats_on`](super::leaf::leaf_stats_on) (the tests check that it does).
pub(super) fn move_stats<S: Sliders>(pos: &Position, mv: Move) -> Stats<u64> {
    let kind = mv.kind();
    let mut st = Stats {
        nodes: 1,
        captures: u64::from(mv.is_capture()),
        enpassants: u64::from(kind == MoveKind::EnPassant),
        castles: u64::from(kind == MoveKind::Castle),
        promotions: u64::from(mv.promotion_piece().is_some()),
        ..Stats::default()
    };
    classify::<S>(pos, mv, &mut st);
    st
}

/// Plays `mv` on a copy of the board and counts the leaf's check and mate, if any.
pub(super) fn classify<S: Sliders>(pos: &Position, mv: Move, st: &mut Stats<u64>) {
    record::<S>(
        &pos.board_after(mv),
        pos.castle_path_table(),
        moved_to(mv),
        st,
    );
}

/// Where the *moved piece* of `mv` stands after it: the castling rook's square for a castle,
/// the move's destination otherwise.
#[inline(always)]
pub(super) fn moved_to(mv: Move) -> Square {
    if mv.kind() == MoveKind::Castle {
        mv.castle_rook_to()
    } else {
        mv.to()
    }
}
