//! The counter the lanes share, written once over the vector type: the boards of a batch side
//! by side, the legal moves of every lane counted set-wise, castling added from the attacks the
//! lanes computed.

#[cfg(doc)]
use super::geometry::KingLines;
use super::geometry::{
    DIRS, FILE_A, FILE_H, KING_LINES, N, NE, NW, Open, S, SE, SW, east, king_attacks, king_ray,
    knight_attacks, line_of, open, opposite, ray, slide, step,
};
use super::{LANES, Lane};
use crate::attacks;
use crate::bitboard::Bitboard;
use crate::position::{Board, CastlePaths};
use crate::types::{Color, PieceKind, Square};

/// The eight boards of a batch, piece sets side by side.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
pub(crate) struct Batch {
    pub(super) kinds: [[u64; LANES]; 6],
    pub(super) colors: [[u64; LANES]; 2],
}

impl Batch {
    /// The board in lane `lane`, `side` to move, with the castling rooks `castling` (a board
    /// in a lane has no en-passant square).
    #[inline(always)]
    pub(crate) fn board(&self, lane: usize, side: Color, castling: Bitboard) -> Board {
        let k = &self.kinds;
        Board::from_sets(
            [
                Bitboard(k[0][lane]),
                Bitboard(k[1][lane]),
                Bitboard(k[2][lane]),
                Bitboard(k[3][lane]),
                Bitboard(k[4][lane]),
                Bitboard(k[5][lane]),
            ],
            [Bitboard(self.colors[0][lane]), Bitboard(self.colors[1][lane])],
            side,
            castling,
        )
    }

    /// Lanes `at..` of the sets of piece kind `k` (by [`PieceKind::index`]), in one vector.
    #[inline(always)]
    pub(super) fn kind<V: Lane>(&self, k: usize, at: usize) -> V {
        Batch::row(&self.kinds[k], at)
    }

    /// Lanes `at..` of the pieces of colour `c` (by [`Color::index`]), in one vector.
    #[inline(always)]
    pub(super) fn color<V: Lane>(&self, c: usize, at: usize) -> V {
        Batch::row(&self.colors[c], at)
    }

    /// Lanes `at..` of `row`, a row of a batch.
    #[inline(always)]
    fn row<V: Lane>(row: &[u64; LANES], at: usize) -> V {
        assert!(at.is_multiple_of(V::WIDTH));
        // SAFETY: `row` is one of a batch's rows, 64 bytes each from the batch's 64-byte
        // alignment, and `at` a multiple of the vector's lanes: its words start at a multiple
        // of the vector's size.
        unsafe { V::load_aligned(&row[at..]) }
    }

    /// Puts `board`'s pieces in lane `lane`.
    #[inline(always)]
    pub(crate) fn set(&mut self, lane: usize, board: &Board) {
        for k in PieceKind::ALL {
            self.kinds[k.index()][lane] = board.kind(k).0;
        }
        self.colors[0][lane] = board.color(Color::White).0;
        self.colors[1][lane] = board.color(Color::Black).0;
    }
}

/// What [`count_lanes`] finds in each lane: the legal moves (castling and en passant left out)
/// and the squares the enemy attacks (with our king on the board), for castling; and for
/// statistics (`STATS`, else zero) the captures among the moves, the lanes the statistics leave
/// to the one-board leaf, and the moves that give a direct check.
#[derive(Clone, Copy)]
pub(super) struct Counted<V> {
    pub(super) count: V,
    /// Right only on our king's zone, its square, its neighbours and (on the first or last
    /// rank) that rank, which holds its castling paths ([`KingLines::cones`]).
    pub(super) attacked: V,
    pub(super) captures: V,
    /// All ones in the lanes left to the one-board leaf: where a move may uncover a check or
    /// promote.
    pub(super) fallback: V,
    /// The destinations of the moves that give a direct check, by group (see
    /// [`KNIGHT_CHECKS`]), and the squares a rook and a bishop check from.
    pub(super) checks: [V; CHECK_SETS],
    /// The castles among the moves ([`count_batch`] only; zero unless `STATS`).
    pub(super) castles: V,
    /// The castles that may give check, to be played: bit `i` for the `i`th path of
    /// [`CastlePaths::of`] ([`count_batch`] only; zero unless `STATS`).
    pub(super) castle_checks: V,
    /// Every square our sliders attack, the pinned ones' off their pin lines included
    /// (`STATS`; zero without), for their king's flights.
    pub(super) slider_attacks: V,
}

