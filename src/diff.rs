//! `perft diff`: the library's validation ([`crate::validate`]) with another engine as the
//! generator under test.
//!
//! The engine ([`crate::engine`], over UCI or the perftree contract) answers each query of the
//! descent with its divide; the descent itself, the report and the tally over a suite are the
//! library's, the same an author calls from their own tests.

use crate::engine::{Engine, EngineError};
use crate::validate::{Divide, Failure, Generator, Query};

/// An engine as the generator under test: each query is asked of it, and given up as soon as
/// `stop` returns true.
pub struct EngineUnderTest<'a> {
    /// The engine.
    pub engine: &'a mut Engine,
    /// Asked every few milliseconds while the engine has not answered.
    pub stop: &'a dyn Fn() -> bool,
}

impl Generator for EngineUnderTest<'_> {
    fn divide(&mut self, query: &Query<'_>) -> Result<Divide, Failure> {
        let chess960 = query.position.is_chess960();
        self.engine
            .divide_unless(
                query.root_fen,
                chess960,
                query.moves,
                query.depth,
                self.stop,
            )
            .map_err(|e| failure(&e))
    }
}

/// The engine's error as the descent's failure: fatal if the engine cannot be started.
pub fn failure(e: &EngineError) -> Failure {
    match e {
        EngineError::Start(_) => Failure::fatal(e.kind(), e.to_string()),
        _ => Failure::new(e.kind(), e.to_string()),
    }
}

/// Never stops a query.
pub fn never() -> bool {
    false
}
