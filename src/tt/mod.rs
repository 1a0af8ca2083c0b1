//! The transposition table for hashed counts: one type, [`Table`], generic over what it keeps
//! ([`Record`]: node counts, or leaf statistics), keyed by position and depth and shared by
//! every thread. Statistics are packed in 32- and 64-byte entries without locks, the few too
//! large for them whole under a lock (`compact.rs`); node counts, by far the most used, in
//! packed entries without locks (`packed.rs`), as follows.
//!
//! A collision must never corrupt a count, so an entry is verified with two independent keys:
//! the incremental Zobrist key, which picks the bucket, and a second 64-bit key computed from
//! the board when the table is probed (interior nodes only, never at the leaves). Writers never
//! lock, and an entry torn by a concurrent write fails to verify: it costs a recount, never a
//! wrong count.
//!
//! The deep counts this table is for need about a billion entries (the start position's
//! perft 10 meets 988 million distinct positions two plies from the leaves), so the size of an
//! entry decides whether they fit in memory, and where they do not, which entries stay decides
//! how much is counted twice (see `Packed::store`). Nine in ten entries hold the count of a
//! node two plies from the leaves, which is at most 218 x 218 (the most legal moves a position
//! has), so the table has two parts:
//! - **Depth 2**: 8-byte entries, one atomic word each, eight to a 64-byte bucket (a probe reads
//!   one cache line): 48 bits of the second key and the count plus one in 16 bits (zero is an
//!   empty entry). A word is written whole, so it cannot be torn. A wrong count would need a
//!   position with the same bucket and the same 48 bits: 48 + 24 = 72 bits in a table of 2^24
//!   buckets (1 GiB), 48 in a one-bucket table.
//! - **Depth 3 and more**: 16-byte entries, eight to a 128-byte bucket (two cache lines of one
//!   page), a fifth of the table's bytes: `data` (16 more bits of the depth-mixed Zobrist key,
//!   the count and the depth) and `key2 ^ data`; a reader recomputes the XOR from the `data` it
//!   read, so an entry torn between its two words fails to verify. 64 + 16 + 22 = 102 bits in
//!   a table of 2^22 such buckets, 80 in a one-bucket table.

pub(crate) mod compact;
mod memory;
mod packed;
pub(crate) mod record;
mod sizing;
mod wide;

use crate::nodes::Nodes;
use packed::{BYTES_EACH, COUNT_BITS, Packed};
pub use sizing::{CountSize, Layout, Shape, distinct_bound};
pub use wide::WideCounts;

/// A cache line's bytes on the processors this is built for: a deep bucket is two of them, a
/// shallow one one, and [`Table::prefetch`] asks for each.
const LINE: usize = 64;

/// A table the system could not provide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableError {
    /// The size asked for, in MiB.
    pub mb: usize,
    /// The memory the system said it could give, in MiB, where the table was refused for being
    /// larger (before any of it was allocated); `None` where the system refused the memory.
    pub available_mb: Option<u64>,
}

impl std::fmt::Display for TableError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot allocate a {} MiB hash table", self.mb)?;
        if let Some(available) = self.available_mb {
            write!(f, ": the system has {available} MiB of memory available")?;
        }
        write!(f, " (try a smaller --hash)")
    }
}

impl std::error::Error for TableError {}

