//! A UCI engine that is wrong in one known place, for testing `perft diff`: wherever the position
//! after 1. e4 e5 2. Nf3 occurs in its search, it forgets the move b8c6. Everything else is our
//! own generator. It understands just what `perft diff` sends.

use perft::movegen::legal_moves;
use perft::uci::play_moves;
use perft::{Magic, Move, Position};
use std::io::{BufRead, Write};

fn moves(pos: &Position, bug_key: u64) -> Vec<Move> {
    let all = legal_moves::<Magic>(pos);
    all.iter()
        .copied()
        .filter(|m| !(pos.key() == bug_key && m.to_uci(false) == "b8c6"))
        .collect()
}

fn perft(pos: &mut Position, depth: u32, bug_key: u64) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut n = 0;
    for mv in moves(pos, bug_key) {
        let undo = pos.make(mv);
        n += perft(pos, depth - 1, bug_key);
        pos.unmake(mv, &undo);
    }
    n
}

fn main() {
    let mut bugged = Position::startpos();
    play_moves(&mut bugged, ["e2e4", "e7e5", "g1f3"]).expect("the moves are legal");
    let bug_key = bugged.key();
    let mut pos = Position::startpos();
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    for line in stdin.lock().lines().map_while(Result::ok) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["uci"] => {
                let _ = writeln!(out, "id name fake\nuciok");
            }
            ["isready"] => {
                let _ = writeln!(out, "readyok");
            }
            ["position", "fen", rest @ ..] => {
                let end = rest
                    .iter()
                    .position(|w| *w == "moves")
                    .unwrap_or(rest.len());
                if let Ok(p) = Position::from_fen(&rest[..end].join(" ")) {
                    pos = p;
                    let _ = play_moves(&mut pos, rest[end..].iter().skip(1).copied());
                }
            }
            ["go", "perft", d] => {
                let depth: u32 = d.parse().unwrap_or(1);
                let mut total = 0;
                for mv in moves(&pos, bug_key) {
                    let undo = pos.make(mv);
                    let n = perft(&mut pos, depth - 1, bug_key);
                    pos.unmake(mv, &undo);
                    total += n;
                    let _ = writeln!(out, "{}: {n}", mv.to_uci(false));
                }
                let _ = writeln!(out, "\nNodes searched: {total}\n");
            }
            ["quit"] => break,
            _ => {}
        }
        let _ = out.flush();
    }
}
