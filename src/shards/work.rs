//! The worker: counts a shard's jobs not yet done, on several threads sharing one table,
//! appending one synced, checksummed results line per finished job.

use super::ShardError;
use super::files::{JobResult, Results, Shard, results_header};
use crate::attacks::Sliders;
use crate::cpu::Simd;
use crate::nodes::Nodes;
use crate::perft::{Counting, Perft};
use crate::position::Position;
use crate::stats::StatsTable;
use crate::tt::Table;
use std::io::Write;
use std::ops::ControlFlow;
use std::sync::Mutex;
use std::time::Instant;

/// What `perft work` did.
#[derive(Clone, Debug, Default)]
pub struct WorkSummary {
    /// The shard's jobs.
    pub jobs: usize,
    /// Jobs the results file already had.
    pub already_done: usize,
    /// Jobs counted now.
    pub counted: usize,
    /// Nodes counted now (each job's position once).
    pub nodes: Nodes,
    /// A cut-short last line was removed (and its job redone).
    pub repaired: bool,
}

/// A shard held by one worker: an exclusive lock on its results file, released when dropped
/// (or when the process ends, however it ends). Take it before reading the results file, and
/// hold it while counting: two workers given the same shard would otherwise both count every
/// job and append every line twice. The lock is advisory (`flock`); on a network file system
/// it is as good as that system's locking.
#[derive(Debug)]
pub struct Claim {
    _file: std::fs::File,
}

/// Claims `shard` for this worker; an error names the file when another worker holds it.
pub fn claim(shard: &Shard) -> Result<Claim, ShardError> {
    let path = shard.results_path();
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| ShardError::new(&path, None, format!("cannot open: {e}")))?;
    match file.try_lock() {
        Ok(()) => Ok(Claim { _file: file }),
        Err(std::fs::TryLockError::WouldBlock) => Err(ShardError::new(
            &path,
            None,
            "another worker is counting this shard (it holds this results file); run one \
             worker per shard",
        )),
        Err(std::fs::TryLockError::Error(e)) => {
            Err(ShardError::new(&path, None, format!("cannot lock: {e}")))
        }
    }
}

/// How to count a shard's jobs.
#[derive(Clone, Copy)]
pub struct WorkOptions<'a> {
    /// How plain counts count the last ply.
    pub counting: Counting,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// The table of plain counts, if any.
    pub table: Option<&'a Table>,
    /// The last ply's code of plain counts; the copy of the code statistics run in.
    pub simd: Simd,
    /// Count statistics (with this table, if any) instead of plain nodes.
    pub stats: Option<Option<&'a StatsTable>>,
}

/// Counts every job of `shard` not yet in `existing` (its results file, as
/// [`read_results`](super::read_results) read it once `claim` was taken), appending (and
/// syncing) one line per job as it finishes. `progress` is called with each job's count.
pub fn work<S: Sliders>(
    _claim: &Claim,
    shard: &Shard,
    existing: &Results,
    opts: WorkOptions<'_>,
    progress: impl Fn(Nodes) + Sync,
) -> Result<WorkSummary, ShardError> {
    let path = shard.results_path();
    let want_stats = opts.stats.is_some();
    if let Some(stats) = existing.stats
        && stats != want_stats
    {
        return Err(ShardError::new(
            &path,
            Some(1),
            format!(
                "its lines were written {} --stats; run `perft work` {} --stats, or remove the file",
                if stats { "with" } else { "without" },
                if stats { "with" } else { "without" }
            ),
        ));
    }
    let io = |e: std::io::Error| ShardError::new(&path, None, format!("cannot write: {e}"));
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(io)?;
    let mut summary = WorkSummary::default();
    if let Some(len) = existing.cut_at {
        file.set_len(len).map_err(io)?;
        file.sync_all().map_err(io)?;
        summary.repaired = true;
    }
    if existing.stats.is_none() {
        // No header yet (a new file, or one cut before its first newline).
        file.set_len(0).map_err(io)?;
        file.write_all(results_header(shard, want_stats).as_bytes())
            .map_err(io)?;
        file.sync_all().map_err(io)?;
    }
    let pending = existing.pending(shard);
    summary.jobs = shard.jobs.len();
    summary.already_done = summary.jobs - pending.len();
    let chess960 = shard.chess960();
    let file = Mutex::new(file);
    let failure: Mutex<Option<ShardError>> = Mutex::new(None);
    let done = crate::pool::run(pending.len(), opts.threads, |i| {
        let job = pending[i];
        // Checked when the shard was read.
        let Ok(pos) = Position::from_fen_with(&job.fen, chess960) else {
            return ControlFlow::Break(());
        };
        let start = Instant::now();
        let (count, stats) = match opts.stats {
            Some(table) => {
                let s = Perft::stats()
                    .table(table)
                    .simd(opts.simd)
                    .total::<S>(&pos, job.depth);
                (s.nodes, Some(s))
            }
            None => {
                let o = Perft::new()
                    .counting(opts.counting)
                    .table(opts.table)
                    .simd(opts.simd);
                (o.total::<S>(&pos, job.depth), None)
            }
        };
        let result = JobResult {
            id: job.id,
            count,
            seconds: start.elapsed().as_secs_f64(),
            stats,
        };
        let line = result.line();
        let written = file.lock().map_err(|_| ()).and_then(|mut f| {
            f.write_all(line.as_bytes())
                .and_then(|_| f.sync_data())
                .map_err(|_| ())
        });
        if written.is_err() {
            if let Ok(mut f) = failure.lock() {
                *f = Some(ShardError::new(&path, None, "cannot append a result"));
            }
            return ControlFlow::Break(());
        }
        progress(count);
        ControlFlow::Continue(count)
    });
    if let Some(e) = failure.into_inner().ok().flatten() {
        return Err(e);
    }
    summary.counted = done.len();
    summary.nodes = done.into_iter().map(|(_, n)| n).sum();
    Ok(summary)
}
