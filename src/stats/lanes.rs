//! The statistics' leaves in lanes: the grandchildren of a depth-3 node (a count without a
//! table), or a depth-2 node's children (through one), gathered eight at a time (in AVX2, as
//! two halves of four); their moves, captures and castles counted in the lanes, with the moves
//! that give a direct check, which are counted there too on a board where their king keeps a
//! flight that none of those moves can take away; elsewhere, a
//! checking move after which their king surely has a step, or that a piece of theirs answers,
//! is a check, the others are played one by one to tell a check from a mate; a castle that may
//! give check is played. The board that stands for a depth-2 node's unplayed moves joins its
//! siblings, counted as many times. A board with an en-passant square joins them too, its
//! en-passant captures played apart. The boards where a move may uncover a check or promote go
//! to the one-board leaf instead, as does a board standing for unplayed moves with a move that
//! gives or may give check.

use super::classify::{Play, interposed, play_and_record};
use super::leaf::{Check, castle_may_check};
use super::{Statistics, Stats};
use crate::attacks::{self, Sliders};
use crate::bitboard::Bitboard;
use crate::lanes::{
    BISHOP_LINES, Batch, CheckSets, KNIGHT_CHECKS, LANES, Lane, Mover, PAWN_CHECKS, ROOK_LINES,
    SLIDER_CHECKS, one_board_only, slider_from,
};
use crate::movegen::en_passant_takers;
use crate::perft::{BoardLeaf, Build, Leaves, SharedLanes};
use crate::position::{Board, CastlePaths, Position};
use crate::types::{Color, Move, MoveKind, PieceKind, Square};
use crate::unchanged_replies::Inert;
use std::marker::PhantomData;

/// Boards gathered into batches as the depth-2 pass hands them over, classified eight at a
/// time in the lanes of `V` (see the module documentation).
pub(crate) struct StatsLanes<V> {
    batch: Batch,
    /// Each lane's castling rooks of the side to move.
    castling: [u64; LANES],
    /// How many times each lane's board counts: 1 but where [`Leaves::push_unplayed`] wrote
    /// it, in the lanes `weighted` marks (one bit each); the depth-2 node whose unplayed moves
    /// such a board stands for, in `unplayed`.
    times: [u64; LANES],
    weighted: u8,
    unplayed: [Board; LANES],
    n: usize,
    mover: Mover,
    total: Stats<u64>,
    /// The direct checks' destinations of the last batch, where some lane had one.
    sets: CheckSets,
    lanes: PhantomData<V>,
}

impl<V: Lane> StatsLanes<V> {
    /// The board in lane `lane`.
    #[inline(always)]
    fn board(&self, lane: usize) -> Board {
        self.batch
            .board(lane, self.mover.side(), Bitboard(self.castling[lane]))
    }

    /// Puts `board` (whose side to move keeps the castling rooks `rooks`) in the next lane,
    /// and classifies the batch once it is full.
    #[inline(always)]
    fn join<S: Sliders, B: Build>(&mut self, board: &Board, rooks: Bitboard, paths: &CastlePaths) {
        self.batch.set(self.n, board);
        self.castling[self.n] = rooks.0;
        self.n += 1;
        if self.n == LANES {
            self.flush::<S, B>(paths);
        }
    }

    /// [`Leaves::push`] of a board the lanes' counter leaves out ([`one_board_only`]): one
    /// that castles along a path its rook screens goes to the one-board leaf; one with an
    /// en-passant square has its en-passant captures counted here, and joins the lanes for
    /// its other moves (the lanes leave en passant out). Out of line, as the pass's other
    /// places that push a board are: written into each, it made the pass slower.
    #[inline(never)]
    fn push_apart<S: Sliders, B: Build>(&mut self, board: &Board, paths: &CastlePaths) {
        let rooks = board.castling_rooks_of(self.mover.side());
        if (rooks & paths.screening_rooks(self.mover.side())).any() {
            B::leaf::<S, Statistics>(board, paths, &mut self.total);
            return;
        }
        en_passant_leaves::<S>(board, paths, &mut self.total);
        self.join::<S, B>(board, rooks, paths);
    }

