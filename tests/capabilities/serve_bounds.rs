//! `perft serve`'s bounds: only requests naming this server and coming from its own page are
//! answered (the Host, Origin, `Sec-Fetch-Site` and token checks), every request is read within
//! bounds and a broken one answered with the status that says why, connections that send no
//! request cannot keep one that does waiting, and sixteen clients at once are each answered
//! correctly; after each, the server still counts a divide exactly.
//!
//! Counts asserted: the start position's perft 2 (400) and 3 (8,902), from the Chess
//! Programming Wiki's "Perft Results" page (suites/standard.epd); the fake engine with `--bug
//! none` gives the same.

use crate::common;
use common::fake_engine;
use common::web::{Reply, Server, request};
use serde_json::{Value, json};
use std::time::Duration;

fn error_of(r: &Reply) -> String {
    r.json()["error"].as_str().unwrap_or_default().to_string()
}

#[test]
fn only_requests_naming_this_server_are_answered() {
    let s = Server::start(&[]);
    let port = s.addr.rsplit(':').next().expect("a port");
    // Its loopback names with its port; `[::1]` too, though it listens on 127.0.0.1: the
    // server answers to every loopback name, whichever address it listens on.
    for host in [
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        format!("[::1]:{port}"),
        format!("LOCALHOST:{port}"),
    ] {
        let r = request(&s.addr, "GET", "/api/info", &[("Host", &host)], "");
        assert_eq!(r.status, 200, "{host}");
    }
    // A Host without a port names port 80, which this server is not on; another name with the
    // right port is another site all the same (what DNS rebinding sends).
    for host in [
        "evil.example".to_string(),
        "evil.example:80".to_string(),
        "localhost".to_string(),
        "127.0.0.1:1".to_string(),
        format!("evil.example:{port}"),
        format!("127.0.0.2:{port}"),
        format!("localhost.evil.example:{port}"),
        format!("[::2]:{port}"),
    ] {
        let r = s.ask("GET", "/api/divide?depth=1", &[("Host", &host)]);
        assert_eq!(r.status, 403, "{host}: {}", r.body);
        assert!(error_of(&r).contains("host"), "{}", r.body);
    }
    let r = request(&s.addr, "GET", "/", &[("Host", "")], "");
    assert_eq!(r.status, 400, "no Host header");
    assert_eq!(error_of(&r), "the request has no Host header");
    // Another site's page, on any port (this server's included), a sandboxed or file page
    // (`null`), or this server's name over another scheme.
    for origin in [
        "http://evil.example".to_string(),
        format!("http://evil.example:{port}"),
        "null".to_string(),
        format!("https://127.0.0.1:{port}"),
        format!("http://127.0.0.1:{port}.evil.example"),
    ] {
        let r = s.ask("GET", "/api/divide?depth=1", &[("Origin", &origin)]);
        assert_eq!(r.status, 403, "{origin}: {}", r.body);
        assert!(error_of(&r).contains("not answered"), "{}", r.body);
    }
    for origin in [
        format!("http://{}", s.addr),
        format!("http://localhost:{port}"),
        format!("http://[::1]:{port}"),
    ] {
        let r = s.ask("GET", "/api/divide?depth=1", &[("Origin", &origin)]);
        assert_eq!(r.status, 200, "{origin}: {}", r.body);
    }
}

