//! A web client for the tests of `perft serve`: plain HTTP/1.1 over a socket (the tests must
//! set any `Host` header they like, a bad one included), the server started and stopped, and a
//! WebDriver session in headless Chromium.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// An HTTP answer: status, headers (names lower-cased) and body.
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Sends one request to `addr` (`host:port`) with the given extra header lines; `Host` is
/// `addr` unless `headers` has one (an empty `Host` value leaves the header out).
pub fn request(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Reply {
    let mut stream = TcpStream::connect(addr).unwrap_or_else(|e| panic!("connect {addr}: {e}"));
    stream
        .set_read_timeout(Some(Duration::from_secs(300)))
        .expect("timeout set");
    let mut head = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    match headers.iter().find(|(n, _)| n.eq_ignore_ascii_case("host")) {
        Some((_, "")) => {}
        Some((_, h)) => head.push_str(&format!("Host: {h}\r\n")),
        None => head.push_str(&format!("Host: {addr}\r\n")),
    }
    for (n, v) in headers
        .iter()
        .filter(|(n, _)| !n.eq_ignore_ascii_case("host"))
    {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(head.as_bytes()).expect("request sent");
    // Read the head, then as much body as it announces (some servers keep the connection
    // open whatever the request says).
    let mut reader = BufReader::new(stream);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        let n = reader.read_line(&mut line).expect("answer read");
        if n == 0 || line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let mut lines = head.lines();
    let status: u16 = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("a status line: {head:?}"));
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let find = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    let mut raw = Vec::new();
    if find("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).expect("a chunk size");
            let n = usize::from_str_radix(size.trim(), 16).expect("a chunk size");
            let mut chunk = vec![0; n + 2];
            reader.read_exact(&mut chunk).expect("a chunk");
            if n == 0 {
                break;
            }
            raw.extend_from_slice(&chunk[..n]);
        }
    } else if let Some(len) = find("content-length").and_then(|v| v.parse::<usize>().ok()) {
        raw.resize(len, 0);
        reader.read_exact(&mut raw).expect("the body");
    } else {
        reader.read_to_end(&mut raw).expect("the body");
    }
    Reply {
        status,
        headers,
        body: String::from_utf8_lossy(&raw).to_string(),
    }
}

/// `perft serve` on a free port, stopped when dropped (by SIGTERM, which ends its engine too).
pub struct Server {
    child: Child,
    /// `127.0.0.1:PORT`
    pub addr: String,
    /// The token its API asks of the requests that count, as `/api/info` gives it.
    pub token: String,
}

