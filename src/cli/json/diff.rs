//! `perft diff --json` (one position, or a suite), `perft serve`'s `/api/diff`, and the data of
//! `perft diff --html`'s report: a failure found by the descent, its moves and its text.

use super::LineError;
use perft::Nodes;
use perft::validate::{ClassifiedMove, Outcome, PositionDiff, Report};
use serde::Serialize;

/// `after: e2e4 e7e5` or `at the root`.
pub fn place(moves: &[String]) -> String {
    if moves.is_empty() {
        "at the root".to_string()
    } else {
        format!("after: {}", moves.join(" "))
    }
}

/// `e1g1 (castling), e5d6 (en passant)`, or `(none)`.
pub fn classified(moves: &[ClassifiedMove]) -> String {
    if moves.is_empty() {
        return "(none)".to_string();
    }
    moves
        .iter()
        .map(|m| format!("{} ({})", m.uci, m.class.name()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The descent and its conclusion, as lines of text.
pub fn report_lines(report: &Report) -> Vec<String> {
    let (mut lines, conclusion) = descent_and_conclusion(report);
    lines.extend(conclusion);
    lines
}

/// The descent's lines, and the conclusion's.
pub fn descent_and_conclusion(report: &Report) -> (Vec<String>, Vec<String>) {
    let mut descent = Vec::new();
    for step in &report.steps {
        let path = if step.moves.is_empty() {
            "(root)".to_string()
        } else {
            step.moves.join(" ")
        };
        descent.push(format!(
            "depth {}: {path}: engine {}, perft {}",
            step.depth, step.theirs, step.ours
        ));
        if let Some((mv, theirs, ours)) = &step.follow {
            descent.push(format!(
                "  {mv}: engine {theirs}, perft {ours} -> descending into {mv}"
            ));
        }
    }
    let mut out = Vec::new();
    match &report.outcome {
        Outcome::Agree { nodes } => out.push(format!("no difference: both count {nodes} nodes")),
        Outcome::MoveListDiffers {
            moves,
            fen,
            in_check,
            missed,
            invented,
            unread,
        } => {
            let check = if *in_check {
                " (side to move in check)"
            } else {
                ""
            };
            out.push(format!(
                "the engine's legal moves differ {}{check}",
                place(moves)
            ));
            out.push(format!("FEN: {fen}"));
            out.push(format!("moves the engine missed:   {}", classified(missed)));
            out.push(format!(
                "moves the engine invented: {}",
                classified(invented)
            ));
            if !unread.is_empty() {
                out.push(format!(
                    "lines of its answer not understood: '{}'",
                    unread.join("', '")
                ));
            }
        }
        Outcome::OtherPosition {
            moves,
            fen,
            examples,
        } => {
            out.push(format!(
                "{}: the engine answers for another position: most of its moves move \
                 pieces that are not there ({})",
                place(moves),
                examples.join(", ")
            ));
            out.push(format!("FEN: {fen}"));
        }
        Outcome::TotalDiffers {
            moves,
            fen,
            ours,
            theirs,
        } => {
            out.push(format!(
                "{}: every move's count agrees, but the engine's total is {theirs} (sum {ours})",
                place(moves)
            ));
            out.push(format!("FEN: {fen}"));
        }
        Outcome::Inconsistent { moves, fen, detail } => {
            out.push(format!(
                "the engine is inconsistent {}: {detail}",
                place(moves)
            ));
            out.push(format!("FEN: {fen}"));
        }
        Outcome::Failed {
            moves,
            fen,
            depth,
            error,
        } => {
            out.push(format!(
                "{}, depth {depth}: {error}; it is restarted for the next query",
                place(moves)
            ));
            out.push(format!("FEN: {fen}"));
        }
    }
    (descent, out)
}

/// The JSON document of `diff --suite --json`.
#[derive(Serialize)]
pub struct DiffSuiteJson {
    pub file: String,
    pub engine: String,
    pub protocol: &'static str,
    pub positions: Vec<DiffPositionJson>,
    pub errors: Vec<LineError>,
    pub summary: DiffSummaryJson,
}

#[derive(Serialize)]
pub struct DiffPositionJson {
    pub line: usize,
    pub id: Option<String>,
    pub fen: String,
    pub pass: bool,
    pub checks: Vec<DiffCheckJson>,
    pub failure: Option<FailureJson>,
}

#[derive(Serialize)]
pub struct DiffCheckJson {
    pub depth: u32,
    pub expected: Nodes,
    pub engine: Option<Nodes>,
    pub pass: Option<bool>,
    pub skipped: Option<&'static str>,
}

/// A failure found by the descent, as `--json` (and `perft serve`'s `/api/diff`) show it.
#[derive(Serialize)]
pub struct FailureJson {
    pub depth: u32,
    pub category: &'static str,
    /// Moves from the root to the position the descent ended at, and its FEN.
    pub moves: Vec<String>,
    pub fen: String,
    pub in_check: Option<bool>,
    pub missed: Vec<MoveJson>,
    pub invented: Vec<MoveJson>,
    /// The engine's error, if it crashed, hung or printed garbage.
    pub error: Option<String>,
    /// The report as text, line by line.
    pub text: Vec<String>,
}

impl FailureJson {
    /// The failure found at `depth` below the position `fen`.
    pub fn new(depth: u32, fen: &str, report: &Report) -> FailureJson {
        let mut f = FailureJson {
            depth,
            category: report.outcome.category(),
            moves: Vec::new(),
            fen: fen.to_string(),
            in_check: None,
            missed: Vec::new(),
            invented: Vec::new(),
            error: None,
            text: report_lines(report),
        };
        if let Some((moves, fen)) = report.outcome.position() {
            (f.moves, f.fen) = (moves.to_vec(), fen.to_string());
        }
        match &report.outcome {
            Outcome::MoveListDiffers {
                in_check,
                missed,
                invented,
                ..
            } => {
                f.in_check = Some(*in_check);
                (f.missed, f.invented) = (moves_json(missed), moves_json(invented));
            }
            Outcome::Failed { error, .. } => f.error = Some(error.to_string()),
            _ => {}
        }
        f
    }
}

/// The JSON document of `diff --json` for one position: the position, the depth, and the
/// failure found (null when the engine agrees), the same object as a suite position's.
#[derive(Serialize)]
pub struct DiffOneJson {
    pub fen: String,
    pub moves: Vec<String>,
    pub depth: u32,
    pub engine: String,
    pub protocol: &'static str,
    pub pass: bool,
    pub nodes: Option<Nodes>,
    pub failure: Option<FailureJson>,
}

#[derive(Serialize)]
pub struct MoveJson {
    #[serde(rename = "move")]
    pub mv: String,
    pub kind: &'static str,
}

#[derive(Serialize)]
pub struct DiffSummaryJson {
    pub positions: usize,
    pub positions_passed: usize,
    pub positions_failed: usize,
    pub checks_run: usize,
    pub checks_skipped: usize,
    pub bad_lines: usize,
    pub restarts: usize,
    pub engine_could_not_run: Option<String>,
    pub failures: std::collections::BTreeMap<&'static str, usize>,
    pub by_kind: Vec<KindJson>,
    pub max_depth: u32,
    pub max_nodes: u128,
}

#[derive(Serialize)]
pub struct KindJson {
    pub kind: &'static str,
    pub missed: usize,
    pub missed_in_check: usize,
    pub invented: usize,
    pub invented_in_check: usize,
}

pub fn moves_json(moves: &[ClassifiedMove]) -> Vec<MoveJson> {
    moves
        .iter()
        .map(|m| MoveJson {
            mv: m.uci.clone(),
            kind: m.class.name(),
        })
        .collect()
}

impl DiffPositionJson {
    pub fn from(d: &PositionDiff) -> DiffPositionJson {
        let failure = d
            .failure
            .as_ref()
            .map(|(depth, report)| FailureJson::new(*depth, &d.fen, report));
        DiffPositionJson {
            line: d.line,
            id: d.id.clone(),
            fen: d.fen.clone(),
            pass: d.passed(),
            checks: d
                .checks
                .iter()
                .map(|c| DiffCheckJson {
                    depth: c.depth,
                    expected: c.expected,
                    engine: c.theirs,
                    pass: c.theirs.map(|n| n == c.expected),
                    skipped: c.skipped.map(|s| s.describe()),
                })
                .collect(),
            failure,
        }
    }
}

/// One position of `perft diff --html`'s report.
#[derive(Serialize)]
pub struct ReportEntryJson {
    pub name: String,
    pub fen: String,
    pub pass: bool,
    pub failure: Option<FailureJson>,
}

/// The data of `perft diff --html`'s page, read by its script.
#[derive(Serialize)]
pub struct ReportJson<'a> {
    pub engine: &'a str,
    pub summary: &'a str,
    pub positions: &'a [ReportEntryJson],
}
