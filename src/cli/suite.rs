//! `perft --suite FILE`: every position of a suite file checked against its published counts.

use super::common::{MAX_DEPTH, counting_name, mnps, mnps_label, plural, setup_label, speed};
use super::config::{Counts, SliderJob};
use super::input::Input;
use super::json::LineError;
use super::json::suite::{SuiteJson, SuitePositionJson, SuiteSummaryJson};
use super::progress::Progress;
use anyhow::{Result, bail};
use perft::compare::Work;
use perft::epd;
use perft::perft::Perft;
use perft::suite::{self, Limits, PositionReport, Summary};
use perft::tt::CountSize;
use perft::{Magic, Nodes, Sliders};

use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
// No argument group: see the flattened options in src/main.rs.
#[group(skip)]
pub struct Args {
    /// Check every position of a suite file (EPD with `;D<n> <count>` fields, or the `.perft`
    /// block format) and report PASS or FAIL per position.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["fen", "divide", "magics"])]
    pub suite: Option<PathBuf>,

    /// With `--suite`: skip depths above this [default: 64].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_DEPTH as i64))]
    pub max_depth: Option<u32>,

    /// With `--suite`: skip checks whose tree has more leaves than this [default: 10000000]:
    /// estimated from the position (from the depth above, counted), not from the listed count,
    /// so that a wrong count is checked.
    #[arg(long)]
    pub max_nodes: Option<u128>,

    /// With `--suite` or `--stats`: machine-readable output (one JSON document on stdout).
    #[arg(long)]
    pub json: bool,
}

impl Args {
    pub fn limits(&self) -> Limits {
        Limits {
            max_depth: self.max_depth.unwrap_or(MAX_DEPTH),
            max_nodes: self.max_nodes.unwrap_or(10_000_000),
        }
    }

    /// The limits apply only to a suite: given without one, they are an error naming both.
    /// (clap's `requires = "suite"` lets them through here, so the check is made by hand.)
    pub fn check_limits_need_a_suite(&self) -> anyhow::Result<()> {
        if self.suite.is_none() {
            for (given, name) in [
                (self.max_depth.is_some(), "--max-depth"),
                (self.max_nodes.is_some(), "--max-nodes"),
            ] {
                if given {
                    anyhow::bail!("{name} goes with --suite (it limits the suite's checks)");
                }
            }
        }
        Ok(())
    }
}

