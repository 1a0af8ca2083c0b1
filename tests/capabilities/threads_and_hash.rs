//! Threads and the transposition table never change a count: every suite position under every
//! combination of sliders, threads and hash (including a one-bucket table, where almost every
//! probe meets another position's entry) gives the published count.
//!
//! Counts asserted besides the suites': Kiwipete's perft 3, 4 and 5 (97,862, 4,085,603,
//! 193,690,690), its statistics at depth 3 (993 checks, 1 mate) and
//! position 3's perft 7 (178,633,661) (Chess Programming Wiki, "Perft Results"). The other numbers are table entries the tests
//! store themselves and read back.

use crate::common;

use perft::perft::{Cancelled, Counting, Perft, Watch};
use perft::tt::Table;
use perft::{Classical, Magic, Nodes, Position, Sliders};

fn check<S: Sliders>(suites: &[&str], opts: Perft<'_>, max_nodes: u128) -> usize {
    let mut checked = 0;
    for name in suites {
        for entry in common::suite(name) {
            let pos = perft::suite::parse_position(&entry, false).unwrap();
            for &(depth, expected) in &entry.counts {
                if expected > max_nodes.into() {
                    continue;
                }
                let got = opts.total::<S>(&pos, depth);
                assert_eq!(
                    got,
                    expected,
                    "{name}:{} depth {depth} ({} threads, hash {})",
                    entry.line,
                    opts.threads,
                    opts.table.is_some()
                );
                checked += 1;
            }
        }
    }
    checked
}

const ALL: [&str; 4] = [
    "suites/standard.epd",
    "tests/data/perftsuite.epd",
    "suites/tricky.epd",
    "suites/chess960.epd",
];

#[test]
fn hashed_counts_match_on_every_suite_position() {
    let table = Table::new(16).unwrap();
    let opts = Perft::new().table(Some(&table));
    assert!(check::<Magic>(&ALL, opts, 1_000_000) > 4_000);
}

#[test]
fn hashed_and_threaded_counts_match() {
    let table = Table::new(16).unwrap();
    let opts = Perft::new().threads(3).table(Some(&table));
    assert!(check::<Classical>(&common::STANDARD_SUITES, opts, 10_000_000) > 700);
}

#[test]
fn threaded_counts_match() {
    let opts = Perft::new().threads(2);
    assert!(check::<Magic>(&common::STANDARD_SUITES, opts, 10_000_000) > 700);
    let opts = Perft::new().counting(Counting::NoBulk).threads(2);
    assert!(
        check::<Magic>(
            &["suites/standard.epd", "suites/tricky.epd"],
            opts,
            1_000_000
        ) == 96
    );
}

#[test]
fn a_one_bucket_table_collides_constantly_and_stays_exact() {
    let table = Table::new(0).unwrap();
    assert_eq!(table.bytes(), 448);
    let opts = Perft::new().threads(2).table(Some(&table));
    assert!(
        check::<Magic>(
            &["suites/standard.epd", "suites/tricky.epd"],
            opts,
            2_000_000
        ) == 110
    );
    let opts = Perft::new().counting(Counting::NoBulk).table(Some(&table));
    assert!(check::<Magic>(&["suites/standard.epd"], opts, 200_000) > 20);
}

#[test]
fn a_full_bucket_keeps_the_deeper_entries_and_the_newer_shallow_ones() {
    // One bucket of eight entries for depth 3 and more: a depth-5 count, then nine depth-3
    // counts. The depth-5 entry outlives them all; of the depth-3 ones the two stored first
    // make room for the last two, and the other seven are still there.
    let table = Table::new(0).unwrap();
    let keys = |i: u64| {
        (
            i.wrapping_mul(0x9E37_79B9_7F4A_7C15),
            i ^ 0x5555_AAAA_0F0F_F0F0,
        )
    };
    let (k1, k2) = keys(100);
    table.store((k1, k2), 5, 123_456);
    for i in 0..9 {
        let (k1, k2) = keys(i);
        table.store((k1, k2), 3, 1000 + i);
    }
    assert_eq!(table.probe((k1, k2), 5), Some(123_456));
    assert_eq!(
        table.probe((k1, k2), 3),
        None,
        "the same keys at another depth"
    );
    for i in 0..9 {
        let (k1, k2) = keys(i);
        let want = if i < 2 { None } else { Some(1000 + i) };
        assert_eq!(table.probe((k1, k2), 3), want, "entry {i}");
    }
    // A count the position's keys do not verify is never returned.
    let (k1, _) = keys(8);
    assert_eq!(table.probe((k1, 0), 3), None);
}

