//! `perft serve`'s JSON API over HTTP: the divide and the descent against published counts and
//! `perft diff`'s own answer, bad input answered with 400 and a message, one count at a time (a
//! new one or a cancel stops the running one, an engine's query included), and a page that
//! needs nothing from the network; and the report of `perft diff --html`. The server's bounds
//! (which requests it answers, and how it reads them) are `serve_bounds.rs`'s.
//!
//! Counts asserted: the start position's perft 2 (400) and 3 (8,902), perft 2 after e2e4 (600)
//! and perft 4 divide for e2e4 (13,160), Kiwipete's perft 2 (2,039): the Chess Programming
//! Wiki's "Perft Results" page (suites/standard.epd) and Stockfish's divide (the fake
//! engine with `--bug none` gives the published counts); the fake engine's own 197,279
//! is the published 197,281 less the two leaves it forgets: it omits b8c6 in the position after
//! 1. e4 e5 2. Nf3, reached at depth 3 under e2e4 and, by transposition, under g1f3.

use crate::common::{self, KIWIPETE};

use common::fake_engine;
use common::web::{Reply, Server, request};
use serde_json::{Value, json};
use std::process::Command;
use std::time::{Duration, Instant};

fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' => (b as char).to_string(),
            b' ' => "+".to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn error_of(r: &Reply) -> String {
    r.json()["error"].as_str().unwrap_or_default().to_string()
}

fn engine_server() -> Server {
    Server::start(&["--engine", fake_engine().to_str().expect("a UTF-8 path")])
}

