//! `perft diff`: our generator as the reference for somebody else's engine.
//!
//! The other engine ([`crate::engine`], over UCI or the perftree contract) is asked for its
//! divide; where a root move's count differs from ours, the search descends into it with one
//! ply less, until it reaches the position whose move list differs: the exact move sequence, the
//! FEN, and the moves the engine missed or invented there, each classified by the rule it
//! belongs to ([`MoveClass`]). Over a suite ([`diff_position`], [`Tally`]) the classes of every
//! failure add up to the table that tells an author which rule is broken.

use crate::attacks::Sliders;
use crate::engine::{Divide, Engine, EngineError};
use crate::epd::EpdEntry;
use crate::nodes::Nodes;
use crate::perft::{Cancelled, Options, Watch, divide_watched};
use crate::position::Position;
use crate::suite::{Limits, SkipReason, TreeSizes};
use crate::types::{Color, Move, PieceKind, Square};
use std::collections::BTreeMap;

/// The rule a move belongs to, as far as the board tells: what an author looks at first when
/// their engine misses or invents it.
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
    /// The engine's total for it.
    pub theirs: Nodes,
    /// The move whose count differs, that the search follows: (move, engine, ours).
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
    /// Found the position whose legal moves the engine gets wrong.
    MoveListDiffers {
        /// Moves from the root to the position.
        moves: Vec<String>,
        /// The position's FEN.
        fen: String,
        /// Whether the side to move is in check there.
        in_check: bool,
        /// Legal moves the engine did not list.
        missed: Vec<ClassifiedMove>,
        /// Moves the engine listed that are not legal.
        invented: Vec<ClassifiedMove>,
        /// The first lines of the engine's answer there that were neither a move count nor the
        /// total (a move list in another notation shows up here).
        unread: Vec<String>,
    },
    /// Most of the engine's moves move pieces that are not there: it answers for another
    /// position (it ignored `position`, or the moves, or misread the FEN).
    OtherPosition {
        /// Moves from the root to the position.
        moves: Vec<String>,
        /// The position's FEN.
        fen: String,
        /// A few of the impossible moves.
        examples: Vec<String>,
    },
    /// Every move matches but the engine's total is not the sum of its own lines.
    TotalDiffers {
        /// Moves from the root to the position.
        moves: Vec<String>,
        /// The position's FEN.
        fen: String,
        /// Our count of the position (every line of the engine agreed with ours).
        ours: Nodes,
        /// The total the engine printed.
        theirs: Nodes,
    },
    /// The engine's counts changed between calls, or its depth-1 counts are not 1.
    Inconsistent {
        /// Moves from the root to the position.
        moves: Vec<String>,
        /// The position's FEN.
        fen: String,
        /// What was inconsistent, for the report.
        detail: String,
    },
    /// The engine crashed, hung or printed garbage on this query (it is restarted for the next).
    EngineFailed {
        /// Moves from the root to the position.
        moves: Vec<String>,
        /// The position's FEN.
        fen: String,
        /// The depth asked for.
        depth: u32,
        /// How the engine failed.
        error: EngineError,
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
            | Outcome::EngineFailed { moves, fen, .. } => Some((moves, fen)),
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
            Outcome::EngineFailed { error, .. } => error.kind(),
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

/// Our divide of `pos` counted with `opts`, which `watch` follows: UCI name to (move, count).
fn our_divide<S: Sliders>(
    pos: &Position,
    depth: u32,
    opts: Options<'_>,
    watch: &Watch,
) -> Result<BTreeMap<String, (Move, Nodes)>, Cancelled> {
    Ok(divide_watched::<S>(pos, depth, opts, watch)?
        .into_iter()
        .map(|(mv, n)| (mv.to_uci(pos.is_chess960()), (mv, n)))
        .collect())
}

/// Why a watched descent ([`find_divergence_watched`]) stopped without a report.
#[derive(Debug)]
pub enum Stopped {
    /// The engine could not be started (again).
    Engine(EngineError),
    /// The watch was cancelled.
    Cancelled,
}

/// Descends from `root` after `moves` (legal moves in UCI notation) at `depth` to the first
/// position where `engine` and our generator disagree on the legal moves. `first`, if given, is
/// the engine's answer for the starting query, already asked. The only error is an engine that
/// cannot be started again; every other failure of the engine is an [`Outcome::EngineFailed`].
/// Our divides are counted with `opts` (threads, table, code: any counting gives the same
/// counts).
pub fn find_divergence<S: Sliders>(
    engine: &mut Engine,
    root: &Position,
    moves: &[String],
    depth: u32,
    first: Option<Divide>,
    opts: Options<'_>,
) -> Result<Report, EngineError> {
    // A watch no one holds: never cancelled.
    let watch = Watch::new();
    let ours = Ours {
        opts,
        watch: &watch,
    };
    descend::<S>(engine, root, moves, depth, first, ours, &mut |_, _| {}).map_err(|e| match e {
        Stopped::Engine(e) => e,
        Stopped::Cancelled => unreachable!("a watch no one holds is never cancelled"),
    })
}

/// [`find_divergence`] that `watch` can stop and follows through each of our divides (counted
/// with `opts`), telling `step` the moves and depth of each position before it is compared.
pub fn find_divergence_watched<S: Sliders>(
    engine: &mut Engine,
    root: &Position,
    moves: &[String],
    depth: u32,
    opts: Options<'_>,
    watch: &Watch,
    step: &mut dyn FnMut(&[String], u32),
) -> Result<Report, Stopped> {
    let ours = Ours { opts, watch };
    descend::<S>(engine, root, moves, depth, None, ours, step)
}

/// How the descent counts its own divides: with `opts`, followed by `watch`.
struct Ours<'a> {
    opts: Options<'a>,
    watch: &'a Watch,
}

