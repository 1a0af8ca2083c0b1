//! Every `perft` command the README shows runs as shown: each is run from the repository's root
//! (placeholders filled in, output files sent to a scratch directory, a long count made
//! shallower) and exits as it should; every output the README shows is the whole of what the
//! command prints, and the library example prints what the README says it does.

use crate::common::{self, KIWIPETE};

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The `perft` command lines of the README's code blocks: lines of `sh` blocks that start with
/// `perft`, and `$ perft` lines of the blocks that show output, with `\` continuations joined.
fn readme_commands(readme: &str) -> Vec<String> {
    let mut commands = Vec::new();
    let mut in_block = false;
    let mut pending: Option<String> = None;
    for line in readme.lines() {
        if line.starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if !in_block {
            continue;
        }
        if let Some(mut cmd) = pending.take() {
            cmd.push(' ');
            cmd.push_str(line.trim().trim_end_matches('\\'));
            if line.trim_end().ends_with('\\') {
                pending = Some(cmd);
            } else {
                commands.push(cmd);
            }
            continue;
        }
        let text = line.strip_prefix("$ ").unwrap_or(line);
        if text.starts_with("perft ") {
            let cmd = text.trim_end().trim_end_matches('\\').to_string();
            if text.trim_end().ends_with('\\') {
                pending = Some(cmd);
            } else {
                commands.push(cmd);
            }
        }
    }
    commands
}

/// The command as this test runs it: our binary, the placeholders filled in, output and
/// directories (the home directory's included) in `scratch`, comments dropped.
fn runnable(cmd: &str, bin: &Path, examples: &Path, scratch: &Path) -> String {
    let cmd = match cmd.find(" # ") {
        Some(i) => &cmd[..i],
        None => cmd,
    };
    let cmd = match cmd.find(" > ") {
        Some(i) => &cmd[..i],
        None => cmd,
    };
    let s = scratch.display();
    let cmd = cmd
        .trim()
        .replacen("perft", &bin.display().to_string(), 1)
        .replace("<FEN>", KIWIPETE)
        .replace("my.epd", "positions.epd")
        .replace(
            "target/release/examples/",
            &format!("{}/", examples.display()),
        )
        .replace("/shared/", &format!("{s}/"))
        .replace("~/", &format!("{s}/"))
        .replace(" p9", &format!(" {s}/p9"));
    cmd.to_string()
}

/// How the test runs one README command: its exit status, and the shallower command it runs
/// instead where the README's own would take more than a few seconds (the same options, a
/// smaller count); `None` for the one command that serves until stopped.
struct Expected {
    /// The README's command, comment and output redirection dropped.
    command: &'static str,
    /// The exit status: 0 done, 1 a difference found or jobs missing; `None`: runs until
    /// stopped (a server).
    exit: Option<i32>,
    /// The command run in its place, if the README's is long.
    shallow: Option<&'static str>,
}

const fn ok(command: &'static str) -> Expected {
    Expected {
        command,
        exit: Some(0),
        shallow: None,
    }
}

const fn shallow(command: &'static str, instead: &'static str) -> Expected {
    Expected {
        command,
        exit: Some(0),
        shallow: Some(instead),
    }
}

const fn fails(command: &'static str) -> Expected {
    Expected {
        command,
        exit: Some(1),
        shallow: None,
    }
}

/// Every `perft` command of the README, in the README's order, with what it must do. A command
/// added to the README or changed there must be added here too: the test says which.
const EXPECTED: &[Expected] = &[
    ok("perft completions bash"),
    ok("perft man --dir ~/.local/share/man/man1"),
    ok("perft --depth 6"),
    ok("perft --fen \"<FEN>\" --depth 5"),
    ok("perft --moves e2e4 e7e5 --depth 4"),
    ok("perft --depth 5 --divide"),
    shallow(
        "perft --depth 7 --threads 2 --hash 1024",
        "perft --depth 5 --threads 2 --hash 1024",
    ),
    shallow("perft --depth 10 --hash", "perft --depth 6 --hash"),
    ok("perft --depth 6"),
    ok("perft --fen \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\" --depth 30 --hash 16"),
    shallow(
        "perft --suite positions.epd",
        "perft --suite positions.epd --max-nodes 100000",
    ),
    shallow(
        "perft --suite my.epd --max-depth 4 --max-nodes 1000000 --classical --no-bulk",
        "perft --suite my.epd --max-depth 4 --max-nodes 10000 --classical --no-bulk",
    ),
    shallow(
        "perft --suite positions.epd --json",
        "perft --suite positions.epd --json --max-nodes 10000",
    ),
    shallow(
        "perft --suite positions.epd",
        "perft --suite positions.epd --max-nodes 100000",
    ),
    ok("perft --stats --depth 5"),
    ok("perft --stats --depth 4 --fen \"<FEN>\" --divide"),
    ok("perft --stats --depth 5 --json"),
    ok(
        "perft --stats --depth 4 --fen \"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -\"",
    ),
    shallow(
        "perft --compare --depth 6 --rounds 5",
        "perft --compare --depth 4 --rounds 1",
    ),
    ok("perft 2 \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\" \"e2e4\""),
    fails("perft diff --engine target/release/examples/fake_engine --depth 4"),
    fails(
        "perft diff --engine \"target/release/examples/fake_engine --bug ep-pin\"  --suite tests/data/diff.epd --max-nodes 200000",
    ),
    Expected {
        command: "perft serve --engine target/release/examples/fake_engine",
        exit: None,
        // Port 0: a free port, so that a server running on the README's port does not matter.
        shallow: Some("perft serve --engine target/release/examples/fake_engine --port 0"),
    },
    ok("perft split --depth 9 --at 3 --shards 1 --out p9"),
    // No worker has run: every job is missing.
    fails("perft merge p9"),
    shallow(
        "perft split --depth 10 --at 4 --shards 256 --out /shared/p10",
        "perft split --depth 6 --at 4 --shards 256 --out /shared/p10",
    ),
    fails("perft merge /shared/p10"),
    shallow(
        "perft split --depth 10 --at 4 --shards 64 --out /shared/p10s",
        "perft split --depth 6 --at 4 --shards 64 --out /shared/p10s",
    ),
    fails("perft merge /shared/p10s"),
    ok(
        "perft --chess960 --fen \"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9\" --depth 4",
    ),
];