#[test]
fn deep_hashed_counts() {
    // Start position depth 7 (3,195,901,860) would take too long for CI without the table's
    // help; with it, depth 6 of Kiwipete and position 3's depth 7 run in a few seconds.
    // Mapped by two threads, as `--threads 2 --hash 64` does.
    let table = Table::with_threads(64, 2).unwrap();
    let opts = Perft::new().threads(2).table(Some(&table));
    let kiwipete =
        Position::from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
            .unwrap();
    assert_eq!(opts.total::<Magic>(&kiwipete, 5), 193_690_690);
    let pos3 = Position::from_fen("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1").unwrap();
    assert_eq!(opts.total::<Magic>(&pos3, 7), 178_633_661);
}

#[test]
fn threaded_divide_matches_single_threaded_divide() {
    let pos =
        Position::from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
            .unwrap();
    let one = (Perft::new()).divide::<Magic>(&pos, 4);
    let table = Table::with_threads(8, 4).unwrap();
    let many = (Perft::new().threads(4).table(Some(&table))).divide::<Magic>(&pos, 4);
    assert_eq!(one, many);
    assert_eq!(one.iter().map(|x| x.1).sum::<Nodes>(), 4_085_603);
}

#[test]
fn a_table_too_large_to_allocate_is_an_error() {
    // 2^40 MiB is more memory than any machine can map.
    let err = Table::<u64>::new(1 << 40)
        .err()
        .expect("allocation must fail");
    let err = err.to_string();
    assert!(
        err.starts_with("cannot allocate a 1099511627776 MiB hash table")
            && err.ends_with(" (try a smaller --hash)"),
        "{err}"
    );
}

/// A count through a table adds what the table holds for the positions it meets: a record
/// stored by hand, wrong on purpose, moves the total by exactly its error times the number of
/// paths to its position, in the depth-2 part and in the deeper one; a fresh table gives the
/// published count. (A table that was never consulted would pass every other hashed test.)
#[test]
fn a_table_is_consulted_for_the_positions_it_holds() {
    let start = Position::startpos();
    // The start position's perft 3 and 5 (8,902 and 4,865,609, Chess Programming Wiki). The
    // record: the position after `moves`, at the depth left, reached by `paths` move orders
    // (1. e4 e5 2. d4 also as 1. d4 e5 2. e4). With threads the root is split into tasks below
    // its children, so a child of the root is looked up by one thread only.
    type Case = (&'static [&'static str], u32, u64, u64, &'static [usize]);
    let cases: [Case; 3] = [
        (&["e2e4"], 3, 8_902, 1, &[1, 2]),
        (&["e2e4"], 5, 4_865_609, 1, &[1]),
        (&["e2e4", "e7e5", "d2d4"], 5, 4_865_609, 2, &[1, 2]),
    ];
    for (moves, depth, published, paths, threads) in cases {
        let mut node = start.clone();
        perft::movegen::play_uci_moves(&mut node, moves.iter().copied()).unwrap();
        let left = depth - moves.len() as u32;
        // The node's own count, from shakmaty's divide.
        let truth: u64 = common::shakmaty_divide(&node.to_fen(), false, left)
            .into_iter()
            .map(|(_, n)| n)
            .sum();
        for &threads in threads {
            let table = Table::new(16).unwrap();
            let count = Perft::new().threads(threads).table(Some(&table));
            assert_eq!(count.total::<Magic>(&start, depth), published);
            let poisoned = Table::new(16).unwrap();
            poisoned.store((node.key(), node.key2()), left, truth + 1000);
            let count = Perft::new().threads(threads).table(Some(&poisoned));
            let got = count.total::<Magic>(&start, depth);
            let want = published + paths * 1000;
            assert_eq!(got, want, "{moves:?}, depth {depth}, {threads} threads");
        }
    }
}

/// A table of more than 4 GiB (offsets past 32 bits) gives the published count: the start
/// position's perft 6, 119,060,324.
#[test]
fn a_table_past_4_gib_is_exact() {
    let table = Table::new(4200).unwrap();
    let count = Perft::new().threads(2).table(Some(&table));
    assert_eq!(
        count.total::<Magic>(&Position::startpos(), 6),
        119_060_324u64
    );
}

#[test]
fn table_size_is_the_size_asked_for() {
    // Any number of buckets, not only powers of two: 20 GiB on a 24 GB machine.
    assert_eq!(Table::<u64>::new(64).unwrap().bytes(), 64 << 20);
    assert_eq!(Table::<u64>::new(48).unwrap().bytes(), 48 << 20);
    assert_eq!(Table::<u64>::new(3).unwrap().bytes(), 3 << 20);
    // At least one bucket in each part: 128 bytes for depth 3 and more, 64 for depth 2, 256
    // (four cache lines: a lock and five records) for counts past 2^40.
    assert_eq!(Table::<u64>::new(0).unwrap().bytes(), 448);
    // More mapping threads than pages: the one page is mapped once.
    assert_eq!(Table::<u64>::with_threads(0, 3).unwrap().bytes(), 448);
    assert_eq!(Table::<u64>::with_threads(1, 7).unwrap().bytes(), 1 << 20);
}

