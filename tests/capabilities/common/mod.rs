//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod web;

use perft::Position;
use perft::attacks::magic::Prng;
use perft::epd::{self, EpdEntry};
use std::ffi::OsStr;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The perft binary run with `args`, to its end: its exit status and output.
pub fn perft(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_perft"))
        .args(args)
        .output()
        .expect("binary runs")
}

/// A fresh, empty directory of the test's own under the system's temporary directory, removed
/// with everything in it when dropped (when the test ends, passed or failed), so that test runs
/// leave nothing behind. Named `perft-NAME-PID-N`: unique across the tests of one binary
/// running in parallel, and across binaries.
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("perft-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch directory can be made");
        Scratch(dir)
    }

    /// Writes `content` to the file `name` in the directory; returns its path.
    pub fn file(&self, name: &str, content: &[u8]) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, content).expect("a scratch file can be written");
        path
    }
}

impl Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<OsStr> for Scratch {
    fn as_ref(&self) -> &OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The path of a file of the repository, from its root: the published suites the library
/// carries are in `suites/`, the tests' own files in `tests/data/`. A missing file fails the
/// test by name (a test reading nothing would pass without checking anything).
pub fn repo_file(path: &str) -> PathBuf {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path);
    assert!(file.is_file(), "no file {path} in the repository");
    file
}

/// Every entry of a suite file (its path from the repository's root); a malformed line fails
/// the test.
pub fn suite(name: &str) -> Vec<EpdEntry> {
    let text = std::fs::read_to_string(repo_file(name)).expect("suite file is readable");
    epd::parse_str(&text)
        .into_iter()
        .map(|e| e.unwrap_or_else(|e| panic!("{name}: {e}")))
        .collect()
}

/// The suites of standard chess.
pub const STANDARD_SUITES: [&str; 3] = [
    "suites/standard.epd",
    "tests/data/perftsuite.epd",
    "suites/tricky.epd",
];

/// Whether a tool a test drives is there (`found`); where it is not, the test goes on without
/// it (`instead` says how) unless `PERFT_REQUIRE_TOOLS` is set, as CI sets it after installing
/// every such tool: there its absence fails the run instead of passing untested.
pub fn tool_present(found: bool, missing: &str, instead: &str) -> bool {
    if !found {
        assert!(
            std::env::var_os("PERFT_REQUIRE_TOOLS").is_none(),
            "{missing}"
        );
        eprintln!("{missing}: {instead}");
    }
    found
}

/// The fake engine built from examples/fake_engine.rs (cargo builds examples for tests).
pub fn fake_engine() -> PathBuf {
    let exe = std::env::current_exe().expect("the test knows its path");
    let dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("tests run from target/<profile>/deps");
    let path = dir.join("examples").join("fake_engine");
    assert!(path.exists(), "{} not built", path.display());
    path
}

