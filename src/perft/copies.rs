//! The compiled copies of the walk: the baseline copy and the x86-64-v3 copy (its last plies
//! one board at a time, or in AVX2 or AVX-512 lanes), chosen once per count, as a type, after
//! which each copy calls only itself.

#[cfg(target_arch = "x86_64")]
use super::depth2::SharedLanes;
#[cfg(target_arch = "x86_64")]
use super::depth2::perft_2_into;
use super::depth2::{OneByOne, perft_2_as};
use super::leaf::{BoardLeaf, Count, Leaf};
use super::walk::{Lookup, NoTable, count, each_move, interior};
use crate::attacks::Sliders;
use crate::cpu::Simd;
#[cfg(target_arch = "x86_64")]
use crate::cpu::SimdKind;
#[cfg(target_arch = "x86_64")]
use crate::lanes::{Lane, Lanes, V256, V512};
#[cfg(target_arch = "x86_64")]
use crate::movegen::{self, MoveList};
use crate::position::{Board, CastlePaths, Position};
#[cfg(target_arch = "x86_64")]
use crate::stats::StatsLanes;
use crate::stats::{Statistics, Stats};
use crate::tt::Table;

/// One compiled copy of a count's hot code: the recursion over the plies of a narrow subtree
/// ([`interior`], with a table or without) and the out-of-line count of the leaves below one
/// board.
/// The same generic code is compiled twice, once as the crate's target allows ([`Baseline`])
/// and once, on x86-64, with the x86-64-v3 instructions enabled (`v3::V3`, with or without the
/// AVX-512 lanes): `blsr` and `andn` in the bit loops, `shrx` in the magic index. Each copy
/// calls only itself, so the choice made at the top holds all the way down.
pub(crate) trait Build {
    /// How this copy counts the last two plies of a plain count: one board at a time, or the
    /// replies in lanes.
    type LastPly: LastPly;
    /// [`interior`] of this copy, `depth >= 2`.
    fn interior<S: Sliders, L: Leaf, T: Lookup<L::Narrow>>(
        pos: &mut Position,
        depth: u32,
        table: T,
    ) -> L::Narrow;
    /// [`BoardLeaf::on_board`] compiled in this copy and kept out of line, so that its one
    /// copy serves every place the generator hands over a board.
    fn leaf<S: Sliders, L: BoardLeaf>(board: &Board, paths: &CastlePaths, total: &mut L::Narrow);
}

/// The copy compiled for the crate's target (x86-64-v2 by default, see `.cargo/config.toml`).
pub(crate) struct Baseline;

impl Build for Baseline {
    type LastPly = OneBoard;
    #[inline(always)]
    fn interior<S: Sliders, L: Leaf, T: Lookup<L::Narrow>>(
        pos: &mut Position,
        depth: u32,
        table: T,
    ) -> L::Narrow {
        interior_baseline::<S, L, T>(pos, depth, table)
    }
    #[inline(always)]
    fn leaf<S: Sliders, L: BoardLeaf>(board: &Board, paths: &CastlePaths, total: &mut L::Narrow) {
        leaf_baseline::<S, L>(board, paths, total)
    }
}

fn interior_baseline<S: Sliders, L: Leaf, T: Lookup<L::Narrow>>(
    pos: &mut Position,
    depth: u32,
    table: T,
) -> L::Narrow {
    interior::<S, Baseline, L, T>(pos, depth, table)
}

#[inline(never)]
fn leaf_baseline<S: Sliders, L: BoardLeaf>(
    board: &Board,
    paths: &CastlePaths,
    total: &mut L::Narrow,
) {
    L::on_board::<S>(board, paths, total)
}

/// The copy for x86-64-v3 CPUs.
#[cfg(target_arch = "x86_64")]
mod v3 {
    use super::{BoardLeaf, Build, LastPly, Leaf, Lookup, interior};
    use crate::attacks::Sliders;
    use crate::position::{Board, CastlePaths, Position};

    /// The x86-64-v3 copy, its last plies counted as `P` says (one board at a time, or in AVX2
    /// or AVX-512 lanes: the AVX-512 lanes' own code is compiled for AVX-512, the rest of the
    /// copy for x86-64-v3).
    pub(super) struct V3<P>(std::marker::PhantomData<P>);

