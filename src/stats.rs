//! Leaf statistics: how many of perft's leaves were reached by a capture, an en-passant capture,
//! a castle or a promotion, and how many stand in check or mate, split by kind of check, as the
//! Chess Programming Wiki's "Perft Results" tables and the Grand Chess Tree publish them.
//!
//! Every figure counts leaves by the move that led to them. A leaf in check is classified by
//! its checkers and the *moved piece*, the piece on the move's destination (for castling the
//! rook, for a promotion the new piece, for en passant the capturing pawn): *direct*, one
//! checker, the moved piece; *single discovered*, one checker, not the moved piece; *direct
//! discovered*, two checkers, one the moved piece; *double discovered*, two checkers, neither
//! the moved piece (only en passant can do that). A leaf in check without a legal move is a
//! mate of the same kind; the `*_checks` fields count the checks that are not mates.
//!
//! The leaves are not made one by one. At the leaves' parent the move kinds give the capture,
//! en-passant, castle and promotion counts; a move is played (on a copy of the board) only when
//! it gives or may give check. A piece move, pawn push or pawn capture (no promotion, no en
//! passant) gives direct check exactly when its destination is among the squares from which its
//! piece kind attacks the enemy king (the line from there was open, and the move fills no square
//! on it), and discovered check exactly when it leaves a line between one of our sliders and
//! that king (its piece is a *discoverer*): the squares tell the kind of check, and the board
//! after the move is needed only to test for mate. A promotion, an en-passant capture, and a
//! castle whose rook lands on a line to the enemy king (a castle never uncovers a check) may
//! give check: the checkers of the board after the move classify it, so that filter only has
//! to be a superset of the checking moves.

use crate::attacks::{self, PawnDirs, Sliders};
use crate::bitboard::Bitboard;
use crate::cpu::Simd;
use crate::inert::{Inert, SliderReach};
use crate::movegen::{self, MAX_MOVES, PawnTargets, Sink};
use crate::nodes::{Nodes, Tally};
use crate::perft::{BoardLeaf, Build, Leaf, OneByOne, divide_leaves, perft_2_as, total_leaves};
use crate::position::{Board, CastlePaths, Position};
use crate::tt::record::RecordTable;
use crate::tt::{Record, Table};
use crate::types::{Color, Move, MoveKind, PieceKind, Square};
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::ops::{Add, AddAssign};

/// The statistics of the leaves at one depth (the Grand Chess Tree's fields), each an exact
/// [`Nodes`] count; the hot code of shallow subtrees adds them up as `Stats<u64>` (see
/// [`crate::nodes`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Stats<N = Nodes> {
    /// Leaves.
    pub nodes: N,
    /// Leaves reached by a capture (en passant included).
    pub captures: N,
    /// Leaves reached by an en-passant capture.
    pub enpassants: N,
    /// Leaves reached by castling.
    pub castles: N,
    /// Leaves reached by a promotion.
    pub promotions: N,
    /// Checks, not mates, by the moved piece alone.
    pub direct_checks: N,
    /// Checks, not mates, by one piece other than the moved one.
    pub single_discovered_checks: N,
    /// Checks, not mates, by two pieces, one the moved piece.
    pub direct_discovered_checks: N,
    /// Checks, not mates, by two pieces, neither the moved one (en passant only).
    pub double_discovered_checks: N,
    /// Mates by the moved piece alone.
    pub direct_mates: N,
    /// Mates by one piece other than the moved one.
    pub single_discovered_mates: N,
    /// Mates by two pieces, one the moved piece.
    pub direct_discovered_mates: N,
    /// Mates by two pieces, neither the moved one.
    pub double_discovered_mates: N,
}

impl Stats<u64> {
    /// One leaf with nothing to say about the move that led to it (depth 0: the root itself).
    pub const ONE: Stats<u64> = Stats {
        nodes: 1,
        captures: 0,
        enpassants: 0,
        castles: 0,
        promotions: 0,
        direct_checks: 0,
        single_discovered_checks: 0,
        direct_discovered_checks: 0,
        double_discovered_checks: 0,
        direct_mates: 0,
        single_discovered_mates: 0,
        direct_discovered_mates: 0,
        double_discovered_mates: 0,
    };
}

