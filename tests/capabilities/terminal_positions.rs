//! Trees that end: positions without a legal move (mate and stalemate, either side to move) and
//! trees that die out a few plies down must give their count at once, with any number of
//! threads, with and without a table, bulk or not, through the library and through every command
//! of the binary. A threaded driver that deepens its task list while it is short loops for ever
//! when that list is empty, so every check here runs under a watchdog: a hang fails the test
//! instead of stalling CI.

use crate::common::{self, perft_bin, text, within};

use perft::attacks::magic::Prng;
use perft::movegen::legal_moves;
use perft::perft::{Counting, Perft};
use perft::tt::Table;
use perft::{Classical, Magic, Nodes, Position, Sliders};
use proptest::prelude::*;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

const FOOLS_MATE_BLACK: &str = "rnbqkbnr/ppppp2p/5p2/6pQ/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 1 3";
const STALEMATE_BLACK: &str = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1";

#[test]
fn every_count_in_the_file_is_shakmaty_s() {
    let entries = common::suite("tests/data/terminal.epd");
    assert!(entries.len() >= 12);
    for e in &entries {
        let theirs: Chess = Fen::from_ascii(e.fen.as_bytes())
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        for &(depth, expected) in &e.counts {
            assert_eq!(
                Nodes::from(shakmaty::perft(&theirs, depth)),
                expected,
                "{} depth {depth}",
                e.name()
            );
        }
    }
    // What the file is for: roots without moves for both sides, trees dying at ply 2 and 3, and
    // one that grows for several plies before it dies.
    let dead_at = |e: &perft::epd::EpdEntry| e.counts.iter().find(|c| c.1 == 0).map(|c| c.0);
    let white = |e: &perft::epd::EpdEntry| e.fen.split(' ').nth(1) == Some("w");
    assert!(entries.iter().any(|e| dead_at(e) == Some(1) && white(e)));
    assert!(entries.iter().any(|e| dead_at(e) == Some(1) && !white(e)));
    assert!(entries.iter().any(|e| dead_at(e) == Some(2)));
    assert!(entries.iter().any(|e| dead_at(e) == Some(3)));
    let grows = |e: &perft::epd::EpdEntry| {
        e.counts
            .iter()
            .any(|c| c.0 == 8 && c.1 > Nodes::from(1000u64))
    };
    assert!(entries.iter().any(|e| grows(e) && dead_at(e) == Some(11)));
}

/// Grows to 8902 leaves at ply 8 and dies at ply 11 (tests/data/terminal.epd).
const BLOCKED_PAWNS: &str = "6bk/p1p2p1p/4pP1P/8/8/4Pp1p/P1P2P1P/6BK w - - 0 1";

#[test]
fn a_tree_that_grows_and_then_dies_gets_no_automatic_table() {
    use perft::perft::estimate_leaves;
    use perft::tt::auto_mb;
    const DENSE: f64 = f64::INFINITY;
    // Extrapolated from its first plies (102 leaves at ply 3, growing fourfold a ply), this
    // tree's perft 64 looked like 10^39 leaves and `--hash` took all the memory, mapped (40 s
    // and 21 GB on the project's VM) for a count of 0. Counted while it is small, it is known
    // to die.
    let pos = Position::from_fen(BLOCKED_PAWNS).unwrap();
    for depth in [11, 12, 64] {
        assert_eq!(estimate_leaves::<Magic>(&pos, depth), 0.0, "depth {depth}");
        assert_eq!(auto_mb::<u64>(0.0, depth, DENSE, Some(24 << 30)), 0);
    }
    // Small enough to be counted: the estimate is the count (Stockfish's, in the EPD file).
    assert_eq!(estimate_leaves::<Magic>(&pos, 9), 7770.0);
    // A tree that keeps growing is still extrapolated from perft 3 and its growth from perft 2
    // (8902 * (8902 / 400)^7 for the start position's perft 10), the rule the deep counts'
    // tables were sized by.
    let start = Position::startpos();
    let expected = 8902.0 * (8902.0f64 / 400.0).powi(7);
    let estimate = estimate_leaves::<Magic>(&start, 10);
    assert!((estimate / expected - 1.0).abs() < 1e-12, "{estimate}");
    // Through the binary, with threads: the count at once, and no table.
    for threads in ["1", "2", "5"] {
        let o = perft_bin(
            &[
                "--fen",
                BLOCKED_PAWNS,
                "--depth",
                "64",
                "--hash",
                "--threads",
                threads,
            ],
            "",
        );
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert_eq!(text(&o.stdout), "0\n");
        assert!(text(&o.stderr).contains("no hash"), "{}", text(&o.stderr));
    }
}

