//! The statistics part of a table: records packed into lock-free entries of half a cache line
//! or a whole one, those too large for them whole under a lock.
//!
//! A statistics record is thirteen counts; kept whole with its keys and a lock
//! (`RecordTable`) it takes 160 bytes. Packed:
//! - **Depth 2** (nine in ten of the records a count stores): two plies below a position there
//!   are at most 218 x 218 leaves (the most legal moves a position has), so every field fits in
//!   16 bits, and the record with a 48-bit check in four 64-bit words, 32 bytes, four to a
//!   128-byte bucket, the oldest replaced.
//! - **Depth 3 and more**: the node count in 56 bits beside the depth, the other twelve fields
//!   in 32 bits each, and a 64-bit check: eight words, 64 bytes, two to a 128-byte bucket, the
//!   first keeping the deepest record stored there, the second the newest other.
//! - A record whose fields do not fit (from 2^32 captures or checks, a count of about nine
//!   plies from the start position) is kept whole under a lock, in a sixteenth of the part.
//!
//! The words of an entry are written one by one, so a probe can read an entry half written by
//! another thread, or half moved by a store into the same bucket. The check holds the second
//! key (independent of the bucket's key) mixed with the entry's other words; a probe recomputes
//! the mix from the words it read, so an entry whose words come from two records fails to
//! verify (unless the 48 or 64 bits compared happen to agree): it costs a recount, never a wrong
//! record.

use super::packed::{Empty, fill_with_threads};
use super::record::RecordTable;
use super::{LINE, bucket_of, memory, part, prefetch_lines, with_depth};
use crate::position::zobrist::splitmix;
use crate::stats::Stats;
use std::sync::atomic::{AtomicU64, Ordering};

/// The depth whose records are packed in 16-bit fields.
const SHALLOW: u32 = 2;
/// The bits of one depth-2 field, and of the depth-2 check word's count: nodes plus one (zero
/// is empty).
const FIELD: u64 = 0xffff;
/// The bits of a deeper record's node count; the depth is above them.
const DEEP_NODES: u32 = 56;
/// The share of the part's bytes for the deeper records, in eighths: three, for about a tenth
/// of the records (the start position has 9.4 million distinct positions six plies in, 96.4
/// million seven plies in, OEIS A083276), each twice as large and each saving a larger count.
/// A sparse position counted deep (two bare kings) has few depth-2 records and many deeper
/// ones, and recounts its subtrees over and over when they do not fit.
const DEEP_EIGHTHS: usize = 3;
/// The share of the part's bytes for the records kept whole: one in `WHOLE_SHARE`.
const WHOLE_SHARE: usize = 16;

/// The part's bytes per depth-2 record: its 32 bytes, and the share of the deeper and whole
/// records (the depth-2 records get nine sixteenths of the part).
pub(crate) const BYTES_EACH: f64 =
    std::mem::size_of::<Entry>() as f64 * 16.0 / (16 - 2 * DEEP_EIGHTHS - 16 / WHOLE_SHARE) as f64;

/// A depth-2 record: the check word (48 bits of `key2 ^ mix`, then nodes plus one in the low
/// 16 bits) and the other twelve fields, four to a word, in [`Stats::to_array`]'s order.
struct Entry([AtomicU64; 4]);

/// A deeper record: the check word (`key2` mixed with the depth, `^ mix`), the node count with
/// the depth in the top 8 bits, and the other twelve fields, two to a word.
struct DeepEntry([AtomicU64; 8]);

/// Four depth-2 entries, two cache lines, newest first.
#[repr(align(128))]
struct Bucket([Entry; 4]);

/// Two deeper entries, two cache lines: the deepest, then the newest other.
#[repr(align(128))]
struct DeepBucket([DeepEntry; 2]);
const _: () = assert!(std::mem::size_of::<Bucket>() == 2 * LINE);
const _: () = assert!(std::mem::size_of::<DeepBucket>() == 2 * LINE);

