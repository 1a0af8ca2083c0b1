//! The JSON API of `perft serve`: `/api/divide`, `/api/diff`, `/api/progress`, `/api/cancel`
//! and `/api/info`. One count runs at a time; a new divide or diff cancels the one running.

use super::Settings;
use super::clip;
use crate::cli::common::{Names, build_position};
use crate::cli::json::ErrorJson;
use crate::cli::json::diff::FailureJson;
use crate::cli::json::serve::{InfoJson, ProgressJson, RowJson, ServeDivideJson};
use perft::diff::EngineUnderTest;
use perft::engine::Engine;
use perft::perft::{Cancelled, Perft, Watch};
use perft::tt::Table;
use perft::validate::{Descent, Outcome, Stopped, find_divergence_with};
use perft::{Nodes, Position, Sliders};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

/// An HTTP answer: status, content type and body (and, for a 405, the methods allowed).
pub(super) struct Answer {
    pub(super) status: u16,
    pub(super) content_type: &'static str,
    pub(super) body: Vec<u8>,
    pub(super) allow: Option<&'static str>,
}

impl Answer {
    /// One of the page's files.
    pub(super) fn page(content_type: &'static str, text: &[u8]) -> Answer {
        Answer {
            status: 200,
            content_type,
            body: text.to_vec(),
            allow: None,
        }
    }

    fn json(status: u16, value: &impl Serialize) -> Answer {
        match serde_json::to_vec(value) {
            Ok(body) => Answer {
                status,
                content_type: "application/json",
                body,
                allow: None,
            },
            Err(e) => Answer::error(500, &format!("the answer could not be written: {e}")),
        }
    }

    /// `{"error": message}` with `status`.
    pub(super) fn error(status: u16, message: &str) -> Answer {
        let body = serde_json::to_vec(&ErrorJson { error: message }).unwrap_or_default();
        Answer {
            status,
            content_type: "application/json",
            body,
            allow: None,
        }
    }
}

/// A count running (or the last one run): what it is, how far it has got, and its cancel.
struct Job {
    kind: &'static str,
    watch: Watch,
    /// Why it was cancelled, once it was: by `/api/cancel`, or by a newer request.
    by_cancel: std::sync::atomic::AtomicBool,
    /// What the count is doing now, for the page ("our divide at depth 5 after e2e4").
    stage: Mutex<String>,
    started: Instant,
}

/// The client that asked for a count: its connection is watched while the count runs (see
/// `http`), and once the client has closed it nobody waits for the answer, so the count is
/// cancelled, running or still waiting for its turn.
#[derive(Default)]
pub(super) struct Client {
    gone: std::sync::atomic::AtomicBool,
    /// Its count, once it has one.
    job: Mutex<Option<Arc<Job>>>,
}

impl Client {
    pub(super) fn new() -> Client {
        Client::default()
    }

    /// Says the client has closed its connection: its count is cancelled.
    pub(super) fn left(&self) {
        self.gone.store(true, Ordering::SeqCst);
        if let Some(job) = &*lock(&self.job) {
            job.watch.cancel();
        }
    }

    fn is_gone(&self) -> bool {
        self.gone.load(Ordering::SeqCst)
    }

    /// Gives the client its count; one whose client has already gone is cancelled at once.
    /// (With [`Client::left`] storing before it locks and this loading after, one of the two
    /// sees the other.)
    fn counts(&self, job: &Arc<Job>) {
        *lock(&self.job) = Some(Arc::clone(job));
        if self.is_gone() {
            job.watch.cancel();
        }
    }
}

/// The server's state: its settings, its token and page, the engine, and the one count at a
/// time.
pub(super) struct State {
    settings: Settings,
    /// A secret of this run of the server, in its page and required of the requests that count
    /// (see `http::route`).
    token: String,
    /// The page, with the token in it.
    page: String,
    /// `--hash`'s table, kept from one count to the next.
    table: Option<Table>,
    engine: Option<Mutex<Engine>>,
    /// Held for the whole of a count: counts run one at a time.
    turn: Mutex<()>,
    /// The count running, for progress and cancel, and the number of the newest request.
    running: Mutex<(Option<Arc<Job>>, u64)>,
    served: AtomicU64,
}