/// A random placement: two kings and up to 24 other pieces, random side to move and, where
/// kings and rooks stand at home, random castling rights and en-passant squares. Only positions
/// the parser accepts are kept.
pub fn placed(seed: u64) -> Option<Position> {
    let mut rng = Prng::new(seed);
    let mut board = [None::<char>; 64];
    let free = |board: &mut [Option<char>; 64], c: char, rng: &mut Prng| loop {
        let sq = (rng.next_u64() % 64) as usize;
        let rank = sq / 8;
        if board[sq].is_none() && !(matches!(c, 'P' | 'p') && (rank == 0 || rank == 7)) {
            board[sq] = Some(c);
            return;
        }
    };
    // Kings at home half the time, to allow castling rights.
    if rng.next_u64().is_multiple_of(2) {
        board[4] = Some('K');
        board[60] = Some('k');
        for (sq, c) in [(0, 'R'), (7, 'R'), (56, 'r'), (63, 'r')] {
            if !rng.next_u64().is_multiple_of(3) {
                board[sq] = Some(c);
            }
        }
    } else {
        free(&mut board, 'K', &mut rng);
        free(&mut board, 'k', &mut rng);
    }
    let n = rng.next_u64() % 25;
    for _ in 0..n {
        let c = b"PPPPNBRQppppnbrq"[(rng.next_u64() % 16) as usize] as char;
        free(&mut board, c, &mut rng);
    }
    let mut fen = String::new();
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            match board[rank * 8 + file] {
                None => empty += 1,
                Some(c) => {
                    if empty > 0 {
                        fen.push_str(&empty.to_string());
                        empty = 0;
                    }
                    fen.push(c);
                }
            }
        }
        if empty > 0 {
            fen.push_str(&empty.to_string());
        }
        if rank > 0 {
            fen.push('/');
        }
    }
    let side = if rng.next_u64().is_multiple_of(2) {
        "w"
    } else {
        "b"
    };
    let castling = ["-", "KQkq", "K", "q", "Kq", "Qk"][(rng.next_u64() % 6) as usize];
    let ep = if rng.next_u64().is_multiple_of(3) {
        let file = (b'a' + (rng.next_u64() % 8) as u8) as char;
        format!("{file}{}", if side == "w" { 6 } else { 3 })
    } else {
        "-".to_string()
    };
    // Try with the castling and en-passant fields, then without them.
    Position::from_fen(&format!("{fen} {side} {castling} {ep} 0 1"))
        .or_else(|_| Position::from_fen(&format!("{fen} {side} - - 0 1")))
        .ok()
}

/// The start position.
pub const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Kiwipete, the Chess Programming Wiki's position 2.
pub const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

/// A process's output bytes as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Runs `cmd` to its end with its output collected, or, if it still runs after `limit` (times
/// [`slowdown`]), kills it and returns `None`: a watchdog for a run that might never end.
pub fn output_within(
    mut cmd: std::process::Command,
    limit: std::time::Duration,
) -> Option<std::process::Output> {
    use std::process::Stdio;
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the command starts");
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let limit = limit * u32::try_from(slowdown()).unwrap_or(u32::MAX);
    match rx.recv_timeout(limit) {
        Ok(out) => Some(out.expect("the command's output is read")),
        Err(_) => {
            if let Ok(pid) = libc::pid_t::try_from(pid) {
                // SAFETY: a plain kill(2) of the child started here, not yet reaped: the thread
                // that reaps it has not sent its output.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
            let _ = rx.recv();
            None
        }
    }
}

/// Stops `child` as a user would (SIGTERM, which `perft diff` and `perft serve` answer by ending
/// their engine first), waiting up to ten seconds before killing it outright; reaps it.
pub fn terminate(child: &mut std::process::Child) {
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: a plain kill(2) of a child this test started and has not reaped.
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while std::time::Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Whether a process `pid` is still running (not gone, and not a zombie waiting to be reaped).
pub fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        // The state follows the command name, which is in parentheses.
        stat.rsplit(')')
            .next()
            .and_then(|rest| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X")
    })
}

/// The leaf statistics computed with shakmaty alone (an independent classifier): every leaf
/// made, classified by its checkers and whether it has a legal move.
pub fn shakmaty_stats(pos: &shakmaty::Chess, depth: u32) -> perft::stats::Stats<u64> {
    use shakmaty::Position as _;
    let mut st = perft::stats::Stats::default();
    for m in pos.legal_moves() {
        let mut child = pos.clone();
        child.play_unchecked(m);
        if depth > 1 {
            st += shakmaty_stats(&child, depth - 1);
            continue;
        }
        st.nodes += 1;
        st.captures += u64::from(m.is_capture());
        st.enpassants += u64::from(m.is_en_passant());
        st.castles += u64::from(m.is_castle());
        st.promotions += u64::from(m.is_promotion());
        let checkers = child.checkers();
        if checkers.is_empty() {
            continue;
        }
        let dest = match m.castling_side() {
            Some(side) => side.rook_to(pos.turn()),
            None => m.to(),
        };
        let direct = checkers.contains(dest);
        let double = checkers.count() > 1;
        let mate = child.legal_moves().is_empty();
        *match (double, direct, mate) {
            (false, true, false) => &mut st.direct_checks,
            (false, false, false) => &mut st.single_discovered_checks,
            (true, true, false) => &mut st.direct_discovered_checks,
            (true, false, false) => &mut st.double_discovered_checks,
            (false, true, true) => &mut st.direct_mates,
            (false, false, true) => &mut st.single_discovered_mates,
            (true, true, true) => &mut st.direct_discovered_mates,
            (true, false, true) => &mut st.double_discovered_mates,
        } += 1;
    }
    st
}

