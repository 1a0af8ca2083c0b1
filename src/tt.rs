//! The transposition table for hashed perft: node counts keyed by position and depth, shared by
//! every thread without locks.
//!
//! A collision must never corrupt a count, so an entry is verified with 128 bits: the
//! incremental Zobrist key (which also picks the bucket) and a second, independent 64-bit key
//! computed from scratch when the table is probed (interior nodes only, never at the leaves).
//! Each entry is three atomic words: `key1 ^ data`, `key2 ^ data` and `data` (count and depth).
//! Writers never lock; a reader recomputes both XORs from the `data` it read, so an entry torn
//! by a concurrent write simply fails to verify and counts as a miss.

use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU64, Ordering};

/// One entry: 24 bytes.
struct Entry {
    check1: AtomicU64,
    check2: AtomicU64,
    data: AtomicU64,
}

/// Two entries per bucket: the first keeps the deeper result, the second always takes the
/// newest. A bucket fills one 64-byte cache line, so a probe touches one line.
#[repr(align(64))]
struct Bucket {
    deep: Entry,
    recent: Entry,
}

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

/// A lock-free perft transposition table.
pub struct Table {
    buckets: Box<[Bucket]>,
    /// `buckets.len() - 1`; the length is a power of two.
    mask: u64,
}

impl Bucket {
    fn empty() -> Bucket {
        let entry = || Entry {
            check1: AtomicU64::new(0),
            check2: AtomicU64::new(0),
            data: AtomicU64::new(0),
        };
        Bucket {
            deep: entry(),
            recent: entry(),
        }
    }
}

/// Writes an empty bucket into each slot of `part`.
fn fill(part: &mut [MaybeUninit<Bucket>]) {
    for slot in part {
        slot.write(Bucket::empty());
    }
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
    /// exactly `mb` MiB when `mb` is a power of two. A request the system refuses is an error,
    /// not an abort.
    ///
    /// Every bucket is written before counting starts, so the system maps the memory now, not
    /// one page fault at a time in the middle of a count. Measured on this project's 2-core VM
    /// (start position depth 7, `--hash 256`, whole process, alternating runs): one thread
    /// 1.96 s -> 1.20 s median, two threads 0.86 s -> 0.60 s, against a lazily mapped table with
    /// transparent huge pages. Faults taken during the count were costly there: two threads
    /// faulting at once contend in the kernel (2 s of system time with 4 KiB pages), and a huge
    /// page the hypervisor has taken back costs about 0.8 s per 256 MiB to fault in again.
    pub fn new(mb: usize) -> Result<Table, TableError> {
        Table::with_threads(mb, 1)
    }

    /// [`Table::new`], its buckets written by `threads` threads, each its own contiguous part
    /// (`--hash 1024 --depth 1` on the VM, when its host must supply fresh memory: 1.3-2.3 s
    /// with one thread, 0.3-0.6 s with two).
    pub fn with_threads(mb: usize, threads: usize) -> Result<Table, TableError> {
        let count = (mb.saturating_mul(1 << 20) / std::mem::size_of::<Bucket>()).max(1);
        let count = 1usize << (usize::BITS - 1 - count.leading_zeros());
        let mut buckets: Vec<Bucket> = Vec::new();
        buckets
            .try_reserve_exact(count)
            .map_err(|_| TableError { mb })?;
        let per_thread = count.div_ceil(threads.clamp(1, count));
        std::thread::scope(|scope| {
            let mut parts = buckets.spare_capacity_mut()[..count].chunks_mut(per_thread);
            let first = parts.next();
            for part in parts {
                scope.spawn(move || fill(part));
            }
            if let Some(part) = first {
                fill(part);
            }
        });
        // SAFETY: the capacity is at least `count`, and `fill` wrote the first `count` slots.
        unsafe { buckets.set_len(count) };
        Ok(Table {
            buckets: buckets.into_boxed_slice(),
            mask: count as u64 - 1,
        })
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

    /// Starts loading the bucket that [`Table::probe`] will read for `key1` at `depth` (a hint
    /// to the processor; it changes no result).
    #[inline(always)]
    pub fn prefetch(&self, key1: u64, depth: u32) {
        #[cfg(target_arch = "x86_64")]
        {
            let p: *const Bucket = self.bucket(with_depth(key1, depth));
            // SAFETY: a prefetch is only a hint, never faults, and `p` points into the table.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast())
            };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (key1, depth);
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