/// Every count of the file under `opts`, and the divide's sum with it.
fn check_file<S: Sliders>(opts: Perft<'_>) {
    for e in common::suite("tests/data/terminal.epd") {
        let pos = perft::suite::parse_position(&e, false).unwrap();
        for &(depth, expected) in &e.counts {
            let what = format!("{} depth {depth}, {} threads", e.name(), opts.threads);
            assert_eq!(opts.total::<S>(&pos, depth), expected, "{what}");
            let divided: Nodes = opts.divide::<S>(&pos, depth).iter().map(|m| m.1).sum();
            assert_eq!(divided, expected, "divide, {what}");
        }
        // A tree that is dead at some depth stays dead down to the deepest depth accepted.
        if let Some(&(dead, _)) = e.counts.iter().find(|c| c.1 == 0) {
            for depth in [dead + 1, 12, 33, 64] {
                assert_eq!(opts.total::<S>(&pos, depth), 0, "{}", e.name());
            }
        }
    }
}

#[test]
fn the_library_returns_with_any_thread_count_table_and_counting() {
    within(120, "library counts", || {
        let table = Table::new(0).unwrap(); // one bucket: every probe meets another position
        for threads in [1, 2, 3, 4, 16, 64] {
            for counting in [Counting::Bulk, Counting::NoBulk] {
                for table in [None, Some(&table)] {
                    let opts = Perft::new()
                        .counting(counting)
                        .threads(threads)
                        .table(table);
                    check_file::<Magic>(opts);
                }
            }
        }
        check_file::<Classical>(Perft::new().threads(2));
    });
}

#[test]
fn the_two_commands_of_the_report_print_zero() {
    for (fen, depth) in [(FOOLS_MATE_BLACK, "4"), (STALEMATE_BLACK, "2")] {
        let o = perft_bin(&["--fen", fen, "--depth", depth], "");
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert_eq!(text(&o.stdout), "0\n");
    }
}

#[test]
fn every_mode_of_the_binary_returns_on_a_dead_tree() {
    let dies_at_3 = "8/8/8/8/1r6/1qp4p/K4r2/6kb w - - 0 1";
    for fen in [FOOLS_MATE_BLACK, STALEMATE_BLACK, dies_at_3] {
        for extra in [
            &[][..],
            &["--threads", "2"],
            &["--threads", "7"],
            &["--divide"],
            &["--divide", "--threads", "3"],
            &["--no-bulk"],
            &["--no-bulk", "--threads", "5"],
            &["--hash", "1"],
            &["--hash", "1", "--threads", "2", "--divide"],
            &["--classical"],
            &["--compare", "--rounds", "1"],
        ] {
            // Depth 1: the legal moves as shakmaty counts them.
            let theirs: Chess = Fen::from_ascii(fen.as_bytes())
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            let one = shakmaty::perft(&theirs, 1);
            for depth in ["1", "3", "6", "64"] {
                let mut args = vec!["--fen", fen, "--depth", depth];
                args.extend_from_slice(extra);
                let o = perft_bin(&args, "");
                assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
                let out = text(&o.stdout);
                let want = if depth == "1" { one } else { 0 };
                if extra.contains(&"--divide") {
                    assert!(
                        out.ends_with(&format!("Nodes searched: {want}\n")),
                        "{args:?}: {out}"
                    );
                    // One line per root move, then a blank line and the total.
                    assert_eq!(out.lines().count() as u64, one + 2, "{args:?}: {out}");
                } else if !extra.contains(&"--compare") {
                    assert_eq!(out, format!("{want}\n"), "{args:?}");
                }
            }
        }
        // The perftree form and UCI.
        let o = perft_bin(&["6", fen], "");
        assert!(o.status.success() && text(&o.stdout).ends_with("\n0\n"));
        let o = perft_bin(
            &["uci"],
            &format!("position fen {fen}\ngo perft 5\ngo perft 64\nquit\n"),
        );
        let out = text(&o.stdout);
        assert!(o.status.success(), "{out}");
        assert_eq!(out.matches("Nodes searched: 0\n").count(), 2, "{out}");
    }
}

