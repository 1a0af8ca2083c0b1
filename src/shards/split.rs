//! Enumerating a split's jobs (the unique positions K plies down, with multiplicities) and
//! dealing them into shards balanced by expected work.

use super::files::{FORMAT, Manifest, shard_name, write_file};
use super::job::{Job, JobKey, job_fen, job_key};
use super::{FNV_START, ShardError, fnv1a, rules_name};
use crate::attacks::Sliders;
use crate::movegen::{count_legal, legal_moves};
use crate::perft::Perft;
use crate::position::Position;
use crate::types::Move;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::path::Path;

/// The unique positions `at` plies below `root`, with multiplicities, in a fixed order (by
/// their key), each to be counted to `depth - at`. Transpositions are merged ply by ply, so
/// memory goes with the unique positions of the last two plies.
pub fn enumerate<S: Sliders>(root: &Position, depth: u32, at: u32) -> Vec<(Job, Position)> {
    let at = at.min(depth);
    let mut level: Vec<(Position, u64)> = vec![(root.clone(), 1)];
    for ply in 0..at {
        let last = ply + 1 == at;
        let mut index: HashMap<JobKey, u32> = HashMap::new();
        // On the last ply only the parent and the move are kept, and positions are rebuilt
        // for the unique ones: the ply with the most positions holds the least per position.
        let mut children: Vec<(u64, u32, Move)> = Vec::new();
        let mut next: Vec<(Position, u64)> = Vec::new();
        for (parent, (pos, mult)) in level.iter().enumerate() {
            for &mv in legal_moves::<S>(pos).iter() {
                let mut child = pos.clone();
                child.make(mv);
                let key = job_key::<S>(&child);
                match index.entry(key) {
                    Entry::Occupied(e) => {
                        let i = *e.get() as usize;
                        if last {
                            children[i].0 += mult;
                        } else {
                            next[i].1 += mult;
                        }
                    }
                    Entry::Vacant(e) => {
                        if last {
                            e.insert(children.len() as u32);
                            children.push((*mult, parent as u32, mv));
                        } else {
                            e.insert(next.len() as u32);
                            next.push((child, *mult));
                        }
                    }
                }
            }
        }
        if last {
            let mut keyed: Vec<(JobKey, u32)> = index.into_iter().collect();
            keyed.sort_unstable();
            return keyed
                .into_iter()
                .enumerate()
                .map(|(id, (_, i))| {
                    let (mult, parent, mv) = children[i as usize];
                    let mut pos = level[parent as usize].0.clone();
                    pos.make(mv);
                    let job = Job {
                        id: id as u64,
                        multiplicity: mult,
                        depth: depth - at,
                        fen: job_fen::<S>(&pos),
                    };
                    (job, pos)
                })
                .collect();
        }
        // Insertion order is already fixed (parents in order, moves in generation order); only
        // the last ply is sorted, for the ids.
        level = next;
    }
    // at == 0: the root is the one job.
    vec![(
        Job {
            id: 0,
            multiplicity: 1,
            depth,
            fen: job_fen::<S>(root),
        },
        root.clone(),
    )]
}

/// A rough measure of the work of counting `pos` to `depth`, for balancing shards: the
/// branching factor (`sample` plies deep, 1 or 2) raised to the depth.
fn estimate<S: Sliders>(pos: &Position, depth: u32, sample: u32) -> f64 {
    if depth == 0 {
        return 1.0;
    }
    let sample = sample.min(depth);
    let n = if sample == 1 {
        count_legal::<S>(pos) as f64
    } else {
        Perft::new().total::<S>(pos, sample).to_f64()
    };
    (n.max(1.0)).powf(f64::from(depth) / f64::from(sample))
}

/// What `perft split` was asked.
#[derive(Clone, Debug)]
pub struct SplitRequest {
    /// The root FEN as given, and the moves played from it.
    pub fen: String,
    /// The moves (UCI) played from the FEN to the root counted.
    pub moves: Vec<String>,
    /// Whether Chess960 castling rules apply.
    pub chess960: bool,
    /// The depth of the whole count.
    pub depth: u32,
    /// The ply at which the tree is cut into jobs.
    pub at: u32,
    /// Shard files asked for; never more are written than there are jobs.
    pub shards: usize,
    /// Replace the files of an earlier split in the output directory (its manifest, shards and
    /// results); without it, a directory that holds anything is refused.
    pub force: bool,
}

/// Makes `out` ready for a split: created if missing; refused if it holds anything, unless
/// `force`, which removes the files of an earlier split (`manifest.json`, `shard-NNNN.jobs`,
/// `shard-NNNN.results`) so that none of its results is left beside the new shards.
fn prepare_out(out: &Path, force: bool) -> Result<(), ShardError> {
    let err = |m: String| ShardError::new(out, None, m);
    std::fs::create_dir_all(out).map_err(|e| err(format!("cannot create the directory: {e}")))?;
    let entries: Vec<std::fs::DirEntry> = std::fs::read_dir(out)
        .map_err(|e| err(format!("cannot read the directory: {e}")))?
        .collect::<Result<_, _>>()
        .map_err(|e| err(format!("cannot read the directory: {e}")))?;
    if entries.is_empty() {
        return Ok(());
    }
    if !force {
        return Err(err(format!(
            "the directory is not empty ({} entries); a split there would orphan the results \
             beside it: choose an empty or new directory, or --force to replace an earlier split",
            entries.len()
        )));
    }
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let ours = name == "manifest.json"
            || (name.starts_with("shard-")
                && (name.ends_with(".jobs") || name.ends_with(".results")));
        if ours {
            std::fs::remove_file(e.path())
                .map_err(|x| ShardError::new(&e.path(), None, format!("cannot remove: {x}")))?;
        }
    }
    Ok(())
}

