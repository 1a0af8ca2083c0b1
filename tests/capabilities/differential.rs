//! Differential testing against shakmaty (the move generator behind lichess), an independent
//! implementation: seeded random playouts from the start position and from Chess960 positions,
//! biased towards captures, promotions, en passant, castling and checks. At every position the
//! sets of legal moves (UCI) must be identical, and at every fourth perft 1 to 3 must agree.
//!
//! Random piece placements, every suite position shakmaty's strict validation refuses
//! (unreachable ones: impossible checks, too much material; shakmaty told to accept them) and
//! every eighth position of the playouts are counted through every way we count, with every
//! slider kind the CPU runs: the default threaded path, a table (one thread and two), each
//! last-ply code (each kind of lanes, the x86-64-v3 copy one board at a time, the baseline
//! copy, each with and without a table), no bulk.
//!
//! `cargo test --release --test capabilities differential -- --ignored` runs a hundred times more.

use crate::common;

#[cfg(target_arch = "x86_64")]
use perft::attacks::Pext;
use perft::attacks::magic::Prng;
use perft::cpu::{Simd, SimdKind};
use perft::movegen::legal_moves;
use perft::perft::{Counting, Perft};
use perft::tt::Table;
use perft::{Classical, Magic, MoveKind, Nodes, Position, Sliders};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position as _};

/// Two threads, no table, the widest last-ply code this CPU runs.
fn two_threads() -> Perft<'static> {
    Perft::new().threads(2)
}

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
                let a = Perft::new().total::<Magic>(&ours, depth);
                let b = shakmaty::perft(&theirs, depth);
                assert_eq!(
                    a,
                    b,
                    "perft {depth} differs after {history:?} from {fen}: {}",
                    ours.to_fen()
                );
                // The threaded driver too (it splits the tree into tasks).
                let threaded = two_threads().total::<Magic>(&ours, depth);
                assert_eq!(
                    threaded,
                    b,
                    "perft {depth} with 2 threads differs after {history:?} from {fen}: {}",
                    ours.to_fen()
                );
                // Every eighth such position, every way we count with every slider kind.
                if seen.positions.is_multiple_of(32) {
                    every_way_counts(&ours, depth, b, "playout");
                }
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
    let chess960: Vec<String> = common::suite("suites/chess960.epd")
        .into_iter()
        .map(|e| e.fen)
        .collect();
    let tricky: Vec<String> = common::suite("suites/tricky.epd")
        .into_iter()
        .map(|e| e.fen)
        .collect();
    let suite: Vec<String> = common::suite("tests/data/perftsuite.epd")
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
    let share = common::share();
    let seen = run(80 / share as u32, 0xD1FF);
    eprintln!("{seen:?}");
    assert!(seen.positions > 20_000 / share, "{seen:?}");
    assert!(seen.perfts > 5_000 / share, "{seen:?}");
    assert!(
        seen.en_passant > 150 / share && seen.promotions > 400 / share,
        "{seen:?}"
    );
    assert!(
        seen.castling > 250 / share && seen.checks > 800 / share,
        "{seen:?}"
    );
}

#[test]
#[ignore = "long run: a hundred times the CI run"]
fn long_random_playouts_agree_with_shakmaty() {
    let seen = run(8_000, 0x10_D1FF);
    eprintln!("{seen:?}");
    assert!(seen.positions > 500_000, "{seen:?}");
}

/// shakmaty's position for a FEN we accept, told to accept the two kinds of unreachable
/// position its strict validation refuses (an impossible check, too much material); the
/// reason when it still refuses.
fn theirs_lenient(fen: &str, chess960: bool) -> Result<Chess, String> {
    let setup = Fen::from_ascii(fen.as_bytes()).map_err(|e| e.to_string())?;
    match setup.into_position::<Chess>(mode(chess960)) {
        Ok(pos) => Ok(pos),
        Err(e) => match e.ignore_impossible_check() {
            Ok(pos) => Ok(pos),
            Err(e) => e.ignore_too_much_material().map_err(|e| e.to_string()),
        },
    }
}

/// Whether shakmaty's strict validation accepts `fen` (a position reachable as far as it sees).
fn strictly_accepted(fen: &str, chess960: bool) -> bool {
    Fen::from_ascii(fen.as_bytes())
        .ok()
        .and_then(|f| f.into_position::<Chess>(mode(chess960)).ok())
        .is_some()
}

/// Perft of `pos` to `depth` in every way we count, with every slider kind this CPU runs (the
/// PEXT sliders only where it has BMI2: elsewhere they are not compared, not faked), each
/// checked against `want` (shakmaty's count).
fn every_way_counts(pos: &Position, depth: u32, want: u64, what: &str) {
    every_way_counts_with::<Magic>(pos, depth, want, what);
    every_way_counts_with::<Classical>(pos, depth, want, what);
    #[cfg(target_arch = "x86_64")]
    if Pext::available() {
        every_way_counts_with::<Pext>(pos, depth, want, what);
    }
}

