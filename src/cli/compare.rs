//! `perft --compare`: the same perft with every slider implementation, side by side.

use super::common::{counting_name, many, mnps};
use super::config::Counts;
use anyhow::Result;
use perft::compare::Work;
use perft::perft::Perft;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
// No argument group: see the flattened options in src/main.rs.
#[group(skip)]
pub struct Args {
    /// Run the same perft with every slider implementation, alternating, and print a table
    /// (with `--hash MB`, each implementation counts each round through a fresh table).
    #[arg(long, conflicts_with_all = ["divide", "sliders", "classical", "threads", "json"])]
    pub compare: bool,

    /// Rounds for `--compare` (the median time is reported).
    #[arg(long, default_value_t = 3, requires = "compare",
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub rounds: u32,
}

/// Runs the comparison and prints its table; exit status 1 if any count disagrees.
pub fn run(
    work: &[Work],
    what: &str,
    counts: Counts,
    table_mb: usize,
    rounds: u32,
) -> Result<ExitCode> {
    let (counting, simd) = (counts.counting, counts.simd);
    let opts = Perft::new().counting(counting).simd(simd);
    let (contenders, problems) = perft::compare::compare(work, opts, table_mb, rounds);
    let base = contenders[0].median();
    let plural = if work.len() == 1 {
        format!(" depth {}", work[0].depth)
    } else {
        "s".to_string()
    };
    println!(
        "{what}: {} perft{plural}, {}, simd {}, 1 thread, {}, {} alternating, median time",
        work.len(),
        counting_name(counting),
        simd.describe(),
        match table_mb {
            0 => "no hash".to_string(),
            mb => format!("a fresh {mb} MiB table each round"),
        },
        many(rounds, "round", "rounds")
    );
    println!();
    println!(
        "{:<10} {:>15} {:>10} {:>9} {:>12}",
        "sliders", "nodes", "time (s)", "Mnps", "vs classical"
    );
    for c in &contenders {
        let t = c.median();
        println!(
            "{:<10} {:>15} {:>10.3} {:>9.1} {:>11.2}x",
            c.name,
            c.nodes(),
            t.as_secs_f64(),
            mnps(c.nodes(), t),
            base.as_secs_f64() / t.as_secs_f64().max(1e-9)
        );
    }
    for p in &problems {
        eprintln!("error: {p}");
    }
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
