//! The counter the lanes share, written once over the vector type: the boards of a batch side
//! by side, the legal moves of every lane counted set-wise, castling added from the attacks the
//! lanes computed.

use super::geometry::{
    DIRS, FILE_H, KING_LINES, N, NE, NW, Open, S, SE, SW, east, king_attacks, king_ray,
    knight_attacks, line_of, open, ray, step,
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
    /// Puts `board`'s pieces in lane `lane`.
    #[inline(always)]
    pub(super) fn set(&mut self, lane: usize, board: &Board) {
        for k in PieceKind::ALL {
            self.kinds[k.index()][lane] = board.kind(k).0;
        }
        self.colors[0][lane] = board.color(Color::White).0;
        self.colors[1][lane] = board.color(Color::Black).0;
    }
}

/// The legal moves of each lane's board, castling and en passant left out, with `us` to move in
/// every lane, our king on `king` and our knights among `our_knights` in every lane; and the
/// squares the enemy attacks (with our king on the board), for castling.
#[inline(always)]
pub(super) fn count_lanes<V: Lane, const WHITE: bool, const DIAG: bool>(
    b: &Batch,
    at: usize,
    king: Square,
    our_knights: Bitboard,
) -> (V, V) {
    let lines = &KING_LINES[king.index()];
    let (us, them) = if WHITE { (0, 1) } else { (1, 0) };
    let own = V::load(&b.colors[us][at..]);
    let enemy = V::load(&b.colors[them][at..]);
    let occ = own | enemy;
    let empty = !occ;
    // Loaded one by one, not by an array `map`: a closure does not take on the target
    // features of the function it is written in, and where the compiler leaves it out of
    // line, every vector operation in it becomes a call.
    let k = &b.kinds;
    let [pawns, knights, bishops, rooks, queens, kings] = [
        V::load(&k[0][at..]),
        V::load(&k[1][at..]),
        V::load(&k[2][at..]),
        V::load(&k[3][at..]),
        V::load(&k[4][at..]),
        V::load(&k[5][at..]),
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
            e_att[I] = ray(e, &o, d);
        }
        attacked = attacked | e_att[I];
    });

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
                let opposite = (I & 4) | ((I + 2) & 3);
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
    // Every count but the knights' added up in `tally`: at most 19 sets (king, eight slider
    // directions, four pawn sets, six promotion sets).
    let mut tally = V::tally_zero();
    tally = (V::splat(attacks::king(king).0).less(own | attacked | behind)).tally(tally);
    let mut count = V::splat(0);

    // Knights: our knights stand on the same squares in every lane (a capture only takes one
    // away), so each one's squares come from the table, counted in the lanes where it stands
    // and is not pinned.
    let free = !pinned;
    let n = knights & own & free;
    for sq in our_knights {
        let here = n.meets(V::splat(Bitboard::from_square(sq).0));
        let moves = V::splat(attacks::knight(sq).0) & targets;
        count = count.add(moves.popcnt_where(here));
    }

    // Sliders: in each direction those not pinned or pinned along that direction's line.
    unroll8!(I => {
        let d = DIRS[I];
        let src = if I < 4 { straight } else { diagonal };
        let src = src & (free | pin_lines[line_of(I)]);
        if DIAG || I < 4 {
            let moves = if I == 1 { east(src, stops) } else { ray(src, &opens[I], d) };
            tally = (moves & targets).tally(tally);
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
    let one = one & mask;
    let two = two & mask;
    tally = two.tally(one.tally(tally));
    // NE and SW lie on line 2, NW and SE on line 3.
    let (line_l, line_r) = if WHITE { (3, 2) } else { (2, 3) };
    let take_l = step(p & (free | pin_lines[line_l]), up_l) & enemy & mask;
    let take_r = step(p & (free | pin_lines[line_r]), up_r) & enemy & mask;
    tally = take_r.tally(take_l.tally(tally));
    // Promotions (a pawn on the seventh rank in some lane: rare) count three more each.
    let seventh = if WHITE { last >> 8 } else { last << 8 };
    if p.any_meets(V::splat(seventh)) {
        let promoted = [(one | take_l) & V::splat(last), take_r & V::splat(last)];
        for _ in 0..3 {
            tally = promoted[1].tally(promoted[0].tally(tally));
        }
    }
    let count = count.add(V::tally_total(tally));
    (count, attacked)
}

/// Whether `board` (whose side to move keeps the castling rooks `rooks`) is counted by the
/// one-board counter instead of in a lane: it has an en-passant square, or castles along a path
/// its rook screens (Chess960), which the lanes' castling test does not cover.
#[inline(always)]
pub(super) fn one_board_only(board: &Board, rooks: Bitboard, paths: &CastlePaths) -> bool {
    board.ep_square().is_some()
        || (rooks.any() && {
            let [a, b] = paths.of(board.side_to_move());
            (a.rook_screens && (rooks & a.rook).any()) || (b.rook_screens && (rooks & b.rook).any())
        })
}

/// What the boards of a batch have in common: the side to move, its king's square, and every
/// square one of its knights stands on in some board.
#[derive(Clone, Copy)]
pub(crate) struct Mover {
    pub(super) side: Color,
    pub(super) king: Square,
    pub(super) knights: Bitboard,
}

/// The legal moves of the boards in the lanes from `at` of `batch` (as many as the vector
/// holds), all with `mover`'s side to move, king and knights, castling included (`rooks`: each
/// lane's castling rooks of the side to move); en passant left out.
#[inline(always)]
pub(super) fn count_batch<V: Lane>(
    batch: &Batch,
    rooks: &[u64; LANES],
    at: usize,
    mover: Mover,
    paths: &CastlePaths,
) -> V {
    let Mover {
        side,
        king,
        knights,
    } = mover;
    let white = side == Color::White;
    // Without a bishop or queen in any lane, no diagonal ray is needed.
    let [_, _, bishops, _, queens, _] = &batch.kinds;
    let diagonal = (V::load(&bishops[at..]) | V::load(&queens[at..])).nonzero();
    let (mut c, attacked) = match (white, diagonal.any_meets(diagonal)) {
        (true, true) => count_lanes::<V, true, true>(batch, at, king, knights),
        (false, true) => count_lanes::<V, false, true>(batch, at, king, knights),
        (true, false) => count_lanes::<V, true, false>(batch, at, king, knights),
        (false, false) => count_lanes::<V, false, false>(batch, at, king, knights),
    };
    // Castling: the paths are the same in every lane (one game, one side to move).
    let rooks = V::load(&rooks[at..]);
    let occ = V::load(&batch.colors[0][at..]) | V::load(&batch.colors[1][at..]);
    for path in paths.of(side) {
        let has = (rooks & V::splat(path.rook.0)).nonzero();
        let shut = (occ & V::splat(path.empty.0)) | (attacked & V::splat(path.king_path.0));
        c = c.add(has.less(shut.nonzero()) & V::splat(1));
    }
    c
}

/// The side to move and its king's square: the same in every lane of a batch.
pub(super) fn mover(board: &Board) -> (Color, Square) {
    (board.side_to_move(), board.king(board.side_to_move()))
}
