//! Perft: the number of leaf nodes of the legal move tree to a fixed depth.

mod copies;
mod depth2;
mod leaf;
mod tasks;
mod walk;

pub use tasks::{Cancelled, Watch};

#[cfg(test)]
pub(crate) use copies::Baseline;
pub(crate) use copies::Build;
pub(crate) use depth2::{OneByOne, perft_2_as};
pub(crate) use leaf::{BoardLeaf, Leaf};
pub(crate) use tasks::{divide_leaves, total_leaves};

use crate::attacks::Sliders;
use crate::cpu::Simd;
use crate::movegen;
use crate::nodes::Nodes;
use crate::position::Position;
use crate::tt::Table;
use crate::types::Move;
use leaf::{Count, EveryMove};
use std::marker::PhantomData;
use tasks::Follow;

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

/// Perft of `pos` to `depth` plies (`depth` 0 is one node), exact at any depth, on this
/// thread with the widest last-ply code the CPU runs ([`Simd::detect`]). The position is
/// restored on return.
///
/// ```
/// use perft::perft::{Counting, perft};
/// use perft::{Classical, Magic, Nodes, Position};
///
/// // The start position's published counts, with either slider implementation.
/// let mut pos = Position::from_fen(perft::position::STARTPOS).unwrap();
/// assert_eq!(perft::<Magic>(&mut pos, 5, Counting::Bulk), Nodes::from(4_865_609u64));
/// assert_eq!(perft::<Classical>(&mut pos, 3, Counting::NoBulk), Nodes::from(8_902u64));
/// ```
pub fn perft<S: Sliders>(pos: &mut Position, depth: u32, counting: Counting) -> Nodes {
    perft_with::<S>(pos, depth, Options::single(counting))
}

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
        let mut p = pos.clone();
        let (mut d, mut n) = (0, 1.0);
        // Perft 2 and 3, once counted: the extrapolation's base and growth.
        let mut n2_n3 = (1.0, 1.0);
        while d < depth && (d < 3 || n < EXACT_LEAVES as f64) {
            d += 1;
            let before = n;
            n = perft::<S>(&mut p, d, Counting::Bulk).to_f64();
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

/// How a perft run is carried out: chosen once, before the count starts.
#[derive(Clone, Copy)]
pub struct Options<'a> {
    /// How the last ply is counted.
    pub counting: Counting,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// The shared transposition table, if hashing.
    pub table: Option<&'a Table>,
    /// The last ply's code (bulk counting only).
    pub simd: Simd,
}

impl Options<'_> {
    /// One thread, no table, the widest last-ply code the CPU runs.
    pub fn single(counting: Counting) -> Options<'static> {
        Options {
            counting,
            threads: 1,
            table: None,
            simd: Simd::detect(),
        }
    }
}

/// Work on a count of nodes that runs for either kind of count, [`Count`] or [`EveryMove`]:
/// [`by_counting`] hands it the kind [`Counting`] names, as a type.
trait NodeJob {
    type Output;
    fn run<L: Leaf<Narrow = u64, Wide = Nodes>>(self) -> Self::Output;
}

/// Runs `job` with the kind of count `counting` names: the one place the option becomes code.
fn by_counting<J: NodeJob>(counting: Counting, job: J) -> J::Output {
    match counting {
        Counting::Bulk => job.run::<Count>(),
        Counting::NoBulk => job.run::<EveryMove>(),
    }
}

/// [`total_leaves`] as a [`NodeJob`].
struct Total<'a, S> {
    pos: &'a Position,
    depth: u32,
    opts: Options<'a>,
    sliders: PhantomData<S>,
}

impl<S: Sliders> NodeJob for Total<'_, S> {
    type Output = Nodes;
    fn run<L: Leaf<Narrow = u64, Wide = Nodes>>(self) -> Nodes {
        let o = self.opts;
        total_leaves::<S, L>(self.pos, self.depth, o.threads, o.table, o.simd)
    }
}

/// [`divide_leaves`] as a [`NodeJob`].
struct Divide<'a, S, F> {
    pos: &'a Position,
    depth: u32,
    opts: Options<'a>,
    follow: &'a F,
    sliders: PhantomData<S>,
}

impl<S: Sliders, F: Follow> NodeJob for Divide<'_, S, F> {
    type Output = Vec<(Move, Nodes)>;
    fn run<L: Leaf<Narrow = u64, Wide = Nodes>>(self) -> Vec<(Move, Nodes)> {
        let o = self.opts;
        divide_leaves::<S, L, F>(
            self.pos,
            self.depth,
            o.threads,
            o.table,
            o.simd,
            self.follow,
        )
    }
}

/// The divide (count under each root move, generation order) with `opts`: several threads share
/// the work through an atomic task index, and the table if there is one. `depth` >= 1.
pub fn divide_with<S: Sliders>(
    pos: &Position,
    depth: u32,
    opts: Options<'_>,
) -> Vec<(Move, Nodes)> {
    divide_counts::<S, ()>(pos, depth, opts, &())
}

/// [`divide_leaves`] of the kind of count `opts.counting` names.
fn divide_counts<S: Sliders, F: Follow>(
    pos: &Position,
    depth: u32,
    opts: Options<'_>,
    follow: &F,
) -> Vec<(Move, Nodes)> {
    let job = Divide {
        pos,
        depth,
        opts,
        follow,
        sliders: PhantomData::<S>,
    };
    by_counting(opts.counting, job)
}

/// [`divide_with`] that `watch` follows and can stop: the tree is always split into tasks (on
/// one thread too), so that progress moves and a cancel is seen within one task's time.
pub fn divide_watched<S: Sliders>(
    pos: &Position,
    depth: u32,
    opts: Options<'_>,
    watch: &Watch,
) -> Result<Vec<(Move, Nodes)>, Cancelled> {
    let lines = divide_counts::<S, Watch>(pos, depth, opts, watch);
    if watch.is_cancelled() {
        return Err(Cancelled);
    }
    Ok(lines)
}

/// Perft with `opts` (threads, table, the last ply's code); depth 0 is one node.
///
/// ```
/// use perft::perft::{Counting, Options, perft_with};
/// use perft::tt::Table;
/// use perft::{Magic, Nodes, Position};
///
/// // Kiwipete to depth 4 (published: 4,085,603) on four threads sharing a 16 MiB table.
/// let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
/// let pos = Position::from_fen(kiwipete).unwrap();
/// let table = Table::new(16).unwrap();
/// let opts = Options { threads: 4, table: Some(&table), ..Options::single(Counting::Bulk) };
/// assert_eq!(perft_with::<Magic>(&pos, 4, opts), Nodes::from(4_085_603u64));
/// ```
pub fn perft_with<S: Sliders>(pos: &Position, depth: u32, opts: Options<'_>) -> Nodes {
    let job = Total {
        pos,
        depth,
        opts,
        sliders: PhantomData::<S>,
    };
    by_counting(opts.counting, job)
}

/// [`divide_with`] as the text users compare: `(UCI move, count)` sorted by move, castling
/// written as the position's rules require.
pub fn divide_uci<S: Sliders>(
    pos: &Position,
    depth: u32,
    opts: Options<'_>,
) -> Vec<(String, Nodes)> {
    let mut lines: Vec<(String, Nodes)> = divide_with::<S>(pos, depth, opts)
        .into_iter()
        .map(|(mv, n)| (mv.to_uci(pos.is_chess960()), n))
        .collect();
    lines.sort();
    lines
}
