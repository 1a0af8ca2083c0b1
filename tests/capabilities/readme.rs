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
