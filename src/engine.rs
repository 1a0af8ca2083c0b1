//! Another engine, run as a child process and asked for its perft divide.
//!
//! Two ways to talk to it:
//! - **UCI** ([`Protocol::Uci`]): one process kept running; each query is `isready` (to drop
//!   anything left over), `position fen <FEN> [moves ...]`, `go perft <depth>`, and the answer is
//!   read up to Stockfish's `Nodes searched: N` line.
//! - **perftree** ([`Protocol::Perftree`]): one process per query, run as
//!   `CMD <depth> "<fen>" "<moves>"`; it prints `move count` lines, a blank line and the total,
//!   then exits.
//!
//! Every query has a deadline, and may be stopped before it ([`Engine::divide_unless`]). An
//! engine that exits mid-answer, misses the deadline, prints what cannot be read, or is stopped
//! is killed (its whole process group) and started afresh on the next query; the query reports
//! an [`EngineError`] and the caller goes on with the next position.

use crate::nodes::Nodes;
use crate::types::Square;
use crate::validate::Divide;
use std::collections::VecDeque;
use std::fmt;
use std::io::{BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How the engine is driven.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// `position ...` and `go perft N` over stdin/stdout, one process for every query.
    Uci,
    /// `CMD <depth> "<fen>" "<moves>"`, one process per query.
    Perftree,
}

/// Why a query got no answer we can use. Only [`EngineError::Start`] means the engine cannot be
/// run at all; after the others the engine is restarted for the next query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    /// The engine could not be started, or did not complete the UCI handshake.
    Start(String),
    /// It exited (or closed its output) before the answer was complete.
    Crashed(String),
    /// No complete answer within the time limit; the engine was killed.
    Timeout(Duration),
    /// The answer could not be read.
    Garbage(String),
    /// The caller stopped the query before the answer was complete; the engine was killed if
    /// the query had been sent.
    Stopped,
}

impl EngineError {
    /// A one-word name for summaries and JSON.
    pub fn kind(&self) -> &'static str {
        match self {
            EngineError::Start(_) => "start",
            EngineError::Crashed(_) => "crashed",
            EngineError::Timeout(_) => "timeout",
            EngineError::Garbage(_) => "garbage",
            EngineError::Stopped => "stopped",
        }
    }
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Start(e) => write!(f, "the engine could not be started: {e}"),
            EngineError::Crashed(e) => write!(f, "the engine crashed: {e}"),
            EngineError::Timeout(t) => write!(
                f,
                "the engine did not answer within {} s and was killed",
                t.as_secs_f64()
            ),
            EngineError::Garbage(e) => write!(f, "the engine's answer cannot be read: {e}"),
            EngineError::Stopped => write!(f, "the query was stopped before the engine answered"),
        }
    }
}

impl std::error::Error for EngineError {}

/// Lines kept in [`Divide::unread`].
const UNREAD_KEPT: usize = 3;
/// An answer longer than this is garbage (a divide has at most 218 move lines).
const MAX_LINES: usize = 100_000;
/// A line longer than this is cut there.
const MAX_LINE: usize = 64 * 1024;
/// How often a query waiting on the engine asks whether it should stop.
const STOP_POLL: Duration = Duration::from_millis(20);

/// Never stops a query.
fn never() -> bool {
    false
}

/// The engine: a command line and a protocol, with the running process if UCI.
pub struct Engine {
    command: String,
    protocol: Protocol,
    timeout: Duration,
    uci: Option<UciProcess>,
    starts: usize,
}

impl Engine {
    /// An engine to be run as `command` (by `sh -c`, so it may carry arguments). Nothing runs
    /// until [`Engine::start`] or the first query. `timeout` bounds each query.
    pub fn new(command: &str, protocol: Protocol, timeout: Duration) -> Engine {
        Engine {
            command: command.to_string(),
            protocol,
            timeout,
            uci: None,
            starts: 0,
        }
    }

    /// How many times the engine has been started beyond the first (after failures).
    pub fn restarts(&self) -> usize {
        self.starts.saturating_sub(1)
    }