/// What a [`Table`] keeps: the total of a subtree of at most `NARROW_DEPTH`
/// plies in `u64` words (a node count, `u64`, or leaf statistics,
/// [`crate::stats::Stats<u64>`]), and the same total of a deeper subtree, exact at any size
/// ([`Record::Wide`]). Each kind of record says where its narrow totals are kept: counts in
/// packed lock-free entries, statistics packed too, the few too large for that whole under a
/// lock.
pub trait Record: Copy + Send + Sync {
    /// The total of a subtree of any depth, exact at any size.
    type Wide: Copy + Send;
    /// Where the narrow records are kept.
    type Part: part::Part<Self>;
    /// Where the wide records are kept.
    type WidePart: part::Wide<Self::Wide>;
    /// The wide part gets this share of the table's bytes (one in `WIDE_SHARE`) when nothing
    /// is known of the count ([`Layout::fixed`]).
    const WIDE_SHARE: usize;
    /// The narrow part's bytes per depth-2 record, its share of the deeper records' room
    /// included: what `--hash auto` sizes a table by.
    const BYTES_EACH: f64;
    /// The bytes of one depth-2 record in its entry.
    const SHALLOW_BYTES: f64;
    /// The bytes of one deeper narrow record in its entry.
    const DEEP_BYTES: f64;
    /// The bytes of one wide record, its share of its bucket included.
    const WIDE_BYTES: f64;
    /// The totals from which a record is too large for the narrow part (about).
    const WIDE_FROM: f64;
    /// The narrow record as a wide one.
    fn widen(self) -> Self::Wide;
    /// The wide record in the narrow part's form, if that part can keep it.
    fn narrow(wide: &Self::Wide) -> Option<Self>;
}

/// A transposition table for hashed counts, shared by every thread: the records of subtrees
/// of at most `NARROW_DEPTH` plies in the part their kind of record chooses
/// (for counts lock-free, see the module's documentation), the records too large for it in a
/// locked part that keeps them exactly at any size (see [`crate::nodes`]). `Table` alone is
/// a table of node counts; `Table<Stats<u64>>` keeps leaf statistics
/// ([`crate::stats::StatsTable`]).
pub struct Table<N: Record = u64> {
    /// The records of subtrees of at most [`crate::perft::NARROW_DEPTH`] plies, and the deeper
    /// ones that fit there.
    narrow: N::Part,
    /// The deeper records too large for the narrow part.
    wide: N::WidePart,
    /// How long the memory took to map and write (see [`Table::setup_time`]).
    setup: std::time::Duration,
}

/// The parts a table's narrow records can be kept in.
mod part {
    /// A part of a [`super::Table`] that keeps records `N` of subtrees, each verified by both
    /// keys and the depth.
    pub trait Part<N>: Sized + Send + Sync {
        /// A part of about `bytes` bytes (at least one bucket), its buckets written by
        /// `threads` threads, about the share `deep` of it for the records of depth 3 and more
        /// where the part divides by depth that way; `None` if the system refuses the memory.
        fn with_bytes(bytes: usize, threads: usize, deep: f64) -> Option<Self>;
        /// The part's size in bytes.
        fn bytes(&self) -> usize;
        /// Starts loading the bucket a probe for `key1` at `depth` reads (a hint to the
        /// processor; it changes no result).
        fn prefetch(&self, key1: u64, depth: u32);
        /// The record stored for the position with keys `keys` at `depth`, if any.
        fn probe(&self, keys: (u64, u64), depth: u32) -> Option<N>;
        /// Stores the record of the position with keys `keys` at `depth`.
        fn store(&self, keys: (u64, u64), depth: u32, record: N);
    }

    /// A part of a [`super::Table`] that keeps the records `W` too large for the narrow
    /// part, each verified by both keys and the depth.
    pub trait Wide<W>: Sized + Send + Sync {
        /// A part of about `bytes` bytes (at least one bucket); `None` if the system refuses
        /// the memory.
        fn with_bytes(bytes: usize) -> Option<Self>;
        /// The part's size in bytes.
        fn bytes(&self) -> usize;
        /// The record stored for the position with keys `keys` at `depth`, if any.
        fn probe(&self, keys: (u64, u64), depth: u32) -> Option<W>;
        /// Stores the record of the position with keys `keys` at `depth` (where it has room
        /// for one so large).
        fn store(&self, keys: (u64, u64), depth: u32, record: W);
    }
}

