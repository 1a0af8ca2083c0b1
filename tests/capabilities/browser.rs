//! The page of `perft serve` in a real browser (headless Chromium over WebDriver): it loads and
//! divides, a hovered move is drawn, a clicked move is played and divided one ply shallower, the
//! path goes back, "find the difference" against the fake engine ends on the position where it
//! goes wrong with the missed move drawn and listed, a bad FEN is said on the page (and the
//! divide of the position before is not), a depth past the server's is said, counts past
//! 2^53 are shown to the last digit, and the report of `perft diff --html` draws its board with
//! no server at all.
//!
//! Counts asserted: the start position's perft 2 (400), 3 (8,902; a2a3 380) and 4 (197,281),
//! and perft 2 after e2e4 (600): the Chess Programming Wiki's "Perft Results" page and Debian's Stockfish 15.1 (`go
//! perft 3`).
//!
//! With `PERFT_SCREENSHOT=FILE`, the descent's test saves a PNG of the page at the difference
//! (the README's picture).

use crate::common::{self, START};

use common::fake_engine;
use common::web::{Browser, Server, have_browser};
use serde_json::json;

fn board_fen(b: &Browser) -> String {
    b.js(
        "const s = document.querySelector('#board svg'); return s ? s.dataset.fen : '';",
        json!([]),
    )
    .as_str()
    .unwrap_or_default()
    .to_string()
}

/// The page of a server started with `args`, in a fresh browser, once its first divide (the
/// start position at depth 3: 8,902) is shown.
fn open_page(args: &[&str]) -> (Server, Browser) {
    let server = Server::start(args);
    let b = Browser::start();
    b.goto(&server.url());
    b.wait_until(
        "return document.getElementById('total').textContent === '8,902';",
        "the start position's divide at depth 3 is shown",
    );
    (server, b)
}

