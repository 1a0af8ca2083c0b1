//! `perft diff`: our generator as the reference for somebody else's engine.
//!
//! The other engine is driven over UCI (`position ... moves ...`, `go perft N`, reading the
//! `move: count` divide lines that Stockfish prints). Its divide is compared with ours; where a
//! root move's count differs, the search descends into it with one ply less, until it reaches the
//! position whose move list differs: the exact move sequence, the FEN, and the moves the engine
//! missed or invented there.

use crate::attacks::Magic;
use crate::perft::{Counting, Options, divide_uci};
use crate::position::Position;
use crate::uci::play_moves;
use std::collections::BTreeMap;
use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

/// What went wrong talking to the engine.
#[derive(Debug)]
pub enum DiffError {
    /// The engine could not be started.
    Spawn { command: String, error: String },
    /// Writing to the engine failed (it probably exited).
    Write(String),
    /// The engine printed nothing for too long.
    Timeout { waiting_for: String, seconds: u64 },
    /// The engine exited while we were waiting for it.
    Exited { waiting_for: String },
    /// The starting position or moves are not valid for us.
    Position(String),
}

impl fmt::Display for DiffError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DiffError::Spawn { command, error } => {
                write!(f, "cannot start engine '{command}': {error}")
            }
            DiffError::Write(e) => write!(f, "cannot write to the engine: {e}"),
            DiffError::Timeout {
                waiting_for,
                seconds,
            } => {
                write!(
                    f,
                    "the engine sent nothing for {seconds} s while we waited for {waiting_for}"
                )
            }
            DiffError::Exited { waiting_for } => {
                write!(f, "the engine exited while we waited for {waiting_for}")
            }
            DiffError::Position(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for DiffError {}

/// A UCI engine running as a child process.
pub struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    timeout: Duration,
}

/// One engine's divide: count per root move, and the total it printed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineDivide {
    pub moves: BTreeMap<String, u64>,
    pub total: Option<u64>,
}

