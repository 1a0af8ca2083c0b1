//! The legal moves of several boards at once, counted set-wise: every piece set of the boards
//! side by side in one vector of 64-bit lanes, every attack computed for whole sets of pieces by
//! shifts (occluded fills for the sliders), so that the same instructions count the replies to
//! several moves. No square is looped over; the tables read are those of the side to move's
//! king and knights, on the same squares in every lane. The counter is written once, generic
//! over its vector (`Lane`): eight lanes in an AVX-512 register (`V512`, where the CPU has
//! AVX-512 F, CD and VPOPCNTDQ, [`crate::cpu::has_avx512_lanes`]), each operation one
//! instruction; or four in an AVX2 register (`V256`, any x86-64-v3 CPU), a batch of eight
//! boards counted in two halves, the population counts by nibble lookups (`vpshufb`) summed
//! once per half, a leading-zero count by a smear. Explicit intrinsics: left to the
//! auto-vectoriser, the counter fell back to scalar code on small changes.
//!
//! A move is counted in the direction it goes: a shift by one direction is one-to-one, so the
//! number of pieces of a set that can move one way is the population count of the shifted set,
//! and the sum over directions is the number of moves. En passant is left to the one-board
//! counter (a board with an en-passant square never enters a lane), castling is added from the
//! enemy attacks the lanes computed.

use crate::position::CastlePaths;
use crate::stats::Stats;
pub(crate) use kernel::{
    BISHOP_LINES, Batch, KNIGHT_CHECKS, Mover, PAWN_CHECKS, ROOK_LINES, SLIDER_CHECKS,
    one_board_only,
};
#[cfg(test)]
pub(crate) use stats::BatchStats;
pub(crate) use stats::{CheckSets, LeftLanes, slider_from};
use std::ops::{BitAnd, BitOr, BitXor, Not};

/// Boards per batch: eight, one to a lane of an AVX-512 register, or two halves of four in
/// AVX2 registers.
pub(crate) const LANES: usize = 8;

/// One 64-bit word of each board of a batch (or of half of it), side by side in one vector
/// register: [`V512`] (eight lanes, AVX-512) or [`V256`] (four lanes, AVX2). The operations are
/// written as methods for reading's sake; each is one instruction, or a few, once inlined into
/// the counter, which is compiled for the vector's instructions and run only where the CPU has
/// them.
pub(crate) trait Lane:
    Copy + BitAnd<Output = Self> + BitOr<Output = Self> + BitXor<Output = Self> + Not<Output = Self>
{
    /// A choice of lanes, as [`Lane::meets`] makes it.
    type Mask: Copy;
    /// `x` in every lane.
    fn splat(x: u64) -> Self;
    /// The vector's lanes.
    const WIDTH: usize;
    /// The first words of `words`, one to a lane.
    fn load(words: &[u64]) -> Self;
    /// [`Lane::load`] of words aligned to the vector's size (where unaligned 32-byte loads
    /// are compiled as two 16-byte halves, as in the x86-64-v3 copies, this is one load).
    ///
    /// # Safety
    /// `words` must start at a multiple of the vector's size in bytes.
    unsafe fn load_aligned(words: &[u64]) -> Self;
    /// The sum of the first `n` lanes (at most the vector's lanes).
    fn sum_first(self, n: usize) -> u64;
    /// Every lane shifted by `s` squares, up (towards h8) if positive (a constant once inlined,
    /// which the compiler turns into the immediate form).
    fn sh(self, s: i32) -> Self;
    /// Each lane's population count.
    fn popcnt(self) -> Self;
    /// Lane-wise sum.
    fn add(self, o: Self) -> Self;
    /// Lane-wise product of the low 32 bits of each lane (both under 2^32: exact).
    fn mul_low(self, o: Self) -> Self;
    /// Lane-wise difference.
    fn sub(self, o: Self) -> Self;
    /// All ones in the lanes that are not zero.
    fn nonzero(self) -> Self;
    /// Which lanes of `self & o` are not empty.
    fn meets(self, o: Self) -> Self::Mask;
    /// Whether `m` chose any lane.
    fn any(m: Self::Mask) -> bool;
    /// Whether `self & o` is not empty in some lane.
    #[inline(always)]
    fn any_meets(self, o: Self) -> bool {
        Self::any(self.meets(o))
    }
    /// Population counts added up as they come, read once at the end ([`Lane::tally_total`]);
    /// at most 255 squares added up in any one byte of a lane (an AVX2 tally counts by bytes).
    type Tally: Copy;
    /// No sets added yet.
    fn tally_zero() -> Self::Tally;
    /// `t` with the population count of `self` added, lane by lane.
    fn tally(self, t: Self::Tally) -> Self::Tally;
    /// `t` with the population count of `self` added in the lanes of `m`.
    fn tally_where(self, m: Self::Mask, t: Self::Tally) -> Self::Tally;
    /// `t` with the population count of `self` added, the squares of `rank` (one rank: one
    /// byte of each lane) counted four times (a pawn's move onto the last rank is four
    /// promotions).
    #[inline(always)]
    fn tally_promoting(self, rank: u64, t: Self::Tally) -> Self::Tally {
        let r = self & Self::splat(rank);
        r.tally(r.tally(r.tally(self.tally(t))))
    }
    /// Each lane's sum.
    fn tally_total(t: Self::Tally) -> Self;
    /// `self | o` in the lanes of `m`, `self` in the others.
    fn or_where(self, m: Self::Mask, o: Self) -> Self;
    /// The population count in the lanes of `m`, zero in the others.
    fn popcnt_where(self, m: Self::Mask) -> Self;
    /// `self` less `o`.
    fn less(self, o: Self) -> Self;
    /// The bits below the highest of each lane (none in an empty lane), where each lane's bits
    /// lie on one line, `step` squares apart: only the bits of that line need be right.
    fn below_highest(self, step: i32) -> Self;
    /// The legal moves of the first `n` boards of `batch`, each taken `times` its lane's
    /// number, castling included, en passant left out (see [`count_batch`]).
    ///
    /// # Safety
    /// The CPU must have the vector's instructions.
    ///
    /// [`count_batch`]: kernel::count_batch
    unsafe fn count(
        batch: &Batch,
        rooks: &[u64; LANES],
        times: &[u64; LANES],
        n: usize,
        mover: Mover,
        paths: &CastlePaths,
    ) -> u64;
    /// [`Lane::count`] of each board of a full batch.
    ///
    /// # Safety
    /// As [`Lane::count`].
    unsafe fn count_each(
        batch: &Batch,
        rooks: &[u64; LANES],
        mover: Mover,
        paths: &CastlePaths,
    ) -> [u64; LANES];
    /// The statistics the lanes give of the first `n` boards of `batch` (see
    /// [`BatchStats`](stats::BatchStats)): the counts added to `total`, the direct checks'
    /// destinations in `sets`, and the lanes left to be finished one board at a time.
    ///
    /// # Safety
    /// As [`Lane::count`].
    #[allow(clippy::too_many_arguments)]
    unsafe fn stats(
        batch: &Batch,
        rooks: &[u64; LANES],
        times: &[u64; LANES],
        weighted: u8,
        n: usize,
        mover: Mover,
        paths: &CastlePaths,
        sets: &mut CheckSets,
        total: &mut Stats<u64>,
    ) -> LeftLanes;
    /// The lanes, stored in the first words of `out`, one to a lane.
    fn store(self, out: &mut [u64]);
    /// Which lanes are not zero: bit `i` for lane `i`.
    fn lanes(self) -> u8;
}

