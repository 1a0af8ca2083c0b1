//! Property tests (proptest) over positions reached by random play and over random piece
//! placements (mostly unreachable, which is where generators break).

use crate::common;

use perft::attacks::magic::Prng;
use perft::movegen::{
    MoveList, count_legal_on, generate_on, is_legal_by_make, legal_moves, parse_uci_move,
    pseudo_legal_moves,
};
use perft::perft::{Counting, Perft};
use perft::{Classical, Magic, Move, Position, Square};
use proptest::prelude::*;
use std::collections::BTreeSet;

/// The position after `plies` random legal moves from the start position.
fn played(seed: u64, plies: u32) -> Position {
    let mut rng = Prng::new(seed);
    let mut pos = Position::startpos();
    for _ in 0..plies {
        let moves = legal_moves::<Magic>(&pos);
        if moves.is_empty() {
            break;
        }
        pos.make(moves[(rng.next_u64() % moves.len() as u64) as usize]);
    }
    pos
}

fn any_position() -> impl Strategy<Value = Position> {
    prop_oneof![
        (any::<u64>(), 0u32..120).prop_map(|(seed, plies)| played(seed, plies)),
        any::<u64>().prop_filter_map("parser rejected the placement", common::placed),
    ]
}

fn triples(moves: impl IntoIterator<Item = Move>) -> BTreeSet<(Square, Square, Option<char>)> {
    moves
        .into_iter()
        .map(|m| (m.from(), m.to(), m.promotion_piece().map(|p| p.letter())))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn fen_print_then_parse_gives_the_same_position(pos in any_position()) {
        let fen = pos.to_fen();
        let again = Position::from_fen_with(&fen, pos.is_chess960()).unwrap();
        prop_assert_eq!(&again, &pos);
        prop_assert_eq!(again.to_fen(), fen);
    }

    #[test]
    fn make_then_unmake_restores_position_and_key(pos in any_position()) {
        let mut p = pos.clone();
        for mv in legal_moves::<Magic>(&pos).iter().copied() {
            let undo = p.make(mv);
            prop_assert_eq!(p.key(), p.compute_key(), "after {:?} in {}", mv, pos.to_fen());
            p.unmake(mv, &undo);
            prop_assert_eq!(&p, &pos);
        }
    }

    #[test]
    fn the_board_after_a_move_generates_what_make_does(pos in any_position()) {
        let mut p = pos.clone();
        for mv in legal_moves::<Magic>(&pos).iter().copied() {
            let board = pos.board_after(mv);
            let mut light = MoveList::new();
            generate_on::<Magic, MoveList, true>(&board, pos.castle_path_table(), &mut light);
            let counted = count_legal_on::<Magic>(&board, pos.castle_path_table());
            let undo = p.make(mv);
            prop_assert_eq!(&board, p.board(), "after {:?} in {}", mv, pos.to_fen());
            let full = legal_moves::<Magic>(&p);
            prop_assert_eq!(light.as_slice(), full.as_slice(),
                "after {:?} in {}", mv, pos.to_fen());
            prop_assert_eq!(counted, light.len() as u64);
            p.unmake(mv, &undo);
        }
    }

    #[test]
    fn incremental_key_equals_key_from_scratch(seed in any::<u64>(), plies in 0u32..200) {
        let pos = played(seed, plies);
        prop_assert_eq!(pos.key(), pos.compute_key());
        let parsed = Position::from_fen(&pos.to_fen()).unwrap();
        prop_assert_eq!(parsed.key(), pos.key());
    }

    /// The generator's legal moves are exactly the pseudo-legal moves whose making leaves the
    /// king safe (the slow, obvious test), and the UCI parser accepts a from/to/promotion triple
    /// exactly when it names one of them, over all 64 x 64 x 5 triples.
    #[test]
    fn a_move_is_generated_exactly_when_the_legality_check_accepts_it(pos in any_position()) {
        let legal = triples(legal_moves::<Magic>(&pos).iter().copied());
        let mut p = pos.clone();
        let by_make: Vec<Move> = pseudo_legal_moves::<Classical>(&pos)
            .iter()
            .copied()
            .filter(|&m| is_legal_by_make::<Classical>(&mut p, m))
            .collect();
        prop_assert_eq!(&legal, &triples(by_make), "{}", pos.to_fen());
        prop_assert_eq!(&legal, &triples(legal_moves::<Classical>(&pos).iter().copied()));
        for from in Square::ALL {
            for to in Square::ALL {
                for promo in [None, Some('n'), Some('b'), Some('r'), Some('q')] {
                    let uci = format!("{from}{to}{}", promo.map(String::from).unwrap_or_default());
                    // Castling can be named by the king's destination (standard chess): map it.
                    let parsed = parse_uci_move::<Magic>(&pos, &uci).ok();
                    if let Some(m) = parsed {
                        prop_assert!(legal.contains(&(m.from(), m.to(), promo)), "{} {}", uci, pos.to_fen());
                    } else {
                        prop_assert!(!legal.contains(&(from, to, promo)), "{} rejected in {}", uci, pos.to_fen());
                    }
                }
            }
        }
    }

    /// A bulk count leaves unplayed the moves that cannot change the opponent's replies and
    /// counts the replies of the board with no move made for each of them: two and three plies
    /// deep, that must give what making every move and counting every leaf gives.
    #[test]
    fn moves_left_unplayed_count_as_if_played(pos in any_position()) {
        for depth in [2, 3] {
            let bulk = Perft::new().total::<Magic>(&pos, depth);
            let each = Perft::new().counting(Counting::NoBulk).total::<Magic>(&pos, depth);
            prop_assert_eq!(bulk, each, "depth {} of {}", depth, pos.to_fen());
        }
    }
}
