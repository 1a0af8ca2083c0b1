//! Perft: the number of leaf nodes of the legal move tree to a fixed depth.

use crate::attacks::Sliders;
use crate::movegen::{self, MoveList, Push};
use crate::position::{Board, CastlePaths, Position};
use crate::tt::Table;
use crate::types::Move;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How the last ply is counted.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Counting {
    /// At depth 1, count the legal moves without making them (the usual perft).
    Bulk,
    /// Make every move down to depth 0 and count 1 per leaf: exercises make/unmake everywhere.
    NoBulk,
}

/// Perft of `pos` to `depth` plies (`depth` 0 is one node). The position is restored on return.
pub fn perft<S: Sliders>(pos: &mut Position, depth: u32, counting: Counting) -> u64 {
    match counting {
        Counting::Bulk => perft_bulk::<S>(pos, depth),
        Counting::NoBulk => perft_no_bulk::<S>(pos, depth),
    }
}

/// Perft with bulk counting at the last ply.
pub fn perft_bulk<S: Sliders>(pos: &mut Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => movegen::count_legal::<S>(pos),
        _ => bulk_inner::<S>(pos, depth),
    }
}

/// Perft's last two plies in one pass: each move the generator produces is played on a copy of
/// the board (no square-by-square board, key or undo) and its replies are counted there, with
/// no move list in between.
struct ReplyCounter<'a, S> {
    pos: &'a Position,
    child: Board,
    nodes: u64,
    sliders: PhantomData<S>,
}

impl<S: Sliders> Push for ReplyCounter<'_, S> {
    #[inline(always)]
    fn push(&mut self, mv: Move) {
        self.child.clone_from(self.pos.board());
        self.pos.play_on(mv, &mut self.child);
        self.nodes += count_replies::<S>(&self.child, self.pos.castle_path_table());
    }
}

/// The legal moves on `board`: kept out of line, so that the counter's one copy serves every
/// place the generator hands over moves.
#[inline(never)]
fn count_replies<S: Sliders>(board: &Board, paths: &CastlePaths) -> u64 {
    movegen::count_legal_on::<S>(board, paths)
}

/// Perft of `pos` to depth 2.
#[inline(always)]
fn perft_2<S: Sliders>(pos: &Position) -> u64 {
    let mut counter = ReplyCounter::<S> {
        pos,
        child: *pos.board(),
        nodes: 0,
        sliders: PhantomData,
    };
    movegen::generate::<S, _, true>(pos, &mut counter);
    counter.nodes
}

/// `depth >= 2`.
fn bulk_inner<S: Sliders>(pos: &mut Position, depth: u32) -> u64 {
    if depth == 2 {
        return perft_2::<S>(pos);
    }
    // Filled in place: returning the list by value would copy its whole array.
    let mut moves = MoveList::new();
    movegen::generate::<S, MoveList, true>(pos, &mut moves);
    let mut nodes = 0;
    for &mv in &moves {
        let undo = pos.make(mv);
        nodes += bulk_inner::<S>(pos, depth - 1);
        pos.unmake(mv, &undo);
    }
    nodes
}

/// Perft without bulk counting: every move is made, down to depth 0.
pub fn perft_no_bulk<S: Sliders>(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = MoveList::new();
    movegen::generate::<S, MoveList, true>(pos, &mut moves);
    let mut nodes = 0;
    for &mv in &moves {
        let undo = pos.make(mv);
        nodes += perft_no_bulk::<S>(pos, depth - 1);
        pos.unmake(mv, &undo);
    }
    nodes
}

/// Perft with a transposition table (`depth` >= 0): interior nodes of depth 2 and more are
/// looked up and stored; the last ply is counted as `counting` says.
pub fn perft_hashed<S: Sliders>(
    pos: &mut Position,
    depth: u32,
    counting: Counting,
    tt: &Table,
) -> u64 {
    if depth < 2 {
        return perft::<S>(pos, depth, counting);
    }
    let (key1, key2) = (pos.key(), pos.key2());
    if let Some(n) = tt.probe(key1, key2, depth) {
        return n;
    }
    let nodes = if depth == 2 && counting == Counting::Bulk {
        // Below here nothing is looked up, so the last two plies' cheaper pass applies.
        perft_2::<S>(pos)
    } else {
        let mut moves = MoveList::new();
        movegen::generate::<S, MoveList, true>(pos, &mut moves);
        if depth > 2 {
            // The children will be looked up: start loading their buckets now, so that the
            // memory latency overlaps the work on their siblings.
            for &mv in &moves {
                let undo = pos.make(mv);
                tt.prefetch(pos.key(), depth - 1);
                pos.unmake(mv, &undo);
            }
        }
        let mut nodes = 0;
        for &mv in &moves {
            let undo = pos.make(mv);
            nodes += perft_hashed::<S>(pos, depth - 1, counting, tt);
            pos.unmake(mv, &undo);
        }
        nodes
    };
    tt.store(key1, key2, depth, nodes);
    nodes
}

