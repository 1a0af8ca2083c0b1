//! Counts past 2^64 are exact and, through the table, fast, in every command that counts:
//! checked against an independent count of two bare kings made here from the kings' squares
//! alone (no position, no generator of ours).

use crate::common;

use perft::perft::{Counting, Perft};
use perft::stats::StatsTable;
use perft::tt::Table;
use perft::{Magic, Nodes, Position};
use std::collections::HashMap;
use std::process::Output;

/// White king e1, black king e8, white to move.
const KINGS: &str = "4k3/8/8/8/8/8/8/4K3 w - - 0 1";

/// An unsigned integer of 256 bits, low half first: room for two bare kings' counts to depth
/// 64 (below 8^64 = 2^192).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct U256(u128, u128);

impl std::ops::Add for U256 {
    type Output = U256;
    fn add(self, o: U256) -> U256 {
        let (low, carry) = self.0.overflowing_add(o.0);
        U256(low, self.1 + o.1 + u128::from(carry))
    }
}

impl std::iter::Sum for U256 {
    fn sum<I: Iterator<Item = U256>>(it: I) -> U256 {
        it.fold(U256::default(), |a, b| a + b)
    }
}

impl std::fmt::Display for U256 {
    /// In decimal: the four 64-bit words divided by 10^19 again and again, the remainders the
    /// digits in groups of nineteen.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const BASE: u128 = 10_000_000_000_000_000_000;
        let mut words = [
            (self.1 >> 64) as u64,
            self.1 as u64,
            (self.0 >> 64) as u64,
            self.0 as u64,
        ];
        let mut groups = Vec::new();
        while words.iter().any(|&w| w != 0) || groups.is_empty() {
            let mut rest = 0u128;
            for w in &mut words {
                let cur = rest << 64 | u128::from(*w);
                *w = (cur / BASE) as u64;
                rest = cur % BASE;
            }
            groups.push(rest);
        }
        let mut groups = groups.into_iter().rev();
        write!(f, "{}", groups.next().unwrap_or(0))?;
        groups.try_for_each(|g| write!(f, "{g:019}"))
    }
}

/// Perft of two bare kings, the king to move on `us` and the other on `them`: every step of a
/// king to a square on the board that does not touch the other king, counted level by level
/// over the 64 x 64 pairs of squares.
fn kings_perft(us: u8, them: u8, depth: u32) -> U256 {
    let steps = |k: u8| {
        let (f, r) = (i8::try_from(k % 8).unwrap(), i8::try_from(k / 8).unwrap());
        let mut out = Vec::new();
        for dr in -1..=1 {
            for df in -1..=1 {
                let (nf, nr) = (f + df, r + dr);
                if (dr, df) != (0, 0) && (0..8).contains(&nf) && (0..8).contains(&nr) {
                    out.push(u8::try_from(nr * 8 + nf).unwrap());
                }
            }
        }
        out
    };
    let touch = |a: u8, b: u8| (a % 8).abs_diff(b % 8) <= 1 && (a / 8).abs_diff(b / 8) <= 1;
    // level[(mover, other)] = perft of the remaining depth from that pair.
    let mut level: HashMap<(u8, u8), U256> = HashMap::new();
    for a in 0..64 {
        for b in 0..64 {
            level.insert((a, b), U256(1, 0));
        }
    }
    for _ in 0..depth {
        let mut next = HashMap::new();
        for a in 0..64u8 {
            for b in 0..64u8 {
                let n: U256 = steps(a)
                    .into_iter()
                    .filter(|&t| !touch(t, b))
                    .map(|t| level[&(b, t)])
                    .sum();
                next.insert((a, b), n);
            }
        }
        level = next;
    }
    level[&(us, them)]
}

/// Two bare kings from e1 (square 4) and e8 (square 60), white to move.
fn kings(depth: u32) -> Nodes {
    kings_perft(4, 60, depth).to_string().parse().unwrap()
}

/// The standard output of a run that must succeed.
fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "{}", common::text(&o.stderr));
    common::text(&o.stdout)
}

/// A fresh directory for one test, removed when dropped.
fn scratch(name: &str) -> common::Scratch {
    common::Scratch::new(&format!("big-{name}"))
}

/// The oracle agrees with counts found by hand (each king has five steps from its home square,
/// none touching the other: 5, then 25) and with a separate count in Python's integers over the
/// same pairs of squares (170 at depth 3, 61,018,799,030,976,426,896 at depth 24, a 177-bit
/// number at depth 64).
#[test]
fn the_independent_kings_count_is_sound() {
    let count = |depth| kings_perft(4, 60, depth).to_string();
    assert_eq!(count(1), "5");
    assert_eq!(count(2), "25");
    assert_eq!(count(3), "170");
    assert_eq!(count(24), "61018799030976426896");
    assert_eq!(count(40), "1362487114548666224701972370664055");
    assert_eq!(
        count(64),
        "143253687249488009422145259129737908911446149579560264"
    );
}

