//! `perft --suite`: pass/fail per position and depth, exit codes, JSON, the `.perft` format,
//! and bad input that is reported with its line while the other lines still run.
//!
//! Counts asserted: the start position's perft 1 to 3 (20, 400, 8,902) and 9 (2,439,530,234,167)
//! (Chess Programming Wiki, "Perft Results"); the lines meant to fail carry a count one off the published one.

use crate::common::{self, START, perft, text};

use std::path::PathBuf;

/// Writes `content` to a file in a fresh scratch directory (removed when it is dropped).
fn temp_file(name: &str, content: &[u8]) -> (common::Scratch, PathBuf) {
    let dir = common::Scratch::new("suite");
    let path = dir.file(name, content);
    (dir, path)
}

#[test]
fn passing_suite_exits_0_with_a_summary() {
    let path = common::repo_file("suites/standard.epd");
    let o = perft(&["--suite", path.to_str().unwrap(), "--max-nodes", "1000000"]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", text(&o.stderr));
    assert_eq!(
        out.lines().filter(|l| l.starts_with("PASS")).count(),
        7,
        "{out}"
    );
    assert!(out.contains("PASS  cpw-initial"), "{out}");
    assert!(out.contains("(skipped D5-D15: over --max-nodes)"), "{out}");
    assert!(out.contains("7 positions: "), "{out}");
    assert!(out.contains(" 0 failed"), "{out}");
}

#[test]
fn wrong_count_fails_with_expected_actual_and_divide() {
    let (_dir, path) = temp_file(
        "wrong.epd",
        format!("{START} ;D1 20 ;D2 401 ;D3 8902 ;id off-by-one\n").as_bytes(),
    );
    let o = perft(&["--suite", path.to_str().unwrap()]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("FAIL  off-by-one"), "{out}");
    assert!(out.contains("depth 2: expected 401, got 400"), "{out}");
    assert!(out.contains("divide at depth 2 (20 root moves):"), "{out}");
    assert!(out.contains("        e2e4: 20"), "{out}");
    // The deeper depth is not run after a failure, and says so.
    assert!(out.contains("skipped D3: after a failure"), "{out}");
    assert!(out.contains("1 failed"), "{out}");
}

#[test]
fn malformed_lines_are_reported_and_the_rest_still_runs() {
    let suite = format!(
        "# comment\n\
         {START} ;D1 20 ;id first\n\
         not a fen at all ;D1 20 ;id bad-fen\n\
         {START} ;D1 twenty ;id bad-count\n\
         {START} ;X1 20\n\
         \n\
         8/8/8/8/8/8/8/K6k w - - ;D1 3 ;D2 9 ;id last\n"
    );
    let (_dir, path) = temp_file("malformed.epd", suite.as_bytes());
    let o = perft(&["--suite", path.to_str().unwrap()]);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    let p = path.display().to_string();
    assert!(err.contains(&format!("{p}:3: invalid FEN")), "{err}");
    assert!(
        err.contains(&format!("{p}:4: node count 'twenty'")),
        "{err}"
    );
    assert!(
        err.contains(&format!("{p}:5: unknown field 'X1 20'")),
        "{err}"
    );
    // The good lines ran, and a bad line never reused the previous position.
    assert!(
        out.contains("PASS  first") && out.contains("PASS  last"),
        "{out}"
    );
    assert_eq!(
        out.lines().filter(|l| l.starts_with("PASS")).count(),
        2,
        "{out}"
    );
    assert!(out.contains("3 bad lines"), "{out}");
    assert!(!err.contains("panicked"));
}

#[test]
fn a_failure_outranks_bad_lines_in_the_exit_status() {
    let suite = format!("{START} ;D1 21 ;id wrong\nbad line ;D1 1\n");
    let (_dir, path) = temp_file("both.epd", suite.as_bytes());
    assert_eq!(
        perft(&["--suite", path.to_str().unwrap()]).status.code(),
        Some(1)
    );
}

#[test]
fn json_output_parses_and_has_the_documented_fields() {
    let suite =
        format!("{START} ;D1 20 ;D2 400 ;D3 8903 ;D9 2439530234167 ;id start\nbroken ;D1 1\n");
    let (_dir, path) = temp_file("json.epd", suite.as_bytes());
    let o = perft(&["--suite", path.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let doc: serde_json::Value =
        serde_json::from_slice(&o.stdout).expect("stdout is one JSON document");
    let pos = &doc["positions"][0];
    assert_eq!(pos["id"], "start");
    assert_eq!(pos["fen"], START);
    assert_eq!(pos["line"], 1);
    assert_eq!(pos["pass"], false);
    assert!(pos["time"].as_f64().is_some());
    let checks = pos["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 4);
    assert_eq!(checks[0]["depth"], 1);
    assert_eq!(checks[0]["expected"], 20);
    assert_eq!(checks[0]["actual"], 20);
    assert_eq!(checks[0]["pass"], true);
    assert_eq!(checks[2]["expected"], 8903);
    assert_eq!(checks[2]["actual"], 8902);
    assert_eq!(checks[2]["pass"], false);
    assert_eq!(checks[3]["actual"], serde_json::Value::Null);
    assert_eq!(checks[3]["skipped"], "after a failure");
    assert_eq!(pos["divide"]["depth"], 3);
    assert_eq!(pos["divide"]["moves"].as_array().unwrap().len(), 20);
    assert_eq!(doc["errors"][0]["line"], 2);
    let summary = &doc["summary"];
    assert_eq!(summary["positions"], 1);
    assert_eq!(summary["positions_passed"], 0);
    assert_eq!(summary["positions_failed"], 1);
    assert_eq!(summary["checks_run"], 3);
    assert_eq!(summary["checks_passed"], 2);
    assert_eq!(summary["checks_failed"], 1);
    assert_eq!(summary["checks_skipped"], 1);
    assert_eq!(summary["bad_lines"], 1);
    assert_eq!(summary["nodes"], 20 + 400 + 8902);
}

#[test]
fn perft_block_format_is_recognised() {
    let path = common::repo_file("tests/data/sample.perft");
    let o = perft(&["--suite", path.to_str().unwrap()]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", text(&o.stderr));
    assert!(
        out.contains("PASS  startpos") && out.contains("D1-D4"),
        "{out}"
    );
    assert!(out.contains("PASS  kiwipete"), "{out}");
    assert!(out.contains("PASS  cpw-pos3"), "{out}");
    assert!(out.contains("3 positions: 11 checks passed"), "{out}");
}

#[test]
fn limits_skip_and_say_so() {
    let path = common::repo_file("suites/standard.epd");
    let o = perft(&["--suite", path.to_str().unwrap(), "--max-depth", "2"]);
    let out = text(&o.stdout);
    assert!(o.status.success());
    assert!(out.contains("over --max-depth"), "{out}");
    assert!(out.contains("14 checks passed"), "{out}");
}

#[test]
fn unreadable_empty_and_binary_files_exit_2() {
    let o = perft(&["--suite", "/no/such/file.epd"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("cannot open /no/such/file.epd"),
        "{}",
        text(&o.stderr)
    );

    let (_empty_dir, empty) = temp_file("empty.epd", b"");
    let o = perft(&["--suite", empty.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("no positions"),
        "{}",
        text(&o.stderr)
    );

    let (_binary_dir, binary) = temp_file(
        "binary.epd",
        &[0xff, 0xfe, 0, 1, 2, b'\n', 0x80, 0x81, b'\n'],
    );
    let o = perft(&["--suite", binary.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains(":1: not valid UTF-8"),
        "{}",
        text(&o.stderr)
    );
    assert!(!text(&o.stderr).contains("panicked"));
}

#[test]
fn compare_covers_the_whole_suite() {
    let path = common::repo_file("tests/data/sample.perft");
    let o = perft(&["--suite", path.to_str().unwrap(), "--compare"]);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{out}{}", text(&o.stderr));
    assert!(out.contains("11 perfts"), "{out}");
    assert!(out.contains("classical") && out.contains("magic"), "{out}");
}

#[test]
fn no_bulk_and_classical_work_with_suites() {
    let path = common::repo_file("tests/data/sample.perft");
    let o = perft(&[
        "--suite",
        path.to_str().unwrap(),
        "--no-bulk",
        "--classical",
    ]);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("no bulk counting, classical sliders"), "{out}");
}

#[test]
fn an_auto_table_works_with_any_limits() {
    // `--hash` alone sizes the table from the limits; a depth limit below 3 means no table.
    let path = common::repo_file("suites/standard.epd");
    for depth in ["1", "2", "4"] {
        let o = perft(&[
            "--suite",
            path.to_str().unwrap(),
            "--max-depth",
            depth,
            "--hash",
        ]);
        let out = text(&o.stdout);
        assert!(o.status.success(), "{out}{}", text(&o.stderr));
        assert!(out.contains(" 0 failed"), "{out}");
    }
}

/// A listed count with a typo far above the real one is checked (and fails) wherever the real
/// tree is within `--max-nodes`: the limit goes by the position's own tree, not by the number
/// the file says; a tree that is truly over the limit is skipped whatever its listed count.
#[test]
fn a_wrong_count_is_checked_whenever_the_real_tree_is_within_the_limit() {
    let (_dir, path) = temp_file(
        "typo.epd",
        format!(
            "{START} ;D1 20 ;D2 400 ;D3 8902000000 ;id typo-d3\n\
             {START} ;D5 4865609 ;id only-d5\n\
             {START} ;D6 119 ;id understated-d6\n"
        )
        .as_bytes(),
    );
    let o = perft(&["--suite", path.to_str().unwrap()]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("FAIL  typo-d3"), "{out}");
    assert!(
        out.contains("depth 3: expected 8902000000, got 8902"),
        "{out}"
    );
    // A deep count listed alone: the depths above are counted to size it (4.9 million: run).
    assert!(out.contains("PASS  only-d5"), "{out}");
    // Perft 6 is 119 million leaves, over the default 10 million however small its listing.
    assert!(out.contains("SKIP  understated-d6"), "{out}");
    assert!(out.contains("(skipped D6: over --max-nodes)"), "{out}");

    // `--compare --suite` checks the same way, and names what it expected.
    let o = perft(&[
        "--suite",
        path.to_str().unwrap(),
        "--compare",
        "--rounds",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stdout));
    let err = text(&o.stderr);
    assert!(err.contains("depth 3 of"), "{err}");
    assert!(err.contains("expected 8902000000, got 8902"), "{err}");

    // So does `perft diff --suite`: the engine is asked about depth 3, and the failure found.
    let engine = format!("{} --bug none", common::fake_engine().display());
    let o = perft(&[
        "diff",
        "--engine",
        &engine,
        "--suite",
        path.to_str().unwrap(),
    ]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}{}", text(&o.stderr));
    assert!(out.contains("FAIL  typo-d3"), "{out}");
    assert!(out.contains("the suite's count is wrong"), "{out}");
}

/// `--compare --suite` reports a bad line as `file:line: ...` and compares the rest, as the
/// suite does; bad lines alone exit 2.
#[test]
fn compare_of_a_suite_carries_on_past_a_bad_line() {
    let (_dir, path) = temp_file(
        "bad-line.epd",
        format!("{START} ;D1 20 ;D2 400\nnot a fen ;D1 20\n{START} ;D3 8902\n").as_bytes(),
    );
    let o = perft(&[
        "--suite",
        path.to_str().unwrap(),
        "--compare",
        "--rounds",
        "1",
    ]);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(err.contains("bad-line.epd:2: invalid FEN"), "{err}");
    assert!(out.contains("3 perfts"), "{out}");
}

/// Names longer than the column (ids or FENs) are cut to it, so the columns after stay in line.
#[test]
fn long_names_keep_the_columns_in_line() {
    let long = "an-id-of-sixty-characters-that-is-longer-than-any-column-xxxx";
    let (_dir, path) = temp_file(
        "long.epd",
        format!("{START} ;D1 20 ;id short\n{START} ;D1 20 ;id {long}\n{START} ;D1 20\n").as_bytes(),
    );
    let o = perft(&["--suite", path.to_str().unwrap()]);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{out}");
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with("PASS")).collect();
    assert_eq!(rows.len(), 3, "{out}");
    // In characters: the ellipsis is one character of three bytes.
    let column = |row: &str| {
        let byte = row.find(" D1 ").expect("the depths column");
        row[..byte].chars().count()
    };
    assert!(rows.iter().all(|r| column(r) == column(rows[0])), "{out}");
    assert!(
        out.contains("an-id-of-sixty-characters-that-is-longer-than-a\u{2026}"),
        "{out}"
    );
}

/// A failure at depth 0 (the position itself, one node) prints no divide: there is no root move
/// to divide by, and a divide one ply down would not add up to the count that failed.
#[test]
fn a_failure_at_depth_zero_prints_no_divide() {
    let (_dir, path) = temp_file("zero.epd", format!("{START} ;D0 2 ;id zero\n").as_bytes());
    let o = perft(&["--suite", path.to_str().unwrap()]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("depth 0: expected 2, got 1"), "{out}");
    assert!(!out.contains("divide at"), "{out}");
    let o = perft(&["--suite", path.to_str().unwrap(), "--json"]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(doc["positions"][0]["divide"].is_null(), "{doc}");
}

/// A UTF-8 byte-order mark at the start of a suite file (some editors write one) is skipped,
/// not read as the first FEN's first character.
#[test]
fn a_byte_order_mark_at_the_start_of_a_suite_is_skipped() {
    let (_dir, path) = temp_file(
        "bom.epd",
        format!("\u{feff}{START} ;D1 20 ;D2 400 ;id with-bom\n").as_bytes(),
    );
    let o = perft(&["--suite", path.to_str().unwrap()]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", text(&o.stderr));
    assert!(out.contains("PASS  with-bom"), "{out}");
    assert!(out.contains("0 bad lines"), "{out}");
}
