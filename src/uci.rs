//! A small UCI front end, so tools that drive engines over UCI can use our generator:
//! `uci`, `isready`, `ucinewgame`, `setoption name UCI_Chess960 value true|false`,
//! `position startpos|fen <FEN> [moves ...]`, `go perft <depth>`, `d` (show the position) and
//! `quit`. Unknown commands are ignored, as UCI requires; a bad position or move is reported as
//! `info string error: ...` and leaves the previous position in place.

use crate::attacks::Magic;
use crate::movegen::parse_uci_move;
use crate::perft::{Counting, Options, divide_uci};
use crate::position::{FenError, Position, STARTPOS};
use std::io::{self, BufRead, Write};

/// The engine state between commands.
#[derive(Default)]
pub struct Uci {
    pos: Position,
    chess960: bool,
}

/// Why a `position` command was not applied.
#[derive(Debug)]
enum PositionError {
    Fen(FenError),
    Move(usize, String),
    Syntax(&'static str),
}

impl std::fmt::Display for PositionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PositionError::Fen(e) => write!(f, "invalid FEN: {e}"),
            PositionError::Move(i, e) => write!(f, "move {i}: {e}"),
            PositionError::Syntax(s) => write!(f, "{s}"),
        }
    }
}

/// Plays UCI `moves` on `pos`; the error names the first bad move and its 1-based index.
pub fn play_moves<'a>(
    pos: &mut Position,
    moves: impl IntoIterator<Item = &'a str>,
) -> Result<(), (usize, String)> {
    for (i, m) in moves.into_iter().enumerate() {
        let mv = parse_uci_move::<Magic>(pos, m).map_err(|e| (i + 1, e.to_string()))?;
        pos.make(mv);
    }
    Ok(())
}

impl Uci {
    /// A fresh engine at the start position.
    pub fn new() -> Uci {
        Uci {
            pos: Position::startpos(),
            chess960: false,
        }
    }

    /// Reads commands from `input` until `quit` or the end, writing answers to `output`.
    pub fn run(&mut self, input: impl BufRead, mut output: impl Write) -> io::Result<()> {
        for line in input.lines() {
            let line = match line {
                Ok(l) => l,
                // A line that is not UTF-8 is not a command: ignore it like any unknown one.
                Err(e) if e.kind() == io::ErrorKind::InvalidData => continue,
                Err(e) => return Err(e),
            };
            if !self.command(&line, &mut output)? {
                break;
            }
            output.flush()?;
        }
        Ok(())
    }

    /// Handles one command line; `false` on `quit`.
    pub fn command(&mut self, line: &str, out: &mut impl Write) -> io::Result<bool> {
        let mut words = line.split_ascii_whitespace();
        match words.next() {
            Some("uci") => {
                writeln!(out, "id name perft {}", env!("CARGO_PKG_VERSION"))?;
                writeln!(out, "id author the perft developers")?;
                writeln!(out, "option name UCI_Chess960 type check default false")?;
                writeln!(out, "uciok")?;
            }
            Some("isready") => writeln!(out, "readyok")?,
            Some("ucinewgame") => self.pos = self.start(),
            Some("setoption") => {
                let rest: Vec<&str> = words.collect();
                if let ["name", name, "value", value] = rest.as_slice()
                    && name.eq_ignore_ascii_case("UCI_Chess960")
                {
                    self.chess960 = value.eq_ignore_ascii_case("true");
                }
            }
            Some("position") => {
                let rest: Vec<&str> = words.collect();
                match self.parse_position(&rest) {
                    Ok(pos) => self.pos = pos,
                    Err(e) => writeln!(out, "info string error: {e}")?,
                }
            }
            Some("go") => {
                let rest: Vec<&str> = words.collect();
                match rest.as_slice() {
                    ["perft", d] => match d.parse::<u32>() {
                        Ok(depth) if (1..=64).contains(&depth) => self.go_perft(depth, out)?,
                        _ => writeln!(out, "info string error: bad perft depth '{d}'")?,
                    },
                    _ => writeln!(out, "info string only 'go perft <depth>' is supported")?,
                }
            }
            Some("d") => {
                for l in self.pos.pretty().lines() {
                    writeln!(out, "{l}")?;
                }
            }
            Some("quit") => return Ok(false),
            _ => {}
        }
        Ok(true)
    }

    fn start(&self) -> Position {
        // STARTPOS is valid in both modes.
        Position::from_fen_with(STARTPOS, self.chess960).unwrap_or_else(|_| Position::startpos())
    }

    fn parse_position(&self, words: &[&str]) -> Result<Position, PositionError> {
        let (mut pos, rest) = match words {
            ["startpos", rest @ ..] => (self.start(), rest),
            ["fen", rest @ ..] => {
                let end = rest
                    .iter()
                    .position(|w| *w == "moves")
                    .unwrap_or(rest.len());
                let fen = rest[..end].join(" ");
                let pos =
                    Position::from_fen_with(&fen, self.chess960).map_err(PositionError::Fen)?;
                (pos, &rest[end..])
            }
            _ => {
                return Err(PositionError::Syntax(
                    "expected 'position startpos' or 'position fen <FEN>'",
                ));
            }
        };
        match rest {
            [] => {}
            ["moves", moves @ ..] => play_moves(&mut pos, moves.iter().copied())
                .map_err(|(i, e)| PositionError::Move(i, e))?,
            _ => return Err(PositionError::Syntax("expected 'moves' after the position")),
        }
        Ok(pos)
    }

    /// Divide in Stockfish's format: `move: count` lines, a blank line, `Nodes searched: N`.
    fn go_perft(&mut self, depth: u32, out: &mut impl Write) -> io::Result<()> {
        let lines = divide_uci::<Magic>(&self.pos, depth, Options::single(Counting::Bulk));
        for (mv, n) in &lines {
            writeln!(out, "{mv}: {n}")?;
        }
        writeln!(out)?;
        writeln!(
            out,
            "Nodes searched: {}",
            lines.iter().map(|l| l.1).sum::<u64>()
        )?;
        writeln!(out)
    }
}