#[test]
fn the_page_divides_shows_a_hovered_move_and_plays_a_clicked_one() {
    if !have_browser() {
        return;
    }
    let (_server, b) = open_page(&[]);
    assert_eq!(board_fen(&b), START);
    let rows = b.js(
        "return document.querySelectorAll('#divide tbody tr').length;",
        json!([]),
    );
    assert_eq!(rows, json!(20));
    // 32 pieces drawn.
    let pieces = b.js(
        "return document.querySelectorAll('#board .piece').length;",
        json!([]),
    );
    assert_eq!(pieces, json!(32));

    b.hover("#divide tr[data-move='g1f3']");
    b.wait_for(
        "#board line.arrow[data-move='g1f3']",
        "the hovered move drawn as an arrow",
    );

    b.click("#divide tr[data-move='e2e4']");
    b.wait_until(
        "return document.getElementById('total').textContent === '600';",
        "after e2e4 the divide at depth 2",
    );
    assert_eq!(
        board_fen(&b),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
    assert_eq!(
        b.js("return document.getElementById('depth').value;", json!([])),
        json!("2")
    );
    assert!(b.text("#path").contains("e2e4"), "{}", b.text("#path"));
    assert!(
        b.find("#board .piece[data-square='e4'][data-piece='P']")
            .is_some()
    );

    // Back to the start through the path.
    b.click("#path button[data-ply='0']");
    b.wait_until(
        "return document.getElementById('total').textContent === '8,902';",
        "back at the start, depth 3 again",
    );
    assert_eq!(board_fen(&b), START);
}

#[test]
fn find_the_difference_draws_and_lists_the_move_the_engine_missed() {
    if !have_browser() {
        return;
    }
    // The engine named as from the project's directory, as a user would type it (the page
    // shows it).
    let engine = fake_engine();
    let engine = engine
        .strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or(&engine)
        .to_str()
        .expect("a UTF-8 path");
    let (_server, b) = open_page(&["--engine", engine]);
    // The engine's column is shown and agrees at depth 3 (its fault is deeper).
    assert!(
        b.text("#summary").contains("The engine agrees"),
        "{}",
        b.text("#summary")
    );
    b.type_into("#depth", "4");
    b.click("#diff-button");
    b.wait_for(
        "#difference li.missed[data-move='b8c6']",
        "the missed move listed",
    );
    b.wait_for(
        "#board line.arrow.missed[data-move='b8c6']",
        "the missed move drawn",
    );
    assert!(
        b.text("#difference").contains("b8c6 (quiet)"),
        "{}",
        b.text("#difference")
    );
    assert_eq!(
        board_fen(&b),
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    );
    let path = b.text("#path");
    assert!(
        path.contains("e2e4") && path.contains("e7e5") && path.contains("g1f3"),
        "{path}"
    );
    if let Some(file) = std::env::var_os("PERFT_SCREENSHOT") {
        std::fs::write(file, b.screenshot()).expect("the screenshot is written");
    }

    // Divide there at depth 1: the engine's row for b8c6 is empty and marked.
    b.type_into("#depth", "1");
    b.click("#divide-button");
    b.wait_for(
        "#divide tr.differs[data-move='b8c6']",
        "the differing row marked",
    );
}

/// An engine's counts past 2^53 (where a JavaScript number stops holding every integer) are
/// shown digit for digit: the fake engine adds 2^53 + 1 to each move's count, so every count
/// and the total are odd numbers no JavaScript number can hold.
#[test]
fn counts_past_what_a_javascript_number_holds_are_shown_exactly() {
    if !have_browser() {
        return;
    }
    let engine = format!(
        "{} --bug none --add 9007199254740993",
        fake_engine().to_str().expect("a UTF-8 path")
    );
    let (_server, b) = open_page(&["--engine", &engine]);
    b.wait_until(
        "return document.getElementById('engine-total').textContent !== '';",
        "the engine's total is shown",
    );
    // 380 + 2^53 + 1, and 8,902 + 20 (2^53 + 1).
    assert_eq!(
        b.text("#divide tr[data-move='a2a3'] td.engine-col"),
        "9,007,199,254,741,373"
    );
    assert_eq!(b.text("#engine-total"), "180,143,985,094,828,762");
    assert!(
        b.text("#summary")
            .contains("The engine differs on 20 moves"),
        "{}",
        b.text("#summary")
    );
}

/// A bad FEN is said on the page, which then says no count runs and shows no divide: the one
/// shown before was of another position.
#[test]
fn a_bad_fen_is_said_on_the_page_and_nothing_else_stays() {
    if !have_browser() {
        return;
    }
    let (_server, b) = open_page(&[]);
    b.type_into("#fen", "rnbqkbnr/pppppppp/8/8 w KQkq - 0 1");
    b.click("#divide-button");
    b.wait_until(
        "const e = document.getElementById('error'); return !e.hidden && e.textContent.includes('invalid FEN');",
        "the error is shown",
    );
    assert_eq!(b.text("#status"), "", "the page still says a count runs");
    assert_eq!(
        b.js(
            "return document.getElementById('divide').hidden;",
            json!([])
        ),
        json!(true),
        "the previous position's divide is still shown: {}",
        b.text("#divide")
    );
    assert_eq!(b.text("#summary"), "");
}

/// A depth deeper than the server counts is brought within its range, and the page says so.
#[test]
fn a_depth_past_the_servers_is_said_not_changed_silently() {
    if !have_browser() {
        return;
    }
    let (_server, b) = open_page(&["--max-depth", "4"]);
    b.type_into("#depth", "14");
    b.click("#divide-button");
    b.wait_until(
        "return document.getElementById('total').textContent === '197,281';",
        "the divide at depth 4, the deepest the server counts",
    );
    let note = b.text("#depth-note");
    assert!(
        note.contains("Depth 14") && note.contains("from 1 to 4") && note.contains("depth 4"),
        "{note:?}"
    );
    assert_eq!(
        b.js("return document.getElementById('depth').value;", json!([])),
        json!("4")
    );
    // A depth within the range takes the note away.
    b.type_into("#depth", "2");
    b.click("#divide-button");
    b.wait_until(
        "return document.getElementById('total').textContent === '400';",
        "the divide at depth 2",
    );
    assert_eq!(
        b.js(
            "return document.getElementById('depth-note').hidden;",
            json!([])
        ),
        json!(true),
        "{}",
        b.text("#depth-note")
    );
}

#[test]
fn the_html_report_draws_the_difference_without_a_server() {
    if !have_browser() {
        return;
    }
    let dir = common::Scratch::new("browser");
    let file = dir.join("report.html");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_perft"))
        .args(["diff", "--suite"])
        .arg(common::repo_file("tests/data/diff.epd"))
        .arg("--html")
        .arg(&file)
        .arg("--engine")
        .arg(fake_engine())
        .stdout(std::process::Stdio::null())
        .status()
        .expect("perft diff runs");
    assert_eq!(status.code(), Some(1));
    let b = Browser::start();
    b.goto(&format!("file://{}", file.display()));
    b.wait_for(
        ".report-position line.arrow.missed[data-move='b8c6']",
        "the missed move drawn",
    );
    assert!(b.find(".report-position[data-pass='true']").is_some());
}

#[test]
fn a_long_count_shows_progress_and_the_cancel_button_stops_it() {
    if !have_browser() {
        return;
    }
    let (_server, b) = open_page(&["--max-depth", "6"]);
    // Kiwipete at depth 6: eight billion nodes, seconds of work even on every core.
    b.type_into(
        "#fen",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    );
    b.type_into("#depth", "6");
    b.click("#divide-button");
    b.wait_until(
        "return !document.getElementById('progress').hidden;",
        "the progress bar shows",
    );
    b.click("#cancel-button");
    b.wait_until(
        "return document.getElementById('status').textContent === 'Cancelled.';",
        "the count is said to be cancelled",
    );
    // The board shows the position asked for; the last divide shown is still the start's.
    assert_eq!(b.text("#total"), "8,902");
}
