//! The lanes in an AVX2 register: four boards, a batch of eight counted in two halves; the
//! population counts by nibble lookups (`vpshufb`) summed once per half, a leading-zero count by
//! a smear; the counter's copies compiled for x86-64-v3.

use super::kernel::{Batch, Mover, count_batch};
use super::stats::{CheckSets, LeftLanes, batch_stats};
use super::{LANES, Lane};
use crate::position::CastlePaths;
use crate::stats::Stats;
use std::arch::x86_64::*;
use std::ops::{BitAnd, BitOr, BitXor, Not};

/// One 64-bit word of each of four boards, in one AVX2 register.
#[derive(Clone, Copy)]
pub(crate) struct V256(__m256i);

impl Lane for V256 {
    /// All ones in the lanes chosen.
    type Mask = V256;
    #[inline(always)]
    fn splat(x: u64) -> V256 {
        V256(unsafe { _mm256_set1_epi64x(x as i64) })
    }
    const WIDTH: usize = 4;
    #[inline(always)]
    fn load(words: &[u64]) -> V256 {
        assert!(words.len() >= 4);
        V256(unsafe { _mm256_loadu_si256(words.as_ptr().cast()) })
    }
    #[inline(always)]
    unsafe fn load_aligned(words: &[u64]) -> V256 {
        assert!(words.len() >= 4);
        // SAFETY: the caller's alignment; the length checked.
        V256(unsafe { _mm256_load_si256(words.as_ptr().cast()) })
    }
    #[inline(always)]
    fn sum_first(self, n: usize) -> u64 {
        unsafe {
            let first =
                _mm256_cmpgt_epi64(_mm256_set1_epi64x(n as i64), _mm256_setr_epi64x(0, 1, 2, 3));
            let v = _mm256_and_si256(self.0, first);
            let s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
            _mm_cvtsi128_si64(_mm_add_epi64(s, _mm_unpackhi_epi64(s, s))) as u64
        }
    }
    #[inline(always)]
    fn sh(self, s: i32) -> V256 {
        unsafe {
            if s >= 0 {
                V256(_mm256_sllv_epi64(self.0, _mm256_set1_epi64x(i64::from(s))))
            } else {
                V256(_mm256_srlv_epi64(self.0, _mm256_set1_epi64x(i64::from(-s))))
            }
        }
    }
    /// No population count instruction for vectors before AVX-512: each nibble's count looked
    /// up in a 16-entry table (`vpshufb`), the bytes of each lane summed (`vpsadbw`).
    #[inline(always)]
    fn popcnt(self) -> V256 {
        V256(unsafe { _mm256_sad_epu8(byte_counts(self.0), _mm256_setzero_si256()) })
    }
    #[inline(always)]
    fn add(self, o: V256) -> V256 {
        V256(unsafe { _mm256_add_epi64(self.0, o.0) })
    }
    #[inline(always)]
    fn mul_low(self, o: V256) -> V256 {
        V256(unsafe { _mm256_mul_epu32(self.0, o.0) })
    }
    #[inline(always)]
    fn sub(self, o: V256) -> V256 {
        V256(unsafe { _mm256_sub_epi64(self.0, o.0) })
    }
    #[inline(always)]
    fn nonzero(self) -> V256 {
        unsafe { !V256(_mm256_cmpeq_epi64(self.0, _mm256_setzero_si256())) }
    }
    #[inline(always)]
    fn meets(self, o: V256) -> V256 {
        (self & o).nonzero()
    }
    #[inline(always)]
    fn any(m: V256) -> bool {
        unsafe { _mm256_testz_si256(m.0, m.0) == 0 }
    }
    #[inline(always)]
    fn any_meets(self, o: V256) -> bool {
        unsafe { _mm256_testz_si256(self.0, o.0) == 0 }
    }
    /// Byte by byte: each set's count per byte (at most 8) added to the bytes, the bytes of each
    /// lane summed once at the end (`vpsadbw`), instead of after every set.
    type Tally = V256;
    #[inline(always)]
    fn tally_zero() -> V256 {
        V256::splat(0)
    }
    #[inline(always)]
    fn tally(self, t: V256) -> V256 {
        V256(unsafe { _mm256_add_epi8(t.0, byte_counts(self.0)) })
    }
    #[inline(always)]
    fn tally_where(self, m: V256, t: V256) -> V256 {
        (self & m).tally(t)
    }
    /// The rank's byte of each lane's counts taken three times more: three additions in
    /// place of three more population counts.
    #[inline(always)]
    fn tally_promoting(self, rank: u64, t: V256) -> V256 {
        unsafe {
            let counts = byte_counts(self.0);
            let last = _mm256_and_si256(counts, _mm256_set1_epi64x(rank as i64));
            let three = _mm256_add_epi8(last, _mm256_add_epi8(last, last));
            V256(_mm256_add_epi8(t.0, _mm256_add_epi8(counts, three)))
        }
    }
    #[inline(always)]
    fn tally_total(t: V256) -> V256 {
        V256(unsafe { _mm256_sad_epu8(t.0, _mm256_setzero_si256()) })
    }
    #[inline(always)]
    fn or_where(self, m: V256, o: V256) -> V256 {
        self | (m & o)
    }
    #[inline(always)]
    fn popcnt_where(self, m: V256) -> V256 {
        (self & m).popcnt()
    }
    #[inline(always)]
    fn less(self, o: V256) -> V256 {
        V256(unsafe { _mm256_andnot_si256(o.0, self.0) })
    }
    /// No leading-zero count either: the highest bit smeared down the line, less itself. A
    /// line has at most eight squares, so three steps (one, two and four squares along it)
    /// reach its end, where six would be needed to reach bit 0.
    #[inline(always)]
    fn below_highest(self, step: i32) -> V256 {
        let mut x = self;
        x = x | x.sh(-step);
        x = x | x.sh(-2 * step);
        x = x | x.sh(-4 * step);
        x.sh(-step)
    }
    unsafe fn count(
        batch: &Batch,
        rooks: &[u64; LANES],
        times: &[u64; LANES],
        n: usize,
        mover: Mover,
        paths: &CastlePaths,
    ) -> u64 {
        // SAFETY: the caller's.
        unsafe { count_avx2(batch, rooks, times, n, mover, paths) }
    }
    unsafe fn count_each(
        batch: &Batch,
        rooks: &[u64; LANES],
        mover: Mover,
        paths: &CastlePaths,
    ) -> [u64; LANES] {
        // SAFETY: the caller's.
        unsafe { count_each_avx2(batch, rooks, mover, paths) }
    }
    #[inline(always)]
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
    ) -> LeftLanes {
        // SAFETY: the caller's.
        unsafe { stats_avx2(batch, rooks, times, weighted, n, mover, paths, sets, total) }
    }
    #[inline(always)]
    fn store(self, out: &mut [u64]) {
        assert!(out.len() >= 4);
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), self.0) };
    }
    #[inline(always)]
    fn lanes(self) -> u8 {
        // One bit per lane, from the sign bits of the lanes `nonzero` fills.
        unsafe { _mm256_movemask_pd(_mm256_castsi256_pd(self.nonzero().0)) as u8 }
    }
}

