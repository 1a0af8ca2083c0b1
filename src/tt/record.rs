//! Whole records behind locks: a table's wide part, and the statistics records too large for
//! their packed entries.

use super::{bucket_of, with_depth};
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

/// Two records under one lock, in whole cache lines (so that a [`super::Table`]'s parts add up to the
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

impl<R: Copy + Send> super::part::Wide<R> for RecordTable<R> {
    fn with_bytes(bytes: usize) -> Option<RecordTable<R>> {
        RecordTable::with_bytes(bytes)
    }

    fn bytes(&self) -> usize {
        RecordTable::bytes(self)
    }

    fn probe(&self, keys: (u64, u64), depth: u32) -> Option<R> {
        RecordTable::probe(self, keys, depth)
    }

    fn store(&self, keys: (u64, u64), depth: u32, record: R) {
        RecordTable::store(self, keys, depth, record)
    }
}

/// The bytes of one record of a [`RecordTable`] of `R`, its share of its bucket included.
pub(crate) const fn bytes_each<R>() -> f64 {
    std::mem::size_of::<RecordBucket<R>>() as f64 / 2.0
}