/// `D1-D5`, or `D1 D3` for depths that are not consecutive.
pub fn depth_list(depths: &[u32]) -> String {
    if depths.is_empty() {
        return "-".to_string();
    }
    let consecutive = depths.windows(2).all(|w| w[1] == w[0] + 1);
    if consecutive && depths.len() > 1 {
        format!("D{}-D{}", depths[0], depths[depths.len() - 1])
    } else {
        depths
            .iter()
            .map(|d| format!("D{d}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn position_lines(r: &PositionReport, width: usize) -> Vec<String> {
    let ran: Vec<u32> = r.run().map(|c| c.depth).collect();
    let name = name_cell(&r.name(), width);
    let status = if !r.passed() {
        "FAIL"
    } else if ran.is_empty() {
        "SKIP"
    } else {
        "PASS"
    };
    let mut line = format!(
        "{status}  {name} {:<10} {:>8.3} s {:>8} Mnps",
        depth_list(&ran),
        r.time().as_secs_f64(),
        speed(mnps(r.nodes(), r.time()))
    );
    let mut skipped: Vec<(u32, &str)> = Vec::new();
    for c in &r.checks {
        if let Some(reason) = c.skipped {
            skipped.push((c.depth, reason.describe()));
        }
    }
    if !skipped.is_empty() {
        let mut reasons: Vec<&str> = skipped.iter().map(|s| s.1).collect();
        reasons.dedup();
        let depths: Vec<u32> = skipped.iter().map(|s| s.0).collect();
        line.push_str(&format!(
            "  (skipped {}: {})",
            depth_list(&depths),
            reasons.join(", ")
        ));
    }
    let mut lines = vec![line];
    for c in r.checks.iter().filter(|c| c.failed()) {
        lines.push(format!(
            "      depth {}: expected {}, got {}",
            c.depth,
            c.expected,
            c.actual.unwrap_or_default()
        ));
        lines.push(format!("      FEN: {}", r.fen));
    }
    if let Some((depth, moves)) = &r.divide {
        lines.push(format!(
            "      divide at depth {depth} ({} root moves):",
            moves.len()
        ));
        for (mv, n) in moves {
            lines.push(format!("        {mv}: {n}"));
        }
    }
    lines
}

/// What a first pass over the input tells before any position is counted: the progress bar's
/// total (the listed nodes of the checks likely to run) and the width of the name column.
fn plan(input: &Input, limits: Limits) -> (Nodes, usize) {
    let Ok(reader) = input.reader() else {
        return (Nodes::ZERO, *NAME_WIDTH.start());
    };
    let mut nodes = Nodes::ZERO;
    let mut names = Vec::new();
    for entry in epd::read(reader).flatten() {
        nodes += entry
            .counts
            .iter()
            .filter(|&&(d, n)| limits.likely_runs(d, n))
            .map(|&(_, n)| n)
            .sum::<Nodes>();
        names.push(entry.name());
    }
    (nodes, name_width(names.iter().map(String::as_str)))
}

/// The width of the name column: the longest name, within these bounds.
pub const NAME_WIDTH: std::ops::RangeInclusive<usize> = 32..=48;

/// The width of the name column for `names`: the longest, at least 32 and at most 48 characters
/// (a longer name is cut, see [`name_cell`]; the FEN is printed whole where it matters).
pub fn name_width<'a>(names: impl Iterator<Item = &'a str>) -> usize {
    names
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(*NAME_WIDTH.start(), *NAME_WIDTH.end())
}

/// `name` in a column `width` characters wide: padded, or cut with an ellipsis, so that the
/// columns after it stay in line.
pub fn name_cell(name: &str, width: usize) -> String {
    if name.chars().count() > width {
        let cut: String = name.chars().take(width - 1).collect();
        format!("{cut}\u{2026}")
    } else {
        format!("{name:<width$}")
    }
}

/// Every check of a suite within the limits, for `--compare --suite`; a line that cannot be
/// read or whose FEN is rejected is reported on stderr as `file:line: what is wrong` and the
/// others still run. The checks, and the number of bad lines.
pub fn work(path: &Path, chess960: bool, limits: Limits) -> Result<(Vec<Work>, usize)> {
    let input = Input::open(path)?;
    let mut work = Vec::new();
    let mut bad = 0;
    for entry in epd::read(input.reader()?) {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                eprintln!("{}:{}: {}", path.display(), e.line, e.kind);
                bad += 1;
                continue;
            }
        };
        let pos = match suite::parse_position(&entry, chess960) {
            Ok(pos) => pos,
            Err(e) => {
                eprintln!("{}:{}: invalid FEN: {e}", path.display(), entry.line);
                bad += 1;
                continue;
            }
        };
        // Within the limits by the size of the position's own trees (counted where the
        // depth below is affordable), not by the listed counts, which may be wrong.
        let mut sizes = suite::TreeSizes::new::<Magic>(&pos);
        let mut counts = entry.counts.clone();
        counts.sort_unstable();
        for (depth, expected) in counts {
            if depth > limits.max_depth {
                continue;
            }
            let opts = Perft::new();
            sizes.count_below::<Magic>(&pos, depth, limits.max_nodes as f64, opts);
            if limits.skip(depth, sizes.estimate(depth), false).is_none() {
                work.push(Work {
                    pos: pos.clone(),
                    depth,
                    expected: Some(expected),
                });
            }
        }
    }
    if work.is_empty() {
        bail!("{}: no checks within the limits", path.display());
    }
    Ok((work, bad))
}

/// `--suite`.
pub struct Suite<'a> {
    pub args: &'a Args,
    pub path: &'a Path,
    pub chess960: bool,
    pub counts: Counts,
}

