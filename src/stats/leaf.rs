//! The statistics leaf: perft's last two plies in one pass, each child board of a depth-2 node
//! classified with no move made; the moves that leave the replies unchanged counted once for
//! all, and the moves that give or may give check picked out by their squares.

use super::Stats;
use super::classify::{
    CAPTURES_AT, CASTLES_AT, PROMOTIONS, Play, TALLY_FIELD, interposed, move_stats,
    play_and_record, tally,
};
use crate::attacks::{self, PawnDirs, Sliders};
use crate::bitboard::Bitboard;
use crate::movegen::{self, MAX_MOVES, PawnTargets, Sink};
use crate::perft::{BoardLeaf, Build, LastPly, Leaf};
use crate::position::{Board, CastlePaths, Position};
use crate::types::{Color, Move, MoveKind, PieceKind, Square};
use crate::unchanged_replies::{Inert, SliderReach};
use std::marker::PhantomData;
use std::mem::MaybeUninit;

/// The statistics as perft's walk adds them up: each subtree of at most
/// [`NARROW_DEPTH`](crate::perft::NARROW_DEPTH) plies in `u64` fields, deeper ones in
/// [`Nodes`]; the last two plies in one pass, each child board of a depth-2 node classified
/// by [`leaf_stats_on`] with no move made.
///
/// [`Nodes`]: crate::nodes::Nodes
pub(crate) struct Statistics;

impl Leaf for Statistics {
    type Narrow = Stats<u64>;
    type Wide = Stats;
    const LANES: bool = true;
    const ROOT: Stats<u64> = Stats::ONE;
    fn of_move<S: Sliders>(pos: &Position, mv: Move) -> Stats<u64> {
        move_stats::<S>(pos, mv)
    }
    #[inline(always)]
    fn one_ply<S: Sliders, B: Build>(pos: &mut Position) -> Stats<u64> {
        let mut total = Stats::default();
        B::leaf::<S, Self>(pos.board(), pos.castle_path_table(), &mut total);
        total
    }
    #[inline(always)]
    fn two_plies<S: Sliders, B: Build>(pos: &mut Position) -> Stats<u64> {
        B::LastPly::stats_2::<S, B>(pos)
    }
    #[inline(always)]
    fn three_plies<S: Sliders, B: Build>(pos: &mut Position) -> Stats<u64> {
        B::LastPly::stats_3::<S, B>(pos)
    }
}

impl BoardLeaf for Statistics {
    #[inline(always)]
    fn on_board<S: Sliders>(board: &Board, paths: &CastlePaths, total: &mut Stats<u64>) {
        leaf_stats_on::<S>(board, paths, total)
    }
    /// The moves inert for statistics, where no reply to the board with no move made can
    /// give check; else none, as the unplayed moves would then all be played again.
    #[inline(always)]
    fn inert<S: Sliders>(board: &Board, paths: &CastlePaths) -> Inert {
        match no_reply_checks::<S>(board) {
            None => Inert::NONE,
            Some(reach) => Inert::for_statistics::<S>(board, paths, &reach),
        }
    }
    /// Where no reply to the board with no move made gives check, each unplayed move's leaves
    /// are that board's; otherwise whether a checking reply mates may differ from one unplayed
    /// move to another, and each is played and classified ([`Unplayed`]).
    #[inline(never)]
    fn unplayed<S: Sliders, B: Build>(pos: &Position, times: u64, total: &mut Stats<u64>) {
        Statistics::unplayed_on::<S, B>(pos.board(), pos.castle_path_table(), times, total);
    }
}

impl Statistics {
    /// [`BoardLeaf::unplayed`] of the depth-2 node `board` (`paths`: the game's castling
    /// paths).
    #[inline(never)]
    pub(super) fn unplayed_on<S: Sliders, B: Build>(
        board: &Board,
        paths: &CastlePaths,
        times: u64,
        total: &mut Stats<u64>,
    ) {
        let mut passed = Stats::default();
        B::leaf::<S, Self>(&board.passed(), paths, &mut passed);
        if passed.checks() == 0 {
            let (t, p) = (total.to_array(), passed.to_array());
            *total = Stats::from_array(std::array::from_fn(|i| t[i] + p[i] * times));
        } else {
            let mut replay = Unplayed::<S, B> {
                board,
                paths,
                inert: Inert::for_statistics::<S>(board, paths, &SliderReach::of::<S>(board)),
                total,
                build: PhantomData,
            };
            movegen::generate_on::<S, _, true>(board, paths, &mut replay);
        }
    }
}

