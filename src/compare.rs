//! Comparing slider implementations: the same perfts run with each, alternating, timed.

use crate::attacks::{Classical, Magic, Sliders};
use crate::nodes::Nodes;
use crate::perft::Perft;
use crate::position::Position;
use crate::tt::Table;
use std::time::{Duration, Instant};

/// One perft of a comparison workload, with the published count when there is one.
#[derive(Clone, Debug)]
pub struct Work {
    /// The position.
    pub pos: Position,
    /// The depth counted.
    pub depth: u32,
    /// The published count, which every implementation must give.
    pub expected: Option<Nodes>,
}

/// One implementation's result.
#[derive(Clone, Debug)]
pub struct Contender {
    /// The implementation's name (`magic`, `classical`, `pext`).
    pub name: &'static str,
    /// The total time of the whole workload, one entry per round.
    pub times: Vec<Duration>,
    /// The count of each perft of the workload.
    pub counts: Vec<Nodes>,
    run: fn(&Perft<'_>, &Position, u32) -> Nodes,
}

/// [`Perft::total`] with the slider implementation `S`, as a function a [`Contender`] keeps.
fn total<S: Sliders>(count: &Perft<'_>, pos: &Position, depth: u32) -> Nodes {
    count.total::<S>(pos, depth)
}

impl Contender {
    fn new<S: Sliders>() -> Contender {
        Contender {
            name: S::NAME,
            times: Vec::new(),
            counts: Vec::new(),
            run: total::<S>,
        }
    }

    /// The median time of the rounds.
    pub fn median(&self) -> Duration {
        let mut t = self.times.clone();
        t.sort();
        t.get(t.len() / 2).copied().unwrap_or_default()
    }

    /// Nodes of the whole workload.
    pub fn nodes(&self) -> Nodes {
        self.counts.iter().sum()
    }
}

/// Every slider implementation compiled into this build, classical first (the baseline).
fn contenders() -> Vec<Contender> {
    #[allow(unused_mut)]
    let mut all = vec![Contender::new::<Classical>(), Contender::new::<Magic>()];
    #[cfg(target_arch = "x86_64")]
    if crate::attacks::Pext::available() {
        all.push(Contender::new::<crate::attacks::Pext>());
    }
    all
}

/// Runs `work` with every implementation for `rounds` rounds, as `opts` counts (its counting and
/// last-ply code) but single-threaded, alternating the order (forward on even rounds, reversed
/// on odd ones) so that drifts in machine speed hit all alike; with `table_mb` above zero each
/// implementation counts each round through a fresh table of that size (made before its clock
/// starts, so that none profits from another's entries and the set-up is not timed). Returns
/// the contenders and every disagreement found: between rounds, between implementations, or
/// with a published count; a table that cannot be made is one too.
pub fn compare(
    work: &[Work],
    opts: Perft<'static>,
    table_mb: usize,
    rounds: u32,
) -> (Vec<Contender>, Vec<String>) {
    let opts = opts.threads(1).table(None);
    let mut all = contenders();
    let mut problems = Vec::new();
    for round in 0..rounds.max(1) {
        let order: Vec<usize> = if round % 2 == 0 {
            (0..all.len()).collect()
        } else {
            (0..all.len()).rev().collect()
        };
        for i in order {
            let c = &mut all[i];
            let table = match table_mb {
                0 => None,
                mb => match Table::new(mb) {
                    Ok(t) => Some(t),
                    Err(e) => {
                        problems.push(e.to_string());
                        return (all, problems);
                    }
                },
            };
            let opts = opts.table(table.as_ref());
            let start = Instant::now();
            let counts: Vec<Nodes> = work
                .iter()
                .map(|w| (c.run)(&opts, &w.pos, w.depth))
                .collect();
            c.times.push(start.elapsed());
            if round > 0 && c.counts != counts {
                problems.push(format!("{} gave different counts in two rounds", c.name));
            }
            c.counts = counts;
        }
    }
    for c in &all {
        for (w, &n) in work.iter().zip(&c.counts) {
            if let Some(e) = w.expected.filter(|&e| e != n) {
                problems.push(format!(
                    "{}: depth {} of {}: expected {e}, got {n}",
                    c.name,
                    w.depth,
                    w.pos.to_fen()
                ));
            }
        }
        if c.counts != all[0].counts {
            problems.push(format!("{} and {} disagree", c.name, all[0].name));
        }
    }
    (all, problems)
}