impl Server {
    pub fn start(args: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_perft"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .arg("serve")
            .args(["--port", "0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("perft serve starts");
        let mut out = BufReader::new(child.stdout.take().expect("stdout piped"));
        let mut line = String::new();
        out.read_line(&mut line).expect("the URL line");
        let addr = line
            .trim()
            .strip_prefix("perft serve: http://")
            .and_then(|s| s.strip_suffix('/'))
            .unwrap_or_else(|| panic!("first line names the URL: {line:?}"))
            .to_string();
        // Keep reading stdout, so the server never blocks on a full pipe.
        std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
        let info = request(&addr, "GET", "/api/info", &[], "");
        let token = info.json()["token"]
            .as_str()
            .unwrap_or_else(|| panic!("/api/info gives the token: {}", info.body))
            .to_string();
        Server { child, addr, token }
    }

    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// `GET path` with the server's token, as the page asks.
    pub fn get(&self, path: &str) -> Reply {
        self.ask("GET", path, &[])
    }

    /// `method path` with the server's token and `headers`.
    pub fn ask(&self, method: &str, path: &str, headers: &[(&str, &str)]) -> Reply {
        let mut all = vec![("X-Perft-Token", self.token.as_str())];
        all.extend_from_slice(headers);
        request(&self.addr, method, path, &all, "")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        super::terminate(&mut self.child);
    }
}

/// Whether Chromium and ChromeDriver are installed; where CI sets `PERFT_REQUIRE_TOOLS`, their
/// absence fails the test instead.
pub fn have_browser() -> bool {
    super::tool_present(
        Path::new(CHROMIUM).exists() && which("chromedriver"),
        "Chromium or ChromeDriver is not installed (apt-get install chromium chromium-driver)",
        "the browser tests are skipped",
    )
}

const CHROMIUM: &str = "/usr/bin/chromium";

fn which(cmd: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {cmd}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A headless Chromium driven over WebDriver; the browser and the driver stop when dropped.
pub struct Browser {
    driver: Child,
    addr: String,
    session: String,
}

/// The key WebDriver gives an element reference.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

impl Browser {
    pub fn start() -> Browser {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let driver = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let addr = format!("127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(&addr).is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not listen");
            std::thread::sleep(Duration::from_millis(50));
        }
        let mut b = Browser {
            driver,
            addr,
            session: String::new(),
        };
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": CHROMIUM,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--window-size=1200,900"]
            }
        }}});
        let v = b.call("POST", "/session", caps);
        b.session = v["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("a session: {v}"))
            .to_string();
        b
    }

    fn call(&self, method: &str, path: &str, body: Value) -> Value {
        let body = if method == "GET" {
            String::new()
        } else {
            body.to_string()
        };
        let headers = [("Content-Type", "application/json")];
        let r = request(&self.addr, method, path, &headers, &body);
        let v: Value = r.json();
        assert!(r.status == 200, "WebDriver {method} {path}: {}", r.body);
        v["value"].clone()
    }

    fn at(&self, rest: &str) -> String {
        format!("/session/{}{rest}", self.session)
    }

    pub fn goto(&self, url: &str) {
        self.call("POST", &self.at("/url"), json!({ "url": url }));
    }

    /// Runs `script` (a function body; `arguments` holds `args`) in the page; its return value.
    pub fn js(&self, script: &str, args: Value) -> Value {
        self.call(
            "POST",
            &self.at("/execute/sync"),
            json!({ "script": script, "args": args }),
        )
    }

    /// The element `css` selects (the first), or None.
    pub fn find(&self, css: &str) -> Option<String> {
        let r = request(
            &self.addr,
            "POST",
            &self.at("/element"),
            &[("Content-Type", "application/json")],
            &json!({"using": "css selector", "value": css}).to_string(),
        );
        (r.status == 200).then(|| r.json()["value"][ELEMENT].as_str().map(String::from))?
    }

    /// Waits up to 60 s for `css` to select an element; fails the test with `what` otherwise.
    pub fn wait_for(&self, css: &str, what: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(e) = self.find(css) {
                return e;
            }
            assert!(
                Instant::now() < deadline,
                "{what}: nothing matched {css}; the page says: {}",
                self.text("body")
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits up to 60 s for `check` (a function body returning a boolean) to hold in the page.
    pub fn wait_until(&self, check: &str, what: &str) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while self.js(check, json!([])) != json!(true) {
            assert!(
                Instant::now() < deadline,
                "{what}; the page says: {}",
                self.text("body")
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The visible text of the first element `css` selects ("" if none).
    pub fn text(&self, css: &str) -> String {
        self.js(
            "const e = document.querySelector(arguments[0]); return e ? e.innerText : '';",
            json!([css]),
        )
        .as_str()
        .unwrap_or_default()
        .to_string()
    }

    pub fn click(&self, css: &str) {
        let e = self.wait_for(css, "an element to click");
        self.call("POST", &self.at(&format!("/element/{e}/click")), json!({}));
    }

    /// Moves the mouse over the element `css` selects.
    pub fn hover(&self, css: &str) {
        let e = self.wait_for(css, "an element to hover");
        let origin = json!({ ELEMENT: e });
        self.call(
            "POST",
            &self.at("/actions"),
            json!({"actions": [{"type": "pointer", "id": "mouse",
                "parameters": {"pointerType": "mouse"},
                "actions": [{"type": "pointerMove", "duration": 0, "origin": origin, "x": 0, "y": 0}]}]}),
        );
    }

    /// Replaces the text of the input `css` selects with `text`.
    pub fn type_into(&self, css: &str, text: &str) {
        let e = self.wait_for(css, "an input");
        // WebDriver's clear leaves a number input's text in place in Chromium: empty it here.
        self.js(
            "document.querySelector(arguments[0]).value = '';",
            json!([css]),
        );
        self.call(
            "POST",
            &self.at(&format!("/element/{e}/value")),
            json!({ "text": text }),
        );
    }

    /// A PNG of the window.
    pub fn screenshot(&self) -> Vec<u8> {
        let v = self.call("GET", &self.at("/screenshot"), json!({}));
        base64(v.as_str().expect("base64 text"))
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = request(&self.addr, "DELETE", &self.at(""), &[], "");
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// Decodes standard base64.
fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let digits: Vec<u8> = text
        .bytes()
        .filter(|&c| c != b'=' && !c.is_ascii_whitespace())
        .map(value)
        .collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let mut n = 0u32;
        for (i, &d) in chunk.iter().enumerate() {
            n |= u32::from(d) << (18 - 6 * i);
        }
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    out
}