#[test]
fn counts_past_2_to_the_64_are_exact_with_and_without_the_table() {
    let pos = Position::from_fen(KINGS).unwrap();
    // Without a table: the plies above the u64 subtrees are walked one by one.
    for depth in [7, 8] {
        assert_eq!(Perft::new().total::<Magic>(&pos, depth), kings(depth));
        assert_eq!(
            Perft::new()
                .counting(Counting::NoBulk)
                .total::<Magic>(&pos, depth),
            kings(depth)
        );
    }
    // Depth 40 needs room for its distinct positions at each depth: 128 MiB is enough (16 MiB
    // suffices up to depth 30).
    let table = Table::new(128).unwrap();
    for threads in [1, 2, 4] {
        let opts = Perft::new().threads(threads).table(Some(&table));
        for depth in [20, 24, 30, 40] {
            let got = opts.total::<Magic>(&pos, depth);
            assert_eq!(got, kings(depth), "depth {depth}, {threads} threads");
        }
        let divide: Nodes = opts
            .divide::<Magic>(&pos, 30)
            .into_iter()
            .map(|(_, n)| n)
            .sum();
        assert_eq!(divide, kings(30));
    }
    assert!(kings(24).to_u64().is_none());
    assert!(kings(40).to_u128().is_some());
}

/// Two bare kings at depth 64 have about 3,600 positions on each ply, and the count of most of
/// them passes 2^40: nearly 180,000 records too large for the narrow part. A table divided for
/// that count keeps them in 16 MiB; one divided for a dense tree kept an eighth of its bytes
/// for them, and the plies between those it kept were counted again on every visit (over ten
/// minutes for one count). The watchdog fails such a count instead of waiting for it.
#[test]
fn counts_past_2_to_the_64_through_a_small_table_divided_for_the_count() {
    let pos = Position::from_fen(KINGS).unwrap();
    let size = perft::perft::estimate_count::<Magic>(&pos, 64);
    for mb in [16, 256] {
        let layout = size.layout::<u64>(mb);
        let got = common::within(60, &format!("depth 64, {mb} MiB"), move || {
            let table = Table::with_layout(mb, 2, layout).unwrap();
            let pos = Position::from_fen(KINGS).unwrap();
            Perft::new()
                .threads(2)
                .table(Some(&table))
                .total::<Magic>(&pos, 64)
        });
        assert_eq!(got, kings(64), "{mb} MiB");
    }
}

/// The wide part is consulted: a record stored by hand for a child of the root whose count passes
/// 2^40, wrong on purpose, moves the total by exactly its error.
#[test]
fn counts_past_2_to_the_40_are_read_back_from_the_wide_part() {
    let pos = Position::from_fen(KINGS).unwrap();
    let mut after = pos.clone();
    perft::movegen::play_uci_moves(&mut after, ["e1d1"]).unwrap();
    // Black's king on e8 (60) to move, White's on d1 (3).
    let child: Nodes = kings_perft(60, 3, 19).to_string().parse().unwrap();
    assert!(child.to_u64().is_some_and(|n| n >= 1 << 40));
    let table = Table::new(16).unwrap();
    table.store_wide(
        (after.key(), after.key2()),
        19,
        child + Nodes::from(1000u64),
    );
    let got = Perft::new().table(Some(&table)).total::<Magic>(&pos, 20);
    assert_eq!(got, kings(20) + Nodes::from(1000u64));
}

/// `--hash` alone sizes the table for what the count stores, not for the memory: two bare kings
/// at depth 64 need a few MiB (the whole machine's memory was mapped before), and so does
/// `--hash 16`, which must not thrash.
#[test]
fn the_command_line_counts_two_bare_kings_to_depth_64_with_a_table_sized_for_them() {
    for hash in [&["--hash"][..], &["--hash", "16"]] {
        let args = [&["--fen", KINGS, "--depth", "64"][..], hash].concat();
        let o = common::perft_bin(&args, "");
        assert_eq!(stdout(&o).trim(), kings(64).to_string(), "{args:?}");
        let err = common::text(&o.stderr);
        let mb: usize = err
            .split("hash ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no table size in {err}"));
        assert!(mb <= 64, "{mb} MiB for {args:?}: {err}");
    }
}

#[test]
fn statistics_past_2_to_the_64_are_exact() {
    let pos = Position::from_fen(KINGS).unwrap();
    let table = StatsTable::new(16).unwrap();
    for threads in [1, 2] {
        let st = Perft::stats()
            .threads(threads)
            .table(Some(&table))
            .total::<Magic>(&pos, 24);
        // Kings alone never capture, castle, promote or give check.
        assert_eq!(st.nodes, kings(24));
        assert!(st.captures.is_zero() && st.checks().is_zero());
    }
    let out = stdout(&common::perft(&[
        "--fen", KINGS, "--depth", "26", "--stats", "--hash", "16", "--json",
    ]));
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let last = &doc["depths"][25];
    assert_eq!(last["depth"], 26);
    assert_eq!(last["nodes"].to_string(), kings(26).to_string());
}