/// Whether a reply of the opponent on `board` with no move made may give check: some piece of
/// theirs reaches a square it would check from, or stands alone between one of their sliders
/// and our king, or a pawn of theirs can promote, or a castling rook of theirs may land on a
/// line to our king. A superset of the checking replies, cheaper than finding them: it
/// answers `None` wherever a reply checks (a unit test holds it to that over thousands of
/// positions), and may where none does, which costs time (every move is then played). Should
/// it miss a check, that too costs time, never a count ([`BoardLeaf::unplayed`] looks at the
/// replies themselves), but for a promotion's: [`Inert::for_statistics`] keeps the checks
/// of the replies as they were, save a promotion's (an unplayed move may open the line a
/// promoted piece checks along), so this must answer `None` wherever a pawn of theirs may
/// promote, as its first test does. `None` where one may; else where their sliders reach,
/// found on the way (only once the cheaper tests have passed) and read again by
/// [`Inert::for_statistics`].
///
/// Out of line: it runs once per depth-2 node, and inlined into the pass it made the
/// statistics 2-4% slower (docs/performance.md).
#[inline(never)]
pub(super) fn no_reply_checks<S: Sliders>(board: &Board) -> Option<SliderReach> {
    let us = board.side_to_move();
    let them = !us;
    let k = board.king(us);
    let occupied = board.occupied();
    let dirs = PawnDirs::of(them);
    let pawns = board.pieces(them, PieceKind::Pawn);
    if (pawns & dirs.promo_from).any() || (dirs.reach(pawns) & attacks::pawn(us, k)).any() {
        return None;
    }
    let knight_checks = attacks::knight(k);
    for n in board.pieces(them, PieceKind::Knight) {
        if (attacks::knight(n) & knight_checks).any() {
            return None;
        }
    }
    if discoverers(board, them).any() {
        return None;
    }
    let reach = SliderReach::of::<S>(board);
    let (rq, bq) = board.sliders(them);
    // The squares from which a slider checks along each kind of line.
    let diagonal_checks = if bq.any() {
        S::bishop(k, occupied)
    } else {
        Bitboard::EMPTY
    };
    let straight_checks = if rq.any() {
        S::rook(k, occupied)
    } else {
        Bitboard::EMPTY
    };
    if ((reach.diagonal & diagonal_checks) | (reach.straight & straight_checks)).any() {
        return None;
    }
    let rights = board.castling_rooks_of(them);
    if rights.any() {
        let back_rank = dirs.start_rank.shift(-dirs.up);
        let lines = S::rook(
            k,
            occupied - rights - Bitboard::from_square(board.king(them)),
        );
        if (lines & back_rank).any() {
            return None;
        }
    }
    Some(reach)
}

/// The generator's sink that plays, at a depth-2 node, the quiet moves its inert moves let go
/// unplayed (the same moves: the same generator, the same rule) and classifies each child
/// board.
struct Unplayed<'a, S, B> {
    board: &'a Board,
    paths: &'a CastlePaths,
    inert: Inert,
    total: &'a mut Stats<u64>,
    build: PhantomData<(S, B)>,
}

impl<S: Sliders, B: Build> Unplayed<'_, S, B> {
    fn classify(&mut self, play: impl FnOnce(&Board, &mut Board)) {
        let mut child = Board::BLANK;
        play(self.board, &mut child);
        B::leaf::<S, Statistics>(&child, self.paths, self.total);
    }
}

impl<S: Sliders, B: Build> Sink for Unplayed<'_, S, B> {
    fn piece_moves(&mut self, kind: PieceKind, from: Square, targets: Bitboard, enemies: Bitboard) {
        for to in self.inert.unplayed(kind, from, targets - enemies) {
            self.classify(|pos, b| pos.play_piece_move_on(kind, from, to, false, b));
        }
    }
    fn pawns(&mut self, t: &PawnTargets) {
        let (single, double) = self.inert.unplayed_pushes(t);
        for to in single {
            let from = to.offset(-t.up);
            self.classify(|pos, b| pos.play_piece_move_on(PieceKind::Pawn, from, to, false, b));
        }
        for to in double {
            let from = to.offset(-2 * t.up);
            self.classify(|pos, b| pos.play_double_push_on(from, to, b));
        }
    }
    /// En passant and castling are never left unplayed.
    fn single(&mut self, _: Move) {}
}

