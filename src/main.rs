//! The `perft` command line: parses arguments and hands each command to its module in `cli/`.

mod cli;

use clap::Parser;
use cli::common::{Common, with_sliders};
use cli::{bench, compare, completions, count, diff, magics, man, shards, stats, suite, uci};
use perft::compare::Work;
use std::process::ExitCode;

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
    #[command(flatten)]
    tree: count::TreeArgs,
    #[command(flatten)]
    common: Common,
    #[command(flatten)]
    count: count::Args,
    #[command(flatten)]
    compare: compare::Args,
    #[command(flatten)]
    magics: magics::Args,
    #[command(flatten)]
    suite: suite::Args,
    #[command(flatten)]
    bench: bench::Args,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Speak UCI on stdin/stdout (uci, isready, ucinewgame, setoption name UCI_Chess960,
    /// position, go perft N, d, quit), so tools that drive engines can use this generator.
    Uci,
    /// Find where another engine's perft goes wrong: compare its divide (over UCI or the
    /// perftree contract) with ours, descend into a differing move, and repeat down to the exact
    /// position; with --suite, over every position of a suite file.
    Diff(diff::Args),
    /// Split a deep count into jobs (the unique positions K plies down, with multiplicities)
    /// dealt into shard files, for `perft work` on many processes or machines.
    Split(shards::SplitArgs),
    /// Count the jobs of one shard file, appending each result (synced) to its results file;
    /// started again after a kill, it carries on from the first unfinished job.
    Work(shards::WorkArgs),
    /// Check a split's results (every job exactly once) and print the total.
    Merge(shards::MergeArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) on stdout.
    Completions(completions::Args),
    /// Print the manual page (roff) on stdout: `perft man > perft.1`.
    Man,
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

/// Output piped into a reader that stops early (`perft --suite x | head`) ends the process
/// quietly, as for `cat`; Rust ignores SIGPIPE, which makes the closed pipe a panic in `println!`.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in `main`, before any thread exists; SIG_DFL is a valid action.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn run(cli: &Cli) -> anyhow::Result<ExitCode> {
    match &cli.command {
        Some(Command::Uci) => return uci::run(),
        Some(Command::Diff(args)) => return diff::run(args),
        Some(Command::Split(args)) => return shards::split(args),
        Some(Command::Work(args)) => return shards::work(args),
        Some(Command::Merge(args)) => return shards::merge(args),
        Some(Command::Completions(args)) => return completions::run::<Cli>(args),
        Some(Command::Man) => return man::run::<Cli>(),
        None => {}
    }
    let common = &cli.common;
    cli.suite.check_limits_need_a_suite()?;
    perft::perft::allow_lanes(!common.no_lanes);
    if let Some(depth) = cli.tree.tree_depth {
        return count::run_perftree(&cli.tree, common, depth);
    }
    if cli.magics.magics {
        return magics::run(&cli.magics);
    }
    let counting = common.counting();
    if cli.bench.bench {
        return with_sliders(common.slider_choice(), bench::Bench { counting });
    }
    if let Some(path) = &cli.suite.suite {
        if cli.compare.compare {
            let work = suite::work(path, common.chess960, cli.suite.limits())?;
            let what = format!("suite {}", path.display());
            return compare::run(&work, &what, counting, cli.compare.rounds);
        }
        let job = suite::Suite {
            common,
            args: &cli.suite,
            path,
        };
        return with_sliders(common.slider_choice(), job);
    }
    if cli.suite.json && !cli.count.stats {
        anyhow::bail!("--json goes with --suite or --stats");
    }
    let pos = common.position()?;
    if cli.count.stats {
        let job = stats::StatsJob {
            common,
            pos,
            depth: cli.count.depth(),
            divide: cli.count.divide,
            json: cli.suite.json,
        };
        return with_sliders(common.slider_choice(), job);
    }
    if cli.compare.compare {
        let work = [Work {
            pos: pos.clone(),
            depth: cli.count.depth(),
            expected: None,
        }];
        return compare::run(&work, &pos.to_fen(), counting, cli.compare.rounds);
    }
    let job = count::Count {
        common,
        args: &cli.count,
        pos,
    };
    with_sliders(common.slider_choice(), job)
}