/// [`every_way_counts`] with the sliders `S`: the default path with two threads (split into
/// tasks, the widest last-ply code), one thread and two with a tiny shared table, every
/// last-ply code the CPU runs (each `--simd`, and `--no-lanes`: the widest copy one board at a
/// time) with and without a table, and no bulk counting.
fn every_way_counts_with<S: Sliders>(pos: &Position, depth: u32, want: u64, what: &str) {
    let want = Nodes::from(want);
    let table = Table::new(1).unwrap();
    let hashed = Perft::new().table(Some(&table));
    let p = pos.clone();
    let ways: [(&str, Nodes); 4] = [
        ("default, 2 threads", two_threads().total::<S>(pos, depth)),
        ("hashed", hashed.total::<S>(pos, depth)),
        (
            "hashed, 2 threads",
            hashed.threads(2).total::<S>(pos, depth),
        ),
        (
            "no bulk",
            Perft::new()
                .counting(Counting::NoBulk)
                .total::<S>(&p, depth),
        ),
    ];
    for (way, n) in ways {
        assert_eq!(
            n,
            want,
            "{what}: perft {depth} ({way}, {} sliders) of {}",
            S::NAME,
            pos.to_fen()
        );
    }
    let lanes = [SimdKind::Avx512, SimdKind::Avx2, SimdKind::None];
    let codes = lanes.iter().filter_map(|&k| Simd::new(k).ok());
    for simd in codes.chain([Simd::one_board()]) {
        for table in [None, Some(&table)] {
            let opts = Perft::new().simd(simd).table(table);
            let n = opts.total::<S>(pos, depth);
            assert_eq!(
                n,
                want,
                "{what}: perft {depth} ({} sliders, simd {}, table {}) of {}",
                S::NAME,
                simd.describe(),
                table.is_some(),
                pos.to_fen()
            );
        }
    }
    assert_eq!(&p, pos, "counting restored the position");
}

/// Random placements (two kings and up to 24 pieces anywhere, castling rights and en-passant
/// squares where the parser allows them): most are unreachable in a game, the positions where
/// generators break. Perft 1 to 3 of each, and 4 of every tenth, must be shakmaty's.
#[test]
fn random_placements_count_as_shakmaty_counts() {
    let (mut compared, mut checks, mut refused) = (0, 0, Vec::new());
    let share = common::share();
    for seed in (0..2400u64).step_by(share as usize) {
        let Some(ours) = common::placed(0x91AC_E000 + seed) else {
            continue;
        };
        let fen = ours.to_fen();
        let theirs = match theirs_lenient(&fen, false) {
            Ok(theirs) => theirs,
            Err(why) => {
                refused.push(format!("{fen}: {why}"));
                continue;
            }
        };
        let deepest = if seed % 10 == 0 { 4 } else { 3 };
        for depth in 1..=deepest {
            let want = shakmaty::perft(&theirs, depth);
            every_way_counts(&ours, depth, want, "random placement");
        }
        compared += 1;
        checks += u32::from(ours.in_check());
    }
    // Positions our parser accepts and shakmaty refuses even when told to accept unreachable
    // ones would be positions we call legal and it does not: there must be none.
    assert!(refused.is_empty(), "shakmaty refuses: {refused:#?}");
    assert!(
        compared > 1300 / share && u64::from(checks) > 300 / share,
        "{compared} compared, {checks} in check"
    );
}

/// Every suite position shakmaty's strict validation refuses is counted by both to every depth
/// the suite gives (up to ten million nodes), and the suite's published count agrees.
#[test]
fn every_unreachable_suite_position_counts_as_shakmaty_counts() {
    let mut compared = Vec::new();
    for (name, chess960) in [
        ("suites/standard.epd", false),
        ("tests/data/perftsuite.epd", false),
        ("suites/tricky.epd", false),
        ("tests/data/terminal.epd", false),
        ("suites/chess960.epd", true),
    ] {
        for entry in common::suite(name) {
            if strictly_accepted(&entry.fen, chess960) {
                continue;
            }
            let theirs = theirs_lenient(&entry.fen, chess960)
                .unwrap_or_else(|why| panic!("{name}: {}: {why}", entry.fen));
            let ours = Position::from_fen_with(&entry.fen, chess960).unwrap();
            for &(depth, published) in &entry.counts {
                if published > Nodes::from(10_000_000 / common::share()) {
                    continue;
                }
                let want = shakmaty::perft(&theirs, depth);
                assert_eq!(
                    Nodes::from(want),
                    published,
                    "{name}: {} depth {depth}",
                    entry.fen
                );
                every_way_counts(&ours, depth, want, name);
            }
            compared.push(entry.fen);
        }
    }
    // tricky.epd's [S] 'unreachable' section has eight positions, each with a check no move
    // could have given.
    assert!(compared.len() >= 8, "{compared:#?}");
}
