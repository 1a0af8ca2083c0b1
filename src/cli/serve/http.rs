//! The HTTP side of `perft serve`: one request per connection, read within fixed bounds (the
//! request line, the headers, the body, the time), checked for who asks (the `Host`, `Origin`
//! and `Sec-Fetch-Site` headers and the server's token), routed, and answered with a JSON
//! body for every error. The page's files are inside the binary.
//!
//! The request head is parsed by `httparse` (the parser of hyper: it reads a buffer we bound,
//! and takes nothing on trust); reading, limits and answers are here.

use super::api::{self, Answer, Client, State};
use super::clip;
use super::slots::Slot;
use perft::Sliders;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub(super) const INDEX: &str = include_str!("page/index.html");
pub(super) const STYLE: &str = include_str!("page/style.css");
pub(super) const BOARD: &str = include_str!("page/board.js");
const APP: &str = include_str!("page/app.js");

/// The longest request line (method, path and query, version) read: 8 KiB, far more than a
/// FEN and a game's moves need. Longer is answered 414.
pub(super) const MAX_REQUEST_LINE: usize = 8 * 1024;
/// The longest request head (request line and headers) read: 16 KiB. Longer is answered 431.
pub(super) const MAX_HEAD: usize = 16 * 1024;
/// Header lines read; more is answered 431.
const MAX_HEADERS: usize = 64;
/// The largest body accepted (no route reads one): 4 KiB. Larger is answered 413.
pub(super) const MAX_BODY: usize = 4 * 1024;
/// The time a client has to send its whole request; slower is answered 408.
pub(super) const READ_TIME: Duration = Duration::from_secs(10);
/// The time an answer may take to be taken by the client.
const WRITE_TIME: Duration = Duration::from_secs(10);
/// How often the connection of a client waiting for a count is looked at, to cancel the count
/// once the client has closed it.
const CLIENT_POLL: Duration = Duration::from_millis(100);
/// The header that carries the server's token (see [`State::token`]).
pub(super) const TOKEN_HEADER: &str = "X-Perft-Token";

/// A request as read: method, target (path and query), headers (names as sent).
pub(super) struct Request {
    method: String,
    target: String,
    headers: Vec<(String, String)>,
}

