//! `perft --stats --json`: the statistics per depth, and per root move with `--divide`.

use perft::stats::Stats;
use serde::Serialize;

/// One row of the JSON document: the record's fields as the Grand Chess Tree names them (see
/// [`Stats`]'s JSON form), after the depth or the move.
#[derive(Serialize)]
pub struct StatsRowJson {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
    pub mv: Option<String>,
    #[serde(flatten)]
    pub stats: Stats,
}

impl StatsRowJson {
    pub fn new(depth: Option<u32>, mv: Option<String>, s: &Stats) -> StatsRowJson {
        StatsRowJson {
            depth,
            mv,
            stats: *s,
        }
    }
}

#[derive(Serialize)]
pub struct StatsJson {
    pub fen: String,
    pub depths: Vec<StatsRowJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub divide: Option<Vec<StatsRowJson>>,
}
