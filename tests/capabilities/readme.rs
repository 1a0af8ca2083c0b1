//! Every `perft` command the README shows runs as shown: each is run from the repository's root
//! (placeholders filled in, output files sent to a scratch directory) and must not be refused.
//! A long count still running after a moment has passed: its arguments were accepted.

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

#[test]
fn every_perft_command_in_the_readme_runs_as_shown() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let commands = readme_commands(&readme);
    assert!(commands.len() >= 25, "{commands:#?}");
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_perft"));
    let exe = std::env::current_exe().unwrap();
    let examples = exe
        .parent()
        .and_then(|d| d.parent())
        .unwrap()
        .join("examples");
    let scratch = common::Scratch::new("readme");
    let mut refused = Vec::new();
    for cmd in &commands {
        let line = runnable(cmd, &bin, &examples, &scratch);
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
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break Some(status);
            }
            if start.elapsed() > Duration::from_secs(2) {
                // A deep count at work: its arguments were accepted.
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        // 0: done; 1: a reported failure (a diff example finds the fake engine's bug, a merge
        // of a split no worker has run yet lists the missing jobs). 2 is a refusal.
        if let Some(status) = status
            && !matches!(status.code(), Some(0 | 1))
        {
            let mut err = String::new();
            use std::io::Read;
            let _ = child.stderr.take().unwrap().read_to_string(&mut err);
            refused.push(format!("{cmd}\n  -> {status}: {err}"));
        }
    }
    assert!(refused.is_empty(), "{}", refused.join("\n"));
}

/// The README's examples with their output (`$ command` lines in text blocks, each followed by
/// what it prints): each `perft` command is run and must print every line the README shows, in
/// the order shown (the README may leave lines out, and marks it with `...`). Compared loosely
/// only where a machine changes the text: decimal numbers (times, speeds, ratios) are not
/// compared, nor the rest of a line after `Mnps` (the sliders, threads and code the machine
/// chose), nor runs of spaces.
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
        let printed: Vec<String> = common::text(&out.stdout)
            .lines()
            .chain(common::text(&out.stderr).lines())
            .map(loose)
            .collect();
        examples_run += 1;
        // In order, each after the one before; lines between them (headers, `...`) may go.
        let mut at = 0;
        for want in shown.iter().filter(|l| l.trim() != "...") {
            let want = loose(want);
            match printed[at..].iter().position(|l| *l == want) {
                Some(i) => at += i + 1,
                None => {
                    wrong.push(format!(
                        "$ {cmd}\n  shows: {want}\n  printed (from line {at}):\n    {}",
                        printed[at..].join("\n    ")
                    ));
                    break;
                }
            }
        }
    }
    assert!(examples_run >= 8, "{examples_run} examples");
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
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

/// A line as compared: decimal numbers masked, the rest after `Mnps` dropped, spaces collapsed.
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
