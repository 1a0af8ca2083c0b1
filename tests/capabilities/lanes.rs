//! The set-wise counters (eight boards at once in AVX-512 lanes, four in AVX2 lanes) against the
//! one-board counter, board by board, on every position within a few plies of each suite
//! position (standard and Chess960): each kind of lanes this CPU runs.
#![cfg(target_arch = "x86_64")]

use crate::{common, paths};

use perft::cpu::{Simd, SimdKind};
use perft::lanes::count_each;
use perft::movegen::{count_legal_on, legal_moves};
use perft::position::Board;
use perft::{Magic, Position};

/// Compares the two counters on the children of every node of `pos` down to `depth`; returns
/// the number of boards compared.
fn check_tree(simd: Simd, pos: &mut Position, depth: u32, name: &str) -> u64 {
    let moves = legal_moves::<Magic>(pos);
    let mut children: Vec<Board> = Vec::new();
    for &mv in moves.iter() {
        children.push(pos.board_after(mv));
    }
    let paths = *pos.castle_path_table();
    let mut compared = 0;
    let counts = count_each::<Magic>(simd, &children, &paths).expect("lanes of this kind");
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
            compared += check_tree(simd, pos, depth - 1, name);
            pos.unmake(mv, &undo);
        }
    }
    compared
}

/// Every suite's trees through the lanes of `kind`, if this CPU runs them.
fn lanes_agree_with_the_one_board_counter(kind: SimdKind) {
    let Ok(simd) = Simd::new(kind) else {
        eprintln!("skipped: this CPU does not run the {} lanes", kind.name());
        return;
    };
    let mut total = 0;
    for (suite, chess960) in [
        ("suites/standard.epd", false),
        ("tests/data/perftsuite.epd", false),
        ("suites/tricky.epd", false),
        ("suites/chess960.epd", true),
    ] {
        for entry in common::suite(suite) {
            let mut pos = Position::from_fen_with(&entry.fen, chess960).expect("suite FEN parses");
            total += check_tree(simd, &mut pos, 3, &entry.name());
        }
    }
    assert!(total > 1_000_000, "only {total} boards compared");
    paths::ran(paths::of_simd(simd));
}

#[test]
fn avx512_lanes_agree_with_the_one_board_counter_on_every_suite() {
    lanes_agree_with_the_one_board_counter(SimdKind::Avx512);
}

#[test]
fn avx2_lanes_agree_with_the_one_board_counter_on_every_suite() {
    lanes_agree_with_the_one_board_counter(SimdKind::Avx2);
}
