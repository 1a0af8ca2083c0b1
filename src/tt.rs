//! The transposition table for hashed counts: one type, [`Table`], generic over what it keeps
//! ([`Record`]: node counts, or leaf statistics), keyed by position and depth and shared by
//! every thread. Statistics are kept whole under a lock (`RecordTable`); node counts,
//! by far the most used, in packed entries without locks ([`Packed`]), as follows.
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
//! how much is counted twice (see [`Packed`]'s `store`). Nine in ten entries hold the count of a
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

use crate::nodes::Nodes;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU64, Ordering};

/// One entry: 16 bytes.
struct Entry {
    /// `key2 ^ data`.
    check: AtomicU64,
    /// Bits 48-63 the tag (the low 16 bits of the depth-mixed Zobrist key), 8-47 the count,
    /// 0-7 the depth. Zero is an empty entry (no stored depth is below 1).
    data: AtomicU64,
}

/// Entries per bucket, in both parts.
const WAYS: usize = 8;

/// Eight entries of depth 3 and more, two cache lines, newest first (see [`Table::store`]).
#[repr(align(128))]
struct Bucket([Entry; WAYS]);

/// Eight depth-2 entries (see the module's documentation), one cache line, newest first.
#[repr(align(64))]
struct ShallowBucket([AtomicU64; WAYS]);

/// A cache line's bytes on the processors this is built for: a deep bucket is two of them, a
/// shallow one one, and [`Table::prefetch`] asks for each.
const LINE: usize = 64;
const _: () = assert!(std::mem::size_of::<Bucket>() == 2 * LINE);
const _: () = assert!(std::mem::size_of::<ShallowBucket>() == LINE);

/// The depth whose counts go to the shallow part.
const SHALLOW: u32 = 2;
/// The bits of a shallow entry that hold its count plus one.
const SHALLOW_COUNT: u64 = 0xffff;

/// The share of a table's bytes that goes to its deep part: a fifth, for about an eighth of its
/// entries (the start position has 9.4 million distinct positions six plies in, 96.4 million
/// seven plies in, OEIS A083276).
const DEEP_SHARE: usize = 5;

/// The bits of `data` that hold the depth.
const DEPTH: u64 = 0xff;
/// The bits of `data` a probe compares: tag and depth.
const TAG_DEPTH: u64 = 0xffff_0000_0000_0000 | DEPTH;
/// Counts of 2^40 and more (far beyond any position's count at the depths a table helps) are
/// not stored.
const COUNT_BITS: u32 = 40;

/// A table the system could not provide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableError {
    /// The size asked for, in MiB.
    pub mb: usize,
}

impl std::fmt::Display for TableError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot allocate a {} MiB hash table (try a smaller --hash)",
            self.mb
        )
    }
}

impl std::error::Error for TableError {}

/// What a [`Table`] keeps: the total of a subtree of at most [`crate::perft::NARROW_DEPTH`]
/// plies in `u64` words (a node count, `u64`, or leaf statistics,
/// [`crate::stats::Stats<u64>`]), and the same total of a deeper subtree, exact at any size
/// ([`Record::Wide`]). Each kind of record says where its narrow totals are kept: counts in
/// packed lock-free entries, statistics whole under a lock.
pub trait Record: Copy + Send + Sync {
    /// The total of a subtree of any depth, exact at any size.
    type Wide: Copy + Send;
    /// Where the narrow records are kept.
    type Part: part::Part<Self>;
    /// The wide part gets this share of the table's bytes (one in `WIDE_SHARE`).
    const WIDE_SHARE: usize;
    /// The narrow record as a wide one.
    fn widen(self) -> Self::Wide;
    /// The wide record in the narrow part's form, if that part can keep it.
    fn narrow(wide: &Self::Wide) -> Option<Self>;
}

/// A transposition table for hashed counts, shared by every thread: the records of subtrees
/// of at most [`crate::perft::NARROW_DEPTH`] plies in the part their kind of record chooses
/// (for counts lock-free, see the module's documentation), the records too large for it in a
/// locked part that keeps them exactly at any size (see [`crate::nodes`]). `Table` alone is
/// a table of node counts; `Table<Stats<u64>>` keeps leaf statistics
/// ([`crate::stats::StatsTable`]).
pub struct Table<N: Record = u64> {
    /// The records of subtrees of at most [`crate::perft::NARROW_DEPTH`] plies, and the deeper
    /// ones that fit there.
    narrow: N::Part,
    /// The deeper records too large for the narrow part.
    wide: record::RecordTable<N::Wide>,
}

