//! The count: `perft [--fen F] [--moves ...] --depth N [--divide]`, and the perftree form
//! `perft <depth> "<fen>" ["<moves>"]`.

use super::common::{
    MAX_DEPTH, Names, build_position, mnps, mnps_label, rules_label, setup_label, speed,
};
use super::config::{Counts, SliderJob};
use super::progress;
use anyhow::Result;
use perft::perft::{estimate_count, uci_lines};
use perft::{Nodes, Position, Sliders};
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args, Debug)]
// No argument group: see the flattened options in src/main.rs.
#[group(skip)]
pub struct Args {
    /// Depth in plies, 0 to 64 [default: 5].
    #[arg(long, short = 'd', conflicts_with = "suite",
          value_parser = clap::value_parser!(u32).range(0..=MAX_DEPTH as i64))]
    pub depth: Option<u32>,

    /// Print the count under each root move (`e2e4: 20`), then `Nodes searched: N`, as
    /// Stockfish's `go perft` does.
    #[arg(long)]
    pub divide: bool,

    /// Leaf statistics for every depth 1..N (depth 0: the root alone): captures, en passant,
    /// castles, promotions, checks (direct, discovered, double) and mates, as the Perft Results
    /// tables give them.
    /// With `--json`, one JSON document with the Grand Chess Tree's finer split.
    /// `--simd none` runs them in the baseline copy, any other choice in the x86-64-v3 copy:
    /// in AVX-512 lanes where they are chosen (the default on a CPU with them), else one board
    /// at a time.
    #[arg(long, conflicts_with_all = ["no_bulk", "compare", "suite", "bench", "magics"])]
    pub stats: bool,
}

impl Args {
    pub fn depth(&self) -> u32 {
        self.depth.unwrap_or(5)
    }
}

/// The perftree contract's positional arguments.
#[derive(clap::Args, Debug)]
pub struct TreeArgs {
    /// perftree form: the depth (then FEN and moves follow as positional arguments).
    #[arg(value_name = "DEPTH", conflicts_with_all = ["depth", "fen", "moves", "suite", "divide", "compare", "magics",
          "stats", "json", "bench"],
          value_parser = parse_tree_depth)]
    pub tree_depth: Option<u32>,

    /// perftree form: the FEN.
    #[arg(value_name = "FEN", requires = "tree_depth")]
    pub tree_fen: Option<String>,

    /// perftree form: the moves to play first, in one space-separated argument.
    #[arg(value_name = "MOVES", requires = "tree_fen")]
    pub tree_moves: Option<String>,
}

/// The perftree form's depth, 0 to 64. A word in its place is most likely a command mistyped
/// (`perft serv`): the error says so, naming the closest command.
fn parse_tree_depth(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(d) if d <= MAX_DEPTH => Ok(d),
        Ok(_) => Err(format!("the depth is 0 to {MAX_DEPTH}")),
        Err(_) if s.chars().all(|c| c.is_ascii_alphabetic() || c == '-') => {
            let hint = super::COMMANDS
                .iter()
                .map(|c| (edit_distance(s, c), c))
                .min()
                .filter(|(d, _)| *d <= 2)
                .map(|(_, c)| format!(": did you mean '{c}'?"))
                .unwrap_or_default();
            Err(format!(
                "'{s}' is not a command{hint} (the commands: {}; a number here is the depth of \
                 the perftree form, `perft <depth> \"<fen>\" [\"<moves>\"]`)",
                super::COMMANDS.join(", ")
            ))
        }
        Err(_) => Err(format!(
            "'{s}' is not a depth (a whole number from 0 to {MAX_DEPTH})"
        )),
    }
}

/// The number of single-character insertions, deletions and substitutions that turn `a` into `b`.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diagonal + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// `--fen`/`--depth` (with `--divide`, `--threads`, `--hash`).
pub struct Count {
    pub pos: Position,
    pub depth: u32,
    pub divide: bool,
    pub counts: Counts,
}

impl SliderJob for Count {
    fn run<S: Sliders>(self) -> Result<ExitCode> {
        let depth = self.depth;
        let table = self
            .counts
            .table(|| estimate_count::<S>(&self.pos, depth))?;
        let opts = self.counts.perft(table.as_ref());
        let start = Instant::now();
        // On a terminal a count that lasts shows the tasks done (nothing else changes).
        let lines = progress::watched(|watch| match (depth, watch) {
            // At depth 0 the one node is the position itself: no root move is counted.
            (0, _) => None,
            (_, None) if !self.divide => None,
            (_, None) => Some(uci_lines(&self.pos, opts.divide::<S>(&self.pos, depth))),
            (_, Some(watch)) => {
                let lines = opts.watch(watch).divide::<S>(&self.pos, depth);
                Some(uci_lines(&self.pos, lines.unwrap_or_default()))
            }
        });
        let nodes = match lines {
            Some(lines) => {
                let total: Nodes = lines.iter().map(|(_, n)| n).sum();
                if self.divide {
                    for (mv, n) in &lines {
                        println!("{mv}: {n}");
                    }
                    println!();
                    println!("Nodes searched: {total}");
                } else {
                    println!("{total}");
                }
                total
            }
            None if self.divide => {
                println!();
                println!("Nodes searched: 1");
                Nodes::ONE
            }
            None => {
                let nodes = opts.total::<S>(&self.pos, depth);
                println!("{nodes}");
                nodes
            }
        };
        let elapsed = start.elapsed();
        eprintln!(
            "depth {depth} | {nodes} nodes | {:.3} s | {} {} | {}{}",
            elapsed.as_secs_f64(),
            speed(mnps(nodes, elapsed)),
            mnps_label(&opts),
            setup_label(S::NAME, &opts),
            rules_label(&self.pos)
        );
        Ok(ExitCode::SUCCESS)
    }
}

/// The perftree form's position: the FEN and moves of its arguments.
pub fn perftree_position(tree: &TreeArgs, chess960: bool) -> Result<Position> {
    let moves: Vec<&str> = tree
        .tree_moves
        .as_deref()
        .unwrap_or("")
        .split_ascii_whitespace()
        .collect();
    let names = Names {
        moves: "the moves argument",
        chess960: "--chess960",
    };
    build_position(tree.tree_fen.as_deref(), chess960, &moves, &names)
}

/// The perftree contract: `move count` lines, a blank line, the total; nothing else on stdout.
/// Counted with the counting options (a wrapper script may pass `--hash` or `--threads` before
/// the depth).
pub struct Perftree {
    pub pos: Position,
    pub depth: u32,
    pub counts: Counts,
}

impl SliderJob for Perftree {
    fn run<S: Sliders>(self) -> Result<ExitCode> {
        if self.depth == 0 {
            println!();
            println!("1");
            return Ok(ExitCode::SUCCESS);
        }
        let table = self
            .counts
            .table(|| estimate_count::<S>(&self.pos, self.depth))?;
        let opts = self.counts.perft(table.as_ref());
        let lines = uci_lines(&self.pos, opts.divide::<S>(&self.pos, self.depth));
        for (mv, n) in &lines {
            println!("{mv} {n}");
        }
        println!();
        println!("{}", lines.iter().map(|l| l.1).sum::<Nodes>());
        Ok(ExitCode::SUCCESS)
    }
}
