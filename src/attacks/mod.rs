//! Attack tables. Leapers (knight, king, pawn) and the geometry tables (rays, squares between two
//! squares, the line through two squares) are `static`s computed at compile time by `const fn`, so
//! nothing is initialised at start-up and nothing is checked per access.
//!
//! Sliders (rook, bishop, queen) sit behind the [`Sliders`] trait, implemented by zero-sized types:
//! [`Classical`] (ray scan), [`Magic`] (magic bitboards) and, on x86-64 CPUs with BMI2, `Pext`.
//! Everything that needs slider attacks is generic over the implementation, so each choice is
//! compiled separately and the inner loop never branches on it.

pub mod classical;
pub mod magic;
#[cfg(target_arch = "x86_64")]
pub mod pext;

pub use classical::Classical;
pub use magic::Magic;
#[cfg(target_arch = "x86_64")]
pub use pext::Pext;

use crate::bitboard::Bitboard;
use crate::types::{Color, Square};

internal! {
    /// Whether this CPU has a fast `pext` (BMI2 on Intel since Haswell, AMD since Zen 3): then
    /// [`Pext`] is the default slider implementation, else [`Magic`]. Asked once, at start-up.
    pub fn pext_is_fast() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            Pext::available() && !Pext::microcoded()
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }
}

internal! {
    /// The name of the default slider implementation on this CPU (`"pext"` or `"magic"`).
    pub fn fastest_name() -> &'static str {
        if pext_is_fast() { "pext" } else { Magic::NAME }
    }
}

/// Slider attacks: given a square and the occupied squares, the squares a rook or bishop there
/// attacks (up to and including the first blocker in each direction, whatever its colour).
pub trait Sliders: Copy + Default + Send + Sync + 'static {
    /// A short name for output, e.g. `"magic"`.
    const NAME: &'static str;

    /// Rook attacks from `sq` with `occupied` squares blocking.
    fn rook(sq: Square, occupied: Bitboard) -> Bitboard;

    /// Bishop attacks from `sq` with `occupied` squares blocking.
    fn bishop(sq: Square, occupied: Bitboard) -> Bitboard;

    /// Queen attacks: the union of rook and bishop attacks.
    #[inline(always)]
    fn queen(sq: Square, occupied: Bitboard) -> Bitboard {
        Self::rook(sq, occupied) | Self::bishop(sq, occupied)
    }
}

/// The eight ray directions as (file step, rank step). The first four point to higher square
/// indices (their first blocker is the lowest set bit), the last four to lower ones.
pub(crate) const DIRECTIONS: [(i8, i8); 8] = [
    (0, 1),   // north
    (1, 0),   // east
    (1, 1),   // north-east
    (-1, 1),  // north-west
    (0, -1),  // south
    (-1, 0),  // west
    (-1, -1), // south-west
    (1, -1),  // south-east
];

/// Rook directions (indices into [`DIRECTIONS`]).
pub(crate) const ROOK_DIRS: [usize; 4] = [0, 1, 4, 5];
/// Bishop directions (indices into [`DIRECTIONS`]).
pub(crate) const BISHOP_DIRS: [usize; 4] = [2, 3, 6, 7];

/// The square `(df, dr)` away from `sq`, if it is on the board.
const fn step(sq: Square, df: i8, dr: i8) -> Option<Square> {
    let f = sq.file() as i8 + df;
    let r = sq.rank() as i8 + dr;
    if f >= 0 && f < 8 && r >= 0 && r < 8 {
        Some(Square::from_coords(f as u8, r as u8))
    } else {
        None
    }
}

/// Every square a leaper on `sq` reaches with the given steps.
const fn leaper(sq: Square, steps: &[(i8, i8)]) -> Bitboard {
    let mut bb = 0u64;
    let mut i = 0;
    while i < steps.len() {
        if let Some(to) = step(sq, steps[i].0, steps[i].1) {
            bb |= 1 << to.index();
        }
        i += 1;
    }
    Bitboard(bb)
}

