//! Boards gathered into batches as perft's depth-2 pass hands them over, counted eight at a
//! time; and the entry points that count given boards (for the tests and benches).

use super::kernel::{Batch, Mover, mover, one_board_only};
use super::{LANES, Lane, V256, V512};
use crate::attacks::Sliders;
use crate::bitboard::Bitboard;
use crate::cpu::{Simd, SimdKind};
use crate::movegen;
use crate::perft::{Build, Count, SharedLanes};
use crate::position::{Board, CastlePaths};
use crate::types::{Color, PieceKind, Square};
use std::marker::PhantomData;

/// The legal moves of each of `boards`, counted as perft's lanes count them: eight at a time
/// (each batch of boards with the same side to move and the same king square, as the children
/// of one position are), the boards the lanes leave out by the one-board counter. `None` for
/// [`Simd`] of kind none, which has no lanes. For testing the lanes board by board.
pub fn count_each<S: Sliders>(
    simd: Simd,
    boards: &[Board],
    paths: &CastlePaths,
) -> Option<Vec<u64>> {
    match simd.kind() {
        SimdKind::Avx512 => Some(count_each_in::<S, V512>(boards, paths)),
        SimdKind::Avx2 => Some(count_each_in::<S, V256>(boards, paths)),
        SimdKind::None => None,
    }
}

/// [`count_each`] in the lanes of `V`, whose instructions the CPU has.
fn count_each_in<S: Sliders, V: Lane>(boards: &[Board], paths: &CastlePaths) -> Vec<u64> {
    let mut counts = Vec::with_capacity(boards.len());
    let runs = boards.chunk_by(|a, b| mover(a) == mover(b));
    for chunk in runs.flat_map(|run| run.chunks(LANES)) {
        let mut batch = Batch::default();
        let mut rooks = [0; LANES];
        let mut knights = Bitboard::EMPTY;
        for (i, board) in chunk.iter().enumerate() {
            batch.set(i, board);
            rooks[i] = board.castling_rooks_of(board.side_to_move()).0;
            knights |= board.pieces(board.side_to_move(), PieceKind::Knight);
        }
        let (side, king) = mover(&chunk[0]);
        let m = Mover {
            side,
            king,
            knights,
        };
        // SAFETY: the caller made `V` for code this CPU runs.
        let c = unsafe { V::count_each(&batch, &rooks, m, paths) };
        for (i, board) in chunk.iter().enumerate() {
            counts.push(if one_board_only(board, Bitboard(rooks[i]), paths) {
                movegen::count_legal_on::<S>(board, paths)
            } else {
                c[i]
            });
        }
    }
    counts
}

/// Boards gathered into batches as they come, counted eight at a time in the lanes of `V`: every
/// board in a batch has the same side to move, with its king on the same square and its knights
/// among the same squares, as the grandchildren of one node have but after a king or knight
/// move there ([`SharedLanes::rebase`] flushes the batch before those).
pub(crate) struct Lanes<V> {
    batch: Batch,
    /// Each lane's castling rooks of the side to move.
    castling: [u64; LANES],
    /// How many times each lane's board counts: 1 but where [`Lanes::push_times`] wrote it.
    times: [u64; LANES],
    n: usize,
    mover: Mover,
    /// The counts of the batches flushed so far and of the boards counted one by one.
    total: u64,
    lanes: PhantomData<V>,
}

impl<V: Lane> SharedLanes<Count> for Lanes<V> {
    /// Lanes for boards with `side` to move, its king and knights where they stand on `board`
    /// (the position whose children's children will be pushed, or whose children will be).
    ///
    /// # Safety
    /// As [`Lanes::new`].
    #[inline(always)]
    unsafe fn of_side(board: &Board, side: Color) -> Lanes<V> {
        let Mover {
            side,
            king,
            knights,
        } = Mover::of_side(board, side);
        // SAFETY: the caller's.
        unsafe { Lanes::new(side, king, knights) }
    }
    /// From now on, boards whose side to move has its king and knights where they stand on
    /// `board`: the batch so far is counted first if its king stood elsewhere or a knight
    /// stands where none stood in it (each knight square costs every batch a step).
    #[inline(always)]
    fn rebase<S: Sliders, B: Build>(&mut self, board: &Board, paths: &CastlePaths) {
        let mut mover = self.mover;
        if !mover.rebase(board) {
            if self.n > 0 {
                self.flush(paths);
            }
            self.mover = mover;
        }
    }
}

