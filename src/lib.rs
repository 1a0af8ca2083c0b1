//! `perft`: an exact, fast chess move generator that proves itself with perft.
//!
//! - [`types`] and [`bitboard`]: squares, colours, pieces, moves, sets of squares.
//! - [`attacks`]: leaper tables and the slider implementations behind the [`Sliders`] trait.
//! - [`position`]: the board state, FEN, make/unmake, attack queries.
//! - [`movegen`]: pseudo-legal generation and the legality filter.
//! - [`perft`]: node counting, bulk and not, divide, threads; [`tt`]: the hash table;
//!   [`setwise`]: the last ply's replies counted for eight boards at once (AVX-512).
//! - [`shards`]: deep counts split into jobs over many processes and machines, merged exactly.
//! - [`stats`]: leaf statistics (captures, castles, checks by kind, mates...).
//! - [`epd`]: reading perft suites; [`suite`]: running them.
//! - [`compare`]: timing the slider implementations against each other.
//! - [`uci`]: a UCI front end; [`engine`]: another engine driven over UCI or the perftree
//!   contract; [`diff`]: finding where its perft goes wrong.

pub mod attacks;
pub mod bitboard;
pub mod compare;
pub mod cpu;
pub mod diff;
pub mod engine;
pub mod epd;
pub mod movegen;
pub mod nodes;
pub mod perft;
mod pool;
pub mod position;
#[cfg(target_arch = "x86_64")]
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
