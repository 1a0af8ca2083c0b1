//! FEN parsing with strict validation, and FEN printing.
//!
//! Accepted: the 6-field FEN and the 4-field EPD form (the counters then default to 0 and 1).
//! Castling rights may be written as `KQkq` (standard, or X-FEN under Chess960), or as rook files
//! (Shredder-FEN, `HAha`), which selects Chess960 rules by itself. What is rejected is listed on
//! [`FenError`], one variant per problem, each message naming the field.

use super::Position;
use crate::attacks::Classical;
use crate::bitboard::Bitboard;
use crate::types::{Color, Piece, PieceKind, Square};
use std::fmt;

/// How castling rights are written in FEN; printing keeps the notation that was parsed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum CastlingNotation {
    /// `KQkq`, or X-FEN (`KQkq` for the outermost rook, a file letter for an inner one).
    Standard,
    /// Shredder-FEN: the castling rooks' files, upper case for White (`HAha`).
    Shredder,
}

/// Why a FEN was rejected. Each message names the field and the problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// Not 4 or 6 space-separated fields.
    FieldCount {
        /// The fields found.
        found: usize,
    },
    /// A character in the board field that is neither a piece letter, a digit 1-8 nor `/`.
    BadPiece {
        /// The rank (1-8) whose text holds it.
        rank: u8,
        /// The character.
        found: char,
    },
    /// A rank that does not describe exactly 8 squares.
    RankLength {
        /// The rank (1-8).
        rank: u8,
        /// The squares it describes.
        squares: u32,
    },
    /// A board with other than 8 ranks.
    RankCount {
        /// The ranks found.
        found: usize,
    },
    /// A side to move other than `w` or `b`.
    BadSide {
        /// The field as given.
        found: String,
    },
    /// A castling field that is not `-` or a list of castling letters (`KQkq`, `A`-`H`, `a`-`h`).
    BadCastling {
        /// The field as given.
        found: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A castling right whose king or rook is not where the right requires.
    CastlingPieces {
        /// The right's letter.
        right: char,
        /// What is missing or misplaced.
        reason: String,
    },
    /// An en-passant field that is neither `-` nor a square name.
    BadEpSquare {
        /// The field as given.
        found: String,
    },
    /// An en-passant square on the wrong rank for the side that just moved.
    EpWrongRank {
        /// The en-passant square.
        square: Square,
        /// The side to move.
        side_to_move: Color,
    },
    /// An en-passant square with no enemy pawn in front of it that could just have double-pushed.
    EpNoPawn {
        /// The en-passant square.
        square: Square,
        /// Where the pawn that double-pushed would stand.
        pawn_square: Square,
    },
    /// An en-passant square whose square, or the square behind it, is occupied.
    EpSquareOccupied {
        /// The en-passant square.
        square: Square,
        /// The occupied square (it or the one behind it).
        occupied: Square,
    },
    /// A halfmove clock that is not a non-negative integer.
    BadHalfmove {
        /// The field as given.
        found: String,
    },
    /// A fullmove number that is not a non-negative integer.
    BadFullmove {
        /// The field as given.
        found: String,
    },
    /// A side with no king or more than one.
    KingCount {
        /// The side.
        color: Color,
        /// Its kings.
        count: u32,
    },
    /// A pawn on the first or eighth rank.
    PawnOnBackRank {
        /// The pawn's square.
        square: Square,
    },
    /// The side that is not to move is in check (it would be possible to capture its king).
    OppositeCheck {
        /// The side in check.
        color: Color,
    },
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use FenError::*;
        match self {
            FieldCount { found } => write!(
                f,
                "FEN must have 6 space-separated fields (board, side to move, castling, \
                 en passant, halfmove clock, fullmove number) or the first 4; found {found}"
            ),
            BadPiece { rank, found } => write!(
                f,
                "board: invalid character '{}' in rank {} (expected one of PNBRQKpnbrqk or a digit 1-8)",
                found.escape_debug(),
                rank
            ),
            RankLength { rank, squares } => {
                write!(
                    f,
                    "board: rank {rank} describes {squares} squares, expected 8"
                )
            }
            RankCount { found } => {
                write!(f, "board: found {found} ranks separated by '/', expected 8")
            }
            BadSide { found } => {
                write!(
                    f,
                    "side to move: expected 'w' or 'b', found '{}'",
                    found.escape_debug()
                )
            }
            BadCastling { found, reason } => {
                write!(
                    f,
                    "castling: invalid field '{}': {reason}",
                    found.escape_debug()
                )
            }
            CastlingPieces { right, reason } => write!(f, "castling: right '{right}' {reason}"),
            BadEpSquare { found } => write!(
                f,
                "en passant: expected '-' or a square such as e3, found '{}'",
                found.escape_debug()
            ),
            EpWrongRank {
                square,
                side_to_move,
            } => write!(
                f,
                "en passant: {square} is not on rank {} ({} to move, so {} just moved)",
                if *side_to_move == Color::White { 6 } else { 3 },
                side_to_move.name(),
                side_to_move.flip().name()
            ),
            EpNoPawn {
                square,
                pawn_square,
            } => write!(
                f,
                "en passant: {square} has no pawn on {pawn_square} that could just have moved two squares"
            ),
            EpSquareOccupied { square, occupied } => write!(
                f,
                "en passant: {square} is not valid because {occupied} is occupied \
                 (a pawn that just moved two squares passed over {square} from an empty square)"
            ),
            BadHalfmove { found } => write!(
                f,
                "halfmove clock: expected a non-negative integer, found '{}'",
                found.escape_debug()
            ),
            BadFullmove { found } => write!(
                f,
                "fullmove number: expected a non-negative integer, found '{}'",
                found.escape_debug()
            ),
            KingCount { color, count } => {
                write!(
                    f,
                    "board: {} has {count} kings, expected exactly 1",
                    color.name()
                )
            }
            PawnOnBackRank { square } => {
                write!(
                    f,
                    "board: pawn on {square} (pawns cannot stand on rank 1 or 8)"
                )
            }
            OppositeCheck { color } => write!(
                f,
                "position: {} is in check but it is not {} to move",
                color.name(),
                color.name()
            ),
        }
    }
}

