//! What a validation found: the descent from the root to the first position whose legal moves
//! differ, and each missed or invented move classified by the rule it belongs to.

use super::Failure;
use crate::nodes::Nodes;
use crate::position::Position;
use crate::types::{Color, PieceKind, Square};
use std::fmt;

/// The rule a move belongs to, as far as the board tells: what an author looks at first when
/// their generator misses or invents it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveClass {
    /// A castling move.
    Castling,
    /// An en-passant capture.
    EnPassant,
    /// A promotion (with or without capture) to this piece.
    Promotion(PieceKind),
    /// A king move other than castling (captures included).
    King,
    /// Any other capture.
    Capture,
    /// Any other move to an empty square.
    Quiet,
    /// Not a move of this position at all: no piece of the side to move on its square, or a pawn
    /// reaching the last rank without a promotion piece.
    NoSuchPiece,
}

impl MoveClass {
    /// Every class, in the order of the summary table.
    pub const ALL: [MoveClass; 10] = [
        MoveClass::Castling,
        MoveClass::EnPassant,
        MoveClass::Promotion(PieceKind::Queen),
        MoveClass::Promotion(PieceKind::Rook),
        MoveClass::Promotion(PieceKind::Bishop),
        MoveClass::Promotion(PieceKind::Knight),
        MoveClass::King,
        MoveClass::Capture,
        MoveClass::Quiet,
        MoveClass::NoSuchPiece,
    ];

    /// The class's row in [`MoveClass::ALL`].
    pub fn index(self) -> usize {
        match self {
            MoveClass::Castling => 0,
            MoveClass::EnPassant => 1,
            MoveClass::Promotion(PieceKind::Queen) => 2,
            MoveClass::Promotion(PieceKind::Rook) => 3,
            MoveClass::Promotion(PieceKind::Bishop) => 4,
            MoveClass::Promotion(_) => 5,
            MoveClass::King => 6,
            MoveClass::Capture => 7,
            MoveClass::Quiet => 8,
            MoveClass::NoSuchPiece => 9,
        }
    }

    /// A name for output.
    pub fn name(self) -> &'static str {
        match self {
            MoveClass::Castling => "castling",
            MoveClass::EnPassant => "en passant",
            MoveClass::Promotion(PieceKind::Queen) => "promotion to queen",
            MoveClass::Promotion(PieceKind::Rook) => "promotion to rook",
            MoveClass::Promotion(PieceKind::Bishop) => "promotion to bishop",
            MoveClass::Promotion(_) => "promotion to knight",
            MoveClass::King => "king move",
            MoveClass::Capture => "capture",
            MoveClass::Quiet => "quiet",
            MoveClass::NoSuchPiece => "no such piece",
        }
    }

    /// The class of `uci` in `pos`, from the board alone: the move need not be legal (that is
    /// the point: an invented move is classified too).
    pub fn of(pos: &Position, uci: &str) -> MoveClass {
        let (Some(from), Some(to)) = (
            uci.get(0..2).and_then(Square::parse),
            uci.get(2..4).and_then(Square::parse),
        ) else {
            return MoveClass::NoSuchPiece;
        };
        let us = pos.side_to_move();
        let Some(piece) = pos.piece_at(from).filter(|p| p.color == us) else {
            return MoveClass::NoSuchPiece;
        };
        let target = pos.piece_at(to);
        let capture = target.is_some_and(|p| p.color != us);
        match piece.kind {
            PieceKind::King => {
                let onto_own_rook = target
                    .is_some_and(|p| p.color == us && p.kind == PieceKind::Rook)
                    && from.rank() == to.rank();
                let two_files = from.rank() == to.rank() && from.file().abs_diff(to.file()) == 2;
                if onto_own_rook || (two_files && !pos.is_chess960()) {
                    MoveClass::Castling
                } else {
                    MoveClass::King
                }
            }
            PieceKind::Pawn => {
                let last = if us == Color::White { 7 } else { 0 };
                let promotion = uci.get(4..5).and_then(|c| c.chars().next());
                if to.rank() == last {
                    let kind = promotion
                        .and_then(PieceKind::from_letter)
                        .filter(|k| !matches!(k, PieceKind::Pawn | PieceKind::King));
                    match kind {
                        Some(kind) => MoveClass::Promotion(kind),
                        None => MoveClass::NoSuchPiece,
                    }
                } else if from.file() != to.file()
                    && target.is_none()
                    && pos.board().ep_square() == Some(to)
                {
                    MoveClass::EnPassant
                } else if capture {
                    MoveClass::Capture
                } else {
                    MoveClass::Quiet
                }
            }
            _ if capture => MoveClass::Capture,
            _ => MoveClass::Quiet,
        }
    }
}