    /// Out of line: inlined at each of the pass's places that push a board, it made the pass
    /// several times larger and slower.
    #[inline(never)]
    fn flush<S: Sliders, B: Build>(&mut self, paths: &CastlePaths) {
        // SAFETY: `of_side`'s contract.
        let r = unsafe {
            V::stats(
                &self.batch,
                &self.castling,
                &self.times,
                self.weighted,
                self.n,
                self.mover,
                paths,
                &mut self.sets,
                &mut self.total,
            )
        };
        let mut each = r.each;
        while each != 0 {
            let i = each.trailing_zeros() as usize;
            each &= each - 1;
            if self.weighted & (1 << i) == 0 {
                B::leaf::<S, Statistics>(&self.board(i), paths, &mut self.total);
            } else {
                let times = self.times[i];
                Statistics::unplayed_on::<S, B>(&self.unplayed[i], paths, times, &mut self.total);
            }
        }
        let mut direct = r.direct;
        while direct != 0 {
            let i = direct.trailing_zeros() as usize;
            direct &= direct - 1;
            play_direct_checks::<S>(&self.board(i), paths, &self.sets, i, &mut self.total);
        }
        let mut castling = r.castling;
        while castling != 0 {
            let i = castling.trailing_zeros() as usize;
            castling &= castling - 1;
            play_castle_checks::<S>(&self.board(i), paths, self.sets.castles[i], &mut self.total);
        }
        self.n = 0;
        if self.weighted != 0 {
            self.weighted = 0;
            self.times = [1; LANES];
        }
    }
}

/// Counts the leaves of `board`'s en-passant captures (none without an en-passant square):
/// each a move, a capture and an en-passant capture, played to find the check it gives (by
/// the pawn, or uncovered through either square it empties) and whether that check mates.
#[inline(never)]
fn en_passant_leaves<S: Sliders>(board: &Board, paths: &CastlePaths, total: &mut Stats<u64>) {
    let Some(ep) = board.ep_square() else {
        return;
    };
    for from in en_passant_takers::<S>(board) {
        total.nodes += 1;
        total.captures += 1;
        let mv = Move::new(from, ep, MoveKind::EnPassant);
        play_and_record::<S, false>(board, paths, from, ep, Play::Special(mv), None, total);
    }
}

/// Counts the check or mate each castle of `board` in `castles` gives, if any (bit `i` for the
/// `i`th path of `paths`; castles the lanes found legal and counted): played, as the one-board
/// leaf plays a castle whose rook lands on a line to their king.
#[inline(never)]
fn play_castle_checks<S: Sliders>(
    board: &Board,
    paths: &CastlePaths,
    castles: u64,
    total: &mut Stats<u64>,
) {
    let us = board.side_to_move();
    let (king, eksq) = (board.king(us), board.king(!us));
    for (i, path) in paths.of(us).iter().enumerate() {
        if castles & (1 << i) == 0 {
            continue;
        }
        let mv = Move::new(king, path.rook.lsb(), MoveKind::Castle);
        if castle_may_check(eksq, mv) {
            let (from, to) = (mv.from(), mv.to());
            play_and_record::<S, false>(board, paths, from, to, Play::Special(mv), None, total);
        }
    }
}

/// Counts each move of `board` (lane `lane` of `sets`) that gives a direct check: as a check
/// where their king surely has a step ([`Steps::answered`]) or another answer
/// ([`interposed`]), else played to tell a check from a mate. A board the lanes classified,
/// so no move of it uncovers a check or promotes (its castles are played apart:
/// [`play_castle_checks`]). A slider's move reached `to` from the first
/// piece behind it along its direction, a knight's from any knight of ours a knight's move
/// away that is not pinned (the lanes' sets are of legal moves), a pawn's from the square its
/// kind of move leaves.
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
    let steps = Steps::of(board, Bitboard(sets.flights[lane]));
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
                let mut from_set = knights & attacks::knight(to);
                // Two knights a knight's move from `to` (rare): a pinned one cannot go there.
                if from_set.more_than_one() {
                    from_set = from_set - board.checkers_and_pinned().1;
                }
                for from in from_set {
                    count_direct_check::<S>(
                        board,
                        paths,
                        &steps,
                        from,
                        to,
                        piece(PieceKind::Knight, to),
                        total,
                    );
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
                    count_direct_check::<S>(board, paths, &steps, from, to, piece(kind, to), total);
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
                count_direct_check::<S>(board, paths, &steps, to.offset(-back), to, how, total);
            }
        }
    }
}

