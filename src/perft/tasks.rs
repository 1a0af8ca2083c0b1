//! Counts on several threads: the tree split into tasks, the pool running them, the divide and
//! the total summed from them; a `Watch` to follow a count and cancel it.

use super::copies::count_leaves;
use super::leaf::Leaf;
use crate::attacks::Sliders;
use crate::cpu::Simd;
use crate::movegen;
use crate::position::Position;
use crate::tt::{Record, Table};
use crate::types::Move;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The total of the leaves `depth` plies below `pos` for the kind of count `L`, through `table`
/// if any, in the copy `simd` names: depth 0 is the root itself; on one thread (or at depth 1)
/// with nothing to follow counted directly, else the divide's root moves summed.
pub(crate) fn total_leaves<S: Sliders, L: Leaf, F: Follow>(
    pos: &Position,
    depth: u32,
    threads: usize,
    table: Option<&Table<L::Narrow>>,
    simd: Simd,
    follow: &F,
) -> L::Wide {
    if depth == 0 {
        return L::ROOT.widen();
    }
    if !F::TASKS && (threads <= 1 || depth == 1) {
        return count_leaves::<S, L>(&mut pos.clone(), depth, table, simd);
    }
    let mut total = L::Wide::default();
    for (_, n) in divide_leaves::<S, L, F>(pos, depth, threads, table, simd, follow) {
        total += n;
    }
    total
}

/// One piece of work: the moves from the root, and the depth left below them.
pub(crate) struct Task {
    pub(crate) path: Vec<Move>,
    pub(crate) depth: u32,
}

/// The deepest task [`split`] leaves whole once every thread has 16.
const DEEP_TASK: u32 = 7;

/// Splits the tree below `pos` into tasks: the root moves, then one ply deeper while there are
/// fewer than 16 tasks per thread (and at least 3 plies left), so threads stay busy to the end.
/// Tasks more than [`DEEP_TASK`] plies deep are split further (up to 1024 per thread): such a
/// task takes seconds to minutes, and the last one to finish leaves the other threads idle
/// (the start position's perft 10 on two threads had 400 tasks of eight plies; unhashed, the
/// largest of them is 3.8 times the average).
///
/// Every pass takes a ply off the tasks' depth, so the loop ends within `depth` passes. An empty
/// list ends it at once: a position without legal moves, or a tree whose every line ends in
/// mate or stalemate a few plies down, has no tasks left to deepen (the deepening condition
/// alone held for ever there).
pub(crate) fn split<S: Sliders>(pos: &mut Position, depth: u32, threads: usize) -> Vec<Task> {
    // Every task of a pass has the same depth: `left`.
    let mut left = depth - 1;
    let mut tasks: Vec<Task> = movegen::legal_moves::<S>(pos)
        .iter()
        .map(|&mv| Task {
            path: vec![mv],
            depth: left,
        })
        .collect();
    while !tasks.is_empty()
        && left >= 3
        && (tasks.len() < 16 * threads || (left > DEEP_TASK && tasks.len() < 1024 * threads))
    {
        left -= 1;
        let mut next = Vec::with_capacity(tasks.len() * 32);
        for t in tasks {
            let undos: Vec<_> = t.path.iter().map(|&mv| (mv, pos.make(mv))).collect();
            for &mv in movegen::legal_moves::<S>(pos).iter() {
                let mut path = t.path.clone();
                path.push(mv);
                next.push(Task { path, depth: left });
            }
            for (mv, undo) in undos.iter().rev() {
                pos.unmake(*mv, undo);
            }
        }
        tasks = next;
    }
    tasks
}

/// The divide of `pos` for the kind of count `L` (its total under each root move, generation
/// order), through `table` if any, in the copy `simd` names: at depth 1 (or 0) each root move's
/// own leaf; deeper, on `threads` threads of the pool through tasks (the tree split below `pos`,
/// see [`split`]; `follow` told of them), or, on one thread with nothing to follow, root move by
/// root move.
pub(crate) fn divide_leaves<S: Sliders, L: Leaf, F: Follow>(
    pos: &Position,
    depth: u32,
    threads: usize,
    table: Option<&Table<L::Narrow>>,
    simd: Simd,
    follow: &F,
) -> Vec<(Move, L::Wide)> {
    let mut root = pos.clone();
    let roots: Vec<Move> = movegen::legal_moves::<S>(&root).to_vec();
    if depth <= 1 {
        return roots
            .iter()
            .map(|&mv| (mv, L::of_move::<S>(&root, mv).widen()))
            .collect();
    }
    if threads <= 1 && !F::TASKS {
        return roots
            .iter()
            .map(|&mv| {
                let undo = root.make(mv);
                let n = count_leaves::<S, L>(&mut root, depth - 1, table, simd);
                root.unmake(mv, &undo);
                (mv, n)
            })
            .collect();
    }
    let tasks = split::<S>(&mut root, depth, threads.max(1));
    follow.starting(tasks.len());
    let done = run_tasks(pos, &tasks, threads, follow, |p, d| {
        count_leaves::<S, L>(p, d, table, simd)
    });
    per_root(&roots, &tasks, done)
}

/// Lets another thread follow a count and stop it: the count, split into tasks, says how many
/// it has and how many are done, and takes no new task once [`Watch::cancel`] was called.
#[derive(Debug, Default)]
pub struct Watch {
    cancelled: AtomicBool,
    done: AtomicUsize,
    total: AtomicUsize,
}

impl Watch {
    /// A watch for a count that has not started.
    pub fn new() -> Watch {
        Watch::default()
    }

