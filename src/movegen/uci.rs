//! Moves in UCI notation: a move parsed against the position's legal moves, with an error that
//! says why it is not one; a sequence of them played.

use super::legal_moves;
use crate::attacks::Sliders;
use crate::position::Position;
use crate::types::{Move, MoveKind, PieceKind, Square};

/// Why a UCI move could not be played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UciMoveError {
    /// Not of the form `e2e4`, `e7e8q`.
    Malformed(String),
    /// Well-formed, but not a legal move in the position.
    Illegal(String),
    /// A legal promotion written without the piece it promotes to.
    NoPromotionPiece(String),
    /// In Chess960, a castle written as the king's move (`e1g1`): there it is written as king
    /// takes rook (the second field).
    CastleAsKingMove(String, String),
}

impl std::fmt::Display for UciMoveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UciMoveError::Malformed(m) => write!(
                f,
                "'{}' is not a move in UCI notation (from square, to square, optional promotion \
                 piece: e2e4, e7e8q)",
                m.escape_debug()
            ),
            UciMoveError::Illegal(m) => write!(f, "'{m}' is not legal in this position"),
            UciMoveError::NoPromotionPiece(m) => write!(
                f,
                "'{m}' is a promotion: add the piece it promotes to ({m}q, {m}r, {m}b or {m}n)"
            ),
            UciMoveError::CastleAsKingMove(m, as_960) => write!(
                f,
                "'{m}' is not legal in this position: in Chess960 castling is written as king \
                 takes rook ({as_960})"
            ),
        }
    }
}

impl std::error::Error for UciMoveError {}

/// The legal move named by `uci`. Castling is accepted as the king's move (`e1g1`) and, the UCI
/// form for Chess960, as king takes rook (`e1h1`); in Chess960 only the latter, since there the
/// king's destination can also be an ordinary king move.
pub fn parse_uci_move<S: Sliders>(pos: &Position, uci: &str) -> Result<Move, UciMoveError> {
    let malformed = || UciMoveError::Malformed(uci.chars().take(16).collect());
    if !uci.is_ascii() || !(4..=5).contains(&uci.len()) {
        return Err(malformed());
    }
    let from = Square::parse(&uci[0..2]).ok_or_else(malformed)?;
    let to = Square::parse(&uci[2..4]).ok_or_else(malformed)?;
    let promotion = match uci.as_bytes().get(4) {
        None => None,
        Some(&c) => match PieceKind::from_letter(c as char) {
            Some(
                k @ (PieceKind::Knight | PieceKind::Bishop | PieceKind::Rook | PieceKind::Queen),
            ) => Some(k),
            _ => return Err(malformed()),
        },
    };
    // Every move by its own target (king takes rook for castling); in standard chess castling
    // also by the king's destination.
    let by_king_to = |mv: &Move| mv.kind() == MoveKind::Castle && !pos.is_chess960();
    legal_moves::<S>(pos)
        .iter()
        .copied()
        .find(|mv| {
            mv.from() == from
                && mv.promotion_piece() == promotion
                && (mv.to() == to || by_king_to(mv) && mv.castle_king_to() == to)
        })
        .ok_or_else(|| {
            let promotes = promotion.is_none()
                && legal_moves::<S>(pos)
                    .iter()
                    .any(|mv| mv.from() == from && mv.to() == to && mv.promotion_piece().is_some());
            // A Chess960 castle named by the king's destination, as standard chess allows.
            let castle = legal_moves::<S>(pos).iter().copied().find(|mv| {
                mv.kind() == MoveKind::Castle && mv.from() == from && mv.castle_king_to() == to
            });
            if promotes {
                UciMoveError::NoPromotionPiece(uci.to_string())
            } else if let Some(castle) = castle.filter(|_| pos.is_chess960()) {
                UciMoveError::CastleAsKingMove(uci.to_string(), castle.to_uci(true))
            } else {
                UciMoveError::Illegal(uci.to_string())
            }
        })
}

/// Plays UCI `moves` on `pos`; the error names the first bad move and its 1-based index.
pub fn play_uci_moves<'a>(
    pos: &mut Position,
    moves: impl IntoIterator<Item = &'a str>,
) -> Result<(), (usize, String)> {
    for (i, m) in moves.into_iter().enumerate() {
        let mv =
            parse_uci_move::<crate::attacks::Magic>(pos, m).map_err(|e| (i + 1, e.to_string()))?;
        pos.make(mv);
    }
    Ok(())
}