impl std::error::Error for FenError {}

impl std::str::FromStr for Position {
    type Err = FenError;
    fn from_str(s: &str) -> Result<Position, FenError> {
        Position::from_fen(s)
    }
}

impl Position {
    /// Parses a FEN (6 fields) or EPD position (4 fields) under standard castling rules, unless
    /// its castling field uses rook files (Shredder-FEN), which selects Chess960.
    ///
    /// ```
    /// use perft::Position;
    ///
    /// let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    /// let pos = Position::from_fen(kiwipete).unwrap();
    /// assert_eq!(pos.to_fen(), kiwipete);
    /// // Strict: a pawn on the back rank is refused, with what is wrong.
    /// assert!(Position::from_fen("P3k3/8/8/8/8/8/8/4K3 w - - 0 1").is_err());
    /// ```
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        Position::from_fen_with(fen, false)
    }

    /// Parses a FEN; `chess960` selects Chess960 castling rules (and `KQkq` is then read as
    /// X-FEN: the outermost rook on that side of the king).
    pub fn from_fen_with(fen: &str, chess960: bool) -> Result<Position, FenError> {
        let fields: Vec<&str> = fen.split_ascii_whitespace().collect();
        if fields.len() != 6 && fields.len() != 4 {
            return Err(FenError::FieldCount {
                found: fields.len(),
            });
        }
        let mut pos = Position::empty();
        parse_board(&mut pos, fields[0])?;
        pos.board.side = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => {
                return Err(FenError::BadSide {
                    found: truncate(other),
                });
            }
        };
        for color in Color::BOTH {
            let count = pos.pieces(color, PieceKind::King).count();
            if count != 1 {
                return Err(FenError::KingCount { color, count });
            }
        }
        let pawns = pos.kind(PieceKind::Pawn) & (Bitboard::rank(0) | Bitboard::rank(7));
        if let Some(square) = pawns.into_iter().next() {
            return Err(FenError::PawnOnBackRank { square });
        }
        pos.chess960 = chess960;
        parse_castling(&mut pos, fields[2])?;
        parse_ep(&mut pos, fields[3])?;
        if fields.len() == 6 {
            pos.halfmove = parse_counter(fields[4]).ok_or_else(|| FenError::BadHalfmove {
                found: truncate(fields[4]),
            })?;
            pos.fullmove = parse_counter(fields[5]).ok_or_else(|| FenError::BadFullmove {
                found: truncate(fields[5]),
            })?;
        }
        let them = !pos.board.side;
        if pos.is_attacked_by::<Classical>(pos.king(them), pos.board.side, pos.occupied()) {
            return Err(FenError::OppositeCheck { color: them });
        }
        pos.key = pos.compute_key();
        pos.compute_castle_paths();
        Ok(pos)
    }

    /// The position as a 6-field FEN, castling rights in the notation they were parsed in.
    pub fn to_fen(&self) -> String {
        let mut s = String::with_capacity(90);
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match self.squares[Square::from_coords(file, rank).index()] {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            s.push((b'0' + empty) as char);
                            empty = 0;
                        }
                        s.push(p.fen_char());
                    }
                }
            }
            if empty > 0 {
                s.push((b'0' + empty) as char);
            }
            if rank > 0 {
                s.push('/');
            }
        }
        s.push(' ');
        s.push(if self.board.side == Color::White {
            'w'
        } else {
            'b'
        });
        s.push(' ');
        s.push_str(&self.castling_field());
        s.push(' ');
        match self.board.ep {
            Some(ep) => s.push_str(&ep.to_string()),
            None => s.push('-'),
        }
        s.push_str(&format!(" {} {}", self.halfmove, self.fullmove));
        s
    }

    /// The castling field: for each colour, White first, the king-side right then the queen-side.
    fn castling_field(&self) -> String {
        let mut s = String::new();
        for color in Color::BOTH {
            let ksq = self.king(color);
            let rooks = self.board.castling & Bitboard::rank(color.back_rank());
            let king_side = rooks & above(ksq);
            let queen_side = rooks & below(ksq);
            for (side_rooks, letter) in [(king_side, 'K'), (queen_side, 'Q')] {
                let Some(rook) = side_rooks.into_iter().next() else {
                    continue;
                };
                let all = self.pieces(color, PieceKind::Rook) & Bitboard::rank(color.back_rank());
                let outermost = if letter == 'K' {
                    (all & above(ksq)).msb()
                } else {
                    (all & below(ksq)).lsb()
                };
                let c = if self.notation == CastlingNotation::Standard && rook == outermost {
                    letter
                } else {
                    (b'A' + rook.file()) as char
                };
                s.push(if color == Color::White {
                    c
                } else {
                    c.to_ascii_lowercase()
                });
            }
        }
        if s.is_empty() {
            s.push('-');
        }
        s
    }
}