/// Node counts, in the packed lock-free part (`Packed`); counts from 2^40 on in the wide part.
impl Record for u64 {
    type Wide = Nodes;
    type Part = Packed;
    type WidePart = WideCounts;
    /// The wide part's records are few (nodes at least seven plies above the leaves whose count
    /// passes 2^40), but a count that passes 2^40 is one that a table makes possible, of a
    /// sparse position at a great depth, and a part too small for its distinct positions at
    /// every depth recounts them over and over (an eighth is the share at which two bare
    /// kings' deep counts stop paying for it, docs/performance.md).
    const WIDE_SHARE: usize = 8;
    const BYTES_EACH: f64 = BYTES_EACH;
    const SHALLOW_BYTES: f64 = 8.0;
    const DEEP_BYTES: f64 = 16.0;
    const WIDE_BYTES: f64 = wide::BYTES_EACH;
    const WIDE_FROM: f64 = (1u64 << COUNT_BITS) as f64;
    #[inline(always)]
    fn widen(self) -> Nodes {
        Nodes::from(self)
    }
    fn narrow(wide: &Nodes) -> Option<u64> {
        wide.to_u64().filter(|&n| n < 1 << COUNT_BITS)
    }
}

/// The bucket of `buckets` for the key `k`: its high bits scaled to the length (any length, not
/// only powers of two), so that its low bits are independent of it.
#[inline(always)]
fn bucket_of<B>(buckets: &[B], k: u64) -> &B {
    let i = ((k as u128 * buckets.len() as u128) >> 64) as usize;
    // SAFETY: `k * len / 2^64` is below `len`.
    unsafe { buckets.get_unchecked(i) }
}

