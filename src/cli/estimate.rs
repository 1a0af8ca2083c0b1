//! `perft estimate`: what a split count will cost before it starts, from a sample of its jobs
//! counted as `perft work` counts them (the library's `shards::estimate` says how).

use super::common::{
    CountArgs, HashSize, MAX_DEPTH, OPTION_NAMES, build_position, counting_name, many, move_list,
    plural,
};
use super::config::{Counts, SliderJob};
use anyhow::{Result, bail};
use perft::perft::{Counting, estimate_leaves};
use perft::shards::{self, EstimateRequest, WorkerOptions};
use perft::stats::Stats;
use perft::tt;
use perft::{Position, Sliders};
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Root position; default: the start position.
    #[arg(long, short = 'f')]
    pub fen: Option<String>,

    /// Moves to play from it first (UCI notation).
    #[arg(long, num_args = 1.., value_name = "MOVE")]
    pub moves: Vec<String>,

    /// Chess960 castling rules (also selected by Shredder-FEN castling letters).
    #[arg(long)]
    pub chess960: bool,

    /// The depth of the whole count.
    #[arg(long, short = 'd', value_parser = clap::value_parser!(u32).range(1..=MAX_DEPTH as i64))]
    pub depth: u32,

    /// The split's ply, as `perft split --at` [default: the depth less 6, within 3 to 5].
    #[arg(long, visible_alias = "split-at", value_parser = clap::value_parser!(u32).range(0..=12))]
    pub at: Option<u32>,

    /// The split's shard files, as `perft split --shards` [default: --workers].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub shards: Option<u32>,

    /// Workers (machines of this one's kind, one `perft work` each) to give the wall time for,
    /// beside 1, 10 and 100.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub workers: u32,

    /// The workers count the leaf statistics too (`perft work --stats`).
    #[arg(long, conflicts_with = "no_bulk")]
    pub stats: bool,

    /// How each worker counts, as for `perft work` (its default: every core, no table).
    #[command(flatten)]
    pub count: CountArgs,

    /// Runs of jobs to time, at most.
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub runs: u32,

    /// Jobs counted untimed before each run, through its table, as a worker has counted jobs
    /// before the ones timed.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(0..=10_000))]
    pub warm: u32,

    /// Jobs timed in each run.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub timed: u32,

    /// No new run starts after this many seconds, once three are done.
    #[arg(long, default_value_t = 90, value_name = "SECONDS",
          value_parser = clap::value_parser!(u32).range(1..=86_400))]
    pub budget: u32,

    /// The sample's seed: the same seed draws the same runs.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

struct Estimate<'a> {
    args: &'a Args,
    root: Position,
    at: u32,
    counts: Counts,
}

pub fn run(args: &Args) -> Result<ExitCode> {
    let at = match args.at {
        Some(at) if at > args.depth => bail!(
            "--at {at} is deeper than --depth {}: split at most at the depth",
            args.depth
        ),
        Some(at) => at,
        None => args.depth.saturating_sub(6).clamp(3, 5).min(args.depth),
    };
    let moves = move_list(&args.moves);
    let root = build_position(args.fen.as_deref(), args.chess960, &moves, &OPTION_NAMES)?;
    let counts = args.count.resolve_all_cores()?;
    counts.run(Estimate {
        args,
        root,
        at,
        counts,
    })
}