/// Counts the leaf of the move from `from` to `to` (`how`) of `board` that gives direct check:
/// a check where their king surely has a step ([`Steps::answered`]) or a piece of theirs takes
/// the checker or steps between ([`interposed`]), else played to tell a check from a mate.
/// Written out at each of [`play_direct_checks`]' places (as a closure the compiler called
/// it).
#[inline(always)]
fn count_direct_check<S: Sliders>(
    board: &Board,
    paths: &CastlePaths,
    steps: &Steps,
    from: Square,
    to: Square,
    how: Play,
    total: &mut Stats<u64>,
) {
    let (kind, double_push) = match how {
        Play::Piece { kind, .. } => (kind, false),
        _ => (PieceKind::Pawn, true),
    };
    if steps.answered::<S>(kind, from, to)
        || (!double_push && interposed::<S>(board, kind, from, to))
    {
        total.direct_checks += 1;
    } else {
        play_and_record::<S, false>(board, paths, from, to, how, Some(Check::Direct), total);
    }
}

/// Their king's flights on a board the lanes classified (no move of ours uncovering a check),
/// with no move made, and our pieces; from which [`Steps::answered`]
/// tells, without the move, whether a checking move leaves their king a step.
#[derive(Clone, Copy)]
struct Steps {
    /// The squares next to their king with none of its pieces, that no piece of ours attacks.
    flights: Bitboard,
    us: Color,
    /// Their king's square.
    king: Square,
    /// The board's pieces less their king: lifted off the board, it cannot step back along
    /// the line of a check.
    without_king: Bitboard,
    straight: Bitboard,
    diagonal: Bitboard,
    pawns: Bitboard,
    knights: Bitboard,
    /// Our king's square.
    our_king: Square,
}

impl Steps {
    /// `flights` as the lanes found them.
    #[inline(always)]
    fn of(board: &Board, flights: Bitboard) -> Steps {
        let us = board.side_to_move();
        let (straight, diagonal) = board.sliders(us);
        let king = board.king(!us);
        Steps {
            flights,
            us,
            king,
            without_king: board.occupied() - Bitboard::from_square(king),
            straight,
            diagonal,
            pawns: board.pieces(us, PieceKind::Pawn),
            knights: board.pieces(us, PieceKind::Knight),
            our_king: board.king(us),
        }
    }

    /// Whether their king has a step after the move of our piece of `kind` from `from` to
    /// `to` that gives direct check: onto a flight that the move leaves, or onto `to` itself,
    /// taking the checker that none of our other pieces defends. Then the leaf is a check, not
    /// a mate, and the move need not be played; where this says no, the king may still have a
    /// step (onto a square only the moved piece attacked from `from`, say) and the move is
    /// played. With their king lifted off the board (it cannot step back along the line of the
    /// check) and the move made in the occupancy, a flight is left if it is not `to`, the
    /// moved piece does not attack it from `to`, and no slider of ours attacks it through the
    /// square the piece left: no other attack of ours can appear, as no piece of ours gave
    /// check before the move and none but the moved one uncovers a check.
    #[inline(always)]
    fn answered<S: Sliders>(&self, kind: PieceKind, from: Square, to: Square) -> bool {
        let gone = Bitboard::from_square(from);
        let occupied = (self.without_king - gone) | Bitboard::from_square(to);
        let reach = match kind {
            PieceKind::Pawn => attacks::pawn(self.us, to),
            PieceKind::Knight => attacks::knight(to),
            PieceKind::Bishop => S::bishop(to, occupied),
            PieceKind::Rook => S::rook(to, occupied),
            _ => S::bishop(to, occupied) | S::rook(to, occupied),
        };
        // Our other sliders, along lines through the square the piece left.
        let straight = self.straight - gone;
        let diagonal = self.diagonal - gone;
        let rook_lines = attacks::rook_empty(from);
        let bishop_lines = attacks::bishop_empty(from);
        let opened_straight = (rook_lines & straight).any();
        let opened_diagonal = (bishop_lines & diagonal).any();
        for f in self.flights - Bitboard::from_square(to) - reach {
            let attacked = (opened_straight
                && rook_lines.contains(f)
                && (S::rook(f, occupied) & straight).any())
                || (opened_diagonal
                    && bishop_lines.contains(f)
                    && (S::bishop(f, occupied) & diagonal).any());
            if !attacked {
                return true;
            }
        }
        // The checker next to their king, taken if none of our other pieces defends it.
        attacks::king(self.king).contains(to)
            && (attacks::pawn(!self.us, to) & (self.pawns - gone)).is_empty()
            && (attacks::knight(to) & (self.knights - gone)).is_empty()
            && !attacks::king(self.our_king).contains(to)
            && (S::rook(to, occupied) & straight).is_empty()
            && (S::bishop(to, occupied) & diagonal).is_empty()
    }
}

