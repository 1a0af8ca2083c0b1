//! The command without a subcommand: a count (with `--divide`, `--stats`, `--compare`), a
//! suite, the bench, the magic finder, or the perftree form; which one the options say,
//! decided with every counting option before any work starts ([`Config`]).

use super::common::Common;
use super::config::Counts;
use super::{bench, compare, count, magics, stats, suite};
use anyhow::Result;
use perft::Position;
use perft::compare::Work;
use std::path::Path;
use std::process::ExitCode;

/// The parsed options of the command without a subcommand.
pub struct Root<'a> {
    pub tree: &'a count::TreeArgs,
    pub common: &'a Common,
    pub count: &'a count::Args,
    pub compare: &'a compare::Args,
    pub magics: &'a magics::Args,
    pub suite: &'a suite::Args,
    pub bench: &'a bench::Args,
}

/// What the command does.
enum Mode<'a> {
    /// The perftree contract's divide.
    Perftree { pos: Position, depth: u32 },
    /// `--magics`: the magic finder.
    Magics,
    /// `--bench`.
    Bench,
    /// `--suite` with `--compare`: the slider implementations timed on the suite's checks.
    SuiteCompare { path: &'a Path },
    /// `--suite`.
    Suite { path: &'a Path },
    /// `--stats` (with `--divide`, `--json`).
    Stats { pos: Position, depth: u32 },
    /// `--compare`: the slider implementations timed on one count.
    Compare { pos: Position, depth: u32 },
    /// A count (with `--divide`).
    Count { pos: Position, depth: u32 },
}

/// The command's mode and its counting options, resolved and checked (against each other and
/// this CPU) before any work starts.
pub struct Config<'a> {
    mode: Mode<'a>,
    counts: Counts,
    root: Root<'a>,
}

impl<'a> Config<'a> {
    /// Reads the options once: every error of the command line is found here.
    pub fn new(r: Root<'a>) -> Result<Config<'a>> {
        r.suite.check_limits_need_a_suite()?;
        r.magics.check_seed_needs_magics()?;
        let count = &r.common.count;
        // The perftree form counts on one thread unless told otherwise: a debugger calls it
        // for every position of its descent.
        if let Some(depth) = r.tree.tree_depth {
            let counts = count.resolve(1)?;
            let pos = count::perftree_position(r.tree, r.common.chess960)?;
            let mode = Mode::Perftree { pos, depth };
            return Ok(Config {
                mode,
                counts,
                root: r,
            });
        }
        let counts = count.resolve_all_cores()?;
        let mode = if r.magics.magics {
            Mode::Magics
        } else if r.bench.bench {
            Mode::Bench
        } else if let Some(path) = &r.suite.suite {
            if r.compare.compare {
                Mode::SuiteCompare { path }
            } else {
                Mode::Suite { path }
            }
        } else {
            if r.suite.json && !r.count.stats {
                anyhow::bail!("--json goes with --suite or --stats");
            }
            let (pos, depth) = (r.common.position()?, r.count.depth());
            if r.count.stats {
                Mode::Stats { pos, depth }
            } else if r.compare.compare {
                Mode::Compare { pos, depth }
            } else {
                Mode::Count { pos, depth }
            }
        };
        Ok(Config {
            mode,
            counts,
            root: r,
        })
    }

    /// Runs what the options ask for.
    pub fn run(self) -> Result<ExitCode> {
        let (r, counts) = (self.root, self.counts);
        match self.mode {
            Mode::Perftree { pos, depth } => counts.run(count::Perftree { pos, depth, counts }),
            Mode::Magics => magics::run(r.magics),
            Mode::Bench => counts.run(bench::Bench {
                counting: counts.counting,
                simd: counts.simd,
            }),
            Mode::SuiteCompare { path } => {
                let (work, bad_lines) = suite::work(path, r.common.chess960, r.suite.limits())?;
                let what = format!("suite {}", path.display());
                let mb = counts.hash_mb::<u64>(|| {
                    perft::tt::CountSize::dense(suite::auto_table_size(&r.suite.limits()).0, 8)
                });
                let code = compare::run(&work, &what, counts, mb, r.compare.rounds)?;
                // As a suite: differing counts exit 1; else bad lines exit 2.
                Ok(if code == ExitCode::SUCCESS && bad_lines > 0 {
                    ExitCode::from(2)
                } else {
                    code
                })
            }
            Mode::Suite { path } => counts.run(suite::Suite {
                args: r.suite,
                path,
                chess960: r.common.chess960,
                counts,
            }),
            Mode::Stats { pos, depth } => counts.run(stats::StatsJob {
                counts,
                pos,
                depth,
                divide: r.count.divide,
                json: r.suite.json,
            }),
            Mode::Compare { pos, depth } => {
                let mb = counts
                    .hash_mb::<u64>(|| perft::perft::estimate_count::<perft::Magic>(&pos, depth));
                let what = pos.to_fen();
                let work = [Work {
                    pos,
                    depth,
                    expected: None,
                }];
                compare::run(&work, &what, counts, mb, r.compare.rounds)
            }
            Mode::Count { pos, depth } => counts.run(count::Count {
                pos,
                depth,
                divide: r.count.divide,
                counts,
            }),
        }
    }
}
