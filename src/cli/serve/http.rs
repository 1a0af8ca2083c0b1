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
    let route = match path {
        "/" | "/index.html" => Route::File("text/html; charset=utf-8", INDEX),
        "/style.css" => Route::File("text/css; charset=utf-8", STYLE),
        "/board.js" => Route::File("text/javascript; charset=utf-8", BOARD),
        "/app.js" => Route::File("text/javascript; charset=utf-8", APP),
        "/api/info" => Route::Info,
        "/api/divide" => Route::Divide,
        "/api/diff" => Route::Diff,
        "/api/progress" => Route::Progress,
        "/api/cancel" => Route::Cancel,
        _ => return Answer::error(404, &format!("nothing at {}", clip(path))),
    };
    // Cancelling changes state, so it takes a POST; everything else is read with GET (or HEAD).
    let allowed = match route {
        Route::Cancel => matches!(method, Method::Post),
        _ => matches!(method, Method::Get | Method::Head),
    };
    if !allowed {
        return Answer::error(405, &format!("{method} is not answered at {path}"));
    }
    match route {
        Route::File(content_type, text) => Answer::file(content_type, text),
        Route::Info => api::info(state),
        Route::Divide => api::divide::<S>(state, query),
        Route::Diff => api::diff::<S>(state, query),
        Route::Progress => api::progress(state),
        Route::Cancel => api::cancel(state),
    }
}

/// What a path names.
enum Route {
    /// One of the page's files: its content type and text.
    File(&'static str, &'static str),
    Info,
    Divide,
    Diff,
    Progress,
    Cancel,
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