/// The parts a table's narrow records can be kept in.
mod part {
    /// A part of a [`super::Table`] that keeps records `N` of subtrees, each verified by both
    /// keys and the depth.
    pub trait Part<N>: Sized + Send + Sync {
        /// A part of about `bytes` bytes (at least one bucket), its buckets written by
        /// `threads` threads; `None` if the system refuses the memory.
        fn with_bytes(bytes: usize, threads: usize) -> Option<Self>;
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
}

/// Node counts, in the packed lock-free part ([`Packed`]); counts from 2^40 on in the wide part.
impl Record for u64 {
    type Wide = Nodes;
    type Part = Packed;
    /// The wide part's records are few (nodes at least seven plies above the leaves whose count
    /// passes 2^40), but a count that passes 2^40 is one that a table makes possible, of a
    /// sparse position at a great depth, and a part too small for its distinct positions at
    /// every depth recounts them over and over (an eighth is the share at which two bare
    /// kings' deep counts stop paying for it, docs/performance.md).
    const WIDE_SHARE: usize = 8;
    #[inline(always)]
    fn widen(self) -> Nodes {
        Nodes::from(self)
    }
    fn narrow(wide: &Nodes) -> Option<u64> {
        wide.to_u64().filter(|&n| n < 1 << COUNT_BITS)
    }
}

/// The lock-free part of a count table: a fifth of its bytes in 128-byte buckets for the counts
/// of depth 3 and more, the rest in 64-byte buckets for depth 2 (see the module's
/// documentation).
pub struct Packed {
    /// Counts of depth 3 and more.
    deep: memory::Memory<Bucket>,
    /// Counts of depth 2.
    shallow: memory::Memory<ShallowBucket>,
}

/// A bucket with every entry empty (all bits zero).
trait Empty {
    fn empty() -> Self;
}

impl Empty for Bucket {
    fn empty() -> Bucket {
        Bucket(std::array::from_fn(|_| Entry {
            check: AtomicU64::new(0),
            data: AtomicU64::new(0),
        }))
    }
}

impl Empty for ShallowBucket {
    fn empty() -> ShallowBucket {
        ShallowBucket(std::array::from_fn(|_| AtomicU64::new(0)))
    }
}

/// Writes an empty bucket into each slot of `part`.
fn fill<B: Empty>(part: &mut [MaybeUninit<B>]) {
    for slot in part {
        slot.write(B::empty());
    }
}

/// Writes every bucket of `memory`, by `threads` threads, each its own contiguous part.
fn fill_with_threads<B: Empty + Send>(memory: &mut memory::Memory<B>, threads: usize) {
    let slots = memory.slots();
    // At least one slot: every part has at least one bucket.
    let per_thread = slots.len().div_ceil(threads.clamp(1, slots.len()));
    let parts = slots.chunks_mut(per_thread);
    let count = parts.len();
    let parts = std::sync::Mutex::new(parts);
    // Each task takes the next part. Nothing panics while the lock is held, so a poisoned lock
    // still holds a sound iterator: take it, so that no part is ever skipped.
    crate::pool::run(count, threads, |_| {
        let part = parts.lock().unwrap_or_else(|e| e.into_inner()).next();
        if let Some(part) = part {
            fill(part);
        }
        std::ops::ControlFlow::Continue(())
    });
    // SAFETY: `fill` wrote every slot.
    unsafe { memory.assume_filled() };
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

/// The tag and depth a probe for the depth-mixed key `k1` at `depth` looks for.
#[inline(always)]
fn tag_depth(k1: u64, depth: u32) -> u64 {
    (k1 << 48) | (depth as u64 & DEPTH)
}

impl part::Part<u64> for Packed {
    /// A fifth of the bytes in whole 128-byte buckets for the counts of depth 3 and more, the
    /// rest in 64-byte buckets for depth 2, at least one bucket each.
    ///
    /// Every bucket is written before counting starts, so the system maps the memory now, not
    /// one page fault at a time in the middle of a count: faults taken during a count are
    /// costly (threads faulting at once contend in the kernel).
    fn with_bytes(bytes: usize, threads: usize) -> Option<Packed> {
        let deep_len = (bytes / DEEP_SHARE / std::mem::size_of::<Bucket>()).max(1);
        let rest = bytes.saturating_sub(deep_len * std::mem::size_of::<Bucket>());
        let shallow_len = (rest / std::mem::size_of::<ShallowBucket>()).max(1);
        let mut deep = memory::Memory::new(deep_len)?;
        let mut shallow = memory::Memory::new(shallow_len)?;
        fill_with_threads(&mut deep, threads);
        fill_with_threads(&mut shallow, threads);
        Some(Packed { deep, shallow })
    }

    fn bytes(&self) -> usize {
        std::mem::size_of_val(self.deep.buckets()) + std::mem::size_of_val(self.shallow.buckets())
    }

    #[inline(always)]
    fn prefetch(&self, key1: u64, depth: u32) {
        if depth == SHALLOW {
            prefetch_lines(bucket_of(self.shallow.buckets(), key1), 1);
        } else {
            prefetch_lines(bucket_of(self.deep.buckets(), with_depth(key1, depth)), 2);
        }
    }

    #[inline(always)]
    fn probe(&self, (key1, key2): (u64, u64), depth: u32) -> Option<u64> {
        if depth == SHALLOW {
            let want = key2 & !SHALLOW_COUNT;
            for e in &bucket_of(self.shallow.buckets(), key1).0 {
                let word = e.load(Ordering::Relaxed);
                // An empty entry (zero) never matches: a stored count field is at least one.
                if word & !SHALLOW_COUNT == want && word & SHALLOW_COUNT != 0 {
                    return Some((word & SHALLOW_COUNT) - 1);
                }
            }
            return None;
        }
        let k1 = with_depth(key1, depth);
        let k2 = with_depth(key2, depth);
        let want = tag_depth(k1, depth);
        for e in &bucket_of(self.deep.buckets(), k1).0 {
            let data = e.data.load(Ordering::Relaxed);
            if data & TAG_DEPTH == want && e.check.load(Ordering::Relaxed) == k2 ^ data {
                return Some((data >> 8) & ((1 << COUNT_BITS) - 1));
            }
        }
        None
    }

    /// A bucket keeps its entries in the order they were stored, newest first. The shallowest
    /// entry goes (the cheapest to count again), among equally shallow ones the oldest; the
    /// entries stored after it move one slot down and the new one takes the first. When the
    /// table is too small for the count, a transposition is mostly met soon after the first
    /// visit, so keeping the newest of the shallow entries (rather than a random one) saves
    /// recounts, and eight entries to a bucket keep them longer than four. In the depth-2 part
    /// every entry is equally shallow: the oldest goes.
    ///
    /// While entries move, a concurrent probe may miss one, or read a slot half written: the
    /// check word then fails to verify, and a miss costs a recount, never a wrong count.
    ///
    /// Counts too large for an entry (from 2^16 at depth 2, from 2^40 deeper) are not kept.
    #[inline(always)]
    fn store(&self, (key1, key2): (u64, u64), depth: u32, nodes: u64) {
        if depth == SHALLOW {
            if nodes >= SHALLOW_COUNT {
                return;
            }
            let bucket = &bucket_of(self.shallow.buckets(), key1).0;
            let old: [u64; WAYS] = std::array::from_fn(|i| bucket[i].load(Ordering::Relaxed));
            for i in (0..WAYS - 1).rev() {
                bucket[i + 1].store(old[i], Ordering::Relaxed);
            }
            bucket[0].store(key2 & !SHALLOW_COUNT | (nodes + 1), Ordering::Relaxed);
            return;
        }
        if nodes >= 1 << COUNT_BITS {
            return;
        }
        let k1 = with_depth(key1, depth);
        let k2 = with_depth(key2, depth);
        let data = tag_depth(k1, depth) | nodes << 8;
        let bucket = &bucket_of(self.deep.buckets(), k1).0;
        // Each `data` word read once: for the depths, then for the entries that move.
        let old: [u64; WAYS] = std::array::from_fn(|i| bucket[i].data.load(Ordering::Relaxed));
        let mut victim = WAYS - 1;
        for i in (0..WAYS - 1).rev() {
            if old[i] & DEPTH < old[victim] & DEPTH {
                victim = i;
            }
        }
        for i in (0..victim).rev() {
            let check = bucket[i].check.load(Ordering::Relaxed);
            bucket[i + 1].data.store(old[i], Ordering::Relaxed);
            bucket[i + 1].check.store(check, Ordering::Relaxed);
        }
        bucket[0].data.store(data, Ordering::Relaxed);
        bucket[0].check.store(k2 ^ data, Ordering::Relaxed);
    }
}

impl<N: Record> Table<N> {
    /// A table of `mb` MiB: [`Record::WIDE_SHARE`] of it for the records too large for the
    /// narrow part, the rest for that part, at least one bucket each. A request the system
    /// refuses is an error, not an abort.
    pub fn new(mb: usize) -> Result<Table<N>, TableError> {
        Table::with_threads(mb, 1)
    }

    /// [`Table::new`], its buckets written by `threads` threads, each its own contiguous part.
    pub fn with_threads(mb: usize, threads: usize) -> Result<Table<N>, TableError> {
        let bytes = mb.saturating_mul(1 << 20);
        let wide =
            record::RecordTable::with_bytes(bytes / N::WIDE_SHARE).ok_or(TableError { mb })?;
        let rest = bytes.saturating_sub(wide.bytes());
        let narrow = part::Part::with_bytes(rest, threads).ok_or(TableError { mb })?;
        Ok(Table { narrow, wide })
    }

    /// The table's size in bytes.
    pub fn bytes(&self) -> usize {
        part::Part::bytes(&self.narrow) + self.wide.bytes()
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
    pub(crate) fn probe_wide(&self, keys: (u64, u64), depth: u32) -> Option<N::Wide> {
        match self.probe(keys, depth) {
            Some(n) => Some(n.widen()),
            None => self.wide.probe(keys, depth),
        }
    }

    /// Stores a record of any size: in the narrow part while it can keep it (as nearly all
    /// records), in the wide part otherwise, where it is kept exactly at any size.
    pub(crate) fn store_wide(&self, keys: (u64, u64), depth: u32, record: N::Wide) {
        match N::narrow(&record) {
            Some(n) => self.store(keys, depth, n),
            None => self.wide.store(keys, depth, record),
        }
    }
}

/// Whole records behind locks: a table's wide part, and the narrow part of statistics.
pub(crate) mod record {
    use super::{LINE, bucket_of, prefetch_lines, with_depth};
    use std::sync::Mutex;

    /// A table of whole records (statistics, counts past 2^64) keyed by both keys and the depth,
    /// each bucket behind its own lock.
    ///
    /// A record is compared on all 128 bits of the two keys and on its depth, so a collision never
    /// returns another position's record, and a lock means a record is never read half written.
    /// Each bucket holds two records: the first keeps the deepest stored there (a deeper or equally
    /// deep one takes its place and moves it to the second), the second whatever the first does not,
    /// so the shallow records, by far the most numerous, do not push out the deep ones that save the
    /// most work (docs/performance.md).
    pub struct RecordTable<R> {
        buckets: Vec<RecordBucket<R>>,
    }

    /// Two records under one lock, in whole cache lines (so that a [`Table`]'s parts add up to the
    /// size asked for).
    #[repr(align(64))]
    struct RecordBucket<R>(Mutex<[Option<Slot<R>>; 2]>);

    #[derive(Clone, Copy)]
    struct Slot<R> {
        key1: u64,
        key2: u64,
        depth: u32,
        record: R,
    }

    impl<R> Slot<R> {
        fn is(&self, (key1, key2): (u64, u64), depth: u32) -> bool {
            self.key1 == key1 && self.key2 == key2 && self.depth == depth
        }
    }

    impl<R: Copy> RecordTable<R> {
        /// A table of about `bytes` bytes (at least one bucket); `None` if the system refuses it.
        pub(crate) fn with_bytes(bytes: usize) -> Option<RecordTable<R>> {
            let size = std::mem::size_of::<RecordBucket<R>>();
            let count = (bytes / size).max(1);
            let mut buckets = Vec::new();
            buckets.try_reserve_exact(count).ok()?;
            buckets.extend((0..count).map(|_| RecordBucket(Mutex::new([None, None]))));
            Some(RecordTable { buckets })
        }

        /// The table's size in bytes.
        pub(crate) fn bytes(&self) -> usize {
            self.buckets.len() * std::mem::size_of::<RecordBucket<R>>()
        }

        /// The bucket of a position at `depth`: the depth is mixed into the key, so that one
        /// position's records at several depths do not compete for one bucket's two places.
        fn bucket(&self, key1: u64, depth: u32) -> std::sync::MutexGuard<'_, [Option<Slot<R>>; 2]> {
            let bucket = bucket_of(&self.buckets, with_depth(key1, depth));
            // A lock poisoned by a panicking thread holds whole records or none: still usable.
            bucket.0.lock().unwrap_or_else(|e| e.into_inner())
        }

        /// The record stored for the position with keys `keys` at `depth`, if any.
        pub(crate) fn probe(&self, keys: (u64, u64), depth: u32) -> Option<R> {
            let bucket = self.bucket(keys.0, depth);
            bucket
                .iter()
                .flatten()
                .find(|s| s.is(keys, depth))
                .map(|s| s.record)
        }

        /// Stores the record of the position with keys `keys` at `depth`.
        pub(crate) fn store(&self, keys: (u64, u64), depth: u32, record: R) {
            let mut bucket = self.bucket(keys.0, depth);
            let slot = Some(Slot {
                key1: keys.0,
                key2: keys.1,
                depth,
                record,
            });
            match bucket[0] {
                // The same record again (another thread counted it too): nothing to move.
                Some(deep) if deep.is(keys, depth) => {}
                Some(deep) if deep.depth > depth => bucket[1] = slot,
                _ => {
                    bucket[1] = bucket[0];
                    bucket[0] = slot;
                }
            }
        }
    }

    /// Statistics keep their narrow records whole, under a lock (see [`RecordTable`]).
    impl<R: Copy + Send> super::part::Part<R> for RecordTable<R> {
        fn with_bytes(bytes: usize, _threads: usize) -> Option<RecordTable<R>> {
            RecordTable::with_bytes(bytes)
        }
        fn bytes(&self) -> usize {
            RecordTable::bytes(self)
        }
        #[inline(always)]
        fn prefetch(&self, key1: u64, depth: u32) {
            let bucket = bucket_of(&self.buckets, with_depth(key1, depth));
            prefetch_lines(
                bucket,
                std::mem::size_of::<RecordBucket<R>>().div_ceil(LINE),
            );
        }
        fn probe(&self, keys: (u64, u64), depth: u32) -> Option<R> {
            RecordTable::probe(self, keys, depth)
        }
        fn store(&self, keys: (u64, u64), depth: u32, record: R) {
            RecordTable::store(self, keys, depth, record);
        }
    }
}

/// The memory the system says it can give without swapping (`MemAvailable` in `/proc/meminfo`),
/// in bytes; `None` where that is not known.
pub fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb.saturating_mul(1024))
}

