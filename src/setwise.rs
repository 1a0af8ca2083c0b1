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

use crate::attacks::{self, Sliders};
use crate::bitboard::Bitboard;
use crate::cpu::{Simd, SimdKind};
use crate::movegen;
use crate::position::{Board, CastlePaths};
use crate::types::{Color, PieceKind, Square};
use std::arch::x86_64::*;
use std::marker::PhantomData;
use std::ops::{BitAnd, BitOr, BitXor, Not};

/// Boards per batch: eight, one to a lane of an AVX-512 register, or two halves of four in
/// AVX2 registers.
const LANES: usize = 8;

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
    /// The first words of `words`, one to a lane.
    fn load(words: &[u64]) -> Self;
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
    /// at most 31 sets added (each has at most eight squares in a byte: no byte overflows).
    type Tally: Copy;
    /// No sets added yet.
    fn tally_zero() -> Self::Tally;
    /// `t` with the population count of `self` added, lane by lane.
    fn tally(self, t: Self::Tally) -> Self::Tally;
    /// Each lane's sum.
    fn tally_total(t: Self::Tally) -> Self;
    /// `self | o` in the lanes of `m`, `self` in the others.
    fn or_where(self, m: Self::Mask, o: Self) -> Self;
    /// The population count in the lanes of `m`, zero in the others.
    fn popcnt_where(self, m: Self::Mask) -> Self;
    /// `self` less `o`.
    fn less(self, o: Self) -> Self;
    /// The bits below the highest of each lane (none in an empty lane).
    fn below_highest(self) -> Self;
    /// The legal moves of the first `n` boards of `batch`, each taken `times` its lane's
    /// number, castling included, en passant left out (see [`count_batch`]).
    ///
    /// # Safety
    /// The CPU must have the vector's instructions.
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
    /// The lanes, stored in the first words of `out`, one to a lane.
    fn store(self, out: &mut [u64]);
}

/// One 64-bit word of each of the eight boards, in one AVX-512 register.
#[derive(Clone, Copy)]
pub(crate) struct V512(__m512i);

// SAFETY (every `unsafe` block of `V512`'s operations): the intrinsics need AVX-512F
// (VPOPCNTDQ for the population count, CD for the leading-zero count); `V512` values exist only
// inside the counter, which runs only where `cpu::has_avx512_lanes` said yes.
impl Lane for V512 {
    type Mask = __mmask8;
    #[inline(always)]
    fn splat(x: u64) -> V512 {
        V512(unsafe { _mm512_set1_epi64(x as i64) })
    }
    #[inline(always)]
    fn load(words: &[u64]) -> V512 {
        assert!(words.len() >= 8);
        V512(unsafe { _mm512_loadu_si512(words.as_ptr().cast()) })
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
    fn below_highest(self) -> V512 {
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
    fn store(self, out: &mut [u64]) {
        assert!(out.len() >= 8);
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), self.0) };
    }
}

#[target_feature(enable = "avx512f,avx512vpopcntdq,avx512cd")]
fn count_each_avx512(
    batch: &Batch,
    rooks: &[u64; LANES],
    mover: Mover,
    paths: &CastlePaths,
) -> [u64; LANES] {
    let mut out = [0; LANES];
    count_batch::<V512>(batch, rooks, 0, mover, paths).store(&mut out);
    out
}

#[target_feature(enable = "avx512f,avx512vpopcntdq,avx512cd")]
#[inline(never)]
fn count_avx512(
    batch: &Batch,
    rooks: &[u64; LANES],
    times: &[u64; LANES],
    n: usize,
    mover: Mover,
    paths: &CastlePaths,
) -> u64 {
    count_batch::<V512>(batch, rooks, 0, mover, paths)
        .mul_low(V512::load(times))
        .sum_first(n)
}

/// One 64-bit word of each of four boards, in one AVX2 register.
#[derive(Clone, Copy)]
pub(crate) struct V256(__m256i);

