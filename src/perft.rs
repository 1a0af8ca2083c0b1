//! Perft: the number of leaf nodes of the legal move tree to a fixed depth.

use crate::attacks::Sliders;
use crate::bitboard::Bitboard;
use crate::cpu::Simd;
#[cfg(target_arch = "x86_64")]
use crate::cpu::SimdKind;
use crate::inert::Inert;
use crate::movegen::{self, MoveList, PawnTargets, Sink};
use crate::nodes::Nodes;
use crate::position::{Board, CastlePaths, Position};
use crate::tt::{Record, Table};
use crate::types::{Move, MoveKind, PieceKind, Square};
use std::marker::PhantomData;
use std::ops::{AddAssign, ControlFlow};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// How the last ply is counted.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Counting {
    /// At depth 1, count the legal moves without making them (the usual perft).
    Bulk,
    /// Make every move down to depth 0 and count 1 per leaf: exercises make/unmake everywhere.
    NoBulk,
}

internal! {
    /// Subtrees of this many plies or fewer are counted in `u64`, deeper ones in [`Nodes`]: every
    /// position the parser accepts has fewer than [`movegen::MAX_MOVES`] = 1104 legal moves, and
    /// 1104^6 < 2^64, so no count of six plies can overflow a `u64` (see [`crate::nodes`]). The
    /// plies above are made and unmade one by one (`wide`), so the hot code never adds wide
    /// numbers and never checks for overflow.
    pub const NARROW_DEPTH: u32 = 6;
}
const _: () = assert!((movegen::MAX_MOVES as u128).pow(NARROW_DEPTH) < 1 << 64);

/// Perft of `pos` to `depth` plies (`depth` 0 is one node), exact at any depth, on this
/// thread with the widest last-ply code the CPU runs ([`Simd::detect`]). The position is
/// restored on return.
///
/// ```
/// use perft::perft::{Counting, perft};
/// use perft::{Classical, Magic, Nodes, Position};
///
/// // The start position's published counts, with either slider implementation.
/// let mut pos = Position::from_fen(perft::position::STARTPOS).unwrap();
/// assert_eq!(perft::<Magic>(&mut pos, 5, Counting::Bulk), Nodes::from(4_865_609u64));
/// assert_eq!(perft::<Classical>(&mut pos, 3, Counting::NoBulk), Nodes::from(8_902u64));
/// ```
pub fn perft<S: Sliders>(pos: &mut Position, depth: u32, counting: Counting) -> Nodes {
    perft_with::<S>(pos, depth, Options::single(counting))
}

/// What a count adds up over the leaves of its tree, and how its last plies produce that: the
/// number of leaves ([`Count`], or [`EveryMove`] with every move made) or their statistics
/// ([`crate::stats::Statistics`]). The one walk of the tree (the plies made and unmade, the
/// table, the compiled copies, the threads) is generic over it, so each kind of count is its
/// own compiled code and nothing inside asks which kind it is.
pub(crate) trait Leaf {
    /// The total of a subtree of at most [`NARROW_DEPTH`] plies, in `u64` words; a hashed
    /// count keeps its totals in a `Table` of them.
    type Narrow: Record<Wide = Self::Wide> + Default + AddAssign;
    /// The total of any subtree, exact at any size.
    type Wide: Copy + Default + AddAssign + Send;
    /// Whether a leaf adds only 1 to the total (a plain count, its last ply counted and not
    /// made): then all leaves are alike, so the last ply may be counted in lanes of boards
    /// where the copy has them (the lanes are x86-64's alone).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    const PLAIN: bool;
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
        each_move::<S, B, Self>(pos, 3)
    }
}

