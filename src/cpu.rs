//! The one place that asks the CPU what it has: the instructions of the count's compiled copies
//! (x86-64-v3, the AVX-512 lanes) and BMI2 for the PEXT sliders; and [`Simd`], the last-ply code
//! a count runs, which can only be made for code this CPU runs.

use std::fmt;

/// Compiles the functions it wraps for the x86-64-v3 copy of the count: the one list of that
/// copy's instructions (AVX2 with AVX, BMI1, BMI2, LZCNT, FMA, MOVBE), which [`has_v3`] tests
/// at run time. A caller must make sure the CPU has them (a `Simd` of the copy's kind exists).
#[cfg(target_arch = "x86_64")]
macro_rules! x86_64_v3 {
    ($($item:item)*) => {
        $(#[target_feature(enable = "avx,avx2,bmi1,bmi2,lzcnt,fma,movbe")] $item)*
    };
}
#[cfg(target_arch = "x86_64")]
pub(crate) use x86_64_v3;

/// Compiles the functions it wraps for the AVX-512 lanes (F, VPOPCNTDQ, CD), which
/// [`has_avx512_lanes`] tests at run time.
#[cfg(target_arch = "x86_64")]
macro_rules! avx512_lanes {
    ($($item:item)*) => {
        $(#[target_feature(enable = "avx512f,avx512vpopcntdq,avx512cd")] $item)*
    };
}
#[cfg(target_arch = "x86_64")]
pub(crate) use avx512_lanes;

/// Whether this CPU has every instruction the x86-64-v3 copy of the count is compiled for
/// (AVX2, BMI1, BMI2, LZCNT, FMA, MOVBE: Haswell, Excavator and later). std caches the answer.
#[inline]
pub(crate) fn has_v3() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("bmi2")
            && std::is_x86_feature_detected!("lzcnt")
            && std::is_x86_feature_detected!("fma")
            && std::is_x86_feature_detected!("movbe")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

internal! {
    /// Whether this CPU runs the AVX-512 lanes (F, CD and VPOPCNTDQ: Intel since Ice Lake, AMD since
    /// Zen 4), besides the x86-64-v3 copy they are part of.
    #[inline]
    pub fn has_avx512_lanes() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            has_v3()
                && std::is_x86_feature_detected!("avx512f")
                && std::is_x86_feature_detected!("avx512vpopcntdq")
                && std::is_x86_feature_detected!("avx512cd")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }
}

/// Whether this CPU has BMI2's `pext` (the PEXT sliders exist on x86-64 only).
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn has_bmi2() -> bool {
    cfg!(target_feature = "bmi2") || std::arch::is_x86_feature_detected!("bmi2")
}

/// The vendor string's three registers (`ebx`, `edx`, `ecx` of `cpuid` leaf 0) and the
/// signature (`eax` of leaf 1).
#[cfg(target_arch = "x86_64")]
pub(crate) fn signature() -> (u32, u32, u32, u32) {
    use std::arch::x86_64::__cpuid;
    let vendor = __cpuid(0);
    (vendor.ebx, vendor.edx, vendor.ecx, __cpuid(1).eax)
}

/// The kinds of last-ply code, widest first.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SimdKind {
    /// The x86-64-v3 copy, counting the last ply eight at a time in AVX-512
    /// lanes.
    Avx512,
    /// The x86-64-v3 copy (AVX2, BMI1, BMI2...), counting the last ply four at
    /// a time in AVX2 lanes (or, as [`Simd::one_board`] makes it, one board at a time).
    Avx2,
    /// The copy compiled for the crate's target (x86-64-v2), one board at a time.
    None,
}

impl SimdKind {
    /// The name `--simd` takes: `avx512`, `avx2` or `none`.
    pub fn name(self) -> &'static str {
        match self {
            SimdKind::Avx512 => "avx512",
            SimdKind::Avx2 => "avx2",
            SimdKind::None => "none",
        }
    }

    /// Whether this CPU runs this code.
    pub(crate) fn runs_here(self) -> bool {
        match self {
            SimdKind::Avx512 => has_avx512_lanes(),
            SimdKind::Avx2 => has_v3(),
            SimdKind::None => true,
        }
    }
}

