//! Moves that leave the opponent's replies as they were.
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

use crate::attacks::{self, PawnDirs, Sliders};
use crate::bitboard::Bitboard;
use crate::position::{Board, CastlePaths};
use crate::types::PieceKind;

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
        let us = board.side_to_move();
        let them = !us;
        let theirs = board.color(them);
        let occ = board.occupied();
        let k = board.king(them);

        // Squares whose occupancy the opponent's moves read.
        let pawns = board.pieces(them, PieceKind::Pawn);
        let their_dirs = PawnDirs::of(them);
        let mut open = pawns.shift(their_dirs.up)
            | (pawns & their_dirs.start_rank).shift(2 * their_dirs.up)
            | their_dirs.attacks(pawns);
        let (their_rq, their_bq) = board.sliders(them);
        for s in their_rq {
            open |= S::rook(s, occ);
        }
        for s in their_bq {
            open |= S::bishop(s, occ);
        }

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
        let mut to = [Bitboard::EMPTY; 6];
        let mut lines = Bitboard::EMPTY;
        for q in zone {
            to[PieceKind::Pawn.index()] |= attacks::pawn(them, q);
            to[PieceKind::Knight.index()] |= attacks::knight(q);
            to[PieceKind::King.index()] |= attacks::king(q);
            // A line with two pieces between stays shut whatever one move does; from their
            // king's square three (one move can turn two pieces between into one: a pin).
            let most = if q == k { 2 } else { 1 };
            if rq.any() {
                to[PieceKind::Rook.index()] |= S::rook(q, seen);
                for s in rq & attacks::rook_empty(q) {
                    let b = attacks::between(q, s);
                    if (b & seen).count() <= most {
                        lines |= b | Bitboard::from_square(s);
                    }
                }
            }
            if bq.any() {
                to[PieceKind::Bishop.index()] |= S::bishop(q, seen);
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
            to[PieceKind::Rook.index()] |= S::rook(k, occ - first);
        }
        if bq.any() {
            let first = S::bishop(k, occ) & theirs;
            to[PieceKind::Bishop.index()] |= S::bishop(k, occ - first);
        }
        to[PieceKind::Queen.index()] = to[PieceKind::Rook.index()] | to[PieceKind::Bishop.index()];

        // Our pieces already attacking one of those squares.
        let attackers = (board.pieces(us, PieceKind::Pawn) & to[PieceKind::Pawn.index()])
            | (board.pieces(us, PieceKind::Knight) & to[PieceKind::Knight.index()])
            | (board.pieces(us, PieceKind::King) & to[PieceKind::King.index()])
            | (rq & to[PieceKind::Rook.index()])
            | (bq & to[PieceKind::Bishop.index()]);

        // A double push next to one of their pawns gives them en passant; a push onto the
        // last rank promotes.
        let beside = ((pawns - Bitboard::FILE_A).shift(-1)) | ((pawns - Bitboard::FILE_H).shift(1));
        let our_dirs = PawnDirs::of(us);
        to[PieceKind::Pawn.index()] |= (beside & our_dirs.double_landing()) | our_dirs.last_rank();

        let every = open | lines;
        for t in &mut to {
            *t |= every;
        }
        Inert {
            from: every | attackers,
            to,
        }
    }
}
