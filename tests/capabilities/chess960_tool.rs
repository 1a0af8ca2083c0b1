//! Chess960 through every front of the tool, each against a count that is not ours: the
//! count, the divide, a suite, the statistics, split/work/merge, `perft uci`, the server's API
//! and `perft diff` over UCI and over the perftree contract.
//!
//! Counts asserted: the published Chess960 suite (suites/chess960.epd, its sources in its
//! header: frc-000's perft 1 to 5 are 21, 528, 12,189, 326,672 and 8,146,062; frc-001's perft 3
//! 18,002), shakmaty's divide and leaf statistics (an independent generator and classifier),
//! and Debian's Stockfish with UCI_Chess960 (an independent engine).

use crate::common::web::Server;
use crate::common::{self, perft, shakmaty_divide, shakmaty_stats, text};

use perft::epd::EpdEntry;
use serde_json::{Value, json};
use shakmaty::{CastlingMode, Chess};

/// The first positions of the published suite, with their counts.
fn suite(n: usize) -> Vec<EpdEntry> {
    common::suite("suites/chess960.epd")
        .into_iter()
        .take(n)
        .collect()
}

fn published(entry: &EpdEntry, depth: u32) -> u64 {
    let n = entry
        .counts
        .iter()
        .find(|(d, _)| *d == depth)
        .unwrap_or_else(|| panic!("{} lists depth {depth}", entry.name()))
        .1;
    n.to_string().parse().expect("a count")
}

fn shakmaty_position(fen: &str) -> Chess {
    shakmaty::fen::Fen::from_ascii(fen.as_bytes())
        .expect("a FEN")
        .into_position(CastlingMode::Chess960)
        .expect("a position shakmaty accepts")
}

#[test]
fn the_count_and_divide_are_the_published_and_shakmaty_s() {
    for entry in suite(6) {
        for depth in 1..=4 {
            let o = perft(&["--fen", &entry.fen, "--depth", &depth.to_string()]);
            assert!(o.status.success(), "{}", text(&o.stderr));
            assert_eq!(
                text(&o.stdout).trim(),
                published(&entry, depth).to_string(),
                "{} depth {depth}",
                entry.name()
            );
            assert!(
                text(&o.stderr).contains(", Chess960"),
                "{}",
                text(&o.stderr)
            );
        }
        let o = perft(&["--fen", &entry.fen, "--depth", "3", "--divide"]);
        let ours: Vec<(String, u64)> = text(&o.stdout)
            .lines()
            .take_while(|l| !l.is_empty())
            .map(|l| {
                let (mv, n) = l.split_once(": ").expect("move: count");
                (mv.to_string(), n.parse().expect("a count"))
            })
            .collect();
        assert_eq!(
            ours,
            shakmaty_divide(&entry.fen, true, 3),
            "{}",
            entry.name()
        );
        // The same position given in X-FEN-less standard notation with --chess960 is refused
        // only where its rights cannot be read; Shredder-FEN needs no switch at all.
        let o = perft(&["--chess960", "--fen", &entry.fen, "--depth", "2"]);
        assert_eq!(text(&o.stdout).trim(), published(&entry, 2).to_string());
    }
}

