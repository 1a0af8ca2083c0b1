//! The wide part of a count table: node counts from 2^40 on, in 48-byte slots under a lock.
//!
//! Such counts are few in a dense tree (the start position's perft 10 has about twenty nodes
//! whose count passes 2^40), but in a sparse tree counted deep they are most of what is kept:
//! two bare kings at depth 64 have about 3,600 positions on each ply, and the count of every
//! node more than fourteen plies above the leaves passes 2^40, so nearly 180,000 of the
//! 220,000 records are wide. Each of them saves a subtree of astronomic size, and where too few
//! fit, the plies between two kept ones are counted again on every visit: the time grows
//! exponentially with the number of plies missing. So a wide record is kept in as few bytes as
//! its count allows (256 bits: every count of a tree whose nodes have fewer than sixteen moves
//! on average, to depth 64), five to a bucket.

use super::{bucket_of, part, with_depth};
use crate::nodes::Nodes;
use std::sync::Mutex;

/// The 64-bit words of a kept count: counts from 2^256 on are not kept (a recount, never a
/// wrong one). They come only from trees that no machine counts to the end.
const WORDS: usize = 4;
/// Records per bucket.
const SLOTS: usize = 5;

/// One record: both keys, the depth and the count. All zero is an empty slot (no stored depth
/// is 0).
#[derive(Clone, Copy, Default)]
struct Slot {
    /// The Zobrist key with its low 8 bits replaced by the depth.
    tag: u64,
    /// The second key.
    key2: u64,
    /// The count, least significant word first.
    count: [u64; WORDS],
}

/// The tag of the position with Zobrist key `key1` at `depth`.
fn tag(key1: u64, depth: u32) -> u64 {
    key1 & !0xff | u64::from(depth & 0xff)
}

/// Five records under one lock, in four cache lines.
#[repr(align(64))]
struct Bucket(Mutex<[Slot; SLOTS]>);
const _: () = assert!(std::mem::size_of::<Bucket>() == 256);

/// The bytes a wide record takes, its share of the bucket's lock included.
pub(super) const BYTES_EACH: f64 = std::mem::size_of::<Bucket>() as f64 / SLOTS as f64;

/// Counts from 2^40 on, each compared on both keys (56 + 64 bits) and the depth, so a
/// collision never returns another position's count, and written under the bucket's lock, so
/// never read half written.
pub struct WideCounts {
    buckets: Vec<Bucket>,
}

impl WideCounts {
    fn bucket(&self, key1: u64, depth: u32) -> std::sync::MutexGuard<'_, [Slot; SLOTS]> {
        let bucket = bucket_of(&self.buckets, with_depth(key1, depth));
        // A lock poisoned by a panicking thread holds whole records: still usable.
        bucket.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl part::Wide<Nodes> for WideCounts {
    fn with_bytes(bytes: usize) -> Option<WideCounts> {
        let count = (bytes / std::mem::size_of::<Bucket>()).max(1);
        let mut buckets = Vec::new();
        buckets.try_reserve_exact(count).ok()?;
        buckets.extend((0..count).map(|_| Bucket(Mutex::new([Slot::default(); SLOTS]))));
        Some(WideCounts { buckets })
    }

    fn bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    fn probe(&self, (key1, key2): (u64, u64), depth: u32) -> Option<Nodes> {
        let tag = tag(key1, depth);
        let bucket = self.bucket(key1, depth);
        bucket
            .iter()
            .find(|s| s.tag == tag && s.key2 == key2)
            .map(|s| Nodes::from_words(s.count))
    }

    /// An empty slot takes the record, or else the one holding the shallowest record (the
    /// cheapest to count again): deep records, each of which saves the most, stay.
    fn store(&self, (key1, key2): (u64, u64), depth: u32, count: Nodes) {
        let Some(words) = count.to_words::<WORDS>() else {
            return;
        };
        let tag = tag(key1, depth);
        let mut bucket = self.bucket(key1, depth);
        if bucket.iter().any(|s| s.tag == tag && s.key2 == key2) {
            return;
        }
        let rank = |s: &Slot| if s.tag == 0 { 0 } else { 1 + (s.tag & 0xff) };
        let victim = (1..SLOTS).fold(0, |v, i| {
            if rank(&bucket[i]) < rank(&bucket[v]) {
                i
            } else {
                v
            }
        });
        bucket[victim] = Slot {
            tag,
            key2,
            count: words,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::super::part::Wide;
    use super::*;

    #[test]
    fn a_full_bucket_gives_up_its_shallowest_record_and_keeps_the_deep_ones() {
        let table = WideCounts::with_bytes(0).unwrap(); // one bucket: every key meets every other
        let big = |n: u64| Nodes::from(u128::MAX) * n;
        for (i, depth) in [20, 30, 12, 40, 25].into_iter().enumerate() {
            table.store(((i as u64 + 1) << 8, i as u64), depth, big(i as u64 + 1));
        }
        // A sixth record pushes out the shallowest (depth 12), none of the others.
        table.store((9 << 8, 9), 22, big(9));
        assert_eq!(table.probe((3 << 8, 2), 12), None);
        assert_eq!(table.probe((9 << 8, 9), 22), Some(big(9)));
        assert_eq!(table.probe((4 << 8, 3), 40), Some(big(4)));
        assert_eq!(table.probe((1 << 8, 0), 20), Some(big(1)));
        // Both keys and the depth must match.
        assert_eq!(table.probe((4 << 8, 4), 40), None);
        assert_eq!(table.probe((4 << 8, 3), 39), None);
        // A count past 256 bits is not kept.
        let huge = big(1) * big(1) * big(1);
        table.store((7 << 8, 7), 50, huge);
        assert_eq!(table.probe((7 << 8, 7), 50), None);
    }
}