internal! {
    /// The fields' names, in declaration order (as [`Stats::to_array`] lists them).
    pub const FIELD_NAMES: [&str; 13] = [
        "nodes",
        "captures",
        "enpassants",
        "castles",
        "promotions",
        "direct_checks",
        "single_discovered_checks",
        "direct_discovered_checks",
        "double_discovered_checks",
        "direct_mates",
        "single_discovered_mates",
        "direct_discovered_mates",
        "double_discovered_mates",
    ];
}

impl<N: Tally> Stats<N> {
    /// The names of the record's fields, in the order of [`Stats::to_array`].
    pub const FIELD_NAMES: [&'static str; 13] = FIELD_NAMES;

    /// The fields in declaration order.
    pub fn to_array(&self) -> [N; 13] {
        [
            self.nodes,
            self.captures,
            self.enpassants,
            self.castles,
            self.promotions,
            self.direct_checks,
            self.single_discovered_checks,
            self.direct_discovered_checks,
            self.double_discovered_checks,
            self.direct_mates,
            self.single_discovered_mates,
            self.direct_discovered_mates,
            self.double_discovered_mates,
        ]
    }

    /// The inverse of [`Stats::to_array`].
    pub fn from_array(a: [N; 13]) -> Stats<N> {
        Stats {
            nodes: a[0],
            captures: a[1],
            enpassants: a[2],
            castles: a[3],
            promotions: a[4],
            direct_checks: a[5],
            single_discovered_checks: a[6],
            direct_discovered_checks: a[7],
            double_discovered_checks: a[8],
            direct_mates: a[9],
            single_discovered_mates: a[10],
            direct_discovered_mates: a[11],
            double_discovered_mates: a[12],
        }
    }

    /// Leaves in check that are not mates.
    pub fn total_checks(&self) -> N {
        self.direct_checks
            + self.single_discovered_checks
            + self.direct_discovered_checks
            + self.double_discovered_checks
    }

    /// Leaves in check without a legal move.
    pub fn total_mates(&self) -> N {
        self.direct_mates
            + self.single_discovered_mates
            + self.direct_discovered_mates
            + self.double_discovered_mates
    }

    /// The Wiki's "Checks" column: every leaf in check, mates included.
    pub fn checks(&self) -> N {
        self.total_checks() + self.total_mates()
    }

    /// The Wiki's "Discovery Checks" column.
    pub fn discovery_checks(&self) -> N {
        self.single_discovered_checks
    }

    /// The Wiki's "Double Checks" column.
    pub fn double_checks(&self) -> N {
        self.direct_discovered_checks + self.double_discovered_checks
    }

    /// The Wiki's "Checkmates" column.
    pub fn checkmates(&self) -> N {
        self.total_mates()
    }
}

impl<N: Tally> Stats<N> {
    /// The same record in exact [`Nodes`].
    pub fn widen(&self) -> Stats<Nodes> {
        Stats::from_array(self.to_array().map(Tally::widen))
    }
}

#[cfg(feature = "serde")]
impl<N: Tally + serde::Serialize> serde::Serialize for Stats<N> {
    /// The one JSON form of a record, in every report (`--stats --json`, `perft merge --json`):
    /// the fields in declaration order, with `total_checks` after the checks and `total_mates`
    /// after the mates.
    fn serialize<Z: serde::Serializer>(&self, z: Z) -> Result<Z::Ok, Z::Error> {
        use serde::ser::SerializeStruct;
        let mut out = z.serialize_struct("Stats", 15)?;
        for (i, (name, v)) in FIELD_NAMES.iter().zip(self.to_array()).enumerate() {
            out.serialize_field(name, &v)?;
            if i == 8 {
                out.serialize_field("total_checks", &self.total_checks())?;
            }
        }
        out.serialize_field("total_mates", &self.total_mates())?;
        out.end()
    }
}

impl<N: Tally> AddAssign for Stats<N> {
    fn add_assign(&mut self, o: Stats<N>) {
        let (a, b) = (self.to_array(), o.to_array());
        *self = Stats::from_array(std::array::from_fn(|i| a[i] + b[i]));
    }
}

impl<N: Tally> Add for Stats<N> {
    type Output = Stats<N>;
    fn add(mut self, o: Stats<N>) -> Stats<N> {
        self += o;
        self
    }
}

/// The statistics of the leaves `depth` plies below `pos` (single thread, no table). Depth 0
/// is the root itself: one node, no move.
///
/// ```
/// use perft::stats::stats;
/// use perft::{Magic, Nodes, Position};
///
/// // The start position at depth 4, as published: 1,576 captures, 469 checks, 8 mates.
/// let pos = Position::from_fen(perft::position::STARTPOS).unwrap();
/// let s = stats::<Magic>(&pos, 4);
/// assert_eq!(s.nodes, Nodes::from(197_281u64));
/// assert_eq!(s.captures, Nodes::from(1_576u64));
/// assert_eq!(s.checks(), Nodes::from(469u64)); // the published column counts mates too
/// assert_eq!(s.checkmates(), Nodes::from(8u64));
/// ```
pub fn stats<S: Sliders>(pos: &Position, depth: u32) -> Stats {
    stats_with::<S>(pos, depth, 1, None, Simd::detect())
}

/// The statistics as perft's walk adds them up: each subtree of at most
/// [`NARROW_DEPTH`](crate::perft::NARROW_DEPTH) plies in `u64` fields, deeper ones in
/// [`Nodes`]; the last two plies in one pass, each child board of a depth-2 node classified
/// by [`leaf_stats_on`] with no move made.
pub(crate) struct Statistics;

impl Leaf for Statistics {
    type Narrow = Stats<u64>;
    type Wide = Stats;
    const PLAIN: bool = false;
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
        perft_2_as::<S, B, Self, _>(pos, OneByOne(Stats::default()))
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
        let mut passed = Stats::default();
        B::leaf::<S, Self>(&pos.board().passed(), pos.castle_path_table(), &mut passed);
        if passed.checks() == 0 {
            let (t, p) = (total.to_array(), passed.to_array());
            *total = Stats::from_array(std::array::from_fn(|i| t[i] + p[i] * times));
        } else {
            let mut replay = Unplayed::<S, B> {
                pos,
                inert: Inert::for_statistics::<S>(
                    pos.board(),
                    pos.castle_path_table(),
                    &SliderReach::of::<S>(pos.board()),
                ),
                total,
                build: PhantomData,
            };
            movegen::generate::<S, _, true>(pos, &mut replay);
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
/// replies themselves). `None` where one may; else where their sliders reach, found on
/// the way (only once the cheaper tests have passed) and read again by
/// [`Inert::for_statistics`].
///
/// Out of line: it runs once per depth-2 node, and inlined into the pass it made the
/// statistics 2-4% slower (docs/performance.md).
#[inline(never)]
fn no_reply_checks<S: Sliders>(board: &Board) -> Option<SliderReach> {
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
    pos: &'a Position,
    inert: Inert,
    total: &'a mut Stats<u64>,
    build: PhantomData<(S, B)>,
}

impl<S: Sliders, B: Build> Unplayed<'_, S, B> {
    fn classify(&mut self, play: impl FnOnce(&Position, &mut Board)) {
        let mut child = Board::BLANK;
        play(self.pos, &mut child);
        B::leaf::<S, Statistics>(&child, self.pos.castle_path_table(), self.total);
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
fn discoverers(board: &Board, us: Color) -> Bitboard {
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
    for c in candidates {
        // Where the squares tell the kind of check, the board after the move is needed only
        // to find mates; a move they tell gives none is not played.
        let check = match c.how {
            Play::Piece { kind, .. } => match sink.check(kind, c.from, c.to) {
                None => continue,
                known => known,
            },
            Play::DoublePush => match sink.check(PieceKind::Pawn, c.from, c.to) {
                None => continue,
                known => known,
            },
            _ => None,
        };
        play_and_record::<S>(board, paths, c.from, c.to, c.how, check, total);
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
fn castle_may_check(eksq: Square, mv: Move) -> bool {
    attacks::rook_empty(mv.castle_rook_to()).contains(eksq)
}

/// The kind of check a piece or pawn move (no promotion, no en passant) gives, known from the
/// squares alone (the fourth kind, by two pieces neither the moved one, only en passant gives).
#[derive(Clone, Copy)]
enum Check {
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
    fn by_mover_and_double(self) -> (bool, bool) {
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

/// How [`play_and_record`] plays a move.
#[derive(Clone, Copy)]
enum Play {
    /// The piece of `kind` goes (no double push, promotion, en passant or castle), taking what
    /// stands on the destination if `capture`.
    Piece {
        kind: PieceKind,
        capture: bool,
    },
    DoublePush,
    Promotion {
        piece: PieceKind,
        capture: bool,
    },
    /// En passant or castling.
    Special(Move),
}

/// Plays the move from `from` to `to` (`how`) on a copy of `board` and counts its leaf's check
/// and mate, if any: in the kind `check` if known, else as the board after the move shows
/// ([`record`]); and the en-passant captures and promotions. Out of line: the played moves are
/// few (about one leaf in a hundred gives check).
///
/// The generator gives knights and sliders as if none were pinned (the sink's `TOTALS`) and
/// takes back the pinned ones' impossible moves afterwards; such a move that leaves a line
/// through the mover's king is tested on the child, and not recorded if that king is attacked.
#[inline(never)]
fn play_and_record<S: Sliders>(
    board: &Board,
    paths: &CastlePaths,
    from: Square,
    to: Square,
    how: Play,
    check: Option<Check>,
    st: &mut Stats<u64>,
) {
    let mut child = *board;
    let dest = match how {
        Play::Piece { kind, capture } => {
            board.play_piece_move_on(kind, from, to, capture, &mut child);
            if matches!(
                kind,
                PieceKind::Knight | PieceKind::Bishop | PieceKind::Rook | PieceKind::Queen
            ) {
                let ksq = board.king(board.side_to_move());
                let line = attacks::line(ksq, from);
                if line.any()
                    && !line.contains(to)
                    && child.is_attacked_by::<S>(ksq, child.side_to_move(), child.occupied())
                {
                    return;
                }
            }
            to
        }
        Play::DoublePush => {
            board.play_double_push_on(from, to, &mut child);
            to
        }
        Play::Promotion { piece, capture } => {
            st.promotions += 1;
            board.play_promotion_on(from, to, piece, capture, &mut child);
            to
        }
        Play::Special(mv) => {
            if mv.kind() == MoveKind::EnPassant {
                st.enpassants += 1;
            }
            board.play_special_on(mv, &mut child);
            moved_to(mv)
        }
    };
    match check {
        Some(check) => {
            let (direct, double) = check.by_mover_and_double();
            record_checked::<S>(&child, paths, direct, double, st);
        }
        None => record::<S>(&child, paths, dest, st),
    }
}

/// `moves` moves of which `captures` capture, as [`LeafSink`] adds them up: the moves in the
/// word's lowest 21 bits, the captures in the next 21, the castles (added by the sink itself)
/// above them. Each count is below [`MAX_MOVES`] < 2^21, so no field carries into the next.
#[inline(always)]
fn tally(moves: u32, captures: u32) -> u64 {
    u64::from(moves) | u64::from(captures) << CAPTURES_AT
}

/// Where [`tally`]'s captures and castles begin, and the mask of one field.
const CAPTURES_AT: u32 = 21;
const CASTLES_AT: u32 = 42;
const TALLY_FIELD: u64 = (1 << CAPTURES_AT) - 1;
const _: () = assert!(MAX_MOVES < 1 << CAPTURES_AT);

const PROMOTIONS: [PieceKind; 4] = [
    PieceKind::Queen,
    PieceKind::Rook,
    PieceKind::Bishop,
    PieceKind::Knight,
];

/// Counts the leaf `child` (reached by a move whose moved piece stands on `dest`; `paths`, the
/// game's castling paths) if it is in check: by kind of check, and as a mate when it has no
/// legal move.
#[inline(always)]
fn record<S: Sliders>(child: &Board, paths: &CastlePaths, dest: Square, st: &mut Stats<u64>) {
    let checkers = child.checkers();
    if checkers.is_empty() {
        return;
    }
    record_checked::<S>(
        child,
        paths,
        checkers.contains(dest),
        checkers.more_than_one(),
        st,
    );
}

/// Counts the leaf `child`, in check by the moved piece (`direct`) or not, and by two pieces
/// (`double`) or one: as a mate when it has no legal move.
#[inline(always)]
fn record_checked<S: Sliders>(
    child: &Board,
    paths: &CastlePaths,
    direct: bool,
    double: bool,
    st: &mut Stats<u64>,
) {
    let mate = !has_reply::<S>(child, paths);
    let field = match (double, direct, mate) {
        (false, true, false) => &mut st.direct_checks,
        (false, false, false) => &mut st.single_discovered_checks,
        (true, true, false) => &mut st.direct_discovered_checks,
        (true, false, false) => &mut st.double_discovered_checks,
        (false, true, true) => &mut st.direct_mates,
        (false, false, true) => &mut st.single_discovered_mates,
        (true, true, true) => &mut st.direct_discovered_mates,
        (true, false, true) => &mut st.double_discovered_mates,
    };
    *field += 1;
}

/// Whether the side to move on `child`, in check, has a legal move. Most checked kings can step
/// aside: a king step to a square no enemy piece attacks (the king lifted off the board, so
/// sliders see through its square) answers at once; otherwise [`answers_check`] looks further.
#[inline(always)]
fn has_reply<S: Sliders>(child: &Board, paths: &CastlePaths) -> bool {
    let us = child.side_to_move();
    let ksq = child.king(us);
    let occupied = child.occupied() - Bitboard::from_square(ksq);
    for to in attacks::king(ksq) - child.color(us) {
        if !child.is_attacked_by::<S>(to, !us, occupied) {
            return true;
        }
    }
    answers_check::<S>(child, paths)
}

/// Whether the side to move on `child`, in check and with no king step, has a legal move: in
/// double check none; in single check, a piece of ours that is not pinned (a pinned piece
/// cannot move in check) taking the checker or stepping between it and our king. Where an
/// en-passant capture is possible the legal moves are counted instead. Out of line: needed
/// only where the king cannot step aside, and it keeps `play_and_record`'s frame small.
#[inline(never)]
fn answers_check<S: Sliders>(child: &Board, paths: &CastlePaths) -> bool {
    let (checkers, pinned) = child.checkers_and_pinned();
    if checkers.more_than_one() {
        return false;
    }
    if checkers.is_empty() || child.ep_square().is_some() {
        return count_replies::<S>(child, paths) > 0;
    }
    let us = child.side_to_move();
    let ksq = child.king(us);
    let checker = checkers.lsb();
    let between = attacks::between(ksq, checker);
    let free = child.color(us) - pinned - Bitboard::from_square(ksq);
    let occupied = child.occupied();
    // Pawns: a capture of the checker, a push or a double push between.
    let pawns = child.kind(PieceKind::Pawn) & free;
    let d = PawnDirs::of(us);
    let double_pushed = (between & d.start_rank.shift(2 * d.up)).shift(-d.up) - occupied;
    if ((attacks::pawn(!us, checker) | between.shift(-d.up) | double_pushed.shift(-d.up)) & pawns)
        .any()
    {
        return true;
    }
    let targets = between | checkers;
    for n in child.kind(PieceKind::Knight) & free {
        if (attacks::knight(n) & targets).any() {
            return true;
        }
    }
    let (straight, diagonal) = child.sliders(us);
    for s in diagonal & free {
        if (S::bishop(s, occupied) & targets).any() {
            return true;
        }
    }
    for s in straight & free {
        if (S::rook(s, occupied) & targets).any() {
            return true;
        }
    }
    false
}

/// The legal moves of `child`, out of line: inlined, the whole generator made its caller's
/// frame large.
#[inline(never)]
fn count_replies<S: Sliders>(child: &Board, paths: &CastlePaths) -> u64 {
    movegen::count_legal_on::<S>(child, paths)
}

/// The statistics of the one leaf `mv` (a legal move of `pos`) leads to, the move played
/// without any filter: for the root's moves of a depth-1 divide. Summed over the moves, it
/// must equal [`leaf_stats_on`] (the tests check that it does).
fn move_stats<S: Sliders>(pos: &Position, mv: Move) -> Stats<u64> {
    let kind = mv.kind();
    let mut st = Stats {
        nodes: 1,
        captures: u64::from(mv.is_capture()),
        enpassants: u64::from(kind == MoveKind::EnPassant),
        castles: u64::from(kind == MoveKind::Castle),
        promotions: u64::from(mv.promotion_piece().is_some()),
        ..Stats::default()
    };
    classify::<S>(pos, mv, &mut st);
    st
}

/// Plays `mv` on a copy of the board and counts the leaf's check and mate, if any.
fn classify<S: Sliders>(pos: &Position, mv: Move, st: &mut Stats<u64>) {
    record::<S>(
        &pos.board_after(mv),
        pos.castle_path_table(),
        moved_to(mv),
        st,
    );
}

/// Where the *moved piece* of `mv` stands after it: the castling rook's square for a castle,
/// the move's destination otherwise.
#[inline(always)]
fn moved_to(mv: Move) -> Square {
    if mv.kind() == MoveKind::Castle {
        mv.castle_rook_to()
    } else {
        mv.to()
    }
}

/// A table of statistics records for [`stats_with`]: whole records, each verified by both
/// 64-bit keys and the depth, so an index collision is a miss, never a wrong record.
pub type StatsTable = Table<Stats<u64>>;

/// Statistics are kept whole, under a lock, both the narrow records and (in a sixty-fourth of
/// the table) the records whose node count passes 2^64.
impl Record for Stats<u64> {
    type Wide = Stats;
    type Part = RecordTable<Stats<u64>>;
    const WIDE_SHARE: usize = 64;
    #[inline(always)]
    fn widen(self) -> Stats {
        Stats::widen(&self)
    }
    fn narrow(wide: &Stats) -> Option<Stats<u64>> {
        // Every field is at most `nodes`: if it fits, they all do.
        wide.nodes.to_u64()?;
        Some(Stats::from_array(
            wide.to_array().map(|v| v.to_u64().unwrap_or(u64::MAX)),
        ))
    }
}

/// The statistics under each root move at `depth` (`depth` >= 1), in generation order, with
/// `threads` threads sharing the work (the tree split as perft splits it), the table if any,
/// and the copy of the code `simd` names (as [`stats_with`]).
pub fn divide_stats<S: Sliders>(
    pos: &Position,
    depth: u32,
    threads: usize,
    table: Option<&StatsTable>,
    simd: Simd,
) -> Vec<(Move, Stats)> {
    divide_leaves::<S, Statistics, ()>(pos, depth, threads, table, simd, &())
}

/// The statistics of the leaves at `depth` with `threads` threads and the table if any (interior
/// nodes of depth 2 and more looked up and stored). The walk is perft's, with `Statistics` at
/// its leaves, in the copy of the code `simd` names: the baseline copy for [`Simd::NONE`], the
/// x86-64-v3 copy otherwise. The statistics leaf has no lanes: a `simd` with lanes runs the
/// same code as one without.
pub fn stats_with<S: Sliders>(
    pos: &Position,
    depth: u32,
    threads: usize,
    table: Option<&StatsTable>,
    simd: Simd,
) -> Stats {
    total_leaves::<S, Statistics>(pos, depth, threads, table, simd)
}

#[cfg(test)]
mod tests {
    use super::{Statistics, Stats, no_reply_checks, stats};
    use crate::attacks::Magic;
    use crate::bitboard::Bitboard;
    use crate::inert::tests::depth_2_nodes;
    use crate::inert::{Inert, SliderReach};
    use crate::movegen::legal_moves;
    use crate::perft::{Baseline, BoardLeaf};
    use crate::position::Position;
    use crate::types::MoveKind;

    /// The moves of `pos` that [`Inert::for_statistics`] lets go unplayed, and the statistics
    /// of their leaves, each move made and its leaves classified.
    fn each_unplayed(pos: &Position) -> (u64, Stats) {
        let reach = SliderReach::of::<Magic>(pos.board());
        let inert = Inert::for_statistics::<Magic>(pos.board(), pos.castle_path_table(), &reach);
        let (mut n, mut total) = (0, Stats::default());
        for &mv in &legal_moves::<Magic>(pos) {
            let Some(piece) = pos.piece_at(mv.from()) else {
                continue;
            };
            let quiet = matches!(mv.kind(), MoveKind::Quiet | MoveKind::DoublePush);
            let to = Bitboard::from_square(mv.to());
            if quiet && inert.unplayed(piece.kind, mv.from(), to).any() {
                let mut child = pos.clone();
                child.make(mv);
                total += stats::<Magic>(&child, 1);
                n += 1;
            }
        }
        (n, total)
    }

    /// Where the opponent has a checking reply, whether it mates may differ from one unplayed
    /// move to the next: the unplayed moves' leaves are then found by playing each, and must
    /// be what making each move gives. Where no reply can give check, they are the board with
    /// no move made, once per move.
    #[test]
    fn unplayed_moves_count_as_if_played() {
        // The position, whether a reply may give check, and whether the unplayed moves'
        // leaves differ from the board with no move made's.
        for (fen, checks, differ) in [
            // Rook to a1 mates unless the knight has gone where it can take on a1 (b3) or
            // block on c1 or e1 (d3): a different number of mates under different moves.
            ("r6k/8/8/2N5/8/8/6PP/7K w - - 0 1", true, true),
            // The rook checks on a1 and e2; neither mates, whatever the knight did.
            ("7k/8/8/8/2N5/8/r7/4K3 w - - 0 1", true, false),
            ("7k/8/8/8/8/8/5PPP/1N4K1 w - - 0 1", false, false),
            // The queen checks from a5, reached along the file, and from no square it reaches
            // along a diagonal: a gate that paired each kind of move with its own kind of line
            // would miss it.
            ("q6k/8/8/8/8/8/4P1PP/1N2K3 w - - 0 1", true, false),
            // Chess960: castling short, their king leaves f8 and their rook lands there,
            // checking along the f-file once the knight has left it: the knight's moves must
            // be played, the pawn's may go unplayed.
            ("5k1r/7p/8/8/8/8/P4N2/5K2 w h - 0 1", false, false),
        ] {
            let pos = Position::from_fen(fen).unwrap();
            assert_eq!(
                no_reply_checks::<Magic>(pos.board()).is_none(),
                checks,
                "{fen}"
            );
            let (n, expected) = each_unplayed(&pos);
            assert!(n > 0, "{fen}: no move left unplayed");
            let mut got = Stats::default();
            Statistics::unplayed::<Magic, Baseline>(&pos, n, &mut got);
            assert_eq!(got.widen(), expected, "{fen}");
            // Where they differ, the board with no move made would not do.
            let times_n = Stats::from_array(passed(&pos).to_array().map(|v| v * n));
            assert_eq!(times_n.widen() != expected, differ, "{fen}");
        }
    }

    /// The statistics of the replies to `pos` with no move made.
    fn passed(pos: &Position) -> Stats<u64> {
        let mut passed = Stats::default();
        Statistics::on_board::<Magic>(&pos.board().passed(), pos.castle_path_table(), &mut passed);
        passed
    }

    /// The statistics let moves go unplayed only where [`no_reply_checks`] answers `Some`, and
    /// count the replies of the board with no move made for them: that is right only if then
    /// no reply gives check. Checked against the leaves' own classification, on positions
    /// where replies do check (which the gate must catch) and where none does.
    #[test]
    fn moves_go_unplayed_only_where_no_reply_gives_check() {
        let (mut open, mut checking) = (0, 0);
        for pos in depth_2_nodes() {
            let checks = passed(&pos).checks();
            if checks > 0 {
                checking += 1;
            }
            if no_reply_checks::<Magic>(pos.board()).is_some() {
                open += 1;
                assert_eq!(checks, 0, "a reply gives check in {}", pos.to_fen());
            }
        }
        // Both kinds met, many times: the assertion was really put to the test.
        eprintln!("{open} open, {checking} checking");
        assert!(
            open > 1000 && checking > 1000,
            "{open} open, {checking} checking"
        );
    }

    /// Where the gate lets moves go unplayed, each unplayed move's leaves are those of the
    /// board with no move made: [`BoardLeaf::unplayed`] must give what making each move and
    /// classifying its leaves gives.
    #[test]
    fn unplayed_moves_count_as_if_played_where_no_reply_checks() {
        let mut compared = 0;
        for pos in depth_2_nodes() {
            if no_reply_checks::<Magic>(pos.board()).is_none() {
                continue;
            }
            let (n, expected) = each_unplayed(&pos);
            if n == 0 {
                continue;
            }
            let mut got = Stats::default();
            Statistics::unplayed::<Magic, Baseline>(&pos, n, &mut got);
            assert_eq!(got.widen(), expected, "{}", pos.to_fen());
            compared += 1;
        }
        eprintln!("{compared} positions compared");
        assert!(compared > 500, "{compared} positions compared");
    }
}
