//! `perft uci`: the UCI loop on stdin and stdout.

use anyhow::Result;
use std::process::ExitCode;

pub fn run() -> Result<ExitCode> {
    let stdin = std::io::stdin();
    perft::uci::Uci::new().run(stdin.lock(), std::io::stdout().lock())?;
    Ok(ExitCode::SUCCESS)
}
