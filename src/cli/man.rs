//! `perft man`: the manual page (roff), generated from the argument definitions.

use anyhow::Result;
use clap::CommandFactory;
use std::process::ExitCode;

/// Writes the manual page on stdout (`perft man > perft.1`).
pub fn run<C: CommandFactory>() -> Result<ExitCode> {
    clap_mangen::Man::new(C::command()).render(&mut std::io::stdout())?;
    Ok(ExitCode::SUCCESS)
}
