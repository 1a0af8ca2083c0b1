//! The library's validation of another generator (`perft::validate`), as an author calls it from
//! their own tests. The generator under test is shakmaty (independent of this library): as it
//! is, it passes every suite the library carries; with one rule broken on purpose, the check
//! fails and the descent stops at a position where that rule applies, naming the moves it
//! missed or invented with their rule's class.

use perft::validate::{
    self, Divide, Failure, Generator, Limits, MoveClass, Outcome, Query, Suite, SuiteReport,
};
use perft::{Nodes, Position};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Move, Position as _, Role};

const SMALL: Limits = Limits {
    max_depth: 4,
    max_nodes: 200_000,
};

/// shakmaty's position for `fen`, accepting the unreachable positions of the tricky suite
/// (impossible checks, too much material) that its strict validation refuses.
fn shakmaty_position(fen: &str, chess960: bool) -> Chess {
    let mode = if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    let setup = Fen::from_ascii(fen.as_bytes()).expect("shakmaty reads our FEN");
    match setup.into_position::<Chess>(mode) {
        Ok(pos) => pos,
        Err(e) => match e.ignore_impossible_check() {
            Ok(pos) => pos,
            Err(e) => e
                .ignore_too_much_material()
                .expect("shakmaty accepts the position leniently"),
        },
    }
}

/// shakmaty's legal moves of `fen` that `keep` keeps, in UCI notation.
fn shakmaty_moves(fen: &str, chess960: bool, keep: impl Fn(&Chess, &Move) -> bool) -> Vec<String> {
    let pos = shakmaty_position(fen, chess960);
    let mode = if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    pos.legal_moves()
        .iter()
        .filter(|m| keep(&pos, m))
        .map(|m| m.to_uci(mode).to_string())
        .collect()
}

/// The first `n` positions of a suite.
fn first(suite: &Suite<'static>, n: usize) -> String {
    let lines = suite
        .epd
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty());
    lines.take(n).collect::<Vec<_>>().join("\n")
}

/// The report's first failure, which must be a difference in the move lists: (missed,
/// invented) classes, after checking that the moves of the path lead to the FEN it names.
fn first_move_list_failure(
    result: &SuiteReport,
    chess960: bool,
) -> (Vec<MoveClass>, Vec<MoveClass>) {
    let (position, report) = result.first_failure().expect("the check fails");
    let Outcome::MoveListDiffers {
        moves,
        fen,
        missed,
        invented,
        ..
    } = &report.outcome
    else {
        panic!("{report}");
    };
    let mut pos = perft::suite::parse_position(
        &perft::epd::parse_str(&format!("{} ;D1 1", position.fen))[0]
            .clone()
            .expect("the suite's line reads"),
        chess960,
    )
    .expect("the suite's FEN reads");
    perft::movegen::play_uci_moves(&mut pos, moves.iter().map(String::as_str))
        .expect("the path is legal");
    assert_eq!(&pos.to_fen(), fen, "the path leads to the FEN reported");
    // The report prints the place and every move with its class.
    let text = report.to_string();
    assert!(text.contains(fen.as_str()), "{text}");
    for m in missed.iter().chain(invented) {
        assert!(
            text.contains(&format!("{} ({})", m.uci, m.class.name())),
            "{text}"
        );
    }
    (
        missed.iter().map(|m| m.class).collect(),
        invented.iter().map(|m| m.class).collect(),
    )
}

#[test]
fn an_independent_generator_passes_every_suite_the_library_carries() {
    let mut shakmaty = |fen: &str, chess960: bool| shakmaty_moves(fen, chess960, |_, _| true);
    let chess960 = first(&Suite::CHESS960, 24);
    for (name, suite) in [
        ("standard", Suite::STANDARD),
        ("tricky", Suite::TRICKY),
        (
            "chess960",
            Suite {
                epd: &chess960,
                chess960: true,
            },
        ),
    ] {
        let result = validate::check(&mut shakmaty, &suite, SMALL).expect("no fatal failure");
        assert!(result.passed(), "{name}:\n{result}");
        assert!(result.totals.positions >= 6, "{name}: {:?}", result.totals);
        // Most positions have a depth within the limits (the tricky suite lists some deep ones).
        let (run, positions) = (result.totals.checks_run, result.totals.positions);
        assert!(run * 10 >= positions * 9, "{name}: {:?}", result.totals);
    }
}

#[test]
fn a_generator_without_en_passant_misses_it_where_it_is_legal() {
    let mut broken =
        |fen: &str, chess960: bool| shakmaty_moves(fen, chess960, |_, m| !m.is_en_passant());
    let result = validate::check(&mut broken, &Suite::TRICKY, SMALL).unwrap();
    assert!(!result.passed());
    let (missed, invented) = first_move_list_failure(&result, false);
    assert!(
        missed.iter().all(|&c| c == MoveClass::EnPassant),
        "{missed:?}"
    );
    assert!(!missed.is_empty() && invented.is_empty());
}

#[test]
fn a_generator_that_only_promotes_to_a_queen_misses_the_underpromotions() {
    let mut broken = |fen: &str, chess960: bool| {
        shakmaty_moves(fen, chess960, |_, m| {
            matches!(m.promotion(), None | Some(Role::Queen))
        })
    };
    let result = validate::check(&mut broken, &Suite::STANDARD, SMALL).unwrap();
    let (missed, invented) = first_move_list_failure(&result, false);
    for class in missed.iter() {
        assert!(
            matches!(class, MoveClass::Promotion(k) if *k != perft::PieceKind::Queen),
            "{missed:?}"
        );
    }
    assert!(!missed.is_empty() && invented.is_empty());
}