/// Where each group's checking moves stand in [`Counted::checks`] and
/// [`CheckSets`](super::CheckSets): the knights' here; the sliders' in each of the eight
/// directions of [`DIRS`] from [`SLIDER_CHECKS`] (a straight move onto a bishop's check square,
/// or a diagonal one onto a rook's, is kept in every lane with a queen of ours: it checks only
/// if a queen made it); the pawns' single pushes, double pushes and captures to the left and to
/// the right from [`PAWN_CHECKS`]; then the squares a rook ([`ROOK_LINES`]) and a bishop
/// ([`BISHOP_LINES`]) check their king from.
pub(crate) const KNIGHT_CHECKS: usize = 0;
pub(crate) const SLIDER_CHECKS: usize = 1;
pub(crate) const PAWN_CHECKS: usize = 9;
pub(crate) const ROOK_LINES: usize = 13;
pub(crate) const BISHOP_LINES: usize = 14;
pub(crate) const CHECK_SETS: usize = 15;

/// The legal moves of each lane's board, castling and en passant left out, with `us` to move in
/// every lane, our king on `king` and our knights among `our_knights` in every lane; and the
/// squares the enemy attacks (with our king on the board), for castling. With `STATS`, also
/// each lane's captures; its moves onto a square from which their piece kind attacks their king
/// (the lines from that king filled set-wise), the direct checks; and the lanes left to the
/// one-board leaf: with a piece of ours first on a line from their king and one of our sliders
/// of that line behind it (a discovered check), or a pawn of ours that may promote. A board
/// with pinned pieces stays in its lane: their moves are counted as they are, and the rays a
/// pinned slider attacks along but cannot move along are followed apart, for the discovered
/// checks behind it and their king's flights.
#[inline(always)]
pub(super) fn count_lanes<V: Lane, const WHITE: bool, const DIAG: bool, const STATS: bool>(
    b: &Batch,
    at: usize,
    king: Square,
    our_knights: Bitboard,
) -> Counted<V> {
    let lines = &KING_LINES[king.index()];
    let (us, them) = if WHITE { (0, 1) } else { (1, 0) };
    let own: V = b.color(us, at);
    let enemy = b.color(them, at);
    let occ = own | enemy;
    let empty = !occ;
    // Loaded one by one, not by an array `map`: a closure does not take on the target
    // features of the function it is written in, and where the compiler leaves it out of
    // line, every vector operation in it becomes a call.
    let [pawns, knights, bishops, rooks, queens, kings]: [V; 6] = [
        b.kind(0, at),
        b.kind(1, at),
        b.kind(2, at),
        b.kind(3, at),
        b.kind(4, at),
        b.kind(5, at),
    ];
    let straight = (rooks | queens) & own;
    let diagonal = (bishops | queens) & own;
    let e_straight = (rooks | queens) & enemy;
    let e_diagonal = (bishops | queens) & enemy;

    // Per direction: the enemy sliders' attacks, and the open-square masks kept for our
    // sliders' rays once the pins are known (no diagonal ones without bishops and queens).
    let mut e_att = [V::splat(0); 8];
    let mut opens = [Open {
        p1: V::splat(0),
        p2: V::splat(0),
        p4: V::splat(0),
    }; 8];
    let mut attacked = V::splat(0);
    // Eastwards (along the bits of a rank, upwards) by subtraction instead.
    let stops = occ | V::splat(FILE_H);
    unroll8!(I => {
        let d = DIRS[I];
        let e = if I < 4 { e_straight } else { e_diagonal };
        if I == 1 {
            e_att[I] = east(e, stops);
        } else if DIAG || I < 4 {
            let o = open(empty, d);
            opens[I] = o;
            // Only the attacks on our king's zone are read ([`KingLines::cones`]): in most
            // batches with the king on its back rank, no lane has an enemy slider from which
            // the rays going up or along that rank could reach it.
            if V::splat(lines.cones[I]).any_meets(e) {
                e_att[I] = ray(e, &o, d);
            }
        }
        attacked = attacked | e_att[I];
    });

    // Statistics: the lines from their king up to the first piece, in each direction.
    let e_king = kings & enemy;
    let mut from_e_king = [V::splat(0); 8];
    if STATS {
        unroll8!(I => {
            if DIAG || I < 4 {
                from_e_king[I] = slide(e_king, I, stops, &opens);
            }
        });
    }
    let rook_checks = from_e_king[0] | from_e_king[1] | from_e_king[2] | from_e_king[3];
    let bishop_checks = from_e_king[4] | from_e_king[5] | from_e_king[6] | from_e_king[7];
    // A straight move checks from a square on their king's straight lines, or, for a queen,
    // its diagonal ones (counted in every lane with a queen of ours: a superset).
    let our_queens = (queens & own).nonzero();
    let straight_checks = rook_checks | (bishop_checks & our_queens);
    let diagonal_checks = bishop_checks | (rook_checks & our_queens);
    let mut fallback = V::splat(0);
    let mut checks = [V::splat(0); CHECK_SETS];
    checks[ROOK_LINES] = rook_checks;
    checks[BISHOP_LINES] = bishop_checks;
    let mut captures = V::tally_zero();

    // Checkers, pins (per line), the squares behind the king on a checking line, and the
    // blocking squares of a checking line.
    // The king's eight neighbours, one direction each (its steps, and the square behind it).
    let st = &lines.steps;
    let k_step = [
        V::splat(st[0]),
        V::splat(st[1]),
        V::splat(st[2]),
        V::splat(st[3]),
        V::splat(st[4]),
        V::splat(st[5]),
        V::splat(st[6]),
        V::splat(st[7]),
    ];
    let mut checkers = V::splat(0);
    let mut slider_attacks = V::splat(0);
    let mut pin_lines = [V::splat(0); 4];
    let mut behind = V::splat(0);
    let mut block = V::splat(0);
    // A slider checks or pins only from one of the king's lines: in most batches no lane has
    // an enemy slider on any of them, and none of this is needed.
    let on_lines = (V::splat(attacks::rook_empty(king).0) & e_straight)
        | (V::splat(attacks::bishop_empty(king).0) & e_diagonal);
    if on_lines.any_meets(on_lines) {
        unroll8!(I => {
            let e = if I < 4 { e_straight } else { e_diagonal };
            // Each line only where some lane has an enemy slider of its kind on it.
            if (DIAG || I < 4) && V::splat(lines.rays[I]).any_meets(e) {
                let k_ray = king_ray(V::splat(lines.rays[I]), occ, DIRS[I]);
                let opposite = opposite(I);
                let checking = k_ray.meets(e);
                checkers = checkers | (k_ray & e);
                block = block.or_where(checking, k_ray);
                behind = behind.or_where(checking, k_step[opposite]);
                // Our piece first on the king's ray, and first on an enemy slider's ray
                // towards it.
                let l = line_of(I);
                pin_lines[l] = pin_lines[l] | (k_ray & e_att[opposite] & own);
            }
        });
        // A pinned slider's rays off its pin line, not moves but attacks all the same: they
        // take their king's flights away, and a piece of ours first on one of them from
        // their king uncovers a check when it moves. Only in the batches with one (rare).
        if STATS {
            let pinned = pin_lines[0] | pin_lines[1] | pin_lines[2] | pin_lines[3];
            let pinned_sliders = pinned & (straight | diagonal);
            if pinned_sliders.any_meets(pinned_sliders) {
                unroll8!(I => {
                    let src = if I < 4 { straight } else { diagonal };
                    let src = src & pinned.less(pin_lines[line_of(I)]);
                    if DIAG || I < 4 {
                        let reach = slide(src, I, stops, &opens);
                        slider_attacks = slider_attacks | reach;
                        fallback = fallback | (reach & own & from_e_king[opposite(I)]);
                    }
                });
            }
        }
    }
    let pinned = pin_lines[0] | pin_lines[1] | pin_lines[2] | pin_lines[3];

    // Enemy leapers.
    let e_pawns = pawns & enemy;
    let e_knights = knights & enemy;
    let (e_pawn_l, e_pawn_r) = if WHITE { (SW, SE) } else { (NW, NE) };
    attacked = attacked | step(e_pawns, e_pawn_l) | step(e_pawns, e_pawn_r);
    attacked = attacked | knight_attacks(e_knights) | king_attacks(kings & enemy);
    let (up_l, up_r) = if WHITE { (NW, NE) } else { (SW, SE) };
    // NW and NE are DIRS[7] and [4], SW and SE [6] and [5].
    let (step_l, step_r) = if WHITE { (7, 4) } else { (6, 5) };
    checkers = checkers
        | ((k_step[step_l] | k_step[step_r]) & e_pawns)
        | (V::splat(attacks::knight(king).0) & e_knights);

    // Evasions: none in double check, the checking line in single check.
    let none = !checkers.nonzero();
    let single = !(checkers & checkers.sub(V::splat(1))).nonzero();
    let mask = none | (single & (checkers | block));
    let targets = mask.less(own);

    // King steps.
    // Every move counted in `tally`. In any one byte of a lane (a rank) it adds up at most
    // 3 king steps, 2 moves of each knight, 8 moves in each slider direction and 8 moves of
    // each of the two pawn sets, four times over on the last rank: 131 and 2 a knight, under
    // the 255 of a byte with up to 62 knights, more than any board holds.
    let mut tally = V::tally_zero();
    let steps = V::splat(attacks::king(king).0).less(own | attacked | behind);
    tally = steps.tally(tally);
    if STATS {
        captures = (steps & enemy).tally(captures);
    }

    // Knights: our knights stand on the same squares in every lane (a capture only takes one
    // away), so each one's squares come from the table, counted in the lanes where it stands
    // and is not pinned.
    let free = !pinned;
    let n = knights & own & free;
    let knight_checks = if STATS {
        knight_attacks(e_king)
    } else {
        V::splat(0)
    };
    let mut knight_captures = V::splat(0);
    for sq in our_knights {
        let here = n.meets(V::splat(Bitboard::from_square(sq).0));
        let moves = V::splat(attacks::knight(sq).0) & targets;
        tally = moves.tally_where(here, tally);
        if STATS {
            knight_captures = knight_captures.add((moves & enemy).popcnt_where(here));
            checks[KNIGHT_CHECKS] = checks[KNIGHT_CHECKS].or_where(here, moves & knight_checks);
        }
    }

    // Sliders: in each direction those not pinned or pinned along that direction's line.
    unroll8!(I => {
        let src = if I < 4 { straight } else { diagonal };
        let src = src & (free | pin_lines[line_of(I)]);
        if DIAG || I < 4 {
            let moves = slide(src, I, stops, &opens);
            let legal = moves & targets;
            tally = legal.tally(tally);
            if STATS {
                slider_attacks = slider_attacks | moves;
                captures = (legal & enemy).tally(captures);
                let on_check_lines = if I < 4 { straight_checks } else { diagonal_checks };
                checks[SLIDER_CHECKS + I] = legal & on_check_lines;
                // A piece of ours first from their king on the line this ray comes along
                // (the opposite direction from their king): moving it off may uncover a check.
                let opposite = opposite(I);
                fallback = fallback | (moves & own & from_e_king[opposite]);
            }
        }
    });
    // Pawns: pushes by those free or pinned along the file, captures by those free or pinned
    // along that capture's diagonal; a move onto the last rank counts four.
    let p = pawns & own;
    let (up, last, third) = if WHITE {
        (N, 0xff00_0000_0000_0000u64, 0x0000_0000_00ff_0000u64)
    } else {
        (S, 0xffu64, 0x0000_ff00_0000_0000u64)
    };
    let pushers = p & (free | pin_lines[0]);
    let one = step(pushers, up) & empty;
    let two = step(one & V::splat(third), up) & empty;
    // NE and SW lie on line 2, NW and SE on line 3.
    let (line_l, line_r) = if WHITE { (3, 2) } else { (2, 3) };
    let take_l = step(p & (free | pin_lines[line_l]), up_l) & enemy;
    let take_r = step(p & (free | pin_lines[line_r]), up_r) & enemy & mask;
    // The pushes and the captures to the left counted as one set: a push lands on an empty
    // square, a capture on an enemy piece, and a double push where no single push can (the
    // square it passes is empty, so no pawn stands there).
    let pushes_and_left = (one | two | take_l) & mask;
    // A move onto the last rank (from the seventh, in some lane: rare) counts four.
    let seventh = if WHITE { last >> 8 } else { last << 8 };
    if p.any_meets(V::splat(seventh)) {
        tally = pushes_and_left.tally_promoting(last, tally);
        tally = take_r.tally_promoting(last, tally);
    } else {
        tally = take_r.tally(pushes_and_left.tally(tally));
    }
    if STATS {
        let (one, two, take_l) = (one & mask, two & mask, take_l & mask);
        captures = take_r.tally(take_l.tally(captures));
        // The squares a pawn of ours checks their king from.
        let pawn_checks = step(e_king, e_pawn_l) | step(e_king, e_pawn_r);
        checks[PAWN_CHECKS] = one & pawn_checks;
        checks[PAWN_CHECKS + 1] = two & pawn_checks;
        checks[PAWN_CHECKS + 2] = take_l & pawn_checks;
        checks[PAWN_CHECKS + 3] = take_r & pawn_checks;
        fallback = fallback | (p & V::splat(seventh));
    }
    let count = V::tally_total(tally);
    Counted {
        count,
        attacked,
        captures: knight_captures.add(V::tally_total(captures)),
        fallback: fallback.nonzero(),
        checks,
        castles: V::splat(0),
        castle_checks: V::splat(0),
        slider_attacks,
    }
}

