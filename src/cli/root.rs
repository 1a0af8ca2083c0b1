//! The command without a subcommand: a count (with `--divide`, `--stats`, `--compare`), a
//! suite, the bench, the magic finder, or the perftree form; which one the options say.

use super::common::{Common, with_sliders};
use super::{bench, compare, count, magics, stats, suite};
use anyhow::Result;
use perft::compare::Work;
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

/// Runs what the options ask for.
pub fn run(r: Root<'_>) -> Result<ExitCode> {
    let common = r.common;
    r.suite.check_limits_need_a_suite()?;
    r.magics.check_seed_needs_magics()?;
    // The last ply's code, checked against the CPU before any work.
    let simd = common.count.simd()?;
    if let Some(depth) = r.tree.tree_depth {
        return count::run_perftree(r.tree, common, depth, simd);
    }
    if r.magics.magics {
        return magics::run(r.magics);
    }
    let counting = common.count.counting();
    if r.bench.bench {
        return with_sliders(
            common.count.slider_choice(),
            bench::Bench { counting, simd },
        );
    }
    if let Some(path) = &r.suite.suite {
        if r.compare.compare {
            let (work, bad_lines) = suite::work(path, common.chess960, r.suite.limits())?;
            let what = format!("suite {}", path.display());
            let mb = common
                .count
                .hash_mb(|| suite::auto_table_size(&r.suite.limits()).0, 8);
            let code = compare::run(&work, &what, counting, simd, mb, r.compare.rounds)?;
            // As a suite: differing counts exit 1; else bad lines exit 2.
            return Ok(if code == ExitCode::SUCCESS && bad_lines > 0 {
                ExitCode::from(2)
            } else {
                code
            });
        }
        let job = suite::Suite {
            common,
            args: r.suite,
            path,
            simd,
        };
        return with_sliders(common.count.slider_choice(), job);
    }
    if r.suite.json && !r.count.stats {
        anyhow::bail!("--json goes with --suite or --stats");
    }
    let pos = common.position()?;
    if r.count.stats {
        let job = stats::StatsJob {
            common,
            simd: common.count.simd()?.without_lanes(),
            pos,
            depth: r.count.depth(),
            divide: r.count.divide,
            json: r.suite.json,
        };
        return with_sliders(common.count.slider_choice(), job);
    }
    if r.compare.compare {
        let work = [Work {
            pos: pos.clone(),
            depth: r.count.depth(),
            expected: None,
        }];
        let depth = r.count.depth();
        let mb = common.count.hash_mb(
            || perft::perft::estimate_leaves::<perft::Magic>(&pos, depth),
            depth,
        );
        return compare::run(&work, &pos.to_fen(), counting, simd, mb, r.compare.rounds);
    }
    let job = count::Count {
        common,
        args: r.count,
        pos,
        simd,
    };
    with_sliders(common.count.slider_choice(), job)
}
