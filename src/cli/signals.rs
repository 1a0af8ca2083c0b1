//! What a stop request (Ctrl-C, SIGTERM, SIGHUP) ends: the commands that start an engine
//! (`perft diff`, `perft serve`) run it in a process group of its own, so that a kill reaches
//! whatever it started; the same isolation keeps the terminal's Ctrl-C from reaching it, so on
//! such a signal every engine still running is killed before the process exits.

use anyhow::Result;

/// From now on, a stop request kills every engine this process started (and all they
/// started), then exits with the status a shell gives a process killed by that signal
/// (128 + its number: 130 for Ctrl-C, 143 for SIGTERM).
#[cfg(unix)]
pub fn end_engines_on_stop() -> Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            perft::engine::end_all();
            std::process::exit(128 + signal);
        }
    });
    Ok(())
}

/// Elsewhere the engine is not in a process group of its own, and ends with the tool.
#[cfg(not(unix))]
pub fn end_engines_on_stop() -> Result<()> {
    Ok(())
}