impl SliderJob for Estimate<'_> {
    fn run<S: Sliders>(self) -> Result<ExitCode> {
        let (args, counts) = (self.args, self.counts);
        let start = Instant::now();
        let shards = args.shards.unwrap_or(args.workers) as usize;
        let hash_mb = match counts.hash {
            HashSize::Mb(mb) => mb as usize,
            // As `perft work --hash auto` sizes a worker's table: for its shard's leaves.
            HashSize::Auto => {
                let leaves = estimate_leaves::<S>(&self.root, args.depth) / shards as f64;
                let memory = tt::available_memory();
                if args.stats {
                    tt::auto_mb::<Stats<u64>>(leaves, args.depth, f64::INFINITY, memory)
                } else {
                    tt::auto_mb::<u64>(leaves, args.depth, f64::INFINITY, memory)
                }
            }
        };
        let req = EstimateRequest {
            depth: args.depth,
            at: self.at,
            shards,
            runs: args.runs as usize,
            warm: args.warm as usize,
            timed: args.timed as usize,
            budget: Duration::from_secs(args.budget.into()),
            seed: args.seed,
        };
        let opts = WorkerOptions {
            counting: counts.counting,
            threads: counts.threads,
            simd: counts.simd,
            stats: args.stats,
            hash_mb,
        };
        let est = shards::estimate::<S>(&self.root, &req, &opts, &std::env::temp_dir())?;
        let code = match counts.counting {
            Counting::Bulk => format!(", simd {}", counts.simd.describe()),
            Counting::NoBulk => String::new(),
        };
        println!(
            "perft {} of {} split {} down: {} in {}; each worker `perft work{} --threads {} \
             --hash {hash_mb}` ({}, {} sliders{code})",
            args.depth,
            self.root.to_fen(),
            many(self.at, "ply", "plies"),
            many(est.jobs as u64, "job", "jobs"),
            many(est.shards as u64, "shard", "shards"),
            if args.stats { " --stats" } else { "" },
            counts.threads,
            counting_name(counts.counting),
            S::NAME,
        );
        if est.runs.is_empty() {
            println!("nothing to count: the tree ends before the split's ply");
            return Ok(ExitCode::SUCCESS);
        }
        let timed: usize = est.runs.iter().map(|r| r.timed).sum();
        let warm: usize = est.runs.iter().map(|r| r.warm).sum();
        println!(
            "sample: {} of consecutive jobs of a shard through one fresh table: {timed} jobs \
             timed after {warm} counted untimed to fill it; {:.2}% of the split's work figure \
             timed",
            many(est.runs.len() as u64, "run", "runs"),
            est.sampled * 100.0
        );
        match &est.calibration {
            Some(c) => println!(
                "calibration: shard {} ({}) counted whole at depth {} in {:.2} s{}; grown by \
                 {:.2} per ply to depth {}: one worker {:.2} s (the runs alone, which miss what \
                 a worker's table keeps from earlier jobs: {:.2} s)",
                c.shard,
                many(c.jobs as u64, "job", "jobs"),
                c.depth,
                c.real,
                c.shallower.map_or(String::new(), |t| format!(
                    " and at depth {} in {t:.2} s",
                    c.depth - 1
                )),
                c.growth,
                args.depth,
                c.worker_seconds,
                est.runs_seconds
            ),
            None if hash_mb > 0 => println!(
                "calibration: none (no smaller depth's shard fits the budget): the figures \
                 below leave out what a worker's table keeps from earlier jobs, an upper bound"
            ),
            None => {}
        }
        let threads = counts.threads as f64;
        let (lo, hi) = est.interval;
        let hours = |s: f64| s * threads / 3600.0;
        println!(
            "work: {:.4} core-hours (90% interval {:.4}-{:.4}): one worker of {} thread{} \
             {:.2} s ({:.2}-{:.2} s), table set-up aside",
            hours(est.worker_seconds),
            hours(lo),
            hours(hi),
            counts.threads,
            plural(counts.threads),
            est.worker_seconds,
            lo,
            hi,
        );
        let mut workers = vec![1, 10, 100, args.workers as usize];
        workers.sort_unstable();
        workers.dedup();
        for n in workers {
            // Shards of equal work: the busiest worker counts ceil(S / n) of them.
            let share = est.shards.div_ceil(n) as f64 / est.shards as f64;
            let idle = if n > est.shards {
                format!(" ({} idle: more workers than shards)", n - est.shards)
            } else {
                String::new()
            };
            println!(
                "  {}: {} (90% interval {} to {}){idle}",
                many(n as u64, "worker", "workers"),
                duration(est.worker_seconds * share),
                duration(lo * share),
                duration(hi * share),
            );
        }
        let mb: usize = est.runs.iter().map(|r| r.table_mb).sum();
        if hash_mb > 0 && mb > 0 {
            let per_mb = est.runs.iter().map(|r| r.setup).sum::<f64>() / mb as f64;
            println!(
                "table set-up, once per shard: about {} ({:.2} s per GiB on the runs' tables)",
                duration(per_mb * hash_mb as f64),
                per_mb * 1024.0
            );
        }
        println!("estimate took {:.1} s", start.elapsed().as_secs_f64());
        Ok(ExitCode::SUCCESS)
    }
}

/// Seconds as a person reads them: `42.0 s`, `3 min 20 s`, `5.3 h`, `21.8 days`.
fn duration(s: f64) -> String {
    if s < 60.0 {
        format!("{s:.1} s")
    } else if s < 3600.0 {
        format!("{} min {} s", (s / 60.0) as u64, (s % 60.0) as u64)
    } else if s < 86_400.0 * 2.0 {
        format!("{:.1} h", s / 3600.0)
    } else {
        format!("{:.1} days", s / 86_400.0)
    }
}
