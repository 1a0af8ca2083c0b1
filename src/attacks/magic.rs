//! Magic bitboards: slider attacks with one AND, one multiply, one shift and one table load.
//!
//! For a square, the *relevant occupancy mask* holds the squares whose occupancy can change the
//! attack set: the open rays without the last square of each (an edge square blocks nothing
//! beyond itself). A *magic* number maps every subset of the mask to a table index by
//! `(subset * magic) >> (64 - bits)`, where `bits` is the mask's size; two subsets may share an
//! index only when their attack sets are equal ("constructive" collisions).
//!
//! The tables are "fancy": each square gets exactly `2^bits` entries, all squares packed into one
//! array at per-square offsets (rooks, then bishops): 107,648 entries, 841 KiB.
//!
//! [`Magic::find`] is our magic finder. The magics it produced with [`Magic::SHIPPED_SEED`] are shipped
//! as constants below, so the program never searches at start-up, and the tables are `static`s
//! filled at compile time by `const fn`: the hot loop pays one load per lookup and nothing else.
//! A compile-time check rejects a shipped magic that has a destructive collision, and
//! `tests/capabilities/magic.rs` checks that the finder still reproduces the constants and
//! compares every subset of every mask with the classical ray scan.

use super::{BISHOP_DIRS, RAYS, ROOK_DIRS, Sliders};
use crate::bitboard::Bitboard;
use crate::types::Square;
use std::time::{Duration, Instant};

/// Slider attacks from magic bitboards with packed ("fancy") tables.
#[derive(Clone, Copy, Default, Debug)]
pub struct Magic;

/// Rook or bishop.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Slider {
    /// Moves along ranks and files.
    Rook,
    /// Moves along diagonals.
    Bishop,
}

impl Slider {
    const fn dirs(self) -> &'static [usize; 4] {
        match self {
            Slider::Rook => &ROOK_DIRS,
            Slider::Bishop => &BISHOP_DIRS,
        }
    }

    /// `"rook"` or `"bishop"`.
    pub const fn name(self) -> &'static str {
        match self {
            Slider::Rook => "rook",
            Slider::Bishop => "bishop",
        }
    }
}

internal! {
    /// The relevant-occupancy mask of a slider on `sq`: each open ray without its last square.
    pub const fn relevant_mask(slider: Slider, sq: Square) -> Bitboard {
        let dirs = slider.dirs();
        let mut mask = 0u64;
        let mut i = 0;
        while i < 4 {
            let ray = RAYS[dirs[i]][sq.index()].0;
            if ray != 0 {
                // The last square is the one furthest along the ray: the highest bit for directions
                // 0..4 (they raise the index), the lowest for 4..8.
                let last = if dirs[i] < 4 {
                    63 - ray.leading_zeros()
                } else {
                    ray.trailing_zeros()
                };
                mask |= ray & !(1 << last);
            }
            i += 1;
        }
        Bitboard(mask)
    }
}

internal! {
    /// The subset of `mask` that follows `subset` in the carry-rippler enumeration
    /// (`0`, then every subset once, then `0` again).
    #[inline(always)]
    pub const fn next_subset(subset: Bitboard, mask: Bitboard) -> Bitboard {
        Bitboard(subset.0.wrapping_sub(mask.0) & mask.0)
    }
}

internal! {
    /// Every subset of `mask`, the empty set first.
    pub fn subsets(mask: Bitboard) -> impl Iterator<Item = Bitboard> {
        let mut next = Some(Bitboard::EMPTY);
        std::iter::from_fn(move || {
            let cur = next?;
            let after = next_subset(cur, mask);
            next = if after.is_empty() { None } else { Some(after) };
            Some(cur)
        })
    }
}

/// One square's entry: mask, multiplier, and where its part of the shared table starts. The
/// lookup reads the same as a `Lookup`, with the start as a pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MagicEntry {
    /// The relevant-occupancy mask.
    pub mask: Bitboard,
    /// The multiplier.
    pub magic: u64,
    /// Where this square's entries start in the shared table.
    pub offset: u32,
    /// `64 - bits`.
    pub shift: u32,
}

impl MagicEntry {
    /// The table index of `occupied` for this square (offset included).
    #[inline(always)]
    pub const fn index(&self, occupied: Bitboard) -> usize {
        self.offset as usize
            + ((occupied.0 & self.mask.0).wrapping_mul(self.magic) >> self.shift) as usize
    }
}

internal! {
    /// The seed [`find_magics`] was run with to produce the shipped constants.
    pub const SHIPPED_SEED: u64 = 0x05EE_D0FA_11C0_FFEE;
}