#[test]
fn divide_gives_published_counts_sorted_by_move() {
    let s = Server::start(&[]);
    let r = s.get("/api/divide?depth=3");
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.header("content-type"), Some("application/json"));
    let d = r.json();
    assert_eq!(d["total"], json!(8902));
    assert_eq!(d["depth"], json!(3));
    let moves = d["moves"].as_array().expect("a list of moves");
    assert_eq!(moves.len(), 20);
    let names: Vec<&str> = moves
        .iter()
        .map(|m| m["move"].as_str().unwrap_or(""))
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    let sum: u64 = moves.iter().map(|m| m["nodes"].as_u64().unwrap_or(0)).sum();
    assert_eq!(sum, 8902);
    assert!(moves.iter().all(|m| m["engine"].is_null()));
    assert!(d["engine_total"].is_null());

    let r = s.get("/api/divide?depth=2&moves=e2e4");
    let d = r.json();
    assert_eq!(d["total"], json!(600));
    assert_eq!(
        d["fen"],
        json!("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    );
    assert_eq!(d["played"], json!(["e2e4"]));

    let r = s.get(&format!("/api/divide?depth=2&fen={}", enc(KIWIPETE)));
    assert_eq!(r.json()["total"], json!(2039));
}

#[test]
fn the_counting_options_of_a_count_apply_to_the_page_too() {
    // One thread, a table kept between requests (the second divide is answered through it),
    // the ray-scan sliders, and no bulk counting: the same published 8,902 every time.
    let s = Server::start(&["--threads", "1", "--hash", "16", "--classical", "--no-bulk"]);
    for _ in 0..2 {
        assert_eq!(s.get("/api/divide?depth=3").json()["total"], json!(8902));
    }
    assert_eq!(s.get("/api/info").json()["threads"], json!(1));
    let out = Command::new(env!("CARGO_BIN_EXE_perft"))
        .args(["serve", "--port", "0", "--simd", "sideways"])
        .output()
        .expect("perft serve runs");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_url_printed_names_the_host_given() {
    let s = Server::start(&["--host", "localhost"]);
    assert!(s.addr.starts_with("localhost:"), "{}", s.addr);
    assert_eq!(s.get("/api/info").status, 200);
}

#[test]
fn an_address_no_request_could_name_is_refused() {
    for host in ["0.0.0.0", "::", "no such host.invalid"] {
        let out = Command::new(env!("CARGO_BIN_EXE_perft"))
            .args(["serve", "--port", "0", "--host", host])
            .output()
            .expect("perft serve runs");
        assert_eq!(out.status.code(), Some(2), "{host}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--host"), "{host}: {err}");
    }
}

#[test]
fn divide_puts_the_engines_counts_beside_ours() {
    let s = engine_server();
    let d = s.get("/api/divide?depth=4").json();
    assert_eq!(d["total"], json!(197281));
    assert_eq!(d["engine_total"], json!(197279));
    assert!(d["engine_error"].is_null());
    let rows = d["moves"].as_array().expect("moves");
    let differing: Vec<&Value> = rows.iter().filter(|m| m["nodes"] != m["engine"]).collect();
    assert_eq!(differing.len(), 2, "{differing:?}");
    let e2e4 = rows
        .iter()
        .find(|m| m["move"] == "e2e4")
        .expect("e2e4 listed");
    assert_eq!(
        (&e2e4["nodes"], &e2e4["engine"]),
        (&json!(13160), &json!(13159))
    );
}

#[test]
fn diff_answers_the_same_failure_as_perft_diff_json() {
    let s = engine_server();
    let r = s.get("/api/diff?depth=4");
    assert_eq!(r.status, 200, "{}", r.body);
    let failure = r.json();
    assert_eq!(failure["category"], json!("move list"));
    assert_eq!(failure["moves"], json!(["e2e4", "e7e5", "g1f3"]));
    assert_eq!(
        failure["missed"],
        json!([{"move": "b8c6", "kind": "quiet"}])
    );
    let out = Command::new(env!("CARGO_BIN_EXE_perft"))
        .args(["diff", "--depth", "4", "--json", "--engine"])
        .arg(fake_engine())
        .output()
        .expect("perft diff runs");
    let cli: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(failure, cli["failure"]);

    // From a position part of the way down, with the moves given.
    let r = s.get("/api/diff?depth=3&moves=e2e4");
    assert_eq!(r.json()["moves"], json!(["e2e4", "e7e5", "g1f3"]));
}

#[test]
fn diff_is_null_when_the_engine_agrees() {
    let fake = fake_engine();
    let cmd = format!("{} --bug none", fake.display());
    let s = Server::start(&["--engine", &cmd]);
    let r = s.get("/api/diff?depth=3");
    assert_eq!((r.status, r.body.as_str()), (200, "null"));
}

#[test]
fn bad_requests_are_answered_400_naming_what_is_wrong() {
    let s = Server::start(&["--max-depth", "5"]);
    for (query, said) in [
        ("depth=3&fen=xx", "invalid FEN"),
        ("depth=3&moves=e2e5", "e2e5"),
        ("depth=3&moves=e2e4+e2e4", "move 2 of the parameter 'moves'"),
        // Every depth refused names the range allowed.
        (
            "depth=6",
            "depth 6 is deeper than this server counts: from 1 to 5",
        ),
        ("depth=0", "depth '0' is not a whole number from 1 to 5"),
        ("depth=x", "depth 'x' is not a whole number from 1 to 5"),
        (
            "depth=99999999999",
            "from 1 to 5 (this server's --max-depth 5)",
        ),
        ("", "missing parameter 'depth'"),
        ("depth=2&colour=white", "unknown parameter 'colour'"),
        ("depth=2&depth=3", "given twice"),
        (
            "depth=2&chess960=maybe",
            "neither yes (1, true, yes, on) nor no",
        ),
        (
            "depth=2&fen=4k3/8/8/8/8/8/8/R4K1R+w+KQ+-",
            "with chess960=1",
        ),
    ] {
        let r = s.get(&format!("/api/divide?{query}"));
        assert_eq!(r.status, 400, "{query}: {}", r.body);
        let e = error_of(&r);
        assert!(e.contains(said), "{query}: {e}");
        // The API names its own parameters, never the command line's options.
        assert!(!e.contains("--moves") && !e.contains("--chess960"), "{e}");
    }
    // Every spelling of yes and no is taken.
    for yes in ["1", "true", "yes", "on", "YES"] {
        let r = s.get(&format!("/api/divide?depth=1&chess960={yes}"));
        assert_eq!((r.status, r.json()["chess960"].clone()), (200, json!(true)));
    }
    for no in ["0", "false", "no", "off"] {
        let r = s.get(&format!("/api/divide?depth=1&chess960={no}"));
        assert_eq!(
            (r.status, r.json()["chess960"].clone()),
            (200, json!(false))
        );
    }
    let r = s.get("/api/diff?depth=2");
    assert_eq!(r.status, 400);
    assert!(error_of(&r).contains("--engine"), "{}", r.body);
    assert_eq!(s.get("/nothing").status, 404);
    let r = s.ask("POST", "/api/divide?depth=1", &[]);
    assert_eq!((r.status, r.header("allow")), (405, Some("GET, HEAD")));
    let r = s.get("/api/cancel");
    assert_eq!((r.status, r.header("allow")), (405, Some("POST")));
}

/// Starts a long count (Kiwipete at depth 6, billions of nodes) on another thread and waits
/// until the server says it runs.
fn start_long_count(s: &Server) -> std::thread::JoinHandle<Reply> {
    let addr = s.addr.clone();
    let path = format!("/api/divide?depth=6&fen={}", enc(KIWIPETE));
    let token = s.token.clone();
    let long =
        std::thread::spawn(move || request(&addr, "GET", &path, &[("X-Perft-Token", &token)], ""));
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let p = s.get("/api/progress").json();
        if p["running"] == json!(true) && p["total"].as_u64().unwrap_or(0) > 0 {
            assert_eq!(p["kind"], json!("divide"));
            break;
        }
        assert!(Instant::now() < deadline, "the count never showed progress");
        std::thread::sleep(Duration::from_millis(20));
    }
    long
}

