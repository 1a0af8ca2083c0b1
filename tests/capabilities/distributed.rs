//! `perft split`, `perft work`, `perft merge`: a deep count split into jobs, worked by GNU
//! parallel with a worker killed in the middle, merged to the published total; determinism; the
//! unique-position counts; statistics through the same path; and every kind of bad input
//! (another split's files, damaged and cut lines, a missing shard, other rules) named by file and
//! line, with nothing counted twice.
//!
//! Counts asserted: Kiwipete perft 6 = 8,031,647,685 and the start position's perft 5 =
//! 4,865,609 (Chess Programming Wiki, "Perft Results"); its statistics at depth 4 (the same
//! page); the number of distinct positions after 3, 4 and 5 plies, 5,362, 72,078 and 822,518
//! (OEIS A083276).

use crate::common::{self, KIWIPETE, START, text};

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const WATCHDOG: Duration = Duration::from_secs(300);

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_perft")
}

/// Runs `cmd` to the end under the watchdog.
fn run(mut cmd: Command) -> Output {
    let shown = format!("{cmd:?}");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(cmd.output().expect("the command runs"));
    });
    rx.recv_timeout(WATCHDOG)
        .unwrap_or_else(|_| panic!("{shown} did not return within {WATCHDOG:?}"))
}

fn perft(args: &[&str]) -> Output {
    let mut cmd = Command::new(bin());
    cmd.args(args);
    run(cmd)
}

/// A fresh directory for one test, removed when dropped.
fn scratch(name: &str) -> common::Scratch {
    common::Scratch::new(&format!("split-{name}"))
}