internal! {
    /// Rook magics found by `find_magics(SHIPPED_SEED)` (`perft --magics` prints them).
    pub const ROOK_MAGICS: [u64; 64] = include!("magic_rook.in");
}

internal! {
    /// Bishop magics found by `find_magics(SHIPPED_SEED)` (`perft --magics` prints them).
    pub const BISHOP_MAGICS: [u64; 64] = include!("magic_bishop.in");
}

const fn build_entries(slider: Slider, magics: &[u64; 64], start: u32) -> ([MagicEntry; 64], u32) {
    let mut entries = [MagicEntry {
        mask: Bitboard::EMPTY,
        magic: 0,
        offset: 0,
        shift: 0,
    }; 64];
    let mut offset = start;
    let mut s = 0;
    while s < 64 {
        let mask = relevant_mask(slider, Square::new(s as u8));
        let bits = mask.0.count_ones();
        entries[s] = MagicEntry {
            mask,
            magic: magics[s],
            offset,
            shift: 64 - bits,
        };
        offset += 1 << bits;
        s += 1;
    }
    (entries, offset)
}

const ROOK_BUILD: ([MagicEntry; 64], u32) = build_entries(Slider::Rook, &ROOK_MAGICS, 0);
const BISHOP_BUILD: ([MagicEntry; 64], u32) =
    build_entries(Slider::Bishop, &BISHOP_MAGICS, ROOK_BUILD.1);

internal! {
    /// Number of entries in the packed table (rooks then bishops).
    pub const TABLE_LEN: usize = BISHOP_BUILD.1 as usize;
}

// The packed layout is exactly the fancy one: 102,400 rook and 5,248 bishop entries.
const _: () = assert!(TABLE_LEN == 107_648);

/// Per-square rook entries.
pub(crate) static ROOK_ENTRIES: [MagicEntry; 64] = ROOK_BUILD.0;
/// Per-square bishop entries.
pub(crate) static BISHOP_ENTRIES: [MagicEntry; 64] = BISHOP_BUILD.0;

const fn fill(table: &mut [Bitboard; TABLE_LEN], slider: Slider, entries: &[MagicEntry; 64]) {
    let mut s = 0;
    while s < 64 {
        let sq = Square::new(s as u8);
        let e = &entries[s];
        let mut subset = Bitboard::EMPTY;
        loop {
            let attacks = ray_scan_dirs(sq, subset, matches!(slider, Slider::Rook));
            let i = e.index(subset);
            // Slider attacks are never empty, so an empty entry is an unused one.
            if table[i].0 != 0 && table[i].0 != attacks.0 {
                panic!("a shipped magic has a destructive collision");
            }
            table[i] = attacks;
            subset = next_subset(subset, e.mask);
            if subset.0 == 0 {
                break;
            }
        }
        s += 1;
    }
}

/// Slider attacks by the classical ray scan, as a `const fn` for the compile-time fill (the
/// square-by-square walk costs the const evaluator several times more).
const fn ray_scan(sq: Square, occupied: Bitboard, dirs: &[usize; 4]) -> Bitboard {
    let mut bb = 0u64;
    let mut i = 0;
    while i < 4 {
        let d = dirs[i];
        let ray = RAYS[d][sq.index()].0;
        let blockers = ray & occupied.0;
        bb |= if blockers == 0 {
            ray
        } else if d < 4 {
            ray ^ RAYS[d][blockers.trailing_zeros() as usize].0
        } else {
            ray ^ RAYS[d][63 - blockers.leading_zeros() as usize].0
        };
        i += 1;
    }
    Bitboard(bb)
}

/// [`ray_scan`] for a rook (`rook`) or a bishop.
pub(crate) const fn ray_scan_dirs(sq: Square, occupied: Bitboard, rook: bool) -> Bitboard {
    ray_scan(sq, occupied, if rook { &ROOK_DIRS } else { &BISHOP_DIRS })
}

/// The packed attack table, filled at compile time.
/// About 3 million steps of const evaluation (a few seconds of build), past the point where the
/// `long_running_const_eval` lint suspects an infinite loop.
#[allow(long_running_const_eval)]
static TABLE: [Bitboard; TABLE_LEN] = {
    let mut table = [Bitboard::EMPTY; TABLE_LEN];
    fill(&mut table, Slider::Rook, &ROOK_ENTRIES);
    fill(&mut table, Slider::Bishop, &BISHOP_ENTRIES);
    table
};

/// What a lookup reads for one square: its [`MagicEntry`] with the offset turned into a pointer
/// to the square's first entry in an attack table, so that the index needs no addition: one
/// step less between the occupancy and the attack set.
#[derive(Clone, Copy)]
pub(super) struct Lookup {
    pub(super) mask: u64,
    pub(super) magic: u64,
    pub(super) attacks: *const Bitboard,
    pub(super) shift: u32,
}

