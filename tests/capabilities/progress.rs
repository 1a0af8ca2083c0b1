//! What the commands show on a terminal while they work: every wait over a second shows its
//! progress on stderr, and the time left is estimated from the work done (`eta ?` until some
//! is done, never `eta 0s` before anything finished). `script` (util-linux) gives a command a
//! terminal; where it is missing these tests say so and pass.
//!
//! Counts asserted: position 4's perft 6, 706,045,033, the start position's perft 2, 400, and
//! perft 5, 4,865,609 (Chess Programming Wiki, "Perft Results").

use crate::common::{self, START, text};

/// Position 4 of the Chess Programming Wiki's "Perft Results".
const POSITION_4: &str = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1";
use std::process::Command;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_perft")
}

/// Runs the shell command line `cmd` on a terminal and returns what the terminal showed (stdout
/// and stderr, with the bars' redraws); `None` where `script` is not installed.
fn on_a_terminal(cmd: &str) -> Option<(bool, String)> {
    let have_script = Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !common::tool_present(
        have_script,
        "`script` (util-linux) is not installed",
        "the terminal test is skipped",
    ) {
        return None;
    }
    let o = Command::new("script")
        .args(["-qefc", cmd, "/dev/null"])
        .output()
        .expect("script runs");
    Some((o.status.success(), text(&o.stdout)))
}

/// Every `done/total UNIT, ... eta X` a bar drew: (done, X).
fn etas(shown: &str, unit: &str) -> Vec<(u64, String)> {
    let mut out = Vec::new();
    for (i, _) in shown.match_indices(&format!(" {unit}, ")) {
        let before = &shown[..i];
        let start = before
            .rfind(|c: char| !(c.is_ascii_digit() || c == '/'))
            .map_or(0, |j| j + 1);
        let Some(done) = before[start..]
            .split('/')
            .next()
            .and_then(|d| d.parse().ok())
        else {
            continue;
        };
        let after = &shown[i..];
        let line_end = after.find(['\r', '\n', '\x1b']).unwrap_or(after.len());
        if let Some(at) = after[..line_end].find("eta ") {
            let eta = after[at + 4..line_end].split_whitespace().next();
            out.push((done, eta.unwrap_or("").to_string()));
        }
    }
    out
}

/// No frame says how long is left before anything is done: `eta ?` until a unit is done (and
/// until one is done after the bar first saw the count, which may have run unseen for a
/// second), a time after that.
fn assert_no_eta_before_work(shown: &str, unit: &str) {
    for (done, eta) in etas(shown, unit) {
        if done == 0 {
            assert_eq!(eta, "?", "0 {unit} done, yet eta {eta}: {shown}");
        } else {
            assert!(
                eta == "?" || eta.ends_with('s') || eta.ends_with('m'),
                "eta {eta}: {shown}"
            );
        }
    }
}

/// `--stats` on a terminal shows the depth it is at and that count's tasks while it works; the
/// table and the speed line are as they are anyway.
#[test]
fn statistics_show_their_depth_and_tasks_on_a_terminal() {
    // Position 4's depths 1-6 on one thread of the baseline copy: seconds on any machine.
    let cmd = format!(
        "{} --stats --fen '{POSITION_4}' --depth 6 --threads 1 --simd none",
        bin()
    );
    let Some((ok, shown)) = on_a_terminal(&cmd) else {
        return;
    };
    assert!(ok, "{shown}");
    assert!(shown.contains("706045033"), "{shown}");
    assert!(shown.contains(" tasks, "), "no progress shown: {shown}");
    assert!(shown.contains("depth 6 of 6"), "no depth shown: {shown}");
    assert_no_eta_before_work(&shown, "tasks");
}

/// `perft diff` on a terminal shows what it compares while it waits on an engine that takes
/// two seconds to answer.
#[test]
fn diff_shows_what_it_waits_for_on_a_terminal() {
    let dir = common::Scratch::new("slow-engine");
    let engine = dir.file(
        "slow-engine",
        format!("#!/bin/sh\nsleep 2\nexec {} \"$@\"\n", bin()).as_bytes(),
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&engine, std::fs::Permissions::from_mode(0o755)).unwrap();
    let cmd = format!(
        "{} diff --protocol perftree --engine '{}' --depth 2",
        bin(),
        engine.display()
    );
    let Some((ok, shown)) = on_a_terminal(&cmd) else {
        return;
    };
    assert!(ok, "{shown}");
    assert!(
        shown.contains("no difference: both count 400 nodes at depth 2"),
        "{shown}"
    );
    assert!(
        shown.contains("comparing depth 2"),
        "no progress shown: {shown}"
    );
}

/// `perft work` on a terminal shows its jobs from the start, and the time left only once a job
/// is done.
#[test]
fn work_shows_no_time_left_before_a_job_is_done() {
    let dir = common::Scratch::new("work-terminal");
    let out = dir.to_str().unwrap();
    let o = common::perft(&[
        "split", "--fen", START, "--depth", "5", "--at", "1", "--shards", "1", "--out", out,
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let shard = format!("{out}/shard-0000.jobs");
    let Some((ok, shown)) = on_a_terminal(&format!("{} work {shard} --threads 1", bin())) else {
        return;
    };
    assert!(ok, "{shown}");
    assert!(shown.contains("20 counted now: 4865609 nodes"), "{shown}");
    let frames = etas(&shown, "jobs");
    assert!(
        frames.iter().any(|(done, _)| *done == 0),
        "no frame before the first job: {shown}"
    );
    assert_no_eta_before_work(&shown, "jobs");
}