/// The pieces of `us` that stand alone between one of its sliders and the enemy king: moving
/// one off that line uncovers a check.
pub(super) fn discoverers(board: &Board, us: Color) -> Bitboard {
    let eksq = board.king(!us);
    let own = board.color(us);
    let occupied = board.occupied();
    let (rq, bq) = board.sliders(us);
    let snipers = (attacks::rook_empty(eksq) & rq) | (attacks::bishop_empty(eksq) & bq);
    let mut found = Bitboard::EMPTY;
    for s in snipers {
        let b = attacks::between(eksq, s) & occupied;
        if let Some(sq) = b.single()
            && own.contains(sq)
        {
            found |= Bitboard::from_square(sq);
        }
    }
    found
}

/// Adds to `total` the statistics of the leaves one ply below `board` (`paths`: the game's
/// castling paths): its legal moves, classified from the generator's target sets (see the
/// module documentation).
///
/// Most boards have no piece whose move uncovers a check: for them the sink is compiled
/// without the tests for one ([`LeafSink`]'s `DISCOVERY`), which otherwise cost a test on
/// every piece and pawn group; the boards that have one take a copy compiled with them, out
/// of line, so that the usual copy stays as small as it was.
#[inline(always)]
pub(crate) fn leaf_stats_on<S: Sliders>(
    board: &Board,
    paths: &CastlePaths,
    total: &mut Stats<u64>,
) {
    let discoverers = discoverers(board, board.side_to_move());
    if discoverers.any() {
        leaf_stats_discovering::<S>(board, paths, discoverers, total);
    } else {
        leaf_stats_with::<S, false>(board, paths, Bitboard::EMPTY, total);
    }
}

/// [`leaf_stats_on`] on a board where some move uncovers a check (`discoverers` not empty).
#[inline(never)]
fn leaf_stats_discovering<S: Sliders>(
    board: &Board,
    paths: &CastlePaths,
    discoverers: Bitboard,
    total: &mut Stats<u64>,
) {
    leaf_stats_with::<S, true>(board, paths, discoverers, total);
}

/// [`leaf_stats_on`], given the pieces of the side to move whose move uncovers a check
/// (`discoverers`, empty unless `DISCOVERY`).
#[inline(always)]
fn leaf_stats_with<S: Sliders, const DISCOVERY: bool>(
    board: &Board,
    paths: &CastlePaths,
    discoverers: Bitboard,
    total: &mut Stats<u64>,
) {
    let us = board.side_to_move();
    let eksq = board.king(!us);
    let occupied = board.occupied();
    let bishop_sq = S::bishop(eksq, occupied);
    let rook_sq = S::rook(eksq, occupied);
    let check_squares = [
        attacks::pawn(!us, eksq),
        attacks::knight(eksq),
        bishop_sq,
        rook_sq,
        bishop_sq | rook_sq,
        Bitboard::EMPTY,
    ];
    let mut candidates = [const { MaybeUninit::uninit() }; MAX_MOVES];
    let mut sink = LeafSink::<S, DISCOVERY> {
        enemies: board.color(!us),
        eksq,
        check_squares: &check_squares,
        discoverers,
        moves: 0,
        candidates: &mut candidates,
        len: 0,
        sliders: PhantomData,
    };
    movegen::generate_on::<S, _, true>(board, paths, &mut sink);
    let moves = sink.moves;
    total.nodes += moves & TALLY_FIELD;
    total.captures += (moves >> CAPTURES_AT) & TALLY_FIELD;
    total.castles += moves >> CASTLES_AT;
    // SAFETY: the sink wrote the first `len` candidates.
    let candidates = unsafe { sink.candidates[..sink.len].assume_init_ref() };
    let ksq = board.king(us);
    for c in candidates {
        // Where the squares tell the kind of check, the board after the move is needed only
        // to find mates; a move they tell gives none is not played, nor a direct check
        // another piece of theirs answers (the move surely legal: a pawn's, or one that
        // leaves no line through our king, where a knight or slider may be pinned).
        let check = match c.how {
            Play::Piece { kind, .. } => match sink.check(kind, c.from, c.to) {
                None => continue,
                Some(Check::Direct)
                    if (kind == PieceKind::Pawn || {
                        let line = attacks::line(ksq, c.from);
                        line.is_empty() || line.contains(c.to)
                    }) && interposed::<S>(board, kind, c.from, c.to) =>
                {
                    total.direct_checks += 1;
                    continue;
                }
                known => known,
            },
            Play::DoublePush => match sink.check(PieceKind::Pawn, c.from, c.to) {
                None => continue,
                known => known,
            },
            _ => None,
        };
        play_and_record::<S, true>(board, paths, c.from, c.to, c.how, check, total);
    }
}

