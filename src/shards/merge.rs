//! The merge: every job of every shard exactly once, into `sum(multiplicity x count)`.

use super::ShardError;
use super::files::{Manifest, read_manifest, read_results, read_shard, shard_name};
use crate::nodes::Nodes;
use crate::stats::Stats;
use std::collections::HashMap;
use std::path::Path;

/// The merged result of a split.
#[derive(Clone, Debug, Default)]
pub struct Merged {
    /// The split's manifest, if it was found.
    pub manifest: Option<Manifest>,
    /// `sum(multiplicity x count)`: perft `depth` of the root.
    pub total: Nodes,
    /// The same for every statistics field, if the results carry statistics.
    pub stats: Option<Stats>,
    /// The split's jobs.
    pub jobs: u64,
    /// Jobs with a result.
    pub jobs_done: u64,
    /// Nodes the workers counted (each unique position once).
    pub nodes: Nodes,
    /// The workers' time, summed over jobs, in seconds.
    pub seconds: f64,
    /// Jobs without a result: (shard number, id).
    pub missing: Vec<(usize, u64)>,
    /// Shards with a cut-short last line (a worker was killed while writing it).
    pub cut: Vec<usize>,
}

impl Merged {
    /// Whether every job has a result (then `total` is the count).
    pub fn complete(&self) -> bool {
        self.missing.is_empty()
    }
}

/// Checks every shard and results file of the split in `dir` against its manifest and adds up
/// the results. Errors are damage or files of another split; missing results are not errors
/// but listed in [`Merged::missing`].
pub fn merge(dir: &Path) -> Result<Merged, ShardError> {
    let manifest = read_manifest(dir)?;
    let mut merged = Merged {
        jobs: manifest.jobs,
        ..Merged::default()
    };
    let mut stats_on: Option<bool> = None;
    let mut stats_sum = Stats::default();
    let mut jobs_seen = 0u64;
    let mut mult_seen = 0u64;
    for n in 0..manifest.shards {
        let path = dir.join(shard_name(n));
        let shard = read_shard(&path)?;
        let header = |m: String| ShardError::new(&path, Some(1), m);
        if shard.split != manifest.split {
            return Err(header(format!(
                "of split {}, but the manifest is of split {}",
                shard.split, manifest.split
            )));
        }
        if shard.number != n || shard.shards != manifest.shards || shard.rules != manifest.rules {
            return Err(header(format!(
                "says shard {} of {} ({} rules); the manifest expects shard {n} of {} ({} rules)",
                shard.number, shard.shards, shard.rules, manifest.shards, manifest.rules
            )));
        }
        if shard.jobs.len() as u64 != manifest.shard_jobs[n] {
            return Err(ShardError::new(
                &path,
                None,
                format!(
                    "{} jobs, the manifest says {}",
                    shard.jobs.len(),
                    manifest.shard_jobs[n]
                ),
            ));
        }
        jobs_seen += shard.jobs.len() as u64;
        let results = read_results(&shard)?;
        if results.cut_at.is_some() {
            merged.cut.push(n);
        }
        if let Some(on) = results.stats {
            match stats_on {
                Some(s) if s != on => {
                    return Err(ShardError::new(
                        &shard.results_path(),
                        Some(1),
                        "some shards were worked with --stats and some without",
                    ));
                }
                _ => stats_on = Some(on),
            }
        }
        let mut found: HashMap<u64, (Nodes, Option<Stats>, usize)> = HashMap::new();
        for (r, line) in &results.results {
            match found.get(&r.id) {
                Some(&(count, stats, first)) if count != r.count || stats != r.stats => {
                    return Err(ShardError::new(
                        &shard.results_path(),
                        Some(*line),
                        format!(
                            "job {} counted twice with different results: {count} (line {first}) \
                             and {}",
                            r.id, r.count
                        ),
                    ));
                }
                Some(_) => {}
                None => {
                    found.insert(r.id, (r.count, r.stats, *line));
                    merged.seconds += r.seconds;
                }
            }
        }
        for (job, _) in &shard.jobs {
            mult_seen += job.multiplicity;
            match found.get(&job.id) {
                Some(&(count, stats, _)) => {
                    merged.jobs_done += 1;
                    merged.nodes += count;
                    merged.total += count * job.multiplicity;
                    if let Some(s) = stats {
                        stats_sum += Stats::from_array(s.to_array().map(|v| v * job.multiplicity));
                    }
                }
                None => merged.missing.push((n, job.id)),
            }
        }
    }
    let manifest_path = dir.join("manifest.json");
    if jobs_seen != manifest.jobs || mult_seen != manifest.multiplicity_sum {
        return Err(ShardError::new(
            &manifest_path,
            None,
            format!(
                "the shards hold {jobs_seen} jobs of multiplicity {mult_seen}; the manifest says \
                 {} and {}",
                manifest.jobs, manifest.multiplicity_sum
            ),
        ));
    }
    if stats_on == Some(true) {
        merged.stats = Some(stats_sum);
    }
    merged.manifest = Some(manifest);
    Ok(merged)
}
