//! No input may panic, hang, or grow memory without bound: random bytes and mutated FENs into
//! the FEN parser, random bytes into the EPD reader and the UCI loop, random arguments to the
//! binary, and the hostile command-line cases one by one (exit status 2 and a clear error).

use crate::common;

use perft::perft::Perft;
use perft::{Magic, Position, epd};
use proptest::prelude::*;
use std::process::{Command, Output, Stdio};

fn valid_fens() -> Vec<String> {
    common::STANDARD_SUITES
        .iter()
        .flat_map(|s| common::suite(s))
        .map(|e| e.fen)
        .collect()
}

/// A parsed position must be usable: print it, parse it back, count a little.
fn exercise(pos: Position) {
    let fen = pos.to_fen();
    let again = Position::from_fen_with(&fen, pos.is_chess960()).expect("printed FEN parses");
    assert_eq!(again, pos);
    let p = pos;
    let one = Perft::new().total::<Magic>(&p, 2);
    // The threaded driver must return too, and agree (positions without moves among them).
    let opts = Perft::new().threads(2);
    assert_eq!(opts.total::<Magic>(&p, 2), one, "{fen}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn fen_parser_survives_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..120)) {
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(pos) = Position::from_fen(&text) {
            exercise(pos);
        }
        if let Ok(pos) = Position::from_fen_with(&text, true) {
            exercise(pos);
        }
    }

    #[test]
    fn fen_parser_survives_mutated_fens(
        pick in any::<prop::sample::Index>(),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..6),
    ) {
        let fens = valid_fens();
        let mut bytes = fens[pick.index(fens.len())].clone().into_bytes();
        for (at, byte, op) in edits {
            let i = at.index(bytes.len() + 1);
            // Mostly characters FENs are made of, so mutations get past the first checks.
            const ALPHABET: &[u8] = b"pnbrqkPNBRQK12345678/ -wbKQkqabcdefgh0369";
            let c = ALPHABET[byte as usize % ALPHABET.len()];
            match op {
                0 if i < bytes.len() => bytes[i] = c,
                1 => bytes.insert(i, c),
                _ if i < bytes.len() => { bytes.remove(i); }
                _ => {}
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        for chess960 in [false, true] {
            if let Ok(pos) = Position::from_fen_with(&text, chess960) {
                exercise(pos);
            }
        }
    }

    #[test]
    fn epd_reader_survives_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        // Every result names a line of the input, in order; every entry's depths are distinct
        // and within the depths `--depth` accepts.
        let lines = bytes.split(|&b| b == b'\n').count();
        let mut last = 0;
        for result in epd::read(&bytes[..]) {
            let line = match &result {
                Ok(entry) => entry.line,
                Err(e) => e.line,
            };
            prop_assert!((1..=lines).contains(&line), "line {} of {}", line, lines);
            prop_assert!(line >= last, "line {} after {}", line, last);
            last = line;
            if let Ok(entry) = result {
                let mut depths: Vec<u32> = entry.counts.iter().map(|c| c.0).collect();
                prop_assert!(depths.iter().all(|&d| d <= 64));
                depths.sort_unstable();
                depths.dedup();
                prop_assert_eq!(depths.len(), entry.counts.len());
                let _ = Position::from_fen(&entry.fen);
            }
        }
    }

    #[test]
    fn uci_loop_survives_random_lines(lines in proptest::collection::vec(
        prop_oneof![
            Just("position startpos moves e2e4".to_string()),
            Just("go perft 2".to_string()),
            Just("setoption name UCI_Chess960 value true".to_string()),
            "[a-z0-9 /]{0,40}",
            "position fen [pnbrqkPNBRQK1-8/]{1,30} [wb] [KQkq-]{1,4} - 0 1( moves [a-h][1-8][a-h][1-8])?",
        ], 0..12)) {
        let input = lines.join("\n");
        let mut out = Vec::new();
        perft::uci::Uci::new().run(input.as_bytes(), &mut out).unwrap();
        // Every divide's total is the sum of its lines, and no more totals than `go perft`s.
        let text = String::from_utf8(out).unwrap();
        let mut sum = 0u64;
        let mut totals = 0;
        for l in text.lines() {
            if let Some(n) = l.strip_prefix("Nodes searched: ") {
                prop_assert_eq!(n.parse::<u64>().ok(), Some(sum), "{}", text);
                sum = 0;
                totals += 1;
            } else if let Some((mv, n)) = l.split_once(": ")
                && mv.len() >= 4 && mv.len() <= 5 && !mv.contains(' ')
                && let Ok(n) = n.parse::<u64>()
            {
                sum += n;
            }
        }
        prop_assert!(totals <= lines.iter().filter(|l| l.starts_with("go perft")).count());
    }
}

