//! `perft --suite --json`: the suite, each position with its checks and its divide, the lines
//! that could not be read, and the summary.

use super::LineError;
use perft::Nodes;
use perft::suite::PositionReport;
use serde::Serialize;

/// The JSON document of `--suite --json`.
#[derive(Serialize)]
pub struct SuiteJson {
    pub file: String,
    pub positions: Vec<SuitePositionJson>,
    pub errors: Vec<LineError>,
    pub summary: SuiteSummaryJson,
}

#[derive(Serialize)]
pub struct SuitePositionJson {
    pub line: usize,
    pub id: Option<String>,
    pub fen: String,
    pub pass: bool,
    pub nodes: Nodes,
    pub time: f64,
    pub checks: Vec<SuiteCheckJson>,
    pub divide: Option<SuiteDivideJson>,
}

#[derive(Serialize)]
pub struct SuiteCheckJson {
    pub depth: u32,
    pub expected: Nodes,
    pub actual: Option<Nodes>,
    pub pass: Option<bool>,
    pub skipped: Option<&'static str>,
    pub time: f64,
}

#[derive(Serialize)]
pub struct SuiteDivideJson {
    pub depth: u32,
    pub moves: Vec<MoveCountJson>,
}

#[derive(Serialize)]
pub struct MoveCountJson {
    #[serde(rename = "move")]
    pub mv: String,
    pub nodes: Nodes,
}

#[derive(Serialize)]
pub struct SuiteSummaryJson {
    pub positions: usize,
    pub positions_passed: usize,
    pub positions_failed: usize,
    pub checks_run: usize,
    pub checks_passed: usize,
    pub checks_failed: usize,
    pub checks_skipped: usize,
    pub bad_lines: usize,
    pub nodes: Nodes,
    pub time: f64,
    pub mnps: f64,
    pub counting: &'static str,
    pub sliders: &'static str,
    pub threads: usize,
    pub hash_mb: usize,
    pub max_depth: u32,
    pub max_nodes: u128,
}

impl SuitePositionJson {
    pub fn from(r: &PositionReport) -> SuitePositionJson {
        SuitePositionJson {
            line: r.line,
            id: r.id.clone(),
            fen: r.fen.clone(),
            pass: r.passed(),
            nodes: r.nodes(),
            time: r.time().as_secs_f64(),
            checks: r
                .checks
                .iter()
                .map(|c| SuiteCheckJson {
                    depth: c.depth,
                    expected: c.expected,
                    actual: c.actual,
                    pass: c.actual.map(|_| c.passed()),
                    skipped: c.skipped.map(|s| s.describe()),
                    time: c.time.as_secs_f64(),
                })
                .collect(),
            divide: r.divide.as_ref().map(|(depth, moves)| SuiteDivideJson {
                depth: *depth,
                moves: moves
                    .iter()
                    .map(|(m, n)| MoveCountJson {
                        mv: m.clone(),
                        nodes: *n,
                    })
                    .collect(),
            }),
        }
    }
}
