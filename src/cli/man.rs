//! `perft man`: the manual page (roff), generated from the argument definitions, with the exit
//! status and examples that the arguments cannot say.

use anyhow::Result;
use clap::CommandFactory;
use std::io::Write;
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

/// Writes the manual page on stdout (`perft man > perft.1`).
pub fn run<C: CommandFactory>() -> Result<ExitCode> {
    let man = clap_mangen::Man::new(C::command());
    let mut out = std::io::stdout().lock();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    man.render_options_section(&mut out)?;
    man.render_subcommands_section(&mut out)?;
    out.write_all(EXTRA.as_bytes())?;
    man.render_version_section(&mut out)?;
    Ok(ExitCode::SUCCESS)
}
