//! `perft diff`: find where another engine's perft goes wrong.

use super::common::{MAX_DEPTH, build_position};
use anyhow::Result;
use perft::diff::{Engine, Outcome, find_divergence};
use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The engine's command line (run by `sh -c`), e.g. "stockfish" or "./myengine --uci".
    #[arg(long)]
    pub engine: String,

    /// Starting position; default: the start position.
    #[arg(long, short = 'f')]
    pub fen: Option<String>,

    /// Moves to play from it first (UCI notation).
    #[arg(long, num_args = 1.., value_name = "MOVE")]
    pub moves: Vec<String>,

    /// Depth to compare at, 1 to 64.
    #[arg(long, short = 'd', value_parser = clap::value_parser!(u32).range(1..=MAX_DEPTH as i64))]
    pub depth: u32,

    /// Chess960 castling rules (also selected by Shredder-FEN castling letters).
    #[arg(long)]
    pub chess960: bool,

    /// Seconds to wait for each line of the engine's output.
    #[arg(long, default_value_t = 600)]
    pub timeout: u64,
}

/// `moves` joined, or `(none)`.
fn line(moves: &[String]) -> String {
    if moves.is_empty() {
        "(none)".to_string()
    } else {
        moves.join(" ")
    }
}

pub fn run(args: &Args) -> Result<ExitCode> {
    let fen = args.fen.as_deref().unwrap_or(perft::position::STARTPOS);
    let moves: Vec<String> = args
        .moves
        .iter()
        .flat_map(|m| m.split_ascii_whitespace())
        .map(String::from)
        .collect();
    // Validate the input before starting the engine.
    let refs: Vec<&str> = moves.iter().map(String::as_str).collect();
    build_position(Some(fen), args.chess960, &refs)?;
    let mut engine = Engine::start(&args.engine, Duration::from_secs(args.timeout.max(1)))?;
    let report = find_divergence(&mut engine, fen, args.chess960, &moves, args.depth)?;
    let mut out = std::io::stdout().lock();
    for step in &report.steps {
        let path = if step.moves.is_empty() {
            "(root)".to_string()
        } else {
            step.moves.join(" ")
        };
        let theirs = step.theirs.map_or("?".to_string(), |t| t.to_string());
        writeln!(
            out,
            "depth {}: {path}: engine {theirs}, perft {}",
            step.depth, step.ours
        )?;
        if let Some((mv, theirs, ours)) = &step.follow {
            writeln!(
                out,
                "  {mv}: engine {theirs}, perft {ours} -> descending into {mv}"
            )?;
        }
    }
    writeln!(out)?;
    match report.outcome {
        Outcome::Agree { nodes } => {
            writeln!(
                out,
                "no difference: both count {nodes} nodes at depth {}",
                args.depth
            )?;
            Ok(ExitCode::SUCCESS)
        }
        Outcome::MoveListDiffers {
            moves,
            fen,
            missed,
            invented,
        } => {
            writeln!(
                out,
                "the engine's legal moves differ after: {}",
                line(&moves)
            )?;
            writeln!(out, "FEN: {fen}")?;
            writeln!(out, "moves the engine missed:   {}", line(&missed))?;
            writeln!(out, "moves the engine invented: {}", line(&invented))?;
            Ok(ExitCode::from(1))
        }
        Outcome::TotalDiffers {
            moves,
            fen,
            ours,
            theirs,
        } => {
            writeln!(
                out,
                "after {}: every move's count agrees, but the engine's total is {} (sum {ours})",
                line(&moves),
                theirs.map_or("missing".to_string(), |t| t.to_string())
            )?;
            writeln!(out, "FEN: {fen}")?;
            Ok(ExitCode::from(1))
        }
        Outcome::Inconsistent { moves, fen, detail } => {
            writeln!(
                out,
                "the engine is inconsistent after {}: {detail}",
                line(&moves)
            )?;
            writeln!(out, "FEN: {fen}")?;
            Ok(ExitCode::from(1))
        }
    }
}
