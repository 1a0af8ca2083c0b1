//! A small UCI front end, so tools that drive engines over UCI can use our generator:
//! `uci`, `isready`, `ucinewgame`, `setoption name UCI_Chess960 value true|false`,
//! `position startpos|fen <FEN> [moves ...]`, `go perft <depth>`, `d` (show the position) and
//! `quit`. Unknown commands are ignored, as UCI requires; a bad position, move or option value is
//! reported as `info string error: ...`. After a refused `position` there is no position: `go
//! perft` and `d` say so until the next good one, rather than count a stale position.

use crate::attacks::Magic;
use crate::nodes::Nodes;
use crate::perft::{Perft, uci_lines};
use crate::position::{FenError, Position, STARTPOS};
use std::io::{self, BufRead, Write};

/// What `go perft` and `d` say after a refused `position` command.
const NO_POSITION: &str = "no position: the last 'position' command was refused; send a valid one";

/// How `go perft` counts: the divide of a position at a depth, as (UCI move, count) sorted by
/// move, or why there is none (said as `info string error: ...`).
pub type DivideResult = Result<Vec<(String, Nodes)>, String>;

/// The divide of [`Uci::new`]: one thread, no table, the widest code the CPU runs.
pub type PlainDivide = fn(&Position, u32) -> DivideResult;

fn plain_divide(pos: &Position, depth: u32) -> DivideResult {
    Ok(uci_lines(pos, Perft::new().divide::<Magic>(pos, depth)))
}

/// The engine state between commands, and how it counts (`D`, given the position and depth).
pub struct Uci<D = PlainDivide> {
    /// `None` after a refused `position` command.
    pos: Option<Position>,
    chess960: bool,
    divide: D,
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

impl Default for Uci<PlainDivide> {
    fn default() -> Uci {
        Uci::new()
    }
}

impl Uci<PlainDivide> {
    /// A fresh engine at the start position that counts on one thread, with no table.
    pub fn new() -> Uci<PlainDivide> {
        Uci::with_divide(plain_divide)
    }
}

impl<D: FnMut(&Position, u32) -> DivideResult> Uci<D> {
    /// A fresh engine at the start position whose `go perft` counts with `divide` (the command
    /// line's counting options: threads, table, sliders, code).
    pub fn with_divide(divide: D) -> Uci<D> {
        Uci {
            pos: Some(Position::startpos()),
            chess960: false,
            divide,
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
            Some("ucinewgame") => self.pos = Some(self.start()),
            Some("setoption") => {
                let rest: Vec<&str> = words.collect();
                match rest.as_slice() {
                    ["name", name, "value", value] if name.eq_ignore_ascii_case("UCI_Chess960") => {
                        if value.eq_ignore_ascii_case("true") {
                            self.chess960 = true;
                        } else if value.eq_ignore_ascii_case("false") {
                            self.chess960 = false;
                        } else {
                            writeln!(
                                out,
                                "info string error: UCI_Chess960 takes true or false, not '{value}'"
                            )?;
                        }
                    }
                    ["name", name, rest @ ..] if name.eq_ignore_ascii_case("UCI_Chess960") => {
                        let got = if rest.is_empty() {
                            "no value".to_string()
                        } else {
                            format!("'{}'", rest.join(" "))
                        };
                        writeln!(
                            out,
                            "info string error: UCI_Chess960 needs a value: 'setoption name \
                             UCI_Chess960 value true' or '... value false' (got {got})"
                        )?
                    }
                    ["name", name, ..] => writeln!(
                        out,
                        "info string error: unknown option '{name}' (the one option is UCI_Chess960)"
                    )?,
                    _ => writeln!(
                        out,
                        "info string error: expected 'setoption name <id> value <x>'"
                    )?,
                }
            }
            Some("position") => {
                let rest: Vec<&str> = words.collect();
                match self.parse_position(&rest) {
                    Ok(pos) => self.pos = Some(pos),
                    Err(e) => {
                        self.pos = None;
                        writeln!(out, "info string error: {e}")?;
                    }
                }
            }
            Some("go") => {
                let rest: Vec<&str> = words.collect();
                match rest.as_slice() {
                    ["perft", d] => match d.parse::<u32>() {
                        Ok(depth) if (1..=64).contains(&depth) => match &self.pos {
                            Some(pos) => match (self.divide)(pos, depth) {
                                Ok(lines) => go_perft_answer(&lines, out)?,
                                Err(e) => writeln!(out, "info string error: {e}")?,
                            },
                            None => writeln!(out, "info string error: {NO_POSITION}")?,
                        },
                        _ => writeln!(
                            out,
                            "info string error: bad perft depth '{d}' (a whole number from 1 to 64)"
                        )?,
                    },
                    _ => writeln!(out, "info string only 'go perft <depth>' is supported")?,
                }
            }
            Some("d") => match &self.pos {
                Some(pos) => {
                    for l in pos.pretty().lines() {
                        writeln!(out, "{l}")?;
                    }
                }
                None => writeln!(out, "info string error: {NO_POSITION}")?,
            },
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
            ["moves", moves @ ..] => {
                crate::movegen::play_uci_moves(&mut pos, moves.iter().copied())
                    .map_err(|(i, e)| PositionError::Move(i, e))?
            }
            _ => return Err(PositionError::Syntax("expected 'moves' after the position")),
        }
        Ok(pos)
    }
}

/// `go perft`'s answer in Stockfish's format: `move: count` lines, a blank line, `Nodes
/// searched: N`.
fn go_perft_answer(lines: &[(String, Nodes)], out: &mut impl Write) -> io::Result<()> {
    for (mv, n) in lines {
        writeln!(out, "{mv}: {n}")?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "Nodes searched: {}",
        lines.iter().map(|l| l.1).sum::<Nodes>()
    )?;
    writeln!(out)
}
