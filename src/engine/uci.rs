//! A UCI engine: one process kept running; each query is `isready`, `position fen ... moves
//! ...`, `go perft <depth>`, and the answer read up to the `Nodes searched` line.

use super::answer::{Line, add, cut, note, parse_line};
use super::process::{Group, StderrTail, Waited, line_reader, next_line};
use super::{EngineError, MAX_LINES};
use crate::nodes::Nodes;
use crate::validate::Divide;
use std::io::Write;
use std::process::ChildStdin;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// A UCI engine process.
pub(super) struct UciProcess {
    child: Group,
    stderr: StderrTail,
    stdin: ChildStdin,
    lines: Receiver<String>,
    chess960: Option<bool>,
    timeout: Duration,
}

impl UciProcess {
    pub(super) fn start(
        command: &str,
        timeout: Duration,
        stop: &dyn Fn() -> bool,
    ) -> Result<UciProcess, EngineError> {
        let mut child = Group::spawn(command, &[], true)?;
        let stderr = StderrTail::collect(&mut child);
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            child.kill();
            return Err(EngineError::Start("no pipes to the engine".into()));
        };
        let mut p = UciProcess {
            child,
            stderr,
            stdin,
            lines: line_reader(stdout),
            chess960: None,
            timeout,
        };
        let deadline = Instant::now() + timeout;
        let handshake = p
            .send("uci")
            .and_then(|_| p.wait_for("uciok", deadline, stop, |l| l.trim() == "uciok"))
            .and_then(|_| p.sync(deadline, stop));
        match handshake {
            Ok(()) => Ok(p),
            Err(EngineError::Stopped) => Err(EngineError::Stopped),
            Err(e) => Err(EngineError::Start(match e {
                EngineError::Timeout(_) => format!(
                    "it sent nothing for {} s of the UCI handshake (uci/uciok, isready/readyok)",
                    timeout.as_secs_f64()
                ),
                EngineError::Crashed(e) => format!("{e} during the UCI handshake"),
                other => other.to_string(),
            })),
        }
    }

    pub(super) fn send(&mut self, line: &str) -> Result<(), EngineError> {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|_| {
                let why = self.stderr.exit(&mut self.child);
                EngineError::Crashed(format!("it exited ({why}) before reading '{line}'"))
            })
    }

    /// Reads lines until one satisfies `done`, passing each line to `each`.
    pub(super) fn read_until(
        &mut self,
        what: &str,
        deadline: Instant,
        stop: &dyn Fn() -> bool,
        mut each: impl FnMut(&str) -> Result<bool, EngineError>,
    ) -> Result<(), EngineError> {
        let mut count = 0usize;
        loop {
            match next_line(&self.lines, deadline, stop) {
                Ok(line) => {
                    count += 1;
                    if each(&line)? {
                        return Ok(());
                    }
                    if count > MAX_LINES {
                        return Err(EngineError::Garbage(format!(
                            "more than {MAX_LINES} lines without {what}"
                        )));
                    }
                }
                Err(Waited::Timeout) => return Err(EngineError::Timeout(self.timeout)),
                Err(Waited::Stopped) => return Err(EngineError::Stopped),
                Err(Waited::Closed) => {
                    let status = self.stderr.exit(&mut self.child);
                    return Err(EngineError::Crashed(format!(
                        "it exited ({status}) after {count} lines, before {what}"
                    )));
                }
            }
        }
    }

    pub(super) fn wait_for(
        &mut self,
        what: &str,
        deadline: Instant,
        stop: &dyn Fn() -> bool,
        done: impl Fn(&str) -> bool,
    ) -> Result<(), EngineError> {
        self.read_until(what, deadline, stop, |l| Ok(done(l)))
    }

    /// `isready` / `readyok`: everything the engine printed before is dropped.
    pub(super) fn sync(
        &mut self,
        deadline: Instant,
        stop: &dyn Fn() -> bool,
    ) -> Result<(), EngineError> {
        self.send("isready")?;
        self.wait_for("readyok", deadline, stop, |l| l.trim() == "readyok")
    }

    pub(super) fn divide(
        &mut self,
        fen: &str,
        chess960: bool,
        moves: &[String],
        depth: u32,
        stop: &dyn Fn() -> bool,
    ) -> Result<Divide, EngineError> {
        let deadline = Instant::now() + self.timeout;
        if self.chess960 != Some(chess960) {
            self.send(&format!("setoption name UCI_Chess960 value {chess960}"))?;
            self.chess960 = Some(chess960);
        }
        self.sync(deadline, stop)?;
        let mut cmd = format!("position fen {fen}");
        if !moves.is_empty() {
            cmd.push_str(" moves ");
            cmd.push_str(&moves.join(" "));
        }
        self.send(&cmd)?;
        self.send(&format!("go perft {depth}"))?;
        let mut answer = Divide::default();
        let mut total = None;
        self.read_until("'Nodes searched: N'", deadline, stop, |line| {
            if let Some(rest) = line.trim_start().strip_prefix("Nodes searched") {
                let n = rest.trim_start_matches(':').trim();
                total = Some(n.parse::<Nodes>().map_err(|_| {
                    EngineError::Garbage(format!("'{}': the total is not a number", cut(line)))
                })?);
                return Ok(true);
            }
            match parse_line(line).map_err(EngineError::Garbage)? {
                Line::Move(mv, n) => add(&mut answer, mv, n)?,
                Line::Blank => {}
                Line::Other if line.trim_start().starts_with("info") => {}
                Line::Other => note(&mut answer, line),
            }
            Ok(false)
        })?;
        answer.total = total.unwrap_or_default();
        Ok(answer)
    }
}

impl Drop for UciProcess {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit").and_then(|_| self.stdin.flush());
        // A moment to leave on its own, then make sure it is gone.
        for _ in 0..20 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        self.child.kill();
    }
}
