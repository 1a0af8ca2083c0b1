//! The cost of a split's count before it starts: a sample of the jobs `perft split` makes,
//! counted as `perft work` counts them, extrapolated to every job.
//!
//! **What is timed.** A worker counts its shard's jobs in order through one table, so a job
//! finds there the positions the jobs before it stored and costs less than it would alone with
//! a fresh table. A job timed in isolation overestimates; so the sample's unit is a *run*: a
//! stretch of consecutive jobs of one shard (the shards dealt exactly as `perft split` deals
//! them), counted by [`work`](super::work) on a scratch copy of those jobs, through one fresh
//! table. The `warm` jobs before the run's first timed job are counted first, untimed, to fill
//! the table as the worker's would be; then the `timed` jobs are timed (wall clock, threads and
//! synced results lines included). The first timed job is a uniformly random job of the split,
//! so every job is equally likely to be timed.
//!
//! **What the runs cannot see, and the calibration.** A worker deep into its shard holds in its
//! table what hundreds or thousands of jobs stored, not the warm-up's few, and the jobs that
//! share positions with a job are spread over the whole shard, not just before it: at perft 8
//! of the start position split 3 plies down, one worker's table made the shard 3.3 times faster
//! than no table, while runs of 16 jobs gained nothing measurable from theirs (numbers in
//! docs/performance.md). Where the workers have a table, the estimate therefore also counts one
//! whole shard (the same jobs, the same options, through one table, as `perft work`) at the two
//! deepest depths below the real one that the runs put within the budget, and grows the deeper
//! count's time to the real depth by the growth between the two (so `T(D) = T(D-1)^2 / T(D-2)`
//! when the shard fits a ply below); that, over the shard's share of the work figure, is the
//! prediction, and the runs' bootstrap spread is scaled to it. The growth per ply of a whole
//! shard changes slowly with depth; the runs' does not see the table's gain between jobs at
//! all, and stays beside it as an upper bound. No depth fitting the budget, no calibration
//! (printed as such: the runs alone, an upper bound). The runs' tables are sized for the run
//! (at most the worker's size), so they never fill and evict as a worker's table does late in a
//! long shard.
//!
//! **Extrapolation.** Every job has the rough work figure the split balances its shards with
//! (the branching factor raised to the depth left). The runs' wall time per unit of that figure
//! (the ratio of the sums) times the figure summed over every job is one worker's wall time for
//! the whole split (the calibration replaces it where there is one); the 90% interval is the
//! 5th to 95th percentile of the same over the runs resampled with replacement (a bootstrap),
//! scaled to the calibration's figure: the sample's spread, not the growth's own error.

