//! Chess960: the published suite (every count up to 10^6 nodes), both castling notations,
//! castling printed king-takes-rook, and the castling rules that only Chess960 exercises.

use crate::common;

use perft::movegen::legal_moves;
use perft::perft::Perft;
use perft::suite::parse_position;
use perft::{Classical, Magic, Position, Sliders};

fn check_suite<S: Sliders>(max_nodes: u128) -> usize {
    let mut checked = 0;
    let mut failures = Vec::new();
    for entry in common::suite("suites/chess960.epd") {
        let pos =
            parse_position(&entry, false).unwrap_or_else(|e| panic!("line {}: {e}", entry.line));
        let rights = entry.fen.split_ascii_whitespace().nth(2) != Some("-");
        assert!(
            pos.is_chess960() || !rights,
            "line {} not read as Chess960",
            entry.line
        );
        for &(depth, expected) in &entry.counts {
            if expected > max_nodes.into() {
                continue;
            }
            let got = Perft::new().total::<S>(&pos, depth);
            checked += 1;
            if got != expected {
                failures.push(format!(
                    "line {} {} D{depth}: expected {expected}, got {got}",
                    entry.line,
                    entry.name()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    checked
}

#[test]
fn chess960_suite_magic() {
    assert!(check_suite::<Magic>(1_000_000) > 3700);
}

#[test]
fn chess960_suite_classical() {
    assert!(check_suite::<Classical>(1_000_000) > 3700);
}

#[cfg(target_arch = "x86_64")]
#[test]
fn chess960_suite_pext() {
    if !perft::attacks::Pext::available() {
        eprintln!("skipped: this CPU has no BMI2");
        return;
    }
    assert!(check_suite::<perft::attacks::Pext>(1_000_000) > 3700);
}

#[test]
fn fen_round_trip_keeps_the_castling_notation() {
    for entry in common::suite("suites/chess960.epd") {
        let pos = parse_position(&entry, false).unwrap();
        assert_eq!(pos.to_fen(), entry.fen, "line {}", entry.line);
    }
    // X-FEN with --chess960: KQkq for the outermost rooks, a file letter for an inner one.
    let xfen = "rk2r3/8/8/8/8/8/8/RK2R3 w KQkq - 0 1";
    let pos = Position::from_fen_with(xfen, true).unwrap();
    assert_eq!(pos.to_fen(), xfen);
    let inner = "r1r1k1r1/8/8/8/8/8/8/R1R1K1R1 w Cc - 0 1";
    let pos = Position::from_fen_with(inner, true).unwrap();
    assert_eq!(pos.to_fen(), inner, "an inner rook keeps its file letter");
}

fn ucis(pos: &Position) -> Vec<String> {
    let mut v: Vec<String> = legal_moves::<Magic>(pos)
        .iter()
        .map(|m| m.to_uci(pos.is_chess960()))
        .collect();
    v.sort();
    v
}

#[test]
fn castling_prints_king_takes_rook_in_chess960_and_king_move_otherwise() {
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    let standard = ucis(&Position::from_fen(fen).unwrap());
    assert!(standard.contains(&"e1g1".into()) && standard.contains(&"e1c1".into()));
    let chess960 = ucis(&Position::from_fen_with(fen, true).unwrap());
    assert!(chess960.contains(&"e1h1".into()) && chess960.contains(&"e1a1".into()));
    assert!(
        !chess960.contains(&"e1g1".into()),
        "e1g1 would be an ordinary king move only"
    );
}

#[test]
fn king_and_rook_may_swap_or_stay() {
    // King g1, rook h1: castling h-side leaves the king on g1 and puts the rook on f1.
    let pos = Position::from_fen_with("6k1/8/8/8/8/8/8/6KR w H - 0 1", true).unwrap();
    assert!(ucis(&pos).contains(&"g1h1".into()));
    // King b1, rook a1: a-side castling puts the king on c1 and the rook on d1.
    let mut pos = Position::from_fen_with("6k1/8/8/8/8/8/8/RK6 w A - 0 1", true).unwrap();
    let mv = *legal_moves::<Magic>(&pos)
        .iter()
        .find(|m| m.to_uci(true) == "b1a1")
        .unwrap();
    pos.make(mv);
    assert_eq!(pos.to_fen(), "6k1/8/8/8/8/8/8/2KR4 b - - 1 1");
}

#[test]
fn castling_rook_that_shields_the_king_destination() {
    // King d1 castles a-side with the rook on b1: the king lands on c1, which the queen on a1
    // attacks once the rook has left b1. Illegal.
    let pos = Position::from_fen_with("6k1/8/8/8/8/8/8/qR1K4 w B - 0 1", true).unwrap();
    assert!(!ucis(&pos).iter().any(|m| m == "d1b1"), "{:?}", ucis(&pos));
    // Without the queen it is legal.
    let pos = Position::from_fen_with("6k1/8/8/8/8/8/8/1R1K4 w B - 0 1", true).unwrap();
    assert!(ucis(&pos).iter().any(|m| m == "d1b1"));
}

#[test]
fn castling_blocked_by_a_piece_on_the_rook_path() {
    // King f1, rook h1 (king-side): path g1 for both; a knight on g1 blocks it.
    let pos = Position::from_fen_with("6k1/8/8/8/8/8/8/5KNR w H - 0 1", true).unwrap();
    assert!(!ucis(&pos).iter().any(|m| m == "f1h1"));
    // King b1, rook a1 castling a-side: the rook goes to d1, so a piece on d1 blocks it even
    // though the king only passes c1.
    let pos = Position::from_fen_with("6k1/8/8/8/8/8/8/RK1N4 w A - 0 1", true).unwrap();
    assert!(!ucis(&pos).iter().any(|m| m == "b1a1"));
}
