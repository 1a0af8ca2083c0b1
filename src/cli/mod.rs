//! The binary's commands, one module each: each owns its arguments and its printing; the
//! library does the work.

pub mod bench;
pub mod common;
pub mod compare;
pub mod completions;
pub mod config;
pub mod count;
pub mod diff;
pub mod engine;
pub mod input;
pub mod json;
pub mod magics;
pub mod man;
pub mod progress;
pub mod root;
pub mod serve;
pub mod shards;
pub mod signals;
pub mod stats;
pub mod suite;
pub mod uci;

/// The commands' names, for the message that tells a mistyped one from a perftree depth
/// (`src/main.rs` tests that they are the parser's).
pub const COMMANDS: [&str; 8] = [
    "uci",
    "diff",
    "split",
    "work",
    "merge",
    "serve",
    "completions",
    "man",
];
