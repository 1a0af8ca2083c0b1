//! A deliberately broken generator checked against this library: it promotes only to a queen.
//! The check runs the Chess Programming Wiki's positions against it, finds the first count
//! that differs from the published one, and descends to the position where the generator's
//! legal moves differ, naming the moves it missed there.
//!
//! Run with `cargo run --release -p perft --example broken_generator`.

use perft::validate::{self, Limits, Suite};
use perft::{Magic, Position};

/// The generator under test: given a FEN, its legal moves in UCI notation. Here it is this
/// library's own generator with the underpromotions dropped, standing in for yours.
fn my_legal_moves(fen: &str, chess960: bool) -> Vec<String> {
    let pos = Position::from_fen_with(fen, chess960).expect("the check sends valid FENs");
    perft::movegen::legal_moves::<Magic>(&pos)
        .iter()
        .map(|m| m.to_uci(chess960))
        .filter(|uci| !uci.ends_with(['r', 'b', 'n']))
        .collect()
}

fn main() {
    let limits = Limits {
        max_depth: 4,
        max_nodes: 1_000_000,
    };
    let mut generator = my_legal_moves;
    match validate::check(&mut generator, &Suite::STANDARD, limits) {
        Ok(result) => {
            println!("{result}");
            std::process::exit(if result.passed() { 0 } else { 1 });
        }
        Err(e) => {
            eprintln!("the generator cannot be asked: {e}");
            std::process::exit(2);
        }
    }
}