// SAFETY (every `unsafe` block of `V256`'s operations): the intrinsics need AVX2; `V256` values
// exist only inside the counter, which runs only where `cpu::has_v3` said yes.
impl Lane for V256 {
    /// All ones in the lanes chosen.
    type Mask = V256;
    #[inline(always)]
    fn splat(x: u64) -> V256 {
        V256(unsafe { _mm256_set1_epi64x(x as i64) })
    }
    #[inline(always)]
    fn load(words: &[u64]) -> V256 {
        assert!(words.len() >= 4);
        V256(unsafe { _mm256_loadu_si256(words.as_ptr().cast()) })
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
    /// No leading-zero count either: the highest bit smeared down, less itself.
    #[inline(always)]
    fn below_highest(self) -> V256 {
        let mut x = self;
        x = x | x.sh(-1);
        x = x | x.sh(-2);
        x = x | x.sh(-4);
        x = x | x.sh(-8);
        x = x | x.sh(-16);
        x = x | x.sh(-32);
        x.sh(-1)
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
    fn store(self, out: &mut [u64]) {
        assert!(out.len() >= 4);
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), self.0) };
    }
}

#[target_feature(enable = "avx,avx2,bmi1,bmi2,lzcnt,fma,movbe")]
fn count_each_avx2(
    batch: &Batch,
    rooks: &[u64; LANES],
    mover: Mover,
    paths: &CastlePaths,
) -> [u64; LANES] {
    let mut out = [0; LANES];
    count_batch::<V256>(batch, rooks, 0, mover, paths).store(&mut out[..4]);
    count_batch::<V256>(batch, rooks, 4, mover, paths).store(&mut out[4..]);
    out
}

