//! Helpers shared by the integration tests.
#![allow(dead_code)]

use perft::epd::{self, EpdEntry};
use std::path::PathBuf;

/// The path of a file in `tests/data`.
pub fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Every entry of a suite file in `tests/data`; a malformed line fails the test.
pub fn suite(name: &str) -> Vec<EpdEntry> {
    let text = std::fs::read_to_string(data(name)).expect("suite file is readable");
    epd::parse_str(&text)
        .into_iter()
        .map(|e| e.unwrap_or_else(|e| panic!("{name}: {e}")))
        .collect()
}

/// The suites of standard chess.
pub const STANDARD_SUITES: [&str; 3] = ["standard.epd", "perftsuite.epd", "tricky.epd"];

/// The fake engine built from examples/fake_engine.rs (cargo builds examples for tests).
pub fn fake_engine() -> PathBuf {
    let exe = std::env::current_exe().expect("the test knows its path");
    let dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("tests run from target/<profile>/deps");
    let path = dir.join("examples").join("fake_engine");
    assert!(path.exists(), "{} not built", path.display());
    path
}
