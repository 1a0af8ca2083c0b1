//! `perft split`, `perft work`, `perft merge`: a deep count spread over processes and machines
//! by the batch engines people already run (GNU parallel, Slurm, xargs).

use super::common::{
    CountArgs, HashSize, MAX_DEPTH, OPTION_NAMES, build_position, hash_label, many, move_list,
    plural,
};
use super::config::{Counts, SliderJob};
use super::json::ErrorJson;
use super::json::shards::{MergeJson, MissingJson};
use anyhow::{Result, bail};
use perft::perft::estimate_leaves;
use perft::shards::{self, Shard, SplitRequest, WorkOptions};
use perft::stats::{Stats, StatsTable};
use perft::tt::{self, Table};
use perft::{Nodes, Position, Sliders};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct SplitArgs {
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
    #[arg(long, short = 'd', value_parser = clap::value_parser!(u32).range(0..=MAX_DEPTH as i64))]
    pub depth: u32,

    /// Split this many plies below the root: each unique position there is one job.
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=12))]
    pub at: u32,

    /// Number of shard files to deal the jobs into, balanced by expected work.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub shards: u32,

    /// Directory to write `manifest.json` and `shard-NNNN.jobs` into (created if missing; it
    /// must be empty).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,

    /// Write into a directory that is not empty, removing an earlier split's manifest, shards
    /// and results there.
    #[arg(long)]
    pub force: bool,
}

#[derive(clap::Args, Debug)]
pub struct WorkArgs {
    /// The shard file (`DIR/shard-NNNN.jobs`); results go to `DIR/shard-NNNN.results`.
    #[arg(value_name = "SHARD")]
    pub shard: PathBuf,

    /// Count the leaf statistics (captures, checks, mates...) too.
    #[arg(long, conflicts_with = "no_bulk")]
    pub stats: bool,

    /// How the jobs are counted, as for any count. `--hash auto` sizes the table for the jobs
    /// left in the shard.
    #[command(flatten)]
    pub count: CountArgs,
}

#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// The directory `perft split` wrote.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,

    /// One JSON document on stdout.
    #[arg(long)]
    pub json: bool,
}

struct Split<'a> {
    args: &'a SplitArgs,
}

pub fn split(args: &SplitArgs) -> Result<ExitCode> {
    if args.at > args.depth {
        bail!(
            "--at {} is deeper than --depth {}: split at most at the depth",
            args.at,
            args.depth
        );
    }
    // The split's own counts are small: the one slider implementation every CPU runs.
    Split { args }.run::<perft::Magic>()
}

impl SliderJob for Split<'_> {
    fn run<S: Sliders>(self) -> Result<ExitCode> {
        let args = self.args;
        let moves: Vec<String> = move_list(&args.moves)
            .into_iter()
            .map(String::from)
            .collect();
        let refs: Vec<&str> = moves.iter().map(String::as_str).collect();
        let root = build_position(args.fen.as_deref(), args.chess960, &refs, &OPTION_NAMES)?;
        let req = SplitRequest {
            fen: args
                .fen
                .clone()
                .unwrap_or_else(|| perft::position::STARTPOS.to_string()),
            moves,
            chess960: args.chess960,
            depth: args.depth,
            at: args.at,
            shards: args.shards as usize,
            force: args.force,
        };
        let start = Instant::now();
        let m = shards::split::<S>(&root, &req, &args.out)?;
        if m.shards < req.shards {
            eprintln!(
                "note: {} shard{} asked, but the split has {} job{}: wrote {} shard{}",
                req.shards,
                plural(req.shards),
                m.jobs,
                plural(m.jobs as usize),
                m.shards,
                plural(m.shards)
            );
        }
        let (fewest, most) = (
            m.shard_jobs.iter().min().copied().unwrap_or(0),
            m.shard_jobs.iter().max().copied().unwrap_or(0),
        );
        let per_shard = if fewest == most {
            many(fewest, "job", "jobs")
        } else {
            format!("{fewest}-{most} jobs")
        };
        println!(
            "split {}: {} (the unique positions {} down; multiplicities sum to {}), {} of \
             {per_shard}, depth {} left each, in {}",
            m.split,
            many(m.jobs, "job", "jobs"),
            many(m.at, "ply", "plies"),
            m.multiplicity_sum,
            many(m.shards as u64, "shard", "shards"),
            m.depth - m.at,
            args.out.display()
        );
        eprintln!("{:.2} s", start.elapsed().as_secs_f64());
        Ok(ExitCode::SUCCESS)
    }
}