    /// Makes sure the engine runs: UCI starts the process and completes the handshake; perftree
    /// asks for the start position at depth 1. Any failure is [`EngineError::Start`].
    pub fn start(&mut self) -> Result<(), EngineError> {
        match self.protocol {
            Protocol::Uci => self.uci(&never).map(|_| ()),
            Protocol::Perftree => {
                let fen = crate::position::STARTPOS;
                self.divide(fen, false, &[], 1)
                    .map(|_| ())
                    .map_err(|e| match e {
                        EngineError::Start(e) => EngineError::Start(e),
                        other => EngineError::Start(format!(
                            "asked for the start position at depth 1: {other}"
                        )),
                    })
            }
        }
    }

    fn uci(&mut self, stop: &dyn Fn() -> bool) -> Result<&mut UciProcess, EngineError> {
        if self.uci.is_none() {
            self.starts += 1;
            self.uci = Some(UciProcess::start(&self.command, self.timeout, stop)?);
        }
        self.uci
            .as_mut()
            .ok_or_else(|| EngineError::Start("no process".into()))
    }

    /// The engine's divide of `fen` (with Chess960 castling rules if `chess960`) after `moves`
    /// (UCI notation), `depth` plies deep.
    pub fn divide(
        &mut self,
        fen: &str,
        chess960: bool,
        moves: &[String],
        depth: u32,
    ) -> Result<Divide, EngineError> {
        self.divide_unless(fen, chess960, moves, depth, &never)
    }

    /// [`Engine::divide`], given up as soon as `stop` returns true (it is asked every few
    /// milliseconds while the engine has not answered): the engine is then killed, to be
    /// started afresh by the next query, and the answer is [`EngineError::Stopped`]. A query
    /// stopped before anything was sent leaves the engine as it was, running and ready.
    pub fn divide_unless(
        &mut self,
        fen: &str,
        chess960: bool,
        moves: &[String],
        depth: u32,
        stop: &dyn Fn() -> bool,
    ) -> Result<Divide, EngineError> {
        if stop() {
            return Err(EngineError::Stopped);
        }
        let result = match self.protocol {
            Protocol::Uci => self.uci(stop)?.divide(fen, chess960, moves, depth, stop),
            Protocol::Perftree => {
                self.starts = self.starts.max(1);
                perftree_divide(&self.command, fen, moves, depth, self.timeout, stop)
            }
        };
        if result.is_err() {
            // Whatever state it is in, the next query gets a fresh process.
            self.uci = None;
        }
        result
    }
}

/// The process groups of the engines started and not yet ended, so that [`end_all`] can end
/// them (and whatever they started) when the process is told to stop.
static RUNNING: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// An engine process leading its own process group, so that a kill reaches whatever it
/// started too. Dropped, it kills the group (if the engine has not ended by itself) and
/// reaps the process.
struct Group {
    child: Child,
}

impl Group {
    /// Starts `sh -c "exec CMD \"$@\"" sh ARGS...` in a process group of its own.
    fn spawn(command: &str, args: &[String], stdin: bool) -> Result<Group, EngineError> {
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(format!("exec {command} \"$@\""))
            .arg("sh")
            .args(args)
            .stdin(if stdin { Stdio::piped() } else { Stdio::null() })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        // Registered under the lock it was started under: `end_all`, which takes the same
        // lock, cannot run between the start and the registration and miss it.
        let mut running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
        let child = cmd
            .spawn()
            .map_err(|e| EngineError::Start(format!("cannot run '{command}': {e}")))?;
        running.push(child.id());
        Ok(Group { child })
    }

    /// Kills the process and everything in its process group, and reaps it.
    fn kill(&mut self) {
        kill_group(self.child.id());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
        let mut running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
        running.retain(|&pid| pid != self.child.id());
    }
}

impl std::ops::Deref for Group {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.child
    }
}

impl std::ops::DerefMut for Group {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.child
    }
}