/// shakmaty's divide of `fen` at `depth` (`depth` >= 1): each legal move in UCI (king takes
/// rook for castling in Chess960) with its perft `depth - 1`, sorted by move.
pub fn shakmaty_divide(fen: &str, chess960: bool, depth: u32) -> Vec<(String, u64)> {
    use shakmaty::Position as _;
    let mode = if chess960 {
        shakmaty::CastlingMode::Chess960
    } else {
        shakmaty::CastlingMode::Standard
    };
    let pos: shakmaty::Chess = shakmaty::fen::Fen::from_ascii(fen.as_bytes())
        .expect("a FEN")
        .into_position(mode)
        .expect("a position shakmaty accepts");
    let mut lines: Vec<(String, u64)> = pos
        .legal_moves()
        .iter()
        .map(|m| {
            let mut child = pos.clone();
            child.play_unchecked(*m);
            (
                m.to_uci(mode).to_string(),
                shakmaty::perft(&child, depth - 1),
            )
        })
        .collect();
    lines.sort();
    lines
}

/// Debian's Stockfish, where installed (where CI sets `PERFT_REQUIRE_TOOLS`, its absence fails
/// the test instead).
pub fn stockfish() -> Option<&'static str> {
    let sf = ["/usr/games/stockfish", "/usr/bin/stockfish"]
        .into_iter()
        .find(|p| Path::new(p).exists());
    let present = tool_present(
        sf.is_some(),
        "Debian's stockfish is not installed (apt-get install stockfish)",
        "skipped",
    );
    sf.filter(|_| present)
}

/// The share of the random samples a long test runs: all of them (1) unless `PERFT_TEST_SHARE`
/// says N, then one in N: what `.ci/run` asks of the tests it runs under QEMU's emulation of
/// 64-bit ARM, where each counts about thirty-five times slower.
pub fn share() -> u64 {
    env_count("PERFT_TEST_SHARE")
}

/// How many times slower than natively this run executes: 1 unless `PERFT_TEST_SLOWDOWN` says
/// N, as `.ci/run` does under QEMU's emulation. The watchdogs that fail a hung count wait that
/// many times longer, so an emulated count that is only slow is not taken for a hang.
pub fn slowdown() -> u64 {
    env_count("PERFT_TEST_SLOWDOWN")
}

fn env_count(name: &str) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .filter(|&n| n >= 1)
        .unwrap_or(1)
}

/// Runs `f` on another thread and fails if it has not returned within `secs` seconds (times the
/// run's declared slowdown, under emulation).
pub fn within<T: Send + 'static>(
    secs: u64,
    what: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let secs = secs * slowdown();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(std::time::Duration::from_secs(secs)) {
        Ok(v) => v,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what}: no answer within {secs} s")
        }
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            panic!("{what}: the check panicked")
        }
    }
}

/// The binary with `args` and `stdin`, killed (and the test failed) after 60 s (times the run's
/// declared slowdown): a command that hangs fails its test instead of stalling CI.
pub fn perft_bin(args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let limit = Duration::from_secs(60 * slowdown());
    let mut child = Command::new(env!("CARGO_BIN_EXE_perft"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary starts");
    let mut input = child.stdin.take().expect("stdin is piped");
    // A command that does not read its input may have exited already: ignore a closed pipe.
    let _ = input.write_all(stdin.as_bytes());
    drop(input);
    let start = Instant::now();
    loop {
        match child.try_wait().expect("wait works") {
            Some(_) => return child.wait_with_output().expect("output is read"),
            None if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("perft {args:?} did not return within {limit:?}");
            }
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    }
}
