//! The `perft` command line: parses arguments, calls the library, prints.

use anyhow::{Context, Result, bail};
use clap::{Parser, ValueEnum};
use perft::attacks::magic::{self, Slider};
use perft::compare::Work;
use perft::perft::{Counting, Options, divide_uci, perft_with};
use perft::suite::{self, Limits, PositionReport, Summary};
use perft::tt::Table;
use perft::{Classical, Magic, Position, Sliders, epd};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The deepest perft the tool accepts. Deep counts only finish in closed positions (one suite
/// position is checked at depth 32); a count that could overflow the 64-bit node counter would
/// take centuries at any speed, so that limit is never reached.
const MAX_DEPTH: u32 = 64;

/// Exact perft counts and move-generator speed for chess positions.
///
/// Prints the number of leaf nodes of the legal move tree to the given depth on stdout (a plain
/// integer, for scripts) and the time and speed on stderr.
///
/// Also callable as `perft <depth> "<fen>" ["<moves>"]`, the contract of the perftree debugger:
/// one `move count` line per root move, a blank line, the total.
#[derive(Parser, Debug)]
#[command(name = "perft", version, about, long_about = None, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    /// perftree form: the depth (then FEN and moves follow as positional arguments).
    #[arg(value_name = "DEPTH", conflicts_with_all = ["depth", "fen", "moves", "suite", "divide", "compare", "magics"],
          value_parser = clap::value_parser!(u32).range(0..=MAX_DEPTH as i64))]
    tree_depth: Option<u32>,

    /// perftree form: the FEN.
    #[arg(value_name = "FEN", requires = "tree_depth")]
    tree_fen: Option<String>,

    /// perftree form: the moves to play first, in one space-separated argument.
    #[arg(value_name = "MOVES", requires = "tree_fen")]
    tree_moves: Option<String>,

    /// Position in FEN (6 fields) or EPD form (4 fields); default: the start position.
    #[arg(long, short = 'f')]
    fen: Option<String>,

    /// Moves in UCI notation to play from the position before counting (`--moves e2e4 e7e5`).
    #[arg(long, num_args = 1.., value_name = "MOVE")]
    moves: Vec<String>,

    /// Depth in plies, 0 to 64 [default: 5].
    #[arg(long, short = 'd', value_parser = clap::value_parser!(u32).range(0..=MAX_DEPTH as i64))]
    depth: Option<u32>,

    /// Print the count under each root move (`e2e4: 20`), then `Nodes searched: N`, as
    /// Stockfish's `go perft` does.
    #[arg(long)]
    divide: bool,

    /// Make every move down to depth 0 instead of counting the last ply's moves.
    #[arg(long)]
    no_bulk: bool,

    /// Slider attack implementation.
    #[arg(long, value_enum, default_value_t = SliderChoice::Magic)]
    sliders: SliderChoice,

    /// Use the classical ray scan for sliders (same as `--sliders classical`).
    #[arg(long, conflicts_with = "sliders")]
    classical: bool,

    /// Run the same perft with every slider implementation, alternating, and print a table.
    #[arg(long, conflicts_with_all = ["divide", "sliders", "classical"])]
    compare: bool,

    /// Rounds for `--compare` (the median time is reported).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
    rounds: u32,

    /// Run our magic finder, print every square's magic and verify them exhaustively.
    #[arg(long, conflicts_with_all = ["divide", "compare"])]
    magics: bool,

    /// Seed for `--magics` (default: the seed that produced the shipped magics).
    #[arg(long, requires = "magics")]
    seed: Option<u64>,

    /// Check every position of a suite file (EPD with `;D<n> <count>` fields, or the `.perft`
    /// block format) and report PASS or FAIL per position.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["fen", "divide", "magics"])]
    suite: Option<PathBuf>,

    /// With `--suite`: skip depths above this.
    #[arg(long, default_value_t = MAX_DEPTH, requires = "suite",
          value_parser = clap::value_parser!(u32).range(1..=MAX_DEPTH as i64))]
    max_depth: u32,

    /// With `--suite`: skip checks whose expected count is above this.
    #[arg(long, default_value_t = 10_000_000, requires = "suite")]
    max_nodes: u128,

    /// With `--suite`: machine-readable output (one JSON document on stdout).
    #[arg(long, requires = "suite")]
    json: bool,

    /// Worker threads [default: every available core]. The tree is split at the root moves, and
    /// deeper when there are few, so that all threads stay busy.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,

    /// Transposition table of this many MiB (0: none): perft counts of positions met again are
    /// looked up instead of recounted. Speed is then reported as effective Mnps. The table's
    /// memory is mapped before counting starts (by the `--threads` threads), which takes time in
    /// proportion to its size: size it to the count.
    #[arg(long, default_value_t = 0, value_name = "MB",
          value_parser = clap::value_parser!(u32).range(0..=1 << 20))]
    hash: u32,

    /// The fixed speed test: the six standard positions at fixed depths, one thread, no hash,
    /// per-position and total Mnps (like Stockfish's `bench`), to compare two builds.
    #[arg(long, conflicts_with_all = ["fen", "moves", "suite", "divide", "compare", "magics"])]
    bench: bool,

    /// Chess960 castling rules (`KQkq` read as X-FEN, castling printed as king takes rook).
    /// Shredder-FEN castling letters (rook files) select them by themselves.
    #[arg(long)]
    chess960: bool,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Speak UCI on stdin/stdout (uci, isready, ucinewgame, setoption name UCI_Chess960,
    /// position, go perft N, d, quit), so tools that drive engines can use this generator.
    Uci,
    /// Find where another engine's perft goes wrong: compare its `go perft` divide (over UCI)
    /// with ours, descend into a differing move, and repeat down to the exact position.
    Diff(DiffArgs),
}

