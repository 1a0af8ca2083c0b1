//! The parser's own checks: what clap checks only in debug builds, and the command names.

use crate::Cli;
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
    assert_eq!(names, crate::cli::COMMANDS);
}
