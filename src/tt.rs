//! The transposition table for hashed perft: node counts keyed by position and depth, shared by
//! every thread without locks.
//!
//! A collision must never corrupt a count, so an entry is verified with 128 bits: the
//! incremental Zobrist key (which also picks the bucket) and a second, independent 64-bit key
//! computed from scratch when the table is probed (interior nodes only, never at the leaves).
//! Each entry is three atomic words: `key1 ^ data`, `key2 ^ data` and `data` (count and depth).
//! Writers never lock; a reader recomputes both XORs from the `data` it read, so an entry torn
//! by a concurrent write simply fails to verify and counts as a miss.

use std::sync::atomic::{AtomicU64, Ordering};

/// One entry: 24 bytes.
#[derive(Default)]
struct Entry {
    check1: AtomicU64,
    check2: AtomicU64,
    data: AtomicU64,
}

/// Two entries per bucket: the first keeps the deeper result, the second always takes the
/// newest. A bucket fills one 64-byte cache line, so a probe touches one line.
#[derive(Default)]
#[repr(align(64))]
struct Bucket {
    deep: Entry,
    recent: Entry,
}

/// A lock-free perft transposition table.
pub struct Table {
    buckets: Box<[Bucket]>,
    mask: u64,
}

/// Mixes the depth into the key, so that one position at two depths uses two entries.
#[inline(always)]
fn with_depth(key: u64, depth: u32) -> u64 {
    key ^ (depth as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// `nodes` and `depth` in one word: the count in the high 56 bits, the depth in the low 8.
/// Counts that do not fit (2^56 and more, far beyond any hashed run) are not stored.
#[inline(always)]
fn pack(nodes: u64, depth: u32) -> Option<u64> {
    (nodes < 1 << 56).then_some(nodes << 8 | depth as u64)
}

impl Table {
    /// A table of at most `mb` MiB (a power of two number of 64-byte buckets, at least one):
    /// exactly `mb` MiB when `mb` is a power of two.
    pub fn new(mb: usize) -> Table {
        let bytes = mb
            .saturating_mul(1 << 20)
            .max(std::mem::size_of::<Bucket>());
        let count = (bytes / std::mem::size_of::<Bucket>()).max(1);
        let count = 1usize << (usize::BITS - 1 - count.leading_zeros());
        let buckets: Box<[Bucket]> = (0..count).map(|_| Bucket::default()).collect();
        Table {
            buckets,
            mask: count as u64 - 1,
        }
    }

    /// The table's size in bytes.
    pub fn bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    #[inline(always)]
    fn bucket(&self, key1: u64) -> &Bucket {
        // `mask` is `len - 1` with `len` a power of two, so the index is in bounds.
        &self.buckets[(key1 & self.mask) as usize]
    }

    /// The stored count for the position with keys `key1`/`key2` at `depth`, if any.
    #[inline(always)]
    pub fn probe(&self, key1: u64, key2: u64, depth: u32) -> Option<u64> {
        let k1 = with_depth(key1, depth);
        let k2 = with_depth(key2, depth);
        let bucket = self.bucket(k1);
        for e in [&bucket.deep, &bucket.recent] {
            let data = e.data.load(Ordering::Relaxed);
            if e.check1.load(Ordering::Relaxed) == k1 ^ data
                && e.check2.load(Ordering::Relaxed) == k2 ^ data
                && data & 0xff == depth as u64
            {
                return Some(data >> 8);
            }
        }
        None
    }

    /// Stores the count of the position with keys `key1`/`key2` at `depth`.
    #[inline(always)]
    pub fn store(&self, key1: u64, key2: u64, depth: u32, nodes: u64) {
        let Some(data) = pack(nodes, depth) else {
            return;
        };
        let k1 = with_depth(key1, depth);
        let k2 = with_depth(key2, depth);
        let bucket = self.bucket(k1);
        let deep_depth = bucket.deep.data.load(Ordering::Relaxed) & 0xff;
        let e = if depth as u64 >= deep_depth {
            &bucket.deep
        } else {
            &bucket.recent
        };
        e.data.store(data, Ordering::Relaxed);
        e.check1.store(k1 ^ data, Ordering::Relaxed);
        e.check2.store(k2 ^ data, Ordering::Relaxed);
    }
}