/// The descent of [`find_divergence`] and [`find_divergence_watched`].
fn descend<S: Sliders>(
    engine: &mut Engine,
    root: &Position,
    moves: &[String],
    depth: u32,
    mut first: Option<Divide>,
    Ours { opts, watch }: Ours<'_>,
    on_step: &mut dyn FnMut(&[String], u32),
) -> Result<Report, Stopped> {
    // Send the FEN in our printing (keeps the castling notation, always 6 fields).
    let root_fen = root.to_fen();
    let mut pos = root.clone();
    for (i, m) in moves.iter().enumerate() {
        let Ok(mv) = crate::movegen::parse_uci_move::<S>(&pos, m) else {
            let error = EngineError::Garbage(format!("move {} ('{m}') is not legal here", i + 1));
            return Ok(Report {
                steps: Vec::new(),
                outcome: Outcome::EngineFailed {
                    moves: moves.to_vec(),
                    fen: pos.to_fen(),
                    depth,
                    error,
                },
            });
        };
        pos.make(mv);
    }
    let mut path: Vec<String> = moves.to_vec();
    let mut depth = depth.max(1);
    let mut steps = Vec::new();
    loop {
        on_step(&path, depth);
        let ours =
            our_divide::<S>(&pos, depth, opts, watch).map_err(|Cancelled| Stopped::Cancelled)?;
        let fen = pos.to_fen();
        let answer = match first.take() {
            Some(answer) => Ok(answer),
            None => engine.divide_unless(&root_fen, root.is_chess960(), &path, depth, &|| {
                watch.is_cancelled()
            }),
        };
        if watch.is_cancelled() {
            return Err(Stopped::Cancelled);
        }
        let theirs = match answer {
            Ok(answer) => answer,
            Err(error @ EngineError::Start(_)) => return Err(Stopped::Engine(error)),
            Err(error) => {
                return Ok(Report {
                    steps,
                    outcome: Outcome::EngineFailed {
                        moves: path,
                        fen,
                        depth,
                        error,
                    },
                });
            }
        };
        let ours_total: Nodes = ours.values().map(|v| v.1).sum();
        let mut step = Step {
            moves: path.clone(),
            depth,
            ours: ours_total,
            theirs: theirs.total,
            follow: None,
        };
        let classify = |m: &String| ClassifiedMove {
            uci: m.clone(),
            class: MoveClass::of(&pos, m),
        };
        let missed: Vec<ClassifiedMove> = ours
            .keys()
            .filter(|m| !theirs.moves.contains_key(*m))
            .map(classify)
            .collect();
        let invented: Vec<ClassifiedMove> = theirs
            .moves
            .keys()
            .filter(|m| !ours.contains_key(*m))
            .map(classify)
            .collect();
        if !missed.is_empty() || !invented.is_empty() {
            steps.push(step);
            let impossible: Vec<String> = invented
                .iter()
                .filter(|m| m.class == MoveClass::NoSuchPiece)
                .map(|m| m.uci.clone())
                .collect();
            let outcome = if impossible.len() * 2 >= theirs.moves.len().max(1) {
                Outcome::OtherPosition {
                    moves: path,
                    fen,
                    examples: impossible.into_iter().take(4).collect(),
                }
            } else {
                Outcome::MoveListDiffers {
                    moves: path,
                    fen,
                    in_check: pos.board().in_check(),
                    missed,
                    invented,
                    unread: theirs.unread,
                }
            };
            return Ok(Report { steps, outcome });
        }
        let differing = ours
            .iter()
            .find(|(m, (_, n))| theirs.moves.get(*m) != Some(n));
        let outcome = match differing {
            Some((name, &(mv, n))) if depth > 1 => {
                step.follow = Some((name.clone(), theirs.moves[name], n));
                steps.push(step);
                path.push(name.clone());
                pos.make(mv);
                depth -= 1;
                continue;
            }
            Some((name, _)) => Outcome::Inconsistent {
                moves: path,
                fen,
                detail: format!(
                    "at depth 1 the engine counts {} for {name}",
                    theirs.moves[name]
                ),
            },
            None if theirs.total != ours_total => Outcome::TotalDiffers {
                moves: path,
                fen,
                ours: ours_total,
                theirs: theirs.total,
            },
            None if steps.is_empty() => Outcome::Agree { nodes: ours_total },
            None => Outcome::Inconsistent {
                moves: path,
                fen,
                detail: "the counts differed one level up but all agree here".to_string(),
            },
        };
        steps.push(step);
        return Ok(Report { steps, outcome });
    }
}

