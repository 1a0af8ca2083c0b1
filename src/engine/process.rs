//! The engine's process: its own process group (so that one kill ends it and whatever it
//! started), the groups every running engine is in (for the binary's signal handler), its
//! output read line by line on a thread of its own, bounded, and the tail of its stderr for the
//! message when it dies.

use super::EngineError;
use super::answer::cut;
use std::collections::VecDeque;
use std::io::{BufReader, Read};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A line longer than this is cut there.
const MAX_LINE: usize = 64 * 1024;
/// How often a query waiting on the engine asks whether it should stop.
const STOP_POLL: Duration = Duration::from_millis(20);
/// The process groups of the engines started and not yet ended, so that [`end_all`] can end
/// them (and whatever they started) when the process is told to stop.
static RUNNING: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// An engine process leading its own process group, so that a kill reaches whatever it
/// started too. Dropped, it kills the group (if the engine has not ended by itself) and
/// reaps the process.
pub(super) struct Group {
    child: Child,
}

impl Group {
    /// Starts `sh -c "exec CMD \"$@\"" sh ARGS...` in a process group of its own.
    pub(super) fn spawn(command: &str, args: &[String], stdin: bool) -> Result<Group, EngineError> {
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(format!("exec {command} \"$@\""))
            .arg("sh")
            .args(args)
            .stdin(if stdin { Stdio::piped() } else { Stdio::null() })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        // Registered under the lock it was started under: `end_all`, which takes the same
        // lock, cannot run between the start and the registration and miss it.
        let mut running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
        let child = cmd
            .spawn()
            .map_err(|e| EngineError::Start(format!("cannot run '{command}': {e}")))?;
        running.push(child.id());
        Ok(Group { child })
    }

    /// Kills the process and everything in its process group, and reaps it.
    pub(super) fn kill(&mut self) {
        kill_group(self.child.id());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
        let mut running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
        running.retain(|&pid| pid != self.child.id());
    }
}

impl std::ops::Deref for Group {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.child
    }
}

impl std::ops::DerefMut for Group {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.child
    }
}

/// Sends SIGKILL to the process group `pid` leads.
fn kill_group(pid: u32) {
    #[cfg(unix)]
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: a plain kill(2) of the process group the child leads (spawned with
        // process_group(0), so its group id is its pid).
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    #[cfg(not(unix))]
    let _ = pid;
}

/// Kills every engine this process started and has not ended yet, with everything they
/// started: for a process about to exit on a signal (Ctrl-C, SIGTERM), which would otherwise
/// leave them running in their own process groups. Engines started after this call are not
/// affected.
pub fn end_all() {
    let running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
    for &pid in running.iter() {
        kill_group(pid);
    }
}

/// Sends the lines of `output` (invalid UTF-8 replaced, overlong lines cut) on a channel, from a
/// thread of its own, so that reads can have a deadline.
pub(super) fn line_reader(output: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(output);
        let mut line = Vec::new();
        let mut byte = [0u8; 1];
        loop {
            let n = match reader.read(&mut byte) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => 0,
            };
            let end = n == 0;
            if !end && byte[0] != b'\n' {
                if line.len() < MAX_LINE {
                    line.push(byte[0]);
                }
                continue;
            }
            if !(end && line.is_empty()) {
                let text = String::from_utf8_lossy(&line);
                let text = text.strip_suffix('\r').unwrap_or(&text).to_string();
                if tx.send(text).is_err() {
                    return;
                }
                line.clear();
            }
            if end {
                return;
            }
        }
    });
    rx
}

/// The last lines an engine wrote to its standard error, kept by a thread of their own.
#[derive(Clone, Default)]
pub(super) struct StderrTail {
    lines: Arc<Mutex<VecDeque<String>>>,
    closed: Arc<AtomicBool>,
}

impl StderrTail {
    /// Lines kept.
    const KEEP: usize = 2;

    pub(super) fn collect(child: &mut Child) -> StderrTail {
        let tail = StderrTail::default();
        if let Some(stderr) = child.stderr.take() {
            let rx = line_reader(stderr);
            let keep = tail.clone();
            std::thread::spawn(move || {
                for line in rx {
                    if let Ok(mut lines) = keep.lines.lock() {
                        if lines.len() == Self::KEEP {
                            lines.pop_front();
                        }
                        lines.push_back(cut(line.trim()));
                    }
                }
                keep.closed.store(true, Ordering::Release);
            });
        } else {
            tail.closed.store(true, Ordering::Release);
        }
        tail
    }

    /// How `child` ended, waiting a moment for it: "exit status 127; on stderr: '...'".
    pub(super) fn exit(&self, child: &mut Child) -> String {
        let mut status = None;
        for _ in 0..50 {
            if let Ok(Some(s)) = child.try_wait() {
                status = Some(s);
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        let text = status.map_or("its output closed".to_string(), describe);
        text + &self.said()
    }

    /// `; on stderr: '...'` with the last lines it wrote there, or nothing.
    pub(super) fn said(&self) -> String {
        for _ in 0..50 {
            if self.closed.load(Ordering::Acquire) {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        match self.lines.lock() {
            Ok(lines) if !lines.is_empty() => {
                let said: Vec<String> = lines.iter().map(|l| format!("'{l}'")).collect();
                format!("; on stderr: {}", said.join(" "))
            }
            _ => String::new(),
        }
    }
}

/// Why [`next_line`] returned no line.
pub(super) enum Waited {
    /// The deadline passed.
    Timeout,
    /// `stop` said so.
    Stopped,
    /// The engine closed its output.
    Closed,
}

/// The engine's next line, waiting until `deadline` at most and asking `stop` every
/// [`STOP_POLL`] meanwhile.
pub(super) fn next_line(
    lines: &Receiver<String>,
    deadline: Instant,
    stop: &dyn Fn() -> bool,
) -> Result<String, Waited> {
    loop {
        if stop() {
            return Err(Waited::Stopped);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left.min(STOP_POLL)) {
            Ok(line) => return Ok(line),
            Err(RecvTimeoutError::Disconnected) => return Err(Waited::Closed),
            Err(RecvTimeoutError::Timeout) if left <= STOP_POLL => return Err(Waited::Timeout),
            Err(RecvTimeoutError::Timeout) => {}
        }
    }
}

/// "exit status 3" or "killed by signal 11".
pub(super) fn describe(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return format!("killed by signal {sig}");
        }
    }
    match status.code() {
        Some(code) => format!("exit status {code}"),
        None => status.to_string(),
    }
}