/// The 64 squares' [`Lookup`]s into one table.
pub(super) struct Lookups(pub(super) [Lookup; 64]);

// SAFETY: the pointers point into an immutable `static` table (`lookups` takes it `'static`).
unsafe impl Sync for Lookups {}

/// `entries` as [`Lookups`] into `table`, laid out as `build_entries` gave the offsets.
pub(super) const fn lookups(
    entries: &[MagicEntry; 64],
    table: &'static [Bitboard; TABLE_LEN],
) -> Lookups {
    let mut out = [Lookup {
        mask: 0,
        magic: 0,
        attacks: std::ptr::null(),
        shift: 0,
    }; 64];
    let mut s = 0;
    while s < 64 {
        let e = &entries[s];
        out[s] = Lookup {
            mask: e.mask.0,
            magic: e.magic,
            attacks: table.as_ptr().wrapping_add(e.offset as usize),
            shift: e.shift,
        };
        s += 1;
    }
    Lookups(out)
}

static ROOK_LOOKUPS: Lookups = lookups(&ROOK_ENTRIES, &TABLE);
static BISHOP_LOOKUPS: Lookups = lookups(&BISHOP_ENTRIES, &TABLE);

#[inline(always)]
fn lookup(l: &Lookup, occupied: Bitboard) -> Bitboard {
    let i = ((occupied.0 & l.mask).wrapping_mul(l.magic) >> l.shift) as usize;
    // SAFETY: `(x * magic) >> (64 - bits)` is below `2^bits`, and `build_entries` gave each
    // square `2^bits` entries starting where `attacks` points, within `TABLE`.
    unsafe { *l.attacks.add(i) }
}

impl Magic {
    /// The seed our magic finder ([`Magic::find`]) was run with to produce the magics this
    /// library ships.
    pub const SHIPPED_SEED: u64 = SHIPPED_SEED;
    /// The rook magics this library ships, by square (a1 = 0): `Magic::find(SHIPPED_SEED)`'s.
    pub const ROOK_MAGICS: [u64; 64] = ROOK_MAGICS;
    /// The bishop magics this library ships, by square (a1 = 0).
    pub const BISHOP_MAGICS: [u64; 64] = BISHOP_MAGICS;

    /// Runs our magic finder from `seed`: a magic for every square of both sliders, each
    /// verified against the ray scan, with the search's statistics.
    pub fn find(seed: u64) -> MagicSearch {
        find_magics(seed)
    }

    /// Checks `slider`'s `magics` exhaustively: for every square and every subset of its mask,
    /// the magic index holds the ray scan's attack set. The number of subsets checked, or the
    /// first square whose magic fails.
    pub fn verify(slider: Slider, magics: &[u64; 64]) -> Result<usize, Square> {
        verify_magics(slider, magics)
    }
}

impl Sliders for Magic {
    const NAME: &'static str = "magic";

    #[inline(always)]
    fn rook(sq: Square, occupied: Bitboard) -> Bitboard {
        lookup(&ROOK_LOOKUPS.0[sq.index()], occupied)
    }

    #[inline(always)]
    fn bishop(sq: Square, occupied: Bitboard) -> Bitboard {
        lookup(&BISHOP_LOOKUPS.0[sq.index()], occupied)
    }
}

internal! {
    /// The size of the shipped tables in bytes (attack table plus per-square entries).
    pub const fn table_bytes() -> usize {
        TABLE_LEN * std::mem::size_of::<Bitboard>() + 128 * std::mem::size_of::<Lookup>()
    }
}

internal! {
    /// A small deterministic PRNG (xorshift64*), so that a seed always gives the same magics.
    #[derive(Clone, Debug)]
    pub struct Prng(u64);
}