impl Empty for Bucket {
    fn empty() -> Bucket {
        Bucket(std::array::from_fn(|_| {
            Entry(std::array::from_fn(|_| AtomicU64::new(0)))
        }))
    }
}

impl Empty for DeepBucket {
    fn empty() -> DeepBucket {
        DeepBucket(std::array::from_fn(|_| {
            DeepEntry(std::array::from_fn(|_| AtomicU64::new(0)))
        }))
    }
}

/// The statistics part of a table (see the module's documentation).
pub struct CompactStats {
    /// Depth-2 records.
    shallow: memory::Memory<Bucket>,
    /// Deeper records.
    deep: memory::Memory<DeepBucket>,
    /// The records too large for either.
    whole: RecordTable<Stats<u64>>,
}

/// The three words of a depth-2 record's fields after `nodes`, and nodes plus one; `None` if
/// `nodes` does not fit a field (then no field is sure to: each is at most `nodes`).
#[inline(always)]
fn pack(record: &Stats<u64>) -> Option<(u64, [u64; 3])> {
    let a = record.to_array();
    if a[0] >= FIELD {
        return None;
    }
    let word = |i: usize| a[i] | a[i + 1] << 16 | a[i + 2] << 32 | a[i + 3] << 48;
    Some((a[0] + 1, [word(1), word(5), word(9)]))
}

/// The record [`pack`] packed.
#[inline(always)]
fn unpack(nodes_plus_one: u64, words: [u64; 3]) -> Stats<u64> {
    let mut a = [nodes_plus_one - 1; 13];
    for (w, word) in words.iter().enumerate() {
        for f in 0..4 {
            a[1 + 4 * w + f] = word >> (16 * f) & FIELD;
        }
    }
    Stats::from_array(a)
}

/// The seven words after the check of a deeper record at `depth`; `None` if a field does not
/// fit, or the depth (in the eight bits above the node count: a depth of 256 or more, which
/// only a count from the library can reach, would be stored as another and never found).
#[inline(always)]
fn pack_deep(record: &Stats<u64>, depth: u32) -> Option<[u64; 7]> {
    let a = record.to_array();
    if depth >> (64 - DEEP_NODES) != 0
        || a[0] >> DEEP_NODES != 0
        || a[1..].iter().any(|&f| f >> 32 != 0)
    {
        return None;
    }
    let mut words = [a[0] | u64::from(depth) << DEEP_NODES; 7];
    for (w, word) in words[1..].iter_mut().enumerate() {
        *word = a[1 + 2 * w] | a[2 + 2 * w] << 32;
    }
    Some(words)
}

/// The record [`pack_deep`] packed.
#[inline(always)]
fn unpack_deep(words: [u64; 7]) -> Stats<u64> {
    let mut a = [words[0] & ((1 << DEEP_NODES) - 1); 13];
    for (w, word) in words[1..].iter().enumerate() {
        a[1 + 2 * w] = word & 0xffff_ffff;
        a[2 + 2 * w] = word >> 32;
    }
    Stats::from_array(a)
}

/// The words mixed into a check, by steps of splitmix64 (the generator of the Zobrist keys):
/// each step is one-to-one and spreads a change over every bit, so two entries that differ in
/// one word always mix differently.
#[inline(always)]
fn mix(words: &[u64]) -> u64 {
    words.iter().fold(0, |h, &w| splitmix(h ^ w).0)
}

/// The check word of a depth-2 record with the second key `key2`.
#[inline(always)]
fn check(key2: u64, nodes_plus_one: u64, words: [u64; 3]) -> u64 {
    let mixed = mix(&[nodes_plus_one, words[0], words[1], words[2]]);
    (key2 ^ mixed) & !FIELD | nodes_plus_one
}

/// The depth of a deeper entry whose second word is `word`.
#[inline(always)]
fn depth_of(word: u64) -> u64 {
    word >> DEEP_NODES
}

