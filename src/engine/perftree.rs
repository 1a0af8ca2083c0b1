//! The perftree contract: one process per query, `CMD <depth> "<fen>" "<moves>"`, answering
//! `move count` lines, a blank line and the total.

use super::answer::{Line, add, cut, note, parse_line};
use super::process::{Group, StderrTail, Waited, describe, line_reader, next_line};
use super::{EngineError, MAX_LINES};
use crate::nodes::Nodes;
use crate::validate::Divide;
use std::time::{Duration, Instant};

/// One perftree query: runs the command, reads its whole output by the deadline, parses it.
pub(super) fn perftree_divide(
    command: &str,
    fen: &str,
    moves: &[String],
    depth: u32,
    timeout: Duration,
    stop: &dyn Fn() -> bool,
) -> Result<Divide, EngineError> {
    let args = [depth.to_string(), fen.to_string(), moves.join(" ")];
    let mut child = Group::spawn(command, &args, false)?;
    let stderr = StderrTail::collect(&mut child);
    let Some(stdout) = child.stdout.take() else {
        child.kill();
        return Err(EngineError::Start("no pipe from the engine".into()));
    };
    let lines = line_reader(stdout);
    let deadline = Instant::now() + timeout;
    let mut output = Vec::new();
    loop {
        match next_line(&lines, deadline, stop) {
            Ok(line) => {
                output.push(line);
                if output.len() > MAX_LINES {
                    child.kill();
                    return Err(EngineError::Garbage(format!(
                        "more than {MAX_LINES} lines of output"
                    )));
                }
            }
            Err(Waited::Timeout) => {
                child.kill();
                return Err(EngineError::Timeout(timeout));
            }
            Err(Waited::Stopped) => {
                child.kill();
                return Err(EngineError::Stopped);
            }
            Err(Waited::Closed) => break,
        }
    }
    // The output is closed; the process should be gone or going.
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(2)),
            _ => {
                child.kill();
                break None;
            }
        }
    };
    match status {
        None => return Err(EngineError::Timeout(timeout)),
        Some(s) if s.code() == Some(127) || s.code() == Some(126) => {
            return Err(EngineError::Start(format!(
                "'{command}' cannot be run ({}{})",
                describe(s),
                stderr.said()
            )));
        }
        Some(s) if !s.success() => {
            return Err(EngineError::Crashed(format!(
                "it exited ({}{}) after {} lines",
                describe(s),
                stderr.said(),
                output.len()
            )));
        }
        Some(_) => {}
    }
    parse_perftree(&output)
}

/// `move count` lines, a blank line, the total.
fn parse_perftree(output: &[String]) -> Result<Divide, EngineError> {
    let mut answer = Divide::default();
    let mut total = None;
    let mut after_total = false;
    for line in output {
        if after_total {
            if !line.trim().is_empty() {
                return Err(EngineError::Garbage(format!(
                    "'{}' after the total",
                    cut(line)
                )));
            }
            continue;
        }
        match parse_line(line).map_err(EngineError::Garbage)? {
            Line::Move(mv, n) => add(&mut answer, mv, n)?,
            Line::Blank => {}
            Line::Other => match line.trim().parse::<Nodes>() {
                Ok(n) => {
                    total = Some(n);
                    after_total = true;
                }
                Err(_) => note(&mut answer, line),
            },
        }
    }
    answer.total = total.ok_or_else(|| {
        EngineError::Crashed(format!(
            "its answer ended after {} lines without the total",
            output.len()
        ))
    })?;
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &str) -> Vec<String> {
        s.lines().map(String::from).collect()
    }

    #[test]
    fn perftree_answers() {
        let d = parse_perftree(&lines("e2e4 20\ne7e8q 3\n\n23\n")).unwrap();
        assert_eq!(d.total, 23);
        assert_eq!(d.moves.len(), 2);
        assert_eq!(d.moves["e7e8q"], 3);
        assert!(matches!(
            parse_perftree(&lines("e2e4 20\n")),
            Err(EngineError::Crashed(_))
        ));
        assert!(matches!(
            parse_perftree(&lines("e2e4 twenty\n\n20\n")),
            Err(EngineError::Garbage(_))
        ));
        assert!(matches!(
            parse_perftree(&lines("e2e4 20\ne2e4 21\n\n41\n")),
            Err(EngineError::Garbage(_))
        ));
        assert!(matches!(
            parse_perftree(&lines("e2e4 20\n\n20\nmore\n")),
            Err(EngineError::Garbage(_))
        ));
        let d = parse_perftree(&lines("perft 1 of the start\ne2e4 1\n\n1\n")).unwrap();
        assert_eq!(d.unread, vec!["perft 1 of the start".to_string()]);
    }
}