/// A README command as [`EXPECTED`] names it: its comment and output redirection dropped.
fn bare(cmd: &str) -> &str {
    let cmd = cmd.find(" # ").map_or(cmd, |i| &cmd[..i]);
    cmd.find(" > ").map_or(cmd, |i| &cmd[..i]).trim()
}

/// How long a command (its shallow variant where it has one) may take.
const LIMIT: Duration = Duration::from_secs(60);

/// Each README command, or its shallow variant, exits with the status [`EXPECTED`] gives it
/// (the server: still serving after two seconds); the README's commands are exactly those.
#[test]
fn every_perft_command_in_the_readme_runs_as_shown() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let commands: Vec<String> = readme_commands(&readme);
    let listed: Vec<&str> = commands.iter().map(|c| bare(c)).collect();
    let expected: Vec<&str> = EXPECTED.iter().map(|e| e.command).collect();
    assert_eq!(
        listed, expected,
        "the README's perft commands are not the ones this test expects: update EXPECTED"
    );
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_perft"));
    let exe = std::env::current_exe().unwrap();
    let examples = exe
        .parent()
        .and_then(|d| d.parent())
        .unwrap()
        .join("examples");
    let scratch = common::Scratch::new("readme");
    let mut wrong = Vec::new();
    for e in EXPECTED {
        let line = runnable(e.shallow.unwrap_or(e.command), &bin, &examples, &scratch);
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!("exec {line}"))
            .current_dir(&root)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let start = Instant::now();
        let limit = if e.exit.is_none() {
            Duration::from_secs(2)
        } else {
            LIMIT
        };
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break Some(status);
            }
            if start.elapsed() > limit {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let code = status.map(|s| s.code());
        let right = match (e.exit, code) {
            (None, None) => true,
            (Some(want), Some(Some(got))) => want == got,
            _ => false,
        };
        if !right {
            let mut err = String::new();
            use std::io::Read;
            let _ = child.stderr.take().unwrap().read_to_string(&mut err);
            let what = match code {
                None => format!("still running after {} s", limit.as_secs()),
                Some(c) => format!("exit {c:?}"),
            };
            wrong.push(format!("{line}\n  -> {what}, expected {:?}: {err}", e.exit));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The README's examples with their output (`$ command` lines in text blocks, each followed by
/// what it prints): each `perft` command is run and must print what the README shows, stdout
/// then stderr, every line of it; where the README leaves lines out it says so with `...`.
/// Compared loosely only where a machine changes the text: decimal numbers (times, speeds,
/// ratios) are not compared, nor the rest of a line after `Mnps` (the sliders, threads and code
/// the machine chose), nor runs of spaces and blank lines.
#[test]
fn every_output_the_readme_shows_is_what_perft_prints() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_perft"));
    let exe = std::env::current_exe().unwrap();
    let examples = exe
        .parent()
        .and_then(|d| d.parent())
        .unwrap()
        .join("examples");
    let scratch = common::Scratch::new("readme-output");
    let mut examples_run = 0;
    let mut wrong = Vec::new();
    for (cmd, shown) in shown_outputs(&readme) {
        if !cmd.contains("perft ") || cmd.starts_with("cargo ") {
            continue;
        }
        let line = runnable(&cmd, &bin, &examples, &scratch);
        let out = Command::new("sh")
            .arg("-c")
            .arg(&line)
            .current_dir(&root)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        examples_run += 1;
        if let Err(e) = same_output(&out, &shown) {
            wrong.push(format!("$ {cmd}\n{e}"));
        }
    }
    assert!(examples_run >= 8, "{examples_run} examples");
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

/// The library example the README runs (`cargo run --release --example broken_generator`)
/// prints the report the README shows after it, all of it, and exits 1 (its generator fails).
#[test]
fn the_library_example_prints_what_the_readme_shows() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let run = "`cargo run --release --example broken_generator`";
    let after = &readme[readme.find(run).expect("the README runs the example")..];
    let block = after
        .split("```text\n")
        .nth(1)
        .and_then(|b| b.split("\n```").next())
        .expect("a text block after it");
    let shown: Vec<String> = block
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(String::from)
        .collect();
    let exe = std::env::current_exe().unwrap();
    let example = exe
        .parent()
        .and_then(|d| d.parent())
        .unwrap()
        .join("examples/broken_generator");
    let out = Command::new(&example).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", common::text(&out.stderr));
    if let Err(e) = same_output(&out, &shown) {
        panic!("{e}");
    }
}

/// Whether `out` (stdout, then stderr) is `shown`, compared as [`loose`] says; `...` lines of
/// `shown` stand for any lines, none included.
fn same_output(out: &std::process::Output, shown: &[String]) -> Result<(), String> {
    let printed: Vec<String> = common::text(&out.stdout)
        .lines()
        .chain(common::text(&out.stderr).lines())
        .filter(|l| !l.trim().is_empty())
        .map(loose)
        .collect();
    let shown: Vec<String> = shown.iter().map(|l| loose(l)).collect();
    let fail = |why: &str| {
        Err(format!(
            "  {why}\n  shows:\n    {}\n  printed:\n    {}",
            shown.join("\n    "),
            printed.join("\n    ")
        ))
    };
    // The runs of lines between the `...` lines; the first starts the output unless the README
    // opens with `...`, the last ends it unless the README ends with `...`.
    let runs: Vec<&[String]> = shown.split(|l| l == "...").collect();
    let mut at = 0;
    for (i, run) in runs.iter().enumerate() {
        let (first, last) = (i == 0, i == runs.len() - 1);
        if run.is_empty() {
            continue;
        }
        let found = if first {
            printed.starts_with(run).then_some(0)
        } else if last {
            let from = printed.len().checked_sub(run.len()).filter(|&f| f >= at);
            from.filter(|&f| printed[f..] == **run)
        } else {
            (at..=printed.len().saturating_sub(run.len())).find(|&f| printed[f..].starts_with(run))
        };
        match found {
            Some(f) => at = f + run.len(),
            None => return fail(&format!("the lines from `{}` are not printed so", run[0])),
        }
        if last && at != printed.len() {
            return fail("more is printed than shown");
        }
    }
    Ok(())
}

/// The `$ command` lines of the README's text blocks (continuation lines joined), each with
/// the lines shown after it up to the next command or the block's end (blank lines dropped).
fn shown_outputs(readme: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let (mut in_text, mut continued) = (false, false);
    // Whether this block has shown a command yet: the lines of a block without one (the output
    // of a `cargo run`, say) belong to no perft command.
    let mut has_command = false;
    for line in readme.lines() {
        if line.starts_with("```") {
            in_text = line == "```text";
            continued = false;
            has_command = false;
            continue;
        }
        if !in_text {
            continue;
        }
        if continued && let Some((cmd, _)) = out.last_mut() {
            cmd.push(' ');
            cmd.push_str(line.trim().trim_end_matches('\\').trim());
            continued = line.trim_end().ends_with('\\');
            continue;
        }
        if let Some(cmd) = line.strip_prefix("$ ") {
            continued = cmd.trim_end().ends_with('\\');
            has_command = true;
            out.push((cmd.trim_end_matches('\\').trim().to_string(), Vec::new()));
        } else if let Some((_, shown)) = out.last_mut().filter(|_| has_command)
            && !line.trim().is_empty()
        {
            shown.push(line.to_string());
        }
    }
    out
}

/// A line as compared: decimal numbers (with their exponent, if any) masked, the rest after `Mnps` dropped, spaces collapsed.
fn loose(line: &str) -> String {
    let mut masked = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            let mut number = c.to_string();
            while let Some(&d) = chars.peek()
                && (d.is_ascii_digit() || d == '.')
            {
                number.push(d);
                chars.next();
            }
            if number.contains('.') && !number.ends_with('.') {
                // A speed past a billion Mnps is written with an exponent: `1.24e21`.
                let mut rest = chars.clone();
                if rest.next() == Some('e') && rest.peek().is_some_and(|c| c.is_ascii_digit()) {
                    while chars
                        .peek()
                        .is_some_and(|c| *c == 'e' || c.is_ascii_digit())
                    {
                        chars.next();
                    }
                }
                masked.push('#');
            } else {
                masked.push_str(&number);
            }
        } else {
            masked.push(c);
        }
    }
    let kept = match masked.find("Mnps") {
        Some(i) => &masked[..i + 4],
        None => &masked,
    };
    kept.split_whitespace().collect::<Vec<_>>().join(" ")
}