/// Locks `m` even if a thread panicked while holding it (what it guards stays consistent).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl State {
    pub(super) fn new(settings: Settings, engine: Option<Engine>, table: Option<Table>) -> State {
        let token = new_token();
        let page = super::http::INDEX.replace("{{token}}", &token);
        State {
            settings,
            token,
            page,
            table,
            engine: engine.map(Mutex::new),
            turn: Mutex::new(()),
            running: Mutex::new((None, 0)),
            served: AtomicU64::new(0),
        }
    }

    pub(super) fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The token the requests that count must carry.
    pub(super) fn token(&self) -> &str {
        &self.token
    }

    /// The page, with the token in it.
    pub(super) fn page(&self) -> &str {
        &self.page
    }

    /// How every count of this server is made (our divides and the descent's alike): the
    /// command line's counting options, with the table kept between requests.
    fn options(&self) -> Perft<'_> {
        self.settings.counts.perft(self.table.as_ref())
    }

    /// The count running now, if any (the turn is taken exactly while one runs).
    fn running_job(&self) -> Option<Arc<Job>> {
        let job = lock(&self.running).0.clone();
        job.filter(|_| self.turn.try_lock().is_err())
    }

    /// Cancels the count running and waits for its turn; `None` if a newer request came in
    /// meanwhile (it has cancelled this one), or if `client` has gone (a request nobody waits
    /// for cancels no other).
    fn take_turn(
        &self,
        kind: &'static str,
        client: &Client,
    ) -> Option<(MutexGuard<'_, ()>, Arc<Job>)> {
        if client.is_gone() {
            return None;
        }
        let ticket = {
            let mut running = lock(&self.running);
            if let Some(job) = &running.0 {
                job.watch.cancel();
            }
            running.1 += 1;
            running.1
        };
        let turn = lock(&self.turn);
        let mut running = lock(&self.running);
        if running.1 != ticket {
            return None;
        }
        let job = Arc::new(Job {
            kind,
            watch: Watch::new(),
            by_cancel: std::sync::atomic::AtomicBool::new(false),
            stage: Mutex::new(String::new()),
            started: Instant::now(),
        });
        running.0 = Some(Arc::clone(&job));
        client.counts(&job);
        self.served.fetch_add(1, Ordering::Relaxed);
        Some((turn, job))
    }
}

/// 128 bits from the system's random source (through the standard library's hasher keys,
/// which it seeds from the operating system): a token no other site can guess.
fn new_token() -> String {
    use std::hash::{BuildHasher, Hasher};
    let word = |salt: u64| {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(salt);
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        h.finish()
    };
    format!("{:016x}{:016x}", word(1), word(2))
}

/// The answer to a count that was cancelled before it finished: by `/api/cancel`, or by a
/// newer request.
fn cancelled(job: &Job) -> Answer {
    if job.by_cancel.load(Ordering::Relaxed) {
        Answer::error(409, "cancelled by a request to /api/cancel")
    } else {
        Answer::error(409, "cancelled: a newer request replaced this count")
    }
}

/// How the API's errors name what a request gave.
const API_NAMES: Names = Names {
    moves: "the parameter 'moves'",
    chess960: "chess960=1",
};

/// What a divide or diff request asks: the position, the moves played from it, the depth.
struct Query {
    /// The position the moves start from, and its FEN as we print it (six fields, the castling
    /// notation kept) for the engine.
    root: Position,
    fen: String,
    chess960: bool,
    moves: Vec<String>,
    depth: u32,
}