impl<V: Lane> Leaves<Statistics> for StatsLanes<V> {
    #[inline(always)]
    fn push<S: Sliders, B: Build>(&mut self, board: &Board, paths: &CastlePaths) {
        let rooks = board.castling_rooks_of(self.mover.side());
        if one_board_only(board, rooks, paths) {
            self.push_apart::<S, B>(board, paths);
            return;
        }
        self.join::<S, B>(board, rooks, paths);
    }
    #[inline(always)]
    fn finish<S: Sliders, B: Build>(&mut self, paths: &CastlePaths) -> Stats<u64> {
        if self.n > 0 {
            self.flush::<S, B>(paths);
        }
        self.total
    }
    /// The board with no move made joins a batch, to count `times` over: in the lanes where
    /// none of its moves gives or may give check, as the one-board leaf otherwise
    /// ([`Statistics::unplayed_on`], which the lanes call with the node kept here).
    #[inline(always)]
    fn push_unplayed<S: Sliders, B: Build>(&mut self, pos: &Position, times: u64) {
        let board = pos.board().passed();
        let paths = pos.castle_path_table();
        let rooks = board.castling_rooks_of(self.mover.side());
        if one_board_only(&board, rooks, paths) {
            Statistics::unplayed::<S, B>(pos, times, &mut self.total);
            return;
        }
        self.batch.set(self.n, &board);
        self.castling[self.n] = rooks.0;
        self.times[self.n] = times;
        self.weighted |= 1 << self.n;
        self.unplayed[self.n] = *pos.board();
        self.n += 1;
        if self.n == LANES {
            self.flush::<S, B>(paths);
        }
    }
    #[inline(always)]
    fn inert<S: Sliders, B: Build>(&mut self, board: &Board, paths: &CastlePaths) -> Inert {
        Statistics::inert::<S>(board, paths)
    }
}

impl<V: Lane> SharedLanes<Statistics> for StatsLanes<V> {
    /// Lanes for boards with `side` to move, its king and knights where they stand on `board`
    /// (the depth-3 node whose grandchildren will be pushed).
    ///
    /// # Safety
    /// The CPU must have the instructions of `V`'s lanes (AVX-512's:
    /// [`crate::cpu::has_avx512_lanes`]; AVX2's: a CPU of the x86-64-v3 level).
    #[inline(always)]
    unsafe fn of_side(board: &Board, side: Color) -> Self {
        StatsLanes {
            batch: Batch::default(),
            castling: [0; LANES],
            times: [1; LANES],
            weighted: 0,
            unplayed: [Board::BLANK; LANES],
            n: 0,
            mover: Mover::of_side(board, side),
            total: Stats::default(),
            sets: CheckSets::EMPTY,
            lanes: PhantomData,
        }
    }
    /// From now on, boards whose side to move has its king and knights where they stand on
    /// `board`: the batch so far is classified first if they cannot join it.
    #[inline(always)]
    fn rebase<S: Sliders, B: Build>(&mut self, board: &Board, paths: &CastlePaths) {
        let mut mover = self.mover;
        if !mover.rebase(board) {
            if self.n > 0 {
                self.flush::<S, B>(paths);
            }
            self.mover = mover;
        }
    }
}

#[cfg(test)]
mod tests;
