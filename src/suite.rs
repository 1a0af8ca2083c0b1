//! Running a perft suite: each position's listed depths within limits, pass or fail, and on a
//! failure the divide at the failing depth, so the user can start bisecting.

use crate::attacks::Sliders;
use crate::epd::EpdEntry;
use crate::nodes::Nodes;
use crate::perft::{Perft, uci_lines};
use crate::position::{FenError, Position};
use std::time::{Duration, Instant};

/// Which checks to run.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Skip depths above this.
    pub max_depth: u32,
    /// Skip checks whose tree is larger than this (estimated from the position, not from the
    /// count the suite lists, so that a wrong count is checked and fails).
    pub max_nodes: u128,
}

impl Limits {
    /// Why the check at `depth`, of a tree of about `estimate` leaves ([`TreeSizes`]), is
    /// skipped, if it is: a shallower depth of the same position `failed` already, or it is
    /// over a limit.
    pub fn skip(&self, depth: u32, estimate: f64, failed: bool) -> Option<SkipReason> {
        if failed {
            Some(SkipReason::AfterFailure)
        } else if depth > self.max_depth {
            Some(SkipReason::MaxDepth)
        } else if estimate > self.max_nodes as f64 {
            Some(SkipReason::MaxNodes)
        } else {
            None
        }
    }

    /// Whether a check listed with `listed` nodes at `depth` is likely to run: for a progress
    /// bar's total, before any position is counted (the checks themselves go by [`Limits::skip`]).
    pub fn likely_runs(&self, depth: u32, listed: Nodes) -> bool {
        depth <= self.max_depth && listed <= Nodes::from(self.max_nodes)
    }
}

/// The sizes of one position's trees: exact for the depths counted so far (consecutive from
/// depth 0), estimated beyond by the growth of the last ply counted. Within one ply of an exact
/// count the estimate is close (the start position: perft 5 from perft 3 and 4, 4.37 million
/// for 4.87); a tree that dies out is estimated at 0 from the first empty ply.
#[derive(Clone, Debug)]
pub struct TreeSizes {
    /// `exact[d]`: perft `d`, for `d` from 0.
    exact: Vec<Nodes>,
}

impl TreeSizes {
    /// Perft 0 (one node) and 1 (the legal moves) of `pos`, known at once.
    pub fn new<S: Sliders>(pos: &Position) -> TreeSizes {
        let moves = crate::movegen::count_legal::<S>(pos);
        TreeSizes {
            exact: vec![Nodes::ONE, Nodes::from(moves)],
        }
    }

    /// Records that perft `depth` is `nodes` (kept if it extends the exact counts).
    pub fn learn(&mut self, depth: u32, nodes: Nodes) {
        if depth as usize == self.exact.len() {
            self.exact.push(nodes);
        }
    }

    /// The estimated size of perft `depth`: exact where counted; beyond, the last exact count
    /// times the growth of its ply, once per ply.
    pub fn estimate(&self, depth: u32) -> f64 {
        let depth = depth as usize;
        if let Some(n) = self.exact.get(depth) {
            return n.to_f64();
        }
        let last = self.exact.len() - 1;
        let n = self.exact[last].to_f64();
        let growth = n / self.exact[last - 1].to_f64().max(1.0);
        n * growth.powi((depth - last) as i32)
    }

    /// Counts the depths below `depth` not yet known, each whose estimate is within `budget`
    /// leaves, so that the estimate of `depth` is made from the ply just above it where that is
    /// affordable (a suite that lists only deep counts).
    pub fn count_below<S: Sliders>(
        &mut self,
        pos: &Position,
        depth: u32,
        budget: f64,
        opts: Perft<'_>,
    ) {
        while (self.exact.len() as u32) < depth {
            let next = self.exact.len() as u32;
            if self.estimate(next) > budget {
                return;
            }
            let n = opts.total::<S>(pos, next);
            self.exact.push(n);
        }
    }
}

/// Why a listed depth was not checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// Deeper than `--max-depth`.
    MaxDepth,
    /// More nodes than `--max-nodes`.
    MaxNodes,
    /// A shallower depth of the same position already failed.
    AfterFailure,
}

impl SkipReason {
    /// A short description for output.
    pub fn describe(self) -> &'static str {
        match self {
            SkipReason::MaxDepth => "over --max-depth",
            SkipReason::MaxNodes => "over --max-nodes",
            SkipReason::AfterFailure => "after a failure",
        }
    }
}

/// One depth of one position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    /// The depth.
    pub depth: u32,
    /// The suite's count for it.
    pub expected: Nodes,
    /// The count we computed, `None` if skipped.
    pub actual: Option<Nodes>,
    /// Why it was not run, if it was not.
    pub skipped: Option<SkipReason>,
    /// The time the count took (zero if skipped).
    pub time: Duration,
}

impl Check {
    /// Whether the check ran and matched.
    pub fn passed(&self) -> bool {
        self.actual == Some(self.expected)
    }