/// A kind of count whose last two plies are one pass (see [`ReplyCounter`]): each child board
/// of the depth-2 node is handed here, with no move made.
pub(crate) trait BoardLeaf: Leaf {
    /// Adds the total of the leaves one ply below `board` to `total`. Added in place rather
    /// than returned: a statistics record returned by value was written out whole and then
    /// added field by field at every board.
    fn on_board<S: Sliders>(board: &Board, paths: &CastlePaths, total: &mut Self::Narrow);
    /// The moves of the side to move on `board`, a depth-2 node not in check, that the pass
    /// does not play (see [`crate::inert`]): [`BoardLeaf::unplayed`] counts them.
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
    const PLAIN: bool = true;
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
pub(crate) struct EveryMove;

impl Leaf for EveryMove {
    type Narrow = u64;
    type Wide = Nodes;
    const PLAIN: bool = false;
    const ROOT: u64 = 1;
    fn of_move<S: Sliders>(_: &Position, _: Move) -> u64 {
        1
    }
    fn one_ply<S: Sliders, B: Build>(pos: &mut Position) -> u64 {
        every_move::<S>(pos, 1)
    }
    fn two_plies<S: Sliders, B: Build>(pos: &mut Position) -> u64 {
        every_move::<S>(pos, 2)
    }
}

/// [`EveryMove`]'s count of the `depth` plies below `pos`.
fn every_move<S: Sliders>(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = MoveList::new();
    movegen::generate::<S, MoveList, true>(pos, &mut moves);
    let mut nodes = 0;
    for &mv in &moves {
        let undo = pos.make(mv);
        nodes += every_move::<S>(pos, depth - 1);
        pos.unmake(mv, &undo);
    }
    nodes
}

/// The total of a subtree of at most [`NARROW_DEPTH`] plies, in the copy `B`.
#[inline(always)]
fn narrow<S: Sliders, B: Build, L: Leaf>(pos: &mut Position, depth: u32) -> L::Narrow {
    match depth {
        0 => L::ROOT,
        1 => L::one_ply::<S, B>(pos),
        _ => B::bulk::<S, L>(pos, depth),
    }
}

/// The plies of a count more than [`NARROW_DEPTH`] above the leaves: each move made and
/// unmade, its subtree counted by `narrow` once it is that shallow, the results added up as
/// `W` ([`Nodes`], or statistics of them) and, with a table, looked up and stored whole.
fn wide<S: Sliders, N: Record, F>(
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

/// One compiled copy of a count's hot code: the recursion over the plies of a narrow subtree
/// ([`bulk_inner`], [`hashed_inner`]) and the out-of-line count of the leaves below one board.
/// The same generic code is compiled twice, once as the crate's target allows ([`Baseline`])
/// and once, on x86-64, with the x86-64-v3 instructions enabled (`v3::V3`, with or without the
/// AVX-512 lanes): `blsr` and `andn` in the bit loops, `shrx` in the magic index. Each copy
/// calls only itself, so the choice made at the top holds all the way down.
pub(crate) trait Build {
    /// How this copy counts the last two plies of a plain count: one board at a time, or the
    /// replies in lanes.
    type LastPly: LastPly;
    /// [`bulk_inner`] of this copy, `depth >= 2`.
    fn bulk<S: Sliders, L: Leaf>(pos: &mut Position, depth: u32) -> L::Narrow;
    /// [`BoardLeaf::on_board`] compiled in this copy and kept out of line, so that its one
    /// copy serves every place the generator hands over a board.
    fn leaf<S: Sliders, L: BoardLeaf>(board: &Board, paths: &CastlePaths, total: &mut L::Narrow);
    /// [`hashed_inner`] of this copy.
    fn hashed<S: Sliders, L: Leaf>(
        pos: &mut Position,
        depth: u32,
        tt: &Table<L::Narrow>,
    ) -> L::Narrow;
}

/// The copy compiled for the crate's target (x86-64-v2 by default, see `.cargo/config.toml`).
pub(crate) struct Baseline;

impl Build for Baseline {
    type LastPly = OneBoard;
    #[inline(always)]
    fn bulk<S: Sliders, L: Leaf>(pos: &mut Position, depth: u32) -> L::Narrow {
        bulk_baseline::<S, L>(pos, depth)
    }
    #[inline(always)]
    fn leaf<S: Sliders, L: BoardLeaf>(board: &Board, paths: &CastlePaths, total: &mut L::Narrow) {
        leaf_baseline::<S, L>(board, paths, total)
    }
    #[inline(always)]
    fn hashed<S: Sliders, L: Leaf>(
        pos: &mut Position,
        depth: u32,
        tt: &Table<L::Narrow>,
    ) -> L::Narrow {
        hashed_inner::<S, Baseline, L>(pos, depth, tt)
    }
}

fn bulk_baseline<S: Sliders, L: Leaf>(pos: &mut Position, depth: u32) -> L::Narrow {
    bulk_inner::<S, Baseline, L>(pos, depth)
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
    use super::{BoardLeaf, Build, LastPly, Leaf, bulk_inner, hashed_inner};
    use crate::attacks::Sliders;
    use crate::position::{Board, CastlePaths, Position};
    use crate::tt::Table;

    /// The x86-64-v3 copy, its last plies counted as `P` says (one board at a time, or in AVX2
    /// or AVX-512 lanes: the AVX-512 lanes' own code is compiled for AVX-512, the rest of the
    /// copy for x86-64-v3).
    pub(super) struct V3<P>(std::marker::PhantomData<P>);

    impl<P: LastPly> Build for V3<P> {
        type LastPly = P;
        #[inline(always)]
        fn bulk<S: Sliders, L: Leaf>(pos: &mut Position, depth: u32) -> L::Narrow {
            // SAFETY: only called from code of this copy, which runs only where a `Simd` of
            // its kind could be made: the CPU has its instructions (and, with the lanes,
            // AVX-512's).
            unsafe { bulk_v3::<S, L, P>(pos, depth) }
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
        #[inline(always)]
        fn hashed<S: Sliders, L: Leaf>(
            pos: &mut Position,
            depth: u32,
            tt: &Table<L::Narrow>,
        ) -> L::Narrow {
            // SAFETY: as above.
            unsafe { hashed_v3::<S, L, P>(pos, depth, tt) }
        }
    }

    #[target_feature(enable = "avx,avx2,bmi1,bmi2,lzcnt,fma,movbe")]
    fn bulk_v3<S: Sliders, L: Leaf, W: LastPly>(pos: &mut Position, depth: u32) -> L::Narrow {
        bulk_inner::<S, V3<W>, L>(pos, depth)
    }

    #[target_feature(enable = "avx,avx2,bmi1,bmi2,lzcnt,fma,movbe")]
    fn hashed_v3<S: Sliders, L: Leaf, W: LastPly>(
        pos: &mut Position,
        depth: u32,
        tt: &Table<L::Narrow>,
    ) -> L::Narrow {
        hashed_inner::<S, V3<W>, L>(pos, depth, tt)
    }

    #[target_feature(enable = "avx,avx2,bmi1,bmi2,lzcnt,fma,movbe")]
    #[inline(never)]
    fn leaf_v3<S: Sliders, L: BoardLeaf>(
        board: &Board,
        paths: &CastlePaths,
        total: &mut L::Narrow,
    ) {
        L::on_board::<S>(board, paths, total)
    }
}

/// Perft's last two plies in one pass: each move the generator produces is played on a copy of
/// the board (no square-by-square board, key or undo) and the child board is handed to `leaves`
/// (which counts its moves, or their statistics), with no move list in between. The moves are
/// never encoded: each is played by the player for its kind of move, with the moving piece as
/// the generator gives it, so no move kind is decoded and no moving piece looked up. The quiet
/// moves that cannot change what the opponent's replies add up to (their number; for
/// statistics, also their captures and checks) are not played at all: the board with no move
/// made is handed over once, to count as many times as they are many.
struct ReplyCounter<'a, S, B, L, V> {
    pos: &'a Position,
    leaves: V,
    /// The moves not played, whose replies are those of the board with no move made.
    inert: Inert,
    /// How many moves [`ReplyCounter::inert`] let go unplayed.
    passes: u64,
    build: PhantomData<(S, B, L)>,
}

/// Where the depth-2 pass hands each child board to be counted.
pub(crate) trait Leaves<L: Leaf> {
    /// Counts (now or later) the leaves below `board`.
    fn push<S: Sliders, B: Build>(&mut self, board: &Board, paths: &CastlePaths);
    /// Counts what is left; the total of every board pushed.
    fn finish(&mut self, paths: &CastlePaths) -> L::Narrow;
    /// Counts (now or later) the leaves below the `times` moves of `pos` (a depth-2 node) that
    /// [`Leaves::inert`] let go unplayed. Called once per node, after its last `push`.
    fn push_unplayed<S: Sliders, B: Build>(&mut self, pos: &Position, times: u64);
    /// The moves of the side to move on `board`, a depth-2 node not in check, whose child
    /// boards are not pushed but counted by [`Leaves::push_unplayed`] (see [`crate::inert`]).
    /// Called before the node's first `push`.
    fn inert<S: Sliders, B: Build>(&mut self, board: &Board, paths: &CastlePaths) -> Inert;
}

/// One board at a time, by the build's out-of-line [`Build::leaf`].
pub(crate) struct OneByOne<N>(pub(crate) N);

impl<L: BoardLeaf> Leaves<L> for OneByOne<L::Narrow> {
    #[inline(always)]
    fn push<S: Sliders, B: Build>(&mut self, board: &Board, paths: &CastlePaths) {
        B::leaf::<S, L>(board, paths, &mut self.0);
    }
    #[inline(always)]
    fn finish(&mut self, _: &CastlePaths) -> L::Narrow {
        self.0
    }
    #[inline(always)]
    fn push_unplayed<S: Sliders, B: Build>(&mut self, pos: &Position, times: u64) {
        L::unplayed::<S, B>(pos, times, &mut self.0);
    }
    #[inline(always)]
    fn inert<S: Sliders, B: Build>(&mut self, board: &Board, paths: &CastlePaths) -> Inert {
        L::inert::<S>(board, paths)
    }
}

#[cfg(target_arch = "x86_64")]
impl<V: crate::lanes::Lane> Leaves<Count> for crate::lanes::Lanes<V> {
    #[inline(always)]
    fn push<S: Sliders, B: Build>(&mut self, board: &Board, paths: &CastlePaths) {
        crate::lanes::Lanes::push::<S>(self, board, paths);
    }
    #[inline(always)]
    fn finish(&mut self, paths: &CastlePaths) -> u64 {
        crate::lanes::Lanes::finish(self, paths)
    }
    #[inline(always)]
    fn push_unplayed<S: Sliders, B: Build>(&mut self, pos: &Position, times: u64) {
        crate::lanes::Lanes::push_times::<S>(
            self,
            &pos.board().passed(),
            pos.castle_path_table(),
            times,
        );
    }
    #[inline(always)]
    fn inert<S: Sliders, B: Build>(&mut self, board: &Board, paths: &CastlePaths) -> Inert {
        <Count as BoardLeaf>::inert::<S>(board, paths)
    }
}

impl<S: Sliders, B: Build, L: Leaf, V: Leaves<L>> ReplyCounter<'_, S, B, L, V> {
    /// Hands over the board after the move `play` plays on a copy of the board.
    #[inline(always)]
    fn count_after(&mut self, play: impl FnOnce(&Position, &mut Board)) {
        let mut child = *self.pos.board();
        play(self.pos, &mut child);
        self.leaves
            .push::<S, B>(&child, self.pos.castle_path_table());
    }

    /// Hands over the board the move `play` writes whole (no copy first: the players of
    /// piece moves, double pushes and promotions write every field). The child is a local
    /// value, not a field of the pass, so that where the lanes take it the compiler can keep
    /// it in registers and store only the lanes' words (see `lanes::Lanes::push_times`).
    #[inline(always)]
    fn count_fresh(&mut self, play: impl FnOnce(&Position, &mut Board)) {
        let mut child = Board::BLANK;
        play(self.pos, &mut child);
        self.leaves
            .push::<S, B>(&child, self.pos.castle_path_table());
    }
}

/// Each move's player is a closure marked `#[inline(always)]`: left to the compiler, once the
/// pass became generic over the kind of count it called them out of line, and two threads
/// counted the start position's perft 7 a fifth slower (docs/performance.md).
impl<S: Sliders, B: Build, L: Leaf, V: Leaves<L>> Sink for ReplyCounter<'_, S, B, L, V> {
    /// Every move counts separately in check; else the inert moves are found here, with the
    /// checkers the generator has already worked out.
    #[inline(always)]
    fn checkers(&mut self, checkers: Bitboard) {
        if checkers.is_empty() {
            self.inert = self
                .leaves
                .inert::<S, B>(self.pos.board(), self.pos.castle_path_table());
        }
    }

