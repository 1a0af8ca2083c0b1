//! `perft serve`'s answers: a divide (ours beside the engine's), the progress of the count
//! running, what the server was started with.

use perft::Nodes;
use serde::Serialize;

#[derive(Serialize)]
pub struct ServeDivideJson {
    /// The position divided (after the moves).
    pub fen: String,
    /// The position the moves start from, and the moves.
    pub root: String,
    pub played: Vec<String>,
    pub chess960: bool,
    pub depth: u32,
    pub in_check: bool,
    pub total: Nodes,
    pub moves: Vec<RowJson>,
    pub seconds: f64,
    pub mnps: f64,
    pub engine_name: Option<String>,
    pub engine_total: Option<Nodes>,
    pub engine_error: Option<String>,
}

#[derive(Serialize)]
pub struct RowJson {
    #[serde(rename = "move")]
    pub mv: String,
    /// Ours; null for a move only the engine lists.
    pub nodes: Option<Nodes>,
    /// The engine's; null without an engine, or for a move it does not list.
    pub engine: Option<Nodes>,
}

#[derive(Serialize)]
pub struct ProgressJson {
    pub running: bool,
    pub kind: Option<&'static str>,
    pub stage: Option<String>,
    /// Tasks of our count done, and all of them.
    pub done: usize,
    pub total: usize,
    pub seconds: f64,
    pub cancelled: bool,
}

#[derive(Serialize)]
pub struct InfoJson<'a> {
    pub version: &'static str,
    /// The token the requests that count must carry (in the `X-Perft-Token` header): readable
    /// by the page and by scripts, not by a page of another site.
    pub token: &'a str,
    pub engine: Option<String>,
    pub max_depth: u32,
    pub threads: usize,
    pub counts_served: u64,
}
