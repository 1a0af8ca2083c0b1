//! `Board`: the part of a position the move generator reads. Piece placement as bitboards by
//! kind and by colour, side to move, castling rights and en-passant square, with the attack
//! queries built on them (checkers, pins, attacked squares).
//!
//! A [`Position`](super::Position) holds a `Board` and dereferences to it, adding what the
//! generator never reads: the square-by-square board, the Zobrist key, the move counters and
//! the castling paths. Being small and `Copy`, a `Board` is also what perft's last ply plays
//! moves on: a copy per move, counted and dropped.

use crate::attacks::{self, PawnDirs, Reach, Sliders};
use crate::bitboard::Bitboard;
use crate::types::{Color, PieceKind, Square};

/// Piece placement by kind and colour, side to move, castling rights (as the set of
/// castling-rook squares, so Chess960 needs no other representation), en-passant square, and
/// the two king squares.
///
/// Aligned to 16 bytes: perft's last ply copies a `Board` for every move with five 16-byte
/// loads and stores, and at the 8-byte alignment its fields ask for, one of each four crossed a
/// cache line.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(align(16))]
pub struct Board {
    pub(super) by_kind: [Bitboard; 6],
    pub(super) by_color: [Bitboard; 2],
    pub(super) side: Color,
    pub(super) castling: Bitboard,
    pub(super) ep: Option<Square>,
    /// The king squares by colour, kept beside the king bitboard: nearly every table the
    /// legality filter reads is indexed by the king square, so it is one load away instead of
    /// a load, a mask and a bit scan.
    pub(super) kings: [Square; 2],
}

impl Board {
    /// A board with nothing on it: a buffer for boards written whole before they are read
    /// (not a position: no kings).
    pub(crate) const BLANK: Board = Board {
        by_kind: [Bitboard::EMPTY; 6],
        by_color: [Bitboard::EMPTY; 2],
        side: Color::White,
        castling: Bitboard::EMPTY,
        ep: None,
        kings: [Square::new(0); 2],
    };