impl Query {
    /// Parses `fen`, `moves` (UCI, separated by `+` or spaces), `depth` and `chess960`
    /// (`1`/`true`/`0`/`false`); every other name, a repeated name or a missing depth is an error.
    fn parse(query: &str, max_depth: u32) -> Result<(Query, Position), String> {
        let mut fields: BTreeMap<String, String> = BTreeMap::new();
        for (k, v) in form_urlencoded::parse(query.as_bytes()) {
            if !matches!(&*k, "fen" | "moves" | "depth" | "chess960") {
                return Err(format!("unknown parameter '{}'", clip(&k)));
            }
            if fields.insert(k.to_string(), v.to_string()).is_some() {
                return Err(format!("parameter '{k}' given twice"));
            }
        }
        let depth = match fields.get("depth") {
            None => return Err("missing parameter 'depth'".to_string()),
            Some(d) => d
                .trim()
                .parse::<u32>()
                .ok()
                .filter(|&d| d >= 1)
                .ok_or_else(|| {
                    format!(
                        "depth '{}' is not a whole number from 1 to {max_depth} (this server's \
                         --max-depth {max_depth})",
                        clip(d)
                    )
                })?,
        };
        if depth > max_depth {
            return Err(format!(
                "depth {depth} is deeper than this server counts: from 1 to {max_depth} (its \
                 --max-depth {max_depth})"
            ));
        }
        let chess960 = match fields.get("chess960").map(|s| s.to_ascii_lowercase()) {
            None => false,
            Some(v) if matches!(v.as_str(), "0" | "false" | "no" | "off" | "") => false,
            Some(v) if matches!(v.as_str(), "1" | "true" | "yes" | "on") => true,
            Some(other) => {
                return Err(format!(
                    "chess960 '{}' is neither yes (1, true, yes, on) nor no (0, false, no, off)",
                    clip(&other)
                ));
            }
        };
        let fen = fields
            .get("fen")
            .map(|f| f.trim().to_string())
            .filter(|f| !f.is_empty())
            .unwrap_or_else(|| perft::position::STARTPOS.to_string());
        let moves: Vec<String> = fields
            .get("moves")
            .map(|m| m.split_ascii_whitespace().map(String::from).collect())
            .unwrap_or_default();
        let refs: Vec<&str> = moves.iter().map(String::as_str).collect();
        let pos = build_position(Some(&fen), chess960, &refs, &API_NAMES)
            .map_err(|e| format!("{e:#}"))?;
        let root = Position::from_fen_with(&fen, chess960).map_err(|e| e.to_string())?;
        Ok((
            Query {
                fen: root.to_fen(),
                root,
                chess960,
                moves,
                depth,
            },
            pos,
        ))
    }
}

/// `GET /api/divide`: our divide of the position (and the engine's, if there is one).
pub(super) fn divide<S: Sliders>(state: &State, query: &str, client: &Client) -> Answer {
    let (q, pos) = match Query::parse(query, state.settings.max_depth) {
        Ok(q) => q,
        Err(e) => return Answer::error(400, &e),
    };
    let Some((_turn, job)) = state.take_turn("divide", client) else {
        return Answer::error(409, "cancelled: a newer request replaced this count");
    };
    *lock(&job.stage) = format!("our divide at depth {}", q.depth);
    let ours = match state.options().watch(&job.watch).divide::<S>(&pos, q.depth) {
        Ok(lines) => lines,
        Err(Cancelled) => return cancelled(&job),
    };
    let seconds = job.started.elapsed().as_secs_f64();
    let mut rows: BTreeMap<String, RowJson> = ours
        .into_iter()
        .map(|(mv, n)| {
            let name = mv.to_uci(pos.is_chess960());
            let row = RowJson {
                mv: name.clone(),
                nodes: Some(n),
                engine: None,
            };
            (name, row)
        })
        .collect();
    let total: Nodes = rows.values().filter_map(|r| r.nodes).sum();
    let (mut engine_total, mut engine_error) = (None, None);
    if let Some(engine) = &state.engine {
        *lock(&job.stage) = format!("the engine's divide at depth {}", q.depth);
        let stop = || job.watch.is_cancelled();
        match lock(engine).divide_unless(&q.fen, q.chess960, &q.moves, q.depth, &stop) {
            Ok(theirs) => {
                for (mv, n) in theirs.moves {
                    rows.entry(mv.clone())
                        .or_insert(RowJson {
                            mv,
                            nodes: None,
                            engine: None,
                        })
                        .engine = Some(n);
                }
                engine_total = Some(theirs.total);
            }
            Err(e) => engine_error = Some(e.to_string()),
        }
        if job.watch.is_cancelled() {
            return cancelled(&job);
        }
    }
    let mnps = if seconds > 0.0 {
        total.to_f64() / seconds / 1e6
    } else {
        0.0
    };
    Answer::json(
        200,
        &ServeDivideJson {
            fen: pos.to_fen(),
            root: q.fen,
            played: q.moves,
            chess960: q.chess960,
            depth: q.depth,
            in_check: pos.board().in_check(),
            total,
            moves: rows.into_values().collect(),
            seconds,
            mnps,
            engine_name: state.settings.engine_name.clone(),
            engine_total,
            engine_error,
        },
    )
}

