//! The classical ray scan: the baseline slider implementation.
//!
//! For each direction, take the open ray from the square, find the first blocker on it with a
//! bit scan (forward for directions that raise the square index, reverse for the others) and
//! remove whatever lies beyond that blocker, which is the blocker's own ray in the same direction.

use super::{RAYS, Sliders};
use crate::bitboard::Bitboard;
use crate::types::Square;

/// Slider attacks by ray scan over the per-square ray tables.
#[derive(Clone, Copy, Default, Debug)]
pub struct Classical;

/// The ray from `sq` in a direction that raises the index (N, E, NE, NW), cut after its first
/// blocker (the lowest occupied square on it).
#[inline(always)]
fn positive_ray(dir: usize, sq: Square, occupied: Bitboard) -> Bitboard {
    let ray = RAYS[dir][sq.index()];
    let blockers = ray & occupied;
    if blockers.is_empty() {
        ray
    } else {
        ray ^ RAYS[dir][blockers.lsb().index()]
    }
}

/// The ray from `sq` in a direction that lowers the index (S, W, SW, SE), cut after its first
/// blocker (the highest occupied square on it).
#[inline(always)]
fn negative_ray(dir: usize, sq: Square, occupied: Bitboard) -> Bitboard {
    let ray = RAYS[dir][sq.index()];
    let blockers = ray & occupied;
    if blockers.is_empty() {
        ray
    } else {
        ray ^ RAYS[dir][blockers.msb().index()]
    }
}

impl Sliders for Classical {
    const NAME: &'static str = "classical";

    #[inline(always)]
    fn rook(sq: Square, occupied: Bitboard) -> Bitboard {
        positive_ray(0, sq, occupied)
            | positive_ray(1, sq, occupied)
            | negative_ray(4, sq, occupied)
            | negative_ray(5, sq, occupied)
    }

    #[inline(always)]
    fn bishop(sq: Square, occupied: Bitboard) -> Bitboard {
        positive_ray(2, sq, occupied)
            | positive_ray(3, sq, occupied)
            | negative_ray(6, sq, occupied)
            | negative_ray(7, sq, occupied)
    }
}
