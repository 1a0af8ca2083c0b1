//! The counting options resolved once, before any work: every command that counts is handed a
//! [`Counts`] and reads no counting flag itself; the slider choice it holds becomes the type
//! the command is compiled for, in one place ([`Counts::run`]).

use super::common::{CountArgs, HashSize, SimdChoice, SliderChoice, available_threads};
use anyhow::{Result, bail};
use perft::cpu::Simd;
use perft::perft::{Counting, Perft, Total};
use perft::tt::{self, CountSize, Record, Table};
use perft::{Classical, Magic, Nodes, Sliders};
use std::process::ExitCode;

/// A slider implementation this CPU runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slider {
    Magic,
    Classical,
    #[cfg(target_arch = "x86_64")]
    Pext,
}

/// How a command counts: every counting option, resolved and checked against this CPU.
#[derive(Clone, Copy, Debug)]
pub struct Counts {
    /// `--no-bulk`.
    pub counting: Counting,
    /// `--sliders` (or `--classical`), `auto` resolved.
    pub sliders: Slider,
    /// `--simd` (or `--no-lanes`), `auto` resolved; one the CPU lacks was an error.
    pub simd: Simd,
    /// `--threads`, or the command's default.
    pub threads: usize,
    /// `--hash`, sized for a count by [`Counts::hash_mb`].
    pub hash: HashSize,
}

impl CountArgs {
    /// The options resolved, `default_threads` where `--threads` is not given: the one place
    /// they are read, before any work starts.
    pub fn resolve(&self, default_threads: usize) -> Result<Counts> {
        Ok(Counts {
            counting: if self.no_bulk {
                Counting::NoBulk
            } else {
                Counting::Bulk
            },
            sliders: resolve_sliders(if self.classical {
                SliderChoice::Classical
            } else {
                self.sliders
            })?,
            simd: self.simd.resolve(self.no_lanes)?,
            threads: self.threads.map_or(default_threads, |n| n as usize),
            hash: self.hash,
        })
    }

    /// [`CountArgs::resolve`] with every available core as the default thread count.
    pub fn resolve_all_cores(&self) -> Result<Counts> {
        self.resolve(available_threads())
    }
}

/// `--sliders`, resolved against this CPU.
fn resolve_sliders(choice: SliderChoice) -> Result<Slider> {
    Ok(match choice {
        #[cfg(target_arch = "x86_64")]
        SliderChoice::Auto if perft::attacks::Pext::is_fast() => Slider::Pext,
        SliderChoice::Auto | SliderChoice::Magic => Slider::Magic,
        SliderChoice::Classical => Slider::Classical,
        #[cfg(target_arch = "x86_64")]
        SliderChoice::Pext if perft::attacks::Pext::available() => {
            if perft::attacks::Pext::microcoded() {
                eprintln!(
                    "warning: this CPU runs pext in microcode (AMD before Zen 3), many times \
                     slower than a multiply; --sliders magic will be faster"
                );
            }
            Slider::Pext
        }
        #[cfg(target_arch = "x86_64")]
        SliderChoice::Pext => bail!(
            "--sliders pext needs a CPU with BMI2 (the pext instruction), and this one has none; \
             use --sliders magic"
        ),
        #[cfg(not(target_arch = "x86_64"))]
        SliderChoice::Pext => bail!(
            "--sliders pext exists only on x86-64 (BMI2's pext instruction); use --sliders magic"
        ),
    })
}

impl SimdChoice {
    /// The code chosen, checked against this CPU (`no_lanes`: `--no-lanes` was given).
    fn resolve(self, no_lanes: bool) -> Result<Simd> {
        use perft::cpu::SimdKind;
        let kind = match self {
            SimdChoice::Auto if no_lanes => return Ok(Simd::one_board()),
            SimdChoice::Auto => return Ok(Simd::detect()),
            SimdChoice::Avx512 => SimdKind::Avx512,
            SimdChoice::Avx2 => SimdKind::Avx2,
            SimdChoice::None => SimdKind::None,
        };
        Ok(Simd::new(kind)?)
    }
}

/// A command that runs with one slider implementation.
pub trait SliderJob {
    fn run<S: Sliders>(self) -> Result<ExitCode>;
}

impl Counts {
    /// Runs `job` compiled for the slider implementation chosen: the one place the choice
    /// becomes a type, so nothing below it branches on the slider kind.
    pub fn run(&self, job: impl SliderJob) -> Result<ExitCode> {
        match self.sliders {
            Slider::Magic => job.run::<Magic>(),
            Slider::Classical => job.run::<Classical>(),
            #[cfg(target_arch = "x86_64")]
            Slider::Pext => job.run::<perft::attacks::Pext>(),
        }
    }

    /// A count of nodes as these options say, through `table` if any.
    pub fn perft<'a>(&self, table: Option<&'a Table>) -> Perft<'a> {
        self.count_of::<Nodes>(table)
    }

    /// A count of `T` (nodes, or statistics) as these options say, through `table` if any.
    pub fn count_of<'a, T: Total>(&self, table: Option<&'a Table<T::Narrow>>) -> Perft<'a, T> {
        Perft::default()
            .counting(self.counting)
            .threads(self.threads)
            .simd(self.simd)
            .table(table)
    }

    /// The size `--hash` asks for, in MiB, of a table of records `N` for the count `size`
    /// (used by `auto` only).
    pub fn hash_mb<N: Record>(&self, size: impl FnOnce() -> CountSize) -> usize {
        match self.hash {
            HashSize::Mb(mb) => mb as usize,
            HashSize::Auto => size().auto_mb::<N>(tt::available_memory()),
        }
    }

    /// The transposition table `--hash` asks for, for records `N` (node counts or statistics),
    /// sized (`auto`) and divided between its parts for the count `size`, if one is asked for.
    pub fn table<N: Record>(&self, size: impl FnOnce() -> CountSize) -> Result<Option<Table<N>>> {
        let size = size();
        let mb = self.hash_mb::<N>(|| size);
        if mb == 0 {
            return Ok(None);
        }
        // Mapping takes about a second per few GiB: on a terminal, a wait that long says so.
        let status = super::progress::Status::new(format!("setting up a {mb} MiB table"));
        let table = super::progress::watched_as(&status, true, |_| {
            Table::with_layout(mb, self.threads, size.layout::<N>(mb))
        })?;
        Ok(Some(table))
    }

    /// A table of `mb` MiB for records `N` (none for 0), divided for no count in particular, its
    /// memory first written by as many threads as will count with it.
    pub fn table_of_mb<N: Record>(&self, mb: usize) -> Result<Option<Table<N>>> {
        match mb {
            0 => Ok(None),
            mb => Ok(Some(Table::with_threads(mb, self.threads)?)),
        }
    }
}
