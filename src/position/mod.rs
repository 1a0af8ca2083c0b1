//! `Position`: the board state, its Zobrist key, and attack queries.
//!
//! FEN parsing and printing live in [`fen`], make and unmake in [`make`].

pub mod board;
pub mod fen;
pub mod make;
pub(crate) mod zobrist;

pub use board::Board;
pub(crate) use fen::CastlingNotation;
pub use fen::FenError;
pub use make::Undo;

use crate::attacks::Reach;
use crate::bitboard::Bitboard;
use crate::types::{Color, Piece, PieceKind, Square};

/// The standard starting position.
pub const STARTPOS: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// A chess position: piece placement by kind, colour and square; side to move; castling rights
/// as the set of castling-rook squares (so Chess960 needs no other representation); en-passant
/// square; move counters; and a Zobrist key kept up to date by [`Position::make`].
#[derive(Clone, Debug)]
pub struct Position {
    board: Board,
    squares: [Option<Piece>; 64],
    halfmove: u32,
    fullmove: u32,
    key: u64,
    chess960: bool,
    notation: CastlingNotation,
    castle_paths: CastlePaths,
}

/// Two positions are equal when everything that defines them is: placement, side to move,
/// castling rights, en-passant square, counters, key, rules and notation. The castling paths
/// are left out: they are derived data, and a path whose right was lost stays behind unused.
impl PartialEq for Position {
    fn eq(&self, other: &Position) -> bool {
        self.board == other.board
            && self.squares == other.squares
            && self.halfmove == other.halfmove
            && self.fullmove == other.fullmove
            && self.key == other.key
            && self.chess960 == other.chess960
            && self.notation == other.notation
    }
}

impl Eq for Position {}

/// A position is read as its [`Board`] (placement, side to move, rights, en-passant square and
/// the attack queries on them).
impl std::ops::Deref for Position {
    type Target = Board;
    #[inline(always)]
    fn deref(&self) -> &Board {
        &self.board
    }
}

internal! {
    /// The castling paths of a game, one per castling right (White king-side, White other, Black
    /// king-side, Black other), fixed from parsing on: the king and rook never move while the
    /// right exists.
    /// With them, per colour, the castling rooks whose paths they screen
    /// ([`CastlePath::rook_screens`]; none in standard chess).
    #[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
    pub struct CastlePaths([[CastlePath; 2]; 2], [Bitboard; 2]);
}

impl CastlePaths {
    /// The paths of `color`'s (up to two) castling rooks; a path applies while its rook is
    /// still in [`Board::castling_rooks`].
    #[inline(always)]
    pub fn of(&self, color: Color) -> &[CastlePath; 2] {
        &self.0[color.index()]
    }

    /// The squares of `color`'s castling rooks that screen their paths
    /// ([`CastlePath::rook_screens`]), in one set: empty in standard chess.
    #[inline(always)]
    pub fn screening_rooks(&self, color: Color) -> Bitboard {
        self.1[color.index()]
    }
}