    #[inline(always)]
    fn piece_moves(&mut self, kind: PieceKind, from: Square, targets: Bitboard, enemies: Bitboard) {
        for to in targets & enemies {
            self.count_fresh(
                #[inline(always)]
                |pos, b| pos.play_piece_move_on(kind, from, to, true, b),
            );
        }
        // The quiet moves that cannot change the replies are not played (see `crate::inert`).
        let quiet = targets - enemies;
        let passed = self.inert.unplayed(kind, from, quiet);
        self.passes += u64::from(passed.count());
        for to in quiet - passed {
            self.count_fresh(
                #[inline(always)]
                |pos, b| pos.play_piece_move_on(kind, from, to, false, b),
            );
        }
    }

    #[inline(always)]
    fn pawns(&mut self, t: &PawnTargets) {
        // The pushes that cannot change the replies are not played (see `crate::inert`).
        let mut t = *t;
        let (single, double) = self.inert.unplayed_pushes(&t);
        t.single = t.single - single;
        t.double = t.double - double;
        self.passes += u64::from(single.count() + double.count());
        // Inlined at each of its seven call sites, each with its move kind a constant: left to
        // the compiler, the lanes' copy called it at every pawn move.
        t.for_each(
            #[inline(always)]
            |from, to, kind, promoted| match kind {
                MoveKind::DoublePush => {
                    self.count_fresh(
                        #[inline(always)]
                        |pos, b| pos.play_double_push_on(from, to, b),
                    );
                }
                MoveKind::Promotion | MoveKind::PromotionCapture => {
                    let capture = kind == MoveKind::PromotionCapture;
                    self.count_fresh(
                        #[inline(always)]
                        |pos, b| pos.play_promotion_on(from, to, promoted, capture, b),
                    );
                }
                _ => {
                    let capture = kind == MoveKind::Capture;
                    self.count_fresh(
                        #[inline(always)]
                        |pos, b| pos.play_piece_move_on(PieceKind::Pawn, from, to, capture, b),
                    );
                }
            },
        );
    }