/// `GET /api/diff`: the descent of `perft diff` from the position; the failure found (the
/// object `perft diff --json` shows), or `null` when the engine agrees.
pub(super) fn diff<S: Sliders>(state: &State, query: &str, client: &Client) -> Answer {
    let (q, _) = match Query::parse(query, state.settings.max_depth) {
        Ok(q) => q,
        Err(e) => return Answer::error(400, &e),
    };
    let Some(engine) = &state.engine else {
        return Answer::error(
            400,
            "no engine to compare with: start the server with --engine CMD",
        );
    };
    let Some((_turn, job)) = state.take_turn("diff", client) else {
        return Answer::error(409, "cancelled: a newer request replaced this count");
    };
    let mut step = |moves: &[String], depth: u32| {
        let place = if moves.is_empty() {
            "at the root".to_string()
        } else {
            format!("after {}", moves.join(" "))
        };
        *lock(&job.stage) = format!("comparing at depth {depth} {place}");
    };
    let how = Descent {
        opts: state.options(),
        watch: &job.watch,
        first: None,
        on_step: &mut step,
    };
    let mut engine = lock(engine);
    let mut theirs = EngineUnderTest {
        engine: &mut engine,
        stop: &|| job.watch.is_cancelled(),
    };
    let found = find_divergence_with::<S, _>(&mut theirs, &q.root, &q.moves, q.depth, how);
    match found {
        Ok(report) => match report.outcome {
            Outcome::Agree { .. } => Answer::json(200, &()),
            _ => Answer::json(200, &FailureJson::new(q.depth, &q.fen, &report)),
        },
        Err(Stopped::Cancelled) => cancelled(&job),
        Err(Stopped::Fatal(e)) => Answer::error(502, &format!("the engine failed: {e}")),
    }
}

/// `GET /api/progress`: the count running, if any, and how far it has got.
pub(super) fn progress(state: &State) -> Answer {
    let p = match state.running_job() {
        Some(job) => {
            let (done, total) = job.watch.progress();
            ProgressJson {
                running: true,
                kind: Some(job.kind),
                stage: Some(lock(&job.stage).clone()),
                done,
                total,
                seconds: job.started.elapsed().as_secs_f64(),
                cancelled: job.watch.is_cancelled(),
            }
        }
        None => ProgressJson {
            running: false,
            kind: None,
            stage: None,
            done: 0,
            total: 0,
            seconds: 0.0,
            cancelled: false,
        },
    };
    Answer::json(200, &p)
}

/// `POST /api/cancel`: cancels the count running (if any).
pub(super) fn cancel(state: &State) -> Answer {
    let job = state.running_job();
    if let Some(job) = &job {
        job.by_cancel.store(true, Ordering::Relaxed);
        job.watch.cancel();
    }
    let cancelled = job.is_some();
    #[derive(Serialize)]
    struct Cancel {
        cancelled: bool,
    }
    Answer::json(200, &Cancel { cancelled })
}

/// `GET /api/info`: what the server was started with.
pub(super) fn info(state: &State) -> Answer {
    Answer::json(
        200,
        &InfoJson {
            version: env!("CARGO_PKG_VERSION"),
            token: &state.token,
            engine: state.settings.engine_name.clone(),
            max_depth: state.settings.max_depth,
            threads: state.settings.counts.threads,
            counts_served: state.served.load(Ordering::Relaxed),
        },
    )
}
