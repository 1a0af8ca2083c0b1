//! The `perft` command line: parses arguments, calls the library, prints.

use anyhow::{Context, Result, bail};
use clap::{Parser, ValueEnum};
use perft::attacks::magic::{self, Slider};
use perft::perft::{Counting, divide, perft};
use perft::{Classical, Magic, Position, Sliders};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The deepest perft the tool accepts. Deep counts only finish in closed positions (one suite
/// position is checked at depth 32); a count that could overflow the 64-bit node counter would
/// take centuries at any speed, so that limit is never reached.
const MAX_DEPTH: u32 = 64;

/// Exact perft counts and move-generator speed for chess positions.
///
/// Prints the number of leaf nodes of the legal move tree to the given depth on stdout (a plain
/// integer, for scripts) and the time and speed on stderr.
#[derive(Parser, Debug)]
#[command(name = "perft", version, about, long_about = None)]
struct Cli {
    /// Position in FEN (6 fields) or EPD form (4 fields); default: the start position.
    #[arg(long, short = 'f')]
    fen: Option<String>,

    /// Depth in plies (0 to 64).
    #[arg(long, short = 'd', default_value_t = 5,
          value_parser = clap::value_parser!(u32).range(0..=MAX_DEPTH as i64))]
    depth: u32,

    /// Print the count under each root move (`e2e4: 20`), then `Nodes searched: N`, as
    /// Stockfish's `go perft` does.
    #[arg(long)]
    divide: bool,

    /// Make every move down to depth 0 instead of counting the last ply's moves.
    #[arg(long)]
    no_bulk: bool,

    /// Slider attack implementation.
    #[arg(long, value_enum, default_value_t = SliderChoice::Magic)]
    sliders: SliderChoice,

    /// Use the classical ray scan for sliders (same as `--sliders classical`).
    #[arg(long, conflicts_with = "sliders")]
    classical: bool,

    /// Run the same perft with every slider implementation, alternating, and print a table.
    #[arg(long, conflicts_with_all = ["divide", "sliders", "classical"])]
    compare: bool,

    /// Rounds for `--compare` (the median time is reported).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
    rounds: u32,

    /// Run our magic finder, print every square's magic and verify them exhaustively.
    #[arg(long, conflicts_with_all = ["divide", "compare"])]
    magics: bool,

    /// Seed for `--magics` (default: the seed that produced the shipped magics).
    #[arg(long, requires = "magics")]
    seed: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum SliderChoice {
    /// Magic bitboards (default).
    Magic,
    /// Classical ray scan.
    Classical,
    /// BMI2 PEXT lookups (only in builds with `-C target-cpu=native` on a BMI2 CPU).
    Pext,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match run(&cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: &Cli) -> Result<ExitCode> {
    if cli.magics {
        return run_magics(cli.seed.unwrap_or(magic::SHIPPED_SEED));
    }
    let fen = cli.fen.as_deref().unwrap_or(perft::position::STARTPOS);
    let pos = Position::from_fen(fen).with_context(|| format!("invalid FEN '{fen}'"))?;
    let counting = if cli.no_bulk {
        Counting::NoBulk
    } else {
        Counting::Bulk
    };
    if cli.compare {
        return compare(&pos, cli.depth, counting, cli.rounds);
    }
    let choice = if cli.classical {
        SliderChoice::Classical
    } else {
        cli.sliders
    };
    // The one place the slider implementation is chosen: everything below is monomorphized.
    match choice {
        SliderChoice::Magic => run_perft::<Magic>(cli, pos, counting),
        SliderChoice::Classical => run_perft::<Classical>(cli, pos, counting),
        SliderChoice::Pext => run_pext(cli, pos, counting),
    }
}

#[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
fn run_pext(cli: &Cli, pos: Position, counting: Counting) -> Result<ExitCode> {
    run_perft::<perft::attacks::Pext>(cli, pos, counting)
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
fn run_pext(_: &Cli, _: Position, _: Counting) -> Result<ExitCode> {
    bail!(
        "this build has no PEXT sliders: it was compiled without BMI2. Rebuild with \
         RUSTFLAGS=\"-C target-cpu=native\" cargo build --release (on a CPU with BMI2)"
    )
}

fn counting_name(counting: Counting) -> &'static str {
    match counting {
        Counting::Bulk => "bulk counting",
        Counting::NoBulk => "no bulk counting",
    }
}

fn mnps(nodes: u64, elapsed: Duration) -> f64 {
    nodes as f64 / elapsed.as_secs_f64().max(1e-9) / 1e6
}

fn run_perft<S: Sliders>(cli: &Cli, mut pos: Position, counting: Counting) -> Result<ExitCode> {
    let start = Instant::now();
    let nodes = if cli.divide {
        let mut lines: Vec<(String, u64)> = divide::<S>(&mut pos, cli.depth.max(1), counting)
            .into_iter()
            .map(|(mv, n)| (mv.to_uci(pos.is_chess960()), n))
            .collect();
        lines.sort();
        let total: u64 = lines.iter().map(|(_, n)| n).sum();
        let total = if cli.depth == 0 { 1 } else { total };
        for (mv, n) in &lines {
            println!("{mv}: {n}");
        }
        println!();
        println!("Nodes searched: {total}");
        total
    } else {
        let nodes = perft::<S>(&mut pos, cli.depth, counting);
        println!("{nodes}");
        nodes
    };
    let elapsed = start.elapsed();
    eprintln!(
        "depth {} | {} nodes | {:.3} s | {:.1} Mnps | {}, {} sliders, 1 thread",
        cli.depth,
        nodes,
        elapsed.as_secs_f64(),
        mnps(nodes, elapsed),
        counting_name(counting),
        S::NAME
    );
    Ok(ExitCode::SUCCESS)
}

/// One implementation's entry in the comparison.
struct Contender {
    name: &'static str,
    run: fn(&mut Position, u32, Counting) -> u64,
    times: Vec<Duration>,
    nodes: Option<u64>,
}

fn contender<S: Sliders>() -> Contender {
    Contender {
        name: S::NAME,
        run: perft::<S>,
        times: Vec::new(),
        nodes: None,
    }
}

/// Runs the same perft with each slider implementation, alternating (A B A B ... then reversed
/// order on odd rounds), checks the counts agree and prints the medians.
fn compare(pos: &Position, depth: u32, counting: Counting, rounds: u32) -> Result<ExitCode> {
    let mut contenders = vec![contender::<Classical>(), contender::<Magic>()];
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    contenders.push(contender::<perft::attacks::Pext>());
    for round in 0..rounds {
        let order: Vec<usize> = if round % 2 == 0 {
            (0..contenders.len()).collect()
        } else {
            (0..contenders.len()).rev().collect()
        };
        for i in order {
            let c = &mut contenders[i];
            let mut p = pos.clone();
            let start = Instant::now();
            let n = (c.run)(&mut p, depth, counting);
            c.times.push(start.elapsed());
            if let Some(prev) = c.nodes
                && prev != n
            {
                bail!("{} gave {prev} then {n} nodes", c.name);
            }
            c.nodes = Some(n);
        }
    }
    let nodes = contenders[0].nodes.unwrap_or(0);
    let mut agree = true;
    for c in &contenders {
        if c.nodes != Some(nodes) {
            agree = false;
        }
    }
    let median = |c: &Contender| {
        let mut t = c.times.clone();
        t.sort();
        t[t.len() / 2]
    };
    let base = median(&contenders[0]);
    println!(
        "perft depth {depth}, {}, 1 thread, {rounds} rounds alternating, median time",
        counting_name(counting)
    );
    println!("{}", pos.to_fen());
    println!();
    println!(
        "{:<10} {:>15} {:>10} {:>9} {:>12}",
        "sliders", "nodes", "time (s)", "Mnps", "vs classical"
    );
    for c in &contenders {
        let t = median(c);
        println!(
            "{:<10} {:>15} {:>10.3} {:>9.1} {:>11.2}x",
            c.name,
            c.nodes.unwrap_or(0),
            t.as_secs_f64(),
            mnps(c.nodes.unwrap_or(0), t),
            base.as_secs_f64() / t.as_secs_f64().max(1e-9)
        );
    }
    if !agree {
        eprintln!("error: the implementations disagree on the node count");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn run_magics(seed: u64) -> Result<ExitCode> {
    let search = magic::find_magics(seed);
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
    let checked_r = magic::verify_magics(Slider::Rook, &rook);
    let checked_b = magic::verify_magics(Slider::Bishop, &bishop);
    match (checked_r, checked_b) {
        (Ok(r), Ok(b)) => println!(
            "verified: {} occupancy subsets, every one equal to the classical ray scan ({:.1} ms)",
            r + b,
            verify.elapsed().as_secs_f64() * 1e3
        ),
        (Err(sq), _) | (_, Err(sq)) => bail!("magic verification failed on {sq}"),
    }
    let shipped = rook == magic::ROOK_MAGICS && bishop == magic::BISHOP_MAGICS;
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