/// Sends SIGKILL to the process group `pid` leads.
fn kill_group(pid: u32) {
    #[cfg(unix)]
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: a plain kill(2) of the process group the child leads (spawned with
        // process_group(0), so its group id is its pid).
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    #[cfg(not(unix))]
    let _ = pid;
}

/// Kills every engine this process started and has not ended yet, with everything they
/// started: for a process about to exit on a signal (Ctrl-C, SIGTERM), which would otherwise
/// leave them running in their own process groups. Engines started after this call are not
/// affected.
pub fn end_all() {
    let running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
    for &pid in running.iter() {
        kill_group(pid);
    }
}

/// Sends the lines of `output` (invalid UTF-8 replaced, overlong lines cut) on a channel, from a
/// thread of its own, so that reads can have a deadline.
fn line_reader(output: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(output);
        let mut line = Vec::new();
        let mut byte = [0u8; 1];
        loop {
            let n = match reader.read(&mut byte) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => 0,
            };
            let end = n == 0;
            if !end && byte[0] != b'\n' {
                if line.len() < MAX_LINE {
                    line.push(byte[0]);
                }
                continue;
            }
            if !(end && line.is_empty()) {
                let text = String::from_utf8_lossy(&line);
                let text = text.strip_suffix('\r').unwrap_or(&text).to_string();
                if tx.send(text).is_err() {
                    return;
                }
                line.clear();
            }
            if end {
                return;
            }
        }
    });
    rx
}

/// What a line of an answer is.
enum Line {
    Move(String, Nodes),
    Blank,
    Other,
}

/// `e2e4: 20` or `e2e4 20` is a move count; a line that starts with a move but has no count is
/// an error; anything else is for the caller to judge.
fn parse_line(line: &str) -> Result<Line, String> {
    let t = line.trim();
    if t.is_empty() {
        return Ok(Line::Blank);
    }
    let (first, rest) = match t.find(|c: char| c == ':' || c.is_ascii_whitespace()) {
        Some(i) => (&t[..i], t[i + 1..].trim()),
        None => (t, ""),
    };
    if !is_uci_move(first) {
        return Ok(Line::Other);
    }
    let rest = rest.trim_start_matches(':').trim();
    match rest.parse::<Nodes>() {
        Ok(n) => Ok(Line::Move(first.to_string(), n)),
        Err(_) => Err(format!("'{}': no count after the move", cut(t))),
    }
}

/// A line shortened for a message.
fn cut(line: &str) -> String {
    if line.chars().count() > 60 {
        format!("{}...", line.chars().take(60).collect::<String>())
    } else {
        line.to_string()
    }
}

/// Whether `s` has the shape of a move in UCI notation (`e2e4`, `e7e8q`).
pub(crate) fn is_uci_move(s: &str) -> bool {
    let square = |r: std::ops::Range<usize>| s.get(r).and_then(Square::parse).is_some();
    square(0..2) && square(2..4) && matches!(s.get(4..), Some("" | "q" | "r" | "b" | "n"))
}

/// Adds a move line to `answer` (not to its total: the engine prints its own); the same move
/// twice with different counts is an error.
fn add(answer: &mut Divide, mv: String, n: Nodes) -> Result<(), EngineError> {
    match answer.moves.insert(mv.clone(), n) {
        Some(old) if old != n => Err(EngineError::Garbage(format!(
            "{mv} is listed twice, with {old} and {n}"
        ))),
        _ => Ok(()),
    }
}

/// Keeps `line`, one that is neither a move count nor the total, if few are kept so far.
fn note(answer: &mut Divide, line: &str) {
    if answer.unread.len() < UNREAD_KEPT {
        answer.unread.push(cut(line.trim()));
    }
}

/// A UCI engine process.
struct UciProcess {
    child: Group,
    stderr: StderrTail,
    stdin: ChildStdin,
    lines: Receiver<String>,
    chess960: Option<bool>,
    timeout: Duration,
}

impl UciProcess {
    fn start(
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

    fn send(&mut self, line: &str) -> Result<(), EngineError> {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|_| {
                let why = self.stderr.exit(&mut self.child);
                EngineError::Crashed(format!("it exited ({why}) before reading '{line}'"))
            })
    }