/// Whether `board` (whose side to move keeps the castling rooks `rooks`) is counted by the
/// one-board counter instead of in a lane: it has an en-passant square, or castles along a path
/// its rook screens (Chess960), which the lanes' castling test does not cover.
#[inline(always)]
pub(crate) fn one_board_only(board: &Board, rooks: Bitboard, paths: &CastlePaths) -> bool {
    board.ep_square().is_some() || (rooks & paths.screening_rooks(board.side_to_move())).any()
}

/// What the boards of a batch have in common: the side to move, its king's square, and every
/// square one of its knights stands on in some board.
#[derive(Clone, Copy)]
pub(crate) struct Mover {
    pub(super) side: Color,
    pub(super) king: Square,
    pub(super) knights: Bitboard,
}

impl Mover {
    /// Boards with `side` to move, its king and knights where they stand on `board`.
    #[inline(always)]
    pub(crate) fn of_side(board: &Board, side: Color) -> Mover {
        Mover {
            side,
            king: board.king(side),
            knights: board.pieces(side, PieceKind::Knight),
        }
    }

    /// The side to move.
    #[inline(always)]
    pub(crate) fn side(&self) -> Color {
        self.side
    }

    /// Whether boards whose side to move has its king and knights where they stand on
    /// `board` may join a batch of this mover's (the king on the same square, no knight on a
    /// new one); if not, this mover becomes theirs.
    #[inline(always)]
    pub(crate) fn rebase(&mut self, board: &Board) -> bool {
        let (king, knights) = (
            board.king(self.side),
            board.pieces(self.side, PieceKind::Knight),
        );
        if king == self.king && (knights - self.knights).is_empty() {
            return true;
        }
        self.king = king;
        self.knights = knights;
        false
    }
}

