//! `perft uci`: the UCI loop on stdin and stdout, counting with the counting options.

use super::common::{CountArgs, HashSize, SliderJob, with_sliders};
use anyhow::Result;
use perft::attacks::Sliders;
use perft::perft::{Options, divide_uci, estimate_leaves};
use perft::uci::Uci;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// How `go perft` counts, as for any count. `--hash MB` keeps one table for as long as the
    /// loop runs; `--hash auto` sizes one for each `go perft` from its position and depth.
    #[command(flatten)]
    pub count: CountArgs,
}

pub fn run(args: &Args) -> Result<ExitCode> {
    with_sliders(args.count.slider_choice(), UciLoop(args))
}

/// The UCI loop with the slider implementation `S`.
struct UciLoop<'a>(&'a Args);

impl SliderJob for UciLoop<'_> {
    fn run<S: Sliders>(self) -> Result<ExitCode> {
        let count = &self.0.count;
        // Everything the options say is checked before the first command is read.
        let (counting, threads, simd) = (count.counting(), count.threads(), count.simd()?);
        let kept_table = match count.hash {
            HashSize::Mb(_) => count.table(|| 0.0, 0)?,
            HashSize::Auto => None,
        };
        let divide = |pos: &perft::Position, depth: u32| {
            let own_table = match count.hash {
                HashSize::Auto => count
                    .table(|| estimate_leaves::<S>(pos, depth), depth)
                    .map_err(|e| format!("{e:#}"))?,
                HashSize::Mb(_) => None,
            };
            let opts = Options {
                counting,
                threads,
                table: kept_table.as_ref().or(own_table.as_ref()),
                simd,
            };
            Ok(divide_uci::<S>(pos, depth, opts))
        };
        let stdin = std::io::stdin();
        Uci::with_divide(divide).run(stdin.lock(), std::io::stdout().lock())?;
        Ok(ExitCode::SUCCESS)
    }
}
