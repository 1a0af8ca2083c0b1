//! `perft serve`: a local web page that shows a position on a board, our divide beside an
//! engine's, and the descent of `perft diff` to the position where the engine goes wrong; and
//! the JSON API the page reads, which scripts may use too.
//!
//! Safe to leave running: it listens on the loopback address unless told otherwise, answers
//! only requests whose `Host` names it (a page elsewhere cannot reach it through DNS rebinding),
//! whose `Origin` and `Sec-Fetch-Site`, if any, are its own, and (for what counts) that carry
//! the token its page was served with, which no other site can read; every request is read
//! within fixed bounds of size and time, and at most [`slots::CONNECTIONS`] at once (the oldest still
//! sending its request shed for a newer one); nothing a request says is ever run or opened (the
//! engine is fixed on the command line); the depth is capped, and one count runs at a time, a
//! new one cancelling the one running (an engine still thinking about it is killed), as does the
//! client of a count closing its connection. Ctrl-C or SIGTERM ends the engine with the server.

mod api;
mod http;
pub mod report;
mod slots;

use super::common::{CountArgs, MAX_DEPTH};
use super::config::{Counts, SliderJob};
use super::engine::{ProtocolArg, make_engine};
use anyhow::{Context, Result};
use perft::engine::Engine;
use perft::perft::estimate_count;
use perft::{Position, Sliders};
use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// An engine to compare with (its command line, run by `sh -c`): its divide is shown beside
    /// ours, and "find the difference" descends to where it goes wrong.
    #[arg(long)]
    pub engine: Option<String>,

    /// How to talk to the engine (as `perft diff --protocol`).
    #[arg(long, value_enum, default_value_t = ProtocolArg::Uci)]
    pub protocol: ProtocolArg,

    /// Seconds the engine may take over one query; then it is killed and restarted.
    #[arg(long, default_value_t = 600.0, value_name = "SECONDS")]
    pub timeout: f64,

    /// The port to listen on; 0 lets the system choose a free one (the URL printed names it).
    #[arg(long, default_value_t = 7474)]
    pub port: u16,

    /// The address (or host name) to listen on. Requests must name it, `localhost`,
    /// `127.0.0.1` or `[::1]`, with the port, in their `Host` header (as a browser does).
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,

    /// The deepest count a request may ask for, 1 to 64.
    #[arg(long, default_value_t = 7,
          value_parser = clap::value_parser!(u32).range(1..=MAX_DEPTH as i64))]
    pub max_depth: u32,

    /// How our divides are counted, as for any count. A table (`--hash`) is kept from one
    /// request to the next; `auto` sizes it for the start position at `--max-depth`.
    #[command(flatten)]
    pub count: CountArgs,

    /// Open the page in the desktop's browser (`xdg-open`, or `open` on macOS).
    #[arg(long)]
    pub open: bool,
}

/// What the server is told once, at the start.
pub struct Settings {
    /// The names it answers to in a `Host` header (with its port, or alone on port 80).
    names: Vec<String>,
    port: u16,
    max_depth: u32,
    /// How every count is made.
    counts: Counts,
    /// The engine's command line, as the page shows it.
    engine_name: Option<String>,
}

pub fn run(args: &Args) -> Result<ExitCode> {
    // The counting options are checked before anything starts.
    let counts = args.count.resolve_all_cores()?;
    let addr: SocketAddr = (args.host.as_str(), args.port)
        .to_socket_addrs()
        .with_context(|| format!("--host '{}' is not an address", args.host))?
        .next()
        .with_context(|| format!("--host '{}' has no address", args.host))?;
    if addr.ip().is_unspecified() {
        anyhow::bail!(
            "--host {} listens on every address, but requests are answered only when their Host \
             header names the server: give the name or address clients will use instead",
            args.host
        );
    }
    let listener = TcpListener::bind(addr).with_context(|| format!("cannot listen on {addr}"))?;
    let port = listener.local_addr().map_or(args.port, |a| a.port());
    // The URL names the server as it was given (an IPv6 address in brackets).
    let shown = if args.host.contains(':') {
        format!("[{}]", args.host)
    } else {
        args.host.clone()
    };
    let mut names: Vec<String> = ["localhost", "127.0.0.1", "[::1]"]
        .iter()
        .map(|h| h.to_string())
        .collect();
    names.push(shown.clone());
    let url = format!("http://{shown}:{port}/");
    // The engine starts once the address is ours, so a refused one does not start it.
    let engine = match &args.engine {
        Some(command) => {
            let mut engine = make_engine(command, args.protocol, args.timeout)?;
            engine
                .start()
                .with_context(|| format!("the engine '{command}' did not start"))?;
            Some(engine)
        }
        None => None,
    };
    let settings = Settings {
        names,
        port,
        max_depth: args.max_depth,
        counts,
        engine_name: args.engine.clone(),
    };
    println!("perft serve: {url}");
    if let Some(e) = &args.engine {
        println!("engine: {e}");
    }
    use std::io::Write;
    std::io::stdout().flush()?;
    if args.open {
        open_browser(&url);
    }
    counts.run(Serve {
        listener,
        settings,
        engine,
    })
}

/// The server, run with one slider implementation.
struct Serve {
    listener: TcpListener,
    settings: Settings,
    engine: Option<Engine>,
}

impl SliderJob for Serve {
    fn run<S: Sliders>(self) -> Result<ExitCode> {
        let depth = self.settings.max_depth;
        let table = self
            .settings
            .counts
            .table(|| estimate_count::<S>(&Position::startpos(), depth))?;
        let state = api::State::new(self.settings, self.engine, table);
        let slots = slots::Slots::new();
        // The threads end with the process: on Ctrl-C or SIGTERM, which ends the engine first
        // (see `cli::signals`).
        std::thread::scope(|scope| {
            for stream in self.listener.incoming() {
                let Ok(stream) = stream else { continue };
                // At most CONNECTIONS at once (see `slots`).
                let slot = slots.admit(&stream);
                let state = &state;
                // A thread that cannot be had drops the connection (and frees its slot).
                let _ = std::thread::Builder::new().spawn_scoped(scope, move || {
                    http::serve_connection::<S>(state, stream, &slot)
                });
            }
        });
        Ok(ExitCode::SUCCESS)
    }
}

impl Settings {
    /// Whether `authority` (a `Host` header, or an `Origin` without its scheme) names this
    /// server: one of its names with its port (the port may be left out on port 80).
    fn names_us(&self, authority: &str) -> bool {
        let (name, port) = match authority.rsplit_once(':') {
            // `[::1]` alone has colons inside its brackets, but no port after them.
            Some((name, port)) if !port.contains(']') => (name, Some(port)),
            _ => (authority, None),
        };
        let port_ok = match port {
            Some(p) => p.parse::<u16>() == Ok(self.port),
            None => self.port == 80,
        };
        port_ok && self.names.iter().any(|n| n.eq_ignore_ascii_case(name))
    }
}

/// Asks the desktop to open `url`; a failure is said and otherwise ignored.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let started = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match started {
        Ok(mut child) => {
            let url = url.to_string();
            std::thread::spawn(move || {
                if !child.wait().is_ok_and(|status| status.success()) {
                    eprintln!("perft serve: {opener} opened no browser; open {url} by hand");
                }
            });
        }
        Err(e) => eprintln!("perft serve: could not run {opener}: {e}; open {url} by hand"),
    }
}

/// At most 80 characters of what a request said, for an error message.
fn clip(s: &str) -> String {
    if s.chars().count() > 80 {
        s.chars().take(80).chain("...".chars()).collect()
    } else {
        s.to_string()
    }
}
