//! Perft: the number of leaf nodes of the legal move tree to a fixed depth.

mod copies;
mod depth2;
mod leaf;
mod tasks;
mod walk;

pub use tasks::{Cancelled, Follow, Watch};

#[cfg(test)]
pub(crate) use copies::Baseline;
pub(crate) use copies::{Build, LastPly};
#[cfg(target_arch = "x86_64")]
pub(crate) use depth2::{Leaves, SharedLanes};
pub(crate) use leaf::{BoardLeaf, Count, Leaf};
pub(crate) use tasks::{divide_leaves, total_leaves};

use crate::attacks::Sliders;
use crate::cpu::Simd;
use crate::movegen;
use crate::nodes::Nodes;
use crate::position::Position;
use crate::stats::{Statistics, Stats};
use crate::tt::Record;
use crate::tt::Table;
use crate::types::Move;
use leaf::EveryMove;

/// How the last ply is counted.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Counting {
    /// At depth 1, count the legal moves without making them (the usual perft).
    Bulk,
    /// Make every move down to depth 0 and count 1 per leaf: exercises make/unmake everywhere.
    NoBulk,
}

internal! {
    /// Subtrees of this many plies or fewer are counted in `u64`, deeper ones in [`Nodes`]: every
    /// position the parser accepts has fewer than [`movegen::MAX_MOVES`] = 1104 legal moves, and
    /// 1104^6 < 2^64, so no count of six plies can overflow a `u64` (see [`crate::nodes`]). The
    /// plies above are made and unmade one by one (`wide`), so the hot code never adds wide
    /// numbers and never checks for overflow.
    pub const NARROW_DEPTH: u32 = 6;
}
const _: () = assert!((movegen::MAX_MOVES as u128).pow(NARROW_DEPTH) < 1 << 64);

/// While a level has fewer leaves than this, [`estimate_leaves`] counts the next one too (one
/// reply count per leaf of this level: tens of milliseconds at most).
const EXACT_LEAVES: u64 = 1_000_000;

internal! {
    /// A rough estimate of `perft(pos, depth)`, for sizing a table. The tree is counted level by
    /// level while it is small (below a million leaves), so a count that small is exact, and a tree
    /// that dies out on the way is 0 (it needs no table: extrapolated from its first plies, a tree
    /// that grows for a few plies and then ends in mates and stalemates, or blocked pawns, was
    /// given the whole memory). Beyond that perft 3 times the growth from depth 2 to 3 for each
    /// further ply (the rule the sizes of `--hash auto` are tuned to).
    /// Takes a few tens of milliseconds at most (the last level counted exactly has under a million
    /// leaf parents).
    pub fn estimate_leaves<S: Sliders>(pos: &Position, depth: u32) -> f64 {
        let (mut d, mut n) = (0, 1.0);
        // Perft 2 and 3, once counted: the extrapolation's base and growth.
        let mut n2_n3 = (1.0, 1.0);
        while d < depth && (d < 3 || n < EXACT_LEAVES as f64) {
            d += 1;
            let before = n;
            n = Perft::new().total::<S>(pos, d).to_f64();
            if n == 0.0 {
                return 0.0;
            }
            if d == 3 {
                n2_n3 = (before, n);
            }
        }
        if d == depth {
            return n;
        }
        let (n2, n3) = n2_n3;
        n3 * (n3 / n2).powi(depth as i32 - 3)
    }
}

internal! {
    /// What a table for `perft(pos, depth)` is sized and divided by: its leaves estimated
    /// ([`estimate_leaves`]) and its distinct positions bounded by the material
    /// ([`crate::tt::distinct_bound`]).
    pub fn estimate_count<S: Sliders>(pos: &Position, depth: u32) -> crate::tt::CountSize {
        crate::tt::CountSize {
            leaves: estimate_leaves::<S>(pos, depth),
            depth,
            distinct: crate::tt::distinct_bound(pos),
        }
    }
}