crate::cpu::x86_64_v3! {
    pub(super) fn count_each_avx2(
        batch: &Batch,
        rooks: &[u64; LANES],
        mover: Mover,
        paths: &CastlePaths,
    ) -> [u64; LANES] {
        let mut out = [0; LANES];
        count_batch::<V256, false>(batch, rooks, 0, mover, paths).count.store(&mut out[..4]);
        count_batch::<V256, false>(batch, rooks, 4, mover, paths).count.store(&mut out[4..]);
        out
    }
}

crate::cpu::x86_64_v3! {
    /// The batch in two halves of four lanes.
    #[inline(never)]
    pub(super) fn count_avx2(
        batch: &Batch,
        rooks: &[u64; LANES],
        times: &[u64; LANES],
        n: usize,
        mover: Mover,
        paths: &CastlePaths,
    ) -> u64 {
        let mut total = count_half_avx2(batch, rooks, times, 0, n.min(4), mover, paths);
        if n > 4 {
            total += count_half_avx2(batch, rooks, times, 4, n - 4, mover, paths);
        }
        total
    }
}

crate::cpu::x86_64_v3! {
    /// [`Lane::stats`]: the batch in two halves of four lanes.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn stats_avx2(
        batch: &Batch,
        rooks: &[u64; LANES],
        times: &[u64; LANES],
        weighted: u8,
        n: usize,
        mover: Mover,
        paths: &CastlePaths,
        sets: &mut CheckSets,
        total: &mut Stats<u64>,
    ) -> LeftLanes {
        let first = n.min(4);
        let mut left =
            stats_half_avx2(batch, rooks, times, weighted, 0, first, mover, paths, sets, total);
        if n > 4 {
            let (at, rest) = (4, n - 4);
            let h = stats_half_avx2(batch, rooks, times, weighted, at, rest, mover, paths, sets, total);
            left = left.join(h);
        }
        left
    }
}

crate::cpu::x86_64_v3! {
    /// The statistics of the `n` boards from lane `at`, in AVX2 registers, their counts added
    /// to `total`: a function of its own, as [`count_half_avx2`].
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn stats_half_avx2(
        batch: &Batch,
        rooks: &[u64; LANES],
        times: &[u64; LANES],
        weighted: u8,
        at: usize,
        n: usize,
        mover: Mover,
        paths: &CastlePaths,
        sets: &mut CheckSets,
        total: &mut Stats<u64>,
    ) -> LeftLanes {
        batch_stats::<V256>(batch, rooks, times, weighted, at, n, mover, paths, sets).add_to(total)
    }
}

crate::cpu::x86_64_v3! {
    /// The `n` boards from lane `at`, in one AVX2 register: a function of its own, so that the
    /// compiler inlines the vector operations into one copy of the counter (with both halves in
    /// one function it left them as calls).
    #[inline(never)]
    fn count_half_avx2(
        batch: &Batch,
        rooks: &[u64; LANES],
        times: &[u64; LANES],
        at: usize,
        n: usize,
        mover: Mover,
        paths: &CastlePaths,
    ) -> u64 {
        count_batch::<V256, false>(batch, rooks, at, mover, paths).count
            .mul_low(V256::load(&times[at..]))
            .sum_first(n)
    }
}

/// The population count of each byte of `x`.
#[inline(always)]
fn byte_counts(x: __m256i) -> __m256i {
    unsafe {
        let table = _mm256_setr_epi8(
            0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2,
            3, 3, 4,
        );
        let nibble = _mm256_set1_epi8(0x0f);
        let lo = _mm256_and_si256(x, nibble);
        let hi = _mm256_and_si256(_mm256_srli_epi16::<4>(x), nibble);
        _mm256_add_epi8(
            _mm256_shuffle_epi8(table, lo),
            _mm256_shuffle_epi8(table, hi),
        )
    }
}

vector_bit_ops!(V256, _mm256_and_si256, _mm256_or_si256, _mm256_xor_si256);
