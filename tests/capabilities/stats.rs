//! Leaf statistics (`perft --stats`): the published Perft Results values (Chess Programming
//! Wiki, and the Grand Chess Tree's finer split of the same depths), with threads and a
//! one-bucket table; and a differential test that classifies every leaf with shakmaty's own
//! moves and checkers. The command's table, JSON and divide: `stats_command.rs`.

use crate::common::{self, KIWIPETE, START, shakmaty_stats as theirs};

use perft::attacks::magic::Prng;
use perft::cpu::{Simd, SimdKind};
use perft::movegen::legal_moves;
use perft::perft::Perft;
use perft::stats::{Stats, StatsTable};
use perft::{Classical, Magic, Position, Sliders};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position as _};

const POS3: &str = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -";
const POS4: &str = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1";

/// The Wiki's columns: nodes, captures, e.p., castles, promotions, checks, discovery checks,
/// double checks, checkmates.
type Wiki = [u64; 9];

fn wiki(s: &Stats) -> Wiki {
    [
        s.nodes,
        s.captures,
        s.enpassants,
        s.castles,
        s.promotions,
        s.checks(),
        s.discovery_checks(),
        s.double_checks(),
        s.checkmates(),
    ]
    .map(|n| n.to_u64().expect("these counts fit in 64 bits"))
}

/// Chess Programming Wiki, "Perft Results", per depth from 1.
const PUBLISHED: [(&str, &[Wiki]); 4] = [
    (
        START,
        &[
            [20, 0, 0, 0, 0, 0, 0, 0, 0],
            [400, 0, 0, 0, 0, 0, 0, 0, 0],
            [8902, 34, 0, 0, 0, 12, 0, 0, 0],
            [197281, 1576, 0, 0, 0, 469, 0, 0, 8],
            [4865609, 82719, 258, 0, 0, 27351, 6, 0, 347],
        ],
    ),
    (
        KIWIPETE,
        &[
            [48, 8, 0, 2, 0, 0, 0, 0, 0],
            [2039, 351, 1, 91, 0, 3, 0, 0, 0],
            [97862, 17102, 45, 3162, 0, 993, 0, 0, 1],
            [4085603, 757163, 1929, 128013, 15172, 25523, 42, 6, 43],
        ],
    ),
    (
        POS3,
        &[
            [14, 1, 0, 0, 0, 2, 0, 0, 0],
            [191, 14, 0, 0, 0, 10, 0, 0, 0],
            [2812, 209, 2, 0, 0, 267, 3, 0, 0],
            [43238, 3348, 123, 0, 0, 1680, 106, 0, 17],
            [674624, 52051, 1165, 0, 0, 52950, 1292, 3, 0],
            [11030083, 940350, 33325, 0, 7552, 452473, 26067, 0, 2733],
        ],
    ),
    (
        POS4,
        &[
            [6, 0, 0, 0, 0, 0, 0, 0, 0],
            [264, 87, 0, 6, 48, 10, 0, 0, 0],
            [9467, 1021, 4, 0, 120, 38, 2, 0, 22],
            [422333, 131393, 0, 7795, 60032, 15492, 19, 0, 5],
        ],
    ),
];

fn check_published<S: Sliders>(threads: usize, table: Option<&StatsTable>, simd: Simd) {
    for (fen, rows) in PUBLISHED {
        let pos = Position::from_fen(fen).unwrap();
        for (i, row) in rows.iter().enumerate() {
            let depth = i as u32 + 1;
            let got = Perft::stats()
                .threads(threads)
                .table(table)
                .simd(simd)
                .total::<S>(&pos, depth);
            assert_eq!(
                wiki(&got),
                *row,
                "{fen} depth {depth}, {threads} threads, table {}, {}",
                table.is_some(),
                simd.describe()
            );
            // The divide's rows add up to the total.
            let sum = Perft::stats()
                .threads(threads)
                .table(table)
                .simd(simd)
                .divide::<S>(&pos, depth)
                .into_iter()
                .fold(Stats::default(), |a, (_, b)| a + b);
            assert_eq!(sum, got, "divide of {fen} depth {depth}");
        }
    }
}

#[test]
fn published_values_single_threaded() {
    check_published::<Magic>(1, None, Simd::detect());
}

#[test]
fn published_values_with_threads_and_tables() {
    let one_bucket = StatsTable::new(0).unwrap();
    check_published::<Magic>(2, None, Simd::detect());
    check_published::<Magic>(3, Some(&one_bucket), Simd::detect());
    check_published::<Classical>(1, Some(&StatsTable::new(16).unwrap()), Simd::detect());
}

