//! `perft uci`: the UCI loop on stdin and stdout, counting with the counting options.

use super::common::{CountArgs, HashSize};
use super::config::{Counts, SliderJob};
use anyhow::Result;
use perft::attacks::Sliders;
use perft::perft::{estimate_count, uci_lines};
use perft::tt::Table;
use perft::uci::Uci;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// How `go perft` counts, as for any count. `--hash MB` keeps one table for as long as the
    /// loop runs; `--hash auto` sizes one for the first `go perft` that wants one and keeps it,
    /// replacing it by a larger one when a later count wants more.
    #[command(flatten)]
    pub count: CountArgs,
}

pub fn run(args: &Args) -> Result<ExitCode> {
    // Everything the options say is checked before the first command is read.
    let counts = args.count.resolve_all_cores()?;
    counts.run(UciLoop(counts))
}

/// The UCI loop with the slider implementation `S`.
struct UciLoop(Counts);

impl SliderJob for UciLoop {
    fn run<S: Sliders>(self) -> Result<ExitCode> {
        let count = self.0;
        let kept_table = match count.hash {
            HashSize::Mb(mb) => count.table_of_mb(mb as usize)?,
            HashSize::Auto => None,
        };
        // With `--hash auto`, the table sized for the first `go perft` that wants one, kept for
        // the next ones and replaced only by a larger one when a count wants more: mapping
        // takes time in proportion to its size (seconds per GiB). What earlier counts stored
        // stays right for later ones: every entry is verified by both keys and the depth.
        let mut grown: Option<(usize, Table)> = None;
        let divide = |pos: &perft::Position, depth: u32| {
            if let HashSize::Auto = count.hash {
                let mb = count.hash_mb::<u64>(|| estimate_count::<S>(pos, depth));
                if mb > grown.as_ref().map_or(0, |(held, _)| *held) {
                    // The old table goes first, so both are never mapped at once.
                    grown = None;
                    let table = count.table_of_mb(mb).map_err(|e| format!("{e:#}"))?;
                    grown = table.map(|t| (mb, t));
                }
            }
            let opts = count.perft(kept_table.as_ref().or(grown.as_ref().map(|(_, t)| t)));
            Ok(uci_lines(pos, opts.divide::<S>(pos, depth)))
        };
        let stdin = std::io::stdin();
        Uci::with_divide(divide).run(stdin.lock(), std::io::stdout().lock())?;
        Ok(ExitCode::SUCCESS)
    }
}
