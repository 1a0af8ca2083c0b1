//! `perft --bench`: the fixed speed test.

use super::common::{mnps, setup_label};
use super::config::SliderJob;
use anyhow::{Context, Result, bail};
use perft::cpu::Simd;
use perft::perft::{Counting, Perft};
use perft::{Nodes, Position, Sliders};
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(clap::Args, Debug)]
// No argument group: see the flattened options in src/main.rs.
#[group(skip)]
pub struct Args {
    /// The fixed speed test: the six standard positions at fixed depths, one thread, no hash,
    /// per-position and total Mnps (like Stockfish's `bench`), to compare two builds.
    #[arg(long, conflicts_with_all = ["fen", "moves", "depth", "suite", "divide", "compare", "magics",
          "threads", "hash", "chess960", "json"])]
    pub bench: bool,
}

/// The six standard positions at the depths of the speed comparison with the peers, with their
/// published counts (Chess Programming Wiki, "Perft Results").
const BENCH: [(&str, &str, u32, u64); 6] = [
    (
        "startpos",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        6,
        119_060_324,
    ),
    (
        "kiwipete",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        5,
        193_690_690,
    ),
    (
        "pos3",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        7,
        178_633_661,
    ),
    (
        "pos4",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        6,
        706_045_033,
    ),
    (
        "pos5",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        5,
        89_941_194,
    ),
    (
        "pos6",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        5,
        164_075_551,
    ),
];

/// `--bench`: one thread, no hash (the counts are checked, so a broken build cannot look fast).
pub struct Bench {
    pub counting: Counting,
    pub simd: Simd,
}

impl SliderJob for Bench {
    fn run<S: Sliders>(self) -> Result<ExitCode> {
        let opts = Perft::new().counting(self.counting).simd(self.simd);
        println!("bench: {}", setup_label(S::NAME, &opts));
        let mut total_nodes = Nodes::ZERO;
        let mut total_time = Duration::ZERO;
        for (name, fen, depth, expected) in BENCH {
            let pos = Position::from_fen(fen).context("bench FEN")?;
            let start = Instant::now();
            let nodes = opts.total::<S>(&pos, depth);
            let t = start.elapsed();
            if nodes != expected {
                bail!(
                    "{name} depth {depth}: {nodes} nodes, expected {expected}: this build is broken"
                );
            }
            println!(
                "{name:<10} depth {depth} {nodes:>11} nodes {:>8.3} s {:>8.1} Mnps",
                t.as_secs_f64(),
                mnps(nodes, t)
            );
            total_nodes += nodes;
            total_time += t;
        }
        println!(
            "total {total_nodes:>26} nodes {:>8.3} s {:>8.1} Mnps",
            total_time.as_secs_f64(),
            mnps(total_nodes, total_time)
        );
        Ok(ExitCode::SUCCESS)
    }
}