/// The statistics are compiled once per copy of the hot code: the baseline copy (what a CPU
/// without the x86-64-v3 instructions runs) gives the published values too, as does the
/// x86-64-v3 copy where this CPU runs it, one board at a time, in AVX2 lanes and in AVX-512
/// lanes.
#[test]
fn published_values_in_every_copy_of_the_code() {
    check_published::<Magic>(1, None, Simd::NONE);
    check_published::<Magic>(2, Some(&StatsTable::new(1).unwrap()), Simd::NONE);
    crate::paths::ran(crate::paths::STATS_BASELINE);
    if Simd::detect().kind() == SimdKind::None {
        eprintln!("skipped the x86-64-v3 copy: this CPU lacks its instructions");
        return;
    }
    check_published::<Magic>(1, None, Simd::one_board());
    crate::paths::ran(crate::paths::STATS_V3);
    let avx2 = Simd::new(SimdKind::Avx2).expect("a CPU with the x86-64-v3 copy has AVX2 lanes");
    check_published::<Magic>(1, None, avx2);
    check_published::<Magic>(2, Some(&StatsTable::new(1).unwrap()), avx2);
    check_published::<Classical>(1, None, avx2);
    crate::paths::ran(crate::paths::STATS_AVX2);
    let Ok(lanes) = Simd::new(SimdKind::Avx512) else {
        eprintln!("skipped the AVX-512 lanes: this CPU lacks their instructions");
        return;
    };
    check_published::<Magic>(1, None, lanes);
    check_published::<Magic>(2, Some(&StatsTable::new(1).unwrap()), lanes);
    check_published::<Classical>(1, None, lanes);
    #[cfg(target_arch = "x86_64")]
    if perft::attacks::Pext::available() {
        check_published::<perft::attacks::Pext>(1, None, lanes);
    }
    crate::paths::ran(crate::paths::STATS_AVX512);
}

#[test]
fn the_finer_split_as_published() {
    let start = Perft::stats()
        .threads(2)
        .total::<Magic>(&Position::from_fen(START).unwrap(), 5);
    let expected = Stats::<u64> {
        nodes: 4865609,
        captures: 82719,
        enpassants: 258,
        direct_checks: 26998,
        single_discovered_checks: 6,
        direct_mates: 347,
        ..Stats::default()
    };
    assert_eq!(start, expected.widen());
    let kiwipete = Perft::stats()
        .threads(2)
        .total::<Magic>(&Position::from_fen(KIWIPETE).unwrap(), 4);
    let expected = Stats::<u64> {
        nodes: 4085603,
        captures: 757163,
        enpassants: 1929,
        castles: 128013,
        promotions: 15172,
        direct_checks: 25432,
        single_discovered_checks: 42,
        direct_discovered_checks: 6,
        direct_mates: 43,
        ..Stats::default()
    };
    assert_eq!(kiwipete, expected.widen());
}

fn mode(chess960: bool) -> CastlingMode {
    if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    }
}

/// shakmaty's position for `fen`, told to accept the unreachable positions its strict
/// validation refuses (an impossible check, too much material): it still plays the moves and
/// finds the checkers, which is all its classification asks. `None` where it still refuses.
fn lenient(fen: &str, chess960: bool) -> Option<Chess> {
    let setup = Fen::from_ascii(fen.as_bytes()).ok()?;
    match setup.into_position::<Chess>(mode(chess960)) {
        Ok(pos) => Some(pos),
        Err(e) => match e.ignore_impossible_check() {
            Ok(pos) => Some(pos),
            Err(e) => e.ignore_too_much_material().ok(),
        },
    }
}

/// The statistics of `ours` at `depth`, equal to `want`, with every slider kind this CPU runs
/// in every copy of the code (the baseline and the x86-64-v3 copy, and the AVX2 and AVX-512
/// lanes where the CPU has them), on one thread and on two sharing a one-bucket table (where almost every
/// probe meets another position's record).
fn stats_every_way(ours: &Position, depth: u32, want: &Stats) {
    fn with<S: Sliders>(ours: &Position, depth: u32, want: &Stats) {
        let one_bucket = StatsTable::new(0).unwrap();
        let mut copies = vec![Simd::NONE];
        if Simd::one_board() != Simd::NONE {
            copies.push(Simd::one_board());
        }
        copies.extend(Simd::new(SimdKind::Avx2));
        copies.extend(Simd::new(SimdKind::Avx512));
        for simd in copies {
            for (threads, table) in [(1, None), (2, Some(&one_bucket))] {
                let got = Perft::stats()
                    .threads(threads)
                    .table(table)
                    .simd(simd)
                    .total::<S>(ours, depth);
                assert_eq!(
                    &got,
                    want,
                    "{} sliders, {}, {threads} threads, table {}: depth {depth} at {}",
                    S::NAME,
                    simd.describe(),
                    table.is_some(),
                    ours.to_fen()
                );
            }
        }
    }
    with::<Magic>(ours, depth, want);
    with::<Classical>(ours, depth, want);
    #[cfg(target_arch = "x86_64")]
    if perft::attacks::Pext::available() {
        with::<perft::attacks::Pext>(ours, depth, want);
    }
}

