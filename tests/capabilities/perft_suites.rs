//! Published perft counts (suites/ and tests/data/, with their sources in each file's header): every count
//! up to 10^7 nodes, under every slider implementation, bulk and not.
//!
//! Counts asserted besides the suites': the start position's perft 6, 119,060,324 (Chess
//! Programming Wiki, "Perft Results").

use crate::{common, paths};

use perft::cpu::{Simd, SimdKind};
use perft::perft::{Counting, Perft};
use perft::{Classical, Magic, Position, Sliders};

const MAX_NODES: u128 = 10_000_000;
const MAX_NODES_NO_BULK: u128 = 2_000_000;

/// Checks every listed count up to `max_nodes` (and `max_depth`); returns how many it checked.
fn check_suites<S: Sliders>(counting: Counting, max_nodes: u128, max_depth: u32) -> usize {
    check_suites_with::<S>(
        &|pos, depth| Perft::new().counting(counting).total::<S>(pos, depth),
        &format!("{counting:?}"),
        max_nodes,
        max_depth,
    )
}

/// [`check_suites`] with the count `run` (labelled `label` in failures).
fn check_suites_with<S: Sliders>(
    run: &dyn Fn(&mut Position, u32) -> perft::Nodes,
    label: &str,
    max_nodes: u128,
    max_depth: u32,
) -> usize {
    let mut checked = 0;
    let mut failures = Vec::new();
    for name in common::STANDARD_SUITES {
        for entry in common::suite(name) {
            let mut pos = Position::from_fen(&entry.fen)
                .unwrap_or_else(|e| panic!("{name}:{}: {e}", entry.line));
            for &(depth, expected) in &entry.counts {
                if expected > max_nodes.into() || depth > max_depth {
                    continue;
                }
                let got = run(&mut pos, depth);
                checked += 1;
                if got != expected {
                    failures.push(format!(
                        "{name}:{} {} depth {depth}: expected {expected}, got {got}",
                        entry.line,
                        entry.name()
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} {label} mismatches:\n{}",
        S::NAME,
        failures.join("\n")
    );
    checked
}

#[test]
fn magic_bulk_matches_published_counts() {
    let n = check_suites::<Magic>(Counting::Bulk, MAX_NODES, u32::MAX);
    assert!(n > 700, "only {n} counts checked");
    paths::ran(paths::MAGIC);
}

#[test]
fn classical_bulk_matches_published_counts() {
    let n = check_suites::<Classical>(Counting::Bulk, MAX_NODES, u32::MAX);
    assert!(n > 700, "only {n} counts checked");
    paths::ran(paths::CLASSICAL);
}

/// Bulk counting's last plies are compiled in several copies (the baseline, the x86-64-v3 copy
/// one board at a time, with AVX2 lanes, with AVX-512 lanes): every copy this CPU runs gives
/// the published counts; the others are named as skipped.
#[test]
fn every_copy_of_the_code_matches_published_counts() {
    let codes = [SimdKind::Avx512, SimdKind::Avx2, SimdKind::None]
        .into_iter()
        .filter_map(|k| match Simd::new(k) {
            Ok(simd) => Some(simd),
            Err(e) => {
                eprintln!("skipped: {e}");
                None
            }
        })
        .chain([Simd::one_board()]);
    for simd in codes {
        let n = check_suites_with::<Magic>(
            &|pos, depth| {
                let opts = Perft::new().simd(simd);
                opts.total::<Magic>(pos, depth)
            },
            &format!("bulk ({})", simd.describe()),
            MAX_NODES,
            u32::MAX,
        );
        assert!(n > 700, "only {n} counts checked");
        paths::ran(paths::of_simd(simd));
    }
}

#[test]
fn magic_no_bulk_matches_published_counts() {
    let n = check_suites::<Magic>(Counting::NoBulk, MAX_NODES_NO_BULK, 4);
    assert!(n > 400, "only {n} counts checked");
}

#[test]
fn classical_no_bulk_matches_published_counts() {
    let n = check_suites::<Classical>(Counting::NoBulk, MAX_NODES_NO_BULK, 4);
    assert!(n > 400, "only {n} counts checked");
}

#[cfg(target_arch = "x86_64")]
#[test]
fn pext_bulk_matches_published_counts() {
    if !perft::attacks::Pext::available() {
        eprintln!("skipped: this CPU has no BMI2");
        return;
    }
    let n = check_suites::<perft::attacks::Pext>(Counting::Bulk, MAX_NODES, u32::MAX);
    assert!(n > 700, "only {n} counts checked");
    paths::ran(paths::PEXT);
}

/// The two counts the README promises, at full depth.
#[test]
fn startpos_6_and_kiwipete_5() {
    let start = Position::startpos();
    assert_eq!(Perft::new().total::<Magic>(&start, 6), 119_060_324);
    let kiwipete =
        Position::from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
            .unwrap();
    assert_eq!(Perft::new().total::<Magic>(&kiwipete, 5), 193_690_690);
}

/// Depth 0 is one node (the position itself), in both modes.
#[test]
fn depth_zero_is_one_node() {
    let pos = Position::startpos();
    assert_eq!(Perft::new().total::<Magic>(&pos, 0), 1);
    assert_eq!(
        Perft::new()
            .counting(Counting::NoBulk)
            .total::<Magic>(&pos, 0),
        1
    );
}
