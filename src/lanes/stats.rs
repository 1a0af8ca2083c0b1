//! What the lanes tell of a batch's boards for leaf statistics, from the counter's sets
//! ([`count_batch`] with `STATS`): which lanes are left to the one-board leaf, the direct
//! checks counted in the lanes where their king keeps a flight ([`kept_flights`]), and the
//! check sets of the others, to be played one board at a time.

use super::geometry::{
    DIRS, KING_LINES, NE, NW, SE, SW, king_attacks, knight_attacks, open, opposite, ray, step,
};
use super::kernel::{
    BISHOP_LINES, Batch, CHECK_SETS, Counted, KNIGHT_CHECKS, Mover, PAWN_CHECKS, ROOK_LINES,
    SLIDER_CHECKS, count_batch,
};
use super::{LANES, Lane};
use crate::attacks;
use crate::bitboard::Bitboard;
use crate::position::CastlePaths;
use crate::stats::Stats;
use crate::types::{Color, PieceKind, Square};

/// What the lanes tell of a batch's boards for statistics: the moves, captures and castles of
/// the boards they classify (all but those left to the one-board leaf), each board's taken
/// as many times as it counts; which boards (lanes, one bit each) are left to it (`each`),
/// among them every board that counts more than once and has a move that gives or may give
/// check; the direct checks of the others where no checking move can take all their king's
/// flights ([`kept_flights`]); which of the rest have a move that gives a direct check
/// (`direct`), whose checking moves [`CheckSets`] holds, to be played for mates; and which
/// have a castle that may give check (`castling`), to be played ([`CheckSets::castles`]).
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub(crate) struct BatchStats {
    pub(crate) moves: u64,
    pub(crate) captures: u64,
    pub(crate) castles: u64,
    /// The direct checks counted in the lanes ([`kept_flights`]); the other lanes' are in
    /// [`CheckSets`].
    pub(crate) direct_checks: u64,
    pub(crate) each: u8,
    pub(crate) direct: u8,
    pub(crate) castling: u8,
}

/// Which lanes of a batch are left to be finished one board at a time: the part of a
/// [`BatchStats`] that [`Lane::stats`] returns, its counts added where the caller keeps them
/// ([`BatchStats::add_to`]).
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub(crate) struct LeftLanes {
    pub(crate) each: u8,
    pub(crate) direct: u8,
    pub(crate) castling: u8,
}

impl LeftLanes {
    /// The lanes left of two parts of a batch together (their lanes' bits apart).
    #[inline(always)]
    pub(super) fn join(self, o: LeftLanes) -> LeftLanes {
        LeftLanes {
            each: self.each | o.each,
            direct: self.direct | o.direct,
            castling: self.castling | o.castling,
        }
    }
}

impl BatchStats {
    /// Adds the counts to `total`, and gives the lanes left. Done by the kernel itself:
    /// returned in memory and added by the caller, two counts the kernel had stored apart were
    /// read back with one 16-byte load, which must wait for both stores to complete
    /// (docs/performance.md).
    #[inline(always)]
    pub(super) fn add_to(self, total: &mut Stats<u64>) -> LeftLanes {
        total.nodes += self.moves;
        total.captures += self.captures;
        total.castles += self.castles;
        total.direct_checks += self.direct_checks;
        LeftLanes {
            each: self.each,
            direct: self.direct,
            castling: self.castling,
        }
    }
}