    /// Reads lines until one satisfies `done`, passing each line to `each`.
    fn read_until(
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

    fn wait_for(
        &mut self,
        what: &str,
        deadline: Instant,
        stop: &dyn Fn() -> bool,
        done: impl Fn(&str) -> bool,
    ) -> Result<(), EngineError> {
        self.read_until(what, deadline, stop, |l| Ok(done(l)))
    }

    /// `isready` / `readyok`: everything the engine printed before is dropped.
    fn sync(&mut self, deadline: Instant, stop: &dyn Fn() -> bool) -> Result<(), EngineError> {
        self.send("isready")?;
        self.wait_for("readyok", deadline, stop, |l| l.trim() == "readyok")
    }

    fn divide(
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

/// The last lines an engine wrote to its standard error, kept by a thread of their own.
#[derive(Clone, Default)]
struct StderrTail {
    lines: Arc<Mutex<VecDeque<String>>>,
    closed: Arc<AtomicBool>,
}

impl StderrTail {
    /// Lines kept.
    const KEEP: usize = 2;

    fn collect(child: &mut Child) -> StderrTail {
        let tail = StderrTail::default();
        if let Some(stderr) = child.stderr.take() {
            let rx = line_reader(stderr);
            let keep = tail.clone();
            std::thread::spawn(move || {
                for line in rx {
                    if let Ok(mut lines) = keep.lines.lock() {
                        if lines.len() == Self::KEEP {
                            lines.pop_front();
                        }
                        lines.push_back(cut(line.trim()));
                    }
                }
                keep.closed.store(true, Ordering::Release);
            });
        } else {
            tail.closed.store(true, Ordering::Release);
        }
        tail
    }

    /// How `child` ended, waiting a moment for it: "exit status 127; on stderr: '...'".
    fn exit(&self, child: &mut Child) -> String {
        let mut status = None;
        for _ in 0..50 {
            if let Ok(Some(s)) = child.try_wait() {
                status = Some(s);
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        let text = status.map_or("its output closed".to_string(), describe);
        text + &self.said()
    }

    /// `; on stderr: '...'` with the last lines it wrote there, or nothing.
    fn said(&self) -> String {
        for _ in 0..50 {
            if self.closed.load(Ordering::Acquire) {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        match self.lines.lock() {
            Ok(lines) if !lines.is_empty() => {
                let said: Vec<String> = lines.iter().map(|l| format!("'{l}'")).collect();
                format!("; on stderr: {}", said.join(" "))
            }
            _ => String::new(),
        }
    }
}

/// Why [`next_line`] returned no line.
enum Waited {
    /// The deadline passed.
    Timeout,
    /// `stop` said so.
    Stopped,
    /// The engine closed its output.
    Closed,
}

/// The engine's next line, waiting until `deadline` at most and asking `stop` every
/// [`STOP_POLL`] meanwhile.
fn next_line(
    lines: &Receiver<String>,
    deadline: Instant,
    stop: &dyn Fn() -> bool,
) -> Result<String, Waited> {
    loop {
        if stop() {
            return Err(Waited::Stopped);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left.min(STOP_POLL)) {
            Ok(line) => return Ok(line),
            Err(RecvTimeoutError::Disconnected) => return Err(Waited::Closed),
            Err(RecvTimeoutError::Timeout) if left <= STOP_POLL => return Err(Waited::Timeout),
            Err(RecvTimeoutError::Timeout) => {}
        }
    }
}

/// "exit status 3" or "killed by signal 11".
fn describe(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return format!("killed by signal {sig}");
        }
    }
    match status.code() {
        Some(code) => format!("exit status {code}"),
        None => status.to_string(),
    }
}

/// One perftree query: runs the command, reads its whole output by the deadline, parses it.
fn perftree_divide(
    command: &str,
    fen: &str,
    moves: &[String],
    depth: u32,
    timeout: Duration,
    stop: &dyn Fn() -> bool,
) -> Result<Divide, EngineError> {
    let args = [depth.to_string(), fen.to_string(), moves.join(" ")];
    let mut child = Group::spawn(command, &args, false)?;
    let stderr = StderrTail::collect(&mut child);
    let Some(stdout) = child.stdout.take() else {
        child.kill();
        return Err(EngineError::Start("no pipe from the engine".into()));
    };
    let lines = line_reader(stdout);
    let deadline = Instant::now() + timeout;
    let mut output = Vec::new();
    loop {
        match next_line(&lines, deadline, stop) {
            Ok(line) => {
                output.push(line);
                if output.len() > MAX_LINES {
                    child.kill();
                    return Err(EngineError::Garbage(format!(
                        "more than {MAX_LINES} lines of output"
                    )));
                }
            }
            Err(Waited::Timeout) => {
                child.kill();
                return Err(EngineError::Timeout(timeout));
            }
            Err(Waited::Stopped) => {
                child.kill();
                return Err(EngineError::Stopped);
            }
            Err(Waited::Closed) => break,
        }
    }
    // The output is closed; the process should be gone or going.
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(2)),
            _ => {
                child.kill();
                break None;
            }
        }
    };
    match status {
        None => return Err(EngineError::Timeout(timeout)),
        Some(s) if s.code() == Some(127) || s.code() == Some(126) => {
            return Err(EngineError::Start(format!(
                "'{command}' cannot be run ({}{})",
                describe(s),
                stderr.said()
            )));
        }
        Some(s) if !s.success() => {
            return Err(EngineError::Crashed(format!(
                "it exited ({}{}) after {} lines",
                describe(s),
                stderr.said(),
                output.len()
            )));
        }
        Some(_) => {}
    }
    parse_perftree(&output)
}

/// `move count` lines, a blank line, the total.
fn parse_perftree(output: &[String]) -> Result<Divide, EngineError> {
    let mut answer = Divide::default();
    let mut total = None;
    let mut after_total = false;
    for line in output {
        if after_total {
            if !line.trim().is_empty() {
                return Err(EngineError::Garbage(format!(
                    "'{}' after the total",
                    cut(line)
                )));
            }
            continue;
        }
        match parse_line(line).map_err(EngineError::Garbage)? {
            Line::Move(mv, n) => add(&mut answer, mv, n)?,
            Line::Blank => {}
            Line::Other => match line.trim().parse::<Nodes>() {
                Ok(n) => {
                    total = Some(n);
                    after_total = true;
                }
                Err(_) => note(&mut answer, line),
            },
        }
    }
    answer.total = total.ok_or_else(|| {
        EngineError::Crashed(format!(
            "its answer ended after {} lines without the total",
            output.len()
        ))
    })?;
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &str) -> Vec<String> {
        s.lines().map(String::from).collect()
    }

    #[test]
    fn perftree_answers() {
        let d = parse_perftree(&lines("e2e4 20\ne7e8q 3\n\n23\n")).unwrap();
        assert_eq!(d.total, 23);
        assert_eq!(d.moves.len(), 2);
        assert_eq!(d.moves["e7e8q"], 3);
        assert!(matches!(
            parse_perftree(&lines("e2e4 20\n")),
            Err(EngineError::Crashed(_))
        ));
        assert!(matches!(
            parse_perftree(&lines("e2e4 twenty\n\n20\n")),
            Err(EngineError::Garbage(_))
        ));
        assert!(matches!(
            parse_perftree(&lines("e2e4 20\ne2e4 21\n\n41\n")),
            Err(EngineError::Garbage(_))
        ));
        assert!(matches!(
            parse_perftree(&lines("e2e4 20\n\n20\nmore\n")),
            Err(EngineError::Garbage(_))
        ));
        let d = parse_perftree(&lines("perft 1 of the start\ne2e4 1\n\n1\n")).unwrap();
        assert_eq!(d.unread, vec!["perft 1 of the start".to_string()]);
    }

    #[test]
    fn move_shapes() {
        assert!(is_uci_move("e2e4") && is_uci_move("a7a8n"));
        assert!(!is_uci_move("e2e9") && !is_uci_move("e7e8k") && !is_uci_move("Nodes"));
    }
}
