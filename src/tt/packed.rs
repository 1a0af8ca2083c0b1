//! The packed, lock-free part of a count table: node counts in 8- and 16-byte entries (see the
//! table's documentation for their layout and why a collision never corrupts a count).

use super::{LINE, bucket_of, memory, part, prefetch_lines, with_depth};
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

/// Eight entries of depth 3 and more, two cache lines, newest first (see
/// [`super::Table::store`]).
#[repr(align(128))]
struct Bucket([Entry; WAYS]);

/// Eight depth-2 entries (see the module's documentation), one cache line, newest first.
#[repr(align(64))]
struct ShallowBucket([AtomicU64; WAYS]);
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

/// The table's bytes per depth-2 entry: its 8 bytes and its share of the deep part (a fifth of
/// the table).
pub(super) const BYTES_EACH: f64 =
    std::mem::size_of::<AtomicU64>() as f64 * DEEP_SHARE as f64 / (DEEP_SHARE - 1) as f64;

/// The bits of `data` that hold the depth.
const DEPTH: u64 = 0xff;
/// The bits of `data` a probe compares: tag and depth.
const TAG_DEPTH: u64 = 0xffff_0000_0000_0000 | DEPTH;
/// Counts of 2^40 and more (far beyond any position's count at the depths a table helps) are
/// not stored.
pub(super) const COUNT_BITS: u32 = 40;

/// The lock-free part of a count table: a fifth of its bytes in 128-byte buckets for the counts
/// of depth 3 and more, the rest in 64-byte buckets for depth 2 (see the module's
/// documentation).
pub struct Packed {
    /// Counts of depth 3 and more.
    deep: memory::Memory<Bucket>,
    /// Counts of depth 2.
    shallow: memory::Memory<ShallowBucket>,
}

/// A bucket with every entry empty: all bits zero, as memory the system hands out zeroed is
/// (see [`fill`]).
pub(super) trait Empty {
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

/// Writes an empty bucket into each slot of `part`. Memory the system hands out zeroed
/// ([`memory::ZEROED`]) holds empty buckets already (all bits zero): there one byte of each
/// page is written, so that the system maps the page now, not at a probe in the middle of a
/// count; writing every byte again cost as much as the system's own clearing of the pages.
fn fill<B: Empty>(part: &mut [MaybeUninit<B>]) {
    if memory::ZEROED {
        let bytes = std::mem::size_of_val(part);
        let base = part.as_mut_ptr().cast::<u8>();
        for offset in (0..bytes).step_by(memory::PAGE) {
            // SAFETY: `offset` is inside `part`; a zero byte where the memory is zero already.
            // Volatile, so that the write that maps the page is not left out as having no
            // effect.
            unsafe { base.add(offset).write_volatile(0) };
        }
        return;
    }
    for slot in part {
        slot.write(B::empty());
    }
}

/// Writes every bucket of `memory`, by `threads` threads, each its own contiguous part.
pub(super) fn fill_with_threads<B: Empty + Send>(memory: &mut memory::Memory<B>, threads: usize) {
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
    // SAFETY: `fill` wrote every slot, or the memory was zeroed, which is an empty bucket.
    unsafe { memory.assume_filled() };
}

/// The tag and depth a probe for the depth-mixed key `k1` at `depth` looks for.
#[inline(always)]
fn tag_depth(k1: u64, depth: u32) -> u64 {
    (k1 << 48) | (depth as u64 & DEPTH)
}

impl part::Part<u64> for Packed {
    /// The share `deep` of the bytes in whole 128-byte buckets for the counts of depth 3 and
    /// more, the rest in 64-byte buckets for depth 2, at least one bucket each.
    ///
    /// Every bucket is written before counting starts, so the system maps the memory now, not
    /// one page fault at a time in the middle of a count: faults taken during a count are
    /// costly (threads faulting at once contend in the kernel).
    fn with_bytes(bytes: usize, threads: usize, deep: f64) -> Option<Packed> {
        let deep_len = ((bytes as f64 * deep) as usize / std::mem::size_of::<Bucket>()).max(1);
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
