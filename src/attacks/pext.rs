//! PEXT sliders: the BMI2 instruction `pext(occupied, mask)` packs the relevant occupancy bits
//! into a dense index, so no magic multiplier is needed. Same fancy layout as [`super::magic`]
//! (`2^bits` entries per square at a per-square offset), filled at compile time.
//!
//! Every x86-64 build has them; the CPU must have BMI2 (Intel since Haswell, 2013; AMD since
//! Excavator, fast since Zen 3), which [`Pext::available`] tells at run time. A build for a BMI2
//! target (`-C target-cpu=native`) uses the compiler's intrinsic; any other build emits the
//! instruction by inline assembly, so the lookup costs the same and stays inline, with no check
//! per call: the check is made once, where the slider implementation is chosen.

use super::Sliders;
use super::magic::{
    BISHOP_ENTRIES, Lookup, Lookups, MagicEntry, ROOK_ENTRIES, TABLE_LEN, lookups, ray_scan_dirs,
};
use crate::bitboard::Bitboard;
use crate::types::Square;

/// Slider attacks indexed by BMI2 `pext`. Use it only where [`Pext::available`] says the CPU
/// has the instruction.
#[derive(Clone, Copy, Default, Debug)]
pub struct Pext;

impl Pext {
    /// Whether PEXT is fast on this CPU (BMI2, and not microcoded as on AMD before Zen 3): where
    /// it is, the default sliders are these.
    pub fn is_fast() -> bool {
        super::pext_is_fast()
    }
}

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

impl Pext {
    /// Whether this CPU has the `pext` instruction. Run nothing through [`Pext`] unless it does:
    /// on a CPU without BMI2 the first lookup stops the process (illegal instruction).
    pub fn available() -> bool {
        crate::cpu::has_bmi2()
    }

    /// Whether this CPU runs `pext` in microcode: AMD's before Zen 3 (family 0x19) take tens
    /// to hundreds of cycles per `pext`, against three for a multiply, so magic is faster there.
    pub fn microcoded() -> bool {
        let (ebx, edx, ecx, eax) = crate::cpu::signature();
        microcoded_on(ebx, edx, ecx, eax)
    }
}

/// [`Pext::microcoded`] for the CPU whose `cpuid` leaf 0 gave the vendor string in `ebx`,
/// `edx`, `ecx` and whose leaf 1 gave the signature `eax`.
#[doc(hidden)]
pub fn microcoded_on(ebx: u32, edx: u32, ecx: u32, eax: u32) -> bool {
    let mut vendor = [0u8; 12];
    for (i, r) in [ebx, edx, ecx].into_iter().enumerate() {
        vendor[4 * i..4 * i + 4].copy_from_slice(&r.to_le_bytes());
    }
    // The family: the base field, plus the extended field when the base is 0xF.
    let base = (eax >> 8) & 0xF;
    let family = if base == 0xF {
        base + ((eax >> 20) & 0xFF)
    } else {
        base
    };
    &vendor == b"AuthenticAMD" && family < 0x19
}

/// `pext(value, mask)`: the bits of `value` selected by `mask`, packed into the low bits.
#[inline(always)]
fn pext(value: u64, mask: u64) -> u64 {
    #[cfg(target_feature = "bmi2")]
    // SAFETY: the build targets BMI2, so the instruction exists.
    unsafe {
        std::arch::x86_64::_pext_u64(value, mask)
    }
    #[cfg(not(target_feature = "bmi2"))]
    {
        let packed: u64;
        // SAFETY: `pext` reads two registers and writes one; it touches no memory, stack or
        // flags. The CPU has it: `Pext` is chosen only after `Pext::available` (see above).
        unsafe {
            std::arch::asm!(
                "pext {packed}, {value}, {mask}",
                packed = lateout(reg) packed,
                value = in(reg) value,
                mask = in(reg) mask,
                options(pure, nomem, nostack, preserves_flags),
            );
        }
        packed
    }
}

static ROOK_LOOKUPS: Lookups = lookups(&ROOK_ENTRIES, &TABLE);
static BISHOP_LOOKUPS: Lookups = lookups(&BISHOP_ENTRIES, &TABLE);

#[inline(always)]
fn lookup(l: &Lookup, occupied: Bitboard) -> Bitboard {
    // SAFETY: `pext` with a mask of `bits` bits is below `2^bits`, and each square owns `2^bits`
    // entries from where `attacks` points, within `TABLE` (see `magic::build_entries`).
    unsafe { *l.attacks.add(pext(occupied.0, l.mask) as usize) }
}

impl Sliders for Pext {
    const NAME: &'static str = "pext";

    #[inline(always)]
    fn rook(sq: Square, occupied: Bitboard) -> Bitboard {
        lookup(&ROOK_LOOKUPS.0[sq.index()], occupied)
    }

    #[inline(always)]
    fn bishop(sq: Square, occupied: Bitboard) -> Bitboard {
        lookup(&BISHOP_LOOKUPS.0[sq.index()], occupied)
    }
}
