//! The walk of the tree: one recursion for every interior node, generic over the table (none,
//! or one) and the kind of leaf; the moves made and unmade down to the last plies, in 64-bit
//! counts near the leaves and counts of any size above (`wide`).

use super::NARROW_DEPTH;
use super::copies::Build;
use super::leaf::Leaf;
use crate::attacks::Sliders;
use crate::movegen::{self, MoveList};
use crate::position::Position;
use crate::tt::{Record, Table};
use crate::types::Move;

/// Where the walk looks a subtree's total up and stores it: [`NoTable`], which compiles to
/// nothing, or a shared [`Table`]. A count chooses once, at the top, and the walk is compiled
/// for that choice.
pub(crate) trait Lookup<N: Record>: Copy {
    /// Whether there is a table: without one, a depth-3 node is counted by its kind's own
    /// pass (the lanes shared by its grandchildren); with one, its depth-2 children are
    /// looked up one by one.
    const HASHED: bool;
    /// The keys of `pos`, computed only when there is a table to ask.
    fn keys(self, pos: &Position) -> (u64, u64);
    /// The total stored for the position with `keys` at `depth`, if any.
    fn probe(self, keys: (u64, u64), depth: u32) -> Option<N>;
    /// Stores the total of the position with `keys` at `depth`.
    fn store(self, keys: (u64, u64), depth: u32, total: N);
    /// Starts loading what [`Lookup::probe`] will read for the child `mv` leads to.
    fn prefetch(self, pos: &Position, mv: Move, depth: u32);
    /// [`Lookup::probe`] of a total of any size.
    fn probe_wide(self, keys: (u64, u64), depth: u32) -> Option<N::Wide>;
    /// [`Lookup::store`] of a total of any size.
    fn store_wide(self, keys: (u64, u64), depth: u32, total: N::Wide);
}

/// No table: every subtree counted.
#[derive(Clone, Copy)]
pub(crate) struct NoTable;

impl<N: Record> Lookup<N> for NoTable {
    const HASHED: bool = false;
    #[inline(always)]
    fn keys(self, _: &Position) -> (u64, u64) {
        (0, 0)
    }
    #[inline(always)]
    fn probe(self, _: (u64, u64), _: u32) -> Option<N> {
        None
    }
    #[inline(always)]
    fn store(self, _: (u64, u64), _: u32, _: N) {}
    #[inline(always)]
    fn prefetch(self, _: &Position, _: Move, _: u32) {}
    #[inline(always)]
    fn probe_wide(self, _: (u64, u64), _: u32) -> Option<N::Wide> {
        None
    }
    #[inline(always)]
    fn store_wide(self, _: (u64, u64), _: u32, _: N::Wide) {}
}

/// The shared table: nodes of depth 2 and more looked up and stored.
impl<N: Record> Lookup<N> for &Table<N> {
    const HASHED: bool = true;
    #[inline(always)]
    fn keys(self, pos: &Position) -> (u64, u64) {
        (pos.key(), pos.key2())
    }
    #[inline(always)]
    fn probe(self, keys: (u64, u64), depth: u32) -> Option<N> {
        Table::probe(self, keys, depth)
    }
    #[inline(always)]
    fn store(self, keys: (u64, u64), depth: u32, total: N) {
        Table::store(self, keys, depth, total)
    }
    #[inline(always)]
    fn prefetch(self, pos: &Position, mv: Move, depth: u32) {
        Table::prefetch(self, pos.key_after(mv), depth)
    }
    fn probe_wide(self, keys: (u64, u64), depth: u32) -> Option<N::Wide> {
        Table::probe_wide(self, keys, depth)
    }
    fn store_wide(self, keys: (u64, u64), depth: u32, total: N::Wide) {
        Table::store_wide(self, keys, depth, total)
    }
}

/// The total of the leaves `depth` plies below `pos` for the kind of count `L`, in the copy
/// `B`, through `table`: the one place a count's width is chosen by depth. Above
/// [`NARROW_DEPTH`] the totals are of any size, below it 64-bit words (see [`NARROW_DEPTH`]).
pub(super) fn count<S: Sliders, B: Build, L: Leaf, T: Lookup<L::Narrow>>(
    pos: &mut Position,
    depth: u32,
    table: T,
) -> L::Wide {
    if depth <= NARROW_DEPTH {
        return narrow::<S, B, L, T>(pos, depth, table).widen();
    }
    let keys = table.keys(pos);
    if let Some(w) = table.probe_wide(keys, depth) {
        return w;
    }
    let moves = movegen::legal_moves::<S>(pos);
    let mut total = L::Wide::default();
    for &mv in &moves {
        let undo = pos.make(mv);
        total += count::<S, B, L, T>(pos, depth - 1, table);
        pos.unmake(mv, &undo);
    }
    table.store_wide(keys, depth, total);
    total
}

/// The total of a subtree of at most [`NARROW_DEPTH`] plies, in the copy `B`: depth 0 and 1
/// are the kind's own, deeper nodes the copy's [`interior`].
#[inline(always)]
pub(super) fn narrow<S: Sliders, B: Build, L: Leaf, T: Lookup<L::Narrow>>(
    pos: &mut Position,
    depth: u32,
    table: T,
) -> L::Narrow {
    match depth {
        0 => L::ROOT,
        1 => L::one_ply::<S, B>(pos),
        _ => B::interior::<S, L, T>(pos, depth, table),
    }
}

/// An interior node of a narrow subtree (`depth` >= 2), through the table if there is one:
/// looked up, else counted (its last two plies, or three without a table, by the kind's own
/// pass; above that each move made) and stored.
#[inline(always)]
pub(super) fn interior<S: Sliders, B: Build, L: Leaf, T: Lookup<L::Narrow>>(
    pos: &mut Position,
    depth: u32,
    table: T,
) -> L::Narrow {
    let keys = table.keys(pos);
    if let Some(n) = table.probe(keys, depth) {
        return n;
    }
    let total = match depth {
        2 => L::two_plies::<S, B>(pos),
        3 if !T::HASHED => L::three_plies::<S, B>(pos),
        _ => each_move::<S, B, L, T>(pos, depth, table),
    };
    table.store(keys, depth, total);
    total
}

/// The total of the `depth` (>= 3) plies below `pos`: each move made, the child counted by
/// the copy's [`interior`].
#[inline(always)]
pub(super) fn each_move<S: Sliders, B: Build, L: Leaf, T: Lookup<L::Narrow>>(
    pos: &mut Position,
    depth: u32,
    table: T,
) -> L::Narrow {
    // Filled in place: returning the list by value would copy its whole array.
    let mut moves = MoveList::new();
    movegen::generate::<S, MoveList, true>(pos, &mut moves);
    if T::HASHED {
        // The children will be looked up: start loading their buckets now, so that the
        // memory latency overlaps the work on their siblings.
        for &mv in &moves {
            table.prefetch(pos, mv, depth - 1);
        }
    }
    let mut total = L::Narrow::default();
    for &mv in &moves {
        let undo = pos.make(mv);
        total += B::interior::<S, L, T>(pos, depth - 1, table);
        pos.unmake(mv, &undo);
    }
    total
}
