//! PEXT sliders: the BMI2 instruction `pext(occupied, mask)` packs the relevant occupancy bits
//! into a dense index, so no magic multiplier is needed. Same fancy layout as [`super::magic`]
//! (`2^bits` entries per square at a per-square offset), filled at compile time.
//!
//! Compiled only when the build targets BMI2 (`RUSTFLAGS="-C target-cpu=native"` on a CPU that
//! has it): without it, the instruction would not exist, or be emulated slowly.

use super::Sliders;
use super::magic::{BISHOP_ENTRIES, MagicEntry, ROOK_ENTRIES, TABLE_LEN, ray_scan_dirs};
use crate::bitboard::Bitboard;
use crate::types::Square;
use std::arch::x86_64::_pext_u64;

/// Slider attacks indexed by BMI2 `pext`.
#[derive(Clone, Copy, Default, Debug)]
pub struct Pext;

const fn fill(table: &mut [Bitboard; TABLE_LEN], entries: &[MagicEntry; 64], rook: bool) {
    let mut s = 0;
    while s < 64 {
        let e = &entries[s];
        // The carry-rippler enumeration visits the subsets in `pext` order: the n-th subset is
        // the one whose `pext` is n. So the index is a counter.
        let mut subset = 0u64;
        let mut i = e.offset as usize;
        loop {
            table[i] = ray_scan_dirs(Square::new(s as u8), Bitboard(subset), rook);
            i += 1;
            subset = subset.wrapping_sub(e.mask.0) & e.mask.0;
            if subset == 0 {
                break;
            }
        }
        s += 1;
    }
}

/// The packed attack table, indexed by `offset + pext(occupied, mask)`.
/// About 3 million steps of const evaluation (a few seconds of build), past the point where the
/// `long_running_const_eval` lint suspects an infinite loop.
#[allow(long_running_const_eval)]
static TABLE: [Bitboard; TABLE_LEN] = {
    let mut table = [Bitboard::EMPTY; TABLE_LEN];
    fill(&mut table, &ROOK_ENTRIES, true);
    fill(&mut table, &BISHOP_ENTRIES, false);
    table
};

#[inline(always)]
fn lookup(e: &MagicEntry, occupied: Bitboard) -> Bitboard {
    // SAFETY: this module is compiled only with the `bmi2` target feature enabled, so the
    // instruction exists. `pext` with a mask of `bits` bits is below `2^bits`, and each square
    // owns `2^bits` entries from `offset`, within `TABLE_LEN` (see `magic::build_entries`).
    unsafe {
        let i = e.offset as usize + _pext_u64(occupied.0, e.mask.0) as usize;
        *TABLE.get_unchecked(i)
    }
}

impl Sliders for Pext {
    const NAME: &'static str = "pext";

    #[inline(always)]
    fn rook(sq: Square, occupied: Bitboard) -> Bitboard {
        lookup(&ROOK_ENTRIES[sq.index()], occupied)
    }

    #[inline(always)]
    fn bishop(sq: Square, occupied: Bitboard) -> Bitboard {
        lookup(&BISHOP_ENTRIES[sq.index()], occupied)
    }
}