fn split(out: &Path, fen: &str, depth: u32, at: u32, shards: u32) {
    let o = perft(&[
        "split",
        "--fen",
        fen,
        "--depth",
        &depth.to_string(),
        "--at",
        &at.to_string(),
        "--shards",
        &shards.to_string(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

fn shard_files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jobs"))
        .map(|p| p.to_str().unwrap().to_string())
        .collect();
    v.sort();
    v
}

fn merge(dir: &Path) -> (Option<i32>, String, String) {
    let o = perft(&["merge", dir.to_str().unwrap()]);
    (o.status.code(), text(&o.stdout), text(&o.stderr))
}

fn gnu_parallel() -> bool {
    let found = Command::new("parallel")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    common::tool_present(
        found,
        "GNU parallel is not installed (apt-get install parallel)",
        "the shards run under xargs -P 2 instead",
    )
}

#[test]
fn kiwipete_depth_6_through_gnu_parallel_with_a_worker_killed_mid_job() {
    let dir = scratch("kiwipete");
    split(&dir, KIWIPETE, 6, 2, 4);
    let shards = shard_files(&dir);
    assert_eq!(shards.len(), 4);
    // A worker killed in the middle of writing a result: the system limits the size of the
    // files it may write (RLIMIT_FSIZE) to a few lines past the header, so the write that
    // crosses the limit is cut short and the next one kills the worker (SIGXFSZ): a real kill
    // inside a write, the results file ending in half a line. Should the limit fall exactly
    // at the end of a line, one byte more is tried.
    let results = dir.join("shard-0001.results");
    let mut limit: u64 = 300;
    let before = loop {
        let _ = std::fs::remove_file(&results);
        let mut cmd = Command::new(bin());
        cmd.args(["work", &shards[1], "--threads", "1"])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        {
            use std::os::unix::process::CommandExt;
            let bytes = limit;
            // SAFETY: only setrlimit(2), async-signal-safe, between fork and exec.
            unsafe {
                cmd.pre_exec(move || {
                    let lim = libc::rlimit {
                        rlim_cur: bytes,
                        rlim_max: bytes,
                    };
                    if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let status = run(cmd).status;
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(libc::SIGXFSZ), "{status:?}");
        let text = std::fs::read_to_string(&results).unwrap();
        assert_eq!(text.len() as u64, limit, "the file stops at the limit");
        if !text.ends_with('\n') {
            break text;
        }
        limit += 1;
    };
    // Complete lines, less the header; the last one was cut.
    let finished = before.matches('\n').count() - 1;
    assert!(finished >= 2, "{before}");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let in_shard_1 = manifest["shard_jobs"][1].as_u64().unwrap() as usize;
    // Merged now: incomplete, the cut line named, exit 1.
    let (code, out, err) = merge(&dir);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("INCOMPLETE"), "{out}");
    assert!(
        out.contains("shard-0001.results: its last line was cut short"),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "shard-0001.jobs: {} missing",
            in_shard_1 - finished
        )),
        "{out}"
    );
    let in_shard_0 = manifest["shard_jobs"][0].as_u64().unwrap();
    assert!(
        out.contains(&format!("shard-0000.jobs: {in_shard_0} missing")),
        "{out}"
    );
    if gnu_parallel() {
        let joblog = dir.join("joblog");
        let mut cmd = Command::new("parallel");
        cmd.args(["--joblog", joblog.to_str().unwrap(), "--resume", "-j", "2"])
            .arg(format!("{} work {{}}", bin()))
            .arg(":::")
            .args(&shards);
        let o = run(cmd);
        assert!(o.status.success(), "{}{}", text(&o.stdout), text(&o.stderr));
        let log = text(&o.stdout);
        assert!(log.contains(&format!("{} done before", finished)), "{log}");
        assert!(
            text(&o.stderr).contains(
                "last line was cut short (a worker stopped while writing it) and was removed"
            ),
            "{}",
            text(&o.stderr)
        );
        // Run again: --resume skips every finished shard.
        let o = run({
            let mut cmd = Command::new("parallel");
            cmd.args(["--joblog", joblog.to_str().unwrap(), "--resume", "-j", "2"])
                .arg(format!("{} work {{}}", bin()))
                .arg(":::")
                .args(&shards);
            cmd
        });
        assert!(o.status.success());
        assert_eq!(text(&o.stdout), "", "nothing rerun");
    } else {
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(format!(
                "printf '%s\\n' \"$@\" | xargs -P 2 -n 1 {} work",
                bin()
            ))
            .arg("sh")
            .args(&shards);
        let o = run(cmd);
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert!(text(&o.stdout).contains(&format!("{finished} done before")));
    }
    let (code, out, err) = merge(&dir);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(
        out.contains("complete: every job counted exactly once"),
        "{out}"
    );
    assert!(out.contains("perft 6 = 8031647685\n"), "{out}");
    // A finished shard worked again returns at once and leaves its results alone.
    let unchanged = std::fs::read(&results).unwrap();
    let o = perft(&["work", &shards[1], "--hash", "64"]);
    assert!(
        text(&o.stdout).contains("all done before"),
        "{}",
        text(&o.stdout)
    );
    assert_eq!(std::fs::read(&results).unwrap(), unchanged);
    // Every job exactly once in the results, the redone one included.
    let results = std::fs::read_to_string(&results).unwrap();
    let mut ids: Vec<&str> = results
        .lines()
        .skip(1)
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    ids.sort();
    let n = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), n, "a job was counted twice");
}

#[test]
fn the_same_arguments_give_the_same_files_and_unique_positions_match_oeis() {
    let a = scratch("same-a");
    let b = scratch("same-b");
    for (dir, shards) in [(&a, 3), (&b, 3)] {
        split(dir, perft::position::STARTPOS, 7, 4, shards);
    }
    for name in [
        "manifest.json",
        "shard-0000.jobs",
        "shard-0001.jobs",
        "shard-0002.jobs",
    ] {
        assert_eq!(
            std::fs::read(a.join(name)).unwrap(),
            std::fs::read(b.join(name)).unwrap(),
            "{name}"
        );
    }
    // OEIS A083276: distinct positions after n plies.
    for (at, unique, paths) in [
        (3u32, 5362u64, 8902u64),
        (4, 72_078, 197_281),
        (5, 822_518, 4_865_609),
    ] {
        let dir = scratch(&format!("oeis-{at}"));
        split(&dir, perft::position::STARTPOS, at, at, 2);
        let m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap())
                .unwrap();
        assert_eq!(m["jobs"], unique, "at {at}");
        assert_eq!(m["multiplicity_sum"], paths, "at {at}");
        assert_eq!(
            m["shard_jobs"][0].as_u64().unwrap() + m["shard_jobs"][1].as_u64().unwrap(),
            unique
        );
    }
}

