//! The descent: from a position whose counts differ, down the first move whose count differs,
//! to the position whose legal moves differ.

use super::report::{ClassifiedMove, MoveClass, Outcome, Report, Step};
use super::{Divide, Failure, Generator, Query};
use crate::attacks::{Magic, Sliders};
use crate::movegen::parse_uci_move;
use crate::nodes::Nodes;
use crate::perft::{Cancelled, Perft, Watch};
use crate::position::Position;
use crate::types::Move;
use std::collections::BTreeMap;

/// Why a descent ([`find_divergence_with`]) stopped without a report.
#[derive(Debug)]
pub enum Stopped {
    /// The generator failed in a way no further query can succeed ([`Failure::fatal`]).
    Fatal(Failure),
    /// The watch was cancelled.
    Cancelled,
}

/// How a descent counts its own side and whom it tells.
pub struct Descent<'a> {
    /// How our divides are counted (threads, table: any counting gives the same counts).
    pub opts: Perft<'a>,
    /// Stops the descent (and our counts) when cancelled; the generator may follow it too.
    pub watch: &'a Watch,
    /// The generator's answer to the first query, if it was already asked.
    pub first: Option<Divide>,
    /// Told the moves and depth of each position before it is compared.
    pub on_step: &'a mut dyn FnMut(&[String], u32),
}

/// Descends from `root` after `moves` (legal moves in UCI notation) at `depth` to the first
/// position where `generator` and this library disagree on the legal moves, counting ours
/// single-threaded. The only error is a fatal [`Failure`]; any other failure of the generator
/// is an [`Outcome::Failed`].
pub fn find_divergence<G: Generator + ?Sized>(
    generator: &mut G,
    root: &Position,
    moves: &[String],
    depth: u32,
) -> Result<Report, Failure> {
    let watch = Watch::new();
    let how = Descent {
        opts: Perft::new(),
        watch: &watch,
        first: None,
        on_step: &mut |_, _| {},
    };
    find_divergence_with::<Magic, G>(generator, root, moves, depth, how).map_err(|e| match e {
        Stopped::Fatal(e) => e,
        Stopped::Cancelled => unreachable!("a watch no one holds is never cancelled"),
    })
}

/// Our divide of `pos` counted with `opts`, which `watch` follows: UCI name to (move, count).
fn our_divide<S: Sliders>(
    pos: &Position,
    depth: u32,
    opts: Perft<'_>,
    watch: &Watch,
) -> Result<BTreeMap<String, (Move, Nodes)>, Cancelled> {
    Ok(opts
        .watch(watch)
        .divide::<S>(pos, depth)?
        .into_iter()
        .map(|(mv, n)| (mv.to_uci(pos.is_chess960()), (mv, n)))
        .collect())
}

/// [`find_divergence`] with our side counted by the sliders `S` and `how`.
pub fn find_divergence_with<S: Sliders, G: Generator + ?Sized>(
    generator: &mut G,
    root: &Position,
    moves: &[String],
    depth: u32,
    how: Descent<'_>,
) -> Result<Report, Stopped> {
    let Descent {
        opts,
        watch,
        mut first,
        on_step,
    } = how;
    // The root in our printing (keeps the castling notation, always six fields).
    let root_fen = root.to_fen();
    let mut pos = root.clone();
    for (i, m) in moves.iter().enumerate() {
        let Ok(mv) = parse_uci_move::<S>(&pos, m) else {
            let error = Failure::new(
                "garbage",
                format!("move {} ('{m}') is not legal here", i + 1),
            );
            return Ok(Report {
                steps: Vec::new(),
                outcome: Outcome::Failed {
                    moves: moves.to_vec(),
                    fen: pos.to_fen(),
                    depth,
                    error,
                },
            });
        };
        pos.make(mv);
    }
    let mut path: Vec<String> = moves.to_vec();
    let mut depth = depth.max(1);
    let mut steps = Vec::new();
    loop {
        on_step(&path, depth);
        let ours =
            our_divide::<S>(&pos, depth, opts, watch).map_err(|Cancelled| Stopped::Cancelled)?;
        let fen = pos.to_fen();
        let answer = match first.take() {
            Some(answer) => Ok(answer),
            None => generator.divide(&Query {
                root_fen: &root_fen,
                moves: &path,
                position: &pos,
                depth,
            }),
        };
        if watch.is_cancelled() {
            return Err(Stopped::Cancelled);
        }
        let theirs = match answer {
            Ok(answer) => answer,
            Err(error) if error.fatal => return Err(Stopped::Fatal(error)),
            Err(error) => {
                let outcome = Outcome::Failed {
                    moves: path,
                    fen,
                    depth,
                    error,
                };
                return Ok(Report { steps, outcome });
            }
        };
        let ours_total: Nodes = ours.values().map(|v| v.1).sum();
        let mut step = Step {
            moves: path.clone(),
            depth,
            ours: ours_total,
            theirs: theirs.total,
            follow: None,
        };
        let classify = |m: &String| ClassifiedMove {
            uci: m.clone(),
            class: MoveClass::of(&pos, m),
        };
        let missed: Vec<ClassifiedMove> = ours
            .keys()
            .filter(|m| !theirs.moves.contains_key(*m))
            .map(classify)
            .collect();
        let invented: Vec<ClassifiedMove> = theirs
            .moves
            .keys()
            .filter(|m| !ours.contains_key(*m))
            .map(classify)
            .collect();
        if !missed.is_empty() || !invented.is_empty() {
            steps.push(step);
            let impossible: Vec<String> = invented
                .iter()
                .filter(|m| m.class == MoveClass::NoSuchPiece)
                .map(|m| m.uci.clone())
                .collect();
            let outcome = if impossible.len() * 2 >= theirs.moves.len().max(1) {
                Outcome::OtherPosition {
                    moves: path,
                    fen,
                    examples: impossible.into_iter().take(4).collect(),
                }
            } else {
                Outcome::MoveListDiffers {
                    moves: path,
                    fen,
                    in_check: pos.board().in_check(),
                    missed,
                    invented,
                    unread: theirs.unread,
                }
            };
            return Ok(Report { steps, outcome });
        }
        let differing = ours
            .iter()
            .find(|(m, (_, n))| theirs.moves.get(*m) != Some(n));
        let outcome = match differing {
            Some((name, &(mv, n))) if depth > 1 => {
                step.follow = Some((name.clone(), theirs.moves[name], n));
                steps.push(step);
                path.push(name.clone());
                pos.make(mv);
                depth -= 1;
                continue;
            }
            Some((name, _)) => Outcome::Inconsistent {
                moves: path,
                fen,
                detail: format!("at depth 1 the count for {name} is {}", theirs.moves[name]),
            },
            None if theirs.total != ours_total => Outcome::TotalDiffers {
                moves: path,
                fen,
                ours: ours_total,
                theirs: theirs.total,
            },
            None if steps.is_empty() => Outcome::Agree { nodes: ours_total },
            None => Outcome::Inconsistent {
                moves: path,
                fen,
                detail: "the counts differed one level up but all agree here".to_string(),
            },
        };
        steps.push(step);
        return Ok(Report { steps, outcome });
    }
}
