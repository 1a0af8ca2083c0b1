//! The `perft` command line: parses arguments and hands each command to its module in `cli/`.

mod cli;

use clap::Parser;
use cli::common::Common;
use cli::{bench, compare, completions, count, diff, magics, man, serve, shards, suite, uci};
use std::process::ExitCode;

/// Exact perft counts and move-generator speed for chess positions.
///
/// Prints the number of leaf nodes of the legal move tree to the given depth on stdout (a plain
/// integer, for scripts) and the time and speed on stderr.
///
/// Also callable as `perft <depth> "<fen>" ["<moves>"]`, the contract of the perftree debugger:
/// one `move count` line per root move, a blank line, the total.
#[derive(Parser, Debug)]
#[command(name = "perft", version, about, long_about = None, args_conflicts_with_subcommands = true,
          propagate_version = true, max_term_width = 100)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    // The top-level options flatten several structs named `Args`. Each would make a default
    // argument group named for it, and clap's debug-build check of unique names rejects the
    // clash: every one of them carries `#[group(skip)]`.
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
    Uci(uci::Args),
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
    /// Serve a local web page: the board, our divide beside an engine's, and the descent to
    /// where the engine goes wrong; with a JSON API (/api/divide, /api/diff).
    Serve(serve::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) on stdout.
    Completions(completions::Args),
    /// Print a manual page (roff) on stdout: `perft man > perft.1`, `perft man diff >
    /// perft-diff.1`; or write every page into a directory with `--dir`.
    Man(man::Args),
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
    if !matches!(cli.command, Some(Command::Diff(_) | Command::Serve(_))) {
        cli::common::restore_sigpipe();
    }
    // An engine runs in a process group of its own: a stop request must end it explicitly.
    if matches!(cli.command, Some(Command::Diff(_) | Command::Serve(_)))
        && let Err(e) = cli::signals::end_engines_on_stop()
    {
        eprintln!("error: cannot watch for Ctrl-C: {e:#}");
        return ExitCode::from(2);
    }
    match run(&cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: &Cli) -> anyhow::Result<ExitCode> {
    match &cli.command {
        Some(Command::Uci(args)) => return uci::run(args),
        Some(Command::Diff(args)) => return diff::run(args),
        Some(Command::Serve(args)) => return serve::run(args),
        Some(Command::Split(args)) => return shards::split(args),
        Some(Command::Work(args)) => return shards::work(args),
        Some(Command::Merge(args)) => return shards::merge(args),
        Some(Command::Completions(args)) => return completions::run::<Cli>(args),
        Some(Command::Man(args)) => return man::run::<Cli>(args),
        None => {}
    }
    cli::root::Config::new(cli::root::Root {
        tree: &cli.tree,
        common: &cli.common,
        count: &cli.count,
        compare: &cli.compare,
        magics: &cli.magics,
        suite: &cli.suite,
        bench: &cli.bench,
    })?
    .run()
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;
    use std::collections::HashSet;

    /// In every command, the argument groups have names of their own, none an argument's: clap
    /// checks this only in debug builds, where a clash made every invocation panic while the
    /// release build (and the tests, run in release) went on working.
    #[test]
    fn argument_groups_have_unique_names_in_every_command() {
        fn check(cmd: &clap::Command, path: &str) {
            let args: HashSet<&str> = cmd.get_arguments().map(|a| a.get_id().as_str()).collect();
            let mut groups = HashSet::new();
            for g in cmd.get_groups() {
                let id = g.get_id().as_str();
                assert!(groups.insert(id), "{path}: two argument groups named {id}");
                assert!(
                    !args.contains(id),
                    "{path}: group {id} is named as an argument"
                );
            }
            for sub in cmd.get_subcommands() {
                check(sub, &format!("{path} {}", sub.get_name()));
            }
        }
        check(&Cli::command(), "perft");
    }

    /// The names the perftree form's depth error suggests are the parser's commands.
    #[test]
    fn the_command_names_of_the_depth_error_are_the_commands() {
        let names: Vec<String> = Cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .filter(|n| n != "help")
            .collect();
        assert_eq!(names, super::cli::COMMANDS);
    }
}