/// A move and its class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassifiedMove {
    /// The move in UCI notation (castling as the position's rules write it).
    pub uci: String,
    /// The rule it belongs to.
    pub class: MoveClass,
}

/// One level of the descent.
#[derive(Clone, Debug)]
pub struct Step {
    /// Moves from the root to this position.
    pub moves: Vec<String>,
    /// The depth counted below this position.
    pub depth: u32,
    /// Our count of this position at `depth`.
    pub ours: Nodes,
    /// The generator's total for it.
    pub theirs: Nodes,
    /// The move whose count differs, that the search follows: (move, generator, ours).
    pub follow: Option<(String, Nodes, Nodes)>,
}

/// How the search ended.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// Every count agrees at the requested depth.
    Agree {
        /// The count both give.
        nodes: Nodes,
    },
    /// Found the position whose legal moves the generator gets wrong.
    MoveListDiffers {
        /// Moves from the root to the position.
        moves: Vec<String>,
        /// The position's FEN.
        fen: String,
        /// Whether the side to move is in check there.
        in_check: bool,
        /// Legal moves the generator did not list.
        missed: Vec<ClassifiedMove>,
        /// Moves the generator listed that are not legal.
        invented: Vec<ClassifiedMove>,
        /// The first lines of the generator's answer there that were neither a move count nor the
        /// total (a move list in another notation shows up here).
        unread: Vec<String>,
    },
    /// Most of the generator's moves move pieces that are not there: it answers for another
    /// position (it ignored `position`, or the moves, or misread the FEN).
    OtherPosition {
        /// Moves from the root to the position.
        moves: Vec<String>,
        /// The position's FEN.
        fen: String,
        /// A few of the impossible moves.
        examples: Vec<String>,
    },
    /// Every move matches but the generator's total is not the sum of its own lines.
    TotalDiffers {
        /// Moves from the root to the position.
        moves: Vec<String>,
        /// The position's FEN.
        fen: String,
        /// Our count of the position (every line of the generator agreed with ours).
        ours: Nodes,
        /// The total the generator printed.
        theirs: Nodes,
    },
    /// The generator's counts changed between calls, or its depth-1 counts are not 1.
    Inconsistent {
        /// Moves from the root to the position.
        moves: Vec<String>,
        /// The position's FEN.
        fen: String,
        /// What was inconsistent, for the report.
        detail: String,
    },
    /// The generator could not answer this query (an engine that crashed, hung or printed
    /// garbage; it is restarted for the next).
    Failed {
        /// Moves from the root to the position.
        moves: Vec<String>,
        /// The position's FEN.
        fen: String,
        /// The depth asked for.
        depth: u32,
        /// How it failed.
        error: Failure,
    },
}

impl Outcome {
    /// The moves from the root to the position the search ended at, and its FEN (none for
    /// [`Outcome::Agree`]).
    pub fn position(&self) -> Option<(&[String], &str)> {
        match self {
            Outcome::Agree { .. } => None,
            Outcome::MoveListDiffers { moves, fen, .. }
            | Outcome::OtherPosition { moves, fen, .. }
            | Outcome::TotalDiffers { moves, fen, .. }
            | Outcome::Inconsistent { moves, fen, .. }
            | Outcome::Failed { moves, fen, .. } => Some((moves, fen)),
        }
    }

    /// A short name for the kind of failure (summaries, JSON); `agree` for no failure.
    pub fn category(&self) -> &'static str {
        match self {
            Outcome::Agree { .. } => "agree",
            Outcome::MoveListDiffers { .. } => "move list",
            Outcome::OtherPosition { .. } => "another position",
            Outcome::TotalDiffers { .. } => "total",
            Outcome::Inconsistent { .. } => "inconsistent",
            Outcome::Failed { error, .. } => error.kind,
        }
    }
}

/// The full result: the descent and its outcome.
#[derive(Clone, Debug)]
pub struct Report {
    /// The positions the descent went through, from the root.
    pub steps: Vec<Step>,
    /// How it ended.
    pub outcome: Outcome,
}

impl Report {
    /// Whether every count agreed.
    pub fn agrees(&self) -> bool {
        matches!(self.outcome, Outcome::Agree { .. })
    }
}