/// Splits `root` (the position of `req`, already played), deals the jobs into `req.shards`
/// shards balanced by expected work, and writes the manifest and shard files into `out`.
pub fn split<S: Sliders>(
    root: &Position,
    req: &SplitRequest,
    out: &Path,
) -> Result<Manifest, ShardError> {
    let jobs = enumerate::<S>(root, req.depth, req.at);
    let rules = rules_name(req.chess960 || root.is_chess960());
    let remaining = req.depth - req.at.min(req.depth);
    let sample = if jobs.len() <= 100_000 { 2 } else { 1 };
    let mut work: Vec<(f64, usize)> = jobs
        .iter()
        .enumerate()
        .map(|(i, (_, pos))| (estimate::<S>(pos, remaining, sample), i))
        .collect();
    // Longest first, each to the least loaded shard (ties: the lower id, the lower shard).
    work.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    // Never more shards than jobs: an empty shard is a file to run for nothing.
    let shards = req.shards.clamp(1, jobs.len().max(1));
    let mut load = vec![0.0f64; shards];
    let mut heap: std::collections::BinaryHeap<std::cmp::Reverse<(u64, usize)>> =
        (0..shards).map(|s| std::cmp::Reverse((0, s))).collect();
    let mut owner = vec![0usize; jobs.len()];
    for (w, i) in work {
        let Some(std::cmp::Reverse((_, s))) = heap.pop() else {
            break;
        };
        owner[i] = s;
        load[s] += w;
        // The load as an integer key with the order of the float (loads are finite, >= 0).
        heap.push(std::cmp::Reverse((load[s].to_bits(), s)));
    }
    let mut hash = fnv1a(
        FNV_START,
        format!("{FORMAT} depth {} at {} rules {rules}\n", req.depth, req.at).as_bytes(),
    );
    let mut bodies = vec![String::new(); shards];
    let mut counts = vec![0u64; shards];
    let mut sum = 0u64;
    for ((job, _), &s) in jobs.iter().zip(&owner) {
        let line = job.line();
        hash = fnv1a(hash, line.as_bytes());
        hash = fnv1a(hash, b"\n");
        bodies[s].push_str(&line);
        bodies[s].push('\n');
        counts[s] += 1;
        sum += job.multiplicity;
    }
    let id = format!("{hash:016x}");
    prepare_out(out, req.force)?;
    for (n, body) in bodies.iter().enumerate() {
        let path = out.join(shard_name(n));
        let text = format!("# perft split {id} shard {n} of {shards} rules {rules}\n{body}");
        write_file(&path, text.as_bytes())?;
    }
    let manifest = Manifest {
        format: FORMAT.to_string(),
        split: id,
        fen: req.fen.clone(),
        moves: req.moves.clone(),
        rules: rules.to_string(),
        depth: req.depth,
        at: req.at.min(req.depth),
        jobs: jobs.len() as u64,
        multiplicity_sum: sum,
        shards,
        shard_jobs: counts,
    };
    let json = serde_json::to_string_pretty(&manifest)
        .map_err(|e| ShardError::new(out, None, e.to_string()))?;
    write_file(&out.join("manifest.json"), format!("{json}\n").as_bytes())?;
    Ok(manifest)
}

#[cfg(test)]
mod tests {
    use super::enumerate;
    use crate::attacks::Magic;
    use crate::position::Position;

    #[test]
    fn transpositions_merge_and_multiplicities_sum_to_perft() {
        let root = Position::startpos();
        // Published: perft 2 = 400, perft 3 = 8,902, perft 4 = 197,281 of the start position.
        for (at, perft) in [(1u32, 20u64), (2, 400), (3, 8902), (4, 197_281)] {
            let jobs = enumerate::<Magic>(&root, at, at);
            let sum: u64 = jobs.iter().map(|(j, _)| j.multiplicity).sum();
            assert_eq!(sum, perft, "at {at}");
            let ids: Vec<u64> = jobs.iter().map(|(j, _)| j.id).collect();
            assert_eq!(ids, (0..jobs.len() as u64).collect::<Vec<_>>());
        }
        // 1. Nf3 Nf6 2. Nc3 and 1. Nc3 Nf6 2. Nf3 meet: fewer jobs than paths at ply 3.
        assert!(enumerate::<Magic>(&root, 3, 3).len() < 8902);
        assert_eq!(enumerate::<Magic>(&root, 2, 2).len(), 400);
    }
}
