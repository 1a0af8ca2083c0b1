//! `peers <shakmaty|cozy|chess> <depth> "<fen>"`: perft of the position with one of the Rust
//! move generators perft is compared with, each through the fastest way its library offers
//! (bulk counting at the last ply: the legal moves of a depth-1 node are counted, not made).
//! Prints `nodes=N secs=S`, the time of the count alone (parsing and start-up left out).

use std::process::ExitCode;
use std::time::Instant;

fn shakmaty_perft(fen: &str, depth: u32) -> Result<u64, String> {
    use shakmaty::{CastlingMode, Chess, fen::Fen};
    let setup: Fen = fen.parse().map_err(|e| format!("{e}"))?;
    let pos: Chess = setup
        .into_position(CastlingMode::Standard)
        .map_err(|e| format!("{e}"))?;
    Ok(shakmaty::perft(&pos, depth))
}

fn cozy_perft(fen: &str, depth: u32) -> Result<u64, String> {
    fn count(board: &cozy_chess::Board, depth: u32) -> u64 {
        let mut nodes = 0;
        if depth == 1 {
            board.generate_moves(|moves| {
                nodes += moves.len() as u64;
                false
            });
        } else {
            board.generate_moves(|moves| {
                for mv in moves {
                    let mut child = board.clone();
                    child.play_unchecked(mv);
                    nodes += count(&child, depth - 1);
                }
                false
            });
        }
        nodes
    }
    let board: cozy_chess::Board = fen.parse().map_err(|e| format!("{e:?}"))?;
    Ok(if depth == 0 { 1 } else { count(&board, depth) })
}

fn chess_perft(fen: &str, depth: u32) -> Result<u64, String> {
    let board: chess::Board = fen.parse().map_err(|e| format!("{e}"))?;
    Ok(if depth == 0 {
        1
    } else {
        chess::MoveGen::movegen_perft_test(&board, depth as usize) as u64
    })
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [lib, depth, fen] = args.as_slice() else {
        eprintln!("usage: peers <shakmaty|cozy|chess> <depth> \"<fen>\"");
        return ExitCode::from(2);
    };
    let Ok(depth) = depth.parse::<u32>() else {
        eprintln!("depth must be a number, not {depth:?}");
        return ExitCode::from(2);
    };
    let count = match lib.as_str() {
        "shakmaty" => shakmaty_perft,
        "cozy" => cozy_perft,
        "chess" => chess_perft,
        other => {
            eprintln!("unknown library {other:?}: shakmaty, cozy or chess");
            return ExitCode::from(2);
        }
    };
    let start = Instant::now();
    match count(fen, depth) {
        Ok(nodes) => {
            println!("nodes={nodes} secs={:.6}", start.elapsed().as_secs_f64());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{lib} refused the position: {e}");
            ExitCode::from(2)
        }
    }
}
