//! Perft: the number of leaf nodes of the legal move tree to a fixed depth.

use crate::attacks::Sliders;
use crate::movegen::{self, MoveList};
use crate::position::Position;
use crate::types::Move;

/// How the last ply is counted.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Counting {
    /// At depth 1, count the legal moves without making them (the usual perft).
    Bulk,
    /// Make every move down to depth 0 and count 1 per leaf: exercises make/unmake everywhere.
    NoBulk,
}

/// Perft of `pos` to `depth` plies (`depth` 0 is one node). The position is restored on return.
pub fn perft<S: Sliders>(pos: &mut Position, depth: u32, counting: Counting) -> u64 {
    match counting {
        Counting::Bulk => perft_bulk::<S>(pos, depth),
        Counting::NoBulk => perft_no_bulk::<S>(pos, depth),
    }
}

/// Perft with bulk counting at the last ply.
pub fn perft_bulk<S: Sliders>(pos: &mut Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => movegen::count_legal::<S>(pos),
        _ => bulk_inner::<S>(pos, depth),
    }
}

/// `depth >= 2`.
fn bulk_inner<S: Sliders>(pos: &mut Position, depth: u32) -> u64 {
    // Filled in place: returning the list by value would copy its whole array.
    let mut moves = MoveList::new();
    movegen::generate::<S, MoveList, true>(pos, &mut moves);
    let mut nodes = 0;
    for &mv in &moves {
        let undo = pos.make(mv);
        nodes += if depth == 2 {
            movegen::count_legal::<S>(pos)
        } else {
            bulk_inner::<S>(pos, depth - 1)
        };
        pos.unmake(mv, &undo);
    }
    nodes
}

/// Perft without bulk counting: every move is made, down to depth 0.
pub fn perft_no_bulk<S: Sliders>(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = MoveList::new();
    movegen::generate::<S, MoveList, true>(pos, &mut moves);
    let mut nodes = 0;
    for &mv in &moves {
        let undo = pos.make(mv);
        nodes += perft_no_bulk::<S>(pos, depth - 1);
        pos.unmake(mv, &undo);
    }
    nodes
}

/// The perft count under each legal root move (`depth` >= 1), in generation order.
pub fn divide<S: Sliders>(pos: &mut Position, depth: u32, counting: Counting) -> Vec<(Move, u64)> {
    let moves: MoveList = movegen::legal_moves::<S>(pos);
    moves
        .iter()
        .map(|&mv| {
            let undo = pos.make(mv);
            let n = perft::<S>(pos, depth.saturating_sub(1), counting);
            pos.unmake(mv, &undo);
            (mv, n)
        })
        .collect()
}