/// How a perft run is carried out.
#[derive(Clone, Copy)]
pub struct Options<'a> {
    pub counting: Counting,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// The shared transposition table, if hashing.
    pub table: Option<&'a Table>,
}

impl Options<'_> {
    /// One thread, no table.
    pub fn single(counting: Counting) -> Options<'static> {
        Options {
            counting,
            threads: 1,
            table: None,
        }
    }
}

/// Perft of `pos` to `depth` on this thread, through the table if `opts` has one.
fn count<S: Sliders>(pos: &mut Position, depth: u32, opts: &Options<'_>) -> u64 {
    match opts.table {
        Some(tt) => perft_hashed::<S>(pos, depth, opts.counting, tt),
        None => perft::<S>(pos, depth, opts.counting),
    }
}

/// One piece of work: the moves from the root, and the depth left below them.
struct Task {
    path: Vec<Move>,
    depth: u32,
}

/// Splits the tree below `pos` into tasks: the root moves, then one ply deeper while there are
/// fewer than 16 tasks per thread (and at least 3 plies left), so threads stay busy to the end.
fn split<S: Sliders>(pos: &mut Position, depth: u32, threads: usize) -> Vec<Task> {
    let mut tasks: Vec<Task> = movegen::legal_moves::<S>(pos)
        .iter()
        .map(|&mv| Task {
            path: vec![mv],
            depth: depth - 1,
        })
        .collect();
    while tasks.len() < 16 * threads && tasks.iter().all(|t| t.depth >= 3) {
        let mut next = Vec::with_capacity(tasks.len() * 32);
        for t in tasks {
            let undos: Vec<_> = t.path.iter().map(|&mv| (mv, pos.make(mv))).collect();
            for &mv in movegen::legal_moves::<S>(pos).iter() {
                let mut path = t.path.clone();
                path.push(mv);
                next.push(Task {
                    path,
                    depth: t.depth - 1,
                });
            }
            for (mv, undo) in undos.iter().rev() {
                pos.unmake(*mv, undo);
            }
        }
        tasks = next;
    }
    tasks
}

/// The divide (count under each root move, generation order) with `opts`: several threads share
/// the work through an atomic task index, and the table if there is one. `depth` >= 1.
pub fn divide_with<S: Sliders>(pos: &Position, depth: u32, opts: Options<'_>) -> Vec<(Move, u64)> {
    let depth = depth.max(1);
    let mut root = pos.clone();
    let roots: Vec<Move> = movegen::legal_moves::<S>(&root).to_vec();
    if opts.threads <= 1 || depth < 2 {
        return roots
            .iter()
            .map(|&mv| {
                let undo = root.make(mv);
                let n = count::<S>(&mut root, depth - 1, &opts);
                root.unmake(mv, &undo);
                (mv, n)
            })
            .collect();
    }
    let tasks = split::<S>(&mut root, depth, opts.threads);
    let next = AtomicUsize::new(0);
    let results: Vec<Vec<(usize, u64)>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..opts.threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(task) = tasks.get(i) else { break };
                        let mut p = pos.clone();
                        for &mv in &task.path {
                            p.make(mv);
                        }
                        done.push((i, count::<S>(&mut p, task.depth, &opts)));
                    }
                    done
                })
            })
            .collect();
        // A worker only fails by panicking: pass that panic on rather than lose its counts.
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    let mut per_root = vec![0u64; roots.len()];
    for (i, n) in results.into_iter().flatten() {
        let first = tasks[i].path[0];
        if let Some(r) = roots.iter().position(|&m| m == first) {
            per_root[r] += n;
        }
    }
    roots.into_iter().zip(per_root).collect()
}

/// Perft with `opts` (threads, table); depth 0 is one node.
pub fn perft_with<S: Sliders>(pos: &Position, depth: u32, opts: Options<'_>) -> u64 {
    if depth == 0 {
        return 1;
    }
    if opts.threads <= 1 {
        return count::<S>(&mut pos.clone(), depth, &opts);
    }
    divide_with::<S>(pos, depth, opts)
        .iter()
        .map(|(_, n)| n)
        .sum()
}

/// [`divide_with`] as the text users compare: `(UCI move, count)` sorted by move, castling
/// written as the position's rules require.
pub fn divide_uci<S: Sliders>(pos: &Position, depth: u32, opts: Options<'_>) -> Vec<(String, u64)> {
    let mut lines: Vec<(String, u64)> = divide_with::<S>(pos, depth, opts)
        .into_iter()
        .map(|(mv, n)| (mv.to_uci(pos.is_chess960()), n))
        .collect();
    lines.sort();
    lines
}