/// What `--hash auto` sizes a suite's table for: the largest count the limits allow (leaves), at
/// the depth where a branching factor of 30 reaches it.
pub(super) fn auto_table_size(limits: &Limits) -> (f64, u32) {
    let leaves = (limits.max_nodes as f64).min(1e15);
    // (`max` then `min`, not `clamp`: `--max-depth` may be below 3.)
    let depth = (leaves.ln() / 30f64.ln())
        .ceil()
        .max(3.0)
        .min(limits.max_depth as f64);
    (leaves, depth as u32)
}

impl SliderJob for Suite<'_> {
    fn run<S: Sliders>(self) -> Result<ExitCode> {
        let (args, path) = (self.args, self.path);
        let limits = args.limits();
        let input = Input::open(path)?;
        let (leaves, depth) = auto_table_size(&limits);
        let table = self.counts.table(|| CountSize::dense(leaves, depth))?;
        let opts = self.counts.perft(table.as_ref());
        let (total, width) = if args.json {
            (Nodes::ZERO, *NAME_WIDTH.start())
        } else {
            plan(&input, limits)
        };
        let mut progress = Progress::new(!args.json, total);
        let mut summary = Summary::default();
        let mut json_positions = Vec::new();
        let mut json_errors = Vec::new();
        let file_name = input.name().to_string();
        for entry in epd::read(input.reader()?) {
            let (line, message) = match entry {
                Err(e) => (e.line, e.kind.to_string()),
                Ok(entry) => match suite::parse_position(&entry, self.chess960) {
                    Err(e) => (entry.line, format!("invalid FEN: {e}")),
                    Ok(pos) => {
                        let report = suite::run_position::<S>(&entry, pos, limits, opts, |n| {
                            progress.advance(n)
                        });
                        summary.add(&report);
                        if args.json {
                            json_positions.push(SuitePositionJson::from(&report));
                        } else {
                            for l in position_lines(&report, width) {
                                progress.println(&l);
                            }
                        }
                        continue;
                    }
                },
            };
            summary.errors += 1;
            progress.eprintln(&format!("{file_name}:{line}: {message}"));
            if args.json {
                json_errors.push(LineError { line, message });
            }
        }
        progress.finish();
        if summary.positions == 0 && summary.errors == 0 {
            bail!("{file_name}: no positions found");
        }
        if summary.passed + summary.failed == 0 && summary.skipped > 0 {
            eprintln!(
                "note: nothing was checked: every listed depth is over --max-depth {} or \
                 --max-nodes {}",
                limits.max_depth, limits.max_nodes
            );
        }
        if args.json {
            let report = SuiteJson {
                file: file_name,
                positions: json_positions,
                errors: json_errors,
                summary: SuiteSummaryJson {
                    positions: summary.positions,
                    positions_passed: summary.positions_passed,
                    positions_failed: summary.positions_failed,
                    checks_run: summary.passed + summary.failed,
                    checks_passed: summary.passed,
                    checks_failed: summary.failed,
                    checks_skipped: summary.skipped,
                    bad_lines: summary.errors,
                    nodes: summary.nodes,
                    time: summary.time.as_secs_f64(),
                    mnps: summary.mnps(),
                    counting: counting_name(opts.counting),
                    sliders: S::NAME,
                    threads: opts.threads,
                    hash_mb: table.as_ref().map_or(0, |t| t.bytes() >> 20),
                    max_depth: limits.max_depth,
                    max_nodes: limits.max_nodes,
                },
            };
            println!("{}", serde_json::to_string_pretty(&report)?);
        } else {
            println!();
            println!(
                "{} position{}: {} check{} passed, {} failed, {} skipped; {} bad line{}",
                summary.positions,
                plural(summary.positions),
                summary.passed,
                plural(summary.passed),
                summary.failed,
                summary.skipped,
                summary.errors,
                plural(summary.errors)
            );
            println!(
                "{} nodes in {:.2} s, {} {} ({}; limits: depth <= {}, nodes <= {})",
                summary.nodes,
                summary.time.as_secs_f64(),
                speed(summary.mnps()),
                mnps_label(&opts),
                setup_label(S::NAME, &opts),
                limits.max_depth,
                limits.max_nodes
            );
        }
        Ok(if summary.failed > 0 {
            ExitCode::from(1)
        } else if summary.errors > 0 {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        })
    }
}