#[test]
fn the_second_key_tells_apart_positions_that_differ_in_one_detail() {
    // Side to move, each castling right, the en-passant square, one piece's kind or colour or
    // square: every pair must differ in the second key, as it must in the Zobrist key.
    let fens = [
        "r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1",
        "r3k2r/8/8/3pP3/8/8/8/R3K2R b KQkq - 0 1",
        "r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq - 0 1",
        "r3k2r/8/8/3pP3/8/8/8/R3K2R w Qkq d6 0 1",
        "r3k2r/8/8/3pP3/8/8/8/R3K2R w Kkq d6 0 1",
        "r3k2r/8/8/3pP3/8/8/8/R3K2R w KQq d6 0 1",
        "r3k2r/8/8/3pP3/8/8/8/R3K2R w KQk d6 0 1",
        "r3k2r/8/8/3pP3/8/8/8/R3K2R w - d6 0 1",
        "r3k2r/8/8/3pP3/8/8/8/R3K2Q w Qkq d6 0 1",
        "r3k2r/8/8/3pP3/8/8/8/R3K2r w Qkq d6 0 1",
        "r3k2r/8/8/3pP3/8/8/7R/R3K3 w Qkq d6 0 1",
    ];
    let keys: Vec<(u64, u64)> = fens
        .iter()
        .map(|f| {
            let p = Position::from_fen(f).unwrap();
            (p.key(), p.key2())
        })
        .collect();
    for i in 0..keys.len() {
        for j in 0..i {
            assert_ne!(keys[i].0, keys[j].0, "{} / {}", fens[i], fens[j]);
            assert_ne!(keys[i].1, keys[j].1, "{} / {}", fens[i], fens[j]);
        }
    }
    // The same position from two FENs (move counters differ) has the same keys.
    let a = Position::from_fen("r3k2r/8/8/3pP3/8/8/8/R3K2R b KQkq - 3 9").unwrap();
    assert_eq!((a.key(), a.key2()), keys[1]);
}

#[test]
fn an_auto_table_is_sized_for_the_count_and_capped_by_memory() {
    use perft::tt::auto_mb;
    const GIB: u64 = 1 << 30;
    // Positions bounded only by the node counts, as in a full board.
    const DENSE: f64 = f64::INFINITY;
    // Below depth 3 nothing but the root would be looked up: no table.
    assert_eq!(auto_mb::<u64>(400.0, 2, DENSE, Some(16 * GIB)), 0);
    assert_eq!(auto_mb::<u64>(0.0, 6, DENSE, Some(16 * GIB)), 0);
    // Deeper counts get larger tables, never more than the memory less a tenth (at least 1 GiB
    // left over), never less than 1 MiB.
    let sizes: Vec<usize> = (4..=10)
        .map(|d| auto_mb::<u64>(20f64.powi(d as i32), d, DENSE, Some(24 * GIB)))
        .collect();
    assert!(sizes.windows(2).all(|w| w[0] <= w[1]), "{sizes:?}");
    assert!(sizes[0] >= 1 && sizes[0] < sizes[6], "{sizes:?}");
    assert_eq!(
        auto_mb::<u64>(1e15, 10, DENSE, Some(24 * GIB)),
        (24 * GIB - 24 * GIB / 10) as usize >> 20
    );
    assert_eq!(auto_mb::<u64>(1e15, 10, DENSE, Some(GIB / 2)), 1);
    assert_eq!(
        auto_mb::<u64>(1e15, 10, DENSE, None),
        1,
        "1 GiB assumed when unknown, all kept free"
    );
    // The start position's perft 8 (84,998,978,956 leaves) meets 9,417,681 distinct positions
    // two plies above the leaves (OEIS A083276), 90 MiB at one 8-byte depth-2 entry each and
    // the deep part's fifth of the table beside them: the table holds two entries for each
    // estimated one, so between a quarter of one each and five each.
    let mb = auto_mb::<u64>(84_998_978_956.0, 8, DENSE, Some(24 * GIB));
    assert!((22..=449).contains(&mb), "{mb} MiB");
    // A statistics record takes about five times a count's room (a 32-byte depth-2 entry and
    // its share of the deeper records, against 8 bytes and theirs): the same count's
    // statistics get a table that much larger.
    let stats = auto_mb::<perft::stats::Stats<u64>>(84_998_978_956.0, 8, DENSE, Some(24 * GIB));
    assert!((4 * mb..=6 * mb).contains(&stats), "{stats} MiB for {mb}");
    // Its perft 9 (2,439,530,234,167) meets 96,400,068 (919 MiB at one entry each): a small
    // table gets more than one entry each, up to 8 GiB, not the whole memory.
    let mb = auto_mb::<u64>(2_439_530_234_167.0, 9, DENSE, Some(24 * GIB));
    assert!((919..=8192).contains(&mb), "{mb} MiB");
    // Where one entry each is over the 8 GiB cap already, one each it stays: perft 10
    // (988,187,354 distinct, 9.2 GiB at one each) gets about that, not the 21.6 GiB that the
    // memory would allow. (The binary estimates perft 10's leaves from perft 3 at a third of
    // the true count, so `--hash auto` gives it the cap, 8 GiB.)
    let mb = auto_mb::<u64>(69_352_859_712_417.0, 10, DENSE, Some(24 * GIB));
    assert!((8193..=2 * 9420).contains(&mb), "{mb} MiB");
}