use super::files::{read_results, read_shard, write_file};
use super::job::Job;
use super::split::{deal, enumerate, weights};
use super::work::{WorkOptions, claim, work};
use super::{ShardError, rules_name};
use crate::attacks::Sliders;
use crate::cpu::Simd;
use crate::perft::{Counting, estimate_leaves};
use crate::position::Position;
use crate::stats::{Stats, StatsTable};
use crate::tt::{self, Table, TableError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What to estimate: the split, and how the sample is drawn.
#[derive(Clone, Debug)]
pub struct EstimateRequest {
    /// The depth of the whole count.
    pub depth: u32,
    /// The ply the tree is cut into jobs at (as `perft split --at`).
    pub at: u32,
    /// The shards the jobs are dealt into (as `perft split --shards`).
    pub shards: usize,
    /// Runs to time, at most.
    pub runs: usize,
    /// Jobs counted untimed before each run's timed jobs, to fill the table.
    pub warm: usize,
    /// Jobs timed in each run.
    pub timed: usize,
    /// No new run starts once this much time has passed, if at least three are done.
    pub budget: Duration,
    /// The sample's seed: the same seed, the same runs.
    pub seed: u64,
}

/// How the workers count, as `perft work`'s options say.
#[derive(Clone, Copy, Debug)]
pub struct WorkerOptions {
    /// How plain counts count the last ply.
    pub counting: Counting,
    /// Each worker's threads.
    pub threads: usize,
    /// The last ply's code.
    pub simd: Simd,
    /// Whether the workers count statistics.
    pub stats: bool,
    /// Each worker's table, in MiB (0: none).
    pub hash_mb: usize,
}

/// One run of the sample.
#[derive(Clone, Debug)]
pub struct Run {
    /// The shard, from 0.
    pub shard: usize,
    /// The place of its first timed job in the shard, from 0.
    pub first: usize,
    /// Jobs counted untimed before it.
    pub warm: usize,
    /// Jobs timed.
    pub timed: usize,
    /// The timed jobs' work figure, summed.
    pub figure: f64,
    /// The timed jobs' wall time, in seconds.
    pub seconds: f64,
    /// The run's table, in MiB.
    pub table_mb: usize,
    /// How long the run's table took to set up, in seconds.
    pub setup: f64,
}

/// The estimate.
#[derive(Clone, Debug)]
pub struct Estimate {
    /// The split's jobs.
    pub jobs: usize,
    /// The shards they are dealt into.
    pub shards: usize,
    /// Each shard's jobs.
    pub shard_jobs: Vec<usize>,
    /// The work figure summed over every job.
    pub figure: f64,
    /// The runs timed.
    pub runs: Vec<Run>,
    /// One worker's wall time for every job of the split, in seconds (table set-up excluded).
    pub worker_seconds: f64,
    /// The 90% interval of `worker_seconds`.
    pub interval: (f64, f64),
    /// The share of the split's work figure the runs timed.
    pub sampled: f64,
    /// One worker's wall time as the runs alone predict it, before the calibration's factor.
    pub runs_seconds: f64,
    /// The whole shard counted to correct the runs for what a worker's table keeps from
    /// earlier jobs, if one fitted the budget.
    pub calibration: Option<Calibration>,
}

/// One whole shard counted at smaller depths, grown ply by ply to the real one.
#[derive(Clone, Debug)]
pub struct Calibration {
    /// The depth of the count, in all.
    pub depth: u32,
    /// The shard, from 0.
    pub shard: usize,
    /// Its jobs.
    pub jobs: usize,
    /// The runs' prediction of its wall time (which decided that it fitted the budget).
    pub predicted: f64,
    /// Its wall time, counted whole through one table as `perft work` counts it.
    pub real: f64,
    /// Its wall time one ply shallower, where that is still below the split.
    pub shallower: Option<f64>,
    /// The growth per ply taken to the real depth: `real / shallower`, or the runs' own.
    pub growth: f64,
    /// One worker's wall time for the whole split at the real depth, from this shard.
    pub worker_seconds: f64,
}

/// What stops an estimate: a scratch file, or a table the system refuses.
#[derive(Debug)]
pub enum EstimateError {
    /// A scratch shard or results file.
    Files(ShardError),
    /// A run's table.
    Table(TableError),
}

impl std::fmt::Display for EstimateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EstimateError::Files(e) => e.fmt(f),
            EstimateError::Table(e) => write!(f, "a run's table: {e}"),
        }
    }
}

impl std::error::Error for EstimateError {}

impl From<ShardError> for EstimateError {
    fn from(e: ShardError) -> Self {
        EstimateError::Files(e)
    }
}

impl From<TableError> for EstimateError {
    fn from(e: TableError) -> Self {
        EstimateError::Table(e)
    }
}

/// A directory removed with everything in it when dropped.
struct ScratchDir(PathBuf);

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// SplitMix64: the sample's random numbers, the same for the same seed on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` at least 1).
    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next()) * n as u128) >> 64) as usize
    }
}

/// The split as the estimate sees it: its jobs, their work figures and their shards.
struct Plan<'a> {
    jobs: Vec<(Job, Position)>,
    figures: Vec<f64>,
    /// Each job's shard, and its place in the shard's file.
    owner: Vec<usize>,
    place: Vec<usize>,
    /// Each shard's jobs, in file order.
    order: Vec<Vec<usize>>,
    rules: &'static str,
    opts: &'a WorkerOptions,
    dir: PathBuf,
}