/// What a page of another site can make a browser send: a plain GET (an image, a link, a
/// form), with `Sec-Fetch-Site` saying where it comes from, and without the token (the page
/// that has it is ours, and another site cannot read it); none of it is answered.
#[test]
fn requests_from_another_site_are_refused() {
    let s = Server::start(&[]);
    // What `<img src="http://127.0.0.1:PORT/api/divide?depth=7">` sends.
    for site in ["cross-site", "same-site"] {
        let headers = [("Sec-Fetch-Site", site), ("Sec-Fetch-Dest", "image")];
        let r = request(&s.addr, "GET", "/api/divide?depth=7", &headers, "");
        assert_eq!(r.status, 403, "{site}: {}", r.body);
        assert!(error_of(&r).contains("another site"), "{}", r.body);
        // Even with the token, and for the page itself.
        let r = s.ask("GET", "/", &[("Sec-Fetch-Site", site)]);
        assert_eq!(r.status, 403, "{site}");
    }
    // An older browser sends no Sec-Fetch-Site: the token is missing all the same.
    for path in ["/api/divide?depth=1", "/api/diff?depth=1", "/api/progress"] {
        let r = request(&s.addr, "GET", path, &[], "");
        assert_eq!(r.status, 403, "{path}: {}", r.body);
        assert!(error_of(&r).contains("token"), "{}", r.body);
    }
    let r = request(&s.addr, "POST", "/api/cancel", &[], "");
    assert_eq!(r.status, 403);
    let wrong = [("X-Perft-Token", "0123456789abcdef0123456789abcdef")];
    assert_eq!(
        request(&s.addr, "GET", "/api/divide?depth=1", &wrong, "").status,
        403
    );
    let twice = [
        ("X-Perft-Token", s.token.as_str()),
        ("X-Perft-Token", s.token.as_str()),
    ];
    assert_eq!(
        request(&s.addr, "GET", "/api/divide?depth=1", &twice, "").status,
        403
    );
    // The page and its own requests: the token is in the page, and works.
    for site in ["same-origin", "none"] {
        let r = s.ask("GET", "/api/divide?depth=2", &[("Sec-Fetch-Site", site)]);
        assert_eq!(
            (r.status, r.json()["total"].clone()),
            (200, json!(400)),
            "{site}"
        );
    }
    let page = s.get("/").body;
    assert!(page.contains(&format!("content=\"{}\"", s.token)));
    // A second server has a token of its own.
    let other = Server::start(&[]);
    assert_ne!(other.token, s.token);
}

/// Sends `raw` bytes as they are and reads the answer's status and body (the connection is
/// closed by the server after one answer).
fn raw_request(addr: &str, raw: &[u8]) -> (u16, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("timeout set");
    // The server may answer and close before taking everything: a failed write is no failure.
    let _ = stream.write_all(raw);
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer).to_string();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("an answer with a status: {text:?}"));
    let body = text
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_string();
    (status, body)
}

