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
    /// The first of `mask + 1` buckets, on a cache-line boundary inside `base`'s allocation.
    buckets: *const Bucket,
    mask: u64,
    base: *mut u8,
    layout: std::alloc::Layout,
}

// SAFETY: the table owns its allocation, and buckets are only read and written through atomics.
unsafe impl Send for Table {}
// SAFETY: as above: every access to shared bucket memory is an atomic load or store.
unsafe impl Sync for Table {}

impl Drop for Table {
    fn drop(&mut self) {
        // SAFETY: `base` was allocated in `Table::new` with exactly `layout`.
        unsafe { std::alloc::dealloc(self.base, self.layout) }
    }
}

/// Touches one byte of every 4 KiB page of the table (writing the zero already there), so that
/// the system maps the memory now, not one fault at a time in the middle of a count. Measured on
/// this project's 2-core VM (start position depth 7, `--hash 256`, whole process, alternating
/// runs): one thread 1.96 s -> 1.20 s median, two threads 0.86 s -> 0.60 s, against the lazily
/// mapped table with transparent huge pages. Faults taken during the count were costly there:
/// two threads faulting at once contend in the kernel (2 s of system time with 4 KiB pages), and
/// a huge page the hypervisor has taken back costs about 0.8 s per 256 MiB to fault in again.
///
/// `threads` threads share the work, each on its own contiguous part (`--hash 1024 --depth 1`:
/// 1.3-2.3 s with one thread, 0.3-0.6 s with two, when the VM's host must supply fresh memory).
fn commit(base: *mut u8, len: usize, threads: usize) {
    const PAGE: usize = 4096;
    // An address, not a pointer, crosses into the threads (raw pointers are not `Send`).
    let addr = base as usize;
    let touch = move |offset: usize| {
        // SAFETY: every caller passes `offset < len`, inside the allocation; the byte is zero
        // (the memory came from `alloc_zeroed`) and stays zero, and no two threads touch the same
        // byte. Volatile, so the store is not optimised away.
        unsafe { (addr as *mut u8).add(offset).write_volatile(0) };
    };
    // The first byte, then the first byte of every page that starts inside the allocation:
    // every page the table spans, once (the allocation need not start on a page boundary).
    let first = (PAGE - addr % PAGE) % PAGE;
    let pages = len.saturating_sub(first).div_ceil(PAGE);
    let threads = threads.clamp(1, pages.max(1));
    let per_thread = pages.div_ceil(threads);
    let touch_pages = move |i: usize| {
        for page in i * per_thread..((i + 1) * per_thread).min(pages) {
            touch(first + page * PAGE);
        }
    };
    touch(0);
    std::thread::scope(|scope| {
        for i in 1..threads {
            scope.spawn(move || touch_pages(i));
        }
        touch_pages(0);
    });
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
    ///
    /// The memory is requested zeroed (all zero bytes are an empty bucket), then one byte per
    /// page is touched so that the system maps it before counting starts (0.1 s for 256 MiB on
    /// this project's VM; 1-3 s per GiB on one thread when its host must supply fresh memory).
    /// A request the system refuses is an error, not an abort.
    pub fn new(mb: usize) -> Result<Table, TableError> {
        Table::with_threads(mb, 1)
    }

    /// [`Table::new`], with the memory mapped by `threads` threads at once.
    pub fn with_threads(mb: usize, threads: usize) -> Result<Table, TableError> {
        let size = std::mem::size_of::<Bucket>();
        let count = (mb.saturating_mul(1 << 20) / size).max(1);
        let count = 1usize << (usize::BITS - 1 - count.leading_zeros());
        // Rust's allocator zeroes lazily (calloc) only for alignments up to 16 bytes; asking for
        // 64 would write every byte up front (12 s for 4 GiB). So: 16-byte alignment, one cache
        // line more, and the buckets start at the first 64-byte boundary.
        let bytes = count.checked_mul(size).and_then(|b| b.checked_add(size));
        let layout = bytes
            .and_then(|b| std::alloc::Layout::from_size_align(b, 16).ok())
            .ok_or(TableError { mb })?;
        // SAFETY: `layout` has a non-zero size (at least two buckets' worth of bytes).
        let base = unsafe { std::alloc::alloc_zeroed(layout) };
        if base.is_null() {
            return Err(TableError { mb });
        }
        // The distance to the next 64-byte boundary: below 64, inside the spare cache line.
        let shift = (size - base as usize % size) % size;
        let buckets = base.wrapping_add(shift).cast();
        commit(base, layout.size(), threads);
        Ok(Table {
            buckets,
            mask: count as u64 - 1,
            base,
            layout,
        })
    }

    /// The table's size in bytes.
    pub fn bytes(&self) -> usize {
        (self.mask as usize + 1) * std::mem::size_of::<Bucket>()
    }

    #[inline(always)]
    fn bucket(&self, key1: u64) -> &Bucket {
        // SAFETY: the index is at most `mask`, and `new` placed `mask + 1` buckets from
        // `buckets` inside the allocation (one spare cache line covers the alignment shift);
        // all-zero bytes are a valid `Bucket` (empty entries), and the memory lives as long
        // as `self`.
        unsafe { &*self.buckets.add((key1 & self.mask) as usize) }
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