/// A count, and how it is carried out: what it adds up (`T`: [`Nodes`], or
/// [`Stats`]), how the last ply is counted, the threads, the table, the
/// last ply's code, and whether a [`Watch`] follows it (`F`). Chosen once, before the count
/// starts; then [`Perft::total`] or [`Perft::divide`] to any depth, as often as wanted. The
/// slider implementation is the type parameter of each count, so each choice is its own
/// compiled code.
///
/// ```
/// use perft::perft::{Counting, Perft};
/// use perft::tt::Table;
/// use perft::{Classical, Magic, Nodes, Position};
///
/// // The start position's published counts, with either slider implementation.
/// let start = Position::from_fen(perft::position::STARTPOS).unwrap();
/// assert_eq!(Perft::new().total::<Magic>(&start, 5), Nodes::from(4_865_609u64));
/// let every_move = Perft::new().counting(Counting::NoBulk);
/// assert_eq!(every_move.total::<Classical>(&start, 3), Nodes::from(8_902u64));
///
/// // Kiwipete to depth 4 (published: 4,085,603) on four threads sharing a 16 MiB table, and
/// // its divide: 48 root moves, adding up to the same.
/// let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
/// let pos = Position::from_fen(kiwipete).unwrap();
/// let table = Table::new(16).unwrap();
/// let count = Perft::new().threads(4).table(&table);
/// assert_eq!(count.total::<Magic>(&pos, 4), Nodes::from(4_085_603u64));
/// let lines = count.divide::<Magic>(&pos, 4);
/// assert_eq!(lines.len(), 48);
/// assert_eq!(lines.iter().map(|&(_, n)| n).sum::<Nodes>(), Nodes::from(4_085_603u64));
/// ```
pub struct Perft<'a, T: Total = Nodes, F: Follow = ()> {
    /// How the last ply is counted (statistics classify every leaf either way).
    pub counting: Counting,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// The shared transposition table, if hashing.
    pub table: Option<&'a Table<T::Narrow>>,
    /// The last ply's code.
    pub simd: Simd,
    follow: &'a F,
}

impl<T: Total, F: Follow> Clone for Perft<'_, T, F> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Total, F: Follow> Copy for Perft<'_, T, F> {}

impl Perft<'_> {
    /// A count of nodes: bulk counting, one thread, no table, the widest last-ply code the
    /// CPU runs ([`Simd::detect`]).
    pub fn new() -> Self {
        Perft::of()
    }
}

/// [`Perft::new`] or [`Perft::stats`], for code generic over what is counted.
impl<T: Total> Default for Perft<'_, T> {
    fn default() -> Self {
        Perft::of()
    }
}

impl Perft<'_, Stats> {
    /// A count of leaf statistics, otherwise as [`Perft::new`].
    ///
    /// ```
    /// use perft::perft::Perft;
    /// use perft::{Magic, Nodes, Position};
    ///
    /// // The start position at depth 4, as published: 1,576 captures, 469 checks, 8 mates.
    /// let pos = Position::from_fen(perft::position::STARTPOS).unwrap();
    /// let s = Perft::stats().total::<Magic>(&pos, 4);
    /// assert_eq!(s.nodes, Nodes::from(197_281u64));
    /// assert_eq!(s.captures, Nodes::from(1_576u64));
    /// assert_eq!(s.checks(), Nodes::from(469u64)); // the published column counts mates too
    /// assert_eq!(s.checkmates(), Nodes::from(8u64));
    /// ```
    pub fn stats() -> Self {
        Perft::of()
    }
}

impl<'a, T: Total> Perft<'a, T> {
    fn of() -> Self {
        Perft {
            counting: Counting::Bulk,
            threads: 1,
            table: None,
            simd: Simd::detect(),
            follow: &(),
        }
    }
}

impl<'a, T: Total, F: Follow> Perft<'a, T, F> {
    /// The same count, its last ply counted as `counting` says.
    pub fn counting(self, counting: Counting) -> Self {
        Perft { counting, ..self }
    }

    /// The same count on `threads` threads (at least 1).
    pub fn threads(self, threads: usize) -> Self {
        Perft {
            threads: threads.max(1),
            ..self
        }
    }

    /// The same count through `table`, or none.
    pub fn table(self, table: impl Into<Option<&'a Table<T::Narrow>>>) -> Self {
        Perft {
            table: table.into(),
            ..self
        }
    }

    /// The same count with the last ply's code `simd`.
    pub fn simd(self, simd: Simd) -> Self {
        Perft { simd, ..self }
    }