/// Entries [`auto_mb`] gives each estimated distinct position while the table stays within
/// [`SMALL_TABLE`].
const ENTRIES_EACH: f64 = 2.0;

/// The table's bytes per depth-2 entry: its 8 bytes and its share of the deep part (a fifth of
/// the table).
const BYTES_EACH: f64 =
    std::mem::size_of::<AtomicU64>() as f64 * DEEP_SHARE as f64 / (DEEP_SHARE - 1) as f64;

/// The largest table [`auto_mb`] gives more than one entry per estimated distinct position:
/// 8 GiB, about 9 s of mapping on this project's VM.
const SMALL_TABLE: f64 = (8u64 << 30) as f64;

/// The size in MiB of a table for a count of about `leaves` leaves at `depth` (`--hash auto`),
/// with `available` bytes of memory (see [`available_memory`]; 1 GiB assumed when unknown).
///
/// Entries are stored for nodes two or more plies from the leaves, so the table is sized for
/// the distinct positions of the ply two above the leaves: estimated as the nodes visited there
/// (`leaves / b^2`, with `b` the mean branching factor `leaves^(1/depth)`) divided by 2.5 per
/// ply beyond the fifth (the start position's nodes per distinct position grow about that fast:
/// 2.3x, 2.6x, 2.9x, 3.0x from ply 5 to 8, OEIS A083276 against the published perft counts),
/// two depth-2 entries each (and the deep part beside them), but no more than 8 GiB unless one
/// entry each is more than that (then one each). Mapping costs time in proportion to size, so
/// capacity is worth it only while it saves more counting than that (the sizes measured are
/// in docs/performance.md). Never more than
/// the available memory less a tenth of it (at least 1 GiB left over); at least 1 MiB; none at
/// all below depth 3, where nothing is looked up but the root.
pub fn auto_mb(leaves: f64, depth: u32, available: Option<u64>) -> usize {
    if depth < 3 || leaves.is_nan() || leaves < 1.0 {
        return 0;
    }
    let available = available.unwrap_or(1 << 30) as f64;
    let budget = available - (available / 10.0).max((1u64 << 30) as f64);
    let b = leaves.powf(1.0 / depth as f64).max(1.0);
    let distinct = leaves / (b * b) / 2.5f64.powi(depth.saturating_sub(5) as i32);
    let one_each = distinct * BYTES_EACH;
    // The lock-free parts get what the wide part leaves (see [`Record::WIDE_SHARE`]).
    let share = <u64 as Record>::WIDE_SHARE as f64;
    let with_wide = share / (share - 1.0);
    let bytes = (ENTRIES_EACH * one_each * with_wide)
        .min(one_each.max(SMALL_TABLE))
        .min(budget);
    ((bytes / (1u64 << 20) as f64) as usize).max(1)
}

