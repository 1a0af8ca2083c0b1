//! The set-wise counter of eight boards at once against the one-board counter, board by board,
//! on every position within a few plies of each suite position (standard and Chess960).
#![cfg(target_arch = "x86_64")]

mod common;

use perft::movegen::{count_legal_on, legal_moves};
use perft::position::Board;
use perft::setwise::count_each;
use perft::{Magic, Position};

/// Compares the two counters on the children of every node of `pos` down to `depth`; returns
/// the number of boards compared.
fn check_tree(pos: &mut Position, depth: u32, name: &str) -> u64 {
    let moves = legal_moves::<Magic>(pos);
    let mut children: Vec<Board> = Vec::new();
    for &mv in moves.iter() {
        children.push(pos.board_after(mv));
    }
    let paths = *pos.castle_path_table();
    let mut compared = 0;
    let counts = count_each::<Magic>(&children, &paths).expect("no AVX-512 here");
    for (i, b) in children.iter().enumerate() {
        let want = count_legal_on::<Magic>(b, &paths);
        assert_eq!(
            counts[i],
            want,
            "{name}: board {i} of a batch under {}",
            pos.to_fen()
        );
        compared += 1;
    }
    if depth > 1 {
        for &mv in moves.iter() {
            let undo = pos.make(mv);
            compared += check_tree(pos, depth - 1, name);
            pos.unmake(mv, &undo);
        }
    }
    compared
}

#[test]
fn agrees_with_the_one_board_counter_on_every_suite() {
    if !perft::cpu::has_avx512_lanes() {
        eprintln!("skipped: this CPU has not the AVX-512 (F, CD, VPOPCNTDQ) the lanes need");
        return;
    }
    let mut total = 0;
    for (suite, chess960) in [
        ("standard.epd", false),
        ("perftsuite.epd", false),
        ("tricky.epd", false),
        ("chess960.epd", true),
    ] {
        for entry in common::suite(suite) {
            let mut pos = Position::from_fen_with(&entry.fen, chess960).expect("suite FEN parses");
            total += check_tree(&mut pos, 3, &entry.name());
        }
    }
    assert!(total > 1_000_000, "only {total} boards compared");
}