    impl<P: LastPly> Build for V3<P> {
        type LastPly = P;
        #[inline(always)]
        fn interior<S: Sliders, L: Leaf, T: Lookup<L::Narrow>>(
            pos: &mut Position,
            depth: u32,
            table: T,
        ) -> L::Narrow {
            // SAFETY: only called from code of this copy, which runs only where a `Simd` of
            // its kind could be made: the CPU has its instructions (and, with the lanes,
            // AVX-512's).
            unsafe { interior_v3::<S, L, P, T>(pos, depth, table) }
        }
        #[inline(always)]
        fn leaf<S: Sliders, L: BoardLeaf>(
            board: &Board,
            paths: &CastlePaths,
            total: &mut L::Narrow,
        ) {
            // SAFETY: as above.
            unsafe { leaf_v3::<S, L>(board, paths, total) }
        }
    }

    crate::cpu::x86_64_v3! {
        fn interior_v3<S: Sliders, L: Leaf, W: LastPly, T: Lookup<L::Narrow>>(
            pos: &mut Position,
            depth: u32,
            table: T,
        ) -> L::Narrow {
            interior::<S, V3<W>, L, T>(pos, depth, table)
        }
    }

    crate::cpu::x86_64_v3! {
        #[inline(never)]
        fn leaf_v3<S: Sliders, L: BoardLeaf>(
            board: &Board,
            paths: &CastlePaths,
            total: &mut L::Narrow,
        ) {
            L::on_board::<S>(board, paths, total)
        }
    }
}

/// How a compiled copy counts a plain count's last two plies: [`OneBoard`], or, on x86-64, in
/// the lanes of a vector type (`lanes::V512`, `lanes::V256`).
pub(crate) trait LastPly {
    /// Perft of `pos` to depth 2, in the copy `B`.
    fn perft_2<S: Sliders, B: Build>(pos: &Position) -> u64;
    /// Perft of `pos` to depth 3, in the copy `B`.
    fn perft_3<S: Sliders, B: Build>(pos: &mut Position) -> u64;
    /// The statistics of the leaves two plies below `pos`, in the copy `B`.
    fn stats_2<S: Sliders, B: Build>(pos: &Position) -> Stats<u64>;
    /// The statistics of the leaves three plies below `pos`, in the copy `B`.
    fn stats_3<S: Sliders, B: Build>(pos: &mut Position) -> Stats<u64>;
}

/// Every child board's replies counted one board at a time.
pub(crate) struct OneBoard;

impl LastPly for OneBoard {
    #[inline(always)]
    fn perft_2<S: Sliders, B: Build>(pos: &Position) -> u64 {
        perft_2_as::<S, B, Count, _>(pos, OneByOne(0))
    }
    #[inline(always)]
    fn perft_3<S: Sliders, B: Build>(pos: &mut Position) -> u64 {
        each_move::<S, B, Count, NoTable>(pos, 3, NoTable)
    }
    #[inline(always)]
    fn stats_2<S: Sliders, B: Build>(pos: &Position) -> Stats<u64> {
        perft_2_as::<S, B, Statistics, _>(pos, OneByOne(Stats::default()))
    }
    #[inline(always)]
    fn stats_3<S: Sliders, B: Build>(pos: &mut Position) -> Stats<u64> {
        each_move::<S, B, Statistics, NoTable>(pos, 3, NoTable)
    }
}

/// The last two plies in lanes (`T`: the plain count's or the statistics'), whatever the number
/// of pieces. With the batches shared by a depth-3 node's grandchildren they are faster than
/// one board at a time even in a five-piece ending. Where a table looks up each depth-2 node,
/// each fills batches of its own, the last of them part-empty: the plain count is then no
/// slower than one board at a time (a ten-piece ending), and the statistics are faster in
/// AVX-512 lanes, now that the lanes count most direct checks themselves, and level with it in
/// AVX2 lanes (docs/performance.md).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn lanes_2<S: Sliders, B: Build, L: Leaf, T: SharedLanes<L>>(pos: &Position) -> L::Narrow {
    // SAFETY: a copy counting in lanes runs only where a `Simd` of their kind could be made:
    // the CPU has their instructions.
    let lanes = unsafe { T::of_side(pos.board(), !pos.side_to_move()) };
    perft_2_as::<S, B, L, _>(pos, lanes)
}

