//! Nothing a user types is silently dropped: an option that does not apply to what was asked is
//! an error naming both; file arguments work from pipes and `-`; `perft split` never overwrites
//! an earlier split nor writes more shards than jobs; the UCI front never counts a stale position.
//!
//! Counts asserted: the start position's perft 1 and 2 (20, 400) (Chess Programming Wiki, "Perft Results"), and its 400 two-ply
//! lines as the jobs of a two-ply split.

use crate::common::{self, text};

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_perft")
}

fn run(args: &[&str]) -> Output {
    Command::new(bin()).args(args).output().expect("perft runs")
}

fn run_with_input(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("perft runs");
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(input.as_bytes())
        .expect("perft reads its input");
    child.wait_with_output().expect("perft ends")
}

/// A fresh directory for one test, removed when dropped.
fn scratch(name: &str) -> common::Scratch {
    common::Scratch::new(&format!("options-{name}"))
}

/// A suite of one position: the start position to depth 2 (the Chess Programming Wiki's 20 and
/// 400).
const SUITE: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400\n";

/// Every pair of options where the second does not apply to what the first asks: each is
/// refused with exit status 2 and an error that names both.
#[test]
fn options_that_do_not_apply_are_refused_naming_both() {
    let dir = scratch("walk");
    let suite = dir.join("s.epd");
    std::fs::write(&suite, SUITE).unwrap();
    let suite = suite.to_str().unwrap();
    // (what is asked, the option that does not apply, the name of each in the error)
    let pairs: Vec<(Vec<&str>, Vec<&str>, &str, &str)> = vec![
        (
            vec!["--suite", suite],
            vec!["--depth", "1"],
            "--suite",
            "--depth",
        ),
        (
            vec!["--suite", suite],
            vec!["--moves", "e2e4"],
            "--suite",
            "--moves",
        ),
        (
            vec!["--suite", suite],
            vec!["--fen", "8/8/8/8/8/8/8/K6k w - -"],
            "--suite",
            "--fen",
        ),
        (
            vec!["--suite", suite],
            vec!["--divide"],
            "--suite",
            "--divide",
        ),
        (vec!["3"], vec!["--stats"], "DEPTH", "--stats"),
        (
            vec!["--compare"],
            vec!["--threads", "2"],
            "--compare",
            "--threads",
        ),
        (vec!["--compare"], vec!["--divide"], "--compare", "--divide"),
        (
            vec!["--compare", "--suite", suite],
            vec!["--json"],
            "--compare",
            "--json",
        ),
        (
            vec!["--depth", "3"],
            vec!["--rounds", "2"],
            "--rounds",
            "--compare",
        ),
        (vec!["--bench"], vec!["--depth", "3"], "--bench", "--depth"),
        (
            vec!["--bench"],
            vec!["--threads", "2"],
            "--bench",
            "--threads",
        ),
        (vec!["--bench"], vec!["--hash", "16"], "--bench", "--hash"),
        (vec!["--bench"], vec!["--chess960"], "--bench", "--chess960"),
        (
            vec!["--magics"],
            vec!["--fen", "8/8/8/8/8/8/8/K6k w - -"],
            "--magics",
            "--fen",
        ),
        (
            vec!["--magics"],
            vec!["--depth", "3"],
            "--magics",
            "--depth",
        ),
        (
            vec!["--magics"],
            vec!["--threads", "2"],
            "--magics",
            "--threads",
        ),
        (vec!["--stats"], vec!["--no-bulk"], "--stats", "--no-bulk"),
        (vec!["--depth", "3"], vec!["--json"], "--json", "--suite"),
        (
            vec!["--depth", "3"],
            vec!["--max-nodes", "5"],
            "--max-nodes",
            "--suite",
        ),
    ];
    for (asked, extra, a, b) in pairs {
        let args: Vec<&str> = asked.iter().chain(&extra).copied().collect();
        let o = run(&args);
        let err = text(&o.stderr);
        assert_eq!(
            o.status.code(),
            Some(2),
            "perft {args:?} was accepted: {err}"
        );
        assert!(
            err.contains(a) && err.contains(b),
            "perft {args:?}: the error does not name {a} and {b}: {err}"
        );
    }
}