    /// The same count, followed by `watch` and stopped by it: the tree is always split into
    /// tasks (on one thread too), so that progress moves and a cancel is seen within one
    /// task's time; each count then returns `Err(Cancelled)` if it was cancelled.
    pub fn watch<'b>(self, watch: &'b Watch) -> Perft<'b, T, Watch>
    where
        'a: 'b,
    {
        Perft {
            counting: self.counting,
            threads: self.threads,
            table: self.table,
            simd: self.simd,
            follow: watch,
        }
    }

    /// The total of the leaves `depth` plies below `pos` (depth 0 is the position itself).
    pub fn total<S: Sliders>(&self, pos: &Position, depth: u32) -> F::Out<T> {
        let total = T::total::<S, F>(self, pos, depth);
        self.follow.outcome(total)
    }

    /// The divide: the total under each legal move of `pos`, in generation order, `depth` >= 1
    /// plies deep counting the move.
    pub fn divide<S: Sliders>(&self, pos: &Position, depth: u32) -> F::Out<Vec<(Move, T)>> {
        let lines = T::divide::<S, F>(self, pos, depth);
        self.follow.outcome(lines)
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::nodes::Nodes {}
    impl Sealed for crate::stats::Stats {}
}

/// What a count adds up: [`Nodes`], or the leaves' [`Stats`]. Sealed:
/// each is its own compiled walk.
pub trait Total: Copy + Default + std::ops::AddAssign + Send + sealed::Sealed {
    /// The 64-bit record of a subtree that a [`Table`] keeps.
    type Narrow: Record<Wide = Self>;
    /// [`Perft::total`] of this kind.
    #[doc(hidden)]
    fn total<S: Sliders, F: Follow>(count: &Perft<'_, Self, F>, pos: &Position, depth: u32)
    -> Self;
    /// [`Perft::divide`] of this kind.
    #[doc(hidden)]
    fn divide<S: Sliders, F: Follow>(
        count: &Perft<'_, Self, F>,
        pos: &Position,
        depth: u32,
    ) -> Vec<(Move, Self)>;
}

/// Runs `job` with the leaf kind `counting` names: the one place the option becomes code.
macro_rules! by_counting {
    ($counting:expr, $leaf:ident => $job:expr) => {
        match $counting {
            Counting::Bulk => {
                type $leaf = Count;
                $job
            }
            Counting::NoBulk => {
                type $leaf = EveryMove;
                $job
            }
        }
    };
}

impl Total for Nodes {
    type Narrow = u64;
    fn total<S: Sliders, F: Follow>(c: &Perft<'_, Nodes, F>, pos: &Position, depth: u32) -> Nodes {
        by_counting!(c.counting, L => total_leaves::<S, L, F>(
            pos, depth, c.threads, c.table, c.simd, c.follow
        ))
    }
    fn divide<S: Sliders, F: Follow>(
        c: &Perft<'_, Nodes, F>,
        pos: &Position,
        depth: u32,
    ) -> Vec<(Move, Nodes)> {
        by_counting!(c.counting, L => divide_leaves::<S, L, F>(
            pos, depth, c.threads, c.table, c.simd, c.follow
        ))
    }
}

impl Total for Stats {
    type Narrow = Stats<u64>;
    fn total<S: Sliders, F: Follow>(c: &Perft<'_, Stats, F>, pos: &Position, depth: u32) -> Stats {
        total_leaves::<S, Statistics, F>(pos, depth, c.threads, c.table, c.simd, c.follow)
    }
    fn divide<S: Sliders, F: Follow>(
        c: &Perft<'_, Stats, F>,
        pos: &Position,
        depth: u32,
    ) -> Vec<(Move, Stats)> {
        divide_leaves::<S, Statistics, F>(pos, depth, c.threads, c.table, c.simd, c.follow)
    }
}

/// A divide as the text users compare: `(UCI move, total)` sorted by move, castling written as
/// the position's rules require.
pub fn uci_lines<T>(pos: &Position, lines: Vec<(Move, T)>) -> Vec<(String, T)> {
    let mut lines: Vec<(String, T)> = lines
        .into_iter()
        .map(|(mv, n)| (mv.to_uci(pos.is_chess960()), n))
        .collect();
    lines.sort_by(|a, b| a.0.cmp(&b.0));
    lines
}
