//! FEN parsing and printing: the round trip on every suite position, and each rejection with a
//! message that names the field and the problem.

use crate::common;

use perft::position::FenError;
use perft::{Color, Position, Square};

#[test]
fn round_trip_every_suite_position() {
    let mut n = 0;
    for name in common::STANDARD_SUITES {
        for entry in common::suite(name) {
            let pos = Position::from_fen(&entry.fen).unwrap();
            assert_eq!(pos.to_fen(), entry.fen, "{name}:{}", entry.line);
            let again = Position::from_fen(&pos.to_fen()).unwrap();
            assert_eq!(again, pos);
            n += 1;
        }
    }
    assert!(n > 180);
}

#[test]
fn epd_form_defaults_counters() {
    let pos = Position::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -").unwrap();
    assert_eq!(pos.halfmove_clock(), 0);
    assert_eq!(pos.fullmove_number(), 1);
    assert_eq!(pos.to_fen(), perft::position::STARTPOS);
}

#[test]
fn extra_whitespace_is_accepted() {
    let pos = Position::from_fen("  8/8/8/8/8/8/8/K6k   w  -  -  3  40 ").unwrap();
    assert_eq!(pos.to_fen(), "8/8/8/8/8/8/8/K6k w - - 3 40");
}

/// Asserts that `fen` is rejected with `expected` and that the message contains every fragment.
fn rejects(fen: &str, expected: FenError, fragments: &[&str]) {
    let err = Position::from_fen(fen).expect_err(fen);
    assert_eq!(err, expected, "{fen}");
    let msg = err.to_string();
    for f in fragments {
        assert!(msg.contains(f), "message {msg:?} lacks {f:?} (FEN {fen})");
    }
}

const K: &str = "4k3/8/8/8/8/8/8/4K3";

#[test]
fn wrong_number_of_fields() {
    rejects("", FenError::FieldCount { found: 0 }, &["6", "found 0"]);
    rejects(K, FenError::FieldCount { found: 1 }, &["found 1"]);
    rejects(
        &format!("{K} w - - 0"),
        FenError::FieldCount { found: 5 },
        &["found 5"],
    );
    rejects(
        &format!("{K} w - - 0 1 x"),
        FenError::FieldCount { found: 7 },
        &["found 7"],
    );
}

#[test]
fn bad_piece_letter() {
    rejects(
        "4k3/8/8/8/8/8/8/4K2X w - - 0 1",
        FenError::BadPiece {
            rank: 1,
            found: 'X',
        },
        &["board", "'X'", "rank 1"],
    );
    rejects(
        "4k3/8/8/0/8/8/8/4K3 w - - 0 1",
        FenError::BadPiece {
            rank: 5,
            found: '0',
        },
        &["board", "'0'"],
    );
}

#[test]
fn rank_not_eight_squares() {
    rejects(
        "4k3/8/8/8/8/8/8/4K4 w - - 0 1",
        FenError::RankLength {
            rank: 1,
            squares: 9,
        },
        &["board", "rank 1", "9 squares"],
    );
    rejects(
        "4k3/7/8/8/8/8/8/4K3 w - - 0 1",
        FenError::RankLength {
            rank: 7,
            squares: 7,
        },
        &["rank 7", "7 squares"],
    );
}

#[test]
fn board_not_eight_ranks() {
    rejects(
        "4k3/8/8/8/8/8/4K3 w - - 0 1",
        FenError::RankCount { found: 7 },
        &["board", "7 ranks"],
    );
    rejects(
        "4k3/8/8/8/8/8/8/8/4K3 w - - 0 1",
        FenError::RankCount { found: 9 },
        &["9 ranks"],
    );
}

#[test]
fn bad_side_to_move() {
    rejects(
        &format!("{K} x - - 0 1"),
        FenError::BadSide { found: "x".into() },
        &["side to move", "'x'"],
    );
    rejects(
        &format!("{K} W - - 0 1"),
        FenError::BadSide { found: "W".into() },
        &["side to move"],
    );
}

#[test]
fn bad_castling_letters() {
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkx - 0 1";
    let err = Position::from_fen(fen).unwrap_err();
    assert!(matches!(err, FenError::BadCastling { .. }), "{err:?}");
    assert!(err.to_string().contains("castling"), "{err}");
    let dup = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KKkq - 0 1").unwrap_err();
    assert!(matches!(dup, FenError::BadCastling { .. }), "{dup:?}");
    assert!(dup.to_string().contains("twice"), "{dup}");
}

#[test]
fn castling_right_without_king_or_rook() {
    // No rook on h1.
    rejects(
        "r3k2r/8/8/8/8/8/8/R3K3 w Kkq - 0 1",
        FenError::CastlingPieces {
            right: 'K',
            reason: "needs a white rook on h1".into(),
        },
        &["castling", "'K'", "rook on h1"],
    );
    // King not on e8.
    rejects(
        "r4k1r/8/8/8/8/8/8/R3K2R w KQq - 0 1",
        FenError::CastlingPieces {
            right: 'q',
            reason: "needs the black king on e8".into(),
        },
        &["castling", "'q'", "king on e8"],
    );
    // King off its back rank.
    rejects(
        "r6r/8/8/8/8/8/4K3/R2k3R w KQ - 0 1",
        FenError::CastlingPieces {
            right: 'K',
            reason: "needs the white king on rank 1".into(),
        },
        &["king on rank 1"],
    );
}