/// The direct checks of a batch: per set of [`CHECK_SETS`], per lane, the destinations of the
/// moves that give direct check; and per lane, which of the sets before [`ROOK_LINES`] hold
/// one (bit `j` for set `j`), so that a lane's checking moves are found without a test, and a
/// branch the CPU mispredicts, for each of its sets (most of them are empty).
/// Also per lane, their king's flights with no move made: the squares next to it with none of
/// its pieces that no piece of ours attacks (right only in the lanes not left to the one-board
/// leaf), from which a checking move's leaf is often known not to be mate without the move.
/// And per lane, in the lanes [`BatchStats::castling`] marks, the castles that may give check:
/// bit `i` for the `i`th path of [`CastlePaths::of`].
#[derive(Clone, Copy)]
pub(crate) struct CheckSets {
    pub(crate) sets: [[u64; LANES]; CHECK_SETS],
    pub(crate) groups: [u64; LANES],
    pub(crate) flights: [u64; LANES],
    pub(crate) castles: [u64; LANES],
}

impl CheckSets {
    pub(crate) const EMPTY: CheckSets = CheckSets {
        sets: [[0; LANES]; CHECK_SETS],
        groups: [0; LANES],
        flights: [0; LANES],
        castles: [0; LANES],
    };
}

/// [`BatchStats`] of the first `n` boards in the lanes from `at` of `batch` (as
/// [`count_batch`]), the lanes' bits numbered from `at`; the lanes' check sets stored in
/// `sets` from `at` where some lane has a direct check. The boards of the lanes `weighted`
/// marks (bits numbered as the lanes') count `times` over: those with a move that gives or
/// may give check are left to the one-board leaf (whether a check mates may differ between
/// the moves such a board stands for), the others' figures multiplied.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn batch_stats<V: Lane>(
    batch: &Batch,
    rooks: &[u64; LANES],
    times: &[u64; LANES],
    weighted: u8,
    at: usize,
    n: usize,
    mover: Mover,
    paths: &CastlePaths,
    sets: &mut CheckSets,
) -> BatchStats {
    let c = count_batch::<V, true>(batch, rooks, at, mover, paths);
    let skip = c.fallback;
    let mut any = V::splat(0);
    for set in &c.checks[..ROOK_LINES] {
        any = any | *set;
    }
    let direct = any.nonzero().less(skip);
    let (each, checking) = (lane_bits(skip, n, at), lane_bits(direct, n, at));
    // The lanes whose direct checks are counted here, not one board at a time: their number,
    // and the lanes (bits as `checking`'s).
    let mut direct_checks = V::splat(0);
    let mut counted = 0;
    if checking != 0 {
        for (out, set) in sets.sets.iter_mut().zip(&c.checks) {
            set.store(&mut out[at..]);
        }
        let mut groups = V::splat(0);
        for (j, set) in c.checks[..ROOK_LINES].iter().enumerate() {
            groups = groups.or_where(set.meets(*set), V::splat(1 << j));
        }
        groups.store(&mut sets.groups[at..]);
        // Their king's flights: only for batches with a direct check, from the sliders'
        // attacks the kernel kept and the leapers' found here.
        let white = mover.side == Color::White;
        let (us, them) = if white { (0, 1) } else { (1, 0) };
        let own = batch.color::<V>(us, at);
        let enemy = batch.color(them, at);
        let p = batch.kind::<V>(PieceKind::Pawn.index(), at) & own;
        let (up_l, up_r) = if white { (NW, NE) } else { (SW, SE) };
        let our_att = c.slider_attacks
            | step(p, up_l)
            | step(p, up_r)
            | knight_attacks(batch.kind::<V>(PieceKind::Knight.index(), at) & own)
            | V::splat(attacks::king(mover.king).0);
        let e_king = batch.kind::<V>(PieceKind::King.index(), at) & enemy;
        let flights = king_attacks(e_king).less(enemy | our_att);
        flights.store(&mut sets.flights[at..]);
        let kept = kept_flights(batch, &c, at, mover, e_king, flights, direct);
        let resolved = direct & kept.flights.nonzero();
        counted = lane_bits(resolved, n, at);
        if counted != 0 {
            direct_checks = kept.checks & resolved;
        }
    }
    // A castle that may check: rare (their king on our back rank or the d- or f-file).
    let castle_lanes = c.castle_checks.nonzero().less(skip);
    let mut castling = 0;
    if castle_lanes.any_meets(castle_lanes) {
        c.castle_checks.store(&mut sets.castles[at..]);
        castling = lane_bits(castle_lanes, n, at);
    }
    let count = c.count.less(skip);
    let (captures, castles) = (c.captures.less(skip), c.castles.less(skip));
    if weighted == 0 {
        return BatchStats {
            moves: count.sum_first(n),
            captures: captures.sum_first(n),
            castles: castles.sum_first(n),
            direct_checks: direct_checks.sum_first(n),
            each,
            direct: checking & !counted,
            castling,
        };
    }
    // Boards that count more than once: those that may check are counted by the one-board
    // leaf, so they count zero times here.
    let odd = weighted & (checking | castling);
    let odd_lanes = (V::load(&LANE_BITS[at..]) & V::splat(u64::from(odd))).nonzero();
    let times = V::load(&times[at..]).less(odd_lanes);
    BatchStats {
        moves: count.mul_low(times).sum_first(n),
        captures: captures.mul_low(times).sum_first(n),
        castles: castles.mul_low(times).sum_first(n),
        direct_checks: direct_checks.mul_low(times).sum_first(n),
        each: each | odd,
        direct: checking & !odd & !counted,
        castling: castling & !odd,
    }
}

