//! `perft`: an exact, fast chess move generator that proves itself with perft.
//!
//! - [`types`] and [`Bitboard`]: squares, colours, pieces, moves, sets of squares.
//! - [`attacks`]: leaper tables and the slider implementations behind the [`Sliders`] trait.
//! - [`position`]: the board state, FEN, make/unmake, attack queries.
//! - [`movegen`]: pseudo-legal generation and the legality filter.
//! - [`perft`]: node counting, bulk and not, divide, threads; [`tt`]: the hash table, one type
//!   for node counts and statistics; [`cpu`]: the last-ply code this CPU runs.
//! - [`stats`]: leaf statistics (captures, castles, checks by kind, mates...).
//! - [`epd`]: reading perft suites; [`suite`]: running them.
//! - [`validate`]: another generator checked against this one, down to the first position
//!   whose legal moves differ.
//! - [`nodes`]: counts of any size.
//!
//! Every count takes its slider implementation as a type parameter (`perft::<Magic>(...)`), so
//! each choice is its own compiled code. Items hidden from this documentation (the AVX-512 and
//! AVX2 lanes' own entry points, the slow legality test the tests compare with) exist for the
//! tests and benches and are not part of the API.

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
mod inert;
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
    pub mod setwise;
}
pub mod stats;
pub mod suite;
pub mod tt;
pub mod types;
pub mod validate;

pub use attacks::{Classical, Magic, Sliders};
pub use bitboard::Bitboard;
pub use nodes::Nodes;
pub use perft::Counting;
pub use position::{FenError, Position};
pub use types::{Color, Move, MoveKind, Piece, PieceKind, Square};

// The Rust the library's README and the repository's show compiles against this API (and the
// library's runs).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct LibraryReadme;
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct RepositoryReadme;
