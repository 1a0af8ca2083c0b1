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

mod answer;
mod perftree;
mod process;
mod uci;

pub use process::end_all;

use perftree::perftree_divide;
use uci::UciProcess;

use crate::validate::Divide;
use std::fmt;
use std::time::Duration;

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

/// An answer longer than this is garbage (a divide has at most 218 move lines).
const MAX_LINES: usize = 100_000;

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