/// The buckets' memory.
#[cfg(target_os = "linux")]
mod memory {
    use std::mem::MaybeUninit;

    /// 2 MiB, the size of a transparent huge page.
    const HUGE: usize = 2 << 20;

    /// An anonymous mapping, its buckets starting at a 2 MiB boundary and advised to be backed
    /// by 2 MiB pages (`MADV_HUGEPAGE`; where transparent huge pages are set to `madvise`, the
    /// default of many distributions, a table would otherwise get 4 KiB pages). Every probe
    /// goes to a random bucket: with 4 KiB pages nearly each one also missed the TLB and walked
    /// page tables too large for the caches (32 MiB of them for a 16 GiB table).
    pub(super) struct Memory<B> {
        base: *mut libc::c_void,
        total: usize,
        start: *mut B,
        len: usize,
    }

    // SAFETY: the mapping is owned by this value alone, as a `Vec<B>` owns its buffer.
    unsafe impl<B: Send> Send for Memory<B> {}
    // SAFETY: as above; shared access only reads through `&[B]`.
    unsafe impl<B: Sync> Sync for Memory<B> {}

    impl<B> Memory<B> {
        /// Room for `len` buckets, or `None` if the system refuses it.
        pub(super) fn new(len: usize) -> Option<Memory<B>> {
            let bytes = len.checked_mul(std::mem::size_of::<B>())?;
            let total = bytes.checked_add(HUGE)?;
            // SAFETY: a fresh private anonymous mapping; no existing memory is touched.
            let base = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    total,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if base == libc::MAP_FAILED {
                return None;
            }
            let start = (base as usize).next_multiple_of(HUGE);
            // SAFETY: `start..start + bytes` lies inside the mapping. Only advice: a kernel
            // without transparent huge pages refuses it and the table works as before.
            unsafe { libc::madvise(start as *mut libc::c_void, bytes, libc::MADV_HUGEPAGE) };
            Some(Memory {
                base,
                total,
                start: start as *mut B,
                len,
            })
        }

