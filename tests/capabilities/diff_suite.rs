//! `perft diff --suite` and `--protocol perftree` against engines with known faults, built in the
//! test suite (examples/fake_engine.rs): a UCI engine that plays en-passant captures leaving its
//! own king in check, a perftree script that promotes to a queen only, engines that hang, exit
//! mid-answer, print garbage or answer for another position. Each must be found and named, the
//! run must go on past it, and the summary must name the right kind of move.
//!
//! The suite, tests/data/diff.epd, holds published counts only (lines copied from the other
//! suite files); the fake engines are our generator with one fault switched on.

use crate::common::{self, text};

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::mpsc;
use std::time::Duration;

/// Limits every run of the binary: a hang fails the test instead of stalling it.
const WATCHDOG: Duration = Duration::from_secs(90);

fn perft(args: &[&str]) -> Output {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let shown = args.join(" ");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let out = Command::new(env!("CARGO_BIN_EXE_perft"))
            .args(&args)
            .output()
            .expect("the binary runs");
        let _ = tx.send(out);
    });
    rx.recv_timeout(WATCHDOG)
        .unwrap_or_else(|_| panic!("perft {shown} did not return within {WATCHDOG:?}"))
}

fn fake(options: &str) -> String {
    format!("{} {options}", common::fake_engine().display())
}

fn suite() -> String {
    common::repo_file("tests/data/diff.epd")
        .display()
        .to_string()
}

/// `perft diff --engine ENGINE --suite diff.epd --max-nodes 200000` plus `extra`: (exit code,
/// stdout, stderr).
fn diff_suite(engine: &str, extra: &[&str]) -> (Option<i32>, String, String) {
    let suite = suite();
    let mut args = vec![
        "diff",
        "--engine",
        engine,
        "--suite",
        &suite,
        "--max-nodes",
        "200000",
    ];
    args.extend_from_slice(extra);
    let o = perft(&args);
    (o.status.code(), text(&o.stdout), text(&o.stderr))
}

/// The rows of the summary table: kind name to its four numbers.
fn table(out: &str) -> Vec<(String, [usize; 4])> {
    let Some(start) = out.find("  kind of move") else {
        return Vec::new();
    };
    out[start..]
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            let (name, numbers) = words.split_at(words.len() - 4);
            let n: Vec<usize> = numbers.iter().map(|w| w.parse().unwrap()).collect();
            (name.join(" "), [n[0], n[1], n[2], n[3]])
        })
        .collect()
}

const POSITIONS: [&str; 7] = [
    "cpw-initial",
    "cpw-pos2-kiwipete",
    "cpw-pos3",
    "cpw-pos4",
    "cpw-pos5",
    "ps-122",
    "shakmaty-align-ep-pinned",
];

/// Asserts that exactly the positions in `failing` failed and the others passed.
fn assert_results(out: &str, failing: &[&str]) {
    for name in POSITIONS {
        let status = if failing.contains(&name) {
            "FAIL"
        } else {
            "PASS"
        };
        assert!(
            out.lines()
                .any(|l| l.starts_with(status) && l.split_whitespace().nth(1) == Some(name)),
            "{name} should be {status}:\n{out}"
        );
    }
    let passed = POSITIONS.len() - failing.len();
    assert!(
        out.contains(&format!(
            "7 positions: {passed} passed, {} failed",
            failing.len()
        )),
        "{out}"
    );
}

#[test]
fn a_correct_engine_passes_over_uci_and_perftree() {
    let ours = env!("CARGO_BIN_EXE_perft");
    for (engine, protocol) in [
        (format!("{ours} uci"), "uci"),
        (ours.to_string(), "perftree"),
    ] {
        let (code, out, err) = diff_suite(&engine, &["--protocol", protocol]);
        assert_eq!(code, Some(0), "{protocol}: {out}{err}");
        assert_results(&out, &[]);
        assert!(table(&out).is_empty(), "{out}");
    }
    // The fake engine with no fault switched on, too (its own UCI and perftree code).
    let (code, out, err) = diff_suite(&fake("--bug none"), &[]);
    assert_eq!(code, Some(0), "{out}{err}");
    let (code, out, err) = diff_suite(&fake("--bug none --perftree"), &["--protocol", "perftree"]);
    assert_eq!(code, Some(0), "{out}{err}");
}