impl Engine {
    /// Starts `command` (run by `sh -c`, so it may carry arguments) and completes the UCI
    /// handshake. `timeout` bounds each wait for a line of output.
    pub fn start(command: &str, timeout: Duration) -> Result<Engine, DiffError> {
        let spawn_error = |e: std::io::Error| DiffError::Spawn {
            command: command.into(),
            error: e.to_string(),
        };
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!("exec {command}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(spawn_error)?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            return Err(DiffError::Spawn {
                command: command.into(),
                error: "no pipes".into(),
            });
        };
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut engine = Engine {
            child,
            stdin,
            lines,
            timeout,
        };
        engine.send("uci")?;
        engine.wait_for("uciok", |l| l.trim() == "uciok")?;
        engine.ready()?;
        Ok(engine)
    }

    fn send(&mut self, line: &str) -> Result<(), DiffError> {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|e| {
                if e.kind() == std::io::ErrorKind::BrokenPipe {
                    DiffError::Exited {
                        waiting_for: format!("it to read '{line}'"),
                    }
                } else {
                    DiffError::Write(e.to_string())
                }
            })
    }

    /// Reads lines until one satisfies `done`; returns all lines read, that one included.
    fn wait_for(
        &mut self,
        what: &str,
        done: impl Fn(&str) -> bool,
    ) -> Result<Vec<String>, DiffError> {
        let mut got = Vec::new();
        loop {
            match self.lines.recv_timeout(self.timeout) {
                Ok(line) => {
                    let finished = done(&line);
                    got.push(line);
                    if finished {
                        return Ok(got);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(DiffError::Timeout {
                        waiting_for: what.into(),
                        seconds: self.timeout.as_secs(),
                    });
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(DiffError::Exited {
                        waiting_for: what.into(),
                    });
                }
            }
        }
    }

    fn ready(&mut self) -> Result<(), DiffError> {
        self.send("isready")?;
        self.wait_for("readyok", |l| l.trim() == "readyok")
            .map(|_| ())
    }

    /// Sets the engine's `UCI_Chess960` option.
    pub fn set_chess960(&mut self, on: bool) -> Result<(), DiffError> {
        self.send(&format!("setoption name UCI_Chess960 value {on}"))?;
        self.ready()
    }

    /// The engine's divide of `fen` after `moves`, to `depth`.
    pub fn divide(
        &mut self,
        fen: &str,
        moves: &[String],
        depth: u32,
    ) -> Result<EngineDivide, DiffError> {
        let mut cmd = format!("position fen {fen}");
        if !moves.is_empty() {
            cmd.push_str(" moves ");
            cmd.push_str(&moves.join(" "));
        }
        self.send(&cmd)?;
        self.send(&format!("go perft {depth}"))?;
        let lines = self.wait_for("'Nodes searched'", |l| {
            l.trim_start().starts_with("Nodes searched")
        })?;
        let mut result = EngineDivide::default();
        for line in &lines {
            let line = line.trim();
            if let Some(total) = line.strip_prefix("Nodes searched:") {
                result.total = total.trim().parse().ok();
            } else if let Some((mv, n)) = line.split_once(':').or_else(|| line.split_once(' '))
                && is_uci_move(mv.trim())
                && let Ok(n) = n.trim().parse::<u64>()
            {
                result.moves.insert(mv.trim().to_string(), n);
            }
        }
        Ok(result)
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.send("quit");
        // Give it a moment to leave on its own, then make sure it is gone.
        for _ in 0..20 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn is_uci_move(s: &str) -> bool {
    let b = s.as_bytes();
    (b.len() == 4 || b.len() == 5)
        && matches!(b[0], b'a'..=b'h')
        && matches!(b[1], b'1'..=b'8')
        && matches!(b[2], b'a'..=b'h')
        && matches!(b[3], b'1'..=b'8')
}

/// One level of the descent.
#[derive(Clone, Debug)]
pub struct Step {
    /// Moves from the root to this position.
    pub moves: Vec<String>,
    pub depth: u32,
    pub ours: u64,
    pub theirs: Option<u64>,
    /// The root move whose count differs, that the search follows (none at the last step).
    pub follow: Option<(String, u64, u64)>,
}

/// How the search ended.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// Every count agrees at the requested depth.
    Agree { nodes: u64 },
    /// Found the position whose legal moves the engine gets wrong.
    MoveListDiffers {
        moves: Vec<String>,
        fen: String,
        missed: Vec<String>,
        invented: Vec<String>,
    },
    /// Every move matches but the engine's total is not the sum of its own lines.
    TotalDiffers {
        moves: Vec<String>,
        fen: String,
        ours: u64,
        theirs: Option<u64>,
    },
    /// The engine's counts changed between calls, or depth 1 counts are not 1.
    Inconsistent {
        moves: Vec<String>,
        fen: String,
        detail: String,
    },
}

/// The full result: the descent and its outcome.
#[derive(Clone, Debug)]
pub struct Report {
    pub steps: Vec<Step>,
    pub outcome: Outcome,
}

/// Descends from `fen` after `moves` at `depth` to the first position where `engine` and our
/// generator disagree on the legal moves.
pub fn find_divergence(
    engine: &mut Engine,
    fen: &str,
    chess960: bool,
    moves: &[String],
    depth: u32,
) -> Result<Report, DiffError> {
    let root = Position::from_fen_with(fen, chess960)
        .map_err(|e| DiffError::Position(format!("invalid FEN: {e}")))?;
    // Send the FEN in our printing (keeps the castling notation, always 6 fields).
    let root_fen = root.to_fen();
    engine.set_chess960(root.is_chess960())?;
    let mut path: Vec<String> = moves.to_vec();
    let mut depth = depth.max(1);
    let mut steps = Vec::new();
    loop {
        let mut pos = root.clone();
        play_moves(&mut pos, path.iter().map(String::as_str))
            .map_err(|(i, e)| DiffError::Position(format!("move {i}: {e}")))?;
        let ours: BTreeMap<String, u64> =
            divide_uci::<Magic>(&pos, depth, Options::single(Counting::Bulk))
                .into_iter()
                .collect();
        let theirs = engine.divide(&root_fen, &path, depth)?;
        let ours_total: u64 = ours.values().sum();
        let mut step = Step {
            moves: path.clone(),
            depth,
            ours: ours_total,
            theirs: theirs.total,
            follow: None,
        };
        let missed: Vec<String> = ours
            .keys()
            .filter(|m| !theirs.moves.contains_key(*m))
            .cloned()
            .collect();
        let invented: Vec<String> = theirs
            .moves
            .keys()
            .filter(|m| !ours.contains_key(*m))
            .cloned()
            .collect();
        let fen = pos.to_fen();
        if !missed.is_empty() || !invented.is_empty() {
            steps.push(step);
            return Ok(Report {
                steps,
                outcome: Outcome::MoveListDiffers {
                    moves: path,
                    fen,
                    missed,
                    invented,
                },
            });
        }
        let differing = ours.iter().find(|(m, n)| theirs.moves.get(*m) != Some(n));
        let outcome = match differing {
            Some((mv, &n)) if depth > 1 => {
                step.follow = Some((mv.clone(), theirs.moves[mv], n));
                steps.push(step);
                path.push(mv.clone());
                depth -= 1;
                continue;
            }
            Some((mv, _)) => Outcome::Inconsistent {
                moves: path,
                fen,
                detail: format!("at depth 1 the engine counts {} for {mv}", theirs.moves[mv]),
            },
            None if theirs.total != Some(ours_total) => Outcome::TotalDiffers {
                moves: path,
                fen,
                ours: ours_total,
                theirs: theirs.total,
            },
            None if steps.is_empty() => Outcome::Agree { nodes: ours_total },
            None => Outcome::Inconsistent {
                moves: path,
                fen,
                detail: "the counts differed one level up but all agree here".to_string(),
            },
        };
        steps.push(step);
        return Ok(Report { steps, outcome });
    }
}
