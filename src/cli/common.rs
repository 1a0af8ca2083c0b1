//! What several commands share: the position and counting options as parsed (resolved once in
//! [`super::config`]), and the labels of speed figures.

use anyhow::{Result, bail};
use clap::ValueEnum;
use perft::Nodes;
use perft::Position;
use perft::perft::{Counting, Perft};
use perft::tt::{Record, Table};
use std::time::Duration;

/// The deepest perft the tool accepts. Counts are exact at every depth up to it (see
/// `perft::nodes`); deep counts finish in sparse or closed positions, through the table.
pub const MAX_DEPTH: u32 = 64;

/// The position and how it is counted: shared by the count, the suite and the comparison.
#[derive(clap::Args, Debug)]
pub struct Common {
    /// Position in FEN (6 fields) or EPD form (4 fields); default: the start position.
    #[arg(long, short = 'f')]
    pub fen: Option<String>,

    /// Moves in UCI notation to play from the position before counting (`--moves e2e4 e7e5`).
    #[arg(long, num_args = 1.., value_name = "MOVE", conflicts_with = "suite")]
    pub moves: Vec<String>,

    #[command(flatten)]
    pub count: CountArgs,

    /// Chess960 castling rules (`KQkq` read as X-FEN, castling printed as king takes rook).
    /// Shredder-FEN castling letters (rook files) select them by themselves.
    #[arg(long)]
    pub chess960: bool,
}

/// How a count is made: the same options, with the same meaning and defaults, for every
/// command that counts (the count, suites, statistics, `perft work`, `perft serve`).
#[derive(clap::Args, Debug)]
pub struct CountArgs {
    /// Make every move down to depth 0 instead of counting the last ply's moves.
    #[arg(long)]
    pub no_bulk: bool,

    /// Slider attack implementation [default: auto, the fastest on this CPU: pext where it is
    /// fast (Intel since Haswell, AMD since Zen 3), magic elsewhere]. The speed line names it.
    #[arg(long, value_enum, default_value_t = SliderChoice::Auto, hide_default_value = true)]
    pub sliders: SliderChoice,

    /// Use the classical ray scan for sliders (same as `--sliders classical`).
    #[arg(long, conflicts_with = "sliders")]
    pub classical: bool,

    /// The last ply's code: `avx512` counts the replies eight at a time in
    /// AVX-512 lanes, `avx2` four at a time in AVX2 lanes, both in the copy compiled for
    /// x86-64-v3 (AVX2, BMI2...); `none` one board at a time in the baseline copy; `auto`
    /// (default) the widest this CPU runs. One the CPU lacks is an error. The speed line says
    /// which ran.
    #[arg(long, value_enum, default_value_t = SimdChoice::Auto, hide_default_value = true)]
    pub simd: SimdChoice,

    /// The widest last-ply code without lanes: the x86-64-v3 copy one board at a time (the
    /// baseline copy where the CPU lacks x86-64-v3).
    #[arg(long, conflicts_with = "simd")]
    pub no_lanes: bool,

    /// Worker threads [default: every available core]. A count is split into tasks (at the root
    /// moves, deeper when there are few or each would take long) that the threads share to the
    /// end; `perft work` counts that many jobs at once.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,

    /// Transposition table of this many MiB (0: none, the default), or `auto` (also `--hash`
    /// alone): sized for the count from the memory available. Perft counts of positions met
    /// again are looked up instead of recounted; speed is then reported as effective Mnps. The
    /// table's memory is mapped before counting starts (by the `--threads` threads), which
    /// takes time in proportion to its size: size it to the count.
    // A negative number is taken as the option's value (not as an option of its own, which
    // clap would suggest passing after `--`), for `parse_hash` to refuse by name.
    #[arg(long, default_value = "0", value_name = "MB|auto", num_args = 0..=1,
          default_missing_value = "auto", value_parser = parse_hash, allow_negative_numbers = true)]
    pub hash: HashSize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SimdChoice {
    /// The widest this CPU runs (default).
    Auto,
    /// AVX-512 lanes (F, CD, VPOPCNTDQ) in the x86-64-v3 copy.
    Avx512,
    /// AVX2 lanes (four boards at a time) in the x86-64-v3 copy (AVX2, BMI1, BMI2...).
    Avx2,
    /// The baseline copy (x86-64-v2), one board at a time.
    None,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SliderChoice {
    /// The fastest on this CPU: pext where the CPU runs it fast, magic elsewhere (default).
    Auto,
    /// Magic bitboards.
    Magic,
    /// Classical ray scan.
    Classical,
    /// BMI2 PEXT lookups (x86-64 CPUs with BMI2: Intel since 2013, AMD fast since Zen 3).
    Pext,
}

/// `--hash`: a size in MiB, or sized for the count from the memory available.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HashSize {
    Mb(u32),
    Auto,
}

pub fn parse_hash(s: &str) -> Result<HashSize, String> {
    if s.eq_ignore_ascii_case("auto") {
        return Ok(HashSize::Auto);
    }
    match s.parse::<u32>() {
        Ok(mb) if mb <= 1 << 20 => Ok(HashSize::Mb(mb)),
        _ if s.starts_with('-') => Err(format!(
            "'{s}': a table's size cannot be negative (a size in MiB, 0 to {}, or 'auto')",
            1u32 << 20
        )),
        _ if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => Err(format!(
            "'{s}' MiB is too large (at most {} MiB, 1 TiB)",
            1u32 << 20
        )),
        _ => Err(format!(
            "'{s}' is neither a size in MiB (0 to {}) nor 'auto'",
            1u32 << 20
        )),
    }
}