#[test]
fn en_passant_square_not_a_square() {
    rejects(
        &format!("{K} w - e9 0 1"),
        FenError::BadEpSquare { found: "e9".into() },
        &["en passant", "'e9'"],
    );
}

#[test]
fn en_passant_wrong_rank() {
    let e3 = Square::parse("e3").unwrap();
    rejects(
        "4k3/8/8/8/4P3/8/8/4K3 w - e3 0 1",
        FenError::EpWrongRank {
            square: e3,
            side_to_move: Color::White,
        },
        &["en passant", "e3", "rank 6"],
    );
}

#[test]
fn en_passant_without_pawn() {
    let e6 = Square::parse("e6").unwrap();
    let e5 = Square::parse("e5").unwrap();
    rejects(
        "4k3/8/8/8/8/8/8/4K3 w - e6 0 1",
        FenError::EpNoPawn {
            square: e6,
            pawn_square: e5,
        },
        &["en passant", "e6", "no pawn on e5"],
    );
    // A white pawn on e5 is not one that black could just have pushed.
    rejects(
        "4k3/8/8/4P3/8/8/8/4K3 w - e6 0 1",
        FenError::EpNoPawn {
            square: e6,
            pawn_square: e5,
        },
        &["no pawn on e5"],
    );
}

#[test]
fn en_passant_squares_behind_occupied() {
    let e6 = Square::parse("e6").unwrap();
    rejects(
        "4k3/4n3/8/4p3/8/8/8/4K3 w - e6 0 1",
        FenError::EpSquareOccupied {
            square: e6,
            occupied: Square::parse("e7").unwrap(),
        },
        &["en passant", "e7 is occupied"],
    );
    rejects(
        "4k3/8/4n3/4p3/8/8/8/4K3 w - e6 0 1",
        FenError::EpSquareOccupied {
            square: e6,
            occupied: e6,
        },
        &["e6 is occupied"],
    );
}

#[test]
fn counters_not_non_negative_integers() {
    rejects(
        &format!("{K} w - - -1 1"),
        FenError::BadHalfmove { found: "-1".into() },
        &["halfmove clock", "'-1'"],
    );
    rejects(
        &format!("{K} w - - x 1"),
        FenError::BadHalfmove { found: "x".into() },
        &["halfmove"],
    );
    rejects(
        &format!("{K} w - - 0 1.5"),
        FenError::BadFullmove {
            found: "1.5".into(),
        },
        &["fullmove number", "'1.5'"],
    );
    rejects(
        &format!("{K} w - - 0 99999999999"),
        FenError::BadFullmove {
            found: "99999999999".into(),
        },
        &["fullmove"],
    );
}

#[test]
fn not_exactly_one_king_per_side() {
    rejects(
        "8/8/8/8/8/8/8/4K3 w - - 0 1",
        FenError::KingCount {
            color: Color::Black,
            count: 0,
        },
        &["black has 0 kings"],
    );
    rejects(
        "4k3/8/8/8/8/8/8/3KK3 w - - 0 1",
        FenError::KingCount {
            color: Color::White,
            count: 2,
        },
        &["white has 2 kings"],
    );
}

#[test]
fn pawns_on_back_ranks() {
    rejects(
        "4k2P/8/8/8/8/8/8/4K3 w - - 0 1",
        FenError::PawnOnBackRank {
            square: Square::parse("h8").unwrap(),
        },
        &["pawn on h8"],
    );
    rejects(
        "4k3/8/8/8/8/8/8/p3K3 w - - 0 1",
        FenError::PawnOnBackRank {
            square: Square::parse("a1").unwrap(),
        },
        &["pawn on a1"],
    );
}

#[test]
fn side_not_to_move_in_check() {
    rejects(
        "4k3/8/8/8/8/8/8/r3K3 b - - 0 1",
        FenError::OppositeCheck {
            color: Color::White,
        },
        &["position", "white is in check"],
    );
    rejects(
        "4k3/8/8/8/8/8/8/4R1K1 w - - 0 1",
        FenError::OppositeCheck {
            color: Color::Black,
        },
        &["black is in check", "not black to move"],
    );
}

/// Positions that are well-defined though unreachable are accepted.
#[test]
fn unreachable_but_well_defined_positions_are_accepted() {
    // Three checkers, and a double pawn check.
    for fen in [
        "4k3/8/8/8/8/8/3pp3/2N1K1r1 w - - 0 1",
        "1rrrrrk1/1PPPPPPP/8/8/8/8/8/6K1 b - - 0 1",
        "3R4/8/q4k2/2B5/1NK5/3b4/8/8 w - - 0 1",
    ] {
        Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    }
}
