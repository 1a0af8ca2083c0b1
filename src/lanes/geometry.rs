//! The board's geometry in shifts: directions and the squares a shift may land on, rays by
//! occluded fills, the knight's and king's steps, and the lines of the king of the side to move,
//! read from a table by its square.

use super::Lane;
use crate::attacks;
use crate::bitboard::Bitboard;
use crate::types::Square;

pub(super) const FILE_A: u64 = 0x0101_0101_0101_0101;

pub(super) const FILE_B: u64 = FILE_A << 1;

pub(super) const FILE_G: u64 = FILE_A << 6;

pub(super) const FILE_H: u64 = FILE_A << 7;

/// A direction: the shift of a square index and the squares a shift may land on without
/// wrapping round the board.
#[derive(Clone, Copy)]
pub(super) struct Dir {
    pub(super) shift: i32,
    pub(super) land: u64,
}

pub(super) const N: Dir = Dir { shift: 8, land: !0 };

pub(super) const S: Dir = Dir {
    shift: -8,
    land: !0,
};

pub(super) const E: Dir = Dir {
    shift: 1,
    land: !FILE_A,
};

pub(super) const W: Dir = Dir {
    shift: -1,
    land: !FILE_H,
};

pub(super) const NE: Dir = Dir {
    shift: 9,
    land: !FILE_A,
};

pub(super) const NW: Dir = Dir {
    shift: 7,
    land: !FILE_H,
};

pub(super) const SE: Dir = Dir {
    shift: -7,
    land: !FILE_A,
};

pub(super) const SW: Dir = Dir {
    shift: -9,
    land: !FILE_H,
};

/// The eight slider directions: the four straight ones, then the four diagonal ones; each
/// direction's opposite four places on (mod 8) in its half.
pub(super) const DIRS: [Dir; 8] = [N, E, S, W, NE, SE, SW, NW];

#[inline(always)]
pub(super) fn step<V: Lane>(x: V, d: Dir) -> V {
    x.sh(d.shift) & V::splat(d.land)
}

/// The empty squares a fill in one direction may pass, and their two- and four-step versions
/// (Kogge-Stone), shared by every fill in that direction.
#[derive(Clone, Copy)]
pub(super) struct Open<V> {
    pub(super) p1: V,
    pub(super) p2: V,
    pub(super) p4: V,
}

#[inline(always)]
pub(super) fn open<V: Lane>(empty: V, d: Dir) -> Open<V> {
    let p1 = empty & V::splat(d.land);
    let p2 = p1 & p1.sh(d.shift);
    let p4 = p2 & p2.sh(2 * d.shift);
    Open { p1, p2, p4 }
}

/// Every square the pieces of `from` attack in direction `d`: the empty squares up to the first
/// piece, and that piece.
#[inline(always)]
pub(super) fn ray<V: Lane>(from: V, o: &Open<V>, d: Dir) -> V {
    let g = from | (o.p1 & from.sh(d.shift));
    let g = g | (o.p2 & g.sh(2 * d.shift));
    let g = g | (o.p4 & g.sh(4 * d.shift));
    step(g, d)
}

/// Every square the pieces of `from` (all of them pieces of the board) attack eastwards, given
/// `stops`, the board's pieces and the h-file: subtracting twice a piece borrows from the
/// square east of it up to the first stop, so those are the bits the subtraction changes (the
/// pieces' ranges never overlap, each ending at or before the next piece).
#[inline(always)]
pub(super) fn east<V: Lane>(from: V, stops: V) -> V {
    let r = from.less(V::splat(FILE_H));
    stops ^ stops.sub(r.add(r))
}

/// Every square the pieces of `from` (all of them pieces of the board) attack in direction
/// `DIRS[i]`: eastwards by subtraction ([`east`], `stops` as it takes them), otherwise by a
/// fill through that direction's open squares, `opens[i]`.
#[inline(always)]
pub(super) fn slide<V: Lane>(from: V, i: usize, stops: V, opens: &[Open<V>; 8]) -> V {
    if i == 1 {
        east(from, stops)
    } else {
        ray(from, &opens[i], DIRS[i])
    }
}