#[test]
fn depth_2_entries_verify_the_second_key_and_keep_zero_counts() {
    // One bucket per part: every key meets every other.
    let table = Table::new(0).unwrap();
    let (key1, key2) = (0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210);
    // An empty entry is all zeros; a second key whose 48 compared bits are zero must not match it.
    assert_eq!(table.probe((key1, 0), 2), None);
    assert_eq!(table.probe((key1, key2), 2), None);
    // A count of zero (no legal moves two plies down) is a count, not an empty entry.
    table.store((key1, 0), 2, 0);
    assert_eq!(table.probe((key1, 0), 2), Some(0));
    table.store((key1, key2), 2, 47_524);
    assert_eq!(table.probe((key1, key2), 2), Some(47_524));
    assert_eq!(table.probe((key1, 0), 2), Some(0));
    // Another second key in the same bucket: 48 bits differ, so no match.
    assert_eq!(table.probe((key1, key2 ^ 1 << 40), 2), None);
    // Same keys at another depth: the deep part, not this entry.
    assert_eq!(table.probe((key1, key2), 3), None);
    // Counts that do not fit the entry's 16 bits are not stored.
    table.store((!key1, !key2), 2, 0xffff);
    assert_eq!(table.probe((!key1, !key2), 2), None);
    // Eight entries to a bucket: the ninth pushes out the oldest.
    for i in 1..=8u64 {
        table.store((key1, key2 ^ i << 32), 2, i);
    }
    assert_eq!(table.probe((key1, key2 ^ 8 << 32), 2), Some(8));
    assert_eq!(table.probe((key1, key2 ^ 1 << 32), 2), Some(1));
    assert_eq!(table.probe((key1, key2), 2), None);
}

/// A count a `Watch` follows goes through tasks on one thread too: its total and divide are the
/// published counts, every task is seen done, and once the watch is cancelled every kind of
/// count returns `Err(Cancelled)` instead of a partial number.
#[test]
fn a_watched_count_is_exact_and_a_cancelled_one_says_so() {
    let kiwipete = Position::from_fen(common::KIWIPETE).unwrap();
    let watch = Watch::new();
    for threads in [1, 2] {
        let count = Perft::new().threads(threads).watch(&watch);
        let total = count.total::<Magic>(&kiwipete, 4);
        assert_eq!(total, Ok(Nodes::from(4_085_603u64)), "{threads} threads");
        let (done, all) = watch.progress();
        assert!(all > 1 && done == all, "{done} of {all} tasks");
        let lines = count.divide::<Magic>(&kiwipete, 3).unwrap();
        assert_eq!(lines.len(), 48);
        let sum: Nodes = lines.iter().map(|&(_, n)| n).sum();
        assert_eq!(sum, Nodes::from(97_862u64));
        let stats = Perft::stats().threads(threads).watch(&watch);
        let s = stats.total::<Magic>(&kiwipete, 3).unwrap();
        assert_eq!((s.checks(), s.checkmates()), (993u64.into(), 1u64.into()));
    }
    watch.cancel();
    let count = Perft::new().watch(&watch);
    assert_eq!(count.total::<Magic>(&kiwipete, 4), Err(Cancelled));
    assert_eq!(count.divide::<Magic>(&kiwipete, 4), Err(Cancelled));
    let stats = Perft::stats().watch(&watch);
    assert!(stats.total::<Magic>(&kiwipete, 3).is_err());
}