    /// En passant and castling, played by the general player.
    #[inline(always)]
    fn single(&mut self, mv: Move) {
        self.count_after(|pos, b| pos.play_on(mv, b));
    }
}

/// Perft of `pos` to depth 2, as the copy `B` counts its last plies.
#[inline(always)]
fn perft_2<S: Sliders, B: Build>(pos: &Position) -> u64 {
    B::LastPly::perft_2::<S, B>(pos)
}

/// How a compiled copy counts a plain count's last two plies: [`OneBoard`], or, on x86-64, in
/// the lanes of a vector type (`lanes::V512`, `lanes::V256`).
pub(crate) trait LastPly {
    /// Perft of `pos` to depth 2, in the copy `B`.
    fn perft_2<S: Sliders, B: Build>(pos: &Position) -> u64;
    /// Perft of `pos` to depth 3, in the copy `B`.
    fn perft_3<S: Sliders, B: Build>(pos: &mut Position) -> u64;
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
        each_move::<S, B, Count>(pos, 3)
    }
}

/// In the lanes of `V`, whatever the number of pieces: with the batches shared by a depth-3
/// node's grandchildren they are faster than one board at a time even in a five-piece ending,
/// and no slower where a table's depth-2 nodes each fill their own (a ten-piece ending).
#[cfg(target_arch = "x86_64")]
impl<V: crate::lanes::Lane> LastPly for V {
    #[inline(always)]
    fn perft_2<S: Sliders, B: Build>(pos: &Position) -> u64 {
        // SAFETY: a copy counting in `V`'s lanes runs only where a `Simd` of their kind could
        // be made: the CPU has their instructions.
        let lanes = unsafe { crate::lanes::Lanes::<V>::of_side(pos.board(), !pos.side_to_move()) };
        perft_2_as::<S, B, Count, _>(pos, lanes)
    }
    /// The grandchildren of all of `pos`'s children share the lanes: a batch is flushed when
    /// full, before boards whose side to move has its king elsewhere or a knight on a new
    /// square (after a king or knight move at `pos`), and at the end, so that the batches are
    /// full but for the last, instead of one part-filled batch for each child.
    #[inline(always)]
    fn perft_3<S: Sliders, B: Build>(pos: &mut Position) -> u64 {
        let mut moves = MoveList::new();
        movegen::generate::<S, MoveList, true>(pos, &mut moves);
        // SAFETY: as above.
        let mut lanes =
            unsafe { crate::lanes::Lanes::<V>::of_side(pos.board(), pos.side_to_move()) };
        for &mv in &moves {
            let undo = pos.make(mv);
            lanes.rebase(pos.board(), pos.castle_path_table());
            perft_2_into::<S, B, Count, _>(pos, &mut lanes);
            pos.unmake(mv, &undo);
        }
        lanes.finish(pos.castle_path_table())
    }
}