const fn leaper_table(steps: &[(i8, i8)]) -> [Bitboard; 64] {
    let mut t = [Bitboard::EMPTY; 64];
    let mut i = 0;
    while i < 64 {
        t[i] = leaper(Square::new(i as u8), steps);
        i += 1;
    }
    t
}

const KNIGHT_STEPS: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
const KING_STEPS: [(i8, i8); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];

static KNIGHT: [Bitboard; 64] = leaper_table(&KNIGHT_STEPS);
static KING: [Bitboard; 64] = leaper_table(&KING_STEPS);
static PAWN: [[Bitboard; 64]; 2] = [
    leaper_table(&[(-1, 1), (1, 1)]),
    leaper_table(&[(-1, -1), (1, -1)]),
];

internal! {
    /// Squares a knight on `sq` attacks.
    #[inline(always)]
    pub fn knight(sq: Square) -> Bitboard {
        KNIGHT[sq.index()]
    }
}

internal! {
    /// Squares a king on `sq` attacks.
    #[inline(always)]
    pub fn king(sq: Square) -> Bitboard {
        KING[sq.index()]
    }
}

internal! {
    /// Squares a pawn of `color` on `sq` attacks (diagonally forward).
    #[inline(always)]
    pub fn pawn(color: Color, sq: Square) -> Bitboard {
        PAWN[color.index()][sq.index()]
    }
}

/// Pawn geometry for one side: the directions of its pawns' moves and the ranks that matter.
#[derive(Clone, Copy)]
pub(crate) struct PawnDirs {
    /// One push.
    pub(crate) up: i8,
    /// Capture towards the h-file, and towards the a-file.
    pub(crate) up_east: i8,
    pub(crate) up_west: i8,
    /// The rank pawns double-push from, and the rank they promote from (as bitboards).
    pub(crate) start_rank: Bitboard,
    pub(crate) promo_from: Bitboard,
    /// Whether the capture towards the h-file runs along a diagonal (south-west to
    /// north-east: White's) rather than an anti-diagonal (Black's).
    pub(crate) east_on_diagonal: bool,
}

impl PawnDirs {
    /// The geometry of `side`'s pawns.
    #[inline(always)]
    pub(crate) const fn of(side: Color) -> PawnDirs {
        let up = side.forward();
        let (start, promo) = match side {
            Color::White => (1, 6),
            Color::Black => (6, 1),
        };
        PawnDirs {
            up,
            up_east: up + 1,
            up_west: up - 1,
            start_rank: Bitboard::rank(start),
            promo_from: Bitboard::rank(promo),
            east_on_diagonal: matches!(side, Color::White),
        }
    }

    /// The squares `pawns` attack towards the h-file.
    #[inline(always)]
    pub(crate) const fn east(&self, pawns: Bitboard) -> Bitboard {
        pawns.without(Bitboard::FILE_H).shift(self.up_east)
    }

    /// The squares `pawns` attack towards the a-file.
    #[inline(always)]
    pub(crate) const fn west(&self, pawns: Bitboard) -> Bitboard {
        pawns.without(Bitboard::FILE_A).shift(self.up_west)
    }

    /// Every square `pawns` attack.
    #[inline(always)]
    pub(crate) const fn attacks(&self, pawns: Bitboard) -> Bitboard {
        self.east(pawns).with(self.west(pawns))
    }

    /// Every square `pawns` reach in one move, were each push and capture open: one or (from
    /// the start rank) two squares ahead, and the squares they attack.
    #[inline(always)]
    pub(crate) fn reach(&self, pawns: Bitboard) -> Bitboard {
        pawns.shift(self.up) | (pawns & self.start_rank).shift(2 * self.up) | self.attacks(pawns)
    }