#[test]
fn a_generator_that_castles_out_of_check_invents_castling() {
    // Castling whenever the right is there, even in check: the king's castling moves added to
    // shakmaty's where its king is attacked.
    let mut broken = |fen: &str, chess960: bool| {
        let mut moves = shakmaty_moves(fen, chess960, |_, _| true);
        let fields: Vec<&str> = fen.split(' ').collect();
        if shakmaty_position(fen, chess960).is_check() {
            let (side, rights) = (fields[1], fields[2]);
            for (right, uci) in [('K', "e1g1"), ('Q', "e1c1"), ('k', "e8g8"), ('q', "e8c8")] {
                if rights.contains(right) && right.is_ascii_uppercase() == (side == "w") {
                    moves.push(uci.to_string());
                }
            }
        }
        moves
    };
    let result = validate::check(&mut broken, &Suite::STANDARD, SMALL).unwrap();
    let (missed, invented) = first_move_list_failure(&result, false);
    assert!(missed.is_empty(), "{missed:?}");
    assert!(invented.iter().all(|&c| c == MoveClass::Castling) && !invented.is_empty());
}

#[test]
fn chess960_castling_written_the_standard_way_is_found() {
    // In Chess960 the king takes its own rook; a generator that writes the king's destination
    // instead has castling moves the check does not know.
    let mut broken = |fen: &str, chess960: bool| {
        let pos = shakmaty_position(fen, chess960);
        pos.legal_moves()
            .iter()
            .map(|m| m.to_uci(CastlingMode::Standard).to_string())
            .collect::<Vec<_>>()
    };
    let suite_text = first(&Suite::CHESS960, 60);
    let suite = Suite {
        epd: &suite_text,
        chess960: true,
    };
    let result = validate::check(&mut broken, &suite, SMALL).unwrap();
    let (missed, _) = first_move_list_failure(&result, true);
    assert!(missed.contains(&MoveClass::Castling), "{missed:?}");
}

/// A generator with its own divide: shakmaty's perft under each move, with a total it
/// reports one too high.
struct WrongTotal;

impl Generator for WrongTotal {
    fn divide(&mut self, query: &Query<'_>) -> Result<Divide, Failure> {
        let fen = query.position.to_fen();
        let pos = shakmaty_position(&fen, false);
        let mut answer = Divide::default();
        for m in pos.legal_moves() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let n = shakmaty::perft(&child, query.depth - 1);
            answer.add(m.to_uci(CastlingMode::Standard).to_string(), Nodes::from(n))?;
        }
        answer.total += Nodes::ONE;
        Ok(answer)
    }
}

#[test]
fn a_total_that_is_not_the_sum_of_its_moves_is_named() {
    let root = Position::from_fen(perft::position::STARTPOS).unwrap();
    let report = validate::find_divergence(&mut WrongTotal, &root, &[], 3).unwrap();
    match &report.outcome {
        Outcome::TotalDiffers {
            moves,
            ours,
            theirs,
            ..
        } => {
            assert!(moves.is_empty());
            assert_eq!(*ours, Nodes::from(8902u64)); // perft 3 of the start position, published
            assert_eq!(*theirs, Nodes::from(8903u64));
        }
        other => panic!("{other:?}"),
    }
}

/// Fails every query, fatally or not.
struct Broken {
    fatal: bool,
    asked: usize,
}

impl Generator for Broken {
    fn divide(&mut self, _: &Query<'_>) -> Result<Divide, Failure> {
        self.asked += 1;
        Err(if self.fatal {
            Failure::fatal("start", "cannot start")
        } else {
            Failure::new("crashed", "crashed")
        })
    }
}

#[test]
fn a_failed_query_fails_its_position_and_a_fatal_one_ends_the_check() {
    let mut failing = Broken {
        fatal: false,
        asked: 0,
    };
    let result = validate::check(&mut failing, &Suite::STANDARD, SMALL).unwrap();
    // Every position is asked (once: the failure skips its deeper depths) and fails.
    assert_eq!(result.totals.failed, result.totals.positions);
    assert_eq!(failing.asked, result.totals.positions);
    assert!(matches!(
        result.first_failure().unwrap().1.outcome,
        Outcome::Failed { ref error, .. } if error.kind == "crashed"
    ));
    let mut fatal = Broken {
        fatal: true,
        asked: 0,
    };
    let error = validate::check(&mut fatal, &Suite::STANDARD, SMALL).unwrap_err();
    assert_eq!((error.kind, fatal.asked), ("start", 1));
}

#[test]
fn an_unreadable_line_fails_the_suite_and_the_others_still_run() {
    let text = format!(
        "{}\nnot a fen ;D1 20\n{} ;D1 20 ;D2 400",
        first(&Suite::STANDARD, 1),
        perft::position::STARTPOS
    );
    let mut shakmaty = |fen: &str, chess960: bool| shakmaty_moves(fen, chess960, |_, _| true);
    let suite = Suite {
        epd: &text,
        chess960: false,
    };
    let result = validate::check(&mut shakmaty, &suite, SMALL).unwrap();
    assert_eq!(result.totals.positions, 2);
    assert_eq!(result.totals.failed, 0);
    assert_eq!(result.unreadable.len(), 1);
    assert_eq!(result.unreadable[0].0, 2);
    assert!(!result.passed());
    assert!(result.to_string().contains("line 2"), "{result}");
}