#[test]
fn the_command_line_prints_every_digit() {
    let out = stdout(&common::perft(&[
        "--fen", KINGS, "--depth", "24", "--hash", "16",
    ]));
    assert_eq!(out.trim(), kings(24).to_string());
    let out = stdout(&common::perft(&[
        "--fen", KINGS, "--depth", "30", "--hash", "16", "--divide",
    ]));
    assert!(
        out.ends_with(&format!("Nodes searched: {}\n", kings(30))),
        "{out}"
    );
    // The perftree form (no table: a depth whose plies above the 64-bit subtrees are walked).
    let out = stdout(&common::perft(&["8", KINGS]));
    assert!(out.ends_with(&format!("\n\n{}\n", kings(8))), "{out}");
}

#[test]
fn a_suite_line_past_2_to_the_64_passes_and_a_wrong_one_fails() {
    let dir = scratch("suite");
    let path = dir.join("kings.epd");
    std::fs::write(
        &path,
        format!(
            "{KINGS} ;D24 {} ;id kings\n{KINGS} ;D24 {} ;id kings-off-by-one\n",
            kings(24),
            kings(24) + Nodes::ONE
        ),
    )
    .unwrap();
    let o = common::perft(&[
        "--suite",
        path.to_str().unwrap(),
        "--hash",
        "16",
        "--max-nodes",
        "1000000000000000000000000",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["positions"][0]["pass"], true);
    assert_eq!(doc["positions"][1]["pass"], false);
    assert_eq!(
        doc["positions"][1]["checks"][0]["actual"].to_string(),
        kings(24).to_string()
    );
}

#[test]
fn split_work_and_merge_past_2_to_the_64() {
    let dir = scratch("split");
    let out = dir.join("kings");
    stdout(&common::perft(&[
        "split",
        "--fen",
        KINGS,
        "--depth",
        "24",
        "--at",
        "2",
        "--shards",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]));
    for shard in ["shard-0000.jobs", "shard-0001.jobs"] {
        stdout(&common::perft(&[
            "work",
            out.join(shard).to_str().unwrap(),
            "--hash",
            "16",
        ]));
    }
    let doc: serde_json::Value = serde_json::from_str(&stdout(&common::perft(&[
        "merge",
        out.to_str().unwrap(),
        "--json",
    ])))
    .unwrap();
    assert_eq!(doc["total"].to_string(), kings(24).to_string());
}

/// Every front that prints a count prints every digit past 2^64 (two bare kings' perft 24,
/// checked against the independent count): `perft uci`, the perftree form (with a table: a
/// wrapper script may pass options before the depth), the server's API, `perft diff` (against
/// our own UCI front as the engine: what is checked is the reading and comparing of such
/// counts, and the total against the independent count) and `--compare`.
#[test]
fn every_front_prints_counts_past_2_to_the_64() {
    use std::io::Write;
    let want = kings(24).to_string();
    let bin = env!("CARGO_BIN_EXE_perft");
    let mut child = std::process::Command::new(bin)
        .args(["uci", "--hash", "16"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let input = format!("position fen {KINGS}\ngo perft 24\nquit\n");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = common::text(&child.wait_with_output().unwrap().stdout);
    assert!(out.contains(&format!("Nodes searched: {want}")), "{out}");

    let out = stdout(&common::perft(&["--hash", "16", "24", KINGS]));
    assert!(out.ends_with(&format!("\n\n{want}\n")), "{out}");

    let s = common::web::Server::start(&["--hash", "16", "--max-depth", "24"]);
    let fen = KINGS.replace(' ', "+").replace('/', "%2F");
    let r = s.get(&format!("/api/divide?fen={fen}&depth=24"));
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains(&format!("\"total\":{want},")), "{}", r.body);

    let engine = format!("{bin} uci --hash 16");
    let out = stdout(&common::perft(&[
        "diff", "--engine", &engine, "--fen", KINGS, "--depth", "24", "--hash", "16",
    ]));
    assert!(
        out.contains(&format!("no difference: both count {want} nodes")),
        "{out}"
    );

    let out = stdout(&common::perft(&[
        "--compare",
        "--fen",
        KINGS,
        "--depth",
        "24",
        "--hash",
        "16",
        "--rounds",
        "1",
    ]));
    assert!(out.contains("a fresh 16 MiB table each round"), "{out}");
    // One row per slider implementation, each with the count.
    let rows = out
        .lines()
        .filter(|l| l.contains("sliders") || l.contains(&want));
    assert!(rows.filter(|l| l.contains(&want)).count() >= 2, "{out}");
}
