//! The kinds of leaf a count adds up: nodes ([`Count`]), nodes with every move made
//! ([`EveryMove`], no bulk counting), and statistics (`crate::stats::Statistics`); what each
//! does at its last plies.

use super::copies::{Build, LastPly};
use super::depth2::perft_2;
use super::walk::{NoTable, each_move};
use crate::attacks::Sliders;
use crate::movegen::{self, MoveList};
use crate::nodes::Nodes;
use crate::position::{Board, CastlePaths, Position};
use crate::tt::Record;
use crate::types::Move;
use crate::unchanged_replies::Inert;
use std::ops::AddAssign;

/// What a count adds up over the leaves of its tree, and how its last plies produce that: the
/// number of leaves ([`Count`], or [`EveryMove`] with every move made) or their statistics
/// ([`crate::stats::Statistics`]). The one walk of the tree (the plies made and unmade, the
/// table, the compiled copies, the threads) is generic over it, so each kind of count is its
/// own compiled code and nothing inside asks which kind it is.
pub(crate) trait Leaf {
    /// The total of a subtree of at most [`NARROW_DEPTH`] plies, in `u64` words; a hashed
    /// count keeps its totals in a `Table` of them.
    ///
    /// [`NARROW_DEPTH`]: super::NARROW_DEPTH
    type Narrow: Record<Wide = Self::Wide> + Default + AddAssign;
    /// The total of any subtree, exact at any size.
    type Wide: Copy + Default + AddAssign + Send;
    /// Whether the last plies are counted in lanes of boards where the copy has them (the
    /// lanes are x86-64's alone): a plain count's, its last ply counted and not made, and the
    /// statistics'; not a count that makes every leaf's move.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    const LANES: bool;
    /// The total of depth 0: the position itself, reached by no move.
    const ROOT: Self::Narrow;
    /// The total of the one leaf the legal move `mv` of `pos` leads to (a divide at depth 1).
    fn of_move<S: Sliders>(pos: &Position, mv: Move) -> Self::Narrow;
    /// The total of the leaves one ply below `pos`, in the copy `B`.
    fn one_ply<S: Sliders, B: Build>(pos: &mut Position) -> Self::Narrow;
    /// The total of the leaves two plies below `pos`, in the copy `B`.
    fn two_plies<S: Sliders, B: Build>(pos: &mut Position) -> Self::Narrow;
    /// The total of the leaves three plies below `pos`, in the copy `B`: by default each move
    /// made and its last two plies counted.
    #[inline(always)]
    fn three_plies<S: Sliders, B: Build>(pos: &mut Position) -> Self::Narrow
    where
        Self: Sized,
    {
        each_move::<S, B, Self, NoTable>(pos, 3, NoTable)
    }
}

/// A kind of count whose last two plies are one pass (see [`ReplyCounter`]): each child board
/// of the depth-2 node is handed here, with no move made.
///
/// [`ReplyCounter`]: super::depth2::ReplyCounter
pub(crate) trait BoardLeaf: Leaf {
    /// Adds the total of the leaves one ply below `board` to `total`. Added in place rather
    /// than returned: a statistics record returned by value was written out whole and then
    /// added field by field at every board.
    fn on_board<S: Sliders>(board: &Board, paths: &CastlePaths, total: &mut Self::Narrow);
    /// The moves of the side to move on `board`, a depth-2 node not in check, that the pass
    /// does not play (see [`crate::unchanged_replies`]): [`BoardLeaf::unplayed`] counts them.
    fn inert<S: Sliders>(board: &Board, paths: &CastlePaths) -> Inert;
    /// Adds to `total` the leaves below the `times` moves of `pos` that [`BoardLeaf::inert`]
    /// let go unplayed, in the copy `B`.
    fn unplayed<S: Sliders, B: Build>(pos: &Position, times: u64, total: &mut Self::Narrow);
}

/// Perft with bulk counting: the last ply's moves counted, not made; the last two plies in one
/// pass over copies of the board, in AVX-512 or AVX2 lanes where the copy has them.
pub(crate) struct Count;

impl Leaf for Count {
    type Narrow = u64;
    type Wide = Nodes;
    const LANES: bool = true;
    const ROOT: u64 = 1;
    fn of_move<S: Sliders>(_: &Position, _: Move) -> u64 {
        1
    }
    #[inline(always)]
    fn one_ply<S: Sliders, B: Build>(pos: &mut Position) -> u64 {
        movegen::count_legal::<S>(pos)
    }
    #[inline(always)]
    fn two_plies<S: Sliders, B: Build>(pos: &mut Position) -> u64 {
        perft_2::<S, B>(pos)
    }
    #[inline(always)]
    fn three_plies<S: Sliders, B: Build>(pos: &mut Position) -> u64 {
        B::LastPly::perft_3::<S, B>(pos)
    }
}

impl BoardLeaf for Count {
    #[inline(always)]
    fn on_board<S: Sliders>(board: &Board, paths: &CastlePaths, total: &mut u64) {
        *total += movegen::count_legal_on::<S>(board, paths);
    }
    #[inline(always)]
    fn inert<S: Sliders>(board: &Board, paths: &CastlePaths) -> Inert {
        Inert::of::<S>(board, paths)
    }
    /// Each unplayed move's replies are those of the board with no move made.
    #[inline(always)]
    fn unplayed<S: Sliders, B: Build>(pos: &Position, times: u64, total: &mut u64) {
        let mut one = 0;
        B::leaf::<S, Self>(&pos.board().passed(), pos.castle_path_table(), &mut one);
        *total += one * times;
    }
}

/// Perft without bulk counting ([`Counting::NoBulk`]): every move made and unmade, down to
/// depth 0, so that make and unmake are exercised on every leaf.
///
/// [`Counting::NoBulk`]: super::Counting::NoBulk
pub(crate) struct EveryMove;

impl Leaf for EveryMove {
    type Narrow = u64;
    type Wide = Nodes;
    const LANES: bool = false;
    const ROOT: u64 = 1;
    fn of_move<S: Sliders>(_: &Position, _: Move) -> u64 {
        1
    }
    fn one_ply<S: Sliders, B: Build>(pos: &mut Position) -> u64 {
        make_each::<S>(pos, 1)
    }
    fn two_plies<S: Sliders, B: Build>(pos: &mut Position) -> u64 {
        make_each::<S>(pos, 2)
    }
}

/// [`EveryMove`]'s last `depth` (1 or 2) plies: each move made and unmade, 1 per leaf.
fn make_each<S: Sliders>(pos: &mut Position, depth: u32) -> u64 {
    let mut moves = MoveList::new();
    movegen::generate::<S, MoveList, true>(pos, &mut moves);
    if depth == 1 {
        for &mv in &moves {
            let undo = pos.make(mv);
            pos.unmake(mv, &undo);
        }
        return moves.len() as u64;
    }
    let mut nodes = 0;
    for &mv in &moves {
        let undo = pos.make(mv);
        nodes += make_each::<S>(pos, depth - 1);
        pos.unmake(mv, &undo);
    }
    nodes
}