#[derive(clap::Args, Debug)]
struct DiffArgs {
    /// The engine's command line (run by `sh -c`), e.g. "stockfish" or "./myengine --uci".
    #[arg(long)]
    engine: String,

    /// Starting position; default: the start position.
    #[arg(long, short = 'f')]
    fen: Option<String>,

    /// Moves to play from it first (UCI notation).
    #[arg(long, num_args = 1.., value_name = "MOVE")]
    moves: Vec<String>,

    /// Depth to compare at, 1 to 64.
    #[arg(long, short = 'd', value_parser = clap::value_parser!(u32).range(1..=MAX_DEPTH as i64))]
    depth: u32,

    /// Chess960 castling rules (also selected by Shredder-FEN castling letters).
    #[arg(long)]
    chess960: bool,

    /// Seconds to wait for each line of the engine's output.
    #[arg(long, default_value_t = 600)]
    timeout: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum SliderChoice {
    /// Magic bitboards (default).
    Magic,
    /// Classical ray scan.
    Classical,
    /// BMI2 PEXT lookups (x86-64 CPUs with BMI2: Intel since 2013, AMD fast since Zen 3).
    Pext,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    // `diff` writes to a child engine that may have exited: it must see EPIPE as an error, not
    // die of SIGPIPE, so it keeps SIGPIPE ignored and writes its own output with error handling.
    if !matches!(cli.command, Some(Command::Diff(_))) {
        restore_sigpipe();
    }
    match run(&cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Output piped into a reader that stops early (`perft --suite x | head`) should end the process
/// quietly, as it does for `cat` or `grep`; Rust ignores SIGPIPE by default, which turns the
/// closed pipe into a panic inside `println!`.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in `main`, before any thread exists; SIG_DFL is a valid action.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn run(cli: &Cli) -> Result<ExitCode> {
    match &cli.command {
        Some(Command::Uci) => {
            let stdin = std::io::stdin();
            perft::uci::Uci::new().run(stdin.lock(), std::io::stdout().lock())?;
            return Ok(ExitCode::SUCCESS);
        }
        Some(Command::Diff(args)) => return run_diff(args),
        None => {}
    }
    if let Some(depth) = cli.tree_depth {
        return run_perftree(cli, depth);
    }
    if cli.magics {
        return run_magics(cli.seed.unwrap_or(magic::SHIPPED_SEED));
    }
    let counting = cli.counting();
    if cli.bench {
        return with_sliders(cli, Bench { counting });
    }
    if let Some(path) = &cli.suite {
        let limits = Limits {
            max_depth: cli.max_depth,
            max_nodes: cli.max_nodes,
        };
        if cli.compare {
            let work = suite_work(path, cli.chess960, limits)?;
            return compare(
                &work,
                &format!("suite {}", path.display()),
                counting,
                cli.rounds,
            );
        }
        return with_sliders(
            cli,
            Suite {
                cli,
                path,
                limits,
                counting,
            },
        );
    }
    let moves: Vec<&str> = cli
        .moves
        .iter()
        .flat_map(|m| m.split_ascii_whitespace())
        .collect();
    let pos = build_position(cli.fen.as_deref(), cli.chess960, &moves)?;
    if cli.compare {
        let work = vec![Work {
            pos: pos.clone(),
            depth: cli.depth(),
            expected: None,
        }];
        return compare(&work, &pos.to_fen(), counting, cli.rounds);
    }
    with_sliders(cli, Count { cli, pos, counting })
}

impl Cli {
    fn depth(&self) -> u32 {
        self.depth.unwrap_or(5)
    }

    fn counting(&self) -> Counting {
        if self.no_bulk {
            Counting::NoBulk
        } else {
            Counting::Bulk
        }
    }

    fn threads(&self) -> usize {
        match self.threads {
            Some(n) => n as usize,
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }

    /// The transposition table, built once, if `--hash` asks for one.
    fn table(&self) -> Result<Option<Table>> {
        if self.hash == 0 {
            return Ok(None);
        }
        Ok(Some(Table::with_threads(
            self.hash as usize,
            self.threads(),
        )?))
    }
}

/// What a speed figure was measured with: counting, sliders, threads, hash.
fn setup_label(counting: Counting, sliders: &str, opts: &Options<'_>) -> String {
    let threads = if opts.threads == 1 {
        "1 thread".to_string()
    } else {
        format!("{} threads", opts.threads)
    };
    let hash = match opts.table {
        Some(t) => format!("hash {} MiB", t.bytes() >> 20),
        None => "no hash".to_string(),
    };
    // Bulk counting runs one of two compiled copies of its hot code (see `perft::bulk_code`):
    // say which, so that figures from different machines are not taken for the same code.
    let code = match counting {
        Counting::Bulk => format!(", {} code", perft::perft::bulk_code()),
        Counting::NoBulk => String::new(),
    };
    format!(
        "{}, {sliders} sliders, {threads}, {hash}{code}",
        counting_name(counting)
    )
}

/// "Mnps", or "effective Mnps" when a table answered part of the count.
fn mnps_label(opts: &Options<'_>) -> &'static str {
    if opts.table.is_some() {
        "effective Mnps"
    } else {
        "Mnps"
    }
}

/// The position to count: `fen` (default: the start position), then `moves` played in order.
fn build_position(fen: Option<&str>, chess960: bool, moves: &[&str]) -> Result<Position> {
    let fen = fen.unwrap_or(perft::position::STARTPOS);
    let mut pos = match Position::from_fen_with(fen, chess960) {
        Err(e @ perft::FenError::CastlingPieces { .. })
            if !chess960 && Position::from_fen_with(fen, true).is_ok() =>
        {
            bail!(
                "invalid FEN '{}': {e} (valid as X-FEN with --chess960)",
                shorten(fen)
            )
        }
        result => result.with_context(|| format!("invalid FEN '{}'", shorten(fen)))?,
    };
    if let Err((i, e)) = perft::uci::play_moves(&mut pos, moves.iter().copied()) {
        bail!("move {i} of --moves: {e}");
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

/// The perftree contract: `move count` lines, a blank line, the total; nothing else on stdout.
fn run_perftree(cli: &Cli, depth: u32) -> Result<ExitCode> {
    let moves: Vec<&str> = cli
        .tree_moves
        .as_deref()
        .unwrap_or("")
        .split_ascii_whitespace()
        .collect();
    let pos = build_position(cli.tree_fen.as_deref(), cli.chess960, &moves)?;
    if depth == 0 {
        println!();
        println!("1");
        return Ok(ExitCode::SUCCESS);
    }
    let lines = divide_uci::<Magic>(&pos, depth, Options::single(cli.counting()));
    for (mv, n) in &lines {
        println!("{mv} {n}");
    }
    println!();
    println!("{}", lines.iter().map(|l| l.1).sum::<u64>());
    Ok(ExitCode::SUCCESS)
}

fn run_diff(args: &DiffArgs) -> Result<ExitCode> {
    use perft::diff::{Engine, Outcome, find_divergence};
    let fen = args.fen.as_deref().unwrap_or(perft::position::STARTPOS);
    let moves: Vec<String> = args
        .moves
        .iter()
        .flat_map(|m| m.split_ascii_whitespace())
        .map(String::from)
        .collect();
    // Validate the input before starting the engine.
    let refs: Vec<&str> = moves.iter().map(String::as_str).collect();
    build_position(Some(fen), args.chess960, &refs)?;
    let mut engine = Engine::start(&args.engine, Duration::from_secs(args.timeout.max(1)))?;
    let report = find_divergence(&mut engine, fen, args.chess960, &moves, args.depth)?;
    let mut out = std::io::stdout().lock();
    for step in &report.steps {
        let path = if step.moves.is_empty() {
            "(root)".to_string()
        } else {
            step.moves.join(" ")
        };
        let theirs = step.theirs.map_or("?".to_string(), |t| t.to_string());
        writeln!(
            out,
            "depth {}: {path}: engine {theirs}, perft {}",
            step.depth, step.ours
        )?;
        if let Some((mv, theirs, ours)) = &step.follow {
            writeln!(
                out,
                "  {mv}: engine {theirs}, perft {ours} -> descending into {mv}"
            )?;
        }
    }
    writeln!(out)?;
    let line = |moves: &[String]| {
        if moves.is_empty() {
            "(none)".to_string()
        } else {
            moves.join(" ")
        }
    };
    match report.outcome {
        Outcome::Agree { nodes } => {
            writeln!(
                out,
                "no difference: both count {nodes} nodes at depth {}",
                args.depth
            )?;
            Ok(ExitCode::SUCCESS)
        }
        Outcome::MoveListDiffers {
            moves,
            fen,
            missed,
            invented,
        } => {
            writeln!(
                out,
                "the engine's legal moves differ after: {}",
                line(&moves)
            )?;
            writeln!(out, "FEN: {fen}")?;
            writeln!(out, "moves the engine missed:   {}", line(&missed))?;
            writeln!(out, "moves the engine invented: {}", line(&invented))?;
            Ok(ExitCode::from(1))
        }
        Outcome::TotalDiffers {
            moves,
            fen,
            ours,
            theirs,
        } => {
            writeln!(
                out,
                "after {}: every move's count agrees, but the engine's total is {} (sum {ours})",
                line(&moves),
                theirs.map_or("missing".to_string(), |t| t.to_string())
            )?;
            writeln!(out, "FEN: {fen}")?;
            Ok(ExitCode::from(1))
        }
        Outcome::Inconsistent { moves, fen, detail } => {
            writeln!(
                out,
                "the engine is inconsistent after {}: {detail}",
                line(&moves)
            )?;
            writeln!(out, "FEN: {fen}")?;
            Ok(ExitCode::from(1))
        }
    }
}

/// A command that runs with one slider implementation.
trait SliderJob {
    fn run<S: Sliders>(self) -> Result<ExitCode>;
}

/// The one place the slider implementation is chosen: the job is compiled once per choice, so
/// nothing below it branches on the slider kind.
fn with_sliders(cli: &Cli, job: impl SliderJob) -> Result<ExitCode> {
    let choice = if cli.classical {
        SliderChoice::Classical
    } else {
        cli.sliders
    };
    match choice {
        SliderChoice::Magic => job.run::<Magic>(),
        SliderChoice::Classical => job.run::<Classical>(),
        #[cfg(target_arch = "x86_64")]
        SliderChoice::Pext if perft::attacks::Pext::available() => {
            if perft::attacks::Pext::microcoded() {
                eprintln!(
                    "warning: this CPU runs pext in microcode (AMD before Zen 3), many times \
                     slower than a multiply; --sliders magic will be faster"
                );
            }
            job.run::<perft::attacks::Pext>()
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
    }
}

/// `--fen`/`--depth` (with `--divide`, `--threads`, `--hash`).
struct Count<'a> {
    cli: &'a Cli,
    pos: Position,
    counting: Counting,
}

impl SliderJob for Count<'_> {
    fn run<S: Sliders>(self) -> Result<ExitCode> {
        run_perft::<S>(self.cli, self.pos, self.counting)
    }
}

/// `--suite`.
struct Suite<'a> {
    cli: &'a Cli,
    path: &'a Path,
    limits: Limits,
    counting: Counting,
}

impl SliderJob for Suite<'_> {
    fn run<S: Sliders>(self) -> Result<ExitCode> {
        run_suite::<S>(self.cli, self.path, self.limits, self.counting)
    }
}

/// `--bench`.
struct Bench {
    counting: Counting,
}

impl SliderJob for Bench {
    fn run<S: Sliders>(self) -> Result<ExitCode> {
        run_bench::<S>(self.counting)
    }
}

fn counting_name(counting: Counting) -> &'static str {
    match counting {
        Counting::Bulk => "bulk counting",
        Counting::NoBulk => "no bulk counting",
    }
}

fn mnps(nodes: u64, elapsed: Duration) -> f64 {
    nodes as f64 / elapsed.as_secs_f64().max(1e-9) / 1e6
}

fn run_perft<S: Sliders>(cli: &Cli, pos: Position, counting: Counting) -> Result<ExitCode> {
    let table = cli.table()?;
    let opts = Options {
        counting,
        threads: cli.threads(),
        table: table.as_ref(),
    };
    let start = Instant::now();
    let nodes = if cli.divide {
        let lines = divide_uci::<S>(&pos, cli.depth(), opts);
        let total: u64 = lines.iter().map(|(_, n)| n).sum();
        let total = if cli.depth() == 0 { 1 } else { total };
        for (mv, n) in &lines {
            println!("{mv}: {n}");
        }
        println!();
        println!("Nodes searched: {total}");
        total
    } else {
        let nodes = perft_with::<S>(&pos, cli.depth(), opts);
        println!("{nodes}");
        nodes
    };
    let elapsed = start.elapsed();
    eprintln!(
        "depth {} | {} nodes | {:.3} s | {:.1} {} | {}",
        cli.depth(),
        nodes,
        elapsed.as_secs_f64(),
        mnps(nodes, elapsed),
        mnps_label(&opts),
        setup_label(counting, S::NAME, &opts)
    );
    Ok(ExitCode::SUCCESS)
}

/// The six standard positions at the depths of the speed comparison with the peers, with their
/// published counts (Chess Programming Wiki, "Perft Results").
const BENCH: [(&str, &str, u32, u64); 6] = [
    (
        "startpos",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        6,
        119_060_324,
    ),
    (
        "kiwipete",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        5,
        193_690_690,
    ),
    (
        "pos3",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        7,
        178_633_661,
    ),
    (
        "pos4",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        6,
        706_045_033,
    ),
    (
        "pos5",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        5,
        89_941_194,
    ),
    (
        "pos6",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        5,
        164_075_551,
    ),
];

/// `--bench`: a fixed speed test, one thread, no hash (the counts are checked, so a broken
/// build cannot look fast).
fn run_bench<S: Sliders>(counting: Counting) -> Result<ExitCode> {
    let opts = Options {
        counting,
        threads: 1,
        table: None,
    };
    println!("bench: {}", setup_label(counting, S::NAME, &opts));
    let mut total_nodes = 0;
    let mut total_time = Duration::ZERO;
    for (name, fen, depth, expected) in BENCH {
        let pos = Position::from_fen(fen).context("bench FEN")?;
        let start = Instant::now();
        let nodes = perft_with::<S>(&pos, depth, opts);
        let t = start.elapsed();
        if nodes != expected {
            bail!("{name} depth {depth}: {nodes} nodes, expected {expected}: this build is broken");
        }
        println!(
            "{name:<10} depth {depth} {nodes:>11} nodes {:>8.3} s {:>8.1} Mnps",
            t.as_secs_f64(),
            mnps(nodes, t)
        );
        total_nodes += nodes;
        total_time += t;
    }
    println!(
        "total {total_nodes:>26} nodes {:>8.3} s {:>8.1} Mnps",
        total_time.as_secs_f64(),
        mnps(total_nodes, total_time)
    );
    Ok(ExitCode::SUCCESS)
}

/// Every check of a suite within the limits, for `--compare --suite`.
fn suite_work(path: &Path, chess960: bool, limits: Limits) -> Result<Vec<Work>> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut work = Vec::new();
    for entry in epd::read(std::io::BufReader::new(file)) {
        let entry =
            entry.map_err(|e| anyhow::anyhow!("{}:{}: {}", path.display(), e.line, e.kind))?;
        let pos = suite::parse_position(&entry, chess960)
            .with_context(|| format!("{}:{}: invalid FEN", path.display(), entry.line))?;
        for &(depth, expected) in &entry.counts {
            if limits.allows(depth, expected) {
                work.push(Work {
                    pos: pos.clone(),
                    depth,
                    expected: Some(expected),
                });
            }
        }
    }
    if work.is_empty() {
        bail!("{}: no checks within the limits", path.display());
    }
    Ok(work)
}

/// Runs the comparison and prints its table; exit status 1 if any count disagrees.
fn compare(work: &[Work], what: &str, counting: Counting, rounds: u32) -> Result<ExitCode> {
    let (contenders, problems) = perft::compare::compare(work, counting, rounds);
    let base = contenders[0].median();
    let plural = if work.len() == 1 {
        format!(" depth {}", work[0].depth)
    } else {
        "s".to_string()
    };
    println!(
        "{what}: {} perft{plural}, {}, 1 thread, {rounds} rounds alternating, median time",
        work.len(),
        counting_name(counting)
    );
    println!();
    println!(
        "{:<10} {:>15} {:>10} {:>9} {:>12}",
        "sliders", "nodes", "time (s)", "Mnps", "vs classical"
    );
    for c in &contenders {
        let t = c.median();
        println!(
            "{:<10} {:>15} {:>10.3} {:>9.1} {:>11.2}x",
            c.name,
            c.nodes(),
            t.as_secs_f64(),
            mnps(c.nodes(), t),
            base.as_secs_f64() / t.as_secs_f64().max(1e-9)
        );
    }
    for p in &problems {
        eprintln!("error: {p}");
    }
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn run_magics(seed: u64) -> Result<ExitCode> {
    let search = magic::find_magics(seed);
    println!(
        "magic search, seed {seed:#x}: {:.1} ms",
        search.elapsed.as_secs_f64() * 1e3
    );
    for (slider, found) in [
        (Slider::Rook, &search.rook),
        (Slider::Bishop, &search.bishop),
    ] {
        println!();
        println!("{} magics", slider.name());
        println!(
            "{:<6} {:>18} {:>4} {:>8} {:>8} {:>8}",
            "square", "magic", "bits", "entries", "distinct", "tries"
        );
        for (sq, m) in perft::Square::ALL.iter().zip(found.iter()) {
            println!(
                "{:<6} {:#018x} {:>4} {:>8} {:>8} {:>8}",
                sq.to_string(),
                m.magic,
                m.bits,
                m.entries,
                m.distinct,
                m.tries
            );
        }
    }
    let entries = search.entries();
    println!();
    println!(
        "table: {entries} entries, {:.1} KiB (fancy layout: 107648 entries, 841.0 KiB)",
        entries as f64 * 8.0 / 1024.0
    );
    let rook: [u64; 64] = std::array::from_fn(|i| search.rook[i].magic);
    let bishop: [u64; 64] = std::array::from_fn(|i| search.bishop[i].magic);
    let verify = Instant::now();
    let checked_r = magic::verify_magics(Slider::Rook, &rook);
    let checked_b = magic::verify_magics(Slider::Bishop, &bishop);
    match (checked_r, checked_b) {
        (Ok(r), Ok(b)) => println!(
            "verified: {} occupancy subsets, every one equal to the classical ray scan ({:.1} ms)",
            r + b,
            verify.elapsed().as_secs_f64() * 1e3
        ),
        (Err(sq), _) | (_, Err(sq)) => bail!("magic verification failed on {sq}"),
    }
    let shipped = rook == magic::ROOK_MAGICS && bishop == magic::BISHOP_MAGICS;
    println!(
        "shipped magics: {}",
        if shipped {
            "identical to this search"
        } else {
            "differ (another seed)"
        }
    );
    Ok(ExitCode::SUCCESS)
}

/// Shows a progress bar on a terminal once a run has lasted a moment; never when the output is
/// piped or JSON.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    start: Instant,
    shown: bool,
}

impl Progress {
    fn new(enabled: bool, total: u64) -> Progress {
        use std::io::IsTerminal;
        let bar = (enabled && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::with_draw_target(
                Some(total),
                indicatif::ProgressDrawTarget::hidden(),
            );
            let style = indicatif::ProgressStyle::with_template(
                "{bar:40} {percent:>3}% {human_pos}/{human_len} nodes, eta {eta}",
            );
            if let Ok(style) = style {
                bar.set_style(style);
            }
            bar
        });
        Progress {
            bar,
            start: Instant::now(),
            shown: false,
        }
    }