impl<V: Lane> Lanes<V> {
    /// Lanes for boards with `side` to move, its king on `king` and its knights among
    /// `knights` (as the children of one position: its side not to move has them; the counts
    /// of boards without are wrong).
    ///
    /// # Safety
    /// The CPU must have `V`'s instructions ([`crate::cpu::Simd`] of its kind could be made):
    /// pushing boards runs the counter compiled for them.
    #[inline(always)]
    pub(crate) unsafe fn new(side: Color, king: Square, knights: Bitboard) -> Lanes<V> {
        Lanes {
            batch: Batch::default(),
            castling: [0; LANES],
            times: [1; LANES],
            n: 0,
            mover: Mover {
                side,
                king,
                knights,
            },
            total: 0,
            lanes: PhantomData,
        }
    }

    /// Adds `board`'s legal moves: now if it has an en-passant square or a castling path its
    /// rook screens (the one-board counter), else when its batch is full or [`Lanes::finish`].
    #[inline(always)]
    pub(crate) fn push<S: Sliders>(&mut self, board: &Board, paths: &CastlePaths) {
        self.push_as::<S, false>(board, paths, 1);
    }

    /// Adds `board`'s legal moves `times` times over (as [`Lanes::push`]); `times` under 2^32,
    /// as the lanes multiply the low 32 bits (a board stands for at most one position's moves).
    #[inline(always)]
    pub(crate) fn push_times<S: Sliders>(
        &mut self,
        board: &Board,
        paths: &CastlePaths,
        times: u64,
    ) {
        self.push_as::<S, true>(board, paths, times);
    }

    /// [`Lanes::push_times`]; without `TIMES` the board counts once, and its lane's `times`
    /// is left at the 1 that [`Lanes::flush`] puts back (one store less a board).
    #[inline(always)]
    fn push_as<S: Sliders, const TIMES: bool>(
        &mut self,
        board: &Board,
        paths: &CastlePaths,
        times: u64,
    ) {
        // The depth-2 pass writes each child board into a local value, which the compiler can
        // keep in registers only if nothing indexes it by a colour it does not know (hence
        // `castling_rooks_of`) or takes its address: the rare one-board count gets a copy.
        let rooks = board.castling_rooks_of(self.mover.side);
        if one_board_only(board, rooks, paths) {
            let copy = *board;
            self.total += count_one::<S>(&copy, paths) * times;
            return;
        }
        self.batch.set(self.n, board);
        self.castling[self.n] = rooks.0;
        if TIMES {
            self.times[self.n] = times;
        }
        self.n += 1;
        if self.n == LANES {
            self.flush(paths);
        }
    }

    /// Counts what is left in the batch; returns the total.
    #[inline(always)]
    pub(crate) fn finish(&mut self, paths: &CastlePaths) -> u64 {
        if self.n > 0 {
            self.flush(paths);
        }
        self.total
    }

    #[inline(always)]
    fn flush(&mut self, paths: &CastlePaths) {
        // SAFETY: `new`'s contract.
        self.total += unsafe {
            V::count(
                &self.batch,
                &self.castling,
                &self.times,
                self.n,
                self.mover,
                paths,
            )
        };
        self.n = 0;
        self.times = [1; LANES];
    }
}

/// The one-board counter, out of line: the lanes' rare case.
#[cold]
#[inline(never)]
fn count_one<S: Sliders>(board: &Board, paths: &CastlePaths) -> u64 {
    movegen::count_legal_on::<S>(board, paths)
}

/// The legal moves of all of `boards` (all with the same side to move), counted the way perft's
/// depth-2 pass counts them in the lanes `simd` names (pushed into lanes, eight boards a batch).
/// `None` for code without lanes. For benchmarks of the lanes alone.
pub fn count_total<S: Sliders>(simd: Simd, boards: &[Board], paths: &CastlePaths) -> Option<u64> {
    match simd.kind() {
        SimdKind::Avx512 => Some(count_total_in::<S, V512>(boards, paths)),
        SimdKind::Avx2 => Some(count_total_in::<S, V256>(boards, paths)),
        SimdKind::None => None,
    }
}

/// [`count_total`] in the lanes of `V`, whose instructions the CPU has.
fn count_total_in<S: Sliders, V: Lane>(boards: &[Board], paths: &CastlePaths) -> u64 {
    let Some(first) = boards.first() else {
        return 0;
    };
    let (side, king) = mover(first);
    let knights = boards.iter().fold(Bitboard::EMPTY, |k, b| {
        k | b.pieces(side, PieceKind::Knight)
    });
    // SAFETY: the caller made `V` for code this CPU runs.
    let mut lanes = unsafe { Lanes::<V>::new(side, king, knights) };
    for board in boards {
        lanes.push::<S>(board, paths);
    }
    lanes.finish(paths)
}
