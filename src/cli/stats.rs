//! `perft --stats`: the leaf statistics of every depth 1..N, as the Perft Results tables give
//! them, or as one JSON document with the Grand Chess Tree's finer split.

use super::common::{hash_label, mnps, rules_label, speed};
use super::config::{Counts, SliderJob};
use super::json::stats::{StatsJson, StatsRowJson};
use super::progress::{self, Status};
use anyhow::Result;
use perft::perft::{estimate_count, uci_lines};
use perft::stats::{Stats, StatsTable};
use perft::{Nodes, Position, Sliders};
use std::process::ExitCode;
use std::time::Instant;

/// The Wiki's columns of one row, after its label.
fn wiki_row(label: &str, s: &Stats) -> String {
    format!(
        "{label:<6} {:>15} {:>13} {:>9} {:>10} {:>11} {:>11} {:>9} {:>8} {:>10}",
        s.nodes,
        s.captures,
        s.enpassants,
        s.castles,
        s.promotions,
        s.checks(),
        s.discovery_checks(),
        s.double_checks(),
        s.checkmates()
    )
}

/// The header of the Wiki's columns, `first` naming the rows.
fn header(first: &str) -> String {
    format!(
        "{first:<6} {:>15} {:>13} {:>9} {:>10} {:>11} {:>11} {:>9} {:>8} {:>10}",
        "nodes",
        "captures",
        "e.p.",
        "castles",
        "promotions",
        "checks",
        "disc. ch",
        "doubl ch",
        "checkmates"
    )
}

/// `--stats`, with `--divide` and `--json`.
pub struct StatsJob {
    /// The counting options; the statistics run in the copy of the code `simd` names, in its
    /// lanes if they are AVX-512 ones, else one board at a time.
    pub counts: Counts,
    pub pos: Position,
    pub depth: u32,
    pub divide: bool,
    pub json: bool,
}

impl SliderJob for StatsJob {
    fn run<S: Sliders>(self) -> Result<ExitCode> {
        let (threads, simd) = (self.counts.threads, self.counts.simd);
        let table: Option<StatsTable> = self
            .counts
            .table(|| estimate_count::<S>(&self.pos, self.depth))?;
        let table = table.as_ref();
        let count = self.counts.count_of::<Stats>(table).simd(simd);
        let start = Instant::now();
        let (pos, last) = (&self.pos, self.depth);
        // On a terminal, a run that lasts shows the depth it is at and that count's tasks.
        let status = Status::new(format!("depth {last} of {last}"));
        let (divide, rows) = progress::watched_as(&status, !self.json, |watch| {
            // Counts `depth`'s divide or total, followed by `watch` where there is one (nothing
            // cancels it: it always finishes).
            let divide_of = |depth| match watch {
                Some(w) => count.watch(w).divide::<S>(pos, depth).unwrap_or_default(),
                None => count.divide::<S>(pos, depth),
            };
            let total_of = |depth| match watch {
                Some(w) => count.watch(w).total::<S>(pos, depth).unwrap_or_default(),
                None => count.total::<S>(pos, depth),
            };
            // With --divide the last row is the sum of the divide's rows: that depth is
            // counted once, first.
            let divide = (self.divide && last > 0).then(|| divide_of(last));
            let mut rows = Vec::new();
            // Every depth from 1 to the one asked; depth 0 is its own row (the root, one node).
            for depth in last.min(1)..=last {
                status.set(format!("depth {depth} of {last}"));
                let st = match &divide {
                    Some(lines) if depth == last => {
                        lines.iter().fold(Stats::default(), |a, (_, b)| a + *b)
                    }
                    _ => total_of(depth),
                };
                rows.push((depth, st));
            }
            (divide, rows)
        });
        let divide = divide.map(|lines| uci_lines(&self.pos, lines));
        let elapsed = start.elapsed();
        if self.json {
            let doc = StatsJson {
                fen: self.pos.to_fen(),
                depths: rows
                    .iter()
                    .map(|(d, s)| StatsRowJson::new(Some(*d), None, s))
                    .collect(),
                divide: divide.as_ref().map(|lines| {
                    lines
                        .iter()
                        .map(|(mv, s)| StatsRowJson::new(None, Some(mv.clone()), s))
                        .collect()
                }),
            };
            println!("{}", serde_json::to_string_pretty(&doc)?);
        } else {
            println!("{}", header("depth"));
            for (depth, s) in &rows {
                println!("{}", wiki_row(&depth.to_string(), s));
            }
            if let Some(lines) = &divide {
                println!();
                println!("divide at depth {}:", self.depth);
                println!("{}", header("move"));
                for (mv, s) in lines {
                    println!("{}", wiki_row(mv, s));
                }
            }
        }
        let nodes: Nodes = rows.iter().map(|(_, s)| s.nodes).sum();
        let hash = hash_label(table);
        let depths = match self.depth {
            0 | 1 => format!("depth {}", self.depth),
            d => format!("depths 1-{d}"),
        };
        eprintln!(
            "{depths} | {nodes} nodes | {:.3} s | {} {} | statistics, {} sliders, {threads} thread{}, {hash}, simd {}{}",
            elapsed.as_secs_f64(),
            speed(mnps(nodes, elapsed)),
            if table.is_some() {
                "effective Mnps"
            } else {
                "Mnps"
            },
            S::NAME,
            if threads == 1 { "" } else { "s" },
            simd.describe(),
            rules_label(&self.pos),
        );
        Ok(ExitCode::SUCCESS)
    }
}