/// The lines of the king of the side to move, which is the same king on the same square in
/// every lane: the boards of a batch are the children of one position, and the side to move in
/// them is the side that did not move there. Read from a table by the king's square instead of
/// filled set-wise from it (a ray from one known square is cut at its first piece in three or
/// four operations, against eight for a fill); its other squares (neighbours, knight squares,
/// all straight or diagonal rays at once) come from the attack tables.
#[derive(Clone, Copy)]
pub(super) struct KingLines {
    /// Per direction of [`DIRS`], the squares from the king to the edge of the board.
    pub(super) rays: [u64; 8],
    /// Per direction, the square next to the king (none at the edge).
    pub(super) steps: [u64; 8],
    /// Per direction, the squares from which a slider's ray in that direction could reach
    /// the king's square, a square next to it or, with the king on the first or last rank,
    /// that rank (where castling passes): the only squares whose being attacked the counter
    /// reads (a pinning slider's ray also reaches a square next to the king, or the king).
    pub(super) cones: [u64; 8],
}

/// The index in the attack tables' directions (`attacks::ray_walk`) of each of [`DIRS`].
pub(super) const TABLE_DIR: [usize; 8] = [0, 1, 4, 5, 2, 7, 6, 3];

/// [`KingLines`] by square, built at compile time by the attack tables' ray walk (on an empty
/// board the whole ray, on a full one the next square).
pub(super) static KING_LINES: [KingLines; 64] = {
    let mut t = [KingLines {
        rays: [0; 8],
        steps: [0; 8],
        cones: [0; 8],
    }; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut d = 0;
        while d < 8 {
            let from = Square::new(sq as u8);
            t[sq].rays[d] = attacks::ray_walk(from, TABLE_DIR[d], Bitboard::EMPTY).0;
            t[sq].steps[d] = attacks::ray_walk(from, TABLE_DIR[d], Bitboard(!0)).0;
            d += 1;
        }
        sq += 1;
    }
    // The cones, from the rays just made: a ray in direction `d` reaches a square of the
    // zone exactly where a ray the opposite way from that square reaches it.
    let mut sq = 0;
    while sq < 64 {
        let rank = 0xffu64 << (sq / 8 * 8);
        let mut zone = 1u64 << sq;
        let mut d = 0;
        while d < 8 {
            zone |= t[sq].steps[d];
            d += 1;
        }
        if sq < 8 || sq >= 56 {
            zone |= rank;
        }
        let mut d = 0;
        while d < 8 {
            let mut cone = 0;
            let mut z = 0;
            while z < 64 {
                if zone & (1u64 << z) != 0 {
                    cone |= t[z].rays[opposite(d)];
                }
                z += 1;
            }
            t[sq].cones[d] = cone;
            d += 1;
        }
        sq += 1;
    }
    t
};

/// The squares of `ray` (from the king outwards in direction `d`) up to its first piece of
/// `occ`, and that piece. Towards h8 the first piece is the lowest bit of `ray & occ`; towards
/// a1 the highest, found by counting leading zeros.
#[inline(always)]
pub(super) fn king_ray<V: Lane>(ray: V, occ: V, d: Dir) -> V {
    let b = ray & occ;
    if d.shift > 0 {
        // b ^ (b - 1): every bit up to the lowest of b (all if b is empty).
        ray & (b ^ b.sub(V::splat(1)))
    } else {
        // The bits below the highest of b (none if b is empty), taken away.
        ray.less(b.below_highest(-d.shift))
    }
}

/// The direction of [`DIRS`] opposite direction `i`: two places on in its half.
#[inline(always)]
pub(super) const fn opposite(i: usize) -> usize {
    // N E S W NE SE SW NW -> S W N E SW NW NE SE
    (i & 4) | ((i + 2) & 3)
}

/// The line (0 file, 1 rank, 2 one diagonal, 3 the other) of direction `i` of [`DIRS`].
#[inline(always)]
pub(super) const fn line_of(i: usize) -> usize {
    // N E S W NE SE SW NW -> 0 1 0 1 2 3 2 3
    (i & 1) | ((i & 4) >> 1)
}

/// Every square the knights of `n` attack: one and two files aside, then two and one ranks up
/// and down.
#[inline(always)]
pub(super) fn knight_attacks<V: Lane>(n: V) -> V {
    let one = step(n, E) | step(n, W);
    let two = (n.sh(2) & V::splat(!(FILE_A | FILE_B))) | (n.sh(-2) & V::splat(!(FILE_G | FILE_H)));
    one.sh(16) | one.sh(-16) | two.sh(8) | two.sh(-8)
}

/// The squares next to the pieces of `k`: a row of three, then the rows above and below.
#[inline(always)]
pub(super) fn king_attacks<V: Lane>(k: V) -> V {
    let row = k | step(k, E) | step(k, W);
    (row | row.sh(8) | row.sh(-8)).less(k)
}
