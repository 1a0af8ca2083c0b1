//! The `perft` binary itself: stdout, stderr and exit status.
//!
//! Counts asserted: the start position's perft 1 to 5 (20, 400, 8,902, 197,281, 4,865,609) and
//! Kiwipete's perft 1, 3 and 4 (48, 97,862, 4,085,603) (Chess Programming Wiki, "Perft Results"); the divide of the start
//! position at depth 2 (twenty moves of 20 each: each reply of Black's is one of twenty).

use crate::common::{KIWIPETE, perft, text};

#[test]
fn count_is_a_plain_integer_on_stdout() {
    let o = perft(&["--depth", "4"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "197281\n");
    let err = text(&o.stderr);
    assert!(
        err.contains("bulk counting") && err.contains("Mnps"),
        "{err}"
    );
}

#[test]
fn fen_and_no_bulk() {
    let o = perft(&["--fen", KIWIPETE, "--depth", "3", "--no-bulk"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "97862\n");
    assert!(
        text(&o.stderr).contains("no bulk counting"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn classical_gives_the_same_count() {
    let o = perft(&["--fen", KIWIPETE, "--depth", "3", "--classical"]);
    assert_eq!(text(&o.stdout), "97862\n");
    assert!(
        text(&o.stderr).contains("classical sliders"),
        "{}",
        text(&o.stderr)
    );
    let o = perft(&["--fen", KIWIPETE, "--depth", "3", "--sliders", "classical"]);
    assert_eq!(text(&o.stdout), "97862\n");
}

#[test]
fn divide_matches_stockfish_format() {
    let o = perft(&["--depth", "2", "--divide"]);
    assert!(o.status.success());
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 22, "{out}");
    let moves: Vec<&str> = lines[..20].to_vec();
    let mut sorted = moves.clone();
    sorted.sort();
    assert_eq!(moves, sorted, "divide lines are sorted");
    assert!(moves.iter().all(|l| l.ends_with(": 20")), "{out}");
    assert!(
        moves.contains(&"e2e4: 20") && moves.contains(&"g1f3: 20"),
        "{out}"
    );
    assert_eq!(lines[20], "");
    assert_eq!(lines[21], "Nodes searched: 400");
}

#[test]
fn divide_prints_castling_as_king_move() {
    let o = perft(&["--fen", KIWIPETE, "--depth", "1", "--divide"]);
    let out = text(&o.stdout);
    assert!(
        out.contains("e1g1: 1\n") && out.contains("e1c1: 1\n"),
        "{out}"
    );
    assert!(out.ends_with("\nNodes searched: 48\n"), "{out}");
}

#[test]
fn depth_zero_is_one_node() {
    assert_eq!(text(&perft(&["--depth", "0"]).stdout), "1\n");
}

fn assert_bad_input(args: &[&str], fragment: &str) {
    let o = perft(args);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(
        err.contains(fragment),
        "{args:?}: stderr {err:?} lacks {fragment:?}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        text(&o.stdout).is_empty(),
        "{args:?} printed {}",
        text(&o.stdout)
    );
}

#[test]
fn malformed_fens_exit_2_with_the_problem_named() {
    let cases = [
        ("4k3/8/8/8/8/8/8/4K3 w - -  0", "found 5"),
        ("4k3/8/8/8/8/8/8/4K2X w - - 0 1", "invalid character 'X'"),
        (
            "4k3/8/8/8/8/8/8/4K4 w - - 0 1",
            "rank 1 describes 9 squares",
        ),
        ("4k3/8/8/8/8/8/4K3 w - - 0 1", "found 7 ranks"),
        ("4k3/8/8/8/8/8/8/4K3 x - - 0 1", "side to move"),
        ("4k3/8/8/8/8/8/8/4K3 w Z - 0 1", "castling"),
        ("4k3/8/8/8/8/8/8/4K3 w K - 0 1", "needs a white rook on h1"),
        ("4k3/8/8/8/8/8/8/4K3 w - e3 0 1", "not on rank 6"),
        ("4k3/8/8/8/8/8/8/4K3 w - e6 0 1", "no pawn on e5"),
        ("4k3/4n3/8/4p3/8/8/8/4K3 w - e6 0 1", "e7 is occupied"),
        ("4k3/8/8/8/8/8/8/4K3 w - - x 1", "halfmove clock"),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 -3", "fullmove number"),
        ("8/8/8/8/8/8/8/4K3 w - - 0 1", "black has 0 kings"),
        ("4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "pawn on a1"),
        ("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1", "black is in check"),
    ];
    for (fen, fragment) in cases {
        assert_bad_input(&["--fen", fen, "--depth", "1"], fragment);
    }
}

#[test]
fn bad_arguments_exit_2() {
    assert_bad_input(&["--depth", "65"], "65");
    assert_bad_input(&["--depth", "-1"], "");
    assert_bad_input(&["--depth", "x"], "invalid value");
    assert_bad_input(&["--no-such-flag"], "unexpected argument");
}

#[test]
fn help_names_every_option_and_command_and_exits_0() {
    let o = perft(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    let help = text(&o.stdout);
    for word in [
        "--fen",
        "--moves",
        "--depth",
        "--divide",
        "--stats",
        "--suite",
        "--max-depth",
        "--max-nodes",
        "--json",
        "--threads",
        "--hash",
        "--sliders",
        "--classical",
        "--no-bulk",
        "--simd",
        "--no-lanes",
        "--chess960",
        "--compare",
        "--rounds",
        "--bench",
        "--magics",
        "uci",
        "diff",
        "split",
        "work",
        "merge",
        "completions",
        "man",
    ] {
        assert!(help.contains(word), "--help does not name {word}: {help}");
    }
    assert!(help.contains("[default: 5]"), "{help}");
}

#[test]
fn threads_and_hash_are_labelled_and_exact() {
    let o = perft(&["--depth", "5", "--threads", "2", "--hash", "16"]);
    assert_eq!(text(&o.stdout), "4865609\n");
    let err = text(&o.stderr);
    assert!(
        err.contains("2 threads, hash 16 MiB") && err.contains("effective Mnps"),
        "{err}"
    );
    let o = perft(&["--depth", "4", "--threads", "1"]);
    assert!(
        text(&o.stderr).contains("1 thread, no hash"),
        "{}",
        text(&o.stderr)
    );
    let o = perft(&[
        "--fen",
        KIWIPETE,
        "--depth",
        "3",
        "--divide",
        "--threads",
        "2",
        "--hash",
        "1",
    ]);
    assert!(
        text(&o.stdout).ends_with("\nNodes searched: 97862\n"),
        "{}",
        text(&o.stdout)
    );
    assert_bad_input(&["--threads", "0"], "--threads");
}

#[test]
fn bench_checks_its_counts_and_reports_totals() {
    let o = perft(&["--bench"]);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{out}{}", text(&o.stderr));
    let header = format!(
        "bench: bulk counting, {} sliders, 1 thread, no hash, simd {}\n",
        perft::attacks::fastest_name(),
        perft::cpu::Simd::detect().describe()
    );
    assert!(out.starts_with(&header), "{out}");
    assert!(
        out.contains("pos4       depth 6   706045033 nodes"),
        "{out}"
    );
    assert!(
        out.contains("total                 1451446453 nodes"),
        "{out}"
    );
    assert_bad_input(&["--bench", "--fen", KIWIPETE], "cannot be used with");
}

#[test]
fn pext_counts_exactly_or_says_the_cpu_lacks_bmi2() {
    #[cfg(target_arch = "x86_64")]
    let available = perft::attacks::Pext::available();
    #[cfg(not(target_arch = "x86_64"))]
    let available = false;
    if available {
        let o = perft(&["--sliders", "pext", "--depth", "4"]);
        assert_eq!(text(&o.stdout), "197281\n");
    } else {
        assert_bad_input(&["--sliders", "pext", "--depth", "4"], "BMI2");
    }
}

#[test]
fn completions_for_every_shell_name_the_options() {
    for (shell, marker) in [
        ("bash", "complete -F _perft"),
        ("zsh", "#compdef perft"),
        ("fish", "complete -c perft"),
    ] {
        let o = perft(&["completions", shell]);
        assert!(o.status.success(), "{shell}: {}", text(&o.stderr));
        let out = text(&o.stdout);
        assert!(out.contains(marker), "{shell}: {out}");
        for option in [
            "--fen",
            "--depth",
            "--suite",
            "--threads",
            "--hash",
            "diff",
            "uci",
        ] {
            assert!(
                out.contains(option.trim_start_matches('-')),
                "{shell} lacks {option}"
            );
        }
    }
    let o = perft(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("invalid value 'tcsh'"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn man_page_is_roff_with_every_option() {
    let o = perft(&["man"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains(".TH perft 1"), "{out}");
    for section in [".SH NAME", ".SH SYNOPSIS", ".SH OPTIONS", ".SH SUBCOMMANDS"] {
        assert!(out.contains(section), "lacks {section}");
    }
    for option in [
        "\\-\\-suite",
        "\\-\\-divide",
        "\\-\\-max\\-nodes",
        "perft\\-diff",
    ] {
        assert!(out.contains(option), "lacks {option}");
    }
}

/// Every page the main page names (`perft-diff(1)`...) exists, from `perft man <command>` and in
/// `perft man --dir`, and documents the options of its command.
#[test]
fn every_command_has_a_man_page_with_its_options() {
    let main = text(&perft(&["man"]).stdout);
    let named: Vec<String> = main
        .split("perft\\-")
        .skip(1)
        .filter_map(|rest| {
            rest.split_once("(1)")
                .map(|(name, _)| name.replace("\\-", "-"))
        })
        .filter(|name| name.chars().all(|c| c.is_ascii_lowercase()))
        .collect();
    assert!(named.len() >= 8, "{named:?}");
    for (command, options) in [
        (
            "diff",
            &["engine", "timeout", "protocol", "max-nodes", "html"][..],
        ),
        ("serve", &["port", "host", "engine", "max-depth", "open"]),
        ("split", &["at", "shards", "out", "force"]),
        ("work", &["stats", "threads", "hash"]),
        ("merge", &["json"]),
        ("uci", &["threads", "hash"]),
    ] {
        assert!(
            named.iter().any(|n| n == command),
            "{command} not named: {named:?}"
        );
        let o = perft(&["man", command]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let page = text(&o.stdout);
        assert!(page.contains(&format!(".TH perft-{command} 1")), "{page}");
        for option in options {
            let roff = format!("\\fB\\-\\-{}\\fR", option.replace('-', "\\-"));
            assert!(page.contains(&roff), "perft-{command}(1) lacks --{option}");
        }
    }
    for name in &named {
        assert!(perft(&["man", name]).status.success(), "perft man {name}");
    }
    let dir = crate::common::Scratch::new("man");
    let o = perft(&["man", "--dir", dir.join("man1").to_str().expect("UTF-8")]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    for name in
        std::iter::once("perft".to_string()).chain(named.iter().map(|n| format!("perft-{n}")))
    {
        let page = dir.join("man1").join(format!("{name}.1"));
        assert!(page.exists(), "{} not written", page.display());
    }
    assert_bad_input(&["man", "serv"], "there is no command 'serv'");
}

/// Where a command was mistyped, the error says so and names the closest command, instead of
/// taking the word for the depth of the perftree form.
#[test]
fn a_mistyped_command_is_named_as_one() {
    assert_bad_input(&["serv"], "'serv' is not a command: did you mean 'serve'?");
    assert_bad_input(&["dif"], "did you mean 'diff'?");
    assert_bad_input(
        &["bogus"],
        "'bogus' is not a command (the commands: uci, diff",
    );
    assert_bad_input(&["99"], "the depth is 0 to 64");
}

/// `-h` and `--help` lines fit a terminal (100 characters at most).
#[test]
fn help_lines_are_wrapped() {
    for flag in ["-h", "--help"] {
        for args in [vec![flag], vec!["diff", flag], vec!["serve", flag]] {
            let out = text(&perft(&args).stdout);
            let longest = out.lines().map(|l| l.chars().count()).max().unwrap_or(0);
            assert!(longest <= 100, "{args:?}: a line of {longest} characters");
        }
    }
}

#[test]
fn seed_without_magics_is_refused() {
    assert_bad_input(&["--seed", "7"], "--magics");
    for other in [
        &["--depth", "3"][..],
        &["--bench"],
        &["--compare", "--depth", "2"],
    ] {
        let mut args = vec!["--seed", "7"];
        args.extend_from_slice(other);
        assert_bad_input(&args, "--seed goes with --magics");
    }
}

/// One of a thing is singular in every summary line.
#[test]
fn one_is_singular() {
    let o = perft(&["--compare", "--depth", "2", "--rounds", "1"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("1 round alternating"),
        "{}",
        text(&o.stdout)
    );
    let dir = crate::common::Scratch::new("singular");
    let out = dir.join("p");
    let o = perft(&[
        "split",
        "--depth",
        "3",
        "--at",
        "1",
        "--shards",
        "1",
        "--out",
        out.to_str().expect("UTF-8"),
    ]);
    let said = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        said.contains("positions 1 ply down") && said.contains(", 1 shard of 20 jobs"),
        "{said}"
    );
    let o = perft(&["--depth", "3", "--threads", "1"]);
    assert!(text(&o.stderr).contains("1 thread,"), "{}", text(&o.stderr));
}

/// The speed line says when the rules are Chess960; a castle written as the king's move in
/// Chess960 is refused with the notation it takes.
#[test]
fn chess960_is_named_in_the_speed_line_and_its_castling_notation_explained() {
    let fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
    let o = perft(&["--fen", fen, "--depth", "2"]);
    assert!(
        text(&o.stderr).contains(", Chess960"),
        "{}",
        text(&o.stderr)
    );
    let o = perft(&["--depth", "2"]);
    assert!(!text(&o.stderr).contains("Chess960"), "{}", text(&o.stderr));
    // Kings and rooks as in standard chess, Chess960 rules: castling is king takes rook.
    let open = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    assert_bad_input(
        &[
            "--chess960",
            "--fen",
            open,
            "--moves",
            "e1g1",
            "--depth",
            "1",
        ],
        "in Chess960 castling is written as king takes rook (e1h1)",
    );
    let o = perft(&[
        "--chess960",
        "--fen",
        open,
        "--moves",
        "e1h1",
        "--depth",
        "1",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

/// A table's set-up time is reported apart from the count's own time.
#[test]
fn the_speed_line_reports_the_tables_set_up() {
    let o = perft(&["--depth", "3", "--hash", "64"]);
    assert_eq!(text(&o.stdout), "8902\n");
    let err = text(&o.stderr);
    assert!(err.contains("hash 64 MiB (set up in "), "{err}");
}

/// On a terminal a count that lasts shows its tasks as they finish, and the count and speed
/// line are as they would be anyway; piped, no bar is drawn. (`script` gives the command a
/// terminal.)
#[test]
fn a_long_count_shows_progress_on_a_terminal_only() {
    let have_script = std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !crate::common::tool_present(
        have_script,
        "`script` (util-linux) is not installed",
        "the terminal half of this test is skipped",
    ) {
        return;
    }
    // Perft 7 on one thread of the baseline copy: a few seconds on any machine.
    let cmd = format!(
        "{} --depth 7 --threads 1 --simd none",
        env!("CARGO_BIN_EXE_perft")
    );
    let o = std::process::Command::new("script")
        .args(["-qefc", &cmd, "/dev/null"])
        .output()
        .expect("script runs");
    let shown = text(&o.stdout);
    assert!(o.status.success(), "{shown}");
    assert!(shown.contains("3195901860"), "{shown}");
    assert!(shown.contains(" tasks, "), "no progress bar: {shown}");
    assert!(shown.contains("depth 7 | 3195901860 nodes"), "{shown}");
    let piped = perft(&["--depth", "5", "--threads", "1"]);
    assert!(
        !text(&piped.stderr).contains("tasks"),
        "{}",
        text(&piped.stderr)
    );
}

#[test]
fn divide_at_depth_zero_is_the_position_itself() {
    let o = perft(&["--depth", "0", "--divide"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "\nNodes searched: 1\n");
}

#[test]
fn every_simd_code_the_cpu_runs_counts_exactly_and_the_others_are_refused() {
    use perft::cpu::{Simd, SimdKind};
    // Kiwipete depth 4, published 4,085,603 (Chess Programming Wiki, "Perft Results").
    let count = |extra: &[&str]| {
        let mut args = vec!["--fen", KIWIPETE, "--depth", "4", "--threads", "2"];
        args.extend_from_slice(extra);
        perft(&args)
    };
    for kind in [SimdKind::Avx512, SimdKind::Avx2, SimdKind::None] {
        let o = count(&["--simd", kind.name()]);
        match Simd::new(kind) {
            Ok(simd) => {
                assert!(o.status.success(), "{}", text(&o.stderr));
                assert_eq!(text(&o.stdout).trim(), "4085603");
                assert!(
                    text(&o.stderr).contains(simd.describe()),
                    "{}",
                    text(&o.stderr)
                );
            }
            Err(e) => {
                assert_eq!(o.status.code(), Some(2), "{kind:?}");
                assert!(
                    text(&o.stderr).contains(&e.to_string()),
                    "{}",
                    text(&o.stderr)
                );
                eprintln!("--simd {} not run: this CPU lacks it", kind.name());
            }
        }
    }
    // `auto` (the default) is the widest; `--no-lanes` the widest without the lanes.
    let auto = count(&[]);
    assert!(
        text(&auto.stderr).contains(Simd::detect().describe()),
        "{}",
        text(&auto.stderr)
    );
    let no_lanes = count(&["--no-lanes"]);
    assert_eq!(text(&no_lanes.stdout).trim(), "4085603");
    assert!(text(&no_lanes.stderr).contains(Simd::one_board().describe()));
    assert!(
        !text(&no_lanes.stderr).contains("lanes"),
        "{}",
        text(&no_lanes.stderr)
    );
    assert_bad_input(&["--simd", "avx2", "--no-lanes"], "cannot be used with");
    assert_bad_input(&["--simd", "sse"], "--simd");
}

/// A table of several GiB (its memory mapped in 2 MiB-aligned huge-page-advised chunks and
/// written by both threads before the count) gives the start position's published perft 8,
/// 84,998,978,956 (Chess Programming Wiki, "Perft Results"), through the binary.
#[test]
fn a_table_of_several_gib_counts_exactly() {
    let o = perft(&["--depth", "8", "--threads", "2", "--hash", "3072"]);
    let err = text(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert_eq!(text(&o.stdout), "84998978956\n");
    assert!(err.contains("hash 3072 MiB"), "{err}");
}

/// A negative `--hash` is refused by name, saying what the option takes (not with a hint to
/// pass it after `--`, where it would be read as a depth).
#[test]
fn a_negative_hash_is_refused_by_name() {
    assert_bad_input(&["--hash", "-5", "--depth", "1"], "--hash");
    let o = perft(&["--hash", "-5", "--depth", "1"]);
    let err = text(&o.stderr);
    assert!(err.contains("cannot be negative"), "{err}");
    assert!(err.contains("'auto'"), "{err}");
    assert!(!err.contains("-- -5"), "{err}");
}

/// The effective speed of a count answered from a table (two bare kings to depth 30: 6.2e24
/// nodes in milliseconds) is written with an exponent, not as a number of some twenty digits.
#[test]
fn an_effective_speed_past_a_billion_mnps_has_an_exponent() {
    let o = perft(&[
        "--fen",
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
        "--depth",
        "30",
        "--hash",
        "16",
    ]);
    let err = text(&o.stderr);
    assert!(o.status.success(), "{err}");
    let speed = err
        .split(" | ")
        .find(|f| f.ends_with("effective Mnps"))
        .unwrap_or_else(|| panic!("no effective speed: {err}"));
    let number = speed.split(' ').next().unwrap();
    assert!(number.len() <= 10, "{speed}");
    let (mantissa, exponent) = number.split_once('e').expect("an exponent");
    assert!(
        mantissa
            .parse::<f64>()
            .is_ok_and(|m| (1.0..10.0).contains(&m)),
        "{speed}"
    );
    assert!(exponent.parse::<u32>().is_ok_and(|e| e >= 9), "{speed}");
}
