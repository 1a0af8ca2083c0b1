//! `perft --stats`: the leaf statistics of every depth 1..N, as the Perft Results tables give
//! them, or as one JSON document with the Grand Chess Tree's finer split.

use super::common::{hash_label, mnps, rules_label};
use super::config::{Counts, SliderJob};
use super::json::stats::{StatsJson, StatsRowJson};
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
        // With --divide the last row is the sum of the divide's rows: that depth is counted once.
        let divide =
            (self.divide && self.depth > 0).then(|| count.divide::<S>(&self.pos, self.depth));
        let mut rows = Vec::new();
        // Every depth from 1 to the one asked; depth 0 is its own row (the root, one node).
        for depth in self.depth.min(1)..=self.depth {
            let st = match &divide {
                Some(lines) if depth == self.depth => {
                    lines.iter().fold(Stats::default(), |a, (_, b)| a + *b)
                }
                _ => count.total::<S>(&self.pos, depth),
            };
            rows.push((depth, st));
        }
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
            "{depths} | {nodes} nodes | {:.3} s | {:.1} {} | statistics, {} sliders, {threads} thread{}, {hash}, simd {}{}",
            elapsed.as_secs_f64(),
            mnps(nodes, elapsed),
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
