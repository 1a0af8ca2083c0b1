//! Engines that are wrong in known ways, for testing `perft diff`. Our own generator underneath,
//! with one fault switched on by the arguments:
//!
//! - no fault named (or `--bug b8c6`): forgets the move b8c6 wherever the position after
//!   1. e4 e5 2. Nf3 occurs;
//! - `--bug ep-pin`: also plays en-passant captures that leave its own king in check;
//! - `--bug queen-only`: promotes to a queen only;
//! - `--bug none`: no fault in the move generation at all;
//! - `--hang-on BOARD`: asked about a root position whose FEN starts with BOARD, never answers;
//! - `--exit-on BOARD`: prints half of the answer, then exits with status 3;
//! - `--garbage-on BOARD`: prints lines that are not an answer;
//! - `--other-on BOARD`: answers for the start position instead;
//! - `--add N`: reports every move's count N higher (and the total as their sum), to give the
//!   page counts past what a JavaScript number holds exactly.
//!
//! It speaks UCI (just what `perft diff` sends), or with `--perftree` the perftree contract:
//! `fake_engine [options] --perftree <depth> "<fen>" "<moves>"`. An unknown option or a bad
//! value is an error (exit 2), so that a test never runs a fault it did not ask for.

use perft::movegen::play_uci_moves as play_moves;
use perft::movegen::{legal_moves, pseudo_legal_moves};
use perft::{Magic, Move, MoveKind, PieceKind, Position};
use std::io::{BufRead, Write};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Bug {
    B8c6,
    EpPin,
    QueenOnly,
    None,
}

struct Fake {
    bug: Bug,
    b8c6_key: u64,
    hang_on: Option<String>,
    exit_on: Option<String>,
    garbage_on: Option<String>,
    other_on: Option<String>,
    add: u64,
}

impl Fake {
    fn moves(&self, pos: &Position) -> Vec<Move> {
        let legal = legal_moves::<Magic>(pos);
        let mut moves: Vec<Move> = legal.iter().copied().collect();
        match self.bug {
            Bug::B8c6 => {
                moves.retain(|m| !(pos.key() == self.b8c6_key && m.to_uci(false) == "b8c6"))
            }
            Bug::EpPin => moves.extend(
                pseudo_legal_moves::<Magic>(pos)
                    .iter()
                    .filter(|m| m.kind() == MoveKind::EnPassant && !legal.contains(**m)),
            ),
            Bug::QueenOnly => moves.retain(|m| {
                m.promotion_piece()
                    .is_none_or(|piece| piece == PieceKind::Queen)
            }),
            Bug::None => {}
        }
        moves
    }

    fn perft(&self, pos: &mut Position, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mut n = 0;
        for mv in self.moves(pos) {
            let undo = pos.make(mv);
            n += self.perft(pos, depth - 1);
            pos.unmake(mv, &undo);
        }
        n
    }

    /// The answer's lines, `move count` each, and the total.
    fn divide(&self, pos: &mut Position, depth: u32) -> (Vec<(String, u64)>, u64) {
        let mut lines = Vec::new();
        for mv in self.moves(pos) {
            let undo = pos.make(mv);
            let n = self.perft(pos, depth.max(1) - 1);
            pos.unmake(mv, &undo);
            lines.push((mv.to_uci(pos.is_chess960()), n + self.add));
        }
        let total = lines.iter().map(|l| l.1).sum();
        (lines, total)
    }

