//! What a command shows on a terminal while it works: the progress bars of the suites and of
//! every count that lasts, and a line for a wait whose end cannot be measured (an engine's
//! answer). On a terminal only, never with JSON or piped output, and only once a run has
//! lasted a second. The time left is estimated from the work done: `eta ?` until some is.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use perft::perft::Watch;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long a wait lasts before it is shown.
const QUIET: Duration = Duration::from_secs(1);
/// How often a shown wait is redrawn.
const TICK: Duration = Duration::from_millis(100);

/// The time left when `done` of `total` units took `elapsed`, supposing the rest goes at the
/// same rate: `?` until a unit is done (before then nothing measures the rate).
pub fn eta(done: u64, total: u64, elapsed: Duration) -> String {
    if done == 0 || total < done {
        return "?".to_string();
    }
    let left = elapsed.as_secs_f64() * (total - done) as f64 / done as f64;
    let secs = left.round() as u64;
    match secs {
        0..60 => format!("{secs}s"),
        60..3600 => format!("{}m{:02}s", secs / 60, secs % 60),
        _ => format!("{}h{:02}m", secs / 3600, secs / 60 % 60),
    }
}

/// A bar style from `template`, its `{eta}` key estimated by [`eta`].
fn style(template: &str) -> Option<ProgressStyle> {
    let key = |s: &ProgressState, w: &mut dyn std::fmt::Write| {
        let _ = w.write_str(&eta(s.pos(), s.len().unwrap_or(0), s.elapsed()));
    };
    ProgressStyle::with_template(template)
        .ok()
        .map(|st| st.with_key("eta", key))
}