#[test]
fn a_suite_of_dead_trees_passes_with_the_default_thread_count() {
    let path = common::repo_file("tests/data/terminal.epd");
    let path = path.to_str().unwrap();
    for extra in [
        &[][..],
        &["--threads", "4"],
        &["--threads", "3", "--hash", "1"],
        &["--no-bulk", "--threads", "2"],
    ] {
        let mut args = vec!["--suite", path];
        args.extend_from_slice(extra);
        let o = perft_bin(&args, "");
        let out = text(&o.stdout);
        assert!(o.status.success(), "{args:?}: {out}{}", text(&o.stderr));
        assert!(
            out.contains("13 positions: 81 checks passed, 0 failed"),
            "{out}"
        );
    }
}

#[test]
fn diff_returns_on_a_dead_tree() {
    // Our own binary as the engine: both sides agree, at once.
    let engine = format!("{} uci", env!("CARGO_BIN_EXE_perft"));
    for fen in [FOOLS_MATE_BLACK, STALEMATE_BLACK] {
        let o = perft_bin(
            &["diff", "--engine", &engine, "--fen", fen, "--depth", "5"],
            "",
        );
        let out = text(&o.stdout);
        assert!(o.status.success(), "{out}{}", text(&o.stderr));
        assert!(out.contains("both count 0 nodes"), "{out}");
    }
}

/// A playout that looks for mate: most moves leave the opponent as few replies as possible, so
/// games end in mate or stalemate within a few dozen plies. Returns every position on the way,
/// the last one first if it has no legal move.
fn hunting_playout(seed: u64) -> Vec<Position> {
    let mut rng = Prng::new(seed);
    let mut pos = Position::startpos();
    let mut seen = vec![pos.clone()];
    for _ in 0..300 {
        let moves = legal_moves::<Magic>(&pos);
        if moves.is_empty() {
            break;
        }
        let mv = if rng.next_u64().is_multiple_of(5) {
            moves[(rng.next_u64() % moves.len() as u64) as usize]
        } else {
            *moves
                .iter()
                .min_by_key(|&&m| {
                    let mut next = pos.clone();
                    next.make(m);
                    legal_moves::<Magic>(&next).len() as u64 * 64 + rng.next_u64() % 64
                })
                .unwrap()
        };
        pos.make(mv);
        seen.push(pos.clone());
    }
    seen.reverse();
    seen
}

#[test]
fn hunting_playouts_reach_mates_and_stalemates() {
    let (mut mates, mut stalemates) = (0, 0);
    for seed in 0..40 {
        let last = &hunting_playout(seed)[0];
        if legal_moves::<Magic>(last).is_empty() {
            if last.in_check() {
                mates += 1;
            } else {
                stalemates += 1;
            }
        }
    }
    // What the property test below runs on really contains both kinds of end.
    assert!(
        mates >= 5 && stalemates >= 5,
        "{mates} mates, {stalemates} stalemates"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// On the last dozen positions of a mate-hunting playout (the end itself among them), the
    /// threaded count, with and without a one-bucket table, equals the single-threaded one.
    #[test]
    fn threaded_counts_equal_single_threaded_near_the_end_of_games(seed in any::<u64>()) {
        let positions = hunting_playout(seed);
        let table = Table::new(0).unwrap();
        let result = within(60, "threaded counts", move || {
            for pos in positions.iter().take(12) {
                for depth in 0..=4 {
                    let one = (Perft::new()).total::<Magic>(pos, depth);
                    if one > Nodes::from(3_000_000u64) {
                        break;
                    }
                    for threads in [2, 3, 8] {
                        for table in [None, Some(&table)] {
                            let opts = Perft::new().threads(threads).table(table);
                            let many = opts.total::<Magic>(pos, depth);
                            if many != one {
                                return Err(format!(
                                    "{} depth {depth}: {many} with {threads} threads, {one} with one",
                                    pos.to_fen()
                                ));
                            }
                        }
                    }
                }
            }
            Ok(())
        });
        prop_assert!(result.is_ok(), "{}", result.unwrap_err());
    }
}