/// Whether castling `mv` may give check to the enemy king on `eksq` (a superset; the castle is
/// played to find out): that king stands on a line of the rook's destination. Only the rook
/// can check: a castle never uncovers a check. Both squares it vacates are on our back rank,
/// where no slider stands behind them as seen from their king off that rank; along the rank, a
/// slider of ours and their king on either side of a vacated square both stand outside the
/// castle's span (every square between the king, the rook and their destinations is empty),
/// so the king and rook land between them again.
#[inline(always)]
pub(super) fn castle_may_check(eksq: Square, mv: Move) -> bool {
    attacks::rook_empty(mv.castle_rook_to()).contains(eksq)
}

/// The kind of check a piece or pawn move (no promotion, no en passant) gives, known from the
/// squares alone (the fourth kind, by two pieces neither the moved one, only en passant gives).
#[derive(Clone, Copy)]
pub(super) enum Check {
    /// By the moved piece alone.
    Direct,
    /// By one piece, not the moved one.
    Discovered,
    /// By two pieces, one the moved piece.
    DirectDiscovered,
}

impl Check {
    /// Whether the moved piece gives the check, and whether two pieces do.
    #[inline(always)]
    pub(super) fn by_mover_and_double(self) -> (bool, bool) {
        match self {
            Check::Direct => (true, false),
            Check::Discovered => (false, false),
            Check::DirectDiscovered => (true, true),
        }
    }
}

/// A move that may give check, kept by [`LeafSink`] to be played once the generator is done.
#[derive(Clone, Copy)]
struct Candidate {
    from: Square,
    to: Square,
    how: Play,
}

/// The generator's sink at the leaves' parent: counts from target sets, and keeps the moves that
/// may give check to be played (on a copy of the board) once the generator is done.
///
/// Its arrays (indexed by values known only at run time) are the caller's, held by reference:
/// then the sink itself holds only words, which the compiler keeps in registers while the
/// generator runs (with the arrays inside, the whole sink stayed in memory, and each count was
/// a load, an addition and a store the next one waited on).
///
/// `DISCOVERY`: whether some piece's move may uncover a check (`discoverers` not empty); where
/// none can, the tests for one are compiled out.
struct LeafSink<'a, S, const DISCOVERY: bool> {
    /// The enemy pieces.
    enemies: Bitboard,
    eksq: Square,
    /// By piece kind: the squares from which that kind attacks the enemy king.
    check_squares: &'a [Bitboard; 6],
    /// The pieces whose move off their line to the enemy king uncovers a check ([`discoverers`]).
    discoverers: Bitboard,
    /// The three counts the moves add to, in one word ([`tally`]): the moves, the captures and
    /// the castles (all castles counted here: only those that may give check are kept to be
    /// played). Kept apart from the record the played moves add to, and one word, so that each
    /// update is one addition: as fields of the record, every update was a load and a store
    /// the next one waited on; with the castles in a word of their own, the compiler added a
    /// castle to both words at once with a 16-byte load that waited on the last 8-byte store
    /// (a store-to-load forward that fails, 5% of Kiwipete's leaf samples on one instruction).
    moves: u64,
    /// The moves that may give check (the castles among them, and every en-passant capture and
    /// promotion), to be played once the generator is done: then the pass holds no call,
    /// around which its values would have to wait on the stack (measured: a little faster than
    /// a call at each place a candidate is found).
    candidates: &'a mut [MaybeUninit<Candidate>; MAX_MOVES],
    len: usize,
    sliders: PhantomData<S>,
}