// SAFETY (every `unsafe` block of `V512`'s operations): the intrinsics need AVX-512F
// (VPOPCNTDQ for the population count, CD for the leading-zero count); `V512` values exist only
// inside the counter, which runs only where `cpu::has_avx512_lanes` said yes.

// SAFETY (every `unsafe` block of `V256`'s operations): the intrinsics need AVX2; `V256` values
// exist only inside the counter, which runs only where `cpu::has_v3` said yes.

macro_rules! vector_bit_ops {
    ($v:ident, $and:ident, $or:ident, $xor:ident) => {
        impl BitAnd for $v {
            type Output = $v;
            #[inline(always)]
            fn bitand(self, o: $v) -> $v {
                $v(unsafe { $and(self.0, o.0) })
            }
        }
        impl BitOr for $v {
            type Output = $v;
            #[inline(always)]
            fn bitor(self, o: $v) -> $v {
                $v(unsafe { $or(self.0, o.0) })
            }
        }
        impl BitXor for $v {
            type Output = $v;
            #[inline(always)]
            fn bitxor(self, o: $v) -> $v {
                $v(unsafe { $xor(self.0, o.0) })
            }
        }
        impl Not for $v {
            type Output = $v;
            #[inline(always)]
            fn not(self) -> $v {
                self ^ $v::splat(!0)
            }
        }
    };
}

/// `$body` eight times, with `$i` a constant 0 to 7 in each: the direction loops unrolled in the
/// source, so that every shift is by a constant (left as loops, they were compiled with
/// variable shifts and gathers).
macro_rules! unroll8 {
    ($i:ident => $body:block) => {{
        {
            const $i: usize = 0;
            $body
        }
        {
            const $i: usize = 1;
            $body
        }
        {
            const $i: usize = 2;
            $body
        }
        {
            const $i: usize = 3;
            $body
        }
        {
            const $i: usize = 4;
            $body
        }
        {
            const $i: usize = 5;
            $body
        }
        {
            const $i: usize = 6;
            $body
        }
        {
            const $i: usize = 7;
            $body
        }
    }};
}

mod avx2;
mod avx512;
mod batches;
mod geometry;
mod kernel;
mod stats;

pub(crate) use avx2::V256;
pub(crate) use avx512::V512;
pub(crate) use batches::Lanes;
#[cfg(feature = "internals")]
pub use batches::{count_each, count_total};
