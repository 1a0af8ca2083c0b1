//! The lanes in an AVX-512 register: eight boards, each operation one instruction (population
//! count by VPOPCNTDQ, leading zeros by CD); the counter's copy compiled for them.

use super::kernel::{Batch, Mover, count_batch};
use super::stats::{CheckSets, LeftLanes, batch_stats};
use super::{LANES, Lane};
use crate::position::CastlePaths;
use crate::stats::Stats;
use std::arch::x86_64::*;
use std::ops::{BitAnd, BitOr, BitXor, Not};

/// One 64-bit word of each of the eight boards, in one AVX-512 register.
#[derive(Clone, Copy)]
pub(crate) struct V512(__m512i);

impl Lane for V512 {
    type Mask = __mmask8;
    #[inline(always)]
    fn splat(x: u64) -> V512 {
        V512(unsafe { _mm512_set1_epi64(x as i64) })
    }
    const WIDTH: usize = 8;
    #[inline(always)]
    fn load(words: &[u64]) -> V512 {
        assert!(words.len() >= 8);
        V512(unsafe { _mm512_loadu_si512(words.as_ptr().cast()) })
    }
    #[inline(always)]
    unsafe fn load_aligned(words: &[u64]) -> V512 {
        assert!(words.len() >= 8);
        // SAFETY: the caller's alignment; the length checked.
        V512(unsafe { _mm512_load_si512(words.as_ptr().cast()) })
    }
    /// Added in registers: a store and a load of the lanes would cost a failed store-to-load
    /// forward.
    #[inline(always)]
    fn sum_first(self, n: usize) -> u64 {
        let m = ((1u32 << n) - 1) as __mmask8;
        unsafe { _mm512_mask_reduce_add_epi64(m, self.0) as u64 }
    }
    #[inline(always)]
    fn sh(self, s: i32) -> V512 {
        unsafe {
            if s >= 0 {
                V512(_mm512_sllv_epi64(self.0, _mm512_set1_epi64(i64::from(s))))
            } else {
                V512(_mm512_srlv_epi64(self.0, _mm512_set1_epi64(i64::from(-s))))
            }
        }
    }
    #[inline(always)]
    fn popcnt(self) -> V512 {
        V512(unsafe { _mm512_popcnt_epi64(self.0) })
    }
    #[inline(always)]
    fn add(self, o: V512) -> V512 {
        V512(unsafe { _mm512_add_epi64(self.0, o.0) })
    }
    #[inline(always)]
    fn mul_low(self, o: V512) -> V512 {
        V512(unsafe { _mm512_mul_epu32(self.0, o.0) })
    }
    #[inline(always)]
    fn sub(self, o: V512) -> V512 {
        V512(unsafe { _mm512_sub_epi64(self.0, o.0) })
    }
    #[inline(always)]
    fn nonzero(self) -> V512 {
        unsafe {
            let m = _mm512_test_epi64_mask(self.0, self.0);
            V512(_mm512_maskz_mov_epi64(m, _mm512_set1_epi64(-1)))
        }
    }
    #[inline(always)]
    fn meets(self, o: V512) -> __mmask8 {
        unsafe { _mm512_test_epi64_mask(self.0, o.0) }
    }
    #[inline(always)]
    fn any(m: __mmask8) -> bool {
        m != 0
    }
    type Tally = V512;
    #[inline(always)]
    fn tally_zero() -> V512 {
        V512::splat(0)
    }
    #[inline(always)]
    fn tally(self, t: V512) -> V512 {
        t.add(self.popcnt())
    }
    #[inline(always)]
    fn tally_where(self, m: __mmask8, t: V512) -> V512 {
        t.add(self.popcnt_where(m))
    }
    #[inline(always)]
    fn tally_total(t: V512) -> V512 {
        t
    }
    #[inline(always)]
    fn or_where(self, m: __mmask8, o: V512) -> V512 {
        V512(unsafe { _mm512_mask_or_epi64(self.0, m, self.0, o.0) })
    }
    #[inline(always)]
    fn popcnt_where(self, m: __mmask8) -> V512 {
        V512(unsafe { _mm512_maskz_popcnt_epi64(m, self.0) })
    }
    #[inline(always)]
    fn less(self, o: V512) -> V512 {
        V512(unsafe { _mm512_andnot_si512(o.0, self.0) })
    }
    /// `i64::MAX` shifted right by the leading zeros.
    #[inline(always)]
    fn below_highest(self, _step: i32) -> V512 {
        unsafe {
            V512(_mm512_srlv_epi64(
                _mm512_set1_epi64(i64::MAX),
                _mm512_lzcnt_epi64(self.0),
            ))
        }
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
        unsafe { count_avx512(batch, rooks, times, n, mover, paths) }
    }
    unsafe fn count_each(
        batch: &Batch,
        rooks: &[u64; LANES],
        mover: Mover,
        paths: &CastlePaths,
    ) -> [u64; LANES] {
        // SAFETY: the caller's.
        unsafe { count_each_avx512(batch, rooks, mover, paths) }
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
        unsafe { stats_avx512(batch, rooks, times, weighted, n, mover, paths, sets, total) }
    }
    #[inline(always)]
    fn store(self, out: &mut [u64]) {
        assert!(out.len() >= 8);
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), self.0) };
    }
    #[inline(always)]
    fn lanes(self) -> u8 {
        self.meets(self)
    }
}

crate::cpu::avx512_lanes! {
    pub(super) fn count_each_avx512(
        batch: &Batch,
        rooks: &[u64; LANES],
        mover: Mover,
        paths: &CastlePaths,
    ) -> [u64; LANES] {
        let mut out = [0; LANES];
        count_batch::<V512, false>(batch, rooks, 0, mover, paths).count.store(&mut out);
        out
    }
}

crate::cpu::avx512_lanes! {
    #[inline(never)]
    pub(super) fn count_avx512(
        batch: &Batch,
        rooks: &[u64; LANES],
        times: &[u64; LANES],
        n: usize,
        mover: Mover,
        paths: &CastlePaths,
    ) -> u64 {
        count_batch::<V512, false>(batch, rooks, 0, mover, paths).count
            .mul_low(V512::load(times))
            .sum_first(n)
    }
}

crate::cpu::avx512_lanes! {
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn stats_avx512(
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
        batch_stats::<V512>(batch, rooks, times, weighted, 0, n, mover, paths, sets).add_to(total)
    }
}

vector_bit_ops!(V512, _mm512_and_si512, _mm512_or_si512, _mm512_xor_si512);
