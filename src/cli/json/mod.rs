//! Every JSON document the commands print and the server answers, in one place: what a script
//! reads is defined once, and the commands and the server share it. One module per command;
//! the pieces two of them use (a suite line that could not be read, an error) here.

pub mod diff;
pub mod serve;
pub mod shards;
pub mod stats;
pub mod suite;

use serde::Serialize;

/// A line of a suite file that could not be read, in `--suite --json` and `diff --suite --json`.
#[derive(Serialize)]
pub struct LineError {
    pub line: usize,
    pub message: String,
}

/// `{"error": message}`: what the server answers a bad request, and what `perft merge --json`
/// prints when there is nothing to merge.
#[derive(Serialize)]
pub struct ErrorJson<'a> {
    pub error: &'a str,
}