        /// The buckets' slots, to be written before [`Memory::assume_filled`].
        pub(super) fn slots(&mut self) -> &mut [MaybeUninit<B>] {
            // SAFETY: `len` buckets fit in the mapping from `start`, which `self` owns.
            unsafe { std::slice::from_raw_parts_mut(self.start.cast(), self.len) }
        }

        /// Declares every slot written.
        ///
        /// # Safety
        /// Every slot of [`Memory::slots`] must have been written.
        pub(super) unsafe fn assume_filled(&mut self) {}

        /// The buckets (every slot written, see [`Memory::assume_filled`]).
        #[inline(always)]
        pub(super) fn buckets(&self) -> &[B] {
            // SAFETY: `len` buckets from `start`, all written before the table was handed out
            // (the mapping is zeroed anyway, and zero is an empty bucket).
            unsafe { std::slice::from_raw_parts(self.start, self.len) }
        }
    }

    impl<B> Drop for Memory<B> {
        fn drop(&mut self) {
            // SAFETY: the mapping made in `new`, unmapped once.
            unsafe { libc::munmap(self.base, self.total) };
        }
    }
}

/// The buckets' memory: an ordinary allocation where `madvise` is not available.
#[cfg(not(target_os = "linux"))]
mod memory {
    use std::mem::MaybeUninit;

    pub(super) struct Memory<B> {
        buckets: Vec<B>,
        len: usize,
    }

    impl<B> Memory<B> {
        pub(super) fn new(len: usize) -> Option<Memory<B>> {
            let mut buckets = Vec::new();
            buckets.try_reserve_exact(len).ok()?;
            Some(Memory { buckets, len })
        }

        pub(super) fn slots(&mut self) -> &mut [MaybeUninit<B>] {
            &mut self.buckets.spare_capacity_mut()[..self.len]
        }

        /// # Safety
        /// Every slot of [`Memory::slots`] must have been written.
        pub(super) unsafe fn assume_filled(&mut self) {
            // SAFETY: the capacity is at least `len`, and the caller wrote every slot.
            unsafe { self.buckets.set_len(self.len) };
        }

        #[inline(always)]
        pub(super) fn buckets(&self) -> &[B] {
            &self.buckets
        }
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
