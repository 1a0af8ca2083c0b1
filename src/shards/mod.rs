//! Deep counts over many processes and machines: **split** the tree K plies down into its
//! unique positions (jobs, each with its multiplicity), deal them into shard files balanced by
//! expected work; **work** a shard, appending one synced, checksummed line per finished job to
//! its results file, so that a worker killed at any moment carries on where it stopped; **merge**
//! the results, proving every job was counted exactly once, into the total
//! `sum(multiplicity x count)` in 128-bit integers.
//!
//! The files (all text, `#` lines are headers):
//! - `manifest.json`: the split's parameters, its id (a checksum of every job line), the job
//!   count and the sum of multiplicities (= perft K).
//! - `shard-NNNN.jobs`: `# perft split <id> shard <n> of <S> rules <standard|chess960>`, then
//!   `<id> <multiplicity> <remaining depth> <FEN>` per job.
//! - `shard-NNNN.results`: `# perft results <id> shard <n> of <S> rules <r> stats <on|off>`,
//!   then `<id> <count> <seconds> [<13 statistics>] #<checksum>` per finished job.
//!
//! Transpositions are merged on what decides the tree below a position: the pieces, the side to
//! move, the castling rights, and the en-passant square only when an en-passant capture is
//! legal there. The move counters do not matter.
//!
//! One file per concept: `job.rs` (what identifies a job, its FEN), `split.rs` (enumeration and
//! dealing into shards), `files.rs` (the manifest, shard and results formats), `work.rs` (the
//! worker) and `merge.rs`.

mod files;
mod job;
mod merge;
mod split;
mod work;

pub use files::{
    FORMAT, JobResult, Manifest, Results, Shard, read_manifest, read_results, read_shard,
    shard_name,
};
pub use job::Job;
pub use merge::{Merged, merge};
pub use split::{SplitRequest, enumerate, split};
pub use work::{Claim, WorkOptions, WorkSummary, claim, work};

use std::fmt;
use std::path::{Path, PathBuf};

/// A problem with a file of a split, named by path and (where it has one) line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardError {
    /// The file.
    pub file: PathBuf,
    /// The line (from 1), where the problem is on one.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl ShardError {
    pub(crate) fn new(file: &Path, line: Option<usize>, message: impl Into<String>) -> ShardError {
        ShardError {
            file: file.to_path_buf(),
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for ShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file.display(), self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

impl std::error::Error for ShardError {}

/// 64-bit FNV-1a, the split's id and the results lines' checksum (not for security: for
/// telling files of different splits apart and finding damaged lines).
pub(crate) fn fnv1a(state: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(state, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
pub(crate) const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// The checksum written at the end of a results line.
pub(crate) fn line_checksum(text: &str) -> String {
    format!("#{:08x}", fnv1a(FNV_START, text.as_bytes()) as u32)
}

/// The rules a split is made under, as its files name them.
pub(crate) fn rules_name(chess960: bool) -> &'static str {
    if chess960 { "chess960" } else { "standard" }
}