    /// The rank a double push lands on.
    #[inline(always)]
    pub(crate) const fn double_landing(&self) -> Bitboard {
        self.start_rank.shift(2 * self.up)
    }

    /// The last rank, where a pawn promotes.
    #[inline(always)]
    pub(crate) const fn last_rank(&self) -> Bitboard {
        self.promo_from.shift(self.up)
    }
}

internal! {
    /// Every square a slider on `sq` reaches in direction `dir`, `occupied` squares blocking (the
    /// blocker included). The slow, obviously correct walk: it fills the tables and is the oracle of
    /// the tests.
    pub const fn ray_walk(sq: Square, dir: usize, occupied: Bitboard) -> Bitboard {
        let (df, dr) = DIRECTIONS[dir];
        let mut bb = 0u64;
        let mut cur = sq;
        while let Some(next) = step(cur, df, dr) {
            bb |= 1 << next.index();
            if occupied.0 & (1 << next.index()) != 0 {
                break;
            }
            cur = next;
        }
        Bitboard(bb)
    }
}

internal! {
    /// Rook or bishop attacks by walking each direction square by square (`dirs` from
    /// `ROOK_DIRS` or `BISHOP_DIRS`).
    pub const fn slider_walk(sq: Square, occupied: Bitboard, dirs: &[usize; 4]) -> Bitboard {
        let mut bb = 0u64;
        let mut i = 0;
        while i < 4 {
            bb |= ray_walk(sq, dirs[i], occupied).0;
            i += 1;
        }
        Bitboard(bb)
    }
}

internal! {
    /// Rook attacks by the square-by-square walk (test oracle, table builder).
    pub const fn rook_walk(sq: Square, occupied: Bitboard) -> Bitboard {
        slider_walk(sq, occupied, &ROOK_DIRS)
    }
}

internal! {
    /// Bishop attacks by the square-by-square walk (test oracle, table builder).
    pub const fn bishop_walk(sq: Square, occupied: Bitboard) -> Bitboard {
        slider_walk(sq, occupied, &BISHOP_DIRS)
    }
}

/// `RAYS[dir][sq]`: the open ray from `sq` in direction `dir` to the edge of the board.
pub(crate) static RAYS: [[Bitboard; 64]; 8] = {
    let mut t = [[Bitboard::EMPTY; 64]; 8];
    let mut d = 0;
    while d < 8 {
        let mut s = 0;
        while s < 64 {
            t[d][s] = ray_walk(Square::new(s as u8), d, Bitboard::EMPTY);
            s += 1;
        }
        d += 1;
    }
    t
};

/// Rook attacks on an empty board.
pub(crate) static ROOK_EMPTY: [Bitboard; 64] = {
    let mut t = [Bitboard::EMPTY; 64];
    let mut s = 0;
    while s < 64 {
        t[s] = rook_walk(Square::new(s as u8), Bitboard::EMPTY);
        s += 1;
    }
    t
};

/// Bishop attacks on an empty board.
pub(crate) static BISHOP_EMPTY: [Bitboard; 64] = {
    let mut t = [Bitboard::EMPTY; 64];
    let mut s = 0;
    while s < 64 {
        t[s] = bishop_walk(Square::new(s as u8), Bitboard::EMPTY);
        s += 1;
    }
    t
};

/// `(BETWEEN, LINE)`: for two squares on a common rank, file or diagonal, the squares strictly
/// between them and the whole line through both; empty otherwise.
static GEOMETRY: ([[Bitboard; 64]; 64], [[Bitboard; 64]; 64]) = {
    let mut between = [[Bitboard::EMPTY; 64]; 64];
    let mut line = [[Bitboard::EMPTY; 64]; 64];
    let mut a = 0;
    while a < 64 {
        let mut d = 0;
        while d < 8 {
            let ray = RAYS[d][a];
            let back = RAYS[(d + 4) % 8][a];
            let mut rest = ray.0;
            while rest != 0 {
                let b = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                // Squares from `a` towards `b`, stopping before `b`.
                between[a][b] = Bitboard(ray.0 & !RAYS[d][b].0 & !(1 << b));
                line[a][b] = Bitboard(ray.0 | back.0 | (1 << a));
            }
            d += 1;
        }
        a += 1;
    }
    (between, line)
};

