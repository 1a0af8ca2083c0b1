//! Differential testing against shakmaty (the move generator behind lichess), an independent
//! implementation: seeded random playouts from the start position and from Chess960 positions,
//! biased towards captures, promotions, en passant, castling and checks. At every position the
//! sets of legal moves (UCI) must be identical, and at every fourth perft 1 to 3 must agree.
//!
//! `cargo test --release --test differential -- --ignored` runs a hundred times more.

mod common;

use perft::attacks::magic::Prng;
use perft::movegen::legal_moves;
use perft::perft::{Counting, Options, perft, perft_with};
use perft::{Magic, MoveKind, Position};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position as _};

const TWO_THREADS: Options<'static> = Options {
    counting: Counting::Bulk,
    threads: 2,
    table: None,
};

#[derive(Default, Debug)]
struct Seen {
    positions: u64,
    perfts: u64,
    en_passant: u64,
    promotions: u64,
    castling: u64,
    checks: u64,
}

fn mode(chess960: bool) -> CastlingMode {
    if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    }
}

fn theirs_moves(pos: &Chess, chess960: bool) -> Vec<String> {
    let mut v: Vec<String> = pos
        .legal_moves()
        .iter()
        .map(|m| m.to_uci(mode(chess960)).to_string())
        .collect();
    v.sort();
    v
}

fn playout(fen: &str, chess960: bool, plies: u32, rng: &mut Prng, seen: &mut Seen) {
    let mut ours = Position::from_fen_with(fen, chess960).unwrap();
    // shakmaty refuses some unreachable positions we accept (impossible checks): skip those.
    let Some(mut theirs) = Fen::from_ascii(fen.as_bytes())
        .ok()
        .and_then(|f| f.into_position::<Chess>(mode(chess960)).ok())
    else {
        return;
    };
    let mut history = Vec::new();
    for _ in 0..plies {
        let list = legal_moves::<Magic>(&ours);
        let mut ucis: Vec<String> = list.iter().map(|m| m.to_uci(chess960)).collect();
        ucis.sort();
        let expected = theirs_moves(&theirs, chess960);
        assert_eq!(
            ucis,
            expected,
            "move lists differ after {history:?} from {fen}\nours: {}",
            ours.to_fen()
        );
        seen.positions += 1;
        if ours.in_check() {
            seen.checks += 1;
        }
        for m in list.iter() {
            match m.kind() {
                MoveKind::EnPassant => seen.en_passant += 1,
                MoveKind::Promotion | MoveKind::PromotionCapture => seen.promotions += 1,
                MoveKind::Castle => seen.castling += 1,
                _ => {}
            }
        }
        if seen.positions.is_multiple_of(4) {
            for depth in 1..=3 {
                let a = perft::<Magic>(&mut ours, depth, Counting::Bulk);
                let b = shakmaty::perft(&theirs, depth);
                assert_eq!(
                    a,
                    b,
                    "perft {depth} differs after {history:?} from {fen}: {}",
                    ours.to_fen()
                );
                // The threaded driver too (it splits the tree into tasks, see issue 18).
                let threaded = perft_with::<Magic>(&ours, depth, TWO_THREADS);
                assert_eq!(
                    threaded,
                    b,
                    "perft {depth} with 2 threads differs after {history:?} from {fen}: {}",
                    ours.to_fen()
                );
            }
            seen.perfts += 1;
        }
        if list.is_empty() {
            break;
        }
        // Castle or take en passant whenever possible (half the time); otherwise, half the time,
        // pick among the moves that make positions interesting, double pushes included since
        // they create en-passant chances.
        let special: Vec<_> = list
            .iter()
            .copied()
            .filter(|m| matches!(m.kind(), MoveKind::Castle | MoveKind::EnPassant))
            .collect();
        let interesting: Vec<_> = list
            .iter()
            .copied()
            .filter(|m| {
                m.is_capture() || m.promotion_piece().is_some() || m.kind() == MoveKind::DoublePush
            })
            .collect();
        let coin = rng.next_u64() % 4;
        let pool: Vec<_> = if !special.is_empty() && coin < 2 {
            special
        } else if !interesting.is_empty() && coin < 3 {
            interesting
        } else {
            list.to_vec()
        };
        let mv = pool[(rng.next_u64() % pool.len() as u64) as usize];
        let uci = mv.to_uci(chess960);
        let their_move = UciMove::from_ascii(uci.as_bytes())
            .unwrap()
            .to_move(&theirs)
            .unwrap();
        theirs.play_unchecked(their_move);
        ours.make(mv);
        history.push(uci);
        assert_eq!(ours.key(), ours.compute_key());
        // Same pieces, side to move and castling rights on both sides.
        let their_fen = Fen::from_position(&theirs, shakmaty::EnPassantMode::Legal).to_string();
        let a: Vec<&str> = their_fen.split(' ').take(2).collect();
        let ours_fen = ours.to_fen();
        let b: Vec<&str> = ours_fen.split(' ').take(2).collect();
        assert_eq!(a, b, "after {history:?} from {fen}");
    }
}

fn run(rounds: u32, seed: u64) -> Seen {
    let mut rng = Prng::new(seed);
    let mut seen = Seen::default();
    let chess960: Vec<String> = common::suite("chess960.epd")
        .into_iter()
        .map(|e| e.fen)
        .collect();
    let tricky: Vec<String> = common::suite("tricky.epd")
        .into_iter()
        .map(|e| e.fen)
        .collect();
    let suite: Vec<String> = common::suite("perftsuite.epd")
        .into_iter()
        .map(|e| e.fen)
        .collect();
    for round in 0..rounds {
        playout(perft::position::STARTPOS, false, 80, &mut rng, &mut seen);
        let fen = &chess960[(rng.next_u64() % 960) as usize];
        playout(fen, true, 80, &mut rng, &mut seen);
        let fen = &suite[(rng.next_u64() % suite.len() as u64) as usize];
        playout(fen, false, 60, &mut rng, &mut seen);
        let fen = &tricky[(round as usize * 7) % tricky.len()];
        playout(fen, false, 100, &mut rng, &mut seen);
    }
    seen
}

#[test]
fn random_playouts_agree_with_shakmaty() {
    let seen = run(80, 0xD1FF);
    eprintln!("{seen:?}");
    assert!(seen.positions > 20_000, "{seen:?}");
    assert!(seen.perfts > 5_000, "{seen:?}");
    assert!(seen.en_passant > 150 && seen.promotions > 400, "{seen:?}");
    assert!(seen.castling > 250 && seen.checks > 800, "{seen:?}");
}

#[test]
#[ignore = "long run: a hundred times the CI run"]
fn long_random_playouts_agree_with_shakmaty() {
    let seen = run(8_000, 0x10_D1FF);
    eprintln!("{seen:?}");
    assert!(seen.positions > 500_000, "{seen:?}");
}
