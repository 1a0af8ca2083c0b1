//! The statistics' leaves in AVX-512 lanes: the grandchildren of a depth-3 node (a count
//! without a table) gathered eight at a time; their moves, captures and castles counted in the
//! lanes, with the moves that give a direct check, which are then played one by one to tell a
//! check from a mate. The boards where a move may uncover a check, promote or castle with
//! check, or with a pinned piece, go to the one-board leaf instead. In AVX2 lanes the
//! statistics were slower than one board at a time, and stay there (docs/performance.md).

use super::classify::{Play, play_and_record};
use super::leaf::Check;
use super::{Statistics, Stats};
use crate::attacks::{self, Sliders};
use crate::bitboard::Bitboard;
use crate::lanes::{
    BISHOP_LINES, Batch, CheckSets, KNIGHT_CHECKS, LANES, Mover, PAWN_CHECKS, ROOK_LINES,
    SLIDER_CHECKS, V512, one_board_only, slider_from,
};
use crate::perft::{BoardLeaf, Build, Leaves};
use crate::position::{Board, CastlePaths, Position};
use crate::types::{Color, PieceKind, Square};
use crate::unchanged_replies::Inert;

/// Boards gathered into batches as the depth-2 pass hands them over, classified eight at a
/// time in the AVX-512 lanes (see the module documentation).
pub(crate) struct StatsLanes {
    batch: Batch,
    /// Each lane's castling rooks of the side to move.
    castling: [u64; LANES],
    n: usize,
    mover: Mover,
    total: Stats<u64>,
    /// The direct checks' destinations of the last batch, where some lane had one.
    sets: CheckSets,
}

impl StatsLanes {
    /// Lanes for boards with `side` to move, its king and knights where they stand on `board`
    /// (the depth-3 node whose grandchildren will be pushed).
    ///
    /// # Safety
    /// The CPU must have the AVX-512 lanes' instructions ([`crate::cpu::has_avx512_lanes`]).
    #[inline(always)]
    pub(crate) unsafe fn of_side(board: &Board, side: Color) -> StatsLanes {
        StatsLanes {
            batch: Batch::default(),
            castling: [0; LANES],
            n: 0,
            mover: Mover::of_side(board, side),
            total: Stats::default(),
            sets: CheckSets::EMPTY,
        }
    }

    /// The board in lane `lane`.
    #[inline(always)]
    fn board(&self, lane: usize) -> Board {
        self.batch
            .board(lane, self.mover.side(), Bitboard(self.castling[lane]))
    }

    /// From now on, boards whose side to move has its king and knights where they stand on
    /// `board`: the batch so far is classified first if they cannot join it.
    #[inline(always)]
    pub(crate) fn rebase<S: Sliders, B: Build>(&mut self, board: &Board, paths: &CastlePaths) {
        let mut mover = self.mover;
        if !mover.rebase(board) {
            if self.n > 0 {
                self.flush::<S, B>(paths);
            }
            self.mover = mover;
        }
    }

    /// Out of line: inlined at each of the pass's places that push a board, it made the pass
    /// several times larger and slower.
    #[inline(never)]
    fn flush<S: Sliders, B: Build>(&mut self, paths: &CastlePaths) {
        // SAFETY: `of_side`'s contract.
        let r = unsafe {
            V512::stats(
                &self.batch,
                &self.castling,
                self.n,
                self.mover,
                paths,
                &mut self.sets,
            )
        };
        self.total.nodes += r.moves;
        self.total.captures += r.captures;
        self.total.castles += r.castles;
        let mut each = r.each;
        while each != 0 {
            let i = each.trailing_zeros() as usize;
            each &= each - 1;
            B::leaf::<S, Statistics>(&self.board(i), paths, &mut self.total);
        }
        let mut direct = r.direct;
        while direct != 0 {
            let i = direct.trailing_zeros() as usize;
            direct &= direct - 1;
            play_direct_checks::<S>(&self.board(i), paths, &self.sets, i, &mut self.total);
        }
        self.n = 0;
    }
}

