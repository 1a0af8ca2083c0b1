//! `Position`: the board state, its Zobrist key, and attack queries.
//!
//! FEN parsing and printing live in [`fen`], make and unmake in [`make`].

pub mod fen;
pub mod make;
pub(crate) mod zobrist;

pub use fen::{CastlingNotation, FenError};
pub use make::{Frame, Undo};

use crate::attacks::{self, Sliders};
use crate::bitboard::Bitboard;
use crate::types::{Color, Piece, PieceKind, Square};

/// The standard starting position.
pub const STARTPOS: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// A chess position: piece placement by kind, colour and square; side to move; castling rights
/// as the set of castling-rook squares (so Chess960 needs no other representation); en-passant
/// square; move counters; and a Zobrist key kept up to date by [`Position::make`].
#[derive(Clone, Debug)]
pub struct Position {
    by_kind: [Bitboard; 6],
    by_color: [Bitboard; 2],
    board: [Option<Piece>; 64],
    side: Color,
    castling: Bitboard,
    ep: Option<Square>,
    halfmove: u32,
    fullmove: u32,
    key: u64,
    chess960: bool,
    notation: CastlingNotation,
    /// Per castling right (White king-side, White other, Black king-side, Black other), fixed
    /// from parsing on: the king and rook never move while the right exists.
    castle_paths: [CastlePath; 4],
}

/// Two positions are equal when everything that defines them is: placement, side to move,
/// castling rights, en-passant square, counters, key, rules and notation. The castling paths
/// are left out: they are derived data, and a path whose right was lost stays behind unused.
impl PartialEq for Position {
    fn eq(&self, other: &Position) -> bool {
        self.by_kind == other.by_kind
            && self.by_color == other.by_color
            && self.board == other.board
            && self.side == other.side
            && self.castling == other.castling
            && self.ep == other.ep
            && self.halfmove == other.halfmove
            && self.fullmove == other.fullmove
            && self.key == other.key
            && self.chess960 == other.chess960
            && self.notation == other.notation
    }
}

impl Eq for Position {}

/// What castling with one rook needs, computed once when the FEN is parsed.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct CastlePath {
    /// The castling rook's square (`Bitboard::EMPTY`'s `rook` bit unused when no right).
    pub rook: Bitboard,
    /// Squares king and rook pass over or land on, other than their own: must be empty.
    pub empty: Bitboard,
    /// Squares from the king's start to its destination, inclusive: must not be attacked.
    pub king_path: Bitboard,
}

impl Position {
    /// The standard starting position.
    pub fn startpos() -> Position {
        // The constant is a valid FEN (checked by the tests), so this cannot fail.
        Position::from_fen(STARTPOS).unwrap_or_else(|_| unreachable!("STARTPOS is valid"))
    }

    /// An empty board, White to move; used by the FEN parser before it places pieces.
    fn empty() -> Position {
        Position {
            by_kind: [Bitboard::EMPTY; 6],
            by_color: [Bitboard::EMPTY; 2],
            board: [None; 64],
            side: Color::White,
            castling: Bitboard::EMPTY,
            ep: None,
            halfmove: 0,
            fullmove: 1,
            key: 0,
            chess960: false,
            notation: CastlingNotation::Standard,
            castle_paths: [CastlePath::default(); 4],
        }
    }