    /// Whether the check ran and did not match.
    pub fn failed(&self) -> bool {
        self.actual.is_some() && !self.passed()
    }
}

/// The outcome for one suite position.
#[derive(Clone, Debug)]
pub struct PositionReport {
    /// The suite line (from 1).
    pub line: usize,
    /// The line's `id` operation, if any.
    pub id: Option<String>,
    /// The position's FEN.
    pub fen: String,
    /// The checks in increasing depth.
    pub checks: Vec<Check>,
    /// At the first failing depth: the count under each root move (UCI, sorted).
    pub divide: Option<(u32, Vec<(String, Nodes)>)>,
}

impl PositionReport {
    /// Checks that ran.
    pub fn run(&self) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(|c| c.actual.is_some())
    }

    /// The id, or the FEN shortened to its board and side fields.
    pub fn name(&self) -> String {
        crate::epd::display_name(self.id.as_deref(), &self.fen)
    }

    /// Whether every check that ran passed.
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| !c.failed())
    }

    /// Nodes computed.
    pub fn nodes(&self) -> Nodes {
        self.run().filter_map(|c| c.actual).sum()
    }

    /// Time spent counting (the divide excluded).
    pub fn time(&self) -> Duration {
        self.checks.iter().map(|c| c.time).sum()
    }
}

/// Parses an entry's FEN, choosing the castling rules per line: Chess960 if `chess960`, if the
/// castling field uses rook files (Shredder-FEN), or if its `KQkq` rights are impossible under
/// standard rules but valid as X-FEN (a king off the e-file, a rook off the corner).
pub fn parse_position(entry: &EpdEntry, chess960: bool) -> Result<Position, FenError> {
    match Position::from_fen_with(&entry.fen, chess960) {
        Err(FenError::CastlingPieces { .. }) if !chess960 => {
            Position::from_fen_with(&entry.fen, true)
        }
        result => result,
    }
}

/// Runs the checks of `entry` within `limits`, calling `progress` with the nodes of each check
/// as it completes.
pub fn run_position<S: Sliders>(
    entry: &EpdEntry,
    pos: Position,
    limits: Limits,
    opts: Perft<'_>,
    mut progress: impl FnMut(Nodes),
) -> PositionReport {
    let mut counts = entry.counts.clone();
    counts.sort_unstable();
    let mut report = PositionReport {
        line: entry.line,
        id: entry.id.clone(),
        fen: entry.fen.clone(),
        checks: Vec::with_capacity(counts.len()),
        divide: None,
    };
    let mut failed = false;
    let mut sizes = TreeSizes::new::<S>(&pos);
    let budget = limits.max_nodes as f64;
    for (depth, expected) in counts {
        if depth <= limits.max_depth {
            sizes.count_below::<S>(&pos, depth, budget, opts);
        }
        let skipped = limits.skip(depth, sizes.estimate(depth), failed);
        let mut check = Check {
            depth,
            expected,
            actual: None,
            skipped,
            time: Duration::ZERO,
        };
        if skipped.is_none() {
            let start = Instant::now();
            let n = opts.total::<S>(&pos, depth);
            check.time = start.elapsed();
            check.actual = Some(n);
            sizes.learn(depth, n);
            progress(n);
            if check.failed() {
                failed = true;
                // At depth 0 the one node is the position itself: no root move to divide by.
                report.divide =
                    (depth > 0).then(|| (depth, uci_lines(&pos, opts.divide::<S>(&pos, depth))));
            }
        }
        report.checks.push(check);
    }
    report
}

/// Totals over a suite run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Positions read.
    pub positions: usize,
    /// Positions with at least one check run and none failed.
    pub positions_passed: usize,
    /// Positions with a failed check.
    pub positions_failed: usize,
    /// Checks (one depth of one position) that ran and matched.
    pub passed: usize,
    /// Checks that ran and did not match.
    pub failed: usize,
    /// Checks not run (over a limit, or after a failure).
    pub skipped: usize,
    /// Lines that could not be read or whose FEN was rejected.
    pub errors: usize,
    /// Nodes counted by the checks that ran.
    pub nodes: Nodes,
    /// The time they took.
    pub time: Duration,
}

impl Summary {
    /// Adds one position's report.
    pub fn add(&mut self, r: &PositionReport) {
        self.positions += 1;
        if !r.passed() {
            self.positions_failed += 1;
        } else if r.run().next().is_some() {
            self.positions_passed += 1;
        }
        for c in &r.checks {
            if c.passed() {
                self.passed += 1;
            } else if c.failed() {
                self.failed += 1;
            } else {
                self.skipped += 1;
            }
        }
        self.nodes += r.nodes();
        self.time += r.time();
    }

    /// Millions of nodes per second over the whole run.
    pub fn mnps(&self) -> f64 {
        self.nodes.to_f64() / self.time.as_secs_f64().max(1e-9) / 1e6
    }
}
