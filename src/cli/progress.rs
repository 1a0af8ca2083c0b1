//! The progress bar of the long-running commands (`--suite`, `diff --suite`): on a terminal only,
//! never with JSON or piped output, and only once a run has lasted half a second.

use std::time::{Duration, Instant};

/// Shows a progress bar on a terminal once a run has lasted a moment; never when the output is
/// piped or JSON.
pub struct Progress {
    bar: Option<indicatif::ProgressBar>,
    start: Instant,
    shown: bool,
}

impl Progress {
    /// A bar of `total` nodes (a bar past 2^64 nodes stops at its end).
    pub fn new(enabled: bool, total: perft::Nodes) -> Progress {
        let total = total.saturating_u64();
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

    pub fn advance(&mut self, nodes: perft::Nodes) {
        if let Some(bar) = &self.bar {
            bar.inc(nodes.saturating_u64());
            if !self.shown && self.start.elapsed() > Duration::from_millis(500) {
                bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                self.shown = true;
            }
        }
    }

    /// Prints a line above the bar.
    pub fn println(&self, line: &str) {
        match &self.bar {
            Some(bar) if self.shown => bar.suspend(|| println!("{line}")),
            _ => println!("{line}"),
        }
    }

    pub fn eprintln(&self, line: &str) {
        match &self.bar {
            Some(bar) if self.shown => bar.suspend(|| eprintln!("{line}")),
            _ => eprintln!("{line}"),
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