/// Every request is read within bounds (its line, headers, body and time) and a broken one is
/// answered with the status that says why and a JSON message; after each, the server still
/// counts a divide exactly.
#[test]
fn hostile_requests_are_answered_and_the_server_stays_up() {
    let s = Server::start(&[]);
    let host = format!("Host: {}\r\n", s.addr);
    let token = format!("X-Perft-Token: {}\r\n", s.token);
    let long_target = format!("GET /api/info?{} HTTP/1.1\r\n{host}\r\n", "a".repeat(9000));
    let many_headers: String = (0..100).map(|i| format!("X-{i}: {i}\r\n")).collect();
    let big_header = format!("X-Big: {}\r\n", "b".repeat(17000));
    let cases: Vec<(String, Vec<u8>, u16, &str)> = vec![
        (
            "a body of 99,999,999,999 bytes announced".into(),
            format!("GET /api/info HTTP/1.1\r\n{host}Content-Length: 99999999999\r\n\r\n").into(),
            413,
            "larger than 4 KiB",
        ),
        (
            "the same on the cancel".into(),
            format!("POST /api/cancel HTTP/1.1\r\n{host}{token}Content-Length: 99999999999\r\n\r\n")
                .into(),
            413,
            "larger than 4 KiB",
        ),
        (
            "a request line of 9,000 characters".into(),
            long_target.into_bytes(),
            414,
            "request line",
        ),
        (
            "100 header lines".into(),
            format!("GET /api/info HTTP/1.1\r\n{host}{many_headers}\r\n").into(),
            431,
            "header lines",
        ),
        (
            "a header of 17,000 characters".into(),
            format!("GET /api/info HTTP/1.1\r\n{host}{big_header}\r\n").into(),
            431,
            "headers are longer",
        ),
        (
            "two Host headers".into(),
            format!("GET /api/info HTTP/1.1\r\n{host}Host: evil.example\r\n\r\n").into(),
            400,
            "more than one Host",
        ),
        (
            "two Content-Length headers".into(),
            format!("GET /api/info HTTP/1.1\r\n{host}Content-Length: 1\r\nContent-Length: 2\r\n\r\nx")
                .into(),
            400,
            "more than one Content-Length",
        ),
        (
            "a chunked body".into(),
            format!("POST /api/cancel HTTP/1.1\r\n{host}{token}Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
                .into(),
            501,
            "Transfer-Encoding",
        ),
        (
            "an HTTP/0.9 request".into(),
            b"GET /\r\n\r\n".to_vec(),
            400,
            "not an HTTP/1.0 or HTTP/1.1 request",
        ),
        (
            "bytes that are no request".into(),
            b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n".to_vec(),
            400,
            "not an HTTP/1.0 or HTTP/1.1 request",
        ),
        (
            "a header value that is not UTF-8".into(),
            [format!("GET /api/info HTTP/1.1\r\n{host}X-Bad: ").as_bytes(), b"\xff\xfe\r\n\r\n"]
                .concat(),
            400,
            "UTF-8",
        ),
    ];
    for (what, raw, status, said) in cases {
        let (got, body) = raw_request(&s.addr, &raw);
        assert_eq!(got, status, "{what}: {body}");
        let v: Value =
            serde_json::from_str(&body).unwrap_or_else(|e| panic!("{what}: {e}: {body}"));
        let e = v["error"].as_str().unwrap_or_default();
        assert!(e.contains(said), "{what}: {e}");
        let r = s.get("/api/divide?depth=3");
        assert_eq!(
            (r.status, r.json()["total"].clone()),
            (200, json!(8902)),
            "after {what}"
        );
    }
    // A request that never completes holds its own connection only, and is answered 408 once
    // its time is up; meanwhile others are answered.
    use std::io::{Read, Write};
    let mut slow = std::net::TcpStream::connect(&s.addr).expect("connects");
    slow.write_all(b"GET /api/info HTTP/1.1\r\n")
        .expect("written");
    let r = s.get("/api/divide?depth=2");
    assert_eq!(r.json()["total"], json!(400));
    slow.set_read_timeout(Some(Duration::from_secs(60)))
        .expect("timeout set");
    let mut answer = String::new();
    let _ = slow.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 408 "), "{answer}");
    let r = s.get("/api/divide?depth=3");
    assert_eq!(r.json()["total"], json!(8902));
}

/// Sixteen clients at once, each mixing divides, diffs, cancels and hostile requests: each
/// answer is the right one for what it asked (a count exact, or cancelled by a cancel or a
/// newer request, which is what one count at a time means; a cancel saying whether it cancelled;
/// a hostile request its exact status), and afterwards the server counts a divide exactly.
#[test]
fn sixteen_clients_at_once_are_each_answered_correctly() {
    let engine = format!("{} --bug none", fake_engine().display());
    let s = Server::start(&["--engine", &engine]);
    let (addr, token) = (s.addr.clone(), s.token.clone());
    // All start together, so that their counts overlap.
    let start = std::sync::Arc::new(std::sync::Barrier::new(16));
    let clients: Vec<_> = (0..16)
        .map(|i| {
            let (addr, token, start) = (addr.clone(), token.clone(), start.clone());
            std::thread::spawn(move || {
                let with_token = [("X-Perft-Token", token.as_str())];
                let mut seen = [0u32; 4];
                // Counts answered in full, and counts cancelled by a newer one.
                let (mut counted, mut replaced) = (0u32, 0u32);
                let mut cancelled = |r: &Reply| {
                    let e = error_of(r);
                    assert!(e.starts_with("cancelled"), "{}", r.body);
                    if e.contains("a newer request") {
                        replaced += 1;
                    }
                };
                start.wait();
                for round in 0..6 {
                    let kind = (i + round) % 4;
                    match kind {
                        0 => {
                            let r = request(&addr, "GET", "/api/divide?depth=3", &with_token, "");
                            match r.status {
                                200 => {
                                    let d = r.json();
                                    assert_eq!(d["total"], json!(8902), "{}", r.body);
                                    assert_eq!(d["engine_total"], json!(8902), "{}", r.body);
                                    counted += 1;
                                }
                                409 => cancelled(&r),
                                other => panic!("divide answered {other}: {}", r.body),
                            }
                        }
                        1 => {
                            let r = request(&addr, "GET", "/api/diff?depth=3", &with_token, "");
                            match r.status {
                                200 => {
                                    assert_eq!(r.body, "null");
                                    counted += 1;
                                }
                                409 => cancelled(&r),
                                other => panic!("diff answered {other}: {}", r.body),
                            }
                        }
                        2 => {
                            let r = request(&addr, "POST", "/api/cancel", &with_token, "");
                            assert_eq!(r.status, 200, "{}", r.body);
                            assert!(r.json()["cancelled"].is_boolean(), "{}", r.body);
                        }
                        _ => {
                            let (status, body) = match round % 3 {
                                0 => raw_request(
                                    &addr,
                                    format!(
                                        "GET /api/info HTTP/1.1\r\nHost: {addr}\r\n\
                                         Content-Length: 99999999999\r\n\r\n"
                                    )
                                    .as_bytes(),
                                ),
                                1 => {
                                    let r = request(&addr, "GET", "/api/divide?depth=7", &[], "");
                                    (r.status, r.body)
                                }
                                _ => {
                                    let headers = [("Sec-Fetch-Site", "cross-site"), with_token[0]];
                                    let r =
                                        request(&addr, "GET", "/api/divide?depth=7", &headers, "");
                                    (r.status, r.body)
                                }
                            };
                            let want = [413, 403, 403][round % 3];
                            assert_eq!(status, want, "{body}");
                        }
                    }
                    seen[kind] += 1;
                }
                (seen, counted, replaced)
            })
        })
        .collect();
    let (mut seen, mut counted, mut replaced) = ([0u32; 4], 0, 0);
    for c in clients {
        let (s, c, r) = c.join().expect("a client's answers were all right");
        for k in 0..4 {
            seen[k] += s[k];
        }
        counted += c;
        replaced += r;
    }
    assert_eq!(seen, [24; 4]);
    // Some counts ran to their end, and some were cut short by another client's: the clients
    // were served at once, not one after the other.
    assert!(counted >= 1, "no count was answered in full");
    assert!(replaced >= 1, "no count was replaced by a newer one");
    let r = s.get("/api/divide?depth=3");
    assert_eq!((r.status, r.json()["total"].clone()), (200, json!(8902)));
    assert!(r.json()["engine_error"].is_null(), "{}", r.body);
    assert_eq!(s.get("/api/progress").json()["running"], json!(false));
}

/// Connections that send nothing, or the first bytes of a request and no more, cannot keep a
/// whole request waiting: with 70 of them open (more than the server answers at once), a
/// request for `/api/info` is answered within a second, the oldest of them having been closed
/// with a 503 that says why.
#[test]
fn idle_connections_cannot_keep_a_request_waiting() {
    use std::io::{Read, Write};
    let s = Server::start(&[]);
    let idle: Vec<std::net::TcpStream> = (0..70)
        .map(|i| {
            let mut c = std::net::TcpStream::connect(&s.addr).expect("connects");
            if i % 2 == 1 {
                c.write_all(b"GET /api/info HT").expect("written");
            }
            c
        })
        .collect();
    let asked = std::time::Instant::now();
    let r = request(&s.addr, "GET", "/api/info", &[], "");
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        asked.elapsed() < Duration::from_secs(1),
        "answered after {:?}",
        asked.elapsed()
    );
    let mut oldest = &idle[0];
    oldest
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout set");
    let mut answer = String::new();
    let _ = oldest.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 503 "), "{answer}");
    assert!(
        answer.contains("this one had not sent its request"),
        "{answer}"
    );
    drop(idle);
    let r = s.get("/api/divide?depth=3");
    assert_eq!((r.status, r.json()["total"].clone()), (200, json!(8902)));
}