/// Random playouts from `fen`; every few plies, depths 1-3 compared field by field.
fn playout(fen: &str, chess960: bool, rng: &mut Prng, seen: &mut Stats) -> u32 {
    let mut ours = Position::from_fen_with(fen, chess960).unwrap();
    let Some(mut them) = Fen::from_ascii(fen.as_bytes())
        .ok()
        .and_then(|f| f.into_position::<Chess>(mode(chess960)).ok())
    else {
        return 0;
    };
    let mut compared = 0;
    for ply in 0..60 {
        if ply % 3 == 0 {
            for depth in 1..=3 {
                let a = Perft::stats().total::<Magic>(&ours, depth);
                let b = theirs(&them, depth).widen();
                assert_eq!(a, b, "depth {depth} at {}", ours.to_fen());
                if ply % 9 == 0 {
                    stats_every_way(&ours, depth, &b);
                }
                if depth == 2 {
                    *seen += a;
                }
            }
            compared += 1;
        }
        let moves = legal_moves::<Magic>(&ours);
        if moves.is_empty() {
            break;
        }
        // Prefer captures, promotions, castling and checks half the time.
        let pick = if rng.next_u64().is_multiple_of(2) {
            let special: Vec<_> = moves
                .iter()
                .copied()
                .filter(|m| {
                    m.is_capture()
                        || m.promotion_piece().is_some()
                        || m.kind() == perft::MoveKind::Castle
                })
                .collect();
            if special.is_empty() {
                moves[(rng.next_u64() % moves.len() as u64) as usize]
            } else {
                special[(rng.next_u64() % special.len() as u64) as usize]
            }
        } else {
            moves[(rng.next_u64() % moves.len() as u64) as usize]
        };
        let uci = pick.to_uci(chess960);
        let m = UciMove::from_ascii(uci.as_bytes())
            .unwrap()
            .to_move(&them)
            .unwrap();
        them.play_unchecked(m);
        ours.make(pick);
    }
    compared
}

#[test]
fn every_leaf_classified_as_shakmaty_classifies_it() {
    let mut rng = Prng::new(0x57A7);
    let mut seen = Stats::default();
    let mut compared = 0;
    let chess960: Vec<String> = common::suite("suites/chess960.epd")
        .into_iter()
        .map(|e| e.fen)
        .collect();
    let tricky: Vec<String> = common::suite("suites/tricky.epd")
        .into_iter()
        .map(|e| e.fen)
        .collect();
    for round in 0..12 {
        compared += playout(START, false, &mut rng, &mut seen);
        compared += playout(KIWIPETE, false, &mut rng, &mut seen);
        compared += playout(
            &tricky[round * 4 % tricky.len()],
            false,
            &mut rng,
            &mut seen,
        );
        let fen = &chess960[(rng.next_u64() % chess960.len() as u64) as usize];
        compared += playout(fen, true, &mut rng, &mut seen);
    }
    eprintln!("{compared} positions compared; depth-2 leaves seen: {seen:?}");
    assert!(compared > 500, "{compared}");
    // The comparison met every kind of leaf, so every field was really compared.
    assert!(
        !seen.enpassants.is_zero() && !seen.castles.is_zero() && !seen.promotions.is_zero(),
        "{seen:?}"
    );
    assert!(
        !seen.single_discovered_checks.is_zero() && !seen.direct_mates.is_zero(),
        "{seen:?}"
    );
    assert!(!seen.direct_discovered_checks.is_zero(), "{seen:?}");
}

