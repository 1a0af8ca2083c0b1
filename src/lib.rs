//! `perft`: an exact, fast chess move generator that proves itself with perft.
//!
//! - [`types`] and [`Bitboard`]: squares, colours, pieces, moves, sets of squares.
//! - [`attacks`]: leaper tables and the slider implementations behind the [`Sliders`] trait.
//! - [`position`]: the board state, FEN, make/unmake, attack queries.
//! - [`movegen`]: pseudo-legal generation and the legality filter.
//! - [`perft`]: node counting, bulk and not, divide, threads; [`tt`]: the hash table, one type
//!   for node counts and statistics; [`cpu`]: the last-ply code this CPU runs.
//! - [`shards`]: deep counts split into jobs over many processes and machines, merged exactly.
//! - [`stats`]: leaf statistics (captures, castles, checks by kind, mates...).
//! - [`epd`]: reading perft suites; [`suite`]: running them.
//! - [`compare`]: timing the slider implementations against each other.
//! - [`uci`]: a UCI front end; [`engine`]: another engine driven over UCI or the perftree
//!   contract; [`diff`]: finding where its perft goes wrong.
//! - [`nodes`]: counts of any size.
//!
//! Every count takes its slider implementation as a type parameter (`perft::<Magic>(...)`), so
//! each choice is its own compiled code. Items hidden from this documentation (the AVX-512 and
//! AVX2 lanes' own entry points, the slow legality test the tests compare with) exist for the
//! tests and benches and are not part of the API.

#![warn(missing_docs)]

pub mod attacks;
pub(crate) mod bitboard;
pub mod compare;
pub mod cpu;
pub mod diff;
pub mod engine;
pub mod epd;
mod inert;
pub mod movegen;
pub mod nodes;
pub mod perft;
mod pool;
pub mod position;
/// The lanes' own entry points (AVX-512 and AVX2), for the tests that compare them board by
/// board with the one-board counter and for the benches: not part of the API (perft uses the
/// lanes itself).
#[cfg(target_arch = "x86_64")]
#[doc(hidden)]
pub mod setwise;
pub mod shards;
pub mod stats;
pub mod suite;
pub mod tt;
pub mod types;
pub mod uci;

pub use attacks::{Classical, Magic, Sliders};
pub use bitboard::Bitboard;
pub use nodes::Nodes;
pub use perft::Counting;
pub use position::{FenError, Position};
pub use types::{Color, Move, MoveKind, Piece, PieceKind, Square};
