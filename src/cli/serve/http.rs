//! The HTTP side of `perft serve`: who may ask (the `Host` and `Origin` checks), which paths
//! exist, and the page's files, which are inside the binary.

use super::api::{self, Answer, State};
use perft::Sliders;
use tiny_http::{Header, Method, Request, Response};

const INDEX: &str = include_str!("page/index.html");
pub(super) const STYLE: &str = include_str!("page/style.css");
pub(super) const BOARD: &str = include_str!("page/board.js");
const APP: &str = include_str!("page/app.js");

/// Answers one request (on its own thread).
pub(super) fn answer<S: Sliders>(state: &State, request: Request) {
    let answer = route::<S>(state, &request);
    let _ = request.respond(response(answer));
}

/// The answer to `request`, after checking who asks.
fn route<S: Sliders>(state: &State, request: &Request) -> Answer {
    let header = |name: &'static str| {
        request
            .headers()
            .iter()
            .find(|h| h.field.equiv(name))
            .map(|h| h.value.as_str().to_string())
    };
    let Some(host) = header("Host") else {
        return Answer::error(400, "the request has no Host header");
    };
    if !state
        .settings()
        .hosts
        .iter()
        .any(|h| h.eq_ignore_ascii_case(&host))
    {
        return Answer::error(
            403,
            &format!("this server does not answer for the host '{}'", clip(&host)),
        );
    }
    if let Some(origin) = header("Origin")
        && !origin.eq_ignore_ascii_case(&format!("http://{host}"))
    {
        return Answer::error(
            403,
            &format!("requests from '{}' are not answered", clip(&origin)),
        );
    }
    let url = request.url();
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let method = request.method();
    let get = matches!(method, Method::Get | Method::Head);
    match path {
        "/" | "/index.html" if get => Answer::file("text/html; charset=utf-8", INDEX),
        "/style.css" if get => Answer::file("text/css; charset=utf-8", STYLE),
        "/board.js" if get => Answer::file("text/javascript; charset=utf-8", BOARD),
        "/app.js" if get => Answer::file("text/javascript; charset=utf-8", APP),
        "/api/info" if get => api::info(state),
        "/api/divide" if get => api::divide::<S>(state, query),
        "/api/diff" if get => api::diff(state, query),
        "/api/progress" if get => api::progress(state),
        "/api/cancel" if matches!(method, Method::Post) => api::cancel(state),
        "/" | "/index.html" | "/style.css" | "/board.js" | "/app.js" | "/api/info"
        | "/api/divide" | "/api/diff" | "/api/progress" | "/api/cancel" => {
            Answer::error(405, &format!("{method} is not answered at {path}"))
        }
        _ => Answer::error(404, &format!("nothing at {}", clip(path))),
    }
}

/// At most 80 characters of what a request said, for an error message.
pub(super) fn clip(s: &str) -> String {
    if s.chars().count() > 80 {
        s.chars().take(80).chain("...".chars()).collect()
    } else {
        s.to_string()
    }
}

fn response(answer: Answer) -> Response<std::io::Cursor<Vec<u8>>> {
    let mut r = Response::from_data(answer.body).with_status_code(answer.status);
    for (name, value) in [
        ("Content-Type", answer.content_type),
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        (
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
        ),
    ] {
        if let Ok(h) = Header::from_bytes(name.as_bytes(), value.as_bytes()) {
            r.add_header(h);
        }
    }
    r
}