/// The moves of a path, or `(the root)`.
fn path(moves: &[String]) -> String {
    if moves.is_empty() {
        "(the root)".to_string()
    } else {
        moves.join(" ")
    }
}

/// Moves with their classes: `e5d6 (en passant), e1g1 (castling)`.
fn listed(moves: &[ClassifiedMove]) -> String {
    let each: Vec<String> = moves
        .iter()
        .map(|m| format!("{} ({})", m.uci, m.class.name()))
        .collect();
    each.join(", ")
}

impl fmt::Display for Report {
    /// The descent, one line per level, then what was found where: what a failing test prints.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for step in &self.steps {
            write!(
                f,
                "after {}: depth {}, ours {}, theirs {}",
                path(&step.moves),
                step.depth,
                step.ours,
                step.theirs
            )?;
            if let Some((mv, theirs, ours)) = &step.follow {
                write!(f, "; follows {mv} (ours {ours}, theirs {theirs})")?;
            }
            writeln!(f)?;
        }
        match &self.outcome {
            Outcome::Agree { nodes } => write!(f, "every count agrees: {nodes}"),
            Outcome::MoveListDiffers {
                moves,
                fen,
                in_check,
                missed,
                invented,
                ..
            } => {
                let check = if *in_check { " (in check)" } else { "" };
                write!(
                    f,
                    "the legal moves differ after {}{check}\n  fen {fen}",
                    path(moves)
                )?;
                if !missed.is_empty() {
                    write!(f, "\n  missed   {}", listed(missed))?;
                }
                if !invented.is_empty() {
                    write!(f, "\n  invented {}", listed(invented))?;
                }
                Ok(())
            }
            Outcome::OtherPosition {
                moves,
                fen,
                examples,
            } => write!(
                f,
                "the answer is for another position after {}: it moves pieces that are not there \
                 ({})\n  fen {fen}",
                path(moves),
                examples.join(", ")
            ),
            Outcome::TotalDiffers {
                moves,
                fen,
                ours,
                theirs,
            } => write!(
                f,
                "every move agrees after {} but the total is {theirs}, not {ours}\n  fen {fen}",
                path(moves)
            ),
            Outcome::Inconsistent { moves, fen, detail } => write!(
                f,
                "inconsistent answers after {}: {detail}\n  fen {fen}",
                path(moves)
            ),
            Outcome::Failed {
                moves,
                fen,
                depth,
                error,
            } => write!(
                f,
                "no answer after {} at depth {depth}: {error}\n  fen {fen}",
                path(moves)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_from_the_board() {
        let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
        let pos = Position::from_fen(kiwipete).unwrap();
        for (uci, class) in [
            ("e1g1", MoveClass::Castling),
            ("e1c1", MoveClass::Castling),
            ("e1f1", MoveClass::King),
            ("e1d1", MoveClass::King),
            ("e5f7", MoveClass::Capture),
            ("e5d3", MoveClass::Quiet),
            ("a2a4", MoveClass::Quiet),
            ("a8a7", MoveClass::NoSuchPiece),
            ("h8h7", MoveClass::NoSuchPiece),
            ("zz", MoveClass::NoSuchPiece),
        ] {
            assert_eq!(MoveClass::of(&pos, uci), class, "{uci}");
        }
        let ep = Position::from_fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1").unwrap();
        assert_eq!(MoveClass::of(&ep, "e5d6"), MoveClass::EnPassant);
        assert_eq!(MoveClass::of(&ep, "e5e6"), MoveClass::Quiet);
        let promo = Position::from_fen("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1").unwrap();
        assert_eq!(
            MoveClass::of(&promo, "a7a8r"),
            MoveClass::Promotion(PieceKind::Rook)
        );
        assert_eq!(
            MoveClass::of(&promo, "a7b8n"),
            MoveClass::Promotion(PieceKind::Knight)
        );
        assert_eq!(MoveClass::of(&promo, "a7a8"), MoveClass::NoSuchPiece);
        let c960 =
            Position::from_fen_with("1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1", true).unwrap();
        assert_eq!(MoveClass::of(&c960, "e1g1"), MoveClass::Castling);
        assert_eq!(MoveClass::of(&c960, "e1f1"), MoveClass::King);
        for (i, class) in MoveClass::ALL.iter().enumerate() {
            assert_eq!(class.index(), i);
        }
    }
}