/// Each lane's bit in the masks of a batch's lanes, one to a lane.
const LANE_BITS: [u64; LANES] = [1, 2, 4, 8, 16, 32, 64, 128];

/// The lanes of `v` among the first `n` that are not zero, as the bits of a batch's lanes
/// from `at` (the first lane's bit is bit `at`).
#[inline(always)]
fn lane_bits<V: Lane>(v: V, n: usize, at: usize) -> u8 {
    let first = ((1u16 << n) - 1) as u8;
    (v.lanes() & first) << at
}

/// What [`kept_flights`] finds in each lane.
struct Kept<V> {
    /// Their king's flights that every direct check leaves it (none where the lanes do not
    /// count the checks).
    flights: V,
    /// The direct checks, where some flight is kept.
    checks: V,
}

/// Per lane, their king's `flights` (with no move made) that every move giving direct check
/// leaves it, and the number of those moves: the lanes where some flight is left have no mate
/// among those checks. Where a flight holds none of their pieces and no piece of ours attacks
/// it, a move of ours that gives direct check takes it away only by landing on it, by attacking
/// it from where it lands, or by opening a line to it for one of our sliders through the square
/// it leaves (no other attack of ours changes, as no move of these lanes uncovers a check, and
/// with their king lifted off the board, no line through it is opened but the checker's). So a
/// flight is left by every checking move if none lands on it, none of the pieces leaping to a
/// checking square attacks it from there, and no slider of ours, nor any piece sliding to a
/// checking square, reaches it along a line that only their pieces other than their king
/// block: our pieces are seen through, as the square a move leaves is one of them. A straight
/// move onto a square only a bishop checks from (or a diagonal one where only a rook does) is
/// kept in the sets for a queen's sake: it checks where a queen's line in the move's direction
/// reaches it, followed where some lane has one. A lane where two knights of ours check from
/// the same square, which their set holds once, is left out.
#[inline(always)]
fn kept_flights<V: Lane>(
    batch: &Batch,
    c: &Counted<V>,
    at: usize,
    mover: Mover,
    e_king: V,
    flights: V,
    direct: V,
) -> Kept<V> {
    let none = Kept {
        flights: V::splat(0),
        checks: V::splat(0),
    };
    let white = mover.side == Color::White;
    let (us, them) = if white { (0, 1) } else { (1, 0) };
    let own = batch.color::<V>(us, at);
    let enemy = batch.color::<V>(them, at);
    // Squares a knight move of ours reaches from two knights: counted once in their set.
    let knights = batch.kind::<V>(PieceKind::Knight.index(), at) & own;
    let (mut once, mut twice) = (V::splat(0), V::splat(0));
    for sq in mover.knights {
        let here = knights.meets(V::splat(Bitboard::from_square(sq).0));
        let reach = V::splat(attacks::knight(sq).0);
        twice = twice.or_where(here, once & reach);
        once = once.or_where(here, reach);
    }
    let uncounted = (c.checks[KNIGHT_CHECKS] & twice).nonzero();
    let (rook_lines, bishop_lines) = (c.checks[ROOK_LINES], c.checks[BISHOP_LINES]);
    let (mut by_rook, mut by_bishop) = (V::splat(0), V::splat(0));
    let mut odd = [V::splat(0); 8];
    for (i, odd) in odd.iter_mut().enumerate() {
        let set = c.checks[SLIDER_CHECKS + i];
        if i < 4 {
            *odd = set & bishop_lines.less(rook_lines);
            by_rook = by_rook | set;
        } else {
            *odd = set & rook_lines.less(bishop_lines);
            by_bishop = by_bishop | set;
        }
    }
    let p = PAWN_CHECKS;
    let pawn_squares = c.checks[p] | c.checks[p + 1] | c.checks[p + 2] | c.checks[p + 3];
    let (up_l, up_r) = if white { (NW, NE) } else { (SW, SE) };
    let landing = by_rook | by_bishop | c.checks[KNIGHT_CHECKS] | pawn_squares;
    let leaping = knight_attacks(c.checks[KNIGHT_CHECKS])
        | step(pawn_squares, up_l)
        | step(pawn_squares, up_r);
    let left = flights.less(landing | leaping).less(uncounted);
    // Where no lane with a direct check has a flight left by now, no line need be followed.
    if !(left.nonzero() & direct).any_meets(direct) {
        return none;
    }
    let queens = batch.kind::<V>(PieceKind::Queen.index(), at) & own;
    let straight = (batch.kind::<V>(PieceKind::Rook.index(), at) & own) | queens;
    let diagonal = (batch.kind::<V>(PieceKind::Bishop.index(), at) & own) | queens;
    // The checks: each square of each set is reached by one piece, the first behind it;
    // a square only a queen checks from is a check where that piece is a queen.
    let mut checks = c.checks[KNIGHT_CHECKS].popcnt();
    for set in &c.checks[PAWN_CHECKS..ROOK_LINES] {
        checks = checks.add(set.popcnt());
    }
    let empty_now = !(own | enemy);
    unroll8!(I => {
        let d = DIRS[I];
        let mut set = c.checks[SLIDER_CHECKS + I];
        if odd[I].any_meets(odd[I]) {
            let by_queen = ray(queens, &open(empty_now, d), d);
            set = set.less(odd[I].less(by_queen));
        }
        checks = checks.add(set.popcnt());
    });
    let mut seen = V::splat(0);
    // A queen that lands on a checking square attacks along both kinds of line from it.
    let q = queens.nonzero();
    let from_straight = straight | by_rook | (by_bishop & q);
    let from_diagonal = diagonal | by_bishop | (by_rook & q);
    let empty = !enemy.less(e_king);
    unroll8!(I => {
        let d = DIRS[I];
        let src = if I < 4 { from_straight } else { from_diagonal };
        seen = seen | ray(src, &open(empty, d), d);
    });
    Kept {
        flights: left.less(seen),
        checks,
    }
}

/// The square of the slider whose move in direction `dir` of [`DIRS`] reached `to` on a board
/// whose pieces are `occupied` (the move not made): the first piece from `to` the other way.
#[inline(always)]
pub(crate) fn slider_from(to: Square, dir: usize, occupied: Bitboard) -> Square {
    let back = opposite(dir);
    let behind = Bitboard(KING_LINES[to.index()].rays[back]) & occupied;
    if DIRS[back].shift > 0 {
        behind.lsb()
    } else {
        behind.msb()
    }
}