impl Request {
    /// The values of the header `name` (any case), in order.
    fn headers<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> {
        self.headers
            .iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Reads one request from `stream`, answers it, and closes the connection; `slot` is the
/// connection's place among those answered at once.
pub(super) fn serve_connection<S: Sliders>(state: &State, mut stream: TcpStream, slot: &Slot) {
    let _ = stream.set_write_timeout(Some(WRITE_TIME));
    let read = read_request(&mut stream);
    // From here on the connection is answering, and is not shed.
    slot.read();
    let request = match read {
        Ok(request) => request,
        Err(_) if slot.was_shed() => {
            let busy = Answer::error(
                503,
                &format!(
                    "the server had {} connections open and this one had not sent its request: \
                     it was closed to answer a newer one",
                    super::slots::CONNECTIONS
                ),
            );
            let _ = write_answer(&mut stream, &busy, false);
            return close(stream);
        }
        Err(Some(refusal)) => {
            let _ = write_answer(&mut stream, &refusal, false);
            return close(stream);
        }
        // The client went away before sending a request: nobody to answer.
        Err(None) => return,
    };
    let head_only = request.method.eq_ignore_ascii_case("HEAD");
    match check(state, &request) {
        Err(refusal) => {
            let _ = write_answer(&mut stream, &refusal, head_only);
        }
        // A count is watched: a client that leaves cancels it.
        Ok((route @ (Route::Divide | Route::Diff), query)) => {
            watched(&mut stream, head_only, |client| {
                answer::<S>(state, route, query, client)
            });
        }
        Ok((route, query)) => {
            let answer = answer::<S>(state, route, query, &Client::new());
            let _ = write_answer(&mut stream, &answer, head_only);
        }
    }
    close(stream);
}

/// Answers with `count` while another thread watches the connection: once the client has
/// closed it, nobody waits for the answer, and the count is cancelled (see [`watch_client`]).
fn watched(stream: &mut TcpStream, head_only: bool, count: impl FnOnce(&Client) -> Answer) {
    let client = Client::new();
    let done = AtomicBool::new(false);
    let probe = stream.try_clone().ok();
    std::thread::scope(|scope| {
        // Without a second handle or thread, the count runs unwatched.
        if let Some(probe) = probe {
            let _ = std::thread::Builder::new()
                .spawn_scoped(scope, || watch_client(probe, &client, &done));
        }
        let answer = count(&client);
        let _ = write_answer(stream, &answer, head_only);
        done.store(true, Ordering::Relaxed);
    });
}

/// Looks at a client's connection every [`CLIENT_POLL`] until `done`: once a read finds its
/// end (the client closed it, or shut its sending side, which no HTTP client does while it
/// waits for an answer) or fails, the client is said to have left. What it sends past its
/// request is read and dropped (one request per connection), up to [`MAX_HEAD`] bytes; past
/// that, the connection is no longer read.
fn watch_client(mut probe: TcpStream, client: &Client, done: &AtomicBool) {
    let _ = probe.set_read_timeout(Some(CLIENT_POLL));
    let mut sink = [0u8; 1024];
    let mut left = MAX_HEAD;
    while !done.load(Ordering::Relaxed) {
        if left == 0 {
            std::thread::sleep(CLIENT_POLL);
            continue;
        }
        match probe.read(&mut sink) {
            Ok(0) => return client.left(),
            Ok(n) => left = left.saturating_sub(n),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock
                        | std::io::ErrorKind::TimedOut
                        | std::io::ErrorKind::Interrupted
                ) => {}
            Err(_) => return client.left(),
        }
    }
}

/// Ends a connection so that the client reads the whole answer: our side shut for writing,
/// then what the client still sends (a body we refused, say) read and dropped for a moment,
/// since closing with unread input would reset the connection and could lose the answer.
fn close(mut stream: TcpStream) {
    let _ = stream.shutdown(Shutdown::Write);
    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
    let mut sink = [0u8; 4096];
    let mut left: usize = 256 * 1024;
    while left > 0 {
        match stream.read(&mut sink) {
            Ok(0) | Err(_) => break,
            Ok(n) => left = left.saturating_sub(n),
        }
    }
}

/// Reads a whole request: its head within [`MAX_HEAD`] and its body within [`MAX_BODY`], all
/// within [`READ_TIME`]. `Err(Some(answer))` for a request refused as it was read,
/// `Err(None)` when the connection closed before a request began.
fn read_request(stream: &mut TcpStream) -> Result<Request, Option<Answer>> {
    let deadline = Instant::now() + READ_TIME;
    let mut buf: Vec<u8> = Vec::with_capacity(2048);
    let (request, head_len) = loop {
        let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut parsed = httparse::Request::new(&mut headers);
        match parsed.parse(&buf) {
            Ok(httparse::Status::Complete(n)) => break (owned(&parsed)?, n),
            Ok(httparse::Status::Partial) => {}
            Err(httparse::Error::TooManyHeaders) => {
                return Err(Some(Answer::error(
                    431,
                    &format!("the request has more than {MAX_HEADERS} header lines"),
                )));
            }
            Err(e) => {
                return Err(Some(Answer::error(
                    400,
                    &format!("not an HTTP/1.0 or HTTP/1.1 request ({e})"),
                )));
            }
        }
        let line_end = buf.iter().position(|&b| b == b'\n');
        if line_end.map_or(buf.len(), |i| i) > MAX_REQUEST_LINE {
            return Err(Some(too_long_line()));
        }
        if buf.len() >= MAX_HEAD {
            return Err(Some(Answer::error(
                431,
                &format!(
                    "the request's headers are longer than {} KiB",
                    MAX_HEAD / 1024
                ),
            )));
        }
        let room = (MAX_HEAD - buf.len()).min(4096);
        match read_some(stream, &mut buf, room, deadline) {
            Ok(0) if buf.is_empty() => return Err(None),
            Ok(0) => {
                return Err(Some(Answer::error(
                    400,
                    "the connection closed in the middle of the request",
                )));
            }
            Ok(_) => {}
            Err(answer) => return Err(answer),
        }
    };
    if request.target.len() > MAX_REQUEST_LINE {
        return Err(Some(too_long_line()));
    }
    if request.headers("Transfer-Encoding").next().is_some() {
        return Err(Some(Answer::error(
            501,
            "bodies in Transfer-Encoding are not accepted: send a Content-Length",
        )));
    }
    let lengths: Vec<&str> = request.headers("Content-Length").collect();
    let length = match lengths.as_slice() {
        [] => 0,
        [one] => one
            .trim()
            .parse::<u64>()
            .map_err(|_| Some(Answer::error(400, "the Content-Length is not a number")))?,
        _ => {
            return Err(Some(Answer::error(
                400,
                "the request has more than one Content-Length header",
            )));
        }
    };
    if length > MAX_BODY as u64 {
        return Err(Some(Answer::error(
            413,
            &format!(
                "the request's body is larger than {} KiB (no path here reads one)",
                MAX_BODY / 1024
            ),
        )));
    }
    // The body is read (and dropped: no route takes one) so that the answer follows it.
    let want = head_len + length as usize;
    while buf.len() < want {
        let room = want - buf.len();
        match read_some(stream, &mut buf, room, deadline) {
            Ok(0) => {
                return Err(Some(Answer::error(
                    400,
                    "the connection closed before the body announced was sent",
                )));
            }
            Ok(_) => {}
            Err(answer) => return Err(answer),
        }
    }
    Ok(request)
}

fn too_long_line() -> Answer {
    Answer::error(
        414,
        &format!(
            "the request line is longer than {} KiB",
            MAX_REQUEST_LINE / 1024
        ),
    )
}

/// Reads at most `room` more bytes into `buf`, waiting no later than `deadline`: how many
/// (0 when the client closed the connection); a missed deadline is answered 408.
fn read_some(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    room: usize,
    deadline: Instant,
) -> Result<usize, Option<Answer>> {
    let timeout = || {
        Some(Answer::error(
            408,
            &format!(
                "the request took longer than {} s to arrive",
                READ_TIME.as_secs()
            ),
        ))
    };
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(timeout());
    }
    let _ = stream.set_read_timeout(Some(left));
    let start = buf.len();
    buf.resize(start + room, 0);
    let read = stream.read(&mut buf[start..]);
    let n = match read {
        Ok(n) => n,
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ) =>
        {
            buf.truncate(start);
            return Err(timeout());
        }
        Err(_) => 0,
    };
    buf.truncate(start + n);
    Ok(n)
}

