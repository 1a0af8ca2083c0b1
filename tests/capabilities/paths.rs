//! Which of the CPU-specific code paths the tests ran. A test of such a path (the AVX-512 and
//! AVX2 lanes, the x86-64-v3 copy one board at a time, the baseline copy, each slider kind, the
//! statistics in each copy and in each kind of lanes) records it once it has checked the path's counts ([`ran`]); where
//! the CPU lacks a path the test skips it, and says so on stderr, which a passing test hides.
//! So `.ci/run` sets `PERFT_PATHS_RUN` to a file, runs the tests, then runs
//! [`every_path_this_cpu_offers_was_run`], which lists what ran and fails when this CPU offers
//! a path that no test ran.

use perft::cpu::{Simd, SimdKind};
use std::collections::HashSet;
use std::io::Write;
use std::sync::Mutex;

/// The AVX-512 lanes (x86-64-v3 copy, eight boards at a time).
pub const LANES_AVX512: &str = "lanes avx512";
/// The AVX2 lanes (x86-64-v3 copy, four boards at a time).
pub const LANES_AVX2: &str = "lanes avx2";
/// The x86-64-v3 copy, one board at a time (`--no-lanes`).
pub const ONE_BOARD_V3: &str = "x86-64-v3 copy, one board at a time";
/// The baseline copy (`--simd none`, what a CPU without x86-64-v3 runs).
pub const BASELINE: &str = "baseline copy";
/// The statistics in the x86-64-v3 copy.
pub const STATS_V3: &str = "statistics, x86-64-v3 copy";
/// The statistics in AVX-512 lanes (x86-64-v3 copy, eight boards at a time).
pub const STATS_AVX512: &str = "statistics, AVX-512 lanes";
/// The statistics in AVX2 lanes (x86-64-v3 copy, four boards at a time).
pub const STATS_AVX2: &str = "statistics, AVX2 lanes";
/// The statistics in the baseline copy.
pub const STATS_BASELINE: &str = "statistics, baseline copy";
/// The PEXT sliders.
pub const PEXT: &str = "pext sliders";
/// The magic sliders.
pub const MAGIC: &str = "magic sliders";
/// The classical ray scan.
pub const CLASSICAL: &str = "classical sliders";

/// The CPU's features as the Linux kernel lists them (the `flags` of `/proc/cpuinfo`), a
/// source apart from the library's detection; `None` where there is no such file.
fn kernel_flags() -> Option<HashSet<String>> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("flags"))?;
    let (_, flags) = line.split_once(':')?;
    Some(flags.split_whitespace().map(String::from).collect())
}

/// What the kernel says this CPU runs, in the library's terms: (x86-64-v3 as the copy needs it,
/// the AVX-512 lanes' F, CD and VPOPCNTDQ, BMI2 for pext). The kernel names LZCNT `abm`.
fn kernel_offers() -> Option<[bool; 3]> {
    let flags = kernel_flags()?;
    let all = |names: &[&str]| names.iter().all(|n| flags.contains(*n));
    let v3 = all(&["avx2", "bmi1", "bmi2", "abm", "fma", "movbe"]);
    let avx512 = v3 && all(&["avx512f", "avx512cd", "avx512_vpopcntdq"]);
    Some([v3, avx512, all(&["bmi2"])])
}

/// The library's detection answers as the kernel does for every feature set a path needs: a
/// detection bug that hid a path would make its tests skip it, and the check of the paths run
/// (which takes the kernel's word) would not see it.
#[test]
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn the_cpu_detection_agrees_with_the_kernel() {
    let kernel = kernel_offers().expect("/proc/cpuinfo lists the CPU's flags");
    let detected = [
        Simd::new(SimdKind::Avx2).is_ok(),
        Simd::new(SimdKind::Avx512).is_ok(),
        perft::attacks::Pext::available(),
    ];
    assert_eq!(
        detected, kernel,
        "[x86-64-v3, AVX-512 lanes, BMI2]: detected vs the kernel's flags"
    );
}