/// One listed depth of a suite position, as the engine answered it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffCheck {
    /// The depth.
    pub depth: u32,
    /// The suite's count for it.
    pub expected: Nodes,
    /// The engine's total; `None` if skipped or the engine failed.
    pub engine: Option<Nodes>,
    /// Why the depth was not asked, if it was not.
    pub skipped: Option<SkipReason>,
}

/// A suite position's result.
#[derive(Clone, Debug)]
pub struct PositionDiff {
    /// The suite line (from 1).
    pub line: usize,
    /// The line's `id` operation, if any.
    pub id: Option<String>,
    /// The position's FEN.
    pub fen: String,
    /// Each listed depth, shallowest first.
    pub checks: Vec<DiffCheck>,
    /// The first failing depth and what the descent from it found.
    pub failure: Option<(u32, Report)>,
}

impl PositionDiff {
    /// Whether the engine agreed at every depth it was asked.
    pub fn passed(&self) -> bool {
        self.failure.is_none()
    }

    /// A name for output: the id if the line has one, else the FEN.
    pub fn name(&self) -> String {
        crate::epd::display_name(self.id.as_deref(), &self.fen)
    }
}

/// Asks `engine` for every depth of `entry` within `limits`, shallowest first, and compares its
/// totals with the suite's; at the first difference (or engine failure) descends to the cause and
/// skips the deeper depths; our divides are counted with `opts`. `progress` gets the suite's count
/// of each depth asked. The only error
/// is an engine that cannot be (re)started.
pub fn diff_position<S: Sliders>(
    engine: &mut Engine,
    entry: &EpdEntry,
    root: &Position,
    limits: Limits,
    opts: Options<'_>,
    mut progress: impl FnMut(Nodes),
) -> Result<PositionDiff, EngineError> {
    let mut counts: Vec<(u32, Nodes)> = entry.counts.iter().copied().filter(|c| c.0 > 0).collect();
    counts.sort_unstable();
    let mut result = PositionDiff {
        line: entry.line,
        id: entry.id.clone(),
        fen: entry.fen.clone(),
        checks: Vec::with_capacity(counts.len()),
        failure: None,
    };
    let fen = root.to_fen();
    // The limits go by the size of the position's own trees, not by the listed counts (which
    // may be wrong): the depths the answers leave unknown are counted by us, where affordable.
    let mut sizes = TreeSizes::new::<S>(root);
    for (depth, expected) in counts {
        if depth <= limits.max_depth {
            sizes.count_below::<S>(root, depth, limits.max_nodes as f64, opts);
        }
        let skipped = limits.skip(depth, sizes.estimate(depth), result.failure.is_some());
        let mut check = DiffCheck {
            depth,
            expected,
            engine: None,
            skipped,
        };
        if skipped.is_none() {
            match engine.divide(&fen, root.is_chess960(), &[], depth) {
                Ok(answer) => {
                    check.engine = Some(answer.total);
                    if answer.total == expected {
                        sizes.learn(depth, expected);
                    } else {
                        let report =
                            find_divergence::<S>(engine, root, &[], depth, Some(answer), opts)?;
                        result.failure = Some((depth, report));
                    }
                }
                Err(error @ EngineError::Start(_)) => return Err(error),
                Err(error) => {
                    let outcome = Outcome::EngineFailed {
                        moves: Vec::new(),
                        fen: fen.clone(),
                        depth,
                        error,
                    };
                    let steps = Vec::new();
                    result.failure = Some((depth, Report { steps, outcome }));
                }
            }
            progress(expected);
        }
        result.checks.push(check);
    }
    Ok(result)
}