/// As [`lanes_2`], to depth 3: the grandchildren of all of `pos`'s children share the lanes.
/// A batch is flushed when full, before boards whose side to move has its king elsewhere or a
/// knight on a new square (after a king or knight move at `pos`), and at the end, so that the
/// batches are full but for the last, instead of one part-filled batch for each child.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn lanes_3<S: Sliders, B: Build, L: Leaf, T: SharedLanes<L>>(pos: &mut Position) -> L::Narrow {
    let mut moves = MoveList::new();
    movegen::generate::<S, MoveList, true>(pos, &mut moves);
    // SAFETY: as in `lanes_2`: the CPU has the lanes' instructions.
    let mut lanes = unsafe { T::of_side(pos.board(), pos.side_to_move()) };
    for &mv in &moves {
        let undo = pos.make(mv);
        lanes.rebase::<S, B>(pos.board(), pos.castle_path_table());
        perft_2_into::<S, B, L, _>(pos, &mut lanes);
        pos.unmake(mv, &undo);
    }
    lanes.finish::<S, B>(pos.castle_path_table())
}

/// The lanes of a vector type (`V512`, AVX-512's; `V256`, AVX2's): the plain count and the
/// statistics.
#[cfg(target_arch = "x86_64")]
impl<V: Lane> LastPly for V {
    #[inline(always)]
    fn perft_2<S: Sliders, B: Build>(pos: &Position) -> u64 {
        lanes_2::<S, B, Count, Lanes<V>>(pos)
    }
    #[inline(always)]
    fn perft_3<S: Sliders, B: Build>(pos: &mut Position) -> u64 {
        lanes_3::<S, B, Count, Lanes<V>>(pos)
    }
    #[inline(always)]
    fn stats_2<S: Sliders, B: Build>(pos: &Position) -> Stats<u64> {
        lanes_2::<S, B, Statistics, StatsLanes<V>>(pos)
    }
    #[inline(always)]
    fn stats_3<S: Sliders, B: Build>(pos: &mut Position) -> Stats<u64> {
        lanes_3::<S, B, Statistics, StatsLanes<V>>(pos)
    }
}

/// The total of the leaves `depth` plies below `pos` for the kind of count `L`, on this thread,
/// through `table` if there is one, in the copy of the code `simd` names: the one choice of
/// copy, made here, after which each copy calls only itself.
pub(crate) fn count_leaves<S: Sliders, L: Leaf>(
    pos: &mut Position,
    depth: u32,
    table: Option<&Table<L::Narrow>>,
    simd: Simd,
) -> L::Wide {
    match simd.kind() {
        // SAFETY (of what the copies' `Build` methods assume): a `Simd` of these kinds is only
        // made where the CPU runs them.
        #[cfg(target_arch = "x86_64")]
        SimdKind::Avx512 if L::LANES && simd.lanes() => {
            count_in::<S, v3::V3<V512>, L>(pos, depth, table)
        }
        #[cfg(target_arch = "x86_64")]
        SimdKind::Avx2 if L::LANES && simd.lanes() => {
            count_in::<S, v3::V3<V256>, L>(pos, depth, table)
        }
        #[cfg(target_arch = "x86_64")]
        SimdKind::Avx512 | SimdKind::Avx2 => count_in::<S, v3::V3<OneBoard>, L>(pos, depth, table),
        _ => count_in::<S, Baseline, L>(pos, depth, table),
    }
}

/// [`count_leaves`] in the copy `B`, with the table or without: chosen here, as a type.
pub(super) fn count_in<S: Sliders, B: Build, L: Leaf>(
    pos: &mut Position,
    depth: u32,
    table: Option<&Table<L::Narrow>>,
) -> L::Wide {
    match table {
        Some(tt) => count::<S, B, L, _>(pos, depth, tt),
        None => count::<S, B, L, _>(pos, depth, NoTable),
    }
}