fn perft_bin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_perft"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random argument lists never make the binary panic: each run succeeds (exit 0, no error on
    /// stderr) or is refused (exit 2, with the error), within 30 seconds.
    #[test]
    fn binary_survives_random_arguments(args in proptest::collection::vec(
        prop_oneof![
            Just("--depth".to_string()), Just("--fen".to_string()), Just("--divide".to_string()),
            Just("--no-bulk".to_string()), Just("--suite".to_string()), Just("--moves".to_string()),
            Just("--classical".to_string()), Just("--max-nodes".to_string()), Just("--json".to_string()),
            Just("uci".to_string()), Just("3".to_string()), Just("-1".to_string()),
            Just("99999999999999999999".to_string()), Just("e2e4".to_string()),
            Just("--threads".to_string()), Just("2".to_string()), Just("--hash".to_string()),
            Just("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1".to_string()),
            // A number above 6 as a depth is a count of a minute or more: not drawn.
            "[ -~]{0,12}".prop_filter("a deep count", |s| s.parse::<u64>().is_ok_and(|n| n <= 6) || s.parse::<u64>().is_err()),
        ], 0..5)) {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_perft"));
        cmd.args(&args).stdin(Stdio::null());
        // A draw may ask for a deep count (`perft 12`, the perftree form): a watchdog fails it
        // rather than letting it hang the run.
        let o = crate::common::output_within(cmd, std::time::Duration::from_secs(30));
        prop_assert!(o.is_some(), "{:?}: still running after 30 s", args);
        let o = o.unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        prop_assert!(!err.contains("panicked"), "{:?}: {}", args, err);
        // No random list makes a suite or a comparison fail (exit 1 is for counts that
        // differ): it succeeds quietly on stderr, or is refused with an error that says why.
        match o.status.code() {
            Some(0) => prop_assert!(!err.contains("error"), "{:?}: exit 0 with {}", args, err),
            Some(2) => prop_assert!(err.contains("error"), "{:?}: exit 2 without an error: {}", args, err),
            code => prop_assert!(false, "{:?}: exit {:?}: {}", args, code, err),
        }
    }
}

fn assert_exit_2(o: &Output, fragment: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(fragment), "{err:?} lacks {fragment:?}");
    assert!(!err.contains("panicked"));
}

#[test]
fn depth_beyond_the_documented_maximum() {
    assert_exit_2(&perft_bin(&["--depth", "65"]), "65 is not in 0..=64");
    assert_exit_2(&perft_bin(&["--depth", "4294967296"]), "--depth");
    assert_exit_2(
        &perft_bin(&["--suite", "positions.epd", "--max-depth", "1000"]),
        "1000",
    );
}

#[test]
fn depth_zero_is_one_node() {
    let o = perft_bin(&["--depth", "0", "--fen", "4k3/8/8/8/8/8/8/4K3 w - - 0 1"]);
    assert_eq!(String::from_utf8_lossy(&o.stdout), "1\n");
    let o = perft_bin(&["--depth", "0", "--divide"]);
    assert!(String::from_utf8_lossy(&o.stdout).ends_with("Nodes searched: 1\n"));
}

#[cfg(unix)]
#[test]
fn non_utf8_arguments() {
    use std::os::unix::ffi::OsStrExt;
    let bad = std::ffi::OsStr::from_bytes(b"\xff\xfe");
    let o = Command::new(env!("CARGO_BIN_EXE_perft"))
        .arg("--fen")
        .arg(bad)
        .output()
        .unwrap();
    assert_exit_2(&o, "invalid UTF-8");
    let o = Command::new(env!("CARGO_BIN_EXE_perft"))
        .arg("--suite")
        .arg(bad)
        .output()
        .unwrap();
    assert_exit_2(&o, "cannot open");
}

#[test]
fn very_long_fen() {
    let long = format!("{}/8/8/8/8/8/8/4K3 w - - 0 1", "1".repeat(100_000));
    let o = perft_bin(&["--fen", &long, "--depth", "1"]);
    assert_exit_2(&o, "rank 8 describes 100000 squares");
    // The message quotes the FEN shortened, not all 100,000 characters.
    assert!(o.stderr.len() < 400, "{} bytes of error", o.stderr.len());
    let pieces = format!("{} w - - 0 1", "K".repeat(100_000));
    let o = perft_bin(&["--fen", &pieces, "--depth", "1"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn very_large_suite_file_is_streamed() {
    // 20 MB of comment and blank lines with one real line at the end: streamed, so it runs.
    let dir = common::Scratch::new("hostile");
    let path = dir.join("large.epd");
    {
        use std::io::Write;
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        for _ in 0..200_000 {
            writeln!(f, "# {}", "x".repeat(96)).unwrap();
        }
        writeln!(f, "8/8/8/8/8/8/8/K6k w - - 0 1 ;D1 3 ;D2 9").unwrap();
        // One line longer than the reader accepts, not stored whole.
        writeln!(f, "{}", "y".repeat(2 << 20)).unwrap();
    }
    let o = perft_bin(&["--suite", path.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(out.contains("1 position: 2 checks passed"), "{out}");
    assert!(
        err.contains(":200002: line longer than 65536 bytes"),
        "{err}"
    );
}

/// A table larger than the memory the system has is refused before any of it is allocated,
/// saying how much memory there is (the statistics' table once allocated and wrote 16 GiB of a
/// 1 TiB request before refusing it, and aborted before that). Run with its address space
/// limited to 1 GiB: a refusal that came from a failed allocation instead would not name the
/// memory available.
#[test]
fn a_hash_too_large_for_the_machine_is_a_clear_error() {
    use std::os::unix::process::CommandExt;
    for stats in [&[][..], &["--stats"]] {
        let args = [stats, &["--hash", "1048576", "--depth", "1"]].concat();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_perft"));
        cmd.args(&args);
        // SAFETY: only `setrlimit`, which is async-signal-safe, runs between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                let limit = libc::rlimit {
                    rlim_cur: 1 << 30,
                    rlim_max: 1 << 30,
                };
                if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            })
        };
        let o = cmd.output().unwrap();
        assert_exit_2(
            &o,
            "cannot allocate a 1048576 MiB hash table: the system has ",
        );
        assert_exit_2(&o, " MiB of memory available");
    }
}