struct Work<'a> {
    args: &'a WorkArgs,
    /// This worker's hold on the shard, for as long as it counts.
    claim: shards::Claim,
    shard: Shard,
    existing: shards::Results,
    counts: Counts,
}

pub fn work(args: &WorkArgs) -> Result<ExitCode> {
    let counts = args.count.resolve_all_cores()?;
    let shard = shards::read_shard(&args.shard)?;
    // Held from before the results are read until the last job is written.
    let claim = shards::claim(&shard)?;
    let existing = shards::read_results(&shard)?;
    // A finished shard returns at once, before a table is mapped (which takes seconds per GiB).
    if existing.finished(&shard, args.stats) {
        println!(
            "{}: {} jobs, all done before",
            shard.path.display(),
            shard.jobs.len()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let job = Work {
        args,
        claim,
        shard,
        existing,
        counts,
    };
    counts.run(job)
}

impl SliderJob for Work<'_> {
    fn run<S: Sliders>(self) -> Result<ExitCode> {
        let (args, shard) = (self.args, &self.shard);
        let threads = self.counts.threads;
        let mb = match self.counts.hash {
            HashSize::Mb(mb) => mb as usize,
            HashSize::Auto => auto_mb::<S>(shard, &self.existing, args.stats),
        };
        let table = match (mb, args.stats) {
            (0, _) | (_, true) => None,
            (mb, false) => Some(Table::with_threads(mb, threads)?),
        };
        let stats_table = match (mb, args.stats) {
            (0, _) | (_, false) => None,
            (mb, true) => Some(StatsTable::with_threads(mb, threads)?),
        };
        let opts = WorkOptions {
            counting: self.counts.counting,
            threads,
            table: table.as_ref(),
            simd: self.counts.simd,
            stats: args.stats.then_some(stats_table.as_ref()),
        };
        // The bar measures the jobs left: its time left comes from the jobs counted now.
        let bar = super::progress::jobs_bar(self.existing.pending(shard).len() as u64);
        let nodes = std::sync::Mutex::new(Nodes::ZERO);
        let start = Instant::now();
        let summary = shards::work::<S>(&self.claim, shard, &self.existing, opts, |n| {
            let total = nodes.lock().map(|mut t| {
                *t += n;
                *t
            });
            if let (Some(bar), Ok(total)) = (&bar, total) {
                bar.inc(1);
                let secs = start.elapsed().as_secs_f64().max(1e-9);
                bar.set_message(format!(
                    "{total} nodes, {:.1} Mnps",
                    total.to_f64() / secs / 1e6
                ));
            }
        });
        if let Some(bar) = &bar {
            bar.finish_and_clear();
        }
        let summary = summary?;
        let name = shard.path.display();
        if summary.repaired {
            eprintln!(
                "{name}: the results file's last line was cut short (a worker stopped while \
                 writing it) and was removed; every job without a result was counted now"
            );
        }
        let secs = start.elapsed().as_secs_f64();
        let hash = match (&table, &stats_table) {
            (Some(t), _) => hash_label(Some(t)),
            (None, t) => hash_label(t.as_ref()),
        };
        println!(
            "{name}: {} jobs, {} done before, {} counted now: {} nodes in {secs:.2} s ({:.1} Mnps; \
             {threads} thread{}, {hash})",
            summary.jobs,
            summary.already_done,
            summary.counted,
            summary.nodes,
            summary.nodes.to_f64() / secs.max(1e-9) / 1e6,
            plural(threads),
        );
        Ok(ExitCode::SUCCESS)
    }
}

/// `--hash auto` for the jobs of `shard` not yet done: sized as a count of the same tree would
/// size its table (`perft --depth D --hash auto`), for this shard's part of the leaves: the
/// jobs' multiplicities times their leaves, estimated from up to 32 jobs spread over the shard
/// (a few milliseconds each). `D` counts the split's plies from the manifest beside the shard;
/// without one, the jobs' own depth (a larger table, as if no job met another's positions);
/// for statistics records (`stats`) or node counts.
fn auto_mb<S: Sliders>(shard: &Shard, existing: &shards::Results, stats: bool) -> usize {
    let pending = existing.pending(shard);
    let Some(depth) = pending.first().map(|j| j.depth) else {
        return 0;
    };
    let chess960 = shard.chess960();
    let sample: Vec<f64> = pending
        .iter()
        .step_by(pending.len().div_ceil(32).max(1))
        .filter_map(|job| {
            let pos = Position::from_fen_with(&job.fen, chess960).ok()?;
            Some(estimate_leaves::<S>(&pos, job.depth))
        })
        .collect();
    if sample.is_empty() {
        return 0;
    }
    let mean = sample.iter().sum::<f64>() / sample.len() as f64;
    let paths: f64 = pending.iter().map(|j| j.multiplicity as f64).sum();
    let at = shard
        .path
        .parent()
        .and_then(|dir| shards::read_manifest(dir).ok())
        .map_or(0, |m| m.at);
    let (leaves, depth, memory) = (paths * mean, depth + at, tt::available_memory());
    if stats {
        tt::auto_mb::<Stats<u64>>(leaves, depth, f64::INFINITY, memory)
    } else {
        tt::auto_mb::<u64>(leaves, depth, f64::INFINITY, memory)
    }
}

pub fn merge(args: &MergeArgs) -> Result<ExitCode> {
    let merged = match shards::merge(&args.dir) {
        Ok(merged) if merged.manifest.is_some() => merged,
        result => {
            let error = match result {
                Err(e) => anyhow::Error::from(e),
                Ok(_) => anyhow::anyhow!("{}: no manifest", args.dir.display()),
            };
            // A script reading the JSON gets a document either way: `{"error": ...}`.
            if args.json {
                let message = format!("{error:#}");
                let doc = ErrorJson { error: &message };
                println!("{}", serde_json::to_string_pretty(&doc)?);
            }
            return Err(error);
        }
    };
    let Some(m) = &merged.manifest else {
        bail!("{}: no manifest", args.dir.display());
    };
    let complete = merged.complete();
    if args.json {
        let doc = MergeJson {
            split: m.split.clone(),
            fen: m.fen.clone(),
            moves: m.moves.clone(),
            rules: m.rules.clone(),
            depth: m.depth,
            at: m.at,
            complete,
            total: complete.then_some(merged.total),
            stats: merged.stats.filter(|_| complete),
            jobs: merged.jobs,
            jobs_done: merged.jobs_done,
            nodes_counted: merged.nodes,
            work_seconds: merged.seconds,
            missing: merged
                .missing
                .iter()
                .map(|&(n, id)| MissingJson {
                    shard: shards::shard_name(n),
                    id,
                })
                .collect(),
        };
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        let moves = if m.moves.is_empty() {
            String::new()
        } else {
            format!(" moves {}", m.moves.join(" "))
        };
        println!(
            "split {}: {}{moves}, depth {} split at {}, {}, {}",
            m.split,
            m.fen,
            m.depth,
            m.at,
            many(m.shards as u64, "shard", "shards"),
            many(m.jobs, "job", "jobs")
        );
        if complete {
            println!("complete: every job counted exactly once");
            println!("perft {} = {}", m.depth, merged.total);
            if let Some(stats) = merged.stats {
                for (name, v) in Stats::<Nodes>::FIELD_NAMES.iter().zip(stats.to_array()) {
                    println!("  {name:<26} {v}");
                }
            }
        } else {
            println!(
                "INCOMPLETE: {} of {} jobs have no result",
                merged.missing.len(),
                merged.jobs
            );
            let mut by_shard: std::collections::BTreeMap<usize, Vec<u64>> = Default::default();
            for &(n, id) in &merged.missing {
                by_shard.entry(n).or_default().push(id);
            }
            for (n, ids) in by_shard {
                let shown: Vec<String> = ids.iter().take(20).map(u64::to_string).collect();
                let more = if ids.len() > 20 {
                    format!(" and {} more", ids.len() - 20)
                } else {
                    String::new()
                };
                println!(
                    "  {}: {} missing: {}{more}",
                    shards::shard_name(n),
                    ids.len(),
                    shown.join(" ")
                );
            }
            for n in &merged.cut {
                println!(
                    "  {}: its last line was cut short (a worker killed while writing); \
                     `perft work` on the shard redoes that job",
                    shards::shard_name(*n).replace(".jobs", ".results")
                );
            }
        }
        println!(
            "jobs done {} of {}; nodes counted by the workers {}; work {:.3} s",
            merged.jobs_done, merged.jobs, merged.nodes, merged.seconds
        );
    }
    Ok(if complete {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