impl Common {
    /// `--moves`, each argument split at white space (`--moves "e2e4 e7e5"` works too).
    pub fn move_list(&self) -> Vec<&str> {
        move_list(&self.moves)
    }

    /// The position to count: `--fen` (default: the start position), then `--moves`.
    pub fn position(&self) -> Result<Position> {
        build_position(
            self.fen.as_deref(),
            self.chess960,
            &self.move_list(),
            &OPTION_NAMES,
        )
    }
}

/// A `--moves` option's values, each split at white space (`--moves "e2e4 e7e5"` works too).
pub fn move_list(moves: &[String]) -> Vec<&str> {
    moves
        .iter()
        .flat_map(|m| m.split_ascii_whitespace())
        .collect()
}

/// How an error of [`build_position`] names what the user gave: the command line's options, or
/// the server's parameters.
pub struct Names {
    /// Where the moves came from (`--moves`).
    pub moves: &'static str,
    /// What selects Chess960 rules (`--chess960`).
    pub chess960: &'static str,
}

/// The command line's names of the moves and the Chess960 switch.
pub const OPTION_NAMES: Names = Names {
    moves: "--moves",
    chess960: "--chess960",
};

/// The position to count: `fen` (default: the start position), then `moves` played in order;
/// an error names the input as `names` says.
pub fn build_position(
    fen: Option<&str>,
    chess960: bool,
    moves: &[&str],
    names: &Names,
) -> Result<Position> {
    use anyhow::Context;
    let fen = fen.unwrap_or(perft::position::STARTPOS);
    let mut pos = match Position::from_fen_with(fen, chess960) {
        Err(e @ perft::FenError::CastlingPieces { .. })
            if !chess960 && Position::from_fen_with(fen, true).is_ok() =>
        {
            bail!(
                "invalid FEN '{}': {e} (valid as X-FEN with {})",
                shorten(fen),
                names.chess960
            )
        }
        result => result.with_context(|| format!("invalid FEN '{}'", shorten(fen)))?,
    };
    if let Err((i, e)) = perft::movegen::play_uci_moves(&mut pos, moves.iter().copied()) {
        bail!("move {i} of {}: {e}", names.moves);
    }
    Ok(pos)
}

/// At most 100 characters of user input, for error messages.
fn shorten(s: &str) -> String {
    if s.chars().count() > 100 {
        s.chars().take(100).chain("...".chars()).collect()
    } else {
        s.to_string()
    }
}

pub fn counting_name(counting: Counting) -> &'static str {
    match counting {
        Counting::Bulk => "bulk counting",
        Counting::NoBulk => "no bulk counting",
    }
}

pub fn mnps(nodes: Nodes, elapsed: Duration) -> f64 {
    nodes.to_f64() / elapsed.as_secs_f64().max(1e-9) / 1e6
}

/// A speed in Mnps as the speed lines print it: one decimal, or three significant digits and
/// an exponent past a billion (a count answered from a table says how many nodes its lookups
/// stood for, which may be 10^40 times what a count could reach in the time).
pub fn speed(mnps: f64) -> String {
    if mnps < 1e9 {
        format!("{mnps:.1}")
    } else {
        format!("{mnps:.2e}")
    }
}

/// A table's size as the speed line gives it, to the nearest MiB (a statistics table's buckets
/// do not fill the size asked for to the byte), with the time its set-up took before the count,
/// which the count's own time leaves out: `hash 8192 MiB (set up in 2.81 s)`; or `no hash`.
pub fn hash_label<N: Record>(table: Option<&Table<N>>) -> String {
    match table {
        Some(t) => format!(
            "hash {} MiB (set up in {:.2} s)",
            (t.bytes() + (1 << 19)) >> 20,
            t.setup_time().as_secs_f64()
        ),
        None => "no hash".to_string(),
    }
}

/// What a speed figure was measured with: counting, sliders, threads, hash.
pub fn setup_label(sliders: &str, opts: &Perft<'_>) -> String {
    let counting = opts.counting;
    let threads = if opts.threads == 1 {
        "1 thread".to_string()
    } else {
        format!("{} threads", opts.threads)
    };
    let hash = hash_label(opts.table);
    // Bulk counting runs one of three compiled copies of its hot code: say which, so that
    // figures from different machines are not taken for the same code.
    let code = match counting {
        Counting::Bulk => format!(", simd {}", opts.simd.describe()),
        Counting::NoBulk => String::new(),
    };
    format!(
        "{}, {sliders} sliders, {threads}, {hash}{code}",
        counting_name(counting)
    )
}

/// `, Chess960` for a position under Chess960 castling rules, for the end of a speed line;
/// nothing for standard chess.
pub fn rules_label(pos: &Position) -> &'static str {
    if pos.is_chess960() { ", Chess960" } else { "" }
}

/// "Mnps", or "effective Mnps" when a table answered part of the count.
pub fn mnps_label(opts: &Perft<'_>) -> &'static str {
    if opts.table.is_some() {
        "effective Mnps"
    } else {
        "Mnps"
    }
}

/// `"s"` unless `n` is one.
pub fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// `n` with its noun, singular for one: `many(1, "ply", "plies")` is `1 ply`.
pub fn many(n: impl Into<u128>, one: &str, more: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { more })
}

/// Output piped into a reader that stops early (`perft --suite x | head`) ends the process
/// quietly, as for `cat`; Rust ignores SIGPIPE, which makes the closed pipe a panic in `println!`.
pub fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in `main`, before any thread exists; SIG_DFL is a valid action.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Every core the process may use: the default of `--threads` in every command that counts.
pub fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