impl CompactStats {
    #[inline(always)]
    fn probe_deep(&self, (key1, key2): (u64, u64), depth: u32) -> Option<Stats<u64>> {
        let k1 = with_depth(key1, depth);
        let k2 = with_depth(key2, depth);
        for e in &bucket_of(self.deep.buckets(), k1).0 {
            let second = e.0[1].load(Ordering::Relaxed);
            // An empty entry (zero) never matches: its depth is 0.
            if depth_of(second) != u64::from(depth) {
                continue;
            }
            let mut words = [second; 7];
            for (i, w) in words.iter_mut().enumerate().skip(1) {
                *w = e.0[i + 1].load(Ordering::Relaxed);
            }
            if e.0[0].load(Ordering::Relaxed) == k2 ^ mix(&words) {
                return Some(unpack_deep(words));
            }
        }
        self.whole.probe((key1, key2), depth)
    }

    /// The first entry keeps the deepest record stored in the bucket (a deeper or equally deep
    /// one takes its place and moves it to the second), the second whatever the first does not:
    /// the deep records save the most work.
    #[inline(always)]
    fn store_deep(&self, (key1, key2): (u64, u64), depth: u32, record: Stats<u64>) {
        let Some(words) = pack_deep(&record, depth) else {
            return self.whole.store((key1, key2), depth, record);
        };
        let k1 = with_depth(key1, depth);
        let k2 = with_depth(key2, depth);
        let [first, second] = &bucket_of(self.deep.buckets(), k1).0;
        let first_depth = depth_of(first.0[1].load(Ordering::Relaxed));
        let slot = if first_depth > u64::from(depth) {
            second
        } else {
            for (from, to) in first.0.iter().zip(&second.0) {
                to.store(from.load(Ordering::Relaxed), Ordering::Relaxed);
            }
            first
        };
        slot.0[0].store(k2 ^ mix(&words), Ordering::Relaxed);
        for (to, w) in slot.0[1..].iter().zip(words) {
            to.store(w, Ordering::Relaxed);
        }
    }
}

impl part::Part<Stats<u64>> for CompactStats {
    /// Three eighths of the bytes for the deeper records, a sixteenth for the whole ones, the
    /// rest for depth 2, at least one bucket each (whatever the share asked for: statistics
    /// records are divided by their own measure); every packed bucket written before counting
    /// starts (see `Packed`).
    fn with_bytes(bytes: usize, threads: usize, _deep: f64) -> Option<CompactStats> {
        let whole = RecordTable::with_bytes(bytes / WHOLE_SHARE)?;
        let deep_len = (bytes / 8 * DEEP_EIGHTHS / std::mem::size_of::<DeepBucket>()).max(1);
        let rest = bytes
            .saturating_sub(whole.bytes())
            .saturating_sub(deep_len * std::mem::size_of::<DeepBucket>());
        let mut deep = memory::Memory::new(deep_len)?;
        let mut shallow = memory::Memory::new((rest / std::mem::size_of::<Bucket>()).max(1))?;
        fill_with_threads(&mut deep, threads);
        fill_with_threads(&mut shallow, threads);
        Some(CompactStats {
            shallow,
            deep,
            whole,
        })
    }

    fn bytes(&self) -> usize {
        std::mem::size_of_val(self.shallow.buckets())
            + std::mem::size_of_val(self.deep.buckets())
            + self.whole.bytes()
    }

    #[inline(always)]
    fn prefetch(&self, key1: u64, depth: u32) {
        if depth == SHALLOW {
            prefetch_lines(bucket_of(self.shallow.buckets(), key1), 2);
        } else {
            prefetch_lines(bucket_of(self.deep.buckets(), with_depth(key1, depth)), 2);
        }
    }

    #[inline(always)]
    fn probe(&self, (key1, key2): (u64, u64), depth: u32) -> Option<Stats<u64>> {
        if depth != SHALLOW {
            return self.probe_deep((key1, key2), depth);
        }
        for e in &bucket_of(self.shallow.buckets(), key1).0 {
            let first = e.0[0].load(Ordering::Relaxed);
            let nodes_plus_one = first & FIELD;
            // An empty entry (zero) never matches: a stored count field is at least one.
            if nodes_plus_one == 0 {
                continue;
            }
            let words = [1, 2, 3].map(|i| e.0[i].load(Ordering::Relaxed));
            if check(key2, nodes_plus_one, words) == first {
                return Some(unpack(nodes_plus_one, words));
            }
        }
        None
    }