    /// Answers a query about `fen` after `moves`; `sep` separates move and count.
    fn answer(&self, out: &mut impl Write, fen: &str, moves: &[&str], depth: u32, uci: bool) {
        let hits = |on: &Option<String>| on.as_ref().is_some_and(|b| fen.starts_with(b.as_str()));
        if hits(&self.hang_on) {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
        let fen = if hits(&self.other_on) {
            perft::position::STARTPOS
        } else {
            fen
        };
        let Ok(mut pos) = Position::from_fen(fen) else {
            return;
        };
        if play_moves(&mut pos, moves.iter().copied()).is_err() {
            return;
        }
        if hits(&self.garbage_on) {
            let _ = out.write_all(b"\xff\xfe garbage \x01\x02\n%%%%\ne2e4: twenty\n");
            let _ = out.flush();
            if uci {
                let _ = writeln!(out, "Nodes searched: ???");
            }
            return;
        }
        let (lines, total) = self.divide(&mut pos, depth);
        let sep = if uci { ": " } else { " " };
        for (i, (mv, n)) in lines.iter().enumerate() {
            if hits(&self.exit_on) && i == lines.len() / 2 {
                let _ = out.flush();
                std::process::exit(3);
            }
            let _ = writeln!(out, "{mv}{sep}{n}");
        }
        if uci {
            let _ = writeln!(out, "\nNodes searched: {total}\n");
        } else {
            let _ = writeln!(out, "\n{total}");
        }
        let _ = out.flush();
    }
}

/// A bad command line: what is wrong on stderr, exit status 2 (as our own binary does).
fn usage(what: &str) -> ! {
    eprintln!("fake_engine: {what}");
    std::process::exit(2)
}

fn main() {
    let mut b8c6 = Position::startpos();
    play_moves(&mut b8c6, ["e2e4", "e7e5", "g1f3"]).expect("the moves are legal");
    let mut fake = Fake {
        bug: Bug::B8c6,
        b8c6_key: b8c6.key(),
        hang_on: None,
        exit_on: None,
        garbage_on: None,
        other_on: None,
        add: 0,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    let mut perftree = None;
    while i < args.len() {
        let option = args[i].as_str();
        if option == "--perftree" {
            perftree = Some(args[i + 1..].to_vec());
            break;
        }
        let Some(value) = args.get(i + 1).cloned() else {
            usage(&format!("{option} wants a value"));
        };
        match option {
            "--bug" => {
                fake.bug = match value.as_str() {
                    "b8c6" => Bug::B8c6,
                    "ep-pin" => Bug::EpPin,
                    "queen-only" => Bug::QueenOnly,
                    "none" => Bug::None,
                    _ => usage(&format!(
                        "--bug {value}: not b8c6, ep-pin, queen-only or none"
                    )),
                }
            }
            "--hang-on" => fake.hang_on = Some(value),
            "--exit-on" => fake.exit_on = Some(value),
            "--garbage-on" => fake.garbage_on = Some(value),
            "--other-on" => fake.other_on = Some(value),
            "--add" => {
                fake.add = value
                    .parse()
                    .unwrap_or_else(|_| usage(&format!("--add {value}: not a whole number")));
            }
            _ => usage(&format!("unknown option {option}")),
        }
        i += 2;
    }
    let mut out = std::io::stdout();
    if let Some(args) = perftree {
        let Some(depth) = args.first().map(|d| d.parse()) else {
            usage("--perftree wants a depth");
        };
        let depth = depth.unwrap_or_else(|_| usage("--perftree: the depth is not a number"));
        let fen = args
            .get(1)
            .map_or(perft::position::STARTPOS, String::as_str);
        let moves: Vec<&str> = args
            .get(2)
            .map(|m| m.split_whitespace().collect())
            .unwrap_or_default();
        fake.answer(&mut out, fen, &moves, depth, false);
        return;
    }
    let mut position = (perft::position::STARTPOS.to_string(), Vec::<String>::new());
    for line in std::io::stdin().lock().lines().map_while(Result::ok) {
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
                let moves = rest[end..].iter().skip(1).map(|m| m.to_string()).collect();
                position = (rest[..end].join(" "), moves);
            }
            ["go", "perft", d] => {
                let depth: u32 = d.parse().unwrap_or(1);
                let moves: Vec<&str> = position.1.iter().map(String::as_str).collect();
                fake.answer(&mut out, &position.0, &moves, depth, true);
            }
            ["quit"] => break,
            _ => {}
        }
        let _ = out.flush();
    }
}