#[test]
fn a_cancel_stops_the_running_count() {
    let s = Server::start(&["--max-depth", "6"]);
    let long = start_long_count(&s);
    let asked = Instant::now();
    let r = s.ask("POST", "/api/cancel", &[]);
    assert_eq!(r.json()["cancelled"], json!(true));
    let r = long.join().expect("the request returns");
    assert_eq!(r.status, 409, "{}", r.body);
    assert_eq!(error_of(&r), "cancelled by a request to /api/cancel");
    assert!(
        asked.elapsed() < Duration::from_secs(20),
        "{:?}",
        asked.elapsed()
    );
    assert_eq!(s.get("/api/progress").json()["running"], json!(false));
}

#[test]
fn a_new_count_cancels_the_running_one() {
    let s = Server::start(&["--max-depth", "6"]);
    let long = start_long_count(&s);
    let r = s.get("/api/divide?depth=3");
    assert_eq!(r.json()["total"], json!(8902));
    let r = long.join().expect("returns");
    assert_eq!(r.status, 409);
    assert_eq!(
        error_of(&r),
        "cancelled: a newer request replaced this count"
    );
}

/// Asks `path` of a server whose engine never answers about Kiwipete, waits until the engine
/// has been asked, then `stop`s the count: the request must come back cancelled long before
/// the engine's time limit, and the engine answer the next request as before.
fn stopped_while_the_engine_thinks(path: &str, protocol: &str, stop: fn(&Server)) {
    let board = KIWIPETE.split(' ').next().unwrap_or_default();
    let perftree = if protocol == "perftree" {
        " --perftree"
    } else {
        ""
    };
    let engine = format!(
        "{} --bug none --hang-on {board}{perftree}",
        fake_engine().to_str().expect("a UTF-8 path")
    );
    let s = Server::start(&[
        "--engine",
        &engine,
        "--protocol",
        protocol,
        "--timeout",
        "120",
    ]);
    let (addr, token) = (s.addr.clone(), s.token.clone());
    let path = path.replace("FEN", &enc(KIWIPETE));
    let hung =
        std::thread::spawn(move || request(&addr, "GET", &path, &[("X-Perft-Token", &token)], ""));
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        // A divide names the engine's part; a diff's first step asks it right after our
        // count of depth 1, which takes microseconds.
        let p = s.get("/api/progress").json();
        let stage = p["stage"].as_str().unwrap_or_default();
        if stage.contains("engine") || stage.contains("comparing") {
            break;
        }
        assert!(Instant::now() < deadline, "the engine was never asked: {p}");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    let asked = Instant::now();
    stop(&s);
    let r = hung.join().expect("the request returns");
    assert_eq!(r.status, 409, "{}", r.body);
    assert!(error_of(&r).contains("cancelled"), "{}", r.body);
    // Without the stop the engine's query would have run to its 120 s limit.
    assert!(
        asked.elapsed() < Duration::from_secs(60),
        "{:?}",
        asked.elapsed()
    );
    let r = s.get("/api/divide?depth=2");
    assert_eq!(r.status, 200, "{}", r.body);
    let d = r.json();
    assert_eq!(d["total"], json!(400));
    assert_eq!(d["engine_total"], json!(400), "{}", r.body);
    assert!(d["engine_error"].is_null(), "{}", r.body);
}