/// Squares with a higher index than `sq` (on its rank: towards the h-file).
fn above(sq: Square) -> Bitboard {
    Bitboard(!1u64 << sq.index())
}

/// Squares with a lower index than `sq` (on its rank: towards the a-file).
fn below(sq: Square) -> Bitboard {
    Bitboard((1u64 << sq.index()) - 1)
}

/// At most 32 characters of user input, for error messages.
fn truncate(s: &str) -> String {
    if s.chars().count() > 32 {
        s.chars().take(32).chain("...".chars()).collect()
    } else {
        s.to_string()
    }
}

fn parse_counter(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn parse_board(pos: &mut Position, board: &str) -> Result<(), FenError> {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 8 {
        return Err(FenError::RankCount { found: ranks.len() });
    }
    for (i, text) in ranks.iter().enumerate() {
        let rank = 7 - i as u8;
        let mut file: u32 = 0;
        for c in text.chars() {
            if let Some(d) = c.to_digit(10).filter(|d| (1..=8).contains(d)) {
                file += d;
            } else if let Some(piece) = Piece::from_fen_char(c) {
                if file < 8 {
                    pos.put(Square::from_coords(file as u8, rank), piece);
                }
                file += 1;
            } else {
                return Err(FenError::BadPiece {
                    rank: rank + 1,
                    found: c,
                });
            }
        }
        if file != 8 {
            return Err(FenError::RankLength {
                rank: rank + 1,
                squares: file,
            });
        }
    }
    Ok(())
}

fn parse_castling(pos: &mut Position, field: &str) -> Result<(), FenError> {
    if field == "-" {
        return Ok(());
    }
    let bad = |reason| FenError::BadCastling {
        found: truncate(field),
        reason,
    };
    if field.len() > 4 {
        return Err(bad("at most 4 castling rights"));
    }
    let mut shredder = false;
    let mut chess960 = pos.chess960;
    for c in field.chars() {
        if !matches!(c, 'K' | 'Q' | 'k' | 'q' | 'A'..='H' | 'a'..='h') {
            return Err(bad("expected '-' or letters from KQkq, A-H, a-h"));
        }
        if !matches!(c, 'K' | 'Q' | 'k' | 'q') {
            // A rook file: Shredder-FEN, or X-FEN for an inner rook. Either way, Chess960.
            shredder = true;
            chess960 = true;
        }
    }
    for c in field.chars() {
        let color = if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        let rank = color.back_rank();
        let ksq = pos.king(color);
        let who = color.name();
        let err = |reason: String| FenError::CastlingPieces { right: c, reason };
        if ksq.rank() != rank {
            return Err(err(format!("needs the {who} king on rank {}", rank + 1)));
        }
        let rooks = pos.pieces(color, PieceKind::Rook) & Bitboard::rank(rank);
        let upper = c.to_ascii_uppercase();
        let rook = match upper {
            'K' | 'Q' => {
                if !chess960 && ksq.file() != 4 {
                    return Err(err(format!(
                        "needs the {who} king on {}",
                        Square::from_coords(4, rank)
                    )));
                }
                let side = rooks & if upper == 'K' { above(ksq) } else { below(ksq) };
                let corner = Square::from_coords(if upper == 'K' { 7 } else { 0 }, rank);
                match (chess960, upper) {
                    (false, _) if !side.contains(corner) => {
                        return Err(err(format!("needs a {who} rook on {corner}")));
                    }
                    (false, _) => corner,
                    (true, _) if side.is_empty() => {
                        return Err(err(format!(
                            "needs a {who} rook on the {} side of the king on rank {}",
                            if upper == 'K' { "h" } else { "a" },
                            rank + 1
                        )));
                    }
                    (true, 'K') => side.msb(),
                    (true, _) => side.lsb(),
                }
            }
            _ => {
                let sq = Square::from_coords(upper as u8 - b'A', rank);
                if !rooks.contains(sq) {
                    return Err(err(format!("needs a {who} rook on {sq}")));
                }
                if sq == ksq || !(1..=6).contains(&ksq.file()) {
                    return Err(err(format!(
                        "needs the {who} king between the a- and h-file"
                    )));
                }
                sq
            }
        };
        if pos.board.castling.contains(rook) {
            return Err(bad("a castling right is given twice"));
        }
        let same_side = pos.board.castling
            & Bitboard::rank(rank)
            & if rook > ksq { above(ksq) } else { below(ksq) };
        if same_side.any() {
            return Err(bad("two castling rights on the same side of one king"));
        }
        pos.board.castling |= Bitboard::from_square(rook);
    }
    pos.chess960 = chess960;
    pos.notation = if shredder && field.chars().all(|c| !matches!(c, 'K' | 'Q' | 'k' | 'q')) {
        CastlingNotation::Shredder
    } else {
        CastlingNotation::Standard
    };
    Ok(())
}

fn parse_ep(pos: &mut Position, field: &str) -> Result<(), FenError> {
    if field == "-" {
        return Ok(());
    }
    let square = Square::parse(field).ok_or_else(|| FenError::BadEpSquare {
        found: truncate(field),
    })?;
    let us = pos.board.side;
    let expected_rank = if us == Color::White { 5 } else { 2 };
    if square.rank() != expected_rank {
        return Err(FenError::EpWrongRank {
            square,
            side_to_move: us,
        });
    }
    // The pawn that double-pushed stands one step further from its own side than `square`.
    let pawn_square = square.offset(-us.forward());
    if pos.piece_at(pawn_square) != Some(Piece::new(!us, PieceKind::Pawn)) {
        return Err(FenError::EpNoPawn {
            square,
            pawn_square,
        });
    }
    let origin = square.offset(us.forward());
    for sq in [square, origin] {
        if pos.piece_at(sq).is_some() {
            return Err(FenError::EpSquareOccupied {
                square,
                occupied: sq,
            });
        }
    }
    pos.board.ep = Some(square);
    Ok(())
}
