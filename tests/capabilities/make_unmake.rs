//! Make and unmake restore every position of a depth-3 walk from each suite position exactly,
//! Zobrist key included, the incremental key always equals the key computed from scratch, and
//! `Position::key_after` gives the key make reaches.
//! The board perft's last ply plays a move on equals the board make gives.

use crate::common;

use perft::movegen::legal_moves;
use perft::suite::parse_position;
use perft::{Magic, Position};

/// Walks every legal line to `depth`, checking each make/unmake pair. Returns positions visited.
fn walk(pos: &mut Position, depth: u32) -> u64 {
    assert_eq!(
        pos.key(),
        pos.compute_key(),
        "incremental key differs in {}",
        pos.to_fen()
    );
    if depth == 0 {
        return 1;
    }
    let mut visited = 1;
    for &mv in &legal_moves::<Magic>(pos) {
        let before = pos.clone();
        // The board perft's last ply plays the move on must be the board make gives.
        let board = pos.board_after(mv);
        let key_after = pos.key_after(mv);
        let undo = pos.make(mv);
        assert_eq!(
            key_after,
            pos.key(),
            "key_after({mv:?}) differs from make in {}",
            before.to_fen()
        );
        assert_eq!(
            &board,
            pos.board(),
            "board_after({mv:?}) differs from make in {}",
            before.to_fen()
        );
        assert_ne!(
            pos.key(),
            before.key(),
            "key unchanged by {mv:?} in {}",
            before.to_fen()
        );
        visited += walk(pos, depth - 1);
        pos.unmake(mv, &undo);
        assert_eq!(
            *pos,
            before,
            "unmake of {mv:?} did not restore {}",
            before.to_fen()
        );
    }
    visited
}

#[test]
fn depth_3_walk_from_every_suite_position() {
    let mut visited = 0;
    for name in common::STANDARD_SUITES {
        for entry in common::suite(name) {
            let mut pos = Position::from_fen(&entry.fen).unwrap();
            visited += walk(&mut pos, 3);
        }
    }
    assert!(visited > 1_000_000, "visited only {visited}");
}

/// Chess960 castling moves king and rook onto each other's squares, which the standard suites
/// never do: a depth-2 walk from every Chess960 suite position.
#[test]
fn depth_2_walk_from_every_chess960_position() {
    let mut visited = 0;
    for entry in common::suite("suites/chess960.epd") {
        let mut pos = parse_position(&entry, false).unwrap();
        visited += walk(&mut pos, 2);
    }
    assert!(visited > 500_000, "visited only {visited}");
}

/// The same position reached by two move orders has the same key.
#[test]
fn transpositions_share_a_key() {
    let play = |moves: &[&str]| {
        let mut pos = Position::startpos();
        for uci in moves {
            let mv = *legal_moves::<Magic>(&pos)
                .iter()
                .find(|m| m.to_uci(false) == *uci)
                .unwrap();
            pos.make(mv);
        }
        pos
    };
    let a = play(&["g1f3", "g8f6", "b1c3", "b8c6"]);
    let b = play(&["b1c3", "b8c6", "g1f3", "g8f6"]);
    assert_eq!(a.key(), b.key());
    assert_eq!(a.to_fen(), b.to_fen());
}

/// The halfmove clock counts since the last capture or pawn move; the fullmove number goes up
/// after Black moves.
#[test]
fn move_counters() {
    let after = |fen: &str, uci: &str| {
        let mut pos = Position::from_fen(fen).unwrap();
        perft::movegen::play_uci_moves(&mut pos, [uci]).unwrap();
        pos.to_fen()
    };
    let fen = "4k3/8/8/8/8/8/R6r/4K3 w - - 7 9";
    assert!(after(fen, "a2a3").ends_with(" b - - 8 9"), "quiet move");
    assert!(after(fen, "a2h2").ends_with(" b - - 0 9"), "capture");
    let fen = "4k3/4p3/8/8/8/8/R7/4K3 b - - 7 9";
    assert!(
        after(fen, "e7e6").ends_with(" w - - 0 10"),
        "pawn move, after Black"
    );
    assert!(
        after(fen, "e8d8").ends_with(" w - - 8 10"),
        "king move, after Black"
    );
}