impl<S: Sliders, const DISCOVERY: bool> LeafSink<'_, S, DISCOVERY> {
    /// Keeps the move from `from` to `to` to be played (see [`play_and_record`]).
    #[inline(always)]
    fn play(&mut self, from: Square, to: Square, how: Play) {
        // Each move is kept at most once, and no position has more than `MAX_MOVES`.
        self.candidates[self.len] = MaybeUninit::new(Candidate { from, to, how });
        self.len += 1;
    }

    /// The check the move of a piece of `kind` from `from` to `to` gives, if legal (not a
    /// promotion, castle or en passant): direct if it reaches a check square of its kind (their
    /// line to the king was open before and the move fills no square on it), discovered if it
    /// leaves a discovery line; none if neither. The same two tests [`LeafSink::piece_moves`] and
    /// [`LeafSink::pawn_group`] keep candidates by, asked again once the generator is done:
    /// asked in the sink, with the kind kept in each candidate, they made the leaf slower
    /// (docs/performance.md).
    #[inline(always)]
    fn check(&self, kind: PieceKind, from: Square, to: Square) -> Option<Check> {
        let direct = self.check_squares[kind.index()].contains(to);
        let discovered = DISCOVERY
            && self.discoverers.contains(from)
            && !attacks::line(from, self.eksq).contains(to);
        match (direct, discovered) {
            (true, false) => Some(Check::Direct),
            (false, true) => Some(Check::Discovered),
            (true, true) => Some(Check::DirectDiscovered),
            (false, false) => None,
        }
    }

    /// The pawn moves of one group (`targets`, each reached from `delta` behind) that may give
    /// check: onto a pawn check square, or off a discovery line.
    #[inline(always)]
    fn pawn_group(&mut self, targets: Bitboard, delta: i8, how: Play) {
        let mut checks = self.check_squares[PieceKind::Pawn.index()];
        if DISCOVERY {
            checks |= self.discoverers.shift(delta);
        }
        let maybe = targets & checks;
        for to in maybe {
            self.play(to.offset(-delta), to, how);
        }
    }
}

impl<S: Sliders, const DISCOVERY: bool> Sink for LeafSink<'_, S, DISCOVERY> {
    #[inline(always)]
    fn piece_moves(&mut self, kind: PieceKind, from: Square, targets: Bitboard, enemies: Bitboard) {
        self.moves += tally(targets.count(), (targets & enemies).count());
        let mut maybe = targets & self.check_squares[kind.index()];
        if DISCOVERY && self.discoverers.contains(from) {
            maybe |= targets - attacks::line(from, self.eksq);
        }
        for to in maybe {
            let capture = enemies.contains(to);
            self.play(from, to, Play::Piece { kind, capture });
        }
    }

    /// Knights and sliders come as if none were pinned: the pinned ones' impossible moves are
    /// taken back here (and [`play_and_record`] records no check of theirs).
    const TOTALS: bool = true;
    #[inline(always)]
    fn retract(&mut self, targets: Bitboard) {
        self.moves -= tally(targets.count(), (targets & self.enemies).count());
    }

    #[inline(always)]
    fn pawns(&mut self, t: &PawnTargets) {
        let last = t.last;
        let (single, east, west) = (t.single - last, t.east - last, t.west - last);
        let captures = east.count() + west.count();
        self.moves += tally(single.count() + t.double.count() + captures, captures);
        let (quiet, capture) = (
            Play::Piece {
                kind: PieceKind::Pawn,
                capture: false,
            },
            Play::Piece {
                kind: PieceKind::Pawn,
                capture: true,
            },
        );
        self.pawn_group(single, t.up, quiet);
        self.pawn_group(t.double, 2 * t.up, Play::DoublePush);
        self.pawn_group(east, t.up_east, capture);
        self.pawn_group(west, t.up_west, capture);
        if ((t.single | t.east | t.west) & last).any() {
            // Promotions are rare: each is played.
            for (targets, delta, capture) in [
                (t.single & last, t.up, false),
                (t.east & last, t.up_east, true),
                (t.west & last, t.up_west, true),
            ] {
                for to in targets {
                    let from = to.offset(-delta);
                    for piece in PROMOTIONS {
                        self.moves += tally(1, u32::from(capture));
                        self.play(from, to, Play::Promotion { piece, capture });
                    }
                }
            }
        }
    }

    /// En passant: counted and played. Castling: counted, and played where it may give check.
    #[inline(always)]
    fn single(&mut self, mv: Move) {
        if mv.kind() == MoveKind::Castle {
            self.moves += tally(1, 0) + (1 << CASTLES_AT);
            if !castle_may_check(self.eksq, mv) {
                return;
            }
        } else {
            self.moves += tally(1, 1);
        }
        self.play(mv.from(), mv.to(), Play::Special(mv));
    }
}
