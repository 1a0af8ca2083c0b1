//! `perft diff`: find where another engine's perft goes wrong, at one position or over a suite.

use super::common::{CountArgs, MAX_DEPTH, OPTION_NAMES, build_position, move_list};
use super::config::{Counts, SliderJob};
use super::engine::{ProtocolArg, make_engine};
use super::input::Input;
use super::json::LineError;
use super::json::diff::{
    DiffOneJson, DiffPositionJson, DiffSuiteJson, DiffSummaryJson, FailureJson, KindJson,
    ReportEntryJson, descent_and_conclusion, report_lines,
};
use super::progress::{self, Progress, Status};
use super::serve::report;
use super::suite::{auto_table_size, depth_list, name_cell, name_width};
use anyhow::{Result, bail};
use perft::Nodes;
use perft::attacks::Sliders;
use perft::diff::{EngineUnderTest, never};
use perft::engine::Engine;
use perft::epd;
use perft::perft::estimate_count;
use perft::suite::{self, Limits};
use perft::tt::CountSize;
use perft::validate::{
    Descent, MoveClass, Outcome, PositionDiff, Stopped, Totals, check_position,
    find_divergence_with,
};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The engine's command line (run by `sh -c`), e.g. "stockfish" or "./myengine --uci".
    #[arg(long)]
    pub engine: String,

    /// How to talk to the engine: `uci` (`position ...`, `go perft N`, one process throughout)
    /// or `perftree` (`CMD <depth> "<fen>" "<moves>"` per query, printing `move count` lines, a
    /// blank line and the total).
    #[arg(long, value_enum, default_value_t = ProtocolArg::Uci)]
    pub protocol: ProtocolArg,

    /// Starting position; default: the start position.
    #[arg(long, short = 'f', conflicts_with = "suite")]
    pub fen: Option<String>,

    /// Moves to play from it first (UCI notation).
    #[arg(long, num_args = 1.., value_name = "MOVE", conflicts_with = "suite")]
    pub moves: Vec<String>,

    /// Depth to compare at, 1 to 64.
    #[arg(long, short = 'd', required_unless_present = "suite", conflicts_with = "suite",
          value_parser = clap::value_parser!(u32).range(1..=MAX_DEPTH as i64))]
    pub depth: Option<u32>,

    /// Run the engine over every position and listed depth of a suite file (EPD with
    /// `;D<n> <count>` fields), comparing its totals with the suite's counts and descending to
    /// the cause of every failure.
    #[arg(long, value_name = "FILE")]
    pub suite: Option<PathBuf>,

    /// With `--suite`: skip depths above this.
    #[arg(long, default_value_t = MAX_DEPTH, requires = "suite",
          value_parser = clap::value_parser!(u32).range(1..=MAX_DEPTH as i64))]
    pub max_depth: u32,

    /// With `--suite`: skip checks whose tree has more leaves than this: estimated from the
    /// position (from the depth above, counted), not from the listed count.
    #[arg(long, default_value_t = 10_000_000, requires = "suite")]
    pub max_nodes: u128,

    /// One JSON document on stdout (for one position: the failure found, or null).
    #[arg(long)]
    pub json: bool,

    /// Also write the report as one self-contained HTML file: each failure's descent and the
    /// board at the point of difference, the missed and invented moves drawn as arrows.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,

    /// Chess960 castling rules (also selected by Shredder-FEN castling letters).
    #[arg(long)]
    pub chess960: bool,

    /// Seconds the engine may take over one query; then it is killed and restarted.
    #[arg(long, default_value_t = 600.0, value_name = "SECONDS")]
    pub timeout: f64,

    /// How our divides are counted, as for any count (the counts are the same either way).
    #[command(flatten)]
    pub count: CountArgs,
}

impl Args {
    fn engine(&self) -> Result<Engine> {
        make_engine(&self.engine, self.protocol, self.timeout)
    }