/// Plays each move of `board` (lane `lane` of `sets`) that gives a direct check, to tell a
/// check from a mate: a board the lanes classified, so no move of it uncovers a check, none
/// promotes or castles with check, and no piece of it is pinned. A slider's move reached
/// `to` from the first piece behind it along its direction, a knight's from any of our knights
/// a knight's move away (the lanes' sets are of legal moves, and none is pinned), a pawn's
/// from the square its kind of move leaves.
#[inline(never)]
fn play_direct_checks<S: Sliders>(
    board: &Board,
    paths: &CastlePaths,
    sets: &CheckSets,
    lane: usize,
    total: &mut Stats<u64>,
) {
    let us = board.side_to_move();
    let enemies = board.color(!us);
    let occupied = board.occupied();
    let mut play = |from: Square, to: Square, how: Play| {
        play_and_record::<S, false>(board, paths, from, to, how, Some(Check::Direct), total);
    };
    let piece = |kind: PieceKind, to: Square| Play::Piece {
        kind,
        capture: enemies.contains(to),
    };
    let knights = board.pieces(us, PieceKind::Knight);
    let queens = board.pieces(us, PieceKind::Queen);
    let rook_checks = Bitboard(sets.sets[ROOK_LINES][lane]);
    let bishop_checks = Bitboard(sets.sets[BISHOP_LINES][lane]);
    let white = us == Color::White;
    let (up, left, right): (i8, i8, i8) = if white { (8, 7, 9) } else { (-8, -9, -7) };
    // Only the sets that hold a checking move: the lanes marked them.
    let mut groups = sets.groups[lane];
    while groups != 0 {
        let j = groups.trailing_zeros() as usize;
        groups &= groups - 1;
        let set = Bitboard(sets.sets[j][lane]);
        if j == KNIGHT_CHECKS {
            for to in set {
                for from in knights & attacks::knight(to) {
                    play(from, to, piece(PieceKind::Knight, to));
                }
            }
        } else if j < PAWN_CHECKS {
            let dir = j - SLIDER_CHECKS;
            for to in set {
                let from = slider_from(to, dir, occupied);
                let kind = if queens.contains(from) {
                    PieceKind::Queen
                } else if dir < 4 {
                    PieceKind::Rook
                } else {
                    PieceKind::Bishop
                };
                // A rook's or bishop's move onto a square only a queen checks from.
                let checks = match kind {
                    PieceKind::Rook => rook_checks,
                    PieceKind::Bishop => bishop_checks,
                    _ => rook_checks | bishop_checks,
                };
                if checks.contains(to) {
                    play(from, to, piece(kind, to));
                }
            }
        } else {
            // Single pushes, double pushes, captures to the left and to the right.
            let back = [up, 2 * up, left, right][j - PAWN_CHECKS];
            for to in set {
                let how = if j == PAWN_CHECKS + 1 {
                    Play::DoublePush
                } else {
                    piece(PieceKind::Pawn, to)
                };
                play(to.offset(-back), to, how);
            }
        }
    }
}

impl Leaves<Statistics> for StatsLanes {
    #[inline(always)]
    fn push<S: Sliders, B: Build>(&mut self, board: &Board, paths: &CastlePaths) {
        let rooks = board.castling_rooks_of(self.mover.side());
        if one_board_only(board, rooks, paths) {
            B::leaf::<S, Statistics>(board, paths, &mut self.total);
            return;
        }
        self.batch.set(self.n, board);
        self.castling[self.n] = rooks.0;
        self.n += 1;
        if self.n == LANES {
            self.flush::<S, B>(paths);
        }
    }
    #[inline(always)]
    fn finish<S: Sliders, B: Build>(&mut self, paths: &CastlePaths) -> Stats<u64> {
        if self.n > 0 {
            self.flush::<S, B>(paths);
        }
        self.total
    }
    #[inline(always)]
    fn push_unplayed<S: Sliders, B: Build>(&mut self, pos: &Position, times: u64) {
        Statistics::unplayed::<S, B>(pos, times, &mut self.total);
    }
    #[inline(always)]
    fn inert<S: Sliders, B: Build>(&mut self, board: &Board, paths: &CastlePaths) -> Inert {
        Statistics::inert::<S>(board, paths)
    }
}