/// Sends `path` with the server's token on a connection of its own and waits until the server
/// says `started` of its progress; then closes the connection, as a client that leaves does
/// (a browser tab closed, a script stopped), and requires the server to be idle within a
/// second: nobody waits for that count, so it is cancelled. The server then counts as before.
fn a_client_leaves(s: &Server, path: &str, started: fn(&Value) -> bool) {
    use std::io::Write;
    let mut client = std::net::TcpStream::connect(&s.addr).expect("connects");
    write!(
        client,
        "GET {path} HTTP/1.1\r\nHost: {}\r\nX-Perft-Token: {}\r\n\r\n",
        s.addr, s.token
    )
    .expect("the request is sent");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let p = s.get("/api/progress").json();
        if p["running"] == json!(true) && started(&p) {
            break;
        }
        assert!(Instant::now() < deadline, "the count never started: {p}");
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(client);
    let left = Instant::now();
    loop {
        let p = s.get("/api/progress").json();
        if p["running"] == json!(false) {
            break;
        }
        assert!(
            left.elapsed() < Duration::from_secs(1),
            "the count still runs {:?} after its client left: {p}",
            left.elapsed()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let r = s.get("/api/divide?depth=2");
    assert_eq!((r.status, r.json()["total"].clone()), (200, json!(400)));
}

#[test]
fn a_count_whose_client_has_left_is_cancelled_within_a_second() {
    // The start position at depth 7 counted without bulk counting: seconds of work, in tasks
    // of milliseconds.
    let s = Server::start(&["--max-depth", "7", "--no-bulk"]);
    a_client_leaves(&s, "/api/divide?depth=7", |p| {
        p["total"].as_u64().unwrap_or(0) > 0
    });
}

#[test]
fn a_diff_whose_client_has_left_stops_the_engine_within_a_second() {
    // An engine that never answers about Kiwipete: without the client's leaving, it would be
    // waited for until its 120 s limit.
    let board = KIWIPETE.split(' ').next().unwrap_or_default();
    let engine = format!(
        "{} --bug none --hang-on {board}",
        fake_engine().to_str().expect("a UTF-8 path")
    );
    let s = Server::start(&["--engine", &engine, "--timeout", "120"]);
    let path = format!("/api/diff?depth=1&fen={}", enc(KIWIPETE));
    a_client_leaves(&s, &path, |p| {
        p["stage"]
            .as_str()
            .unwrap_or_default()
            .contains("comparing")
    });
    assert_eq!(
        s.get("/api/divide?depth=2").json()["engine_total"],
        json!(400)
    );
}

fn cancel(s: &Server) {
    let r = s.ask("POST", "/api/cancel", &[]);
    assert_eq!(r.json()["cancelled"], json!(true));
}

#[test]
fn a_cancel_stops_the_engines_divide_too() {
    stopped_while_the_engine_thinks("/api/divide?depth=1&fen=FEN", "uci", cancel);
}

#[test]
fn a_cancel_stops_a_perftree_engines_divide_too() {
    stopped_while_the_engine_thinks("/api/divide?depth=1&fen=FEN", "perftree", cancel);
}

#[test]
fn a_new_count_stops_the_engines_part_of_a_diff() {
    stopped_while_the_engine_thinks("/api/diff?depth=1&fen=FEN", "uci", |s| {
        assert_eq!(s.get("/api/divide?depth=3").json()["total"], json!(8902));
    });
}

#[test]
fn the_page_needs_nothing_from_the_network() {
    let s = Server::start(&[]);
    let page = s.get("/");
    assert_eq!(page.status, 200);
    assert!(
        page.header("content-type")
            .is_some_and(|t| t.starts_with("text/html"))
    );
    assert!(
        page.header("content-security-policy")
            .is_some_and(|c| c.contains("default-src 'self'"))
    );
    for path in ["/", "/app.js", "/board.js", "/style.css"] {
        let r = s.get(path);
        assert_eq!(r.status, 200, "{path}");
        // The SVG namespace is a name, not an address the page asks.
        let text = r.body.replace("http://www.w3.org/2000/svg", "");
        assert!(
            !text.contains("http://") && !text.contains("https://"),
            "{path} refers to another site"
        );
    }
}

#[test]
fn diff_html_writes_one_self_contained_report() {
    let dir = common::Scratch::new("html");
    let file = dir.join("report.html");
    let out = Command::new(env!("CARGO_BIN_EXE_perft"))
        .args(["diff", "--depth", "4", "--html"])
        .arg(&file)
        .arg("--engine")
        .arg(fake_engine())
        .output()
        .expect("perft diff runs");
    assert_eq!(out.status.code(), Some(1));
    let html = std::fs::read_to_string(&file).expect("the report is written");
    assert!(html.starts_with("<!doctype html>"));
    let text = html.replace("http://www.w3.org/2000/svg", "");
    assert!(!text.contains("http://") && !text.contains("https://"));
    assert!(!html.contains("<script src") && !html.contains("<link"));
    let data = html
        .split("<script id=\"report-data\" type=\"application/json\">")
        .nth(1)
        .and_then(|s| s.split("</script>").next())
        .expect("the data block");
    let doc: Value = serde_json::from_str(data).expect("JSON data");
    let failure = &doc["positions"][0]["failure"];
    assert_eq!(
        failure["missed"],
        json!([{"move": "b8c6", "kind": "quiet"}])
    );
    assert_eq!(doc["positions"][0]["pass"], json!(false));

    // A path that cannot be written is said before the engine runs.
    let out = Command::new(env!("CARGO_BIN_EXE_perft"))
        .args(["diff", "--depth", "1", "--html", "/nonexistent-dir/r.html"])
        .args(["--engine", "true"])
        .output()
        .expect("perft diff runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot write the report"));
}

/// What the report shows that came from outside (the engine's command line, a suite's ids) is
/// text on the page, never markup: a name holding `</title>`, `<script>` and `&"'` is escaped
/// in the title and cannot end the report's data early, and the data still holds it unchanged.
#[test]
fn diff_html_escapes_the_names_it_shows() {
    let dir = common::Scratch::new("html-escape");
    // `<!--<script>` inside a script element would keep its `</script>` from ending it.
    let hostile = "</title><script>alert(1)</script><!--<script>&\"'";
    let suite = dir.file(
        "suite.epd",
        format!("{} ;D1 20 ;id {hostile}\n", common::START).as_bytes(),
    );
    let file = dir.join("report.html");
    // The shell runs the engine's command line: what follows `#` is a comment it ignores.
    let engine = format!("{} --bug none #{hostile}", fake_engine().display());
    let out = Command::new(env!("CARGO_BIN_EXE_perft"))
        .args(["diff", "--suite"])
        .arg(&suite)
        .arg("--html")
        .arg(&file)
        .args(["--engine", &engine])
        .output()
        .expect("perft diff runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&file).expect("the report is written");
    let escaped =
        "&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;!--&lt;script&gt;&amp;&quot;&#39;";
    let title = html
        .split("<title>")
        .nth(1)
        .and_then(|t| t.split("</title>").next())
        .expect("a title");
    assert!(title.ends_with(&format!("#{escaped}")), "{title}");
    // The data, the board's script and the report's: no other script element, and none ended
    // early.
    assert_eq!(html.matches("<script").count(), 3, "{html}");
    assert_eq!(html.matches("</script>").count(), 3, "{html}");
    assert!(!html.contains("alert(1)</script>"), "{html}");
    assert!(!html.contains("<!--"), "{html}");
    let data = html
        .split("<script id=\"report-data\" type=\"application/json\">")
        .nth(1)
        .and_then(|s| s.split("</script>").next())
        .expect("the data block");
    let doc: Value = serde_json::from_str(data).expect("JSON data");
    assert_eq!(doc["positions"][0]["name"], json!(hostile));
    assert_eq!(doc["engine"], json!(engine));
}