    /// Asks the count to stop: the tasks running finish, no other starts.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    /// Whether [`Watch::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// The tasks of the count running now: (done, all of them); (0, 0) before it has split.
    pub fn progress(&self) -> (usize, usize) {
        (
            self.done.load(Ordering::Relaxed),
            self.total.load(Ordering::Relaxed),
        )
    }
}

/// A count stopped by [`Watch::cancel`] before it finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cancelled;

impl std::fmt::Display for Cancelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the count was cancelled")
    }
}

impl std::error::Error for Cancelled {}

mod sealed {
    pub trait Sealed {}
    impl Sealed for () {}
    impl Sealed for super::Watch {}
}

/// What follows a count split into tasks (see [`Perft::watch`](super::Perft::watch)): `()`,
/// nothing, which compiles to nothing; or a [`Watch`], which counts the tasks and can stop
/// them. Sealed.
pub trait Follow: Sync + sealed::Sealed {
    /// What a count followed this way returns: the count itself, or `Err(Cancelled)` for a
    /// count a [`Watch`] stopped.
    type Out<X>;
    /// Whether the count goes through tasks on one thread too (so that it can be followed).
    #[doc(hidden)]
    const TASKS: bool;
    /// Told of the number of tasks before the first starts.
    #[doc(hidden)]
    fn starting(&self, tasks: usize);
    /// Asked before each task starts whether to stop.
    #[doc(hidden)]
    fn stopped(&self) -> bool;
    /// Told of each finished task.
    #[doc(hidden)]
    fn finished_one(&self);
    /// What a count that produced `x` returns.
    #[doc(hidden)]
    fn outcome<X>(&self, x: X) -> Self::Out<X>;
}

impl Follow for () {
    type Out<X> = X;
    const TASKS: bool = false;
    #[inline(always)]
    fn starting(&self, _: usize) {}
    #[inline(always)]
    fn stopped(&self) -> bool {
        false
    }
    #[inline(always)]
    fn finished_one(&self) {}
    #[inline(always)]
    fn outcome<X>(&self, x: X) -> X {
        x
    }
}

impl Follow for Watch {
    type Out<X> = Result<X, Cancelled>;
    const TASKS: bool = true;
    fn starting(&self, tasks: usize) {
        self.done.store(0, Ordering::Relaxed);
        self.total.store(tasks, Ordering::Relaxed);
    }
    fn stopped(&self) -> bool {
        self.is_cancelled()
    }
    fn finished_one(&self) {
        self.done.fetch_add(1, Ordering::Relaxed);
    }
    fn outcome<X>(&self, x: X) -> Result<X, Cancelled> {
        if self.is_cancelled() {
            Err(Cancelled)
        } else {
            Ok(x)
        }
    }
}

/// Counts every task with `count` (given the task's position and depth) on `threads` threads of
/// the pool; the results with their task's index. `follow` is told of each finished task, and
/// no task starts once it says stop.
pub(crate) fn run_tasks<T: Send, F: Follow>(
    pos: &Position,
    tasks: &[Task],
    threads: usize,
    follow: &F,
    count: impl Fn(&mut Position, u32) -> T + Sync,
) -> Vec<(usize, T)> {
    crate::pool::run(tasks.len(), threads, |i| {
        if follow.stopped() {
            return ControlFlow::Break(());
        }
        let task = &tasks[i];
        let mut p = pos.clone();
        for &mv in &task.path {
            p.make(mv);
        }
        let n = count(&mut p, task.depth);
        follow.finished_one();
        ControlFlow::Continue(n)
    })
}

/// The tasks' results added up under the root move each task starts with, in `roots`' order.
pub(crate) fn per_root<T: Default + std::ops::AddAssign>(
    roots: &[Move],
    tasks: &[Task],
    done: Vec<(usize, T)>,
) -> Vec<(Move, T)> {
    let mut sums: Vec<(Move, T)> = roots.iter().map(|&m| (m, T::default())).collect();
    for (i, n) in done {
        let first = tasks[i].path[0];
        if let Some(r) = roots.iter().position(|&m| m == first) {
            sums[r].1 += n;
        }
    }
    sums
}

#[cfg(test)]
mod tests {
    use super::split;
    use crate::attacks::Magic;
    use crate::position::Position;

    /// The tasks of the start position, against the published perft 2 (400) and 3 (8902): a
    /// count of nine plies keeps 400 tasks of seven (two threads have 16 each); one of ten is
    /// split once more, its tasks of eight plies being deeper than [`super::DEEP_TASK`]; one of
    /// twelve stops at the cap of 1024 tasks per thread.
    #[test]
    fn deep_counts_are_split_finer() {
        let mut pos = Position::startpos();
        let shape = |pos: &mut Position, depth, threads| {
            let tasks = split::<Magic>(pos, depth, threads);
            let depths: Vec<u32> = tasks.iter().map(|t| t.depth).collect();
            assert!(depths.iter().all(|&d| d == depths[0]));
            (tasks.len(), depths[0])
        };
        assert_eq!(shape(&mut pos, 6, 2), (400, 4));
        assert_eq!(shape(&mut pos, 9, 2), (400, 7));
        assert_eq!(shape(&mut pos, 10, 2), (8902, 7));
        assert_eq!(shape(&mut pos, 12, 2), (8902, 9));
        assert_eq!(shape(&mut pos, 10, 64), (8902, 7));
        assert_eq!(shape(&mut pos, 10, 1), (8902, 7));
        assert_eq!(pos, Position::startpos());
    }
}