/// The parsed head as owned text; a header value that is not UTF-8 is refused.
fn owned(parsed: &httparse::Request<'_, '_>) -> Result<Request, Option<Answer>> {
    let bad = |what: &str| Some(Answer::error(400, what));
    let headers = parsed
        .headers
        .iter()
        .map(|h| {
            std::str::from_utf8(h.value)
                .map(|v| (h.name.to_string(), v.trim().to_string()))
                .map_err(|_| bad("a header value is not UTF-8 text"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Request {
        method: parsed.method.unwrap_or_default().to_string(),
        target: parsed.path.unwrap_or_default().to_string(),
        headers,
    })
}

/// What `request` asks for (its route and query), after checking who asks; or the refusal.
fn check<'r>(state: &State, request: &'r Request) -> Result<(Route, &'r str), Answer> {
    let hosts: Vec<&str> = request.headers("Host").collect();
    let host = match hosts.as_slice() {
        [] => return Err(Answer::error(400, "the request has no Host header")),
        [one] => *one,
        _ => {
            return Err(Answer::error(
                400,
                "the request has more than one Host header",
            ));
        }
    };
    if !state.settings().names_us(host) {
        return Err(Answer::error(
            403,
            &format!("this server does not answer for the host '{}'", clip(host)),
        ));
    }
    // A browser says where a request comes from: a page of another site (even another port of
    // this host) is refused, whatever the request.
    if let Some(site) = request.headers("Sec-Fetch-Site").next()
        && !matches!(site, "same-origin" | "none")
    {
        return Err(Answer::error(
            403,
            &format!(
                "requests from another site ({}) are not answered",
                clip(site)
            ),
        ));
    }
    for origin in request.headers("Origin") {
        let ours = origin
            .strip_prefix("http://")
            .is_some_and(|authority| state.settings().names_us(authority));
        if !ours {
            return Err(Answer::error(
                403,
                &format!("requests from '{}' are not answered", clip(origin)),
            ));
        }
    }
    let target = request.target.as_str();
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let route = match path {
        "/" | "/index.html" => Route::Page,
        "/style.css" => Route::File("text/css; charset=utf-8", STYLE),
        "/board.js" => Route::File("text/javascript; charset=utf-8", BOARD),
        "/app.js" => Route::File("text/javascript; charset=utf-8", APP),
        "/api/info" => Route::Info,
        "/api/divide" => Route::Divide,
        "/api/diff" => Route::Diff,
        "/api/progress" => Route::Progress,
        "/api/cancel" => Route::Cancel,
        _ => return Err(Answer::error(404, &format!("nothing at {}", clip(path)))),
    };
    // Cancelling changes state, so it takes a POST; everything else is read with GET (or HEAD).
    let method = request.method.as_str();
    let (allowed, allow) = match route {
        Route::Cancel => (method == "POST", "POST"),
        _ => (matches!(method, "GET" | "HEAD"), "GET, HEAD"),
    };
    if !allowed {
        let mut answer = Answer::error(405, &format!("{} is not answered at {path}", clip(method)));
        answer.allow = Some(allow);
        return Err(answer);
    }
    // What counts, cancels or reports on a count needs the token the page was served with:
    // a page of another site cannot read it, so cannot send it.
    if route.needs_token() {
        let tokens: Vec<&str> = request.headers(TOKEN_HEADER).collect();
        if tokens != [state.token()] {
            return Err(Answer::error(
                403,
                &format!(
                    "the request lacks this server's token (the {TOKEN_HEADER} header: the page \
                     sends it; a script reads it from /api/info)"
                ),
            ));
        }
    }
    Ok((route, query))
}

/// The answer to a request checked by [`check`]; `client` is its client, for a count.
fn answer<S: Sliders>(state: &State, route: Route, query: &str, client: &Client) -> Answer {
    match route {
        Route::Page => Answer::page("text/html; charset=utf-8", state.page().as_bytes()),
        Route::File(content_type, text) => Answer::page(content_type, text.as_bytes()),
        Route::Info => api::info(state),
        Route::Divide => api::divide::<S>(state, query, client),
        Route::Diff => api::diff::<S>(state, query, client),
        Route::Progress => api::progress(state),
        Route::Cancel => api::cancel(state),
    }
}

/// What a path names.
enum Route {
    /// The page itself (with the server's token in it).
    Page,
    /// One of the page's other files: its content type and text.
    File(&'static str, &'static str),
    Info,
    Divide,
    Diff,
    Progress,
    Cancel,
}

impl Route {
    /// Whether the route needs the server's token: everything of the API but `/api/info`.
    fn needs_token(&self) -> bool {
        matches!(
            self,
            Route::Divide | Route::Diff | Route::Progress | Route::Cancel
        )
    }
}

/// The reason phrase of the statuses the server answers with.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Content Too Large",
        414 => "URI Too Long",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "",
    }
}

/// Writes `answer` (its head alone for a HEAD request), closing the connection after it.
pub(super) fn write_answer(
    stream: &mut TcpStream,
    answer: &Answer,
    head_only: bool,
) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n",
        answer.status,
        reason(answer.status),
        answer.content_type,
        answer.body.len()
    );
    if let Some(allow) = answer.allow {
        head.push_str(&format!("Allow: {allow}\r\n"));
    }
    for (name, value) in [
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
        (
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
        ),
    ] {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    if !head_only {
        stream.write_all(&answer.body)?;
    }
    stream.flush()
}