#[test]
fn a_chess960_suite_passes_through_the_binary() {
    let o = perft(&[
        "--suite",
        common::repo_file("suites/chess960.epd")
            .to_str()
            .expect("UTF-8"),
        "--max-nodes",
        "30000",
    ]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", text(&o.stderr));
    assert!(out.contains("968 positions: "), "{out}");
    assert!(out.contains(" 0 failed"), "{out}");
    assert!(!out.contains("FAIL"), "{out}");
}

#[test]
fn statistics_are_shakmaty_s_classification() {
    for entry in suite(3) {
        let o = perft(&["--fen", &entry.fen, "--stats", "--depth", "3", "--json"]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let doc: Value = serde_json::from_slice(&o.stdout).expect("JSON");
        let them = shakmaty_position(&entry.fen);
        for depth in 1..=3u32 {
            let want = shakmaty_stats(&them, depth);
            let row = &doc["depths"][depth as usize - 1];
            assert_eq!(row["depth"], json!(depth));
            for (field, value) in [
                ("nodes", want.nodes),
                ("captures", want.captures),
                ("enpassants", want.enpassants),
                ("castles", want.castles),
                ("promotions", want.promotions),
                ("direct_checks", want.direct_checks),
                ("single_discovered_checks", want.single_discovered_checks),
                ("direct_mates", want.direct_mates),
            ] {
                assert_eq!(
                    row[field],
                    json!(value),
                    "{} depth {depth} {field}",
                    entry.name()
                );
            }
        }
    }
}

#[test]
fn split_work_and_merge_give_the_published_total() {
    let entry = &suite(1)[0];
    let dir = common::Scratch::new("chess960-split");
    let out = dir.join("split");
    let out = out.to_str().expect("UTF-8");
    let o = perft(&[
        "split", "--fen", &entry.fen, "--depth", "5", "--at", "2", "--shards", "2", "--out", out,
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    for shard in ["shard-0000.jobs", "shard-0001.jobs"] {
        let path = format!("{out}/{shard}");
        let o = perft(&["work", &path, "--threads", "2", "--hash", "16"]);
        assert!(o.status.success(), "{}", text(&o.stderr));
    }
    let o = perft(&["merge", out, "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let doc: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(doc["rules"], json!("chess960"));
    assert_eq!(doc["total"], json!(published(entry, 5)));
}

#[test]
fn uci_counts_chess960_as_published() {
    use std::io::Write;
    let entry = &suite(2)[1];
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_perft"))
        .args(["uci", "--threads", "2"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("perft uci starts");
    let input = format!(
        "uci\nsetoption name UCI_Chess960 value true\nposition fen {}\ngo perft 3\nquit\n",
        entry.fen
    );
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("written");
    let out = child.wait_with_output().expect("perft uci ends");
    let said = text(&out.stdout);
    assert!(
        said.contains(&format!("Nodes searched: {}", published(entry, 3))),
        "{said}"
    );
    let divide: Vec<(String, u64)> = said
        .lines()
        .filter_map(|l| l.split_once(": "))
        .filter(|(mv, _)| mv.len() <= 5 && mv.chars().all(|c| c.is_ascii_alphanumeric()))
        .map(|(mv, n)| (mv.to_string(), n.parse().expect("a count")))
        .collect();
    assert_eq!(divide, shakmaty_divide(&entry.fen, true, 3));
}

#[test]
fn the_servers_api_counts_chess960_as_published() {
    let s = Server::start(&[]);
    let entry = &suite(1)[0];
    let fen: String = entry
        .fen
        .bytes()
        .map(|b| match b {
            b' ' => "+".to_string(),
            b'/' => "%2F".to_string(),
            _ => (b as char).to_string(),
        })
        .collect();
    let r = s.get(&format!("/api/divide?fen={fen}&chess960=1&depth=3"));
    assert_eq!(r.status, 200, "{}", r.body);
    let d = r.json();
    assert_eq!(d["total"], json!(published(entry, 3)));
    assert_eq!(d["chess960"], json!(true));
    let rows: Vec<(String, u64)> = d["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| {
            (
                m["move"].as_str().unwrap_or_default().to_string(),
                m["nodes"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(rows, shakmaty_divide(&entry.fen, true, 3));
}

/// `perft diff` against Stockfish with Chess960 rules, over UCI and (through a wrapper script
/// in tests/data) over the perftree contract: no difference, at the published count.
#[test]
fn diff_agrees_with_stockfish_in_chess960_over_both_protocols() {
    let Some(sf) = common::stockfish() else {
        return;
    };
    let wrapper = common::repo_file("tests/data/stockfish-perftree-960.sh");
    let perftree = format!("env STOCKFISH={sf} sh {}", wrapper.display());
    for entry in suite(3) {
        let want = published(&entry, 3);
        for (engine, protocol) in [(sf.to_string(), "uci"), (perftree.clone(), "perftree")] {
            let o = perft(&[
                "diff",
                "--engine",
                &engine,
                "--protocol",
                protocol,
                "--fen",
                &entry.fen,
                "--depth",
                "3",
            ]);
            let out = text(&o.stdout);
            assert_eq!(
                o.status.code(),
                Some(0),
                "{protocol} {}: {out}{}",
                entry.name(),
                text(&o.stderr)
            );
            assert!(
                out.contains(&format!("no difference: both count {want} nodes")),
                "{protocol}: {out}"
            );
        }
    }
}