/// Asks the processor to start loading the `lines` cache lines from `p` (a hint that changes
/// no result).
#[inline(always)]
fn prefetch_lines<B>(p: &B, lines: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let p: *const i8 = (p as *const B).cast();
        for line in 0..lines {
            // SAFETY: a prefetch is only a hint and never faults; the lines are `p`'s.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(line * LINE)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (p, lines);
}

/// Mixes the depth into the key, so that one position at two depths uses two entries.
#[inline(always)]
fn with_depth(key: u64, depth: u32) -> u64 {
    key ^ (depth as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

impl<N: Record> Table<N> {
    /// A table of `mb` MiB divided as [`Layout::fixed`] says, at least one bucket each part.
    /// A request the system refuses, or one larger than the memory it says it has, is an
    /// error, not an abort.
    pub fn new(mb: usize) -> Result<Table<N>, TableError> {
        Table::with_threads(mb, 1)
    }

    /// [`Table::new`], its buckets written by `threads` threads, each its own contiguous part.
    pub fn with_threads(mb: usize, threads: usize) -> Result<Table<N>, TableError> {
        Table::with_layout(mb, threads, Layout::fixed::<N>())
    }

    /// A table of `mb` MiB divided as `layout` says (see [`Layout::for_shape`]: for the count
    /// it will serve), its buckets written by `threads` threads. A size larger than the memory
    /// the system says is available is refused before any of it is allocated.
    pub fn with_layout(mb: usize, threads: usize, layout: Layout) -> Result<Table<N>, TableError> {
        let start = std::time::Instant::now();
        let bytes = mb.saturating_mul(1 << 20);
        if let Some(available) = sizing::available_memory()
            && bytes as u64 > available
        {
            return Err(TableError {
                mb,
                available_mb: Some(available >> 20),
            });
        }
        let refused = TableError {
            mb,
            available_mb: None,
        };
        let wide_bytes = (bytes as f64 * layout.wide) as usize;
        let wide = <N::WidePart as part::Wide<N::Wide>>::with_bytes(wide_bytes).ok_or(refused)?;
        let rest = bytes.saturating_sub(part::Wide::bytes(&wide));
        let narrow = part::Part::with_bytes(rest, threads, layout.deep).ok_or(refused)?;
        Ok(Table {
            narrow,
            wide,
            setup: start.elapsed(),
        })
    }

    /// How long making the table took: its memory mapped and written whole, before any count
    /// (seconds per GiB), which a count's own time does not include.
    pub fn setup_time(&self) -> std::time::Duration {
        self.setup
    }

    /// The table's size in bytes.
    pub fn bytes(&self) -> usize {
        part::Part::bytes(&self.narrow) + part::Wide::bytes(&self.wide)
    }

    /// Starts loading the bucket that [`Table::probe`] will read for `key1` at `depth` (a hint
    /// to the processor; it changes no result).
    #[inline(always)]
    pub(crate) fn prefetch(&self, key1: u64, depth: u32) {
        part::Part::prefetch(&self.narrow, key1, depth);
    }

    /// The record stored in the narrow part for the position with keys `keys` (the
    /// incremental Zobrist key and the second key) at `depth`, if any.
    #[inline(always)]
    pub fn probe(&self, keys: (u64, u64), depth: u32) -> Option<N> {
        part::Part::probe(&self.narrow, keys, depth)
    }

    /// Stores in the narrow part the record of the position with keys `keys` at `depth`
    /// (where the part has no room for one so large, nothing: a recount, never a wrong one).
    #[inline(always)]
    pub fn store(&self, keys: (u64, u64), depth: u32, record: N) {
        part::Part::store(&self.narrow, keys, depth, record);
    }

    /// The record of any size stored for the position with keys `keys` at `depth`, if any:
    /// in the narrow part, or else in the wide one.
    pub fn probe_wide(&self, keys: (u64, u64), depth: u32) -> Option<N::Wide> {
        match self.probe(keys, depth) {
            Some(n) => Some(n.widen()),
            None => part::Wide::probe(&self.wide, keys, depth),
        }
    }

    /// Stores a record of any size: in the narrow part while it can keep it (as nearly all
    /// records), in the wide part otherwise, where it is kept exactly at any size.
    pub fn store_wide(&self, keys: (u64, u64), depth: u32, record: N::Wide) {
        match N::narrow(&record) {
            Some(n) => self.store(keys, depth, n),
            None => part::Wide::store(&self.wide, keys, depth, record),
        }
    }
}

internal! {
    /// The memory the system says it can give without swapping (`MemAvailable` in
    /// `/proc/meminfo`), in bytes; `None` where that is not known.
    pub fn available_memory() -> Option<u64> {
        sizing::available_memory()
    }
}

internal! {
    /// The size in MiB of a table of records `N` (node counts, `u64`, or statistics) for a count
    /// of about `leaves` leaves at `depth`, none of whose plies has more than `distinct`
    /// distinct positions ([`distinct_bound`]), with `available` bytes of memory
    /// ([`available_memory`]; 1 GiB assumed when unknown): `--hash auto`. Two entries for each
    /// record the count is estimated to store ([`Shape::estimate`]), up to 8 GiB, one each
    /// beyond; never more than the available memory less a tenth of it (at least 1 GiB left
    /// over); none for a count below depth 3 or that stores nothing.
    pub fn auto_mb<N: Record>(leaves: f64, depth: u32, distinct: f64, available: Option<u64>) -> usize {
        let size = CountSize {
            leaves,
            depth,
            distinct,
        };
        size.auto_mb::<N>(available)
    }
}

#[cfg(test)]
mod tests {
    use super::record::RecordTable;

    #[test]
    fn a_full_record_bucket_keeps_the_deepest_record_and_the_newest_other() {
        let table = RecordTable::<u64>::with_bytes(0).unwrap(); // one bucket: every key meets every other
        let deep = (1, 10);
        table.store(deep, 5, 500);
        for key in 2..40u64 {
            table.store((key, key * 10), 2, key);
        }
        // The shallow records took turns in the second place; the deep one stayed.
        assert_eq!(table.probe(deep, 5), Some(500));
        assert_eq!(table.probe((39, 390), 2), Some(39));
        assert_eq!(table.probe((38, 380), 2), None);
        // Both keys and the depth must match.
        assert_eq!(table.probe(deep, 4), None);
        assert_eq!(table.probe((1, 11), 5), None);
        // An equally deep record takes the first place and moves the old one to the second.
        table.store((7, 70), 5, 7);
        assert_eq!(table.probe((7, 70), 5), Some(7));
        assert_eq!(table.probe(deep, 5), Some(500));
        assert_eq!(table.probe((39, 390), 2), None);
    }
}