/// Random placements (mostly unreachable: pieces where play seldom puts them, checks from
/// every side; shakmaty told to accept them), depths 1-3 compared field by field with
/// shakmaty's classification: the depth-2 pass leaves moves unplayed only where that changes
/// no field, mates included. Every tenth placement in every way the statistics are counted.
#[test]
fn placements_classified_as_shakmaty_classifies_them() {
    let (mut compared, mut seen, mut refused) = (0, Stats::default(), Vec::new());
    for seed in 0..1500 {
        let Some(ours) = common::placed(0x5747_0000 + seed) else {
            continue;
        };
        let fen = ours.to_fen();
        // The unreachable placements too: shakmaty told to accept them.
        let Some(them) = lenient(&fen, false) else {
            refused.push(fen);
            continue;
        };
        for depth in 1..=3 {
            let want = theirs(&them, depth).widen();
            let a = Perft::stats().total::<Magic>(&ours, depth);
            assert_eq!(a, want, "depth {depth} at {fen}");
            if seed % 10 == 0 {
                stats_every_way(&ours, depth, &want);
            }
            if depth == 2 {
                seen += a;
            }
        }
        compared += 1;
    }
    // A placement our parser accepts that shakmaty refuses even leniently would be one we call
    // legal and it does not: there must be none.
    assert!(refused.is_empty(), "shakmaty refuses: {refused:#?}");
    eprintln!("{compared} placements compared; depth-2 leaves seen: {seen:?}");
    assert!(compared > 500, "{compared}");
    assert!(
        !seen.direct_mates.is_zero() && !seen.single_discovered_checks.is_zero(),
        "{seen:?}"
    );
}

/// Castles that give check (the rook landing on a line to their king, a mate among them, in
/// standard chess and Chess960) are played and classified, as is a castle whose rook lands on
/// such a line with a piece between (no check); castles that cannot check are counted without
/// being played: all as shakmaty classifies them, at depths 1 to 3.
#[test]
fn castles_that_check_are_classified_as_shakmaty_classifies_them() {
    let positions = [
        // O-O: the rook lands on f1, on the king's file.
        ("5k2/8/8/8/8/8/8/4K2R w K - 0 1", false),
        // O-O-O: the rook on d1 checks, and mates the king its own pieces box in.
        ("2rkr3/2p1p3/8/8/8/8/8/R3K3 w Q - 0 1", false),
        // O-O-O: the rook lands on d1, on the king's file, with a pawn between: no check.
        ("3k4/3p4/8/8/8/8/8/R3K3 w Q - 0 1", false),
        // Four castles, none checking until a king has stepped onto the file the other
        // side's rook lands on (depths 2 and 3).
        ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", false),
        // Chess960 rights by file: the castle with the b1 rook lands it on d1, checking d8;
        // the other does not check.
        ("3k4/8/8/8/8/8/8/1R2K2R w HB - 0 1", true),
    ];
    for (fen, chess960) in positions {
        assert_classified_as_shakmaty_does(fen, chess960, 3);
    }
}

/// The statistics of `fen` at depths 1 to `max_depth`, with magic sliders in the CPU's copy of
/// the code and with the ray scan in the baseline copy, each equal to shakmaty's.
fn assert_classified_as_shakmaty_does(fen: &str, chess960: bool, max_depth: u32) {
    let ours = Position::from_fen_with(fen, chess960).unwrap();
    let them = Fen::from_ascii(fen.as_bytes())
        .unwrap()
        .into_position::<Chess>(mode(chess960))
        .unwrap();
    for depth in 1..=max_depth {
        let a = Perft::stats().total::<Magic>(&ours, depth);
        assert_eq!(a, theirs(&them, depth).widen(), "depth {depth} at {fen}");
        let c = Perft::stats()
            .simd(Simd::NONE)
            .total::<Classical>(&ours, depth);
        assert_eq!(c, a, "classical, depth {depth} at {fen}");
    }
}

/// A checked king that cannot step aside is mated unless a piece that is not pinned takes the
/// checker or steps between: each position below has one check at depth 1 whose only possible
/// answer is of one kind, classified (check or mate) as shakmaty classifies it, at depths 1
/// and 2.
#[test]
fn checks_answered_only_by_a_block_a_capture_or_en_passant_are_classified_as_shakmaty_does() {
    let positions = [
        // Rg1-g5+: the king on a5 is boxed in; only the double push b7-b5 blocks (not mate).
        "2N5/1p6/p7/k7/4R3/8/8/6RK w - - 0 1",
        // Ra1-a8+: the bishop on d5 would take a8, but it is pinned by the one on b3 (mate).
        "6k1/6pp/8/3bN3/8/1B6/7K/R7 w - - 0 1",
        // d2-d4+: only e4xd3 en passant answers (not mate).
        "8/8/8/1N2k3/2Q1p3/8/3P4/K4R2 w - - 0 1",
        // Bd2-b4+: the pawn on d7 would block on d6, but the rook on a7 pins it (mate).
        "7R/R2pk3/8/6N1/8/8/3B4/K4Q2 w - - 0 1",
    ];
    for fen in positions {
        assert_classified_as_shakmaty_does(fen, false, 2);
    }
}