/// The batch in two halves of four lanes.
#[target_feature(enable = "avx,avx2,bmi1,bmi2,lzcnt,fma,movbe")]
#[inline(never)]
fn count_avx2(
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

/// The `n` boards from lane `at`, in one AVX2 register: a function of its own, so that the
/// compiler inlines the vector operations into one copy of the counter (with both halves in
/// one function it left them as calls).
#[target_feature(enable = "avx,avx2,bmi1,bmi2,lzcnt,fma,movbe")]
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
    count_batch::<V256>(batch, rooks, at, mover, paths)
        .mul_low(V256::load(&times[at..]))
        .sum_first(n)
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
vector_bit_ops!(V512, _mm512_and_si512, _mm512_or_si512, _mm512_xor_si512);
vector_bit_ops!(V256, _mm256_and_si256, _mm256_or_si256, _mm256_xor_si256);

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_B: u64 = FILE_A << 1;
const FILE_G: u64 = FILE_A << 6;
const FILE_H: u64 = FILE_A << 7;

/// A direction: the shift of a square index and the squares a shift may land on without
/// wrapping round the board.
#[derive(Clone, Copy)]
struct Dir {
    shift: i32,
    land: u64,
}

const N: Dir = Dir { shift: 8, land: !0 };
const S: Dir = Dir {
    shift: -8,
    land: !0,
};
const E: Dir = Dir {
    shift: 1,
    land: !FILE_A,
};
const W: Dir = Dir {
    shift: -1,
    land: !FILE_H,
};
const NE: Dir = Dir {
    shift: 9,
    land: !FILE_A,
};
const NW: Dir = Dir {
    shift: 7,
    land: !FILE_H,
};
const SE: Dir = Dir {
    shift: -7,
    land: !FILE_A,
};
const SW: Dir = Dir {
    shift: -9,
    land: !FILE_H,
};

/// The eight slider directions: the four straight ones, then the four diagonal ones; each
/// direction's opposite four places on (mod 8) in its half.
const DIRS: [Dir; 8] = [N, E, S, W, NE, SE, SW, NW];

#[inline(always)]
fn step<V: Lane>(x: V, d: Dir) -> V {
    x.sh(d.shift) & V::splat(d.land)
}

/// The empty squares a fill in one direction may pass, and their two- and four-step versions
/// (Kogge-Stone), shared by every fill in that direction.
#[derive(Clone, Copy)]
struct Open<V> {
    p1: V,
    p2: V,
    p4: V,
}

#[inline(always)]
fn open<V: Lane>(empty: V, d: Dir) -> Open<V> {
    let p1 = empty & V::splat(d.land);
    let p2 = p1 & p1.sh(d.shift);
    let p4 = p2 & p2.sh(2 * d.shift);
    Open { p1, p2, p4 }
}

/// Every square the pieces of `from` attack in direction `d`: the empty squares up to the first
/// piece, and that piece.
#[inline(always)]
fn ray<V: Lane>(from: V, o: &Open<V>, d: Dir) -> V {
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
fn east<V: Lane>(from: V, stops: V) -> V {
    let r = from.less(V::splat(FILE_H));
    stops ^ stops.sub(r.add(r))
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

/// The eight boards of a batch, piece sets side by side.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
pub(crate) struct Batch {
    kinds: [[u64; LANES]; 6],
    colors: [[u64; LANES]; 2],
}

impl Batch {
    /// Puts `board`'s pieces in lane `lane`.
    #[inline(always)]
    fn set(&mut self, lane: usize, board: &Board) {
        for k in PieceKind::ALL {
            self.kinds[k.index()][lane] = board.kind(k).0;
        }
        self.colors[0][lane] = board.color(Color::White).0;
        self.colors[1][lane] = board.color(Color::Black).0;
    }
}

/// The lines of the king of the side to move, which is the same king on the same square in
/// every lane: the boards of a batch are the children of one position, and the side to move in
/// them is the side that did not move there. Read from a table by the king's square instead of
/// filled set-wise from it (a ray from one known square is cut at its first piece in three or
/// four operations, against eight for a fill); its other squares (neighbours, knight squares,
/// all straight or diagonal rays at once) come from the attack tables.
#[derive(Clone, Copy)]
struct KingLines {
    /// Per direction of [`DIRS`], the squares from the king to the edge of the board.
    rays: [u64; 8],
    /// Per direction, the square next to the king (none at the edge).
    steps: [u64; 8],
}

/// The index in the attack tables' directions (`attacks::ray_walk`) of each of [`DIRS`].
const TABLE_DIR: [usize; 8] = [0, 1, 4, 5, 2, 7, 6, 3];

/// [`KingLines`] by square, built at compile time by the attack tables' ray walk (on an empty
/// board the whole ray, on a full one the next square).
static KING_LINES: [KingLines; 64] = {
    let mut t = [KingLines {
        rays: [0; 8],
        steps: [0; 8],
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
    t
};

/// The squares of `ray` (from the king outwards in direction `d`) up to its first piece of
/// `occ`, and that piece. Towards h8 the first piece is the lowest bit of `ray & occ`; towards
/// a1 the highest, found by counting leading zeros.
#[inline(always)]
fn king_ray<V: Lane>(ray: V, occ: V, d: Dir) -> V {
    let b = ray & occ;
    if d.shift > 0 {
        // b ^ (b - 1): every bit up to the lowest of b (all if b is empty).
        ray & (b ^ b.sub(V::splat(1)))
    } else {
        // The bits below the highest of b (none if b is empty), taken away.
        ray.less(b.below_highest())
    }
}

/// The legal moves of each lane's board, castling and en passant left out, with `us` to move in
/// every lane, our king on `king` and our knights among `our_knights` in every lane; and the
/// squares the enemy attacks (with our king on the board), for castling.
#[inline(always)]
fn count_lanes<V: Lane, const WHITE: bool, const DIAG: bool>(
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
    let [pawns, knights, bishops, rooks, queens, kings] =
        b.kinds.each_ref().map(|k| V::load(&k[at..]));
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
    let k_step = lines.steps.map(V::splat);
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
    let [take_l, take_r] = [(up_l, line_l), (up_r, line_r)].map(|(d, line)| {
        let takers = p & (free | pin_lines[line]);
        step(takers, d) & enemy & mask
    });
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

/// The line (0 file, 1 rank, 2 one diagonal, 3 the other) of direction `i` of [`DIRS`].
#[inline(always)]
const fn line_of(i: usize) -> usize {
    // N E S W NE SE SW NW -> 0 1 0 1 2 3 2 3
    (i & 1) | ((i & 4) >> 1)
}

/// Every square the knights of `n` attack: one and two files aside, then two and one ranks up
/// and down.
#[inline(always)]
fn knight_attacks<V: Lane>(n: V) -> V {
    let one = step(n, E) | step(n, W);
    let two = (n.sh(2) & V::splat(!(FILE_A | FILE_B))) | (n.sh(-2) & V::splat(!(FILE_G | FILE_H)));
    one.sh(16) | one.sh(-16) | two.sh(8) | two.sh(-8)
}

/// The squares next to the pieces of `k`: a row of three, then the rows above and below.
#[inline(always)]
fn king_attacks<V: Lane>(k: V) -> V {
    let row = k | step(k, E) | step(k, W);
    (row | row.sh(8) | row.sh(-8)).less(k)
}

/// Whether `board` (whose side to move keeps the castling rooks `rooks`) is counted by the
/// one-board counter instead of in a lane: it has an en-passant square, or castles along a path
/// its rook screens (Chess960), which the lanes' castling test does not cover.
#[inline(always)]
fn one_board_only(board: &Board, rooks: Bitboard, paths: &CastlePaths) -> bool {
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
    side: Color,
    king: Square,
    knights: Bitboard,
}

/// The legal moves of the boards in the lanes from `at` of `batch` (as many as the vector
/// holds), all with `mover`'s side to move, king and knights, castling included (`rooks`: each
/// lane's castling rooks of the side to move); en passant left out.
#[inline(always)]
fn count_batch<V: Lane>(
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
fn mover(board: &Board) -> (Color, Square) {
    (board.side_to_move(), board.king(board.side_to_move()))
}

/// The legal moves of each of `boards`, counted as perft's lanes count them: eight at a time
/// (each batch of boards with the same side to move and the same king square, as the children
/// of one position are), the boards the lanes leave out by the one-board counter. `None` for
/// [`Simd`] of kind none, which has no lanes. For testing the lanes board by board.
pub fn count_each<S: Sliders>(
    simd: Simd,
    boards: &[Board],
    paths: &CastlePaths,
) -> Option<Vec<u64>> {
    match simd.kind() {
        SimdKind::Avx512 => Some(count_each_in::<S, V512>(boards, paths)),
        SimdKind::Avx2 => Some(count_each_in::<S, V256>(boards, paths)),
        SimdKind::None => None,
    }
}

/// [`count_each`] in the lanes of `V`, whose instructions the CPU has.
fn count_each_in<S: Sliders, V: Lane>(boards: &[Board], paths: &CastlePaths) -> Vec<u64> {
    let mut counts = Vec::with_capacity(boards.len());
    let runs = boards.chunk_by(|a, b| mover(a) == mover(b));
    for chunk in runs.flat_map(|run| run.chunks(LANES)) {
        let mut batch = Batch::default();
        let mut rooks = [0; LANES];
        let mut knights = Bitboard::EMPTY;
        for (i, board) in chunk.iter().enumerate() {
            batch.set(i, board);
            rooks[i] = board.castling_rooks_of(board.side_to_move()).0;
            knights |= board.pieces(board.side_to_move(), PieceKind::Knight);
        }
        let (side, king) = mover(&chunk[0]);
        let m = Mover {
            side,
            king,
            knights,
        };
        // SAFETY: the caller made `V` for code this CPU runs.
        let c = unsafe { V::count_each(&batch, &rooks, m, paths) };
        for (i, board) in chunk.iter().enumerate() {
            counts.push(if one_board_only(board, Bitboard(rooks[i]), paths) {
                movegen::count_legal_on::<S>(board, paths)
            } else {
                c[i]
            });
        }
    }
    counts
}

/// Boards gathered into batches as they come, counted eight at a time in the lanes of `V`: every
/// board in a batch has the same side to move, with its king on the same square and its knights
/// among the same squares, as the grandchildren of one node have but after a king or knight
/// move there ([`Lanes::rebase`] flushes the batch before those).
pub(crate) struct Lanes<V> {
    batch: Batch,
    /// Each lane's castling rooks of the side to move.
    castling: [u64; LANES],
    /// How many times each lane's board counts.
    times: [u64; LANES],
    n: usize,
    mover: Mover,
    /// The counts of the batches flushed so far and of the boards counted one by one.
    total: u64,
    lanes: PhantomData<V>,
}

impl<V: Lane> Lanes<V> {
    /// Lanes for boards with `side` to move, its king on `king` and its knights among
    /// `knights` (as the children of one position: its side not to move has them; the counts
    /// of boards without are wrong).
    ///
    /// # Safety
    /// The CPU must have `V`'s instructions ([`crate::cpu::Simd`] of its kind could be made):
    /// pushing boards runs the counter compiled for them.
    #[inline(always)]
    pub(crate) unsafe fn new(side: Color, king: Square, knights: Bitboard) -> Lanes<V> {
        Lanes {
            batch: Batch::default(),
            castling: [0; LANES],
            times: [1; LANES],
            n: 0,
            mover: Mover {
                side,
                king,
                knights,
            },
            total: 0,
            lanes: PhantomData,
        }
    }

    /// Lanes for boards with `side` to move, its king and knights where they stand on `board`
    /// (the position whose children's children will be pushed, or whose children will be).
    ///
    /// # Safety
    /// As [`Lanes::new`].
    #[inline(always)]
    pub(crate) unsafe fn of_side(board: &Board, side: Color) -> Lanes<V> {
        // SAFETY: the caller's.
        unsafe {
            Lanes::new(
                side,
                board.king(side),
                board.pieces(side, PieceKind::Knight),
            )
        }
    }

    /// Adds `board`'s legal moves: now if it has an en-passant square or a castling path its
    /// rook screens (the one-board counter), else when its batch is full or [`Lanes::finish`].
    #[inline(always)]
    pub(crate) fn push<S: Sliders>(&mut self, board: &Board, paths: &CastlePaths) {
        self.push_times::<S>(board, paths, 1);
    }

    /// Adds `board`'s legal moves `times` times over (as [`Lanes::push`]); `times` under 2^32,
    /// as the lanes multiply the low 32 bits (a board stands for at most one position's moves).
    #[inline(always)]
    pub(crate) fn push_times<S: Sliders>(
        &mut self,
        board: &Board,
        paths: &CastlePaths,
        times: u64,
    ) {
        // The depth-2 pass writes each child board into a local value, which the compiler can
        // keep in registers only if nothing indexes it by a colour it does not know (hence
        // `castling_rooks_of`) or takes its address: the rare one-board count gets a copy.
        let rooks = board.castling_rooks_of(self.mover.side);
        if one_board_only(board, rooks, paths) {
            let copy = *board;
            self.total += count_one::<S>(&copy, paths) * times;
            return;
        }
        self.batch.set(self.n, board);
        self.castling[self.n] = rooks.0;
        self.times[self.n] = times;
        self.n += 1;
        if self.n == LANES {
            self.flush(paths);
        }
    }

    /// From now on, boards whose side to move has its king and knights where they stand on
    /// `board`: the batch so far is counted first if its king stood elsewhere or a knight
    /// stands where none stood in it (each knight square costs every batch a step).
    #[inline(always)]
    pub(crate) fn rebase(&mut self, board: &Board, paths: &CastlePaths) {
        let side = self.mover.side;
        let (king, knights) = (board.king(side), board.pieces(side, PieceKind::Knight));
        if king != self.mover.king || (knights - self.mover.knights).any() {
            if self.n > 0 {
                self.flush(paths);
            }
            self.mover.king = king;
            self.mover.knights = knights;
        }
    }

    /// Counts what is left in the batch; returns the total.
    #[inline(always)]
    pub(crate) fn finish(&mut self, paths: &CastlePaths) -> u64 {
        if self.n > 0 {
            self.flush(paths);
        }
        self.total
    }

    #[inline(always)]
    fn flush(&mut self, paths: &CastlePaths) {
        // SAFETY: `new`'s contract.
        self.total += unsafe {
            V::count(
                &self.batch,
                &self.castling,
                &self.times,
                self.n,
                self.mover,
                paths,
            )
        };
        self.n = 0;
    }
}

/// The one-board counter, out of line: the lanes' rare case.
#[cold]
#[inline(never)]
fn count_one<S: Sliders>(board: &Board, paths: &CastlePaths) -> u64 {
    movegen::count_legal_on::<S>(board, paths)
}

/// The legal moves of all of `boards` (all with the same side to move), counted the way perft's
/// depth-2 pass counts them in the lanes `simd` names (pushed into lanes, eight boards a batch).
/// `None` for code without lanes. For benchmarks of the lanes alone.
pub fn count_total<S: Sliders>(simd: Simd, boards: &[Board], paths: &CastlePaths) -> Option<u64> {
    match simd.kind() {
        SimdKind::Avx512 => Some(count_total_in::<S, V512>(boards, paths)),
        SimdKind::Avx2 => Some(count_total_in::<S, V256>(boards, paths)),
        SimdKind::None => None,
    }
}

/// [`count_total`] in the lanes of `V`, whose instructions the CPU has.
fn count_total_in<S: Sliders, V: Lane>(boards: &[Board], paths: &CastlePaths) -> u64 {
    let Some(first) = boards.first() else {
        return 0;
    };
    let (side, king) = mover(first);
    let knights = boards.iter().fold(Bitboard::EMPTY, |k, b| {
        k | b.pieces(side, PieceKind::Knight)
    });
    // SAFETY: the caller made `V` for code this CPU runs.
    let mut lanes = unsafe { Lanes::<V>::new(side, king, knights) };
    for board in boards {
        lanes.push::<S>(board, paths);
    }
    lanes.finish(paths)
}
