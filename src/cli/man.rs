//! `perft man`: the manual pages (roff), generated from the argument definitions: `perft(1)`
//! with the exit status and examples that the arguments cannot say, and one page per command
//! (`perft-diff(1)`, `perft-serve(1)`...) with every option of that command.

use anyhow::{Context, Result, bail};
use clap::CommandFactory;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// The EXIT STATUS and EXAMPLES sections, in roff.
const EXTRA: &str = r#".SH "EXIT STATUS"
.TP
\fB0\fR
Success: the count was printed, every suite check passed, the engine agrees, the merge is complete.
.TP
\fB1\fR
A suite count differs from the published one, \fB\-\-compare\fR finds implementations that
disagree, \fBperft diff\fR finds a difference, or \fBperft merge\fR finds jobs without a result.
.TP
\fB2\fR
Bad input, named on standard error: a malformed FEN or move, an unreadable suite line, an option
that does not apply, a damaged or foreign split file; or an engine \fBperft diff\fR could not run.
.SH EXAMPLES
.TP
\fBperft \-\-depth 6\fR
The start position's perft 6: 119060324.
.TP
\fBperft \-\-fen "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq \-" \-\-depth 5 \-\-divide\fR
The count under each root move, in Stockfish's format.
.TP
\fBperft \-\-suite positions.epd\fR
Every listed depth of a suite, PASS or FAIL per position.
.TP
\fBperft \-\-stats \-\-depth 5 \-\-json\fR
Captures, castles, checks and mates of the leaves at each depth.
.TP
\fBperft \-\-depth 10 \-\-hash\fR
A deep count through a table sized from the memory available.
.TP
\fBperft diff \-\-engine ./myengine \-\-depth 5\fR
The position where another engine's move generator goes wrong.
.TP
\fBperft split \-\-depth 10 \-\-at 4 \-\-shards 64 \-\-out p10\fR
A deep count as jobs for \fBperft work\fR on many machines, then \fBperft merge p10\fR.
"#;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The command whose page to print (`diff`, `serve`, `split`...): `perft-<command>(1)`;
    /// without one, the page of `perft` itself.
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,

    /// Write every page (`perft.1` and a `perft-<command>.1` per command) into this directory
    /// instead, and print their paths.
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    pub dir: Option<PathBuf>,
}

/// Prints the page asked for on stdout (`perft man > perft.1`, `perft man diff >
/// perft-diff.1`), or writes every page into `--dir`.
pub fn run<C: CommandFactory>(args: &Args) -> Result<ExitCode> {
    let mut root = C::command();
    // Built, every command knows its full name (`perft diff`) and its page's (`perft-diff`).
    root.build();
    if let Some(dir) = &args.dir {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the directory {}", dir.display()))?;
        for (name, page) in pages(&root)? {
            let path = dir.join(format!("{name}.1"));
            std::fs::write(&path, page)
                .with_context(|| format!("cannot write {}", path.display()))?;
            println!("{}", path.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let page = match &args.command {
        None => main_page(&root)?,
        Some(name) => {
            let Some(cmd) = root.find_subcommand(name) else {
                let names: Vec<&str> = commands(&root).map(|c| c.get_name()).collect();
                bail!(
                    "there is no command '{name}' (the commands: {})",
                    names.join(", ")
                );
            };
            command_page(cmd)?
        }
    };
    std::io::stdout().write_all(&page)?;
    Ok(ExitCode::SUCCESS)
}

/// The commands that have a page of their own (every subcommand but the ones hidden).
fn commands(root: &clap::Command) -> impl Iterator<Item = &clap::Command> {
    root.get_subcommands().filter(|c| !c.is_hide_set())
}

/// Every page: `perft` and one per command, by the name of its file without `.1`.
fn pages(root: &clap::Command) -> Result<Vec<(String, Vec<u8>)>> {
    let mut all = vec![("perft".to_string(), main_page(root)?)];
    for cmd in commands(root) {
        all.push((page_name(cmd), command_page(cmd)?));
    }
    Ok(all)
}

/// `perft-diff` for `perft diff`.
fn page_name(cmd: &clap::Command) -> String {
    cmd.get_display_name()
        .map_or_else(|| format!("perft-{}", cmd.get_name()), str::to_string)
}

/// The page of `perft` itself: its options, the commands (each pointing to its own page), the
/// exit status and examples.
fn main_page(root: &clap::Command) -> Result<Vec<u8>> {
    let man = clap_mangen::Man::new(root.clone());
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    man.render_options_section(&mut out)?;
    man.render_subcommands_section(&mut out)?;
    out.extend_from_slice(EXTRA.as_bytes());
    man.render_version_section(&mut out)?;
    Ok(out)
}

/// The page of one command: its synopsis, description and every option.
fn command_page(cmd: &clap::Command) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut out)?;
    Ok(out)
}
