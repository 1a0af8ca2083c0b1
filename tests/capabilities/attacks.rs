//! Leaper tables and the geometry helpers (`between`, `line`, the king-zone reach) against brute
//! force, for every square and every pair of squares.

use perft::attacks::{self, between, line};
use perft::{Bitboard, Color, Square};

fn sq(file: i32, rank: i32) -> Option<Square> {
    ((0..8).contains(&file) && (0..8).contains(&rank))
        .then(|| Square::from_coords(file as u8, rank as u8))
}

#[test]
fn leapers_match_their_definitions() {
    for s in Square::ALL {
        let (f, r) = (s.file() as i32, s.rank() as i32);
        let set = |steps: &[(i32, i32)]| -> Bitboard {
            steps
                .iter()
                .filter_map(|&(df, dr)| sq(f + df, r + dr))
                .collect()
        };
        let knight = set(&[
            (1, 2),
            (2, 1),
            (2, -1),
            (1, -2),
            (-1, -2),
            (-2, -1),
            (-2, 1),
            (-1, 2),
        ]);
        let king = set(&[
            (0, 1),
            (1, 1),
            (1, 0),
            (1, -1),
            (0, -1),
            (-1, -1),
            (-1, 0),
            (-1, 1),
        ]);
        assert_eq!(attacks::knight(s), knight, "knight {s}");
        assert_eq!(attacks::king(s), king, "king {s}");
        assert_eq!(
            attacks::pawn(Color::White, s),
            set(&[(-1, 1), (1, 1)]),
            "white pawn {s}"
        );
        assert_eq!(
            attacks::pawn(Color::Black, s),
            set(&[(-1, -1), (1, -1)]),
            "black pawn {s}"
        );
    }
}

#[test]
fn between_and_line_match_brute_force() {
    for a in Square::ALL {
        for b in Square::ALL {
            let (df, dr) = (
                b.file() as i32 - a.file() as i32,
                b.rank() as i32 - a.rank() as i32,
            );
            let aligned = a != b && (df == 0 || dr == 0 || df.abs() == dr.abs());
            let (mut expect_between, mut expect_line) = (Bitboard::EMPTY, Bitboard::EMPTY);
            if aligned {
                let (sf, sr) = (df.signum(), dr.signum());
                let mut k = 1;
                while let Some(s) = sq(a.file() as i32 + k * sf, a.rank() as i32 + k * sr) {
                    if s == b {
                        break;
                    }
                    expect_between |= Bitboard::from_square(s);
                    k += 1;
                }
                for k in -8..=8 {
                    if let Some(s) = sq(a.file() as i32 + k * sf, a.rank() as i32 + k * sr) {
                        expect_line |= Bitboard::from_square(s);
                    }
                }
            }
            assert_eq!(between(a, b), expect_between, "between {a} {b}");
            assert_eq!(line(a, b), expect_line, "line {a} {b}");
        }
    }
}

#[test]
fn diagonals_match_brute_force() {
    for a in Square::ALL {
        let (mut diagonal, mut anti) = (Bitboard::EMPTY, Bitboard::EMPTY);
        for b in Square::ALL {
            let (fa, ra, fb, rb) = (
                a.file() as i32,
                a.rank() as i32,
                b.file() as i32,
                b.rank() as i32,
            );
            if fb - fa == rb - ra {
                diagonal |= Bitboard::from_square(b);
            }
            if fb - fa == ra - rb {
                anti |= Bitboard::from_square(b);
            }
        }
        assert_eq!(attacks::diagonal(a), diagonal, "diagonal {a}");
        assert_eq!(attacks::anti_diagonal(a), anti, "anti-diagonal {a}");
    }
}

#[test]
fn king_zone_reach_matches_brute_force() {
    // A slider on `s` may attack a square next to the king on `k` (on an empty board) exactly
    // when it shares a rank or file (rook) or a diagonal (bishop) with such a square.
    for k in Square::ALL {
        let (kf, kr) = (k.file() as i32, k.rank() as i32);
        let neighbours: Vec<(i32, i32)> = (-1..=1)
            .flat_map(|df| (-1..=1).map(move |dr| (kf + df, kr + dr)))
            .filter(|&(f, r)| (f, r) != (kf, kr) && sq(f, r).is_some())
            .collect();
        for s in Square::ALL {
            let (sf, sr) = (s.file() as i32, s.rank() as i32);
            let by = |aligned: fn(i32, i32) -> bool| {
                neighbours
                    .iter()
                    .any(|&(f, r)| (f, r) != (sf, sr) && aligned(f - sf, r - sr))
            };
            let rook = by(|df, dr| df == 0 || dr == 0);
            let bishop = by(|df, dr| df.abs() == dr.abs());
            let reach = attacks::king_zone_reach(k);
            assert_eq!(reach.rook.contains(s), rook, "rook {k} {s}");
            assert_eq!(reach.bishop.contains(s), bishop, "bishop {k} {s}");
        }
    }
}