/// The last-ply code of a bulk count, made only for code this CPU runs ([`Simd::detect`],
/// [`Simd::new`]), so that a count given one never runs an instruction the CPU lacks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Simd {
    kind: SimdKind,
    /// Whether the x86-64-v3 copy counts boards in lanes (never for the baseline).
    lanes: bool,
}

/// `--simd` asked for code this CPU does not run.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SimdError(pub SimdKind);

impl fmt::Display for SimdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let needs = match self.0 {
            SimdKind::Avx512 => "AVX-512 (F, CD and VPOPCNTDQ) besides the x86-64-v3 instructions",
            SimdKind::Avx2 => "the x86-64-v3 instructions (AVX2, BMI1, BMI2, LZCNT, FMA, MOVBE)",
            SimdKind::None => "nothing",
        };
        write!(
            f,
            "--simd {} needs {needs}, which this CPU lacks; --simd auto takes the widest it has \
             ({})",
            self.0.name(),
            Simd::detect().kind().name()
        )
    }
}

impl std::error::Error for SimdError {}

impl Simd {
    /// The baseline copy, which every CPU the binary targets runs.
    pub const NONE: Simd = Simd {
        kind: SimdKind::None,
        lanes: false,
    };

    /// The widest code this CPU runs.
    pub fn detect() -> Simd {
        if has_avx512_lanes() {
            Simd::with_lanes(SimdKind::Avx512)
        } else if has_v3() {
            Simd::with_lanes(SimdKind::Avx2)
        } else {
            Simd::NONE
        }
    }

    /// `kind`, if this CPU runs it.
    pub fn new(kind: SimdKind) -> Result<Simd, SimdError> {
        if kind.runs_here() {
            Ok(Simd::with_lanes(kind))
        } else {
            Err(SimdError(kind))
        }
    }

    /// `kind` with its lanes (the baseline has none).
    const fn with_lanes(kind: SimdKind) -> Simd {
        Simd {
            kind,
            lanes: !matches!(kind, SimdKind::None),
        }
    }

    /// The widest code this CPU runs that counts one board at a time (no lanes): the x86-64-v3
    /// copy, or the baseline.
    pub fn one_board() -> Simd {
        Simd::new(SimdKind::Avx2).map_or(Simd::NONE, Simd::without_lanes)
    }

    /// The same copy of the code, one board at a time: what a count without lanes runs when
    /// asked for this one.
    pub fn without_lanes(self) -> Simd {
        Simd {
            kind: self.kind,
            lanes: false,
        }
    }

    /// Which code it is.
    pub fn kind(self) -> SimdKind {
        self.kind
    }

    /// Whether it counts the last ply in lanes.
    pub fn lanes(self) -> bool {
        self.lanes
    }

    /// What a speed line says of it: `avx512 (x86-64-v3 code, AVX-512 lanes)`, `avx2
    /// (x86-64-v3 code, AVX2 lanes)`, `x86-64-v3 code, one board at a time` or `none (baseline
    /// code)`.
    pub fn describe(self) -> &'static str {
        match (self.kind, self.lanes) {
            (SimdKind::Avx512, true) => "avx512 (x86-64-v3 code, AVX-512 lanes)",
            (SimdKind::Avx2, true) => "avx2 (x86-64-v3 code, AVX2 lanes)",
            (SimdKind::Avx512 | SimdKind::Avx2, false) => "x86-64-v3 code, one board at a time",
            (SimdKind::None, _) => "none (baseline code)",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Simd, SimdKind};

    #[test]
    fn simd_is_made_only_for_code_the_cpu_runs() {
        for kind in [SimdKind::Avx512, SimdKind::Avx2, SimdKind::None] {
            assert_eq!(Simd::new(kind).is_ok(), kind.runs_here(), "{kind:?}");
        }
        assert!(Simd::detect().kind().runs_here());
        assert_ne!(Simd::one_board().kind(), SimdKind::Avx512);
        // The widest: nothing wider than what detect picks runs here.
        let order = [SimdKind::Avx512, SimdKind::Avx2, SimdKind::None];
        let first = order.iter().position(|k| k.runs_here()).unwrap();
        assert_eq!(Simd::detect().kind(), order[first]);
    }
}