#[test]
fn a_suite_is_read_from_a_pipe_or_standard_input() {
    for path in ["-", "/dev/stdin"] {
        let o = run_with_input(&["--suite", path], SUITE);
        let out = text(&o.stdout);
        assert!(o.status.success(), "{path}: {}", text(&o.stderr));
        assert!(out.contains("PASS"), "{path}: {out}");
        assert!(out.contains("1 position: 2 checks passed"), "{path}: {out}");
    }
    let o = run_with_input(&["--suite", "-", "--compare", "--rounds", "1"], SUITE);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

#[test]
fn a_directory_given_as_a_suite_is_one_plain_error() {
    let dir = scratch("dir-suite");
    let o = run(&["--suite", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(err.contains("is a directory, not a file"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn split_refuses_a_directory_in_use_and_writes_no_more_shards_than_jobs() {
    let dir = scratch("split");
    let out = dir.join("s");
    let split = |extra: &[&str]| {
        let mut args = vec![
            "split",
            "--depth",
            "4",
            "--at",
            "2",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        run(&args)
    };
    // 400 jobs (perft 2 of the start position, all distinct): 400 shards, not 100,000.
    let o = split(&["--shards", "100000"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("100000 shards asked, but the split has 400 jobs"));
    let files = std::fs::read_dir(&out).unwrap().count();
    assert_eq!(files, 401); // the manifest and 400 shards
    // A results file beside the shards, as a worker leaves it.
    std::fs::write(
        out.join("shard-0000.results"),
        "results of the earlier split\n",
    )
    .unwrap();
    let o = split(&["--shards", "2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("not empty"), "{}", text(&o.stderr));
    assert_eq!(
        std::fs::read_dir(&out).unwrap().count(),
        402,
        "nothing was touched"
    );
    // --force replaces the earlier split whole: no shard and no results of it remain.
    let o = split(&["--shards", "2", "--force"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["manifest.json", "shard-0000.jobs", "shard-0001.jobs"]
    );
}

#[test]
fn uci_never_counts_a_stale_position_and_names_bad_options() {
    let o = run_with_input(
        &["uci"],
        "position startpos moves e2e4\n\
         position fen not-a-fen\n\
         go perft 1\n\
         d\n\
         setoption name UCI_Chess960 value maybe\n\
         setoption name Hash value 16\n\
         position startpos\n\
         go perft 1\n\
         quit\n",
    );
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("info string error: invalid FEN"),
        "{out}"
    );
    assert!(lines[1].contains("no position"), "{out}");
    assert!(lines[2].contains("no position"), "{out}");
    assert!(
        lines[3].contains("UCI_Chess960 takes true or false, not 'maybe'"),
        "{out}"
    );
    assert!(lines[4].contains("unknown option 'Hash'"), "{out}");
    // The good position after them is counted: the start position's 20 moves.
    assert!(out.contains("\nNodes searched: 20\n"), "{out}");
    assert_eq!(out.matches("Nodes searched").count(), 1, "{out}");
}

#[test]
fn diff_of_one_position_prints_json_when_asked() {
    let fake = common::fake_engine();
    let o = run(&[
        "diff",
        "--engine",
        fake.to_str().unwrap(),
        "--depth",
        "4",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["pass"], false);
    assert_eq!(doc["depth"], 4);
    // The fake engine forgets b8c6 after 1.e4 e5 2.Nf3 (examples/fake_engine.rs).
    assert_eq!(doc["failure"]["category"], "move list");
    assert_eq!(doc["failure"]["moves"][0], "e2e4");
    assert_eq!(doc["failure"]["missed"][0]["move"], "b8c6");
}

#[test]
fn polish_a_user_notices() {
    // A promotion written without its piece says so.
    let o = run(&[
        "--fen",
        "8/4P3/8/8/8/8/8/k6K w - - 0 1",
        "--moves",
        "e7e8",
        "--depth",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("'e7e8' is a promotion: add the piece it promotes to"),
        "{}",
        text(&o.stderr)
    );
    // A number too large says so.
    let o = run(&["--hash", "99999999999999999999"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("too large"), "{}", text(&o.stderr));
    let o = run(&["--depth", "99999999999999999999"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("too large"), "{}", text(&o.stderr));
    // Limits that leave nothing to check say so.
    let o = run_with_input(&["--suite", "-", "--max-nodes", "0"], SUITE);
    assert!(
        text(&o.stderr).contains("nothing was checked"),
        "{}",
        text(&o.stderr)
    );
    // The manual page has its exit status and examples.
    let man = text(&run(&["man"]).stdout);
    assert!(man.contains(".SH \"EXIT STATUS\""), "{man}");
    assert!(man.contains(".SH EXAMPLES"), "{man}");
}
