//! `perft merge --json`: the merged count, or what is missing.

use perft::Nodes;
use perft::stats::Stats;
use serde::Serialize;

#[derive(Serialize)]
pub struct MergeJson {
    pub split: String,
    pub fen: String,
    pub moves: Vec<String>,
    pub rules: String,
    pub depth: u32,
    pub at: u32,
    pub complete: bool,
    /// perft `depth` of the root; null while jobs are missing.
    pub total: Option<Nodes>,
    pub stats: Option<Stats>,
    pub jobs: u64,
    pub jobs_done: u64,
    pub nodes_counted: Nodes,
    pub work_seconds: f64,
    pub missing: Vec<MissingJson>,
}

#[derive(Serialize)]
pub struct MissingJson {
    pub shard: String,
    pub id: u64,
}
