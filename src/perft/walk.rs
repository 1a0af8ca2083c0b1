//! The walk of the tree: the moves made and unmade down to the last plies, in 64-bit counts
//! near the leaves and counts of any size above (`wide`), through the table or not.

use super::NARROW_DEPTH;
use super::copies::Build;
use super::leaf::Leaf;
use crate::attacks::Sliders;
use crate::movegen::{self, MoveList};
use crate::position::Position;
use crate::tt::{Record, Table};
use std::ops::AddAssign;

/// The total of a subtree of at most [`NARROW_DEPTH`] plies, in the copy `B`.
#[inline(always)]
pub(super) fn narrow<S: Sliders, B: Build, L: Leaf>(pos: &mut Position, depth: u32) -> L::Narrow {
    match depth {
        0 => L::ROOT,
        1 => L::one_ply::<S, B>(pos),
        _ => B::bulk::<S, L>(pos, depth),
    }
}

/// The plies of a count more than [`NARROW_DEPTH`] above the leaves: each move made and
/// unmade, its subtree counted by `narrow` once it is that shallow, the results added up as
/// `W` ([`Nodes`], or statistics of them) and, with a table, looked up and stored whole.
///
/// [`Nodes`]: crate::nodes::Nodes
pub(super) fn wide<S: Sliders, N: Record, F>(
    pos: &mut Position,
    depth: u32,
    table: Option<&Table<N>>,
    narrow: &mut F,
) -> N::Wide
where
    N::Wide: Default + AddAssign,
    F: FnMut(&mut Position, u32) -> N::Wide,
{
    if depth <= NARROW_DEPTH {
        return narrow(pos, depth);
    }
    // The second key is computed from the board: only when there is a table to ask.
    let keys = table.map(|_| (pos.key(), pos.key2()));
    if let (Some(t), Some(keys)) = (table, keys)
        && let Some(w) = t.probe_wide(keys, depth)
    {
        return w;
    }
    let moves = movegen::legal_moves::<S>(pos);
    let mut total = N::Wide::default();
    for &mv in &moves {
        let undo = pos.make(mv);
        total += wide::<S, N, F>(pos, depth - 1, table, narrow);
        pos.unmake(mv, &undo);
    }
    if let (Some(t), Some(keys)) = (table, keys) {
        t.store_wide(keys, depth, total);
    }
    total
}

/// The total of the `depth` (>= 2) plies below `pos`: the moves made and unmade down to
/// depth 2, where the last two plies are the kind's own.
#[inline(always)]
pub(super) fn bulk_inner<S: Sliders, B: Build, L: Leaf>(
    pos: &mut Position,
    depth: u32,
) -> L::Narrow {
    match depth {
        2 => L::two_plies::<S, B>(pos),
        3 => L::three_plies::<S, B>(pos),
        _ => each_move::<S, B, L>(pos, depth),
    }
}

/// The total of the `depth` (>= 3) plies below `pos`: each move made, the rest counted by the
/// copy `B`.
#[inline(always)]
pub(super) fn each_move<S: Sliders, B: Build, L: Leaf>(
    pos: &mut Position,
    depth: u32,
) -> L::Narrow {
    // Filled in place: returning the list by value would copy its whole array.
    let mut moves = MoveList::new();
    movegen::generate::<S, MoveList, true>(pos, &mut moves);
    let mut total = L::Narrow::default();
    for &mv in &moves {
        let undo = pos.make(mv);
        total += B::bulk::<S, L>(pos, depth - 1);
        pos.unmake(mv, &undo);
    }
    total
}

/// The total of a narrow subtree through the table: nodes of depth 2 and more are looked up
/// and stored; below depth 2 nothing is, so a depth-2 node's last two plies are the kind's
/// one pass.
#[inline(always)]
pub(super) fn hashed_inner<S: Sliders, B: Build, L: Leaf>(
    pos: &mut Position,
    depth: u32,
    tt: &Table<L::Narrow>,
) -> L::Narrow {
    if depth < 2 {
        return narrow::<S, B, L>(pos, depth);
    }
    let keys = (pos.key(), pos.key2());
    if let Some(n) = tt.probe(keys, depth) {
        return n;
    }
    let total = if depth == 2 {
        L::two_plies::<S, B>(pos)
    } else {
        let mut moves = MoveList::new();
        movegen::generate::<S, MoveList, true>(pos, &mut moves);
        // The children will be looked up: start loading their buckets now, so that the
        // memory latency overlaps the work on their siblings.
        for &mv in &moves {
            tt.prefetch(pos.key_after(mv), depth - 1);
        }
        let mut total = L::Narrow::default();
        for &mv in &moves {
            let undo = pos.make(mv);
            total += B::hashed::<S, L>(pos, depth - 1, tt);
            pos.unmake(mv, &undo);
        }
        total
    };
    tt.store(keys, depth, total);
    total
}
