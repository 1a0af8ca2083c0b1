//! `perft`: an exact, fast chess move generator that proves itself with perft.
//!
//! - [`types`] and [`Bitboard`]: squares, colours, pieces, moves, sets of squares.
//! - [`attacks`]: leaper tables and the slider implementations behind the [`Sliders`] trait.
//! - [`position`]: the board state, FEN, make/unmake, attack queries.
//! - [`movegen`]: pseudo-legal generation and the legality filter.
//! - [`perft`](mod@perft): node counting, bulk and not, divide, threads; [`tt`]: the hash
//!   table, one type for node counts and statistics; [`cpu`]: the last-ply code this CPU runs.
//! - [`stats`]: leaf statistics (captures, castles, checks by kind, mates...).
//! - [`epd`]: reading perft suites; [`suite`]: running them.
//! - [`validate`]: another generator checked against this one, down to the first position
//!   whose legal moves differ.
//! - [`nodes`]: counts of any size.
//!
//! Every count is a [`Perft`](perft::Perft) value (what it adds up, threads, table...), asked
//! for a total or a divide with its slider implementation as a type parameter
//! (`total::<Magic>(...)`), so each choice is its own compiled code:
//!
//! ```
//! use perft::perft::Perft;
//! use perft::{Magic, Nodes, Position};
//!
//! let pos = Position::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")?;
//! // 197,281: the published count of the start position at depth 4.
//! assert_eq!(Perft::new().total::<Magic>(&pos, 4), Nodes::from(197_281u64));
//! # Ok::<(), perft::FenError>(())
//! ```
//!
//! And another generator checked against this one from a `#[test]`: [`validate`].
//!
//! The package's `cli` feature (on by default) adds the `perft` command line and its modules;
//! a program that uses the library turns it off and depends on none of the tool's crates:
//!
//! ```toml
//! [dependencies]
//! perft = { path = "../perft", default-features = false }
//! ```
//!
//! Items hidden from this documentation (the lanes' own entry points, the slow legality test
//! the tests compare with, the command line's modules) exist for the tool, its tests and its
//! benches and are not part of the API.

#![deny(missing_docs)]

/// Declares an item the library uses inside and the repository's tests and benches reach from
/// outside: public with the `internals` feature (hidden from the documentation, no stability
/// promised), crate-visible without it.
macro_rules! internal {
    ($(#[$attr:meta])* pub $($item:tt)*) => {
        #[cfg(feature = "internals")]
        $(#[$attr])*
        #[doc(hidden)]
        pub $($item)*
        #[cfg(not(feature = "internals"))]
        $(#[$attr])*
        #[allow(dead_code)]
        pub(crate) $($item)*
    };
}

pub mod attacks;
pub(crate) mod bitboard;
pub mod cpu;
pub mod epd;
pub mod movegen;
pub mod nodes;
pub mod perft;
pub mod pool;
pub mod position;
internal! {
    /// The lanes' own entry points (AVX-512 and AVX2), for the tests that compare them board by
    /// board with the one-board counter and for the benches: not part of the API (perft uses
    /// the lanes itself).
    #[cfg(target_arch = "x86_64")]
    pub mod lanes;
}
pub mod stats;
pub mod suite;
pub mod tt;
pub mod types;
mod unchanged_replies;
pub mod validate;

// The command line's own modules: the slider comparison, the descent of `perft diff` over
// another engine, the engines it drives, deep counts over many processes, the UCI front. The
// binary and the repository's tests use them; they are not the library's API.
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod compare;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod diff;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod engine;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod shards;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod uci;

pub use attacks::{Classical, Magic, Sliders};
pub use bitboard::Bitboard;
pub use nodes::Nodes;
pub use perft::Counting;
pub use position::{FenError, Position};
pub use types::{Color, Move, MoveKind, Piece, PieceKind, Square};

// The Rust the README shows compiles against this API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct Readme;
