//! Board vocabulary: squares, colours, piece kinds, pieces and the compact move encoding.

use std::fmt;

/// A square, 0 = a1, 1 = b1, ..., 63 = h8 (little-endian rank-file mapping).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct Square(u8);

impl Square {
    /// Every square, a1 first.
    pub const ALL: [Square; 64] = {
        let mut all = [Square(0); 64];
        let mut i = 0;
        while i < 64 {
            all[i] = Square(i as u8);
            i += 1;
        }
        all
    };

    /// The square with this index; `index` must be below 64.
    #[inline(always)]
    pub const fn new(index: u8) -> Square {
        debug_assert!(index < 64);
        Square(index & 63)
    }

    /// The square on `file` (0 = a) and `rank` (0 = rank 1); both must be below 8.
    #[inline(always)]
    pub const fn from_coords(file: u8, rank: u8) -> Square {
        Square::new(rank * 8 + file)
    }

    /// The index, 0..64.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The file, 0 (a) to 7 (h).
    #[inline(always)]
    pub const fn file(self) -> u8 {
        self.0 & 7
    }

    /// The rank, 0 (rank 1) to 7 (rank 8).
    #[inline(always)]
    pub const fn rank(self) -> u8 {
        self.0 >> 3
    }

    /// The square `delta` steps away in index space; the caller guarantees it stays on the board.
    #[inline(always)]
    pub const fn offset(self, delta: i8) -> Square {
        Square::new((self.0 as i8 + delta) as u8)
    }

    /// The same square seen from the other side (a1 <-> a8).
    #[inline(always)]
    pub const fn flip_rank(self) -> Square {
        Square(self.0 ^ 56)
    }

    /// The square relative to `color`: unchanged for White, rank-flipped for Black.
    #[inline(always)]
    pub const fn relative(self, color: Color) -> Square {
        match color {
            Color::White => self,
            Color::Black => self.flip_rank(),
        }
    }

    /// Parses a square name such as `e4`.
    pub fn parse(s: &str) -> Option<Square> {
        match s.as_bytes() {
            [f @ b'a'..=b'h', r @ b'1'..=b'8'] => Some(Square::from_coords(f - b'a', r - b'1')),
            _ => None,
        }
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            (b'a' + self.file()) as char,
            (b'1' + self.rank()) as char
        )
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A side.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[repr(u8)]
pub enum Color {
    /// White, who moves first.
    White = 0,
    /// Black.
    Black = 1,
}

impl Color {
    /// Both colours, White first.
    pub const BOTH: [Color; 2] = [Color::White, Color::Black];

    /// 0 for White, 1 for Black.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The other side.
    #[inline(always)]
    pub const fn flip(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// The rank (0..8) this side's pieces start on.
    #[inline(always)]
    pub const fn back_rank(self) -> u8 {
        match self {
            Color::White => 0,
            Color::Black => 7,
        }
    }

    /// The index step of one pawn push: +8 for White, -8 for Black.
    #[inline(always)]
    pub const fn forward(self) -> i8 {
        match self {
            Color::White => 8,
            Color::Black => -8,
        }
    }

    /// `"white"` or `"black"`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

impl std::ops::Not for Color {
    type Output = Color;
    #[inline(always)]
    fn not(self) -> Color {
        self.flip()
    }
}

/// A kind of piece, independent of colour.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
#[repr(u8)]
pub enum PieceKind {
    /// A pawn.
    Pawn = 0,
    /// A knight.
    Knight = 1,
    /// A bishop.
    Bishop = 2,
    /// A rook.
    Rook = 3,
    /// A queen.
    Queen = 4,
    /// A king.
    King = 5,
}

impl PieceKind {
    /// Every kind, pawn first.
    pub const ALL: [PieceKind; 6] = [
        PieceKind::Pawn,
        PieceKind::Knight,
        PieceKind::Bishop,
        PieceKind::Rook,
        PieceKind::Queen,
        PieceKind::King,
    ];

    /// 0 (pawn) to 5 (king).
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The lower-case letter used by FEN (black) and UCI promotions.
    pub const fn letter(self) -> char {
        match self {
            PieceKind::Pawn => 'p',
            PieceKind::Knight => 'n',
            PieceKind::Bishop => 'b',
            PieceKind::Rook => 'r',
            PieceKind::Queen => 'q',
            PieceKind::King => 'k',
        }
    }

    /// The kind named by a lower-case letter.
    pub const fn from_letter(c: char) -> Option<PieceKind> {
        Some(match c {
            'p' => PieceKind::Pawn,
            'n' => PieceKind::Knight,
            'b' => PieceKind::Bishop,
            'r' => PieceKind::Rook,
            'q' => PieceKind::Queen,
            'k' => PieceKind::King,
            _ => return None,
        })
    }
}

/// A coloured piece.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    /// Whose piece.
    pub color: Color,
    /// What piece.
    pub kind: PieceKind,
}

impl Piece {
    /// A piece of `color` and `kind`.
    pub const fn new(color: Color, kind: PieceKind) -> Piece {
        Piece { color, kind }
    }

    /// 0..12: White pawn to king, then Black pawn to king.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.color.index() * 6 + self.kind.index()
    }

