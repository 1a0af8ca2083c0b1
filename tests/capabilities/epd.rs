//! The suite reader on its own: both formats, counts of any size, and every kind of bad line.

use crate::common;
use perft::Nodes;
use perft::epd::{self, EpdErrorKind, MAX_LINE};

#[test]
fn counts_beyond_u64_are_read() {
    let entries = epd::parse_str(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D14 61885021521585529237 ;D15 2015099950053364471960 ;id s\n",
    );
    let e = entries[0].as_ref().unwrap();
    assert_eq!(
        e.counts,
        vec![
            (14, Nodes::from(61_885_021_521_585_529_237u128)),
            (15, Nodes::from(2_015_099_950_053_364_471_960u128))
        ]
    );
    assert_eq!(e.id.as_deref(), Some("s"));
}

#[test]
fn every_shared_suite_reads_without_error() {
    for name in [
        "suites/standard.epd",
        "tests/data/perftsuite.epd",
        "suites/tricky.epd",
        "suites/chess960.epd",
    ] {
        let path = common::repo_file(name);
        let file = std::fs::File::open(path).unwrap();
        let mut n = 0;
        for entry in epd::read(std::io::BufReader::new(file)) {
            entry.unwrap_or_else(|e| panic!("{name}: {e}"));
            n += 1;
        }
        assert!(n >= 7, "{name}: {n}");
    }
}

fn kind(text: &str) -> EpdErrorKind {
    epd::parse_str(text)
        .into_iter()
        .find_map(|e| e.err())
        .expect("an error")
        .kind
}

#[test]
fn bad_lines_name_the_problem() {
    let fen = "8/8/8/8/8/8/8/K6k w - -";
    // The depths `--depth` accepts, 0 to 64, and no others.
    assert_eq!(
        epd::parse_str(&format!("{fen} ;D0 1 ;D64 0"))[0]
            .as_ref()
            .map(|e| e.counts.len()),
        Ok(2)
    );
    assert_eq!(
        kind(&format!("{fen} ;D65 1")),
        EpdErrorKind::BadDepth("65".into())
    );
    assert_eq!(
        kind(&format!("{fen} ;Dx 1")),
        EpdErrorKind::BadDepth("x".into())
    );
    assert_eq!(
        kind(&format!("{fen} ;D1 -3")),
        EpdErrorKind::BadCount("-3".into())
    );
    // Any count below 2^768 is read (no perft of depth 64 reaches it); a longer one is not.
    assert_eq!(
        epd::parse_str(&format!("{fen} ;D1 1{}", "0".repeat(60)))[0]
            .as_ref()
            .map(|e| e.counts[0].1.to_string().len()),
        Ok(61)
    );
    let huge = "1".repeat(233);
    assert_eq!(
        kind(&format!("{fen} ;D1 {huge}")),
        EpdErrorKind::CountTooLarge(format!("{}...", &huge[..40]))
    );
    assert_eq!(
        kind(&format!("{fen} ;D1 3 ;D1 3")),
        EpdErrorKind::DuplicateDepth(1)
    );
    assert_eq!(
        kind(&format!("{fen} ;bm e4")),
        EpdErrorKind::BadField("bm e4".into())
    );
    assert_eq!(kind(&format!("{fen} ;id only")), EpdErrorKind::NoCounts);
    assert_eq!(kind("perft 1 20"), EpdErrorKind::NoPosition);
    assert_eq!(kind("id x\nperft 1 20"), EpdErrorKind::NoPosition);
    assert_eq!(kind("epd"), EpdErrorKind::Empty("epd"));
}

#[test]
fn errors_carry_line_numbers_and_reading_goes_on() {
    let text = "# c\n\n8/8/8/8/8/8/8/K6k w - - ;D1 3\nbad ;Q\n8/8/8/8/8/8/8/K6k w - - ;D1 3\n";
    let all = epd::parse_str(text);
    assert_eq!(all.len(), 3);
    assert_eq!(all[0].as_ref().unwrap().line, 3);
    assert_eq!(all[1].as_ref().unwrap_err().line, 4);
    assert!(
        all[1]
            .as_ref()
            .unwrap_err()
            .to_string()
            .starts_with("line 4: ")
    );
    assert_eq!(all[2].as_ref().unwrap().line, 5);
}

#[test]
fn perft_blocks_and_epd_lines_mix() {
    let text = "id a\nepd 8/8/8/8/8/8/8/K6k w - -\nperft 1 3\nperft 2 9\n8/8/8/8/8/8/8/K6k b - - ;D1 3\nepd 8/8/8/8/8/8/8/K6k w - -\nperft 1 3\n";
    let all: Vec<_> = epd::parse_str(text)
        .into_iter()
        .map(|e| e.unwrap())
        .collect();
    assert_eq!(all.len(), 3);
    assert_eq!(all[0].id.as_deref(), Some("a"));
    assert_eq!(
        all[0].counts,
        vec![(1, Nodes::from(3u64)), (2, Nodes::from(9u64))]
    );
    assert_eq!(all[0].line, 2);
    assert_eq!(all[1].line, 5);
    assert_eq!(all[2].id, None);
    assert_eq!(all[2].line, 6);
}

#[test]
fn very_long_lines_are_rejected_without_being_stored() {
    let mut text = "x".repeat(MAX_LINE + 10);
    text.push_str("\n8/8/8/8/8/8/8/K6k w - - ;D1 3\n");
    let all = epd::parse_str(&text);
    assert_eq!(all.len(), 2);
    assert_eq!(all[0].as_ref().unwrap_err().kind, EpdErrorKind::TooLong);
    assert_eq!(all[1].as_ref().unwrap().line, 2);
}

#[test]
fn crlf_line_endings() {
    let all = epd::parse_str("8/8/8/8/8/8/8/K6k w - - ;D1 3 ;id crlf\r\n");
    assert_eq!(all[0].as_ref().unwrap().id.as_deref(), Some("crlf"));
}