    /// As in the depth-2 part of a count table, every entry is equally shallow: the oldest
    /// goes, the others move one slot down, the new record takes the first. A record of 2^16 - 1
    /// leaves or more (none at depth 2 in a legal game, but a count may start anywhere) is not
    /// kept.
    #[inline(always)]
    fn store(&self, (key1, key2): (u64, u64), depth: u32, record: Stats<u64>) {
        if depth != SHALLOW {
            return self.store_deep((key1, key2), depth, record);
        }
        let Some((nodes_plus_one, words)) = pack(&record) else {
            return;
        };
        let bucket = &bucket_of(self.shallow.buckets(), key1).0;
        for i in (0..bucket.len() - 1).rev() {
            for w in 0..4 {
                let v = bucket[i].0[w].load(Ordering::Relaxed);
                bucket[i + 1].0[w].store(v, Ordering::Relaxed);
            }
        }
        let first = check(key2, nodes_plus_one, words);
        for (slot, v) in bucket[0]
            .0
            .iter()
            .zip([first, words[0], words[1], words[2]])
        {
            slot.store(v, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tt::part::Part;

    fn record(seed: u64) -> Stats<u64> {
        // Thirteen distinct fields, each below `nodes`.
        let nodes = 40_000 + seed % 7_000;
        Stats::from_array(std::array::from_fn(|i| {
            if i == 0 {
                nodes
            } else {
                (seed * 131 + i as u64 * 977) % nodes
            }
        }))
    }

    #[test]
    fn a_depth_2_record_comes_back_whole_and_only_for_its_keys() {
        let part = CompactStats::with_bytes(0, 1, 0.0).unwrap(); // one bucket of each kind
        let r = record(5);
        part.store((1, 0xABCD_EF01_2345_6789), 2, r);
        assert_eq!(part.probe((1, 0xABCD_EF01_2345_6789), 2), Some(r));
        // Another second key (one bit among the compared 48), or another depth: a miss.
        assert_eq!(part.probe((1, 0xABCD_EF01_2345_6789 ^ 1 << 40), 2), None);
        assert_eq!(part.probe((1, 0xABCD_EF01_2345_6789), 3), None);
        // Zero counts are kept; so is a count one below the field's limit, not one at it.
        let zero = Stats::default();
        part.store((2, 0x1111_0000_0000_0000), 2, zero);
        assert_eq!(part.probe((2, 0x1111_0000_0000_0000), 2), Some(zero));
        let mut big = Stats {
            nodes: FIELD - 1,
            double_discovered_mates: FIELD - 2,
            ..Stats::default()
        };
        part.store((3, 0x2222_0000_0000_0000), 2, big);
        assert_eq!(part.probe((3, 0x2222_0000_0000_0000), 2), Some(big));
        big.nodes = FIELD;
        part.store((4, 0x3333_0000_0000_0000), 2, big);
        assert_eq!(part.probe((4, 0x3333_0000_0000_0000), 2), None);
    }

    #[test]
    fn the_fifth_record_in_a_bucket_pushes_out_the_oldest() {
        let part = CompactStats::with_bytes(0, 1, 0.0).unwrap();
        let key = |k: u64| (k, k.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        for k in 1..=5 {
            part.store(key(k), 2, record(k));
        }
        assert_eq!(part.probe(key(1), 2), None);
        for k in 2..=5 {
            assert_eq!(part.probe(key(k), 2), Some(record(k)));
        }
    }

    #[test]
    fn an_entry_with_words_of_two_records_fails_to_verify() {
        let part = CompactStats::with_bytes(0, 1, 0.0).unwrap();
        let (a, b) = ((7, 0x7777_0000_0000_0000), (8, 0x8888_0000_0000_0000));
        part.store(a, 2, record(1));
        part.store(b, 2, record(2));
        // As a write torn by another thread leaves it: the newest record's check word with
        // one of the older record's field words, in each position.
        let bucket = &part.shallow.buckets()[0].0;
        for w in 1..4 {
            let kept = bucket[0].0[w].load(Ordering::Relaxed);
            let torn = bucket[1].0[w].load(Ordering::Relaxed);
            bucket[0].0[w].store(torn, Ordering::Relaxed);
            assert_eq!(part.probe(b, 2), None, "word {w} torn");
            bucket[0].0[w].store(kept, Ordering::Relaxed);
            assert_eq!(part.probe(b, 2), Some(record(2)));
        }
    }

    #[test]
    fn a_deeper_record_comes_back_whole_in_its_entry_or_in_the_locked_part() {
        let part = CompactStats::with_bytes(0, 1, 0.0).unwrap();
        let keys = (9, 0x0123_4567_89AB_CDEF);
        let mut r = record(3);
        r.nodes = (1 << DEEP_NODES) - 1;
        r.double_discovered_mates = u32::MAX.into();
        part.store(keys, 7, r);
        assert_eq!(part.probe(keys, 7), Some(r));
        assert_eq!(part.probe(keys, 6), None);
        assert_eq!(part.probe((keys.0, keys.1 ^ 1), 7), None);
        assert!(part.whole.probe(keys, 7).is_none(), "packed, not locked");
        // Too large for the entry's fields: kept whole, and found there.
        let mut big = r;
        big.captures = 1 << 32;
        part.store(keys, 9, big);
        assert_eq!(part.probe(keys, 9), Some(big));
        big.nodes = 1 << DEEP_NODES;
        big.captures = 0;
        part.store(keys, 10, big);
        assert_eq!(part.probe(keys, 10), Some(big));
        assert_eq!(part.whole.probe(keys, 10), Some(big));
        // A depth beyond the entry's eight bits: kept whole, and found there.
        part.store(keys, 256 + 7, r);
        assert_eq!(part.probe(keys, 256 + 7), Some(r));
        assert_eq!(part.whole.probe(keys, 256 + 7), Some(r));
        part.store(keys, 255, r);
        assert!(part.whole.probe(keys, 255).is_none(), "depth 255 is packed");
        assert_eq!(part.probe(keys, 255), Some(r));
    }

    #[test]
    fn a_deeper_bucket_keeps_the_deepest_record_and_the_newest_other() {
        let part = CompactStats::with_bytes(0, 1, 0.0).unwrap();
        let key = |k: u64| (k, k.wrapping_mul(0xC2B2_AE3D_27D4_EB4F));
        part.store(key(1), 6, record(1));
        for k in 2..6 {
            part.store(key(k), 3, record(k));
        }
        assert_eq!(part.probe(key(1), 6), Some(record(1)));
        assert_eq!(part.probe(key(5), 3), Some(record(5)));
        assert_eq!(part.probe(key(4), 3), None);
        // An equally deep record takes the first place and moves the old one to the second.
        part.store(key(7), 6, record(7));
        assert_eq!(part.probe(key(7), 6), Some(record(7)));
        assert_eq!(part.probe(key(1), 6), Some(record(1)));
        assert_eq!(part.probe(key(5), 3), None);
    }

    #[test]
    fn a_deeper_entry_with_words_of_two_records_fails_to_verify() {
        let part = CompactStats::with_bytes(0, 1, 0.0).unwrap();
        let (a, b) = ((7, 0x7777_0000_0000_0000), (8, 0x8888_0000_0000_0000));
        part.store(a, 4, record(1));
        part.store(b, 4, record(2));
        let [newest, older] = &part.deep.buckets()[0].0;
        for w in 1..8 {
            let kept = newest.0[w].load(Ordering::Relaxed);
            newest.0[w].store(older.0[w].load(Ordering::Relaxed), Ordering::Relaxed);
            assert_eq!(part.probe(b, 4), None, "word {w} torn");
            newest.0[w].store(kept, Ordering::Relaxed);
            assert_eq!(part.probe(b, 4), Some(record(2)));
        }
    }
}