    /// The board with these pieces (by kind, by colour), `side` to move, the castling rooks
    /// `castling` and no en-passant square: as a batch of the lanes holds a board, the king
    /// squares found from the pieces.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn from_sets(
        by_kind: [Bitboard; 6],
        by_color: [Bitboard; 2],
        side: Color,
        castling: Bitboard,
    ) -> Board {
        let kings = by_kind[PieceKind::King.index()];
        Board {
            by_kind,
            by_color,
            side,
            castling,
            ep: None,
            kings: [(kings & by_color[0]).lsb(), (kings & by_color[1]).lsb()],
        }
    }

    /// The side to move.
    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// Squares holding pieces of `kind`, both colours.
    #[inline(always)]
    pub fn kind(&self, kind: PieceKind) -> Bitboard {
        self.by_kind[kind.index()]
    }

    /// Squares holding pieces of `color`.
    #[inline(always)]
    pub fn color(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    /// Squares holding pieces of `color` and `kind`.
    #[inline(always)]
    pub fn pieces(&self, color: Color, kind: PieceKind) -> Bitboard {
        self.by_kind[kind.index()] & self.by_color[color.index()]
    }

    /// Every occupied square.
    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// The king square of `color` (every valid position has exactly one king per side).
    #[inline(always)]
    pub fn king(&self, color: Color) -> Square {
        self.kings[color.index()]
    }

    /// Moves `color`'s piece of `kind` from `from` to the empty square `to`: the bitboards, and
    /// the king square if it is the king. (The depth-2 pass's
    /// [`Position::play_piece_move_on`](super::Position::play_piece_move_on) writes a whole board
    /// instead and keeps the king square itself.)
    #[inline(always)]
    pub(super) fn shift_piece(&mut self, kind: PieceKind, color: Color, from: Square, to: Square) {
        let b = Bitboard::from_square(from) | Bitboard::from_square(to);
        self.by_kind[kind.index()] ^= b;
        self.by_color[color.index()] ^= b;
        if kind == PieceKind::King {
            self.kings[color.index()] = to;
        }
    }

    /// Castling rights: the squares of the rooks that may still castle, both colours.
    #[inline(always)]
    pub fn castling_rooks(&self) -> Bitboard {
        self.castling
    }

    /// The rooks of `color` that may still castle. The colour's pieces are picked by a select,
    /// not an index: the depth-2 pass writes each child board into a local value, which the
    /// compiler can keep in registers (no stores but the lanes') only while nothing indexes it
    /// by a colour it does not know. [`Board::color`] keeps its index: as a select it made the
    /// lanes' count slower (docs/performance.md).
    #[inline(always)]
    pub fn castling_rooks_of(&self, color: Color) -> Bitboard {
        let own = match color {
            Color::White => self.by_color[0],
            Color::Black => self.by_color[1],
        };
        self.castling & own
    }

    /// The en-passant square, as given by the FEN or set by the last double push.
    ///
    /// After a double push it is set only when an enemy pawn stands beside the pushed pawn, so
    /// that positions that differ in nothing else share a key.
    #[inline(always)]
    pub fn ep_square(&self) -> Option<Square> {
        self.ep
    }

    /// Whether a piece of `by` attacks `sq`, with `occupied` as the blockers (pass the board's
    /// occupancy minus the king to test squares the king might step to).
    #[inline(always)]
    pub(crate) fn is_attacked_by<S: Sliders>(
        &self,
        sq: Square,
        by: Color,
        occupied: Bitboard,
    ) -> bool {
        let them = self.color(by);
        (attacks::pawn(by.flip(), sq) & self.kind(PieceKind::Pawn) & them).any()
            || (attacks::knight(sq) & self.kind(PieceKind::Knight) & them).any()
            || (attacks::king(sq) & self.kind(PieceKind::King) & them).any()
            || self.slider_attacks_square::<S>(sq, by, occupied)
    }

    /// The enemy pieces giving check to the side to move.
    #[inline(always)]
    pub fn checkers(&self) -> Bitboard {
        self.checkers_and_pinned().0
    }

    /// The enemy checkers and our pinned pieces, for the side to move, from one walk over the
    /// enemy sliders aligned with our king: a slider with nothing between it and the king gives
    /// check, one with exactly one of our pieces between pins it. Pawn and knight checks come
    /// from leaper tables, so no slider attack table is read at all.
    #[inline(always)]
    pub(crate) fn checkers_and_pinned(&self) -> (Bitboard, Bitboard) {
        let us = self.side;
        let ksq = self.king(us);
        let them = self.color(!us);
        let own = self.color(us);
        let occupied = own | them;
        let (rq, bq) = self.sliders(!us);
        let snipers = (attacks::rook_empty(ksq) & rq) | (attacks::bishop_empty(ksq) & bq);
        let mut checkers = ((attacks::pawn(us, ksq) & self.kind(PieceKind::Pawn))
            | (attacks::knight(ksq) & self.kind(PieceKind::Knight)))
            & them;
        let mut pinned = Bitboard::EMPTY;
        for s in snipers {
            let b = attacks::between(ksq, s) & occupied;
            if b.is_empty() {
                checkers |= Bitboard::from_square(s);
            } else if !b.more_than_one() {
                pinned |= b & own;
            }
        }
        (checkers, pinned)
    }

    /// The en-passant square a double push from `from` by the side to move leaves behind: the
    /// square it passed, recorded only when an enemy pawn could take there (so that positions
    /// that differ in nothing else share a key).
    #[inline(always)]
    pub(super) fn ep_after_double_push(&self, from: Square) -> Option<Square> {
        let us = self.side;
        let ep = from.offset(us.forward());
        (attacks::pawn(us, ep) & self.pieces(!us, PieceKind::Pawn))
            .any()
            .then_some(ep)
    }

    /// The castling rights left after the side to move goes from `from` to `to` on this board:
    /// a rook that moves or is taken loses its right, a king move loses both of its side's.
    /// (Computed as what is kept, so the last ply's move player needs no test for rights left.)
    #[inline(always)]
    pub(super) fn rights_after(&self, from: Square, to: Square, king_moves: bool) -> Bitboard {
        let mut kept = self.castling - (Bitboard::from_square(from) | Bitboard::from_square(to));
        if king_moves {
            kept = kept - Bitboard::rank(self.side.back_rank());
        }
        kept
    }

    /// Every square attacked by `by`'s pawns, knights and king (the pieces whose attacks do not
    /// depend on the occupancy).
    #[inline(always)]
    pub(crate) fn leaper_attacks(&self, by: Color) -> Bitboard {
        let them = self.color(by);
        let pawns = self.kind(PieceKind::Pawn) & them;
        let mut attacked = PawnDirs::of(by).attacks(pawns);
        for sq in self.kind(PieceKind::Knight) & them {
            attacked |= attacks::knight(sq);
        }
        attacked | attacks::king(self.king(by))
    }

    /// Whether an enemy rook, bishop or queen of `by` attacks `sq` through `occupied`. The
    /// empty-board rays are tested first, so the attack tables are read only for a slider that
    /// is aligned with `sq`.
    #[inline(always)]
    pub(crate) fn slider_attacks_square<S: Sliders>(
        &self,
        sq: Square,
        by: Color,
        occupied: Bitboard,
    ) -> bool {
        let (rq, bq) = self.sliders(by);
        ((attacks::rook_empty(sq) & rq).any() && (S::rook(sq, occupied) & rq).any())
            || ((attacks::bishop_empty(sq) & bq).any() && (S::bishop(sq, occupied) & bq).any())
    }

    /// `color`'s sliders by how they move: (rooks and queens, bishops and queens).
    #[inline(always)]
    pub fn sliders(&self, color: Color) -> (Bitboard, Bitboard) {
        let (us, queens) = (self.color(color), self.kind(PieceKind::Queen));
        (
            (self.kind(PieceKind::Rook) | queens) & us,
            (self.kind(PieceKind::Bishop) | queens) & us,
        )
    }

    /// The squares of `targets` that no rook, bishop or queen of `by` attacks through
    /// `occupied`. `reach` must be the targets' [`Reach`] or a superset of it: only the sliders
    /// standing there, and lined up with a target not yet found attacked, are looked up, once
    /// each, so the cost follows the few sliders near the targets, not the targets.
    #[inline(always)]
    pub(crate) fn without_slider_attacks<S: Sliders>(
        &self,
        targets: Bitboard,
        by: Color,
        reach: Reach,
        occupied: Bitboard,
    ) -> Bitboard {
        let (rq, bq) = self.sliders(by);
        let mut safe = targets;
        for from in rq & reach.rook {
            if (attacks::rook_empty(from) & safe).any() {
                safe = safe - S::rook(from, occupied);
            }
        }
        for from in bq & reach.bishop {
            if (attacks::bishop_empty(from) & safe).any() {
                safe = safe - S::bishop(from, occupied);
            }
        }
        safe
    }

    /// This board with the other side to move and no en-passant square: the opponent's moves
    /// as they stand before any move of ours.
    #[inline(always)]
    pub(crate) fn passed(&self) -> Board {
        Board {
            side: !self.side,
            ep: None,
            ..*self
        }
    }

    /// Whether the side to move is in check.
    pub fn in_check(&self) -> bool {
        self.checkers().any()
    }
}