internal! {
    /// The squares strictly between `a` and `b` if they share a rank, file or diagonal, else empty.
    #[inline(always)]
    pub fn between(a: Square, b: Square) -> Bitboard {
        GEOMETRY.0[a.index()][b.index()]
    }
}

internal! {
    /// The whole line (edge to edge) through `a` and `b` if they are aligned, else empty.
    #[inline(always)]
    pub fn line(a: Square, b: Square) -> Bitboard {
        GEOMETRY.1[a.index()][b.index()]
    }
}

/// Rook attacks from `sq` on an empty board.
#[inline(always)]
pub(crate) fn rook_empty(sq: Square) -> Bitboard {
    ROOK_EMPTY[sq.index()]
}

/// Bishop attacks from `sq` on an empty board.
#[inline(always)]
pub(crate) fn bishop_empty(sq: Square) -> Bitboard {
    BISHOP_EMPTY[sq.index()]
}

internal! {
    /// The diagonal through `sq` from the south-west to the north-east, `sq` included: the two
    /// rays (`RAYS`) that make it up (directions 2 and 6).
    #[inline(always)]
    pub fn diagonal(sq: Square) -> Bitboard {
        RAYS[2][sq.index()] | RAYS[6][sq.index()] | Bitboard::from_square(sq)
    }
}

internal! {
    /// The anti-diagonal through `sq` from the north-west to the south-east, `sq` included: the
    /// two rays (`RAYS`) that make it up (directions 3 and 7).
    #[inline(always)]
    pub fn anti_diagonal(sq: Square) -> Bitboard {
        RAYS[3][sq.index()] | RAYS[7][sq.index()] | Bitboard::from_square(sq)
    }
}

internal! {
    /// Where a slider must stand to attack some square of a set on an empty board: the only
    /// sliders worth looking up when asking which squares of that set are attacked.
    #[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
    pub struct Reach {
        /// Squares from which a rook (or queen, as a rook) attacks a square of the set.
        pub rook: Bitboard,
        /// Squares from which a bishop (or queen, as a bishop) attacks a square of the set.
        pub bishop: Bitboard,
    }
}

impl Reach {
    /// The reach of `set`.
    pub const fn of(set: Bitboard) -> Reach {
        let (mut rook, mut bishop) = (0u64, 0u64);
        let mut rest = set.0;
        while rest != 0 {
            let t = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            rook |= ROOK_EMPTY[t].0;
            bishop |= BISHOP_EMPTY[t].0;
        }
        Reach {
            rook: Bitboard(rook),
            bishop: Bitboard(bishop),
        }
    }
}

impl std::ops::BitOr for Reach {
    type Output = Reach;
    /// The reach of the union of two sets.
    #[inline(always)]
    fn bitor(self, other: Reach) -> Reach {
        Reach {
            rook: self.rook | other.rook,
            bishop: self.bishop | other.bishop,
        }
    }
}

/// `KING_ZONE_REACH[sq]`: the reach of the squares next to `sq`.
static KING_ZONE_REACH: [Reach; 64] = {
    let mut t = [Reach {
        rook: Bitboard::EMPTY,
        bishop: Bitboard::EMPTY,
    }; 64];
    let mut s = 0;
    while s < 64 {
        t[s] = Reach::of(KING[s]);
        s += 1;
    }
    t
};

internal! {
    /// The reach of the squares a king on `sq` could step to.
    #[inline(always)]
    pub fn king_zone_reach(sq: Square) -> Reach {
        KING_ZONE_REACH[sq.index()]
    }
}
