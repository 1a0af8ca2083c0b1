//! Reading an engine's answer: one line at a time, a move and its count, the total, or
//! something kept (at most a few) for the error message.

use super::EngineError;
use crate::nodes::Nodes;
use crate::types::Square;
use crate::validate::Divide;

/// Lines kept in [`Divide::unread`].
const UNREAD_KEPT: usize = 3;

/// What a line of an answer is.
pub(super) enum Line {
    Move(String, Nodes),
    Blank,
    Other,
}

/// `e2e4: 20` or `e2e4 20` is a move count; a line that starts with a move but has no count is
/// an error; anything else is for the caller to judge.
pub(super) fn parse_line(line: &str) -> Result<Line, String> {
    let t = line.trim();
    if t.is_empty() {
        return Ok(Line::Blank);
    }
    let (first, rest) = match t.find(|c: char| c == ':' || c.is_ascii_whitespace()) {
        Some(i) => (&t[..i], t[i + 1..].trim()),
        None => (t, ""),
    };
    if !is_uci_move(first) {
        return Ok(Line::Other);
    }
    let rest = rest.trim_start_matches(':').trim();
    match rest.parse::<Nodes>() {
        Ok(n) => Ok(Line::Move(first.to_string(), n)),
        Err(_) => Err(format!("'{}': no count after the move", cut(t))),
    }
}

/// A line shortened for a message.
pub(super) fn cut(line: &str) -> String {
    if line.chars().count() > 60 {
        format!("{}...", line.chars().take(60).collect::<String>())
    } else {
        line.to_string()
    }
}

/// Whether `s` has the shape of a move in UCI notation (`e2e4`, `e7e8q`).
fn is_uci_move(s: &str) -> bool {
    let square = |r: std::ops::Range<usize>| s.get(r).and_then(Square::parse).is_some();
    square(0..2) && square(2..4) && matches!(s.get(4..), Some("" | "q" | "r" | "b" | "n"))
}

/// Adds a move line to `answer` (not to its total: the engine prints its own); the same move
/// twice with different counts is an error.
pub(super) fn add(answer: &mut Divide, mv: String, n: Nodes) -> Result<(), EngineError> {
    match answer.moves.insert(mv.clone(), n) {
        Some(old) if old != n => Err(EngineError::Garbage(format!(
            "{mv} is listed twice, with {old} and {n}"
        ))),
        _ => Ok(()),
    }
}

/// Keeps `line`, one that is neither a move count nor the total, if few are kept so far.
pub(super) fn note(answer: &mut Divide, line: &str) {
    if answer.unread.len() < UNREAD_KEPT {
        answer.unread.push(cut(line.trim()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_shapes() {
        assert!(is_uci_move("e2e4") && is_uci_move("a7a8n"));
        assert!(!is_uci_move("e2e9") && !is_uci_move("e7e8k") && !is_uci_move("Nodes"));
    }
}