/// The total of the leaves two plies below `pos`: every child board handed to `leaves`.
#[inline(always)]
pub(crate) fn perft_2_as<S: Sliders, B: Build, L: Leaf, V: Leaves<L>>(
    pos: &Position,
    mut leaves: V,
) -> L::Narrow {
    perft_2_into::<S, B, L, V>(pos, &mut leaves);
    leaves.finish(pos.castle_path_table())
}

/// Every child board of `pos` handed to `leaves`, not finished: more may follow.
#[inline(always)]
fn perft_2_into<S: Sliders, B: Build, L: Leaf, V: Leaves<L>>(pos: &Position, leaves: &mut V) {
    let mut counter = ReplyCounter::<S, B, L, &mut V> {
        pos,
        leaves,
        // Filled in by the generator's `checkers` call, before any move.
        inert: Inert::NONE,
        passes: 0,
        build: PhantomData,
    };
    movegen::generate::<S, _, true>(pos, &mut counter);
    if counter.passes > 0 {
        counter.leaves.push_unplayed::<S, B>(pos, counter.passes);
    }
}

impl<L: Leaf, T: Leaves<L>> Leaves<L> for &mut T {
    #[inline(always)]
    fn push<S: Sliders, B: Build>(&mut self, board: &Board, paths: &CastlePaths) {
        (**self).push::<S, B>(board, paths);
    }
    #[inline(always)]
    fn finish(&mut self, paths: &CastlePaths) -> L::Narrow {
        (**self).finish(paths)
    }
    #[inline(always)]
    fn push_unplayed<S: Sliders, B: Build>(&mut self, pos: &Position, times: u64) {
        (**self).push_unplayed::<S, B>(pos, times);
    }
    #[inline(always)]
    fn inert<S: Sliders, B: Build>(&mut self, board: &Board, paths: &CastlePaths) -> Inert {
        (**self).inert::<S, B>(board, paths)
    }
}