/// A hidden bar shown on stderr once [`QUIET`] has passed, then redrawn every [`TICK`] (so the
/// time moves while nothing finishes), until dropped.
struct Reveal {
    bar: ProgressBar,
    stop: std::sync::Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Reveal {
    fn new(bar: ProgressBar) -> Reveal {
        bar.set_draw_target(ProgressDrawTarget::hidden());
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let (b, s) = (bar.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            let start = Instant::now();
            while start.elapsed() < QUIET {
                if s.load(Ordering::Relaxed) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            if !s.load(Ordering::Relaxed) {
                b.set_draw_target(ProgressDrawTarget::stderr());
                b.enable_steady_tick(TICK);
            }
        });
        Reveal {
            bar,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Reveal {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.bar.finish_and_clear();
    }
}

/// Shows a progress bar of nodes on a terminal once a run has lasted a second; never when the
/// output is piped or JSON.
pub struct Progress {
    shown: Option<Reveal>,
}

impl Progress {
    /// A bar of `total` nodes (a bar past 2^64 nodes stops at its end).
    pub fn new(enabled: bool, total: perft::Nodes) -> Progress {
        use std::io::IsTerminal;
        let shown = (enabled && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new(total.saturating_u64());
            if let Some(style) =
                style("{bar:40} {percent:>3}% {human_pos}/{human_len} nodes, eta {eta}")
            {
                bar.set_style(style);
            }
            Reveal::new(bar)
        });
        Progress { shown }
    }

    pub fn advance(&mut self, nodes: perft::Nodes) {
        if let Some(r) = &self.shown {
            r.bar.inc(nodes.saturating_u64());
        }
    }

    /// Prints a line above the bar.
    pub fn println(&self, line: &str) {
        match &self.shown {
            Some(r) => r.bar.suspend(|| println!("{line}")),
            None => println!("{line}"),
        }
    }

    pub fn eprintln(&self, line: &str) {
        match &self.shown {
            Some(r) => r.bar.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }

    pub fn finish(&mut self) {
        self.shown = None;
    }
}

/// A bar of jobs for `perft work` on a terminal (none when piped): its message set by the
/// caller, its time left estimated from the jobs done.
pub fn jobs_bar(jobs: u64) -> Option<ProgressBar> {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal().then(|| {
        let bar = ProgressBar::new(jobs);
        if let Some(style) = style("{bar:40} {pos}/{len} jobs, {msg}, eta {eta}") {
            bar.set_style(style);
        }
        // Shown from the start: a shard's first job may take hours.
        bar.set_message("starting");
        bar.tick();
        bar
    })
}

/// What a watched wait is doing, for its line on a terminal: set by the command as it goes
/// (`depth 7 of 8`, `the engine counts depth 6 after e2e4`).
#[derive(Default)]
pub struct Status(Mutex<String>);

impl Status {
    pub fn new(what: impl Into<String>) -> Status {
        Status(Mutex::new(what.into()))
    }

    pub fn set(&self, what: impl Into<String>) {
        if let Ok(mut s) = self.0.lock() {
            *s = what.into();
        }
    }

    fn get(&self) -> String {
        self.0.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

/// Runs `count`, handing it a [`Watch`] to report its tasks through where a progress bar can
/// be shown (stderr is a terminal), or `None` (the count then runs as it would anyway, split
/// into tasks only by its threads). The bar of tasks done appears once the count has run for a
/// second and is cleared when it returns; nothing is drawn for a shorter count.
pub fn watched<T>(count: impl FnOnce(Option<&Watch>) -> T) -> T {
    watched_as(&Status::default(), true, count)
}

/// [`watched`], the line also saying what `status` says: a wait without tasks (the watch not
/// counting, as while an engine answers) shows the status and the time so far; a count, its
/// tasks done and the time left, estimated from them and measured afresh for each count the
/// watch follows. Nothing is shown unless `enabled` (not with JSON).
pub fn watched_as<T>(status: &Status, enabled: bool, count: impl FnOnce(Option<&Watch>) -> T) -> T {
    use std::io::IsTerminal;
    if !enabled || !std::io::stderr().is_terminal() {
        return count(None);
    }
    let watch = Watch::new();
    let finished = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let (watch, finished) = (&watch, &finished);
        scope.spawn(move || draw_tasks(watch, status, finished));
        let result = count(Some(watch));
        finished.store(true, Ordering::Relaxed);
        result
    })
}

/// Draws `watch`'s tasks and `status` on stderr, from a second after the start until
/// `finished`. The time left of a count is measured from when the bar first saw it: the tasks
/// done since then, in the time since then (the count may have run a second unseen).
fn draw_tasks(watch: &Watch, status: &Status, finished: &AtomicBool) {
    let start = Instant::now();
    let tick = Duration::from_millis(50);
    while start.elapsed() < QUIET {
        if finished.load(Ordering::Relaxed) {
            return;
        }
        std::thread::sleep(tick);
    }
    let bar = ProgressBar::new(0);
    // What is counted first: a narrow terminal cuts a line's end.
    let tasks = style("{msg}{bar:30} {pos}/{len} tasks, {elapsed}, eta {prefix}");
    let waiting = ProgressStyle::with_template("{spinner} {msg}, {elapsed}").ok();
    // The count shown: its tasks, the tasks done when the bar first saw it, and when.
    let mut counting: Option<(usize, usize, Instant)> = None;
    let mut spinning = false;
    while !finished.load(Ordering::Relaxed) {
        let (done, total) = watch.progress();
        let what = status.get();
        if total == 0 || done == total {
            // Between counts, or before the first: nothing to measure.
            if !spinning {
                if let Some(s) = &waiting {
                    bar.set_style(s.clone());
                }
                bar.reset_elapsed();
                spinning = true;
                counting = None;
            }
            bar.set_message(if what.is_empty() {
                "working".to_string()
            } else {
                what
            });
            bar.tick();
        } else {
            let (_, first_done, first_seen) = match counting {
                Some(c) if c.0 == total && done >= c.1 => c,
                _ => {
                    bar.set_length(total as u64);
                    bar.set_position(done as u64);
                    if let Some(s) = &tasks {
                        bar.set_style(s.clone());
                    }
                    bar.reset_elapsed();
                    spinning = false;
                    *counting.insert((total, done, Instant::now()))
                }
            };
            bar.set_prefix(eta(
                (done - first_done) as u64,
                (total - first_done) as u64,
                first_seen.elapsed(),
            ));
            bar.set_position(done as u64);
            bar.set_message(if what.is_empty() {
                String::new()
            } else {
                format!("{what}: ")
            });
        }
        std::thread::sleep(tick);
    }
    bar.finish_and_clear();
}
