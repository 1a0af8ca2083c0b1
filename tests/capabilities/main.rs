//! The tests of perft's capabilities, one module per capability (docs/testing.md says what
//! each checks). One test binary, not one per file: the tests build as the tool does (fat
//! link-time optimization, one codegen unit), so each test binary is a whole-program link of
//! the library and its test dependencies; one such link instead of one per file saves most of the
//! test build's time.

mod common;

mod attacks;
mod big_counts;
mod browser;
mod chess960;
mod chess960_tool;
mod cli;
mod compare;
mod diff_suite;
mod differential;
mod distributed;
mod epd;
mod fen;
mod hostile_input;
mod json_schema;
mod lanes;
mod library;
mod magic;
mod make_unmake;
mod options;
mod paths;
mod perft_suites;
mod progress;
mod properties;
mod readme;
mod serve;
mod serve_bounds;
mod stats;
mod stats_command;
mod suite;
mod terminal_positions;
mod threads_and_hash;
mod uci_and_diff;
mod validate;