/// Estimates the count of `root` as `req` splits it and `opts` works it, with scratch files in
/// a directory of its own under `scratch` (removed at the end).
pub fn estimate<S: Sliders>(
    root: &Position,
    req: &EstimateRequest,
    opts: &WorkerOptions,
    scratch: &Path,
) -> Result<Estimate, EstimateError> {
    let at = req.at.min(req.depth);
    let jobs = enumerate::<S>(root, req.depth, at);
    let figures = weights::<S>(&jobs, req.depth - at);
    let owner = deal(&figures, req.shards);
    let shards = req.shards.clamp(1, jobs.len().max(1));
    let mut order: Vec<Vec<usize>> = vec![Vec::new(); shards];
    // Jobs are in id order: each shard's list is in the order its file lists them.
    let mut place = vec![0usize; jobs.len()];
    for (i, &s) in owner.iter().enumerate() {
        place[i] = order[s].len();
        order[s].push(i);
    }
    let mut est = Estimate {
        jobs: jobs.len(),
        shards,
        shard_jobs: order.iter().map(Vec::len).collect(),
        figure: figures.iter().sum(),
        runs: Vec::new(),
        worker_seconds: 0.0,
        interval: (0.0, 0.0),
        sampled: 0.0,
        runs_seconds: 0.0,
        calibration: None,
    };
    if jobs.is_empty() || est.figure <= 0.0 {
        return Ok(est);
    }
    let dir = scratch.join(format!("perft-estimate-{}", std::process::id()));
    let io = |e: std::io::Error| ShardError::new(&dir, None, format!("cannot create: {e}"));
    std::fs::create_dir_all(&dir).map_err(io)?;
    let _guard = ScratchDir(dir.clone());
    let plan = Plan {
        jobs,
        figures,
        owner,
        place,
        order,
        rules: rules_name(root.is_chess960()),
        opts,
        dir,
    };
    est.runs = plan.runs::<S>(req, req.depth, req.budget)?;
    let (seconds, figure) = sums(&est.runs);
    est.sampled = figure / est.figure;
    est.runs_seconds = seconds / figure.max(f64::MIN_POSITIVE) * est.figure;
    let calibration = if opts.hash_mb > 0 {
        plan.calibrate::<S>(req, at, est.figure, req.budget)?
    } else {
        None
    };
    let factor = calibration.as_ref().map_or(1.0, |c| {
        c.worker_seconds / est.runs_seconds.max(f64::MIN_POSITIVE)
    });
    est.calibration = calibration;
    est.worker_seconds = est.runs_seconds * factor;
    let (lo, hi) = bootstrap(&est.runs, est.figure, req.seed);
    est.interval = (lo * factor, hi * factor);
    Ok(est)
}

/// The runs' timed seconds and work figure, summed.
fn sums(runs: &[Run]) -> (f64, f64) {
    runs.iter()
        .fold((0.0, 0.0), |(t, f), r| (t + r.seconds, f + r.figure))
}

