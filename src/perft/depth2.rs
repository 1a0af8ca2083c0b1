//! The depth-2 pass: perft's last two plies in one pass, each child board handed to the leaves
//! with no move list, the moves that leave the replies unchanged counted once for all.

use super::copies::{Build, LastPly};
#[cfg(target_arch = "x86_64")]
use super::leaf::Count;
use super::leaf::{BoardLeaf, Leaf};
use crate::attacks::Sliders;
use crate::bitboard::Bitboard;
use crate::movegen::{self, PawnTargets, Sink};
use crate::position::{Board, CastlePaths, Position};
use crate::types::{Move, MoveKind, PieceKind, Square};
use crate::unchanged_replies::Inert;
use std::marker::PhantomData;

/// Perft's last two plies in one pass: each move the generator produces is played on a copy of
/// the board (no square-by-square board, key or undo) and the child board is handed to `leaves`
/// (which counts its moves, or their statistics), with no move list in between. The moves are
/// never encoded: each is played by the player for its kind of move, with the moving piece as
/// the generator gives it, so no move kind is decoded and no moving piece looked up. The quiet
/// moves that cannot change what the opponent's replies add up to (their number; for
/// statistics, also their captures and checks) are not played at all: the board with no move
/// made is handed over once, to count as many times as they are many.
pub(super) struct ReplyCounter<'a, S, B, L, V> {
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
    fn finish<S: Sliders, B: Build>(&mut self, paths: &CastlePaths) -> L::Narrow;
    /// Counts (now or later) the leaves below the `times` moves of `pos` (a depth-2 node) that
    /// [`Leaves::inert`] let go unplayed. Called once per node, after its last `push`.
    fn push_unplayed<S: Sliders, B: Build>(&mut self, pos: &Position, times: u64);
    /// The moves of the side to move on `board`, a depth-2 node not in check, whose child
    /// boards are not pushed but counted by [`Leaves::push_unplayed`] (see [`crate::unchanged_replies`]).
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
    fn finish<S: Sliders, B: Build>(&mut self, _: &CastlePaths) -> L::Narrow {
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

/// Leaves gathered into batches of lanes, which the grandchildren of one depth-3 node may
/// share: the plain count's ([`crate::lanes::Lanes`]) and the statistics'
/// ([`crate::stats::StatsLanes`]).
#[cfg(target_arch = "x86_64")]
pub(crate) trait SharedLanes<L: Leaf>: Leaves<L> {
    /// Lanes for boards with `side` to move, its king and knights where they stand on `board`.
    ///
    /// # Safety
    /// The CPU must have the instructions of the lanes' vector type.
    unsafe fn of_side(board: &Board, side: crate::types::Color) -> Self;
    /// From now on, boards whose side to move has its king and knights where they stand on
    /// `board`: the batch so far is counted first if they cannot join it.
    fn rebase<S: Sliders, B: Build>(&mut self, board: &Board, paths: &CastlePaths);
}

#[cfg(target_arch = "x86_64")]
impl<V: crate::lanes::Lane> Leaves<Count> for crate::lanes::Lanes<V> {
    #[inline(always)]
    fn push<S: Sliders, B: Build>(&mut self, board: &Board, paths: &CastlePaths) {
        crate::lanes::Lanes::push::<S>(self, board, paths);
    }
    #[inline(always)]
    fn finish<S: Sliders, B: Build>(&mut self, paths: &CastlePaths) -> u64 {
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
        // The quiet moves that cannot change the replies are not played (see `crate::unchanged_replies`).
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
        // The pushes that cannot change the replies are not played (see `crate::unchanged_replies`).
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
pub(super) fn perft_2<S: Sliders, B: Build>(pos: &Position) -> u64 {
    B::LastPly::perft_2::<S, B>(pos)
}

/// The total of the leaves two plies below `pos`: every child board handed to `leaves`.
#[inline(always)]
pub(crate) fn perft_2_as<S: Sliders, B: Build, L: Leaf, V: Leaves<L>>(
    pos: &Position,
    mut leaves: V,
) -> L::Narrow {
    perft_2_into::<S, B, L, V>(pos, &mut leaves);
    leaves.finish::<S, B>(pos.castle_path_table())
}

/// Every child board of `pos` handed to `leaves`, not finished: more may follow.
#[inline(always)]
pub(super) fn perft_2_into<S: Sliders, B: Build, L: Leaf, V: Leaves<L>>(
    pos: &Position,
    leaves: &mut V,
) {
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
    fn finish<S: Sliders, B: Build>(&mut self, paths: &CastlePaths) -> L::Narrow {
        (**self).finish::<S, B>(paths)
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