/// The total of the `depth` (>= 2) plies below `pos`: the moves made and unmade down to
/// depth 2, where the last two plies are the kind's own.
#[inline(always)]
fn bulk_inner<S: Sliders, B: Build, L: Leaf>(pos: &mut Position, depth: u32) -> L::Narrow {
    match depth {
        2 => L::two_plies::<S, B>(pos),
        3 => L::three_plies::<S, B>(pos),
        _ => each_move::<S, B, L>(pos, depth),
    }
}

/// The total of the `depth` (>= 3) plies below `pos`: each move made, the rest counted by the
/// copy `B`.
#[inline(always)]
fn each_move<S: Sliders, B: Build, L: Leaf>(pos: &mut Position, depth: u32) -> L::Narrow {
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
fn hashed_inner<S: Sliders, B: Build, L: Leaf>(
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

/// While a level has fewer leaves than this, [`estimate_leaves`] counts the next one too (one
/// reply count per leaf of this level: tens of milliseconds at most).
const EXACT_LEAVES: u64 = 1_000_000;

internal! {
    /// A rough estimate of `perft(pos, depth)`, for sizing a table. The tree is counted level by
    /// level while it is small (below a million leaves), so a count that small is exact, and a tree
    /// that dies out on the way is 0 (it needs no table: extrapolated from its first plies, a tree
    /// that grows for a few plies and then ends in mates and stalemates, or blocked pawns, was
    /// given the whole memory). Beyond that perft 3 times the growth from depth 2 to 3 for each
    /// further ply (the rule the sizes of `--hash auto` are tuned to).
    /// Takes a few tens of milliseconds at most (the last level counted exactly has under a million
    /// leaf parents).
    pub fn estimate_leaves<S: Sliders>(pos: &Position, depth: u32) -> f64 {
        let mut p = pos.clone();
        let (mut d, mut n) = (0, 1.0);
        // Perft 2 and 3, once counted: the extrapolation's base and growth.
        let mut n2_n3 = (1.0, 1.0);
        while d < depth && (d < 3 || n < EXACT_LEAVES as f64) {
            d += 1;
            let before = n;
            n = perft::<S>(&mut p, d, Counting::Bulk).to_f64();
            if n == 0.0 {
                return 0.0;
            }
            if d == 3 {
                n2_n3 = (before, n);
            }
        }
        if d == depth {
            return n;
        }
        let (n2, n3) = n2_n3;
        n3 * (n3 / n2).powi(depth as i32 - 3)
    }
}

/// How a perft run is carried out: chosen once, before the count starts.
#[derive(Clone, Copy)]
pub struct Options<'a> {
    /// How the last ply is counted.
    pub counting: Counting,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// The shared transposition table, if hashing.
    pub table: Option<&'a Table>,
    /// The last ply's code (bulk counting only).
    pub simd: Simd,
}

impl Options<'_> {
    /// One thread, no table, the widest last-ply code the CPU runs.
    pub fn single(counting: Counting) -> Options<'static> {
        Options {
            counting,
            threads: 1,
            table: None,
            simd: Simd::detect(),
        }
    }
}