/// The legal moves of the boards in the lanes from `at` of `batch` (as many as the vector
/// holds), all with `mover`'s side to move, king and knights, castling included (`rooks`: each
/// lane's castling rooks of the side to move); en passant left out. With `STATS`, also the
/// captures, the castles, the direct checks, the lanes left to the one-board leaf
/// ([`count_lanes`]) and the castles that may give check, to be played: where their king
/// stands on the d- or f-file or on our back rank, the lines of the squares the rook lands on.
#[inline(always)]
pub(super) fn count_batch<V: Lane, const STATS: bool>(
    batch: &Batch,
    rooks: &[u64; LANES],
    at: usize,
    mover: Mover,
    paths: &CastlePaths,
) -> Counted<V> {
    let Mover {
        side,
        king,
        knights,
    } = mover;
    let white = side == Color::White;
    // Without a bishop or queen in any lane, no diagonal ray is needed.
    let bishops = batch.kind::<V>(PieceKind::Bishop.index(), at);
    let diagonal = (bishops | batch.kind(PieceKind::Queen.index(), at)).nonzero();
    let mut c = match (white, diagonal.any_meets(diagonal)) {
        (true, true) => count_lanes::<V, true, true, STATS>(batch, at, king, knights),
        (false, true) => count_lanes::<V, false, true, STATS>(batch, at, king, knights),
        (true, false) => count_lanes::<V, true, false, STATS>(batch, at, king, knights),
        (false, false) => count_lanes::<V, false, false, STATS>(batch, at, king, knights),
    };
    // Castling: the paths are the same in every lane (one game, one side to move); nothing to
    // do where no lane keeps a castling rook, as in most batches away from the opening.
    let rooks = V::load(&rooks[at..]);
    let mut castles = V::splat(0);
    let mut legal = V::splat(0);
    if rooks.any_meets(rooks) {
        let occ = batch.color::<V>(0, at) | batch.color(1, at);
        let mut bit = 1;
        for path in paths.of(side) {
            let has = (rooks & V::splat(path.rook.0)).nonzero();
            let shut =
                (occ & V::splat(path.empty.0)) | (c.attacked & V::splat(path.king_path.0));
            let open = has.less(shut.nonzero());
            castles = castles.add(open & V::splat(1));
            if STATS {
                legal = legal | (open & V::splat(bit));
                bit <<= 1;
            }
        }
        c.count = c.count.add(castles);
    }
    if STATS {
        let them = usize::from(white);
        let e_king = batch.kind::<V>(PieceKind::King.index(), at) & batch.color(them, at);
        let back_rank = if white { 0xffu64 } else { 0xffu64 << 56 };
        let lines = back_rank | (FILE_A << 3) | (FILE_A << 5);
        c.castle_checks = legal & (e_king & V::splat(lines)).nonzero();
        c.castles = castles;
    }
    c
}

/// The side to move and its king's square: the same in every lane of a batch.
pub(super) fn mover(board: &Board) -> (Color, Square) {
    (board.side_to_move(), board.king(board.side_to_move()))
}