    /// The side to move.
    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The piece on `sq`, if any.
    #[inline(always)]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
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
        self.pieces(color, PieceKind::King).lsb()
    }

    /// The castling paths of `color`'s (up to two) castling rooks, as parsed; a path applies
    /// while its rook is still in [`Position::castling_rooks`].
    #[inline(always)]
    pub fn castle_paths(&self, color: Color) -> &[CastlePath] {
        let i = color.index() * 2;
        &self.castle_paths[i..i + 2]
    }

    /// Fills the castling paths from the castling rights and king squares (after parsing).
    fn compute_castle_paths(&mut self) {
        self.castle_paths = [CastlePath::default(); 4];
        for color in Color::BOTH {
            let ksq = self.king(color);
            let rooks = self.castling & Bitboard::rank(color.back_rank());
            for rook in rooks {
                let mv = crate::types::Move::new(ksq, rook, crate::types::MoveKind::Castle);
                let (king_to, rook_to) = (mv.castle_king_to(), mv.castle_rook_to());
                let movers = Bitboard::from_square(ksq) | Bitboard::from_square(rook);
                let king_path = span(ksq, king_to);
                let empty = (king_path | span(rook, rook_to)) - movers;
                let slot = color.index() * 2 + usize::from(rook < ksq);
                self.castle_paths[slot] = CastlePath {
                    rook: Bitboard::from_square(rook),
                    empty,
                    king_path,
                };
            }
        }
    }

    /// Castling rights: the squares of the rooks that may still castle, both colours.
    #[inline(always)]
    pub fn castling_rooks(&self) -> Bitboard {
        self.castling
    }

    /// The en-passant square, as given by the FEN or set by the last double push.
    ///
    /// After a double push it is set only when an enemy pawn stands beside the pushed pawn, so
    /// that positions that differ in nothing else share a key.
    #[inline(always)]
    pub fn ep_square(&self) -> Option<Square> {
        self.ep
    }

    /// Half-moves since the last capture or pawn move.
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove
    }

    /// The full-move number, starting at 1 and incremented after Black moves.
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove
    }

    /// The Zobrist key, updated incrementally by make and unmake.
    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// Whether Chess960 castling rules and notation apply.
    pub fn is_chess960(&self) -> bool {
        self.chess960
    }

    /// How FEN printing writes castling rights (as they were given).
    pub fn castling_notation(&self) -> CastlingNotation {
        self.notation
    }

    /// The Zobrist key computed from scratch (the incremental key must always equal it).
    pub fn compute_key(&self) -> u64 {
        self.key_from(&zobrist::KEYS)
    }

    /// A second Zobrist key, independent of [`Position::key`] (other random tables), computed
    /// from scratch. Hashed perft verifies table entries with both keys (128 bits), so a
    /// collision cannot corrupt a count; it is computed only when the table is probed.
    pub fn key2(&self) -> u64 {
        self.key_from(&zobrist::KEYS2)
    }

    fn key_from(&self, keys: &zobrist::Keys) -> u64 {
        let mut key = 0;
        for sq in self.occupied() {
            if let Some(p) = self.board[sq.index()] {
                key ^= keys.piece[p.index()][sq.index()];
            }
        }
        for sq in self.castling {
            key ^= keys.castle[sq.index()];
        }
        if let Some(ep) = self.ep {
            key ^= keys.ep_file[ep.file() as usize];
        }
        if self.side == Color::Black {
            key ^= keys.side;
        }
        key
    }

    /// Puts `piece` on the empty square `sq` (no key update).
    #[inline(always)]
    fn put(&mut self, sq: Square, piece: Piece) {
        let b = Bitboard::from_square(sq);
        self.by_kind[piece.kind.index()] |= b;
        self.by_color[piece.color.index()] |= b;
        self.board[sq.index()] = Some(piece);
    }

    /// Removes `piece`, which stands on `sq` (no key update).
    #[inline(always)]
    fn remove(&mut self, sq: Square, piece: Piece) {
        let b = Bitboard::from_square(sq);
        self.by_kind[piece.kind.index()] ^= b;
        self.by_color[piece.color.index()] ^= b;
        self.board[sq.index()] = None;
    }

    /// Moves `piece` from `from` to the empty square `to` (no key update).
    #[inline(always)]
    fn shift(&mut self, from: Square, to: Square, piece: Piece) {
        let b = Bitboard::from_square(from) | Bitboard::from_square(to);
        self.by_kind[piece.kind.index()] ^= b;
        self.by_color[piece.color.index()] ^= b;
        self.board[from.index()] = None;
        self.board[to.index()] = Some(piece);
    }

    /// Whether a piece of `by` attacks `sq`, with `occupied` as the blockers (pass the board's
    /// occupancy minus the king to test squares the king might step to).
    #[inline(always)]
    pub fn is_attacked_by<S: Sliders>(&self, sq: Square, by: Color, occupied: Bitboard) -> bool {
        let them = self.color(by);
        let rq = (self.kind(PieceKind::Rook) | self.kind(PieceKind::Queen)) & them;
        let bq = (self.kind(PieceKind::Bishop) | self.kind(PieceKind::Queen)) & them;
        (attacks::pawn(by.flip(), sq) & self.kind(PieceKind::Pawn) & them).any()
            || (attacks::knight(sq) & self.kind(PieceKind::Knight) & them).any()
            || (attacks::king(sq) & self.kind(PieceKind::King) & them).any()
            || (S::rook(sq, occupied) & rq).any()
            || (S::bishop(sq, occupied) & bq).any()
    }

    /// The enemy pieces giving check to the side to move. Only pawns, knights and sliders can
    /// (a king never gives check), so those alone are looked at.
    #[inline(always)]
    pub fn checkers<S: Sliders>(&self) -> Bitboard {
        let us = self.side;
        let ksq = self.king(us);
        let occupied = self.occupied();
        let rq = self.kind(PieceKind::Rook) | self.kind(PieceKind::Queen);
        let bq = self.kind(PieceKind::Bishop) | self.kind(PieceKind::Queen);
        ((attacks::pawn(us, ksq) & self.kind(PieceKind::Pawn))
            | (attacks::knight(ksq) & self.kind(PieceKind::Knight))
            | (S::rook(ksq, occupied) & rq)
            | (S::bishop(ksq, occupied) & bq))
            & self.color(!us)
    }

    /// The enemy checkers and our pinned pieces, for the side to move, from one walk over the
    /// enemy sliders aligned with our king: a slider with nothing between it and the king gives
    /// check, one with exactly one of our pieces between pins it. Pawn and knight checks come
    /// from leaper tables, so no slider attack table is read at all.
    #[inline(always)]
    pub fn checkers_and_pinned(&self) -> (Bitboard, Bitboard) {
        let us = self.side;
        let ksq = self.king(us);
        let them = self.color(!us);
        let own = self.color(us);
        let occupied = own | them;
        let rq = (self.kind(PieceKind::Rook) | self.kind(PieceKind::Queen)) & them;
        let bq = (self.kind(PieceKind::Bishop) | self.kind(PieceKind::Queen)) & them;
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

    /// Every square attacked by `by`'s pawns, knights and king (the pieces whose attacks do not
    /// depend on the occupancy).
    #[inline(always)]
    pub fn leaper_attacks(&self, by: Color) -> Bitboard {
        let them = self.color(by);
        let pawns = self.kind(PieceKind::Pawn) & them;
        let mut attacked = match by {
            Color::White => {
                (pawns - Bitboard::FILE_A).shift(7) | (pawns - Bitboard::FILE_H).shift(9)
            }
            Color::Black => {
                (pawns - Bitboard::FILE_A).shift(-9) | (pawns - Bitboard::FILE_H).shift(-7)
            }
        };
        for sq in self.kind(PieceKind::Knight) & them {
            attacked |= attacks::knight(sq);
        }
        attacked | attacks::king(self.king(by))
    }

    /// Whether an enemy rook, bishop or queen of `by` attacks `sq` through `occupied`. The
    /// empty-board rays are tested first, so the attack tables are read only for a slider that
    /// is aligned with `sq`.
    #[inline(always)]
    pub fn slider_attacks_square<S: Sliders>(
        &self,
        sq: Square,
        by: Color,
        occupied: Bitboard,
    ) -> bool {
        let them = self.color(by);
        let rq = (self.kind(PieceKind::Rook) | self.kind(PieceKind::Queen)) & them;
        let bq = (self.kind(PieceKind::Bishop) | self.kind(PieceKind::Queen)) & them;
        ((attacks::rook_empty(sq) & rq).any() && (S::rook(sq, occupied) & rq).any())
            || ((attacks::bishop_empty(sq) & bq).any() && (S::bishop(sq, occupied) & bq).any())
    }

    /// Whether the side to move is in check.
    pub fn in_check<S: Sliders>(&self) -> bool {
        self.checkers::<S>().any()
    }

    /// The pieces of `color` that stand alone between `color`'s king and an enemy slider aiming
    /// at it (absolutely pinned pieces, if `color` is to move).
    #[inline(always)]
    pub fn pinned(&self, color: Color) -> Bitboard {
        let ksq = self.king(color);
        let them = self.color(!color);
        let rq = (self.kind(PieceKind::Rook) | self.kind(PieceKind::Queen)) & them;
        let bq = (self.kind(PieceKind::Bishop) | self.kind(PieceKind::Queen)) & them;
        let snipers = (attacks::rook_empty(ksq) & rq) | (attacks::bishop_empty(ksq) & bq);
        let occupied = self.occupied();
        let mut pinned = Bitboard::EMPTY;
        for s in snipers {
            let b = attacks::between(ksq, s) & occupied;
            if !b.more_than_one() {
                pinned |= b & self.color(color);
            }
        }
        pinned
    }

    /// A text picture of the board, rank 8 on top, with the FEN below it.
    pub fn pretty(&self) -> String {
        let mut s = String::new();
        for rank in (0..8).rev() {
            s.push((b'1' + rank) as char);
            s.push(' ');
            for file in 0..8 {
                let c = self.board[Square::from_coords(file, rank).index()]
                    .map_or('.', |p| p.fen_char());
                s.push(c);
                s.push(' ');
            }
            s.push('\n');
        }
        s.push_str("  a b c d e f g h\n");
        s.push_str(&self.to_fen());
        s
    }
}

/// The squares from `a` to `b` inclusive; `a` and `b` on one rank.
fn span(a: Square, b: Square) -> Bitboard {
    let (lo, hi) = if a < b {
        (a.index(), b.index())
    } else {
        (b.index(), a.index())
    };
    Bitboard((2u64 << hi).wrapping_sub(1 << lo))
}

impl Default for Position {
    fn default() -> Position {
        Position::startpos()
    }
}