impl Plan<'_> {
    /// The jobs `ids` as job lines to count to `depth` in all.
    fn pick(&self, ids: &[usize], depth: u32, at: u32) -> Vec<Job> {
        ids.iter()
            .map(|&j| Job {
                depth: depth - at,
                ..self.jobs[j].0.clone()
            })
            .collect()
    }

    /// Times `req.runs` runs (fewer once `budget` has passed, at least three) of the split's
    /// jobs counted to `depth` in all.
    fn runs<S: Sliders>(
        &self,
        req: &EstimateRequest,
        depth: u32,
        budget: Duration,
    ) -> Result<Vec<Run>, EstimateError> {
        let start = Instant::now();
        let at = req.at.min(req.depth);
        let mut rng = Rng(req.seed);
        let mut runs = Vec::new();
        for r in 0..req.runs {
            if r >= 3 && start.elapsed() > budget {
                break;
            }
            let i = rng.below(self.jobs.len());
            let (s, first) = (self.owner[i], self.place[i]);
            let list = &self.order[s];
            let warm = &list[first.saturating_sub(req.warm)..first];
            let timed = &list[first..(first + req.timed.max(1)).min(list.len())];
            let (seconds, table_mb, setup) = self.count::<S>(
                &self.pick(warm, depth, at),
                &self.pick(timed, depth, at),
                warm.iter().chain(timed).copied(),
                depth,
            )?;
            runs.push(Run {
                shard: s,
                first,
                warm: warm.len(),
                timed: timed.len(),
                figure: timed.iter().map(|&j| self.figures[j]).sum(),
                seconds,
                table_mb,
                setup,
            });
        }
        Ok(runs)
    }

    /// One worker's time for the whole split from one whole shard (the first run's) counted as
    /// `perft work` counts it at the two deepest depths below `req.depth` (at least one ply
    /// below the split) that the runs predict within `budget`: the shallower count's time grown
    /// by the ply-to-ply growth between the two, up to the real depth, over the shard's share
    /// of the work figure. With only one depth that fits, the runs' own growth from it.
    fn calibrate<S: Sliders>(
        &self,
        req: &EstimateRequest,
        at: u32,
        figure: f64,
        budget: Duration,
    ) -> Result<Option<Calibration>, EstimateError> {
        let start = Instant::now();
        let shard = self.owner[Rng(req.seed).below(self.jobs.len())];
        let ids = &self.order[shard];
        let share: f64 = ids.iter().map(|&j| self.figures[j]).sum::<f64>() / figure;
        let left = |start: Instant| budget.saturating_sub(start.elapsed());
        for depth in (at + 1..req.depth).rev() {
            if left(start).is_zero() {
                break;
            }
            let runs = self.runs::<S>(req, depth, left(start) / 4)?;
            let (seconds, fig) = sums(&runs);
            let predicted = seconds / fig.max(f64::MIN_POSITIVE) * figure * share;
            if predicted > left(start).as_secs_f64() / 2.0 {
                continue;
            }
            let whole = |d: u32| -> Result<f64, EstimateError> {
                let jobs = self.pick(ids, d, at);
                Ok(self.count::<S>(&[], &jobs, ids.iter().copied(), d)?.0)
            };
            let real = whole(depth)?;
            let shallower = if depth > at + 1 {
                Some(whole(depth - 1)?)
            } else {
                None
            };
            let growth = match shallower {
                Some(t) if t > 0.0 && real > 0.0 => real / t,
                // The runs' growth from this depth to the real one, per ply.
                _ => {
                    let (deep, deep_fig) = sums(&self.runs::<S>(req, req.depth, budget / 4)?);
                    let per_fig = |t: f64, f: f64| t / f.max(f64::MIN_POSITIVE);
                    (per_fig(deep, deep_fig) / per_fig(seconds, fig).max(f64::MIN_POSITIVE))
                        .powf(1.0 / f64::from(req.depth - depth))
                }
            };
            let grown = real * growth.powi((req.depth - depth) as i32);
            return Ok(Some(Calibration {
                depth,
                shard,
                jobs: ids.len(),
                predicted,
                real,
                shallower,
                growth,
                worker_seconds: grown / share.max(f64::MIN_POSITIVE),
            }));
        }
        Ok(None)
    }

    /// Counts `warm` then `timed` (the split's jobs `ids`, counted to `depth` in all) through
    /// one fresh table as `perft work` would: the timed jobs' wall time, the table's size and
    /// its set-up time.
    fn count<S: Sliders>(
        &self,
        warm: &[Job],
        timed: &[Job],
        ids: impl Iterator<Item = usize>,
        depth: u32,
    ) -> Result<(f64, usize, f64), EstimateError> {
        let opts = self.opts;
        let leaves: f64 = ids
            .map(|j| estimate_leaves::<S>(&self.jobs[j].1, timed.first().map_or(0, |t| t.depth)))
            .sum();
        let table_mb = run_table_mb(opts, leaves, depth);
        let run_dir = self.dir.join("run");
        let _ = std::fs::remove_dir_all(&run_dir);
        std::fs::create_dir_all(&run_dir)
            .map_err(|e| ShardError::new(&run_dir, None, format!("cannot create: {e}")))?;
        let (seconds, setup) = if opts.stats {
            let table = match table_mb {
                0 => None,
                mb => Some(StatsTable::with_threads(mb, opts.threads)?),
            };
            let setup = table.as_ref().map_or(0.0, |t| t.setup_time().as_secs_f64());
            let w = WorkOptions {
                counting: opts.counting,
                threads: opts.threads,
                table: None,
                simd: opts.simd,
                stats: Some(table.as_ref()),
            };
            (count_run::<S>(&run_dir, self.rules, warm, timed, w)?, setup)
        } else {
            let table = match table_mb {
                0 => None,
                mb => Some(Table::with_threads(mb, opts.threads)?),
            };
            let setup = table.as_ref().map_or(0.0, |t| t.setup_time().as_secs_f64());
            let w = WorkOptions {
                counting: opts.counting,
                threads: opts.threads,
                table: table.as_ref(),
                simd: opts.simd,
                stats: None,
            };
            (count_run::<S>(&run_dir, self.rules, warm, timed, w)?, setup)
        };
        let _ = std::fs::remove_dir_all(&run_dir);
        Ok((seconds, table_mb, setup))
    }
}