/// Work on a count of nodes that runs for either kind of count, [`Count`] or [`EveryMove`]:
/// [`by_counting`] hands it the kind [`Counting`] names, as a type.
trait NodeJob {
    type Output;
    fn run<L: Leaf<Narrow = u64, Wide = Nodes>>(self) -> Self::Output;
}

/// Runs `job` with the kind of count `counting` names: the one place the option becomes code.
fn by_counting<J: NodeJob>(counting: Counting, job: J) -> J::Output {
    match counting {
        Counting::Bulk => job.run::<Count>(),
        Counting::NoBulk => job.run::<EveryMove>(),
    }
}

/// [`total_leaves`] as a [`NodeJob`].
struct Total<'a, S> {
    pos: &'a Position,
    depth: u32,
    opts: Options<'a>,
    sliders: PhantomData<S>,
}

impl<S: Sliders> NodeJob for Total<'_, S> {
    type Output = Nodes;
    fn run<L: Leaf<Narrow = u64, Wide = Nodes>>(self) -> Nodes {
        let o = self.opts;
        total_leaves::<S, L>(self.pos, self.depth, o.threads, o.table, o.simd)
    }
}

/// [`divide_leaves`] as a [`NodeJob`].
struct Divide<'a, S, F> {
    pos: &'a Position,
    depth: u32,
    opts: Options<'a>,
    follow: &'a F,
    sliders: PhantomData<S>,
}

impl<S: Sliders, F: Follow> NodeJob for Divide<'_, S, F> {
    type Output = Vec<(Move, Nodes)>;
    fn run<L: Leaf<Narrow = u64, Wide = Nodes>>(self) -> Vec<(Move, Nodes)> {
        let o = self.opts;
        divide_leaves::<S, L, F>(
            self.pos,
            self.depth,
            o.threads,
            o.table,
            o.simd,
            self.follow,
        )
    }
}

/// The total of the leaves `depth` plies below `pos` for the kind of count `L`, through `table`
/// if any, in the copy `simd` names: depth 0 is the root itself; on one thread (or at depth 1)
/// counted directly, on more the divide's root moves summed.
pub(crate) fn total_leaves<S: Sliders, L: Leaf>(
    pos: &Position,
    depth: u32,
    threads: usize,
    table: Option<&Table<L::Narrow>>,
    simd: Simd,
) -> L::Wide {
    if depth == 0 {
        return L::ROOT.widen();
    }
    if threads <= 1 || depth == 1 {
        return count_leaves::<S, L>(&mut pos.clone(), depth, table, simd);
    }
    let mut total = L::Wide::default();
    for (_, n) in divide_leaves::<S, L, ()>(pos, depth, threads, table, simd, &()) {
        total += n;
    }
    total
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
        SimdKind::Avx512 if L::PLAIN && simd.lanes() => {
            count_in::<S, v3::V3<crate::lanes::V512>, L>(pos, depth, table)
        }
        #[cfg(target_arch = "x86_64")]
        SimdKind::Avx2 if L::PLAIN && simd.lanes() => {
            count_in::<S, v3::V3<crate::lanes::V256>, L>(pos, depth, table)
        }
        #[cfg(target_arch = "x86_64")]
        SimdKind::Avx512 | SimdKind::Avx2 => count_in::<S, v3::V3<OneBoard>, L>(pos, depth, table),
        _ => count_in::<S, Baseline, L>(pos, depth, table),
    }
}