    fn advance(&mut self, nodes: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(nodes);
            if !self.shown && self.start.elapsed() > Duration::from_millis(500) {
                bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                self.shown = true;
            }
        }
    }

    /// Prints a line above the bar.
    fn println(&self, line: &str) {
        match &self.bar {
            Some(bar) if self.shown => bar.suspend(|| println!("{line}")),
            _ => println!("{line}"),
        }
    }

    fn eprintln(&self, line: &str) {
        match &self.bar {
            Some(bar) if self.shown => bar.suspend(|| eprintln!("{line}")),
            _ => eprintln!("{line}"),
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// `D1-D5`, or `D1 D3` for depths that are not consecutive.
fn depth_list(depths: &[u32]) -> String {
    if depths.is_empty() {
        return "-".to_string();
    }
    let consecutive = depths.windows(2).all(|w| w[1] == w[0] + 1);
    if consecutive && depths.len() > 1 {
        format!("D{}-D{}", depths[0], depths[depths.len() - 1])
    } else {
        depths
            .iter()
            .map(|d| format!("D{d}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn position_lines(r: &PositionReport) -> Vec<String> {
    let ran: Vec<u32> = r.run().map(|c| c.depth).collect();
    let name = r.name();
    let status = if !r.passed() {
        "FAIL"
    } else if ran.is_empty() {
        "SKIP"
    } else {
        "PASS"
    };
    let mut line = format!(
        "{status}  {name:<32} {:<10} {:>8.3} s {:>8.1} Mnps",
        depth_list(&ran),
        r.time().as_secs_f64(),
        mnps(r.nodes(), r.time())
    );
    let mut skipped: Vec<(u32, &str)> = Vec::new();
    for c in &r.checks {
        if let Some(reason) = c.skipped {
            skipped.push((c.depth, reason.describe()));
        }
    }
    if !skipped.is_empty() {
        let mut reasons: Vec<&str> = skipped.iter().map(|s| s.1).collect();
        reasons.dedup();
        let depths: Vec<u32> = skipped.iter().map(|s| s.0).collect();
        line.push_str(&format!(
            "  (skipped {}: {})",
            depth_list(&depths),
            reasons.join(", ")
        ));
    }
    let mut lines = vec![line];
    for c in r.checks.iter().filter(|c| c.failed()) {
        lines.push(format!(
            "      depth {}: expected {}, got {}",
            c.depth,
            c.expected,
            c.actual.unwrap_or(0)
        ));
        lines.push(format!("      FEN: {}", r.fen));
    }
    if let Some((depth, moves)) = &r.divide {
        lines.push(format!(
            "      divide at depth {depth} ({} root moves):",
            moves.len()
        ));
        for (mv, n) in moves {
            lines.push(format!("        {mv}: {n}"));
        }
    }
    lines
}

fn report_json(r: &PositionReport) -> serde_json::Value {
    let checks: Vec<serde_json::Value> = r
        .checks
        .iter()
        .map(|c| {
            serde_json::json!({
                "depth": c.depth,
                "expected": c.expected,
                "actual": c.actual,
                "pass": c.actual.map(|_| c.passed()),
                "skipped": c.skipped.map(|s| s.describe()),
                "time": c.time.as_secs_f64(),
            })
        })
        .collect();
    let divide = r.divide.as_ref().map(|(depth, moves)| {
        serde_json::json!({
            "depth": depth,
            "moves": moves.iter().map(|(m, n)| serde_json::json!({"move": m, "nodes": n})).collect::<Vec<_>>(),
        })
    });
    serde_json::json!({
        "line": r.line,
        "id": r.id,
        "fen": r.fen,
        "pass": r.passed(),
        "nodes": r.nodes(),
        "time": r.time().as_secs_f64(),
        "checks": checks,
        "divide": divide,
    })
}

/// The total expected nodes of the checks within the limits (a first streamed pass over the
/// file, for the progress bar).
fn planned_nodes(path: &Path, limits: Limits) -> u64 {
    let Ok(file) = std::fs::File::open(path) else {
        return 0;
    };
    epd::read(std::io::BufReader::new(file))
        .flatten()
        .flat_map(|e| e.counts)
        .filter(|&(d, n)| limits.allows(d, n))
        .map(|(_, n)| n as u64)
        .sum()
}

fn run_suite<S: Sliders>(
    cli: &Cli,
    path: &Path,
    limits: Limits,
    counting: Counting,
) -> Result<ExitCode> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let table = cli.table()?;
    let opts = Options {
        counting,
        threads: cli.threads(),
        table: table.as_ref(),
    };
    let total = if cli.json {
        0
    } else {
        planned_nodes(path, limits)
    };
    let mut progress = Progress::new(!cli.json, total);
    let mut summary = Summary::default();
    let mut json_positions = Vec::new();
    let mut json_errors = Vec::new();
    let file_name = path.display().to_string();
    for entry in epd::read(std::io::BufReader::new(file)) {
        let (line, message) = match entry {
            Err(e) => (e.line, e.kind.to_string()),
            Ok(entry) => match suite::parse_position(&entry, cli.chess960) {
                Err(e) => (entry.line, format!("invalid FEN: {e}")),
                Ok(pos) => {
                    let report = suite::run_position::<S>(&entry, pos, limits, opts, |n| {
                        progress.advance(n)
                    });
                    summary.add(&report);
                    if cli.json {
                        json_positions.push(report_json(&report));
                    } else {
                        for l in position_lines(&report) {
                            progress.println(&l);
                        }
                    }
                    continue;
                }
            },
        };
        summary.errors += 1;
        progress.eprintln(&format!("{file_name}:{line}: {message}"));
        if cli.json {
            json_errors.push(serde_json::json!({"line": line, "message": message}));
        }
    }
    progress.finish();
    let setup = setup_label(counting, S::NAME, &opts);
    if summary.positions == 0 && summary.errors == 0 {
        bail!("{file_name}: no positions found");
    }
    if cli.json {
        let doc = serde_json::json!({
            "file": file_name,
            "positions": json_positions,
            "errors": json_errors,
            "summary": {
                "positions": summary.positions,
                "passed": summary.passed,
                "failed": summary.failed,
                "skipped": summary.skipped,
                "errors": summary.errors,
                "nodes": summary.nodes,
                "time": summary.time.as_secs_f64(),
                "mnps": summary.mnps(),
                "counting": counting_name(counting),
                "sliders": S::NAME,
                "threads": opts.threads,
                "hash_mb": cli.hash,
                "max_depth": limits.max_depth,
                "max_nodes": limits.max_nodes,
            },
        });
        println!("{doc:#}");
    } else {
        println!();
        println!(
            "{} positions: {} checks passed, {} failed, {} skipped; {} bad lines",
            summary.positions, summary.passed, summary.failed, summary.skipped, summary.errors
        );
        println!(
            "{} nodes in {:.2} s, {:.1} {} ({setup}; limits: depth <= {}, nodes <= {})",
            summary.nodes,
            summary.time.as_secs_f64(),
            summary.mnps(),
            mnps_label(&opts),
            limits.max_depth,
            limits.max_nodes
        );
    }
    Ok(if summary.failed > 0 {
        ExitCode::from(1)
    } else if summary.errors > 0 {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}