    fn protocol_name(&self) -> &'static str {
        match self.protocol {
            ProtocolArg::Uci => "uci",
            ProtocolArg::Perftree => "perftree",
        }
    }
}

pub fn run(args: &Args) -> Result<ExitCode> {
    let counts = args.count.resolve_all_cores()?;
    counts.run(Diff(args, counts))
}

/// `perft diff` with the slider implementation `S` for our divides, counted as the options say.
struct Diff<'a>(&'a Args, Counts);

impl SliderJob for Diff<'_> {
    fn run<S: Sliders>(self) -> Result<ExitCode> {
        match &self.0.suite {
            Some(path) => run_suite::<S>(self.0, self.1, path),
            None => run_one::<S>(self.0, self.1),
        }
    }
}

fn run_one<S: Sliders>(args: &Args, counts: Counts) -> Result<ExitCode> {
    let fen = args.fen.as_deref().unwrap_or(perft::position::STARTPOS);
    let moves: Vec<String> = move_list(&args.moves)
        .into_iter()
        .map(String::from)
        .collect();
    // Validate the input before starting the engine.
    let refs: Vec<&str> = moves.iter().map(String::as_str).collect();
    let start = build_position(Some(fen), args.chess960, &refs, &OPTION_NAMES)?;
    let root = perft::Position::from_fen_with(fen, args.chess960)?;
    let depth = args.depth.unwrap_or(1);
    let table = counts.table(|| estimate_count::<S>(&start, depth))?;
    let opts = counts.perft(table.as_ref());
    let html = args
        .html
        .as_deref()
        .map(report::Report::create)
        .transpose()?;
    let mut engine = args.engine()?;
    engine.start()?;
    // On a terminal, a descent that lasts shows the position being compared, the engine's
    // wait and our count's tasks.
    let status = Status::new(format!("comparing depth {depth}"));
    let found = progress::watched_as(&status, !args.json, |shown| {
        let own = perft::perft::Watch::new();
        let how = Descent {
            opts,
            watch: shown.unwrap_or(&own),
            first: None,
            on_step: &mut |path: &[String], d| {
                status.set(if path.is_empty() {
                    format!("comparing depth {d}")
                } else {
                    format!("comparing depth {d} after {}", path.join(" "))
                })
            },
        };
        let mut theirs = EngineUnderTest {
            engine: &mut engine,
            stop: &never,
        };
        find_divergence_with::<S, _>(&mut theirs, &root, &moves, depth, how)
    });
    let report = match found {
        Ok(report) => report,
        Err(Stopped::Fatal(e)) => bail!("{e}"),
        Err(Stopped::Cancelled) => bail!("the descent was cancelled"),
    };
    if let Some(html) = html {
        let root_fen = root.to_fen();
        let pass = matches!(report.outcome, Outcome::Agree { .. });
        let summary = if pass {
            format!("No difference at depth {depth}.")
        } else {
            format!("The engine goes wrong at depth {depth}.")
        };
        let entry = ReportEntryJson {
            name: if moves.is_empty() {
                "The position".to_string()
            } else {
                format!("The position after {}", moves.join(" "))
            },
            fen: root_fen.clone(),
            pass,
            failure: (!pass).then(|| FailureJson::new(depth, &root_fen, &report)),
        };
        html.write(&args.engine, &summary, &[entry])?;
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        let agree = match report.outcome {
            Outcome::Agree { nodes } => Some(nodes),
            _ => None,
        };
        let root_fen = root.to_fen();
        let doc = DiffOneJson {
            fen: root_fen.clone(),
            moves: moves.clone(),
            depth,
            engine: args.engine.clone(),
            protocol: args.protocol_name(),
            pass: agree.is_some(),
            nodes: agree,
            failure: agree
                .is_none()
                .then(|| FailureJson::new(depth, &root_fen, &report)),
        };
        writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
        return Ok(if agree.is_some() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    let (descent, conclusion) = descent_and_conclusion(&report);
    for l in &descent {
        writeln!(out, "{l}")?;
    }
    writeln!(out)?;
    if let Outcome::Agree { nodes } = report.outcome {
        writeln!(
            out,
            "no difference: both count {nodes} nodes at depth {depth}"
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    for l in &conclusion {
        writeln!(out, "{l}")?;
    }
    Ok(ExitCode::from(1))
}

/// The text lines of one suite position.
fn position_lines(d: &PositionDiff, width: usize) -> Vec<String> {
    let asked: Vec<u32> = d
        .checks
        .iter()
        .filter(|c| c.skipped.is_none())
        .map(|c| c.depth)
        .collect();
    let name = name_cell(&d.name(), width);
    let Some((depth, report)) = &d.failure else {
        let status = if asked.is_empty() { "SKIP" } else { "PASS" };
        return vec![format!("{status}  {name} {}", depth_list(&asked))];
    };
    let check = d.checks.iter().find(|c| c.depth == *depth);
    let what = match (check.and_then(|c| c.theirs), check) {
        (Some(n), Some(c)) => format!("engine {n}, expected {}", c.expected),
        _ => "no answer".to_string(),
    };
    let mut lines = vec![format!("FAIL  {name} depth {depth}: {what}")];
    if let Outcome::Agree { nodes } = report.outcome {
        lines.push(format!(
            "      the engine and perft agree on {nodes}: the suite's count is wrong"
        ));
        return lines;
    }
    lines.extend(
        report_lines(report)
            .into_iter()
            .map(|l| format!("      {l}")),
    );
    lines
}

/// The summary table: per kind of move, the positions where the engine missed or invented one,
/// with the side to move in check or not. Only the kinds that occur.
fn kind_table(tally: &Totals) -> Vec<String> {
    let mut lines = vec![format!(
        "  {:<20} {:>7} {:>16} {:>9} {:>18}",
        "kind of move", "missed", "missed in check", "invented", "invented in check"
    )];
    for class in MoveClass::ALL {
        let [m, mc, i, ic] = tally.by_class[class.index()];
        if m + mc + i + ic > 0 {
            lines.push(format!(
                "  {:<20} {m:>7} {mc:>16} {i:>9} {ic:>18}",
                class.name()
            ));
        }
    }
    lines
}

fn run_suite<S: Sliders>(args: &Args, counts: Counts, path: &Path) -> Result<ExitCode> {
    let limits = Limits {
        max_depth: args.max_depth,
        max_nodes: args.max_nodes,
    };
    let input = Input::open(path)?;
    let file_name = input.name();
    let entries: Vec<_> = epd::read(input.reader()?).collect();
    if entries.is_empty() {
        bail!("{file_name}: no positions found");
    }
    let names: Vec<String> = entries.iter().flatten().map(|e| e.name()).collect();
    let width = name_width(names.iter().map(String::as_str));
    let (leaves, depth) = auto_table_size(&limits);
    let table = counts.table(|| CountSize::dense(leaves, depth))?;
    let opts = counts.perft(table.as_ref());
    let planned: Nodes = entries
        .iter()
        .flatten()
        .flat_map(|e| e.counts.iter())
        .filter(|&&(d, n)| d > 0 && limits.likely_runs(d, n))
        .map(|&(_, n)| n)
        .sum();
    let html = args
        .html
        .as_deref()
        .map(report::Report::create)
        .transpose()?;
    let mut html_entries = Vec::new();
    let mut engine = args.engine()?;
    if let Err(e) = engine.start() {
        eprintln!("error: {e}");
        return Ok(ExitCode::from(2));
    }
    let mut progress = Progress::new(!args.json, planned);
    let mut tally = Totals::default();
    let mut json_positions = Vec::new();
    let mut json_errors = Vec::new();
    let mut fatal = None;
    for entry in entries {
        let (line, message) = match entry {
            Err(e) => (e.line, e.kind.to_string()),
            Ok(entry) => match suite::parse_position(&entry, args.chess960) {
                Err(e) => (entry.line, format!("invalid FEN: {e}")),
                Ok(root) => {
                    let advance = |n: Nodes| progress.advance(n);
                    let mut theirs = EngineUnderTest {
                        engine: &mut engine,
                        stop: &never,
                    };
                    match check_position::<S, _>(&mut theirs, &entry, &root, limits, opts, advance)
                    {
                        Ok(d) => {
                            tally.add(&d);
                            if html.is_some() {
                                html_entries.push(ReportEntryJson {
                                    name: d.name(),
                                    fen: d.fen.clone(),
                                    pass: d.passed(),
                                    failure: d.failure.as_ref().map(|(depth, report)| {
                                        FailureJson::new(*depth, &d.fen, report)
                                    }),
                                });
                            }
                            if args.json {
                                json_positions.push(DiffPositionJson::from(&d));
                            } else {
                                for l in position_lines(&d, width) {
                                    progress.println(&l);
                                }
                            }
                        }
                        Err(e) => {
                            fatal = Some(e);
                            break;
                        }
                    }
                    continue;
                }
            },
        };
        progress.eprintln(&format!("{file_name}:{line}: {message}"));
        json_errors.push(LineError { line, message });
    }
    progress.finish();
    let fatal = fatal.map(|e: perft::validate::Failure| format!("{e}; the run stops here"));
    let bad_lines = json_errors.len();
    if let Some(html) = html {
        let mut summary = format!(
            "{file_name}: {} positions, {} passed, {} failed; {} checks asked, {} skipped; \
             {bad_lines} bad lines.",
            tally.positions, tally.passed, tally.failed, tally.checks_run, tally.checks_skipped
        );
        if let Some(fatal) = &fatal {
            summary.push_str(&format!(" The run stopped: {fatal}."));
        }
        html.write(&args.engine, &summary, &html_entries)?;
    }
    if args.json {
        let by_kind = MoveClass::ALL
            .iter()
            .map(|c| {
                let [m, mc, i, ic] = tally.by_class[c.index()];
                KindJson {
                    kind: c.name(),
                    missed: m,
                    missed_in_check: mc,
                    invented: i,
                    invented_in_check: ic,
                }
            })
            .collect();
        let doc = DiffSuiteJson {
            file: file_name,
            engine: args.engine.clone(),
            protocol: args.protocol_name(),
            summary: DiffSummaryJson {
                positions: tally.positions,
                positions_passed: tally.passed,
                positions_failed: tally.failed,
                checks_run: tally.checks_run,
                checks_skipped: tally.checks_skipped,
                bad_lines,
                restarts: engine.restarts(),
                engine_could_not_run: fatal.clone(),
                failures: tally.by_category.clone(),
                by_kind,
                max_depth: limits.max_depth,
                max_nodes: limits.max_nodes,
            },
            positions: json_positions,
            errors: json_errors,
        };
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        println!();
        println!(
            "{} positions: {} passed, {} failed; {} checks asked, {} skipped; {} bad lines; \
             engine restarts: {}",
            tally.positions,
            tally.passed,
            tally.failed,
            tally.checks_run,
            tally.checks_skipped,
            bad_lines,
            engine.restarts()
        );
        if !tally.by_category.is_empty() {
            let list: Vec<String> = tally
                .by_category
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect();
            println!("failures by kind: {}", list.join(", "));
        }
        if tally.by_class.iter().flatten().any(|&n| n > 0) {
            println!("positions where the engine missed or invented a move, by kind of move:");
            for l in kind_table(&tally) {
                println!("{l}");
            }
        }
        if let Some(fatal) = &fatal {
            eprintln!("error: {fatal}");
        }
    }
    Ok(if fatal.is_some() {
        ExitCode::from(2)
    } else if tally.failed > 0 || bad_lines > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