impl Prng {
    /// A generator from `seed` (a zero seed is replaced, xorshift must not start at 0).
    pub fn new(seed: u64) -> Prng {
        Prng(if seed == 0 {
            0x9E37_79B9_7F4A_7C15
        } else {
            seed
        })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A sparse candidate: the AND of three random values, about 8 bits set.
    pub fn sparse(&mut self) -> u64 {
        self.next_u64() & self.next_u64() & self.next_u64()
    }
}

/// A magic found for one square.
#[derive(Clone, Copy, Debug)]
pub struct FoundMagic {
    /// The multiplier.
    pub magic: u64,
    /// Index bits (the mask's size).
    pub bits: u32,
    /// Distinct attack sets among the `2^bits` subsets.
    pub distinct: usize,
    /// Table entries the square uses (`2^bits`).
    pub entries: usize,
    /// Candidates tried before this one was accepted.
    pub tries: u64,
}

/// The result of a magic search.
#[derive(Clone, Debug)]
pub struct MagicSearch {
    /// The seed of the search's generator (`Prng`).
    pub seed: u64,
    /// The rook magics, square a1 first.
    pub rook: Vec<FoundMagic>,
    /// The bishop magics, square a1 first.
    pub bishop: Vec<FoundMagic>,
    /// The time the search took.
    pub elapsed: Duration,
}

impl MagicSearch {
    /// Total table entries (rook plus bishop).
    pub fn entries(&self) -> usize {
        self.rook
            .iter()
            .chain(&self.bishop)
            .map(|m| m.entries)
            .sum()
    }
}

/// One square's relevant occupancies with their attack sets (by the classical ray scan), and
/// scratch space to test candidate magics against them.
struct Trial {
    bits: u32,
    occupancies: Vec<Bitboard>,
    attacks: Vec<Bitboard>,
    used: Vec<Bitboard>,
    /// `stamp[i] == attempt` marks an entry written by the current attempt: no clearing needed.
    stamp: Vec<u64>,
    attempt: u64,
}

impl Trial {
    fn new(slider: Slider, sq: Square) -> Trial {
        use super::Classical;
        let mask = relevant_mask(slider, sq);
        let occupancies: Vec<Bitboard> = subsets(mask).collect();
        let attacks = occupancies
            .iter()
            .map(|&occ| match slider {
                Slider::Rook => Classical::rook(sq, occ),
                Slider::Bishop => Classical::bishop(sq, occ),
            })
            .collect();
        let size = 1usize << mask.count();
        Trial {
            bits: mask.count(),
            occupancies,
            attacks,
            used: vec![Bitboard::EMPTY; size],
            stamp: vec![0; size],
            attempt: 0,
        }
    }

    /// Whether no two occupancies with different attack sets share an index under `magic`.
    fn works(&mut self, magic: u64) -> bool {
        self.attempt += 1;
        let (bits, attempt) = (self.bits, self.attempt);
        let (used, stamp) = (&mut self.used, &mut self.stamp);
        self.occupancies
            .iter()
            .zip(&self.attacks)
            .all(|(occ, &att)| {
                let i = (occ.0.wrapping_mul(magic) >> (64 - bits)) as usize;
                if stamp[i] != attempt {
                    stamp[i] = attempt;
                    used[i] = att;
                    true
                } else {
                    used[i] == att
                }
            })
    }
}

/// Finds a magic for `slider` on `sq`: draws sparse candidates from `rng`, drops those whose
/// product with the mask has fewer than 6 bits in its top byte (they cannot spread the subsets),
/// and accepts the first under which no two subsets with different attack sets (computed by the
/// classical ray scan) share an index.
pub(crate) fn find_magic(slider: Slider, sq: Square, rng: &mut Prng) -> FoundMagic {
    let mask = relevant_mask(slider, sq);
    let mut trial = Trial::new(slider, sq);
    let mut distinct = trial.attacks.clone();
    distinct.sort_unstable_by_key(|b| b.0);
    distinct.dedup();
    let mut tries = 0u64;
    loop {
        let magic = rng.sparse();
        tries += 1;
        if (mask.0.wrapping_mul(magic) >> 56).count_ones() < 6 {
            continue;
        }
        if trial.works(magic) {
            return FoundMagic {
                magic,
                bits: trial.bits,
                distinct: distinct.len(),
                entries: 1 << trial.bits,
                tries,
            };
        }
    }
}

internal! {
    /// Runs the finder for every square, rooks then bishops, from one seeded PRNG.
    pub fn find_magics(seed: u64) -> MagicSearch {
        let start = Instant::now();
        let mut rng = Prng::new(seed);
        let rook = Square::ALL
            .iter()
            .map(|&sq| find_magic(Slider::Rook, sq, &mut rng))
            .collect();
        let bishop = Square::ALL
            .iter()
            .map(|&sq| find_magic(Slider::Bishop, sq, &mut rng))
            .collect();
        MagicSearch {
            seed,
            rook,
            bishop,
            elapsed: start.elapsed(),
        }
    }
}

internal! {
    /// Checks one slider's magics exhaustively: for every square and every subset of its mask, the
    /// magic index holds the attack set of the classical ray scan. Returns the number of subsets
    /// checked, or the first square whose magic fails.
    pub fn verify_magics(slider: Slider, magics: &[u64; 64]) -> Result<usize, Square> {
        let mut checked = 0;
        for sq in Square::ALL {
            let mut trial = Trial::new(slider, sq);
            if !trial.works(magics[sq.index()]) {
                return Err(sq);
            }
            checked += trial.occupancies.len();
        }
        Ok(checked)
    }
}