    /// The FEN letter: upper case for White.
    pub const fn fen_char(self) -> char {
        let c = self.kind.letter();
        match self.color {
            Color::White => c.to_ascii_uppercase(),
            Color::Black => c,
        }
    }

    /// The piece named by a FEN letter.
    pub const fn from_fen_char(c: char) -> Option<Piece> {
        let color = if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        match PieceKind::from_letter(c.to_ascii_lowercase()) {
            Some(kind) => Some(Piece { color, kind }),
            None => None,
        }
    }
}

/// What a move does besides moving a piece from one square to another.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[repr(u8)]
pub enum MoveKind {
    /// Moves to an empty square (a single pawn push included).
    Quiet = 0,
    /// A pawn's first move of two squares.
    DoublePush = 1,
    /// Castling; the move's `to` is the castling rook's square (so Chess960 needs no special case).
    Castle = 2,
    /// Takes the piece on `to`.
    Capture = 3,
    /// A pawn takes the pawn that just double-pushed past `to`.
    EnPassant = 4,
    /// A pawn moves to the last rank, without capturing, and becomes `promotion()`.
    Promotion = 5,
    /// A pawn captures onto the last rank and becomes `promotion()`.
    PromotionCapture = 6,
}

/// A move in 16 bits: `to` in bits 0-5, `from` in bits 6-11, a 4-bit code in bits 12-15.
///
/// Codes 0-4 are the [`MoveKind`]s without promotion; 8-11 promote to knight, bishop, rook or
/// queen without capture, 12-15 with capture.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct Move(u16);

impl Move {
    /// A move of kind `kind` (not a promotion).
    #[inline(always)]
    pub const fn new(from: Square, to: Square, kind: MoveKind) -> Move {
        debug_assert!(!matches!(
            kind,
            MoveKind::Promotion | MoveKind::PromotionCapture
        ));
        Move((to.0 as u16) | ((from.0 as u16) << 6) | ((kind as u16) << 12))
    }

    /// A promotion to `piece` (knight, bishop, rook or queen), capturing when `capture`.
    #[inline(always)]
    pub const fn promotion(from: Square, to: Square, piece: PieceKind, capture: bool) -> Move {
        debug_assert!(matches!(
            piece,
            PieceKind::Knight | PieceKind::Bishop | PieceKind::Rook | PieceKind::Queen
        ));
        let code = 8 + (piece as u16 - 1) + if capture { 4 } else { 0 };
        Move((to.0 as u16) | ((from.0 as u16) << 6) | (code << 12))
    }

    /// The square the moving piece leaves.
    #[inline(always)]
    pub const fn from(self) -> Square {
        Square(((self.0 >> 6) & 63) as u8)
    }

    /// The destination; for castling, the castling rook's square.
    #[inline(always)]
    pub const fn to(self) -> Square {
        Square((self.0 & 63) as u8)
    }

    /// The move's kind.
    #[inline(always)]
    pub const fn kind(self) -> MoveKind {
        match self.0 >> 12 {
            0 => MoveKind::Quiet,
            1 => MoveKind::DoublePush,
            2 => MoveKind::Castle,
            3 => MoveKind::Capture,
            4 => MoveKind::EnPassant,
            8..=11 => MoveKind::Promotion,
            _ => MoveKind::PromotionCapture,
        }
    }

    /// The piece a pawn promotes to, if this is a promotion.
    #[inline(always)]
    pub const fn promotion_piece(self) -> Option<PieceKind> {
        let code = self.0 >> 12;
        if code < 8 {
            return None;
        }
        Some(match code & 3 {
            0 => PieceKind::Knight,
            1 => PieceKind::Bishop,
            2 => PieceKind::Rook,
            _ => PieceKind::Queen,
        })
    }

    /// Whether the move removes an enemy piece (en passant included).
    #[inline(always)]
    pub const fn is_capture(self) -> bool {
        matches!(
            self.kind(),
            MoveKind::Capture | MoveKind::EnPassant | MoveKind::PromotionCapture
        )
    }

    /// The raw 16-bit encoding.
    pub const fn bits(self) -> u16 {
        self.0
    }

    /// The move as UCI text. Castling prints as the king's destination (`e1g1`) unless `chess960`,
    /// where it prints as king-takes-rook (`e1h1`), the UCI convention for Chess960.
    pub fn to_uci(self, chess960: bool) -> String {
        let mut s = String::with_capacity(5);
        let to = if self.kind() == MoveKind::Castle && !chess960 {
            self.castle_king_to()
        } else {
            self.to()
        };
        s.push_str(&self.from().to_string());
        s.push_str(&to.to_string());
        if let Some(p) = self.promotion_piece() {
            s.push(p.letter());
        }
        s
    }

    /// For a castling move: the square the king lands on (g- or c-file of its rank).
    #[inline(always)]
    pub const fn castle_king_to(self) -> Square {
        let king_side = self.to().0 > self.from().0;
        Square::from_coords(if king_side { 6 } else { 2 }, self.from().rank())
    }

    /// For a castling move: the square the rook lands on (f- or d-file of its rank).
    #[inline(always)]
    pub const fn castle_rook_to(self) -> Square {
        let king_side = self.to().0 > self.from().0;
        Square::from_coords(if king_side { 5 } else { 3 }, self.from().rank())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({:?})", self.to_uci(true), self.kind())
    }
}