#[test]
fn the_start_position_with_statistics_and_several_threads() {
    let dir = scratch("stats");
    split(&dir, perft::position::STARTPOS, 5, 2, 2);
    // One shard in the baseline copy of the code (`--simd none`), the other in the widest.
    for (i, shard) in shard_files(&dir).iter().enumerate() {
        let mut args = vec!["work", shard, "--stats", "--threads", "2", "--hash", "16"];
        if i == 0 {
            args.extend(["--simd", "none"]);
        }
        let o = perft(&args);
        assert!(o.status.success(), "{}", text(&o.stderr));
    }
    let (code, out, err) = merge(&dir);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("perft 5 = 4865609\n"), "{out}");
    let o = perft(&["merge", dir.to_str().unwrap(), "--json"]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // Chess Programming Wiki, "Perft Results", initial position depth 5.
    let s = &doc["stats"];
    assert_eq!(s["nodes"], 4_865_609);
    assert_eq!(s["captures"], 82_719);
    assert_eq!(s["enpassants"], 258);
    assert_eq!(s["castles"], 0);
    assert_eq!(s["promotions"], 0);
    let checks: u64 = [
        "direct_checks",
        "single_discovered_checks",
        "direct_discovered_checks",
        "double_discovered_checks",
    ]
    .iter()
    .map(|k| s[k].as_u64().unwrap())
    .sum();
    let mates: u64 = [
        "direct_mates",
        "single_discovered_mates",
        "direct_discovered_mates",
        "double_discovered_mates",
    ]
    .iter()
    .map(|k| s[k].as_u64().unwrap())
    .sum();
    // The Wiki's checks include the mates; the Grand Chess Tree's fields do not.
    assert_eq!(checks + mates, 27_351);
    assert_eq!(mates, 347);
    assert_eq!(s["single_discovered_checks"], 6);
    assert_eq!(s["direct_discovered_checks"], 0);
    assert_eq!(s["double_discovered_checks"], 0);
    assert_eq!(doc["complete"], true);
    assert_eq!(doc["total"], 4_865_609);
    // A shard worked without --stats cannot join them.
    let o = perft(&["work", &shard_files(&dir)[0]]);
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("written with --stats"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn work_takes_the_counting_options_of_a_count() {
    // `--hash auto` (and `--hash` alone), the default thread count, `--simd`, `--no-lanes`,
    // `--no-bulk` and the sliders: the same options as a count, each giving the published perft 5 of Kiwipete, 193,690,690 (Chess
    // Programming Wiki, "Perft Results").
    for (name, extra) in [
        ("auto", vec!["--hash", "auto"]),
        ("bare", vec!["--hash"]),
        ("none", vec!["--simd", "none", "--threads", "3"]),
        (
            "no-bulk",
            vec!["--no-bulk", "--classical", "--threads", "1"],
        ),
        (
            "no-lanes",
            vec!["--no-lanes", "--sliders", "magic", "--hash", "8"],
        ),
    ] {
        let dir = scratch(&format!("options-{name}"));
        split(&dir, KIWIPETE, 5, 2, 1);
        for shard in shard_files(&dir) {
            let mut args = vec!["work", shard.as_str()];
            args.extend(extra.iter().copied());
            let o = perft(&args);
            assert!(o.status.success(), "{name}: {}", text(&o.stderr));
        }
        let (code, out, err) = merge(&dir);
        assert_eq!(code, Some(0), "{name}: {out}{err}");
        assert!(out.contains("perft 5 = 193690690\n"), "{name}: {out}");
    }
    // Statistics count every leaf by its move: making every move instead is refused with
    // --stats, naming both.
    let o = perft(&["work", "x.jobs", "--stats", "--no-bulk"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--no-bulk"), "{}", text(&o.stderr));
    let o = perft(&["work", "x.jobs", "--hash", "lots"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("neither a size in MiB"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn bad_input_is_named_by_file_and_line() {
    let a = scratch("bad-a");
    let b = scratch("bad-b");
    split(&a, perft::position::STARTPOS, 4, 2, 2);
    split(&b, KIWIPETE, 3, 1, 2);
    for shard in shard_files(&a).iter().chain(&shard_files(&b)) {
        assert!(perft(&["work", shard]).status.success());
    }
    assert_eq!(merge(&a).0, Some(0));
    assert!(merge(&a).1.contains("perft 4 = 197281\n"));
    let results = a.join("shard-0000.results");
    let good = std::fs::read_to_string(&results).unwrap();

    // A results file of another split.
    std::fs::copy(b.join("shard-0000.results"), &results).unwrap();
    let (code, _, err) = merge(&a);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("shard-0000.results:1: written for split"),
        "{err}"
    );
    assert!(err.contains("another split"), "{err}");
    let o = perft(&["work", a.join("shard-0000.jobs").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("another split"));

    // A damaged line: a digit changed.
    let mut lines: Vec<String> = good.lines().map(String::from).collect();
    let damaged = lines[3].replacen(' ', " 9", 1);
    lines[3] = damaged;
    std::fs::write(&results, lines.join("\n") + "\n").unwrap();
    let (code, _, err) = merge(&a);
    assert_eq!(code, Some(2));
    assert!(err.contains("shard-0000.results:4: damaged line"), "{err}");

    // The same job twice with the same count is fine; with another count it is an error.
    let mut lines: Vec<String> = good.lines().map(String::from).collect();
    lines.push(lines[2].clone());
    std::fs::write(&results, lines.join("\n") + "\n").unwrap();
    let (code, out, err) = merge(&a);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("perft 4 = 197281\n"), "{out}");
    let count: u64 = lines[2].split(' ').nth(1).unwrap().parse().unwrap();
    // A valid checksum: the line is well formed, only its count disagrees.
    let other = with_count(&lines[2], &(count + 1).to_string());
    lines.push(other);
    std::fs::write(&results, lines.join("\n") + "\n").unwrap();
    let (code, _, err) = merge(&a);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("counted twice with different results"),
        "{err}"
    );

    // A well-formed line whose count no perft can reach (2^768 - 1, the largest number a
    // count's field parses to): named, not summed into the total.
    let mut lines: Vec<String> = good.lines().map(String::from).collect();
    lines[2] = with_count(&lines[2], LARGEST_COUNT_FIELD);
    std::fs::write(&results, lines.join("\n") + "\n").unwrap();
    let (code, _, err) = merge(&a);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("shard-0000.results:3: a count larger than any perft gives"),
        "{err}"
    );

    // Results written under other rules.
    let chess960 = good.replacen("rules standard", "rules chess960", 1);
    std::fs::write(&results, chess960).unwrap();
    let (code, _, err) = merge(&a);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("shard-0000.results:1: written under chess960 rules"),
        "{err}"
    );

    // A missing result: listed by id and shard, exit 1.
    let mut lines: Vec<&str> = good.lines().collect();
    let gone = lines.remove(5).split(' ').next().unwrap().to_string();
    std::fs::write(&results, lines.join("\n") + "\n").unwrap();
    let (code, out, _) = merge(&a);
    assert_eq!(code, Some(1));
    assert!(
        out.contains(&format!("shard-0000.jobs: 1 missing: {gone}\n")),
        "{out}"
    );
    std::fs::write(&results, &good).unwrap();
    assert_eq!(merge(&a).0, Some(0));

    // A shard file missing, or one of another split in its place.
    std::fs::rename(a.join("shard-0001.jobs"), a.join("moved")).unwrap();
    let (code, _, err) = merge(&a);
    assert_eq!(code, Some(2));
    assert!(err.contains("shard-0001.jobs: cannot read"), "{err}");
    std::fs::copy(b.join("shard-0001.jobs"), a.join("shard-0001.jobs")).unwrap();
    let (code, _, err) = merge(&a);
    assert_eq!(code, Some(2));
    assert!(err.contains("shard-0001.jobs:1: of split"), "{err}");

    // A damaged shard file.
    let jobs = std::fs::read_to_string(a.join("moved")).unwrap();
    let mut broken: Vec<String> = jobs.lines().map(String::from).collect();
    broken[1] = broken[1].replacen(" w ", " x ", 1);
    std::fs::write(a.join("shard-0001.jobs"), broken.join("\n") + "\n").unwrap();
    let o = perft(&["work", a.join("shard-0001.jobs").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("shard-0001.jobs:2: invalid FEN"),
        "{}",
        text(&o.stderr)
    );
    let o = perft(&["work", "/no/such/shard.jobs"]);
    assert_eq!(o.status.code(), Some(2));
    let o = perft(&["merge", "/no/such/dir"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("manifest.json: cannot read"));
}

/// 2^768 - 1, written out: the largest count a results line's field is read as.
const LARGEST_COUNT_FIELD: &str = "1552518092300708935148979488462502555256886017116696611139052038026050952686376886330878408828646477950487730697131073206171580044114814391444287275041181139204454976020849905550265285631598444825262999193716468750892846853816057855";

/// A results line with its count field replaced by `count` and its checksum made anew, so
/// that the line is well formed and only its count differs.
fn with_count(line: &str, count: &str) -> String {
    let (text, _) = line.rsplit_once(' ').unwrap();
    let mut fields: Vec<&str> = text.split(' ').collect();
    fields[1] = count;
    let text = fields.join(" ");
    let sum = checksum(&text);
    format!("{text} {sum}")
}

/// The results lines' checksum (FNV-1a 64 of the text, low 32 bits): written out here, from
/// the file format, so the test does not take it from the code under test.
fn checksum(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("#{:08x}", h as u32)
}

#[test]
fn dead_trees_and_the_edges_of_the_split() {
    // Mate at the root: no jobs, total 0.
    let dir = scratch("mate");
    let mate = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
    split(&dir, mate, 5, 2, 3);
    for shard in shard_files(&dir) {
        assert!(perft(&["work", &shard, "--threads", "3"]).status.success());
    }
    let (code, out, _) = merge(&dir);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("perft 5 = 0\n"), "{out}");
    // Split at 0 (the root is the one job) and at the full depth (every job counts 1).
    for (at, depth) in [(0, 3), (3, 3)] {
        let dir = scratch(&format!("edge-{at}"));
        split(&dir, KIWIPETE, depth, at, 2);
        for shard in shard_files(&dir) {
            assert!(perft(&["work", &shard]).status.success());
        }
        let (code, out, _) = merge(&dir);
        assert_eq!(code, Some(0), "{out}");
        assert!(out.contains("perft 3 = 97862\n"), "{out}");
    }
    let o = perft(&[
        "split", "--depth", "2", "--at", "3", "--shards", "1", "--out", "/tmp/x",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--at 3 is deeper than --depth 2"));
}

/// A worker with four threads, a table and statistics killed (SIGKILL) again and again at
/// moments drawn at random, then left to finish: the merge gives Kiwipete's published perft 5
/// and statistics (Chess Programming Wiki, "Perft Results": 193,690,690 nodes, 35,043,416
/// captures, 73,365 en passant, 4,993,637 castles, 8,392 promotions, 3,309,887 checks, 30,171
/// mates), every job exactly once.
#[test]
fn a_worker_killed_again_and_again_with_threads_table_and_statistics() {
    let dir = scratch("killed");
    split(&dir, KIWIPETE, 5, 2, 1);
    let shard = &shard_files(&dir)[0];
    let results = dir.join("shard-0000.results");
    let mut rng = perft::attacks::magic::Prng::new(0xC0FFEE);
    let mut kills = 0;
    let start = Instant::now();
    // Between 20 and 400 ms at first: inside the table's mapping, between jobs, inside a
    // write. A machine fast enough to finish first has the shard started afresh with the
    // waits halved, until at least one kill has landed.
    let mut longest = 380;
    while kills < 6 {
        let mut child = Command::new(bin())
            .args(["work", shard, "--threads", "4", "--hash", "16", "--stats"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let wait = Duration::from_millis(20 + rng.next_u64() % longest);
        std::thread::sleep(wait);
        assert!(start.elapsed() < WATCHDOG, "the kills took too long");
        if child.try_wait().unwrap().is_some() {
            if kills > 0 {
                break; // finished before the next kill
            }
            let _ = std::fs::remove_file(&results);
            longest = (longest / 2).max(1);
            continue;
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        kills += 1;
    }
    assert!(kills >= 1, "no worker was killed");
    let o = perft(&["work", shard, "--threads", "4", "--hash", "16", "--stats"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = perft(&["merge", dir.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", text(&o.stdout));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["total"], 193_690_690u64, "after {kills} kills");
    let st = &doc["stats"];
    assert_eq!(st["nodes"], 193_690_690u64);
    assert_eq!(st["captures"], 35_043_416u64);
    assert_eq!(st["enpassants"], 73_365u64);
    assert_eq!(st["castles"], 4_993_637u64);
    assert_eq!(st["promotions"], 8_392u64);
    assert_eq!(st["checks"], 3_309_887u64);
    let without_mates = st["checks_without_mates"].as_u64().unwrap();
    assert_eq!(
        without_mates + st["total_mates"].as_u64().unwrap(),
        3_309_887
    );
    assert_eq!(st["total_mates"], 30_171u64);
    // Every job exactly once among the results' complete lines.
    let text_results = std::fs::read_to_string(&results).unwrap();
    let mut ids: Vec<&str> = text_results
        .lines()
        .skip(1)
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    let n = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), n, "a job was counted twice");
    assert_eq!(doc["jobs_done"], doc["jobs"]);
}

/// Two workers given the same shard: the second finds the first holding it, says so and exits
/// 2 without writing a line; the first counts every job once, and the merge is the published
/// total (the start position's perft 7, 3,195,901,860).
#[test]
fn a_second_worker_on_a_held_shard_is_refused() {
    let dir = scratch("held");
    split(&dir, common::START, 7, 1, 1);
    let shard = shard_files(&dir).remove(0);
    let results = shard.replace(".jobs", ".results");
    // One thread, the baseline copy: a few seconds, long enough to hold the shard.
    let mut first = Command::new(bin())
        .args(["work", &shard, "--threads", "1", "--simd", "none"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the first worker starts");
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::metadata(&results).map_or(0, |m| m.len()) == 0 {
        assert!(
            Instant::now() < deadline,
            "the first worker wrote no header"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let second = perft(&["work", &shard, "--threads", "1"]);
    let status = first.wait().expect("the first worker ends");
    assert!(status.success());
    assert_eq!(second.status.code(), Some(2), "{}", text(&second.stdout));
    let err = text(&second.stderr);
    assert!(
        err.contains("another worker is counting this shard"),
        "{err}"
    );
    assert!(err.contains(&results), "{err}");
    let (code, out, err) = merge(&dir);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("perft 7 = 3195901860"), "{out}");
    // Every job once in the results file: 20 lines and the header.
    let text = std::fs::read_to_string(&results).expect("the results");
    assert_eq!(text.lines().count(), 21, "{text}");
}

/// `perft merge --json` prints a JSON document on an error too (`{"error": ...}`), as on
/// success, and exits 2.
#[test]
fn merge_json_reports_an_error_as_json() {
    let dir = scratch("merge-json-error");
    let o = perft(&["merge", dir.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(2));
    let doc: serde_json::Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o.stdout)));
    let error = doc["error"].as_str().unwrap_or_default();
    assert!(error.contains("manifest"), "{doc}");
}

/// Each job's time is kept with its result, to the nanosecond (a job of a shallow split takes
/// microseconds, which three decimals wrote as 0.000), and `perft merge` reports their sum.
#[test]
fn every_jobs_time_is_kept_and_merge_adds_them_up() {
    let dir = scratch("times");
    split(&dir, START, 5, 2, 1);
    let shard = &shard_files(&dir)[0];
    let o = perft(&["work", shard, "--threads", "1"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let results = std::fs::read_to_string(shard.replace(".jobs", ".results")).unwrap();
    let seconds: Vec<f64> = results
        .lines()
        .skip(1)
        .map(|l| l.split(' ').nth(2).unwrap().parse().unwrap())
        .collect();
    // The 400 positions two plies down (Chess Programming Wiki, "Perft Results": perft 2 = 400).
    assert_eq!(seconds.len(), 400, "{results}");
    assert!(seconds.iter().all(|&s| s > 0.0), "{results}");
    let sum: f64 = seconds.iter().sum();
    let o = perft(&["merge", dir.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", text(&o.stdout));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // Perft 5 of the start position, 4,865,609 (Chess Programming Wiki, "Perft Results").
    assert_eq!(doc["total"], 4_865_609u64);
    let work = doc["work_seconds"].as_f64().unwrap();
    assert!(
        (work - sum).abs() < 1e-6,
        "merge says {work} s, the lines add up to {sum} s"
    );
    let (code, out, _) = merge(&dir);
    assert_eq!(code, Some(0));
    assert!(out.contains(&format!("work {sum:.3} s")), "{out}");
}

/// A finished shard's results file whose last line was cut short: the line is removed, and what
/// `perft work` says of it agrees with what it then counts (nothing here: every job already has
/// its result), not that a job was redone.
#[test]
fn a_cut_line_after_every_result_is_removed_and_said_so_consistently() {
    let dir = scratch("cut-finished");
    split(&dir, START, 3, 1, 1);
    let shard = &shard_files(&dir)[0];
    let o = perft(&["work", shard, "--threads", "1"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let results = shard.replace(".jobs", ".results");
    let whole = std::fs::read(&results).unwrap();
    let mut cut = whole.clone();
    cut.extend_from_slice(b"7 40");
    std::fs::write(&results, &cut).unwrap();
    let o = perft(&["work", shard, "--threads", "1"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(err.contains("last line was cut short"), "{err}");
    assert!(!err.contains("redone"), "{err}");
    // The 20 root moves (perft 1 = 20), every one done before.
    assert!(
        out.contains("20 jobs, 20 done before, 0 counted now"),
        "{out}"
    );
    assert_eq!(std::fs::read(&results).unwrap(), whole);
}
