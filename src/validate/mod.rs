//! Another move generator checked against this one, from a `#[test]`.
//!
//! Implement [`LegalMoves`] for your generator (a closure does), or [`Generator`] if you have
//! your own divide, and run a suite of positions with published counts against it
//! ([`check`], with the suites this library carries: [`Suite::STANDARD`], [`Suite::TRICKY`],
//! [`Suite::CHESS960`], or your own EPD text). Where your count of a position differs from the
//! published one, the check descends: it compares your divide with ours, follows a move whose
//! count differs one ply down, and so on to the first position whose legal moves differ. The
//! [`Report`] names that position (the moves from the root, its FEN) and each move you missed
//! or invented there, classified by the rule it belongs to ([`MoveClass`]).
//!
//! ```
//! use perft::validate::{self, Limits, MoveClass, Outcome, Suite};
//! use perft::{Magic, MoveKind, Position};
//!
//! // A generator that forgets en passant: this library's own, with one kind of move dropped.
//! let mut forgets_en_passant = |fen: &str, chess960: bool| -> Vec<String> {
//!     let pos = Position::from_fen_with(fen, chess960).unwrap();
//!     perft::movegen::legal_moves::<Magic>(&pos)
//!         .iter()
//!         .filter(|m| m.kind() != MoveKind::EnPassant)
//!         .map(|m| m.to_uci(chess960))
//!         .collect()
//! };
//! let limits = Limits { max_depth: 3, max_nodes: 100_000 };
//! let result = validate::check(&mut forgets_en_passant, &Suite::STANDARD, limits).unwrap();
//! assert!(!result.passed());
//! let (_, report) = result.first_failure().unwrap();
//! let Outcome::MoveListDiffers { missed, invented, .. } = &report.outcome else {
//!     panic!("{report}");
//! };
//! assert_eq!(missed[0].class, MoveClass::EnPassant);
//! assert!(invented.is_empty());
//! ```
//!
//! The `perft diff` command runs the same descent over an engine driven as a child process.

mod descent;
mod report;
mod suite;

pub use descent::{Descent, Stopped, find_divergence, find_divergence_with};
pub use report::{ClassifiedMove, MoveClass, Outcome, Report, Step};
pub use suite::{DiffCheck, PositionDiff, Suite, SuiteReport, Totals, check, check_position};

pub use crate::suite::Limits;

use crate::attacks::Magic;
use crate::movegen::parse_uci_move;
use crate::nodes::Nodes;
use crate::position::Position;
use std::collections::BTreeMap;
use std::fmt;