/// Totals over a suite: positions, checks, and the failures by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Positions read.
    pub positions: usize,
    /// Positions where the engine agreed at every depth asked.
    pub passed: usize,
    /// Positions where it did not.
    pub failed: usize,
    /// Depths asked.
    pub checks_run: usize,
    /// Depths left out (over the limits, or after a failure).
    pub checks_skipped: usize,
    /// Per [`MoveClass::index`]: positions where such a move was [missed, missed in check,
    /// invented, invented in check].
    pub by_class: [[usize; 4]; 10],
    /// Failures by [`Outcome::category`].
    pub by_category: BTreeMap<&'static str, usize>,
}

impl Tally {
    /// Adds one position's result.
    pub fn add(&mut self, d: &PositionDiff) {
        self.positions += 1;
        for c in &d.checks {
            if c.skipped.is_some() {
                self.checks_skipped += 1;
            } else {
                self.checks_run += 1;
            }
        }
        let Some((_, report)) = &d.failure else {
            self.passed += 1;
            return;
        };
        self.failed += 1;
        *self
            .by_category
            .entry(report.outcome.category())
            .or_default() += 1;
        if let Outcome::MoveListDiffers {
            in_check,
            missed,
            invented,
            ..
        } = &report.outcome
        {
            let check = usize::from(*in_check);
            for (list, column) in [(missed, 0), (invented, 2)] {
                let mut seen = [false; 10];
                for m in list {
                    seen[m.class.index()] = true;
                }
                for (row, &hit) in seen.iter().enumerate() {
                    if hit {
                        self.by_class[row][column + check] += 1;
                    }
                }
            }
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
