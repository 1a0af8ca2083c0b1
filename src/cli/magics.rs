//! `perft --magics`: our magic finder, run and verified.

use anyhow::{Result, bail};
use perft::Magic;
use perft::attacks::magic::Slider;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args, Debug)]
// No argument group: see the flattened options in src/main.rs.
#[group(skip)]
pub struct Args {
    /// Run our magic finder, print every square's magic and verify them exhaustively.
    #[arg(long, conflicts_with_all = ["fen", "moves", "depth", "divide", "compare", "no_bulk",
          "threads", "hash", "chess960", "json", "sliders", "classical", "no_lanes", "simd"])]
    pub magics: bool,

    /// Seed for `--magics` (default: the seed that produced the shipped magics).
    #[arg(long, requires = "magics")]
    pub seed: Option<u64>,
}

impl Args {
    /// `--seed` seeds the finder alone: given without `--magics`, it is an error naming both
    /// (clap's `requires` lets it through in the flattened parser, so the check is made by hand).
    pub fn check_seed_needs_magics(&self) -> Result<()> {
        if self.seed.is_some() && !self.magics {
            bail!("--seed goes with --magics (it seeds the magic finder)");
        }
        Ok(())
    }
}

pub fn run(args: &Args) -> Result<ExitCode> {
    let seed = args.seed.unwrap_or(Magic::SHIPPED_SEED);
    let search = Magic::find(seed);
    println!(
        "magic search, seed {seed:#x}: {:.1} ms",
        search.elapsed.as_secs_f64() * 1e3
    );
    for (slider, found) in [
        (Slider::Rook, &search.rook),
        (Slider::Bishop, &search.bishop),
    ] {
        println!();
        println!("{} magics", slider.name());
        println!(
            "{:<6} {:>18} {:>4} {:>8} {:>8} {:>8}",
            "square", "magic", "bits", "entries", "distinct", "tries"
        );
        for (sq, m) in perft::Square::ALL.iter().zip(found.iter()) {
            println!(
                "{:<6} {:#018x} {:>4} {:>8} {:>8} {:>8}",
                sq.to_string(),
                m.magic,
                m.bits,
                m.entries,
                m.distinct,
                m.tries
            );
        }
    }
    let entries = search.entries();
    println!();
    println!(
        "table: {entries} entries, {:.1} KiB (fancy layout: 107648 entries, 841.0 KiB)",
        entries as f64 * 8.0 / 1024.0
    );
    let rook: [u64; 64] = std::array::from_fn(|i| search.rook[i].magic);
    let bishop: [u64; 64] = std::array::from_fn(|i| search.bishop[i].magic);
    let verify = Instant::now();
    let checked_r = Magic::verify(Slider::Rook, &rook);
    let checked_b = Magic::verify(Slider::Bishop, &bishop);
    match (checked_r, checked_b) {
        (Ok(r), Ok(b)) => println!(
            "verified: {} occupancy subsets, every one equal to the classical ray scan ({:.1} ms)",
            r + b,
            verify.elapsed().as_secs_f64() * 1e3
        ),
        (Err(sq), _) | (_, Err(sq)) => bail!("magic verification failed on {sq}"),
    }
    let shipped = rook == Magic::ROOK_MAGICS && bishop == Magic::BISHOP_MAGICS;
    println!(
        "shipped magics: {}",
        if shipped {
            "identical to this search"
        } else {
            "differ (another seed)"
        }
    );
    Ok(ExitCode::SUCCESS)
}