/// A generator under test that gives its divide: for a position and a depth, each legal move
/// with the count of the tree below it, and the total.
///
/// Every [`LegalMoves`] is one (its divide is counted by walking its own moves); implement this
/// trait yourself if your generator has its own perft, or answers from another process.
pub trait Generator {
    /// The divide of `query.position` at `query.depth` (at least 1): the count of leaves
    /// `depth - 1` plies below each legal move, by the move in UCI notation, and the total.
    /// A [`Failure`] ends the check of this position (or, if [`Failure::fatal`], the whole
    /// check).
    fn divide(&mut self, query: &Query<'_>) -> Result<Divide, Failure>;
}

/// A generator under test that lists the legal moves of a position.
///
/// Any `FnMut(&str, bool) -> Vec<String>` is one: given a FEN and whether the position is
/// played under Chess960 castling rules, the legal moves in UCI notation (`e2e4`, `e7e8q`;
/// castling as the king's two-square move, `e1g1`, or in Chess960 as the king taking its own
/// rook, `e1h1`). In Chess960 the FEN's castling field names the rooks' files (Shredder-FEN,
/// `HAha`).
pub trait LegalMoves {
    /// The legal moves of `fen`, in UCI notation, in any order.
    fn legal_moves(&mut self, fen: &str, chess960: bool) -> Vec<String>;
}

impl<F: FnMut(&str, bool) -> Vec<String>> LegalMoves for F {
    fn legal_moves(&mut self, fen: &str, chess960: bool) -> Vec<String> {
        self(fen, chess960)
    }
}

impl<T: LegalMoves + ?Sized> Generator for T {
    /// Counted by walking the generator's own moves, each played on this library's board: a
    /// move this library cannot play there (one the generator invented) counts as one leaf,
    /// so the count differs and the descent finds it.
    fn divide(&mut self, query: &Query<'_>) -> Result<Divide, Failure> {
        let pos = query.position;
        let mut answer = Divide::default();
        for uci in self.legal_moves(&pos.to_fen(), pos.is_chess960()) {
            let below = match played(pos, &uci) {
                Some(child) => count_legal_moves(self, &child, query.depth.max(1) - 1),
                None => Nodes::ONE,
            };
            answer.add(uci, below)?;
        }
        Ok(answer)
    }
}

/// `pos` after `uci`, if it is a legal move there.
fn played(pos: &Position, uci: &str) -> Option<Position> {
    let mv = parse_uci_move::<Magic>(pos, uci).ok()?;
    let mut child = pos.clone();
    child.make(mv);
    Some(child)
}

/// Perft `depth` of `pos` by the moves `generator` lists (an unplayable move is one leaf).
fn count_legal_moves<T: LegalMoves + ?Sized>(
    generator: &mut T,
    pos: &Position,
    depth: u32,
) -> Nodes {
    if depth == 0 {
        return Nodes::ONE;
    }
    let moves = generator.legal_moves(&pos.to_fen(), pos.is_chess960());
    if depth == 1 {
        return Nodes::from(moves.len() as u64);
    }
    moves
        .iter()
        .map(|uci| match played(pos, uci) {
            Some(child) => count_legal_moves(generator, &child, depth - 1),
            None => Nodes::ONE,
        })
        .sum()
}

/// What a [`Generator`] is asked: the divide of the position reached from a root by a few moves.
#[derive(Clone, Copy, Debug)]
pub struct Query<'a> {
    /// The root's FEN, as this library prints it (six fields).
    pub root_fen: &'a str,
    /// The moves from the root to the position, in UCI notation.
    pub moves: &'a [String],
    /// The position itself (the root after `moves`); [`Position::to_fen`] gives its FEN and
    /// [`Position::is_chess960`] its castling rules.
    pub position: &'a Position,
    /// The depth of the divide (at least 1).
    pub depth: u32,
}

/// A generator's divide: the count under each move and the total it gives.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Divide {
    /// The count under each move, by the move in UCI notation.
    pub moves: BTreeMap<String, Nodes>,
    /// The total the generator gives (the sum of `moves` unless it is wrong).
    pub total: Nodes,
    /// Lines of an engine's answer that were neither a move count nor the total (headers,
    /// timings...): a few, shown in the report where the move lists differ.
    pub unread: Vec<String>,
}

impl Divide {
    /// Adds `n` under `uci` and to the total; the same move twice is a [`Failure`].
    pub fn add(&mut self, uci: String, n: Nodes) -> Result<(), Failure> {
        if let Some(old) = self.moves.insert(uci.clone(), n) {
            return Err(Failure::new(
                "garbage",
                format!("{uci} is listed twice, with {old} and {n}"),
            ));
        }
        self.total += n;
        Ok(())
    }
}

/// Why a generator gave no answer to a query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// A one-word name for summaries and JSON (`crashed`, `timeout`, `garbage`...).
    pub kind: &'static str,
    /// What happened, for the report.
    pub message: String,
    /// Whether no further query can succeed (an engine that cannot be started): the check
    /// stops with this failure instead of going on with the next position.
    pub fatal: bool,
}

impl Failure {
    /// A failure of one query: the check goes on with the next position.
    pub fn new(kind: &'static str, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            message: message.into(),
            fatal: false,
        }
    }

    /// A failure that ends the check.
    pub fn fatal(kind: &'static str, message: impl Into<String>) -> Failure {
        Failure {
            fatal: true,
            ..Failure::new(kind, message)
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}