/// Every path, whether this CPU runs it, and if not, why: by the kernel's flags where it lists
/// them (so that a wrong detection cannot hide a path), else by the library's detection.
pub fn offered() -> Vec<(&'static str, Result<(), &'static str>)> {
    let kernel = if cfg!(target_arch = "x86_64") {
        kernel_offers()
    } else {
        None
    };
    let v3 = if kernel.map_or_else(|| Simd::new(SimdKind::Avx2).is_ok(), |k| k[0]) {
        Ok(())
    } else {
        Err("no x86-64-v3 (AVX2, BMI1, BMI2, LZCNT, FMA, MOVBE)")
    };
    let avx512 = if kernel.map_or_else(|| Simd::new(SimdKind::Avx512).is_ok(), |k| k[1]) {
        Ok(())
    } else {
        Err("no AVX-512 F, CD and VPOPCNTDQ (Intel since Ice Lake, AMD since Zen 4)")
    };
    #[cfg(target_arch = "x86_64")]
    let pext = if kernel.map_or_else(perft::attacks::Pext::available, |k| k[2]) {
        Ok(())
    } else {
        Err("no BMI2")
    };
    #[cfg(not(target_arch = "x86_64"))]
    let pext = Err("x86-64 only");
    vec![
        (LANES_AVX512, avx512),
        (LANES_AVX2, v3),
        (ONE_BOARD_V3, v3),
        (BASELINE, Ok(())),
        (STATS_V3, v3),
        (STATS_AVX2, v3),
        (STATS_AVX512, avx512),
        (STATS_BASELINE, Ok(())),
        (PEXT, pext),
        (MAGIC, Ok(())),
        (CLASSICAL, Ok(())),
    ]
}

/// The path of the last-ply code `simd`.
pub fn of_simd(simd: Simd) -> &'static str {
    match (simd.kind(), simd.lanes()) {
        (SimdKind::Avx512, true) => LANES_AVX512,
        (SimdKind::Avx2, true) => LANES_AVX2,
        (SimdKind::Avx512 | SimdKind::Avx2, false) => ONE_BOARD_V3,
        (SimdKind::None, _) => BASELINE,
    }
}

/// Records that a test ran `path` and checked its counts: appended to the file named by
/// `PERFT_PATHS_RUN` (once per path and test process), nothing where it is not set.
pub fn ran(path: &str) {
    static SEEN: Mutex<Option<HashSet<String>>> = Mutex::new(None);
    let Some(file) = std::env::var_os("PERFT_PATHS_RUN") else {
        return;
    };
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    if !seen
        .get_or_insert_with(HashSet::new)
        .insert(path.to_string())
    {
        return;
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&file)
        .unwrap_or_else(|e| panic!("PERFT_PATHS_RUN {}: {e}", file.display()));
    writeln!(f, "{path}").expect("the paths file is written");
}

/// Run by `.ci/run` after every other test, with `PERFT_PATHS_RUN` naming the file they wrote:
/// lists the paths run, and those this CPU cannot run with the reason; fails if the CPU offers
/// a path no test ran (a test that skipped it, or was removed, would otherwise pass in silence).
#[test]
#[ignore = "run by .ci/run after the other tests, with PERFT_PATHS_RUN set"]
fn every_path_this_cpu_offers_was_run() {
    let file = std::env::var_os("PERFT_PATHS_RUN").expect("PERFT_PATHS_RUN names the file");
    let text = std::fs::read_to_string(&file).unwrap_or_default();
    let run: HashSet<&str> = text.lines().collect();
    let mut missed = Vec::new();
    println!("== code paths ==");
    for (path, offer) in offered() {
        match (offer, run.contains(path)) {
            (Ok(()), true) => println!("{path:<40} run"),
            (Ok(()), false) => {
                println!("{path:<40} NOT RUN, though this CPU runs it");
                missed.push(path);
            }
            (Err(why), was_run) => {
                assert!(!was_run, "{path} recorded as run on a CPU without it");
                println!("{path:<40} not on this CPU: {why} (docs/testing.md)");
            }
        }
    }
    let known: HashSet<&str> = offered().iter().map(|(p, _)| *p).collect();
    for path in &run {
        assert!(known.contains(path), "an unknown path was recorded: {path}");
    }
    assert!(missed.is_empty(), "no test ran: {missed:?}");
}