/// [`count_leaves`] in the copy `B`.
fn count_in<S: Sliders, B: Build, L: Leaf>(
    pos: &mut Position,
    depth: u32,
    table: Option<&Table<L::Narrow>>,
) -> L::Wide {
    match table {
        Some(tt) => wide::<S, L::Narrow, _>(pos, depth, Some(tt), &mut |p, d| {
            B::hashed::<S, L>(p, d, tt).widen()
        }),
        None => wide::<S, L::Narrow, _>(pos, depth, None, &mut |p, d| {
            narrow::<S, B, L>(p, d).widen()
        }),
    }
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

/// The divide (count under each root move, generation order) with `opts`: several threads share
/// the work through an atomic task index, and the table if there is one. `depth` >= 1.
pub fn divide_with<S: Sliders>(
    pos: &Position,
    depth: u32,
    opts: Options<'_>,
) -> Vec<(Move, Nodes)> {
    divide_counts::<S, ()>(pos, depth, opts, &())
}

/// [`divide_leaves`] of the kind of count `opts.counting` names.
fn divide_counts<S: Sliders, F: Follow>(
    pos: &Position,
    depth: u32,
    opts: Options<'_>,
    follow: &F,
) -> Vec<(Move, Nodes)> {
    let job = Divide {
        pos,
        depth,
        opts,
        follow,
        sliders: PhantomData::<S>,
    };
    by_counting(opts.counting, job)
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

/// [`divide_with`] that `watch` follows and can stop: the tree is always split into tasks (on
/// one thread too), so that progress moves and a cancel is seen within one task's time.
pub fn divide_watched<S: Sliders>(
    pos: &Position,
    depth: u32,
    opts: Options<'_>,
    watch: &Watch,
) -> Result<Vec<(Move, Nodes)>, Cancelled> {
    let lines = divide_counts::<S, Watch>(pos, depth, opts, watch);
    if watch.is_cancelled() {
        return Err(Cancelled);
    }
    Ok(lines)
}

/// What follows a count split into tasks: told of each finished task, asked before each
/// starts whether to stop. `()` follows nothing and compiles to nothing; [`Watch`] counts.
pub(crate) trait Follow: Sync {
    /// Whether the count goes through tasks on one thread too (so that it can be followed).
    const TASKS: bool;
    fn starting(&self, tasks: usize);
    fn stopped(&self) -> bool;
    fn finished_one(&self);
}

impl Follow for () {
    const TASKS: bool = false;
    #[inline(always)]
    fn starting(&self, _: usize) {}
    #[inline(always)]
    fn stopped(&self) -> bool {
        false
    }
    #[inline(always)]
    fn finished_one(&self) {}
}

impl Follow for Watch {
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

/// Perft with `opts` (threads, table, the last ply's code); depth 0 is one node.
///
/// ```
/// use perft::perft::{Counting, Options, perft_with};
/// use perft::tt::Table;
/// use perft::{Magic, Nodes, Position};
///
/// // Kiwipete to depth 4 (published: 4,085,603) on four threads sharing a 16 MiB table.
/// let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
/// let pos = Position::from_fen(kiwipete).unwrap();
/// let table = Table::new(16).unwrap();
/// let opts = Options { threads: 4, table: Some(&table), ..Options::single(Counting::Bulk) };
/// assert_eq!(perft_with::<Magic>(&pos, 4, opts), Nodes::from(4_085_603u64));
/// ```
pub fn perft_with<S: Sliders>(pos: &Position, depth: u32, opts: Options<'_>) -> Nodes {
    let job = Total {
        pos,
        depth,
        opts,
        sliders: PhantomData::<S>,
    };
    by_counting(opts.counting, job)
}

/// [`divide_with`] as the text users compare: `(UCI move, count)` sorted by move, castling
/// written as the position's rules require.
pub fn divide_uci<S: Sliders>(
    pos: &Position,
    depth: u32,
    opts: Options<'_>,
) -> Vec<(String, Nodes)> {
    let mut lines: Vec<(String, Nodes)> = divide_with::<S>(pos, depth, opts)
        .into_iter()
        .map(|(mv, n)| (mv.to_uci(pos.is_chess960()), n))
        .collect();
    lines.sort();
    lines
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