internal! {
    /// What castling with one rook needs, computed once when the FEN is parsed.
    #[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
    pub struct CastlePath {
        /// The castling rook's square (`Bitboard::EMPTY`'s `rook` bit unused when no right).
        pub rook: Bitboard,
        /// Squares king and rook pass over or land on, other than their own: must be empty.
        pub empty: Bitboard,
        /// Squares from the king's start to its destination, inclusive: must not be attacked.
        pub king_path: Bitboard,
        /// The reach of `king_path`: the only places an enemy slider can stop the castling from.
        pub reach: Reach,
        /// Whether the rook stands on the back rank between a square of `king_path` and a square
        /// an enemy rook or queen could stand on (Chess960 only: never with the rook in a corner).
        /// Only then can the rook's leaving open a line onto the path, so only then must the path
        /// be tested with the rook taken off the board.
        pub rook_screens: bool,
    }
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
            board: Board::BLANK,
            squares: [None; 64],
            halfmove: 0,
            fullmove: 1,
            key: 0,
            chess960: false,
            notation: CastlingNotation::Standard,
            castle_paths: CastlePaths::default(),
        }
    }

    /// The piece on `sq`, if any.
    #[inline(always)]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.squares[sq.index()]
    }

    internal! {
        /// The castling paths of both colours, as the move generator takes them.
        #[inline(always)]
        pub fn castle_path_table(&self) -> &CastlePaths {
            &self.castle_paths
        }
    }

    /// The [`Board`] of this position (it also dereferences to it).
    #[inline(always)]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Fills the castling paths from the castling rights and king squares (after parsing).
    fn compute_castle_paths(&mut self) {
        self.castle_paths = CastlePaths::default();
        for color in Color::BOTH {
            let ksq = self.king(color);
            let rooks = self.board.castling & Bitboard::rank(color.back_rank());
            for rook in rooks {
                let mv = crate::types::Move::new(ksq, rook, crate::types::MoveKind::Castle);
                let (king_to, rook_to) = (mv.castle_king_to(), mv.castle_rook_to());
                let movers = Bitboard::from_square(ksq) | Bitboard::from_square(rook);
                let king_path = span(ksq, king_to);
                let empty = (king_path | span(rook, rook_to)) - movers;
                let slot = usize::from(rook < ksq);
                let rank = Bitboard::rank(color.back_rank());
                let west = rank & Bitboard((1u64 << rook.index()) - 1);
                let east = rank - west - Bitboard::from_square(rook);
                let rook_screens = ((king_path & west).any() && east.any())
                    || ((king_path & east).any() && west.any());
                self.castle_paths.0[color.index()][slot] = CastlePath {
                    rook: Bitboard::from_square(rook),
                    empty,
                    king_path,
                    reach: Reach::of(king_path),
                    rook_screens,
                };
                if rook_screens {
                    self.castle_paths.1[color.index()] |= Bitboard::from_square(rook);
                }
            }
        }
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

    /// The Zobrist key computed from scratch (the incremental key must always equal it).
    pub fn compute_key(&self) -> u64 {
        let keys = &zobrist::KEYS;
        let mut key = 0;
        for sq in self.occupied() {
            if let Some(p) = self.squares[sq.index()] {
                key ^= keys.piece[p.index()][sq.index()];
            }
        }
        for sq in self.board.castling {
            key ^= keys.castle[sq.index()];
        }
        if let Some(ep) = self.board.ep {
            key ^= keys.ep_file[ep.file() as usize];
        }
        if self.board.side == Color::Black {
            key ^= keys.side;
        }
        key
    }

    /// A second key, independent of [`Position::key`]: not a Zobrist key but a multiplicative
    /// hash of the board's bitboards (pieces by kind, White's pieces, castling rights), the
    /// en-passant square and the side to move, which together determine the position. Hashed
    /// perft verifies table entries with both keys, so a collision cannot corrupt a count; it is
    /// computed only when the table is probed, from ten words with five independent 128-bit
    /// products (a Zobrist key from scratch walks every piece).
    #[inline]
    pub fn key2(&self) -> u64 {
        /// The two halves of the 128-bit product, folded.
        #[inline(always)]
        fn fold(a: u64, b: u64) -> u64 {
            let p = a as u128 * b as u128;
            p as u64 ^ (p >> 64) as u64
        }
        let b = &self.board;
        let k = &zobrist::MIX;
        let extra = match b.ep {
            Some(sq) => sq.index() as u64,
            None => 64,
        } | (b.side as u64) << 7;
        let h = fold(b.by_kind[0].0 ^ k[0], b.by_kind[1].0 ^ k[1])
            ^ fold(b.by_kind[2].0 ^ k[2], b.by_kind[3].0 ^ k[3])
            ^ fold(b.by_kind[4].0 ^ k[4], b.by_kind[5].0 ^ k[5])
            ^ fold(b.by_color[0].0 ^ k[6], b.castling.0 ^ k[7])
            ^ fold(extra ^ k[8], k[9]);
        fold(h ^ k[10], k[11])
    }

    /// Puts `piece` on the empty square `sq` (no key update).
    #[inline(always)]
    fn put(&mut self, sq: Square, piece: Piece) {
        let b = Bitboard::from_square(sq);
        self.board.by_kind[piece.kind.index()] |= b;
        self.board.by_color[piece.color.index()] |= b;
        self.squares[sq.index()] = Some(piece);
        if piece.kind == PieceKind::King {
            self.board.kings[piece.color.index()] = sq;
        }
    }

    /// Removes `piece`, which stands on `sq` (no key update).
    #[inline(always)]
    fn remove(&mut self, sq: Square, piece: Piece) {
        let b = Bitboard::from_square(sq);
        self.board.by_kind[piece.kind.index()] ^= b;
        self.board.by_color[piece.color.index()] ^= b;
        self.squares[sq.index()] = None;
    }

    /// Moves `piece` from `from` to the empty square `to` (no key update).
    #[inline(always)]
    fn shift(&mut self, from: Square, to: Square, piece: Piece) {
        self.board.shift_piece(piece.kind, piece.color, from, to);
        self.squares[from.index()] = None;
        self.squares[to.index()] = Some(piece);
    }

    /// A text picture of the board, rank 8 on top, with the FEN below it.
    pub fn pretty(&self) -> String {
        let mut s = String::new();
        for rank in (0..8).rev() {
            s.push((b'1' + rank) as char);
            s.push(' ');
            for file in 0..8 {
                let c = self.squares[Square::from_coords(file, rank).index()]
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