/// The table of a run: the worker's size, or less where the run's jobs need less (a run's
/// table is mapped for every run, which takes seconds per GiB).
fn run_table_mb(opts: &WorkerOptions, leaves: f64, depth: u32) -> usize {
    if opts.hash_mb == 0 {
        return 0;
    }
    let memory = tt::available_memory();
    let need = if opts.stats {
        tt::auto_mb::<Stats<u64>>(leaves, depth, f64::INFINITY, memory)
    } else {
        tt::auto_mb::<u64>(leaves, depth, f64::INFINITY, memory)
    };
    opts.hash_mb.min(need.max(16))
}

/// Counts `warm` then `timed` through the same table as `perft work` counts a shard, each as a
/// shard file of its own in `dir`; returns the wall time of the timed jobs.
fn count_run<S: Sliders>(
    dir: &Path,
    rules: &str,
    warm: &[Job],
    timed: &[Job],
    opts: WorkOptions<'_>,
) -> Result<f64, ShardError> {
    if !warm.is_empty() {
        count_jobs::<S>(&dir.join("warm.jobs"), rules, warm, opts)?;
    }
    let start = Instant::now();
    if !timed.is_empty() {
        count_jobs::<S>(&dir.join("timed.jobs"), rules, timed, opts)?;
    }
    Ok(start.elapsed().as_secs_f64())
}

/// Writes `jobs` as a shard file at `path` and counts it with [`work`].
fn count_jobs<S: Sliders>(
    path: &Path,
    rules: &str,
    jobs: &[Job],
    opts: WorkOptions<'_>,
) -> Result<(), ShardError> {
    let mut text = format!("# perft split estimate shard 0 of 1 rules {rules}\n");
    for job in jobs {
        text.push_str(&job.line());
        text.push('\n');
    }
    write_file(path, text.as_bytes())?;
    let shard = read_shard(path)?;
    let held = claim(&shard)?;
    let existing = read_results(&shard)?;
    work::<S>(&held, &shard, &existing, opts, |_| {})?;
    Ok(())
}

/// The 5th and 95th percentiles of the worker's time over `runs` resampled with replacement.
fn bootstrap(runs: &[Run], figure: f64, seed: u64) -> (f64, f64) {
    if runs.is_empty() {
        return (0.0, 0.0);
    }
    let mut rng = Rng(seed ^ 0x5EED);
    let mut totals: Vec<f64> = (0..2000)
        .map(|_| {
            let (t, f) = (0..runs.len()).fold((0.0, 0.0), |(t, f), _| {
                let r = &runs[rng.below(runs.len())];
                (t + r.seconds, f + r.figure)
            });
            t / f64::max(f, f64::MIN_POSITIVE) * figure
        })
        .collect();
    totals.sort_by(f64::total_cmp);
    let at = |q: f64| totals[((totals.len() - 1) as f64 * q).round() as usize];
    (at(0.05), at(0.95))
}

#[cfg(test)]
mod tests {
    use super::{Rng, Run, bootstrap};

    fn run(figure: f64, seconds: f64) -> Run {
        Run {
            shard: 0,
            first: 0,
            warm: 0,
            timed: 1,
            figure,
            seconds,
            table_mb: 0,
            setup: 0.0,
        }
    }

    #[test]
    fn the_interval_holds_the_runs_rates_and_is_a_point_when_they_agree() {
        // Two runs at 1 s and 3 s per unit of figure: every resample lies between.
        let (lo, hi) = bootstrap(&[run(1.0, 1.0), run(1.0, 3.0)], 10.0, 7);
        assert!((10.0..=30.0).contains(&lo) && (10.0..=30.0).contains(&hi) && lo < hi);
        let (lo, hi) = bootstrap(&[run(2.0, 1.0), run(4.0, 2.0)], 10.0, 7);
        assert!((lo - 5.0).abs() < 1e-9 && (hi - 5.0).abs() < 1e-9);
    }

    #[test]
    fn draws_below_n_cover_the_range_and_stay_in_it() {
        let mut rng = Rng(1);
        let mut seen = [false; 5];
        for _ in 0..200 {
            seen[rng.below(5)] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }
}
