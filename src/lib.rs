//! The `perft` command-line tool's own modules: the commands (`cli`), the engines it drives
//! (`engine`), its UCI front (`uci`), deep counts over many processes (`shards`), the slider
//! comparison (`compare`) and the descent of `perft diff` (`diff`). The chess core and the
//! counting engine are the `perft` library; this crate is its command line.

pub mod cli;
pub mod compare;
pub mod diff;
pub mod engine;
pub mod shards;
pub mod uci;