#[test]
fn en_passant_into_check_is_found_and_named() {
    let (code, out, err) = diff_suite(&fake("--bug ep-pin"), &[]);
    assert_eq!(code, Some(1), "{out}{err}");
    // Position 3: 1. e4 and Black's f4xe3 would bare its king on h4 to the rook on b4.
    assert_results(&out, &["cpw-pos3", "cpw-pos4", "shakmaty-align-ep-pinned"]);
    assert!(
        out.contains("the engine's legal moves differ after: e2e4\n"),
        "{out}"
    );
    assert!(
        out.contains("FEN: 8/2p5/3p4/KP5r/1R2Pp1k/8/6P1/8 b - e3 0 1"),
        "{out}"
    );
    assert!(
        out.contains("moves the engine invented: f4e3 (en passant)"),
        "{out}"
    );
    // The pinned capture of the tricky suite answers a check (bishop b8 on the king on e5).
    assert!(
        out.contains("the engine's legal moves differ at the root (side to move in check)"),
        "{out}"
    );
    assert_eq!(table(&out), vec![("en passant".to_string(), [0, 0, 2, 1])]);
    assert!(out.contains("failures by kind: move list 3"), "{out}");
}

#[test]
fn the_json_summary_counts_the_same() {
    let (code, out, err) = diff_suite(&fake("--bug ep-pin"), &["--json"]);
    assert_eq!(code, Some(1), "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
    let summary = &doc["summary"];
    assert_eq!(summary["positions"], 7);
    assert_eq!(summary["positions_failed"], 3);
    assert_eq!(summary["positions_passed"], 4);
    assert_eq!(summary["failures"]["move list"], 3);
    for kind in summary["by_kind"].as_array().unwrap() {
        let expected = if kind["kind"] == "en passant" {
            [0, 0, 2, 1]
        } else {
            [0; 4]
        };
        let got = ["missed", "missed_in_check", "invented", "invented_in_check"]
            .map(|k| kind[k].as_u64().unwrap() as usize);
        assert_eq!(got, expected, "{kind}");
    }
    let pos3 = doc["positions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "cpw-pos3")
        .unwrap();
    assert_eq!(pos3["pass"], false);
    assert_eq!(pos3["failure"]["depth"], 2);
    assert_eq!(pos3["failure"]["moves"], serde_json::json!(["e2e4"]));
    assert_eq!(
        pos3["failure"]["invented"],
        serde_json::json!([{"move": "f4e3", "kind": "en passant"}])
    );
    assert_eq!(pos3["checks"][0]["pass"], true);
    // Position 3's perft 2 is 191 (Chess Programming Wiki, "Perft Results"); the engine adds
    // the two illegal en-passant captures, f4e3 after e2e4 and f4g3 after g2g4 (each takes
    // both pawns off the fourth rank and uncovers the rook on b4 against the king on h4): 193.
    assert_eq!(pos3["checks"][1]["engine"], 193);
    assert_eq!(pos3["checks"][2]["skipped"], "after a failure");
}

/// A perftree script (sh) in a scratch directory that runs the fake engine with `options`; the
/// directory (kept while the test holds it) and the script's path.
fn perftree_script(name: &str, options: &str) -> (common::Scratch, PathBuf) {
    let dir = common::Scratch::new("diff");
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\n# perftree contract: depth fen moves\nexec {} {options} --perftree \"$@\"\n",
            common::fake_engine().display()
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    (dir, path)
}

#[test]
fn a_perftree_script_promoting_only_to_a_queen_is_found_and_named() {
    let (_dir, script) = perftree_script("queen-only.sh", "--bug queen-only");
    let script = script.to_str().unwrap();
    let (code, out, err) = diff_suite(script, &["--protocol", "perftree"]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert_results(&out, &["cpw-pos4", "cpw-pos5", "ps-122"]);
    assert!(
        out.contains("b7a8r (promotion to rook)") && out.contains("b7c8n (promotion to knight)"),
        "{out}"
    );
    assert_eq!(
        table(&out),
        vec![
            ("promotion to rook".to_string(), [3, 0, 0, 0]),
            ("promotion to bishop".to_string(), [3, 0, 0, 0]),
            ("promotion to knight".to_string(), [3, 0, 0, 0]),
        ]
    );
    // The single-position diff speaks perftree too.
    let o = perft(&[
        "diff",
        "--engine",
        script,
        "--protocol",
        "perftree",
        "--fen",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "--depth",
        "2",
    ]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}{}", text(&o.stderr));
    assert!(out.contains("depth 2: (root): engine "), "{out}");
    assert!(out.contains(", perft 1486\n"), "{out}");
    assert!(
        out.contains(
            "moves the engine missed:   d7c8b (promotion to bishop), d7c8n (promotion to knight), \
             d7c8r (promotion to rook)"
        ),
        "{out}"
    );
}

#[test]
fn a_hanging_engine_is_killed_restarted_and_the_run_goes_on() {
    let board = "8/2p5/3p4/KP5r/1R3p1k";
    let (code, out, err) = diff_suite(
        &fake(&format!("--bug none --hang-on {board}")),
        &["--timeout", "2"],
    );
    assert_eq!(code, Some(1), "{out}{err}");
    assert_results(&out, &["cpw-pos3"]);
    assert!(
        out.contains("the engine did not answer within 2 s and was killed"),
        "{out}"
    );
    assert!(out.contains("engine restarts: 1"), "{out}");
    assert!(out.contains("failures by kind: timeout 1"), "{out}");
    // Over perftree: one process per query, killed at the deadline.
    let (_dir, script) = perftree_script("hang.sh", &format!("--bug none --hang-on {board}"));
    let (code, out, err) = diff_suite(
        script.to_str().unwrap(),
        &["--protocol", "perftree", "--timeout", "1.5"],
    );
    assert_eq!(code, Some(1), "{out}{err}");
    assert_results(&out, &["cpw-pos3"]);
    assert!(out.contains("within 1.5 s"), "{out}");
}

#[test]
fn an_engine_exiting_mid_answer_is_reported_and_restarted() {
    let board = "r3k2r/Pppp1ppp";
    let (code, out, err) = diff_suite(&fake(&format!("--bug none --exit-on {board}")), &[]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert_results(&out, &["cpw-pos4"]);
    assert!(
        out.contains("the engine crashed: it exited (exit status 3) after 3 lines"),
        "{out}"
    );
    assert!(out.contains("engine restarts: 1"), "{out}");
    let (_dir, script) = perftree_script("exit.sh", &format!("--bug none --exit-on {board}"));
    let (code, out, err) = diff_suite(script.to_str().unwrap(), &["--protocol", "perftree"]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert_results(&out, &["cpw-pos4"]);
    assert!(
        out.contains("the engine crashed: it exited (exit status 3) after 3 lines"),
        "{out}"
    );
}

#[test]
fn garbage_and_answers_for_another_position_are_named() {
    let (code, out, err) = diff_suite(&fake("--bug none --garbage-on n1n5/PPPk4"), &[]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert_results(&out, &["ps-122"]);
    assert!(
        out.contains("the engine's answer cannot be read: 'e2e4: twenty': no count after the move"),
        "{out}"
    );
    let (code, out, err) = diff_suite(&fake("--bug none --other-on 1b1k4"), &[]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert_results(&out, &["shakmaty-align-ep-pinned"]);
    assert!(
        out.contains("at the root: the engine answers for another position"),
        "{out}"
    );
    assert!(
        out.contains("failures by kind: another position 1"),
        "{out}"
    );
}

#[test]
fn an_engine_that_cannot_run_exits_2() {
    for protocol in ["uci", "perftree"] {
        let (code, out, err) = diff_suite("/no/such/engine", &["--protocol", protocol]);
        assert_eq!(code, Some(2), "{protocol}: {out}{err}");
        assert!(
            err.contains("the engine could not be started") && err.contains("not found"),
            "{protocol}: {err}"
        );
        let o = perft(&[
            "diff",
            "--engine",
            "/no/such/engine",
            "--protocol",
            protocol,
            "--depth",
            "2",
        ]);
        assert_eq!(o.status.code(), Some(2), "{protocol}");
    }
    // A UCI engine that never completes the handshake.
    let (code, _, err) = diff_suite("sleep 30", &["--timeout", "1"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("sent nothing for 1 s"), "{err}");
}

#[test]
fn bad_suite_lines_are_named_and_the_others_still_run() {
    let dir = common::Scratch::new("diff-bad");
    let file = dir.join("bad.epd");
    let good = std::fs::read_to_string(common::repo_file("tests/data/diff.epd")).unwrap();
    let first = good.lines().find(|l| !l.starts_with('#')).unwrap();
    std::fs::write(
        &file,
        format!("8/8/8/8 w - - 0 1 ;D1 3\n{first}\nnot a position at all\n"),
    )
    .unwrap();
    let engine = format!("{} uci", env!("CARGO_BIN_EXE_perft"));
    let file = file.to_str().unwrap();
    let o = perft(&[
        "diff",
        "--engine",
        &engine,
        "--suite",
        file,
        "--max-depth",
        "2",
    ]);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(out.contains("PASS  cpw-initial"), "{out}");
    assert!(err.contains(&format!("{file}:1: invalid FEN")), "{err}");
    assert!(err.contains(&format!("{file}:3:")), "{err}");
    assert!(out.contains("1 positions: 1 passed, 0 failed"), "{out}");
    assert!(out.contains("2 bad lines"), "{out}");
}
