//! `perft --stats` from the command line: the table's columns, the JSON document's fields, the
//! divide's rows and the options it refuses, and `--simd` naming the copy of the code it ran.
//! (The statistics' values: `stats.rs`.)

use crate::common::{KIWIPETE, perft};
use perft::cpu::Simd;

#[test]
fn the_table_has_the_wiki_columns() {
    let o = perft(&[
        "--stats",
        "--depth",
        "3",
        "--fen",
        KIWIPETE,
        "--threads",
        "2",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    for word in [
        "depth",
        "nodes",
        "captures",
        "e.p.",
        "castles",
        "promotions",
        "checks",
        "checkmates",
    ] {
        assert!(lines[0].contains(word), "{}", lines[0]);
    }
    let row: Vec<&str> = lines[3].split_whitespace().collect();
    assert_eq!(
        row,
        [
            "3", "97862", "17102", "45", "3162", "0", "993", "0", "0", "1"
        ]
    );
}

/// Depth 0 is one row, the root itself (one node, no move: perft 0 is 1), and the speed line
/// names the one depth counted as such ("depth 0", "depth 1"), several as "depths 1-N".
#[test]
fn depth_zero_is_the_root_and_the_speed_line_names_the_depths() {
    let o = perft(&["--stats", "--depth", "0"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    let rows: Vec<Vec<&str>> = out
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows, [["0", "1", "0", "0", "0", "0", "0", "0", "0", "0"]]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("depth 0 | 1 nodes |"), "{err}");
    for (depth, named) in [
        ("1", "depth 1 | 20 nodes |"),
        ("2", "depths 1-2 | 420 nodes |"),
    ] {
        let o = perft(&["--stats", "--depth", depth]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.starts_with(named), "--depth {depth}: {err}");
    }
}

#[test]
fn the_json_document_has_the_named_fields() {
    let o = perft(&[
        "--stats", "--json", "--depth", "2", "--moves", "e2e4", "--hash", "1",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON document");
    assert_eq!(
        doc["fen"],
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
    let depths = doc["depths"].as_array().unwrap();
    assert_eq!(depths.len(), 2);
    let names: Vec<&str> = depths[1]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        names,
        [
            "depth",
            "nodes",
            "captures",
            "enpassants",
            "castles",
            "promotions",
            "direct_checks",
            "single_discovered_checks",
            "direct_discovered_checks",
            "double_discovered_checks",
            "checks_without_mates",
            "direct_mates",
            "single_discovered_mates",
            "direct_discovered_mates",
            "double_discovered_mates",
            "total_mates",
            "checks"
        ]
    );
    // Perft 2 after 1. e4 is 600 (Stockfish `go perft 2` after e2e4), every field an integer.
    assert_eq!(depths[1]["nodes"], 600);
    assert!(depths[1].as_object().unwrap().values().all(|v| v.is_u64()));
}

/// `checks` in the JSON means what the Wiki's "Checks" column means, mates included; the
/// checks that are not mates are named so. The start position at depth 4, as published (Chess
/// Programming Wiki, "Perft Results"): 469 checks, 8 of them checkmates.
#[test]
fn the_json_checks_are_the_published_checks_mates_included() {
    let o = perft(&["--stats", "--json", "--depth", "4"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON document");
    let row = &doc["depths"][3];
    assert_eq!(row["depth"], 4);
    assert_eq!(row["checks"], 469);
    assert_eq!(row["total_mates"], 8);
    assert_eq!(row["checks_without_mates"], 469 - 8);
}

#[test]
fn divide_rows_and_bad_combinations() {
    let o = perft(&["--stats", "--divide", "--depth", "2"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("divide at depth 2:"), "{out}");
    let e2e4: Vec<&str> = out
        .lines()
        .find(|l| l.starts_with("e2e4"))
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(e2e4[1], "20");
    let o = perft(&["--json", "--depth", "2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--json goes with --suite or --stats"));
    let o = perft(&["--stats", "--no-bulk"]);
    assert_eq!(o.status.code(), Some(2));
}

/// `--simd` chooses the copy of the code the statistics run in, and the speed line names it:
/// `none` the baseline copy; `avx2` the AVX2 lanes; `avx512` the AVX-512 lanes; `--no-lanes`
/// the x86-64-v3 copy one board at a time. Each gives the Wiki's row.
#[test]
fn simd_chooses_the_copy_statistics_run_in() {
    let mut choices = vec![("--simd none", "simd none (baseline code)")];
    if Simd::detect().kind() != perft::cpu::SimdKind::None {
        choices.push(("--simd avx2", "simd avx2 (x86-64-v3 code, AVX2 lanes)"));
        choices.push(("--no-lanes", "simd x86-64-v3 code, one board at a time"));
    } else {
        eprintln!("skipped --simd avx2: this CPU lacks the x86-64-v3 instructions");
    }
    if Simd::new(perft::cpu::SimdKind::Avx512).is_ok() {
        choices.push((
            "--simd avx512",
            "simd avx512 (x86-64-v3 code, AVX-512 lanes)",
        ));
    } else {
        eprintln!("skipped --simd avx512: this CPU lacks the AVX-512 lanes' instructions");
    }
    for (simd, named) in choices {
        let mut args = vec!["--stats", "--depth", "3", "--fen", KIWIPETE];
        args.extend(simd.split(' '));
        let o = perft(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{err}");
        assert!(err.contains(named), "{simd}: {err}");
        let out = String::from_utf8_lossy(&o.stdout);
        let row: Vec<&str> = out.lines().nth(3).unwrap().split_whitespace().collect();
        assert_eq!(
            row,
            [
                "3", "97862", "17102", "45", "3162", "0", "993", "0", "0", "1"
            ],
            "{simd}"
        );
    }
}
