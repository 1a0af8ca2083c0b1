//! The engine under test as the command line names it (`perft diff`, `perft serve --engine`):
//! its command, its protocol and the deadline of one query.

use anyhow::{Context, Result};
use perft::engine::{Engine, Protocol};
use std::time::Duration;

/// The protocol an engine speaks (`--protocol`).
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum ProtocolArg {
    Uci,
    Perftree,
}

/// The engine `command`, spoken to in `protocol`, each query bounded by `timeout` seconds.
pub fn make_engine(command: &str, protocol: ProtocolArg, timeout: f64) -> Result<Engine> {
    let protocol = match protocol {
        ProtocolArg::Uci => Protocol::Uci,
        ProtocolArg::Perftree => Protocol::Perftree,
    };
    let timeout = Duration::try_from_secs_f64(timeout)
        .ok()
        .filter(|t| !t.is_zero())
        .context("--timeout must be a positive number of seconds")?;
    Ok(Engine::new(command, protocol, timeout))
}
