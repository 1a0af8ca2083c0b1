//! A suite of positions with published counts run against a generator.

use super::descent::{Descent, Stopped, find_divergence_with};
use super::report::{Outcome, Report};
use super::{Failure, Generator, Query};
use crate::attacks::{Magic, Sliders};
use crate::epd::EpdEntry;
use crate::nodes::Nodes;
use crate::perft::{Perft, Watch};
use crate::position::Position;
use crate::suite::{Limits, SkipReason, TreeSizes, parse_position};
use std::collections::BTreeMap;
use std::fmt;

/// A suite: EPD text (one position per line, `;D<depth> <count>` operations) and the castling
/// rules its positions are played under.
#[derive(Clone, Copy, Debug)]
pub struct Suite<'a> {
    /// The EPD text.
    pub epd: &'a str,
    /// Whether every position is played under Chess960 castling rules (a line whose castling
    /// field names rook files is, in any suite).
    pub chess960: bool,
}

impl Suite<'static> {
    /// The Chess Programming Wiki's "Perft Results" positions (the start position, Kiwipete,
    /// positions 3 to 6) with every published depth.
    pub const STANDARD: Suite<'static> = Suite {
        epd: include_str!("../../suites/standard.epd"),
        chess960: false,
    };
    /// Positions known to break move generators (discovered checks, pins through en passant,
    /// castling through attacked squares, promotions), with their published counts.
    pub const TRICKY: Suite<'static> = Suite {
        epd: include_str!("../../suites/tricky.epd"),
        chess960: false,
    };
    /// The 960 Chess960 starting positions, depths 1 to 6, as published.
    pub const CHESS960: Suite<'static> = Suite {
        epd: include_str!("../../suites/chess960.epd"),
        chess960: true,
    };
}

/// What [`check`] found over a suite.
#[derive(Clone, Debug, Default)]
pub struct SuiteReport {
    /// Each position read, in the suite's order.
    pub positions: Vec<PositionDiff>,
    /// Lines that could not be read (the EPD or the FEN), by line number: a suite with a typo
    /// does not pass.
    pub unreadable: Vec<(usize, String)>,
    /// The totals.
    pub totals: Totals,
}

impl SuiteReport {
    /// Whether every position was read and the generator agreed at every depth asked.
    pub fn passed(&self) -> bool {
        self.unreadable.is_empty() && self.totals.failed == 0
    }

    /// The first position that failed: its failing depth and the descent's report.
    pub fn first_failure(&self) -> Option<(&PositionDiff, &Report)> {
        self.positions
            .iter()
            .find_map(|p| p.failure.as_ref().map(|(_, r)| (p, r)))
    }
}

impl fmt::Display for SuiteReport {
    /// Each failing position with its report, each unreadable line, and the totals.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in &self.positions {
            if let Some((depth, report)) = &p.failure {
                writeln!(f, "line {} ({}), depth {depth}:", p.line, p.name())?;
                writeln!(f, "{report}\n")?;
            }
        }
        for (line, error) in &self.unreadable {
            writeln!(f, "line {line}: {error}")?;
        }
        let t = &self.totals;
        write!(
            f,
            "{} positions: {} passed, {} failed, {} unreadable; {} depths asked, {} skipped",
            t.positions,
            t.passed,
            t.failed,
            self.unreadable.len(),
            t.checks_run,
            t.checks_skipped
        )
    }
}

/// Runs `suite` against `generator`: every listed depth within `limits`, and at a position's
/// first wrong count the descent to the position whose legal moves differ. The only error is
/// a fatal [`Failure`] of the generator.
pub fn check<G: Generator + ?Sized>(
    generator: &mut G,
    suite: &Suite<'_>,
    limits: Limits,
) -> Result<SuiteReport, Failure> {
    let mut out = SuiteReport::default();
    let opts = Perft::new();
    for entry in crate::epd::parse_str(suite.epd) {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                out.unreadable.push((e.line, e.kind.to_string()));
                continue;
            }
        };
        let root = match parse_position(&entry, suite.chess960) {
            Ok(root) => root,
            Err(e) => {
                out.unreadable.push((entry.line, format!("{e}")));
                continue;
            }
        };
        let diff = check_position::<Magic, G>(generator, &entry, &root, limits, opts, |_| {})?;
        out.totals.add(&diff);
        out.positions.push(diff);
    }
    Ok(out)
}

/// One listed depth of a suite position, as the generator answered it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffCheck {
    /// The depth.
    pub depth: u32,
    /// The suite's count for it.
    pub expected: Nodes,
    /// The generator's total; `None` if skipped or the generator failed.
    pub theirs: Option<Nodes>,
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
    /// Whether the generator agreed at every depth it was asked.
    pub fn passed(&self) -> bool {
        self.failure.is_none()
    }

    /// A name for output: the id if the line has one, else the FEN.
    pub fn name(&self) -> String {
        crate::epd::display_name(self.id.as_deref(), &self.fen)
    }
}

/// Asks `generator` for every depth of `entry` (its position `root`) within `limits`,
/// shallowest first, and compares its totals with the suite's; at the first difference (or
/// failure) descends to the cause and skips the deeper depths. Our divides are counted by the
/// sliders `S` with `opts`; `progress` gets the suite's count of each depth asked. The only
/// error is a fatal [`Failure`].
pub fn check_position<S: Sliders, G: Generator + ?Sized>(
    generator: &mut G,
    entry: &EpdEntry,
    root: &Position,
    limits: Limits,
    opts: Perft<'_>,
    mut progress: impl FnMut(Nodes),
) -> Result<PositionDiff, Failure> {
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
    let watch = Watch::new();
    for (depth, expected) in counts {
        if depth <= limits.max_depth {
            sizes.count_below::<S>(root, depth, limits.max_nodes as f64, opts);
        }
        let skipped = limits.skip(depth, sizes.estimate(depth), result.failure.is_some());
        let mut check = DiffCheck {
            depth,
            expected,
            theirs: None,
            skipped,
        };
        if skipped.is_none() {
            let query = Query {
                root_fen: &fen,
                moves: &[],
                position: root,
                depth,
            };
            match generator.divide(&query) {
                Ok(answer) => {
                    check.theirs = Some(answer.total);
                    if answer.total == expected {
                        sizes.learn(depth, expected);
                    } else {
                        let how = Descent {
                            opts,
                            watch: &watch,
                            first: Some(answer),
                            on_step: &mut |_, _| {},
                        };
                        let report = find_divergence_with::<S, G>(generator, root, &[], depth, how)
                            .map_err(|e| match e {
                                Stopped::Fatal(e) => e,
                                Stopped::Cancelled => unreachable!("no one holds the watch"),
                            })?;
                        result.failure = Some((depth, report));
                    }
                }
                Err(error) if error.fatal => return Err(error),
                Err(error) => {
                    let outcome = Outcome::Failed {
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
pub struct Totals {
    /// Positions read.
    pub positions: usize,
    /// Positions where the generator agreed at every depth asked.
    pub passed: usize,
    /// Positions where it did not.
    pub failed: usize,
    /// Depths asked.
    pub checks_run: usize,
    /// Depths left out (over the limits, or after a failure).
    pub checks_skipped: usize,
    /// Per [`MoveClass::index`](super::MoveClass::index): positions where such a move was [missed, missed in check,
    /// invented, invented in check].
    pub by_class: [[usize; 4]; 10],
    /// Failures by [`Outcome::category`].
    pub by_category: BTreeMap<&'static str, usize>,
}

impl Totals {
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
