//! `perft completions <shell>`: shell completions, generated from the same argument definitions
//! the parser uses, so they cannot drift from it.

use anyhow::Result;
use clap::CommandFactory;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The shell to write completions for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Writes the completion script for `shell` on stdout.
pub fn run<C: CommandFactory>(args: &Args) -> Result<ExitCode> {
    let mut cmd = C::command();
    clap_complete::generate(args.shell, &mut cmd, "perft", &mut std::io::stdout());
    Ok(ExitCode::SUCCESS)
}
