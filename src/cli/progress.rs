//! The progress bars of the long-running commands (`--suite`, `diff --suite`, and every count
//! that lasts): on a terminal only, never with JSON or piped output, and only once a run has
//! lasted a moment.

use perft::perft::Watch;
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

/// Runs `count`, handing it a [`Watch`] to report its tasks through where a progress bar can
/// be shown (stderr is a terminal), or `None` (the count then runs as it would anyway, split
/// into tasks only by its threads). The bar of tasks done appears once the count has run for a
/// second and is cleared when it returns; nothing is drawn for a shorter count.
pub fn watched<T>(count: impl FnOnce(Option<&Watch>) -> T) -> T {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return count(None);
    }
    let watch = Watch::new();
    let finished = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        let (watch, finished) = (&watch, &finished);
        scope.spawn(move || draw_tasks(watch, finished));
        let result = count(Some(watch));
        finished.store(true, std::sync::atomic::Ordering::Relaxed);
        result
    })
}

/// Draws `watch`'s tasks as a bar on stderr, from a second after the start until `finished`.
fn draw_tasks(watch: &Watch, finished: &std::sync::atomic::AtomicBool) {
    use std::sync::atomic::Ordering;
    let start = Instant::now();
    let tick = Duration::from_millis(50);
    while start.elapsed() < Duration::from_secs(1) {
        if finished.load(Ordering::Relaxed) {
            return;
        }
        std::thread::sleep(tick);
    }
    let bar = indicatif::ProgressBar::new(0);
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} tasks, {elapsed}, eta {eta}")
    {
        bar.set_style(style);
    }
    while !finished.load(Ordering::Relaxed) {
        let (done, total) = watch.progress();
        bar.set_length(total as u64);
        bar.set_position(done as u64);
        std::thread::sleep(tick);
    }
    bar.finish_and_clear();
}
