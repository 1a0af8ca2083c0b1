//! What a count will store, estimated before it starts: how large a table it can use
//! (`--hash auto`), and how a table of a given size is best divided between its parts.
//!
//! A count stores one record per distinct position and depth from two plies above the leaves
//! up. Their number and kind depend on the tree: a dense tree (the start position) has far more
//! positions two plies above the leaves than anywhere else, all of them in the depth-2 part; a
//! sparse tree counted deep (two bare kings) has a few thousand positions on every ply, and most
//! of its records hold counts too large for the narrow part. A table divided for the one thrashes
//! on the other, so the division follows the estimate.

use super::Record;
use crate::position::Position;
use crate::types::{Color, PieceKind};

/// Nodes per distinct position grow about this much per ply from the fourth on (the start
/// position's: 2.3x, 2.6x, 2.9x, 3.0x from ply 5 to 8, OEIS A083276 against the published
/// perft counts).
const TRANSPOSITION_GROWTH: f64 = 2.5;

/// A count a table is made for, as far as it is known before the count starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CountSize {
    /// About how many leaves it has.
    pub leaves: f64,
    /// Its depth.
    pub depth: u32,
    /// The most distinct positions any of its plies can have ([`distinct_bound`]; infinite
    /// where nothing bounds them but the node counts).
    pub distinct: f64,
}

impl CountSize {
    /// A count of about `leaves` leaves at `depth`, its distinct positions bounded only by the
    /// node counts.
    pub fn dense(leaves: f64, depth: u32) -> CountSize {
        CountSize {
            leaves,
            depth,
            distinct: f64::INFINITY,
        }
    }

    /// The records it stores in a table of records `N`.
    pub fn shape<N: Record>(&self) -> Shape {
        Shape::estimate::<N>(self.leaves, self.depth, self.distinct)
    }

    /// The size in MiB of a table of records `N` for it (`--hash auto`), with `available`
    /// bytes of memory (1 GiB assumed when unknown): two entries for each record it is
    /// estimated to store, up to 8 GiB, one each beyond; never more than the available memory
    /// less a tenth of it (at least 1 GiB left over); none for a count below depth 3 or that
    /// stores nothing.
    pub fn auto_mb<N: Record>(&self, available: Option<u64>) -> usize {
        auto_mb::<N>(&self.shape::<N>(), self.depth, available)
    }

    /// The division of a table of records `N` of `mb` MiB for it.
    pub fn layout<N: Record>(&self, mb: usize) -> Layout {
        Layout::for_shape::<N>(&self.shape::<N>(), mb.saturating_mul(1 << 20))
    }
}

/// The records a count will store, by the part of the table that keeps them, estimated.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Shape {
    /// Records of depth 2.
    pub shallow: f64,
    /// Deeper records whose totals fit the narrow part.
    pub deep: f64,
    /// Records whose totals are too large for it.
    pub wide: f64,
}

impl Shape {
    /// The records of a count of about `leaves` leaves at `depth` kept in a table of records
    /// `N`, where no ply has more than `distinct` distinct positions (see [`distinct_bound`]).
    ///
    /// A node `k` plies from the root stands for `b^k` nodes, `b` the mean branching factor
    /// `leaves^(1/depth)`, fewer distinct positions from the fourth ply on (see
    /// `TRANSPOSITION_GROWTH`) and never more than `distinct`; its total is about `b^(depth -
    /// k)`, wide from [`Record::WIDE_FROM`] on.
    pub fn estimate<N: Record>(leaves: f64, depth: u32, distinct: f64) -> Shape {
        let mut shape = Shape::default();
        if depth < 2 || leaves.is_nan() || leaves < 1.0 {
            return shape;
        }
        let b = leaves.powf(1.0 / depth as f64).max(1.0);
        for k in 0..=depth - 2 {
            let nodes = b.powi(k as i32);
            let positions = (nodes / TRANSPOSITION_GROWTH.powi(k.saturating_sub(3) as i32))
                .min(distinct)
                .max(1.0);
            let remaining = depth - k;
            if remaining == 2 {
                shape.shallow += positions;
            } else if b.powi(remaining as i32) >= N::WIDE_FROM {
                shape.wide += positions;
            } else {
                shape.deep += positions;
            }
        }
        shape
    }

    /// The bytes that hold each record once.
    fn one_each<N: Record>(&self) -> f64 {
        self.shallow * N::BYTES_EACH + self.deep * N::DEEP_BYTES + self.wide * N::WIDE_BYTES
    }
}

/// An upper bound on the distinct positions of one side to move that can follow `pos`: each
/// piece but the kings either captured or on one of 62 squares, a pawn as itself or promoted
/// (five kinds), with the castling rights and en-passant squares the position can still have.
/// Astronomic for a full board (the estimate from the node counts is then the smaller), a few
/// thousand for two bare kings (64 x 63).
pub fn distinct_bound(pos: &Position) -> f64 {
    let board = pos.board();
    let mut bound = 64.0 * 63.0;
    for color in [Color::White, Color::Black] {
        let pawns = board.pieces(color, PieceKind::Pawn).count();
        let others = board.color(color).count() - pawns - 1;
        bound *= (1.0 + 5.0 * 62.0f64).powi(pawns as i32) * 63.0f64.powi(others as i32);
        if pawns > 0 {
            bound *= 9.0; // no en-passant square, or one of eight
        }
    }
    bound * 2.0f64.powi(board.castling_rooks().count() as i32)
}

/// How a table's bytes are divided: the share of its wide part, and of the rest the share of
/// the narrow records of depth 3 and more (where the narrow part divides by depth).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layout {
    /// The wide part's share of the table.
    pub wide: f64,
    /// The deeper narrow records' share of the narrow part.
    pub deep: f64,
}

/// Room a part is given beyond its estimated records, where the table has it: a part full to
/// the brim drops records it needs.
const HEADROOM: f64 = 2.0;
/// The wide part's least share, for counts that pass the narrow part's limit where the
/// estimate said they would not.
const LEAST_WIDE: f64 = 1.0 / 1024.0;
/// The most any one part gets, so that the others keep room for what the estimate missed.
const MOST: f64 = 7.0 / 8.0;
/// The deeper narrow records' least share of the narrow part: a fifth, for about an eighth of
/// a dense tree's records (the start position has 9.4 million distinct positions six plies
/// in, 96.4 million seven plies in, OEIS A083276), each saving a larger count.
const LEAST_DEEP: f64 = 1.0 / 5.0;

impl Layout {
    /// The division for a table of records `N` when nothing is known of the count.
    pub fn fixed<N: Record>() -> Layout {
        Layout {
            wide: 1.0 / N::WIDE_SHARE as f64,
            deep: LEAST_DEEP,
        }
    }

    /// The division of a table of `bytes` bytes for a count of shape `shape`: the wide part
    /// what its records need with room to spare (twice), from a 1024th of the table to seven
    /// eighths; the deeper narrow records their part of the rest by what they need against
    /// the depth-2 records, from a fifth to seven eighths.
    pub fn for_shape<N: Record>(shape: &Shape, bytes: usize) -> Layout {
        let bytes = (bytes as f64).max(1.0);
        let wide = (shape.wide * N::WIDE_BYTES * HEADROOM / bytes).clamp(LEAST_WIDE, MOST);
        let deep = shape.deep * N::DEEP_BYTES;
        let shallow = shape.shallow * N::SHALLOW_BYTES;
        let deep = if deep + shallow > 0.0 {
            (deep / (deep + shallow)).clamp(LEAST_DEEP, MOST)
        } else {
            LEAST_DEEP
        };
        Layout { wide, deep }
    }
}

/// The memory the system says it can give without swapping (`MemAvailable` in
/// `/proc/meminfo`), in bytes; `None` where that is not known.
pub(super) fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb.saturating_mul(1024))
}

/// Entries [`auto_mb`] gives each estimated record while the table stays within
/// [`SMALL_TABLE`].
const ENTRIES_EACH: f64 = 2.0;

/// The largest table [`auto_mb`] gives more than one entry per estimated record: 8 GiB, about
/// 9 s of mapping on this project's VM.
const SMALL_TABLE: f64 = (8u64 << 30) as f64;

/// The size in MiB of a table of records `N` (node counts, `u64`, or statistics) for a count
/// of shape `shape` (`--hash auto`), with `available` bytes of memory (see
/// [`available_memory`]; 1 GiB assumed when unknown).
///
/// Two entries for each estimated record, but no more than 8 GiB unless one entry each is more
/// than that (then one each): mapping costs time in proportion to size, so capacity is worth
/// it only while it saves more counting than that (the sizes measured are in
/// docs/performance.md). Never more than the available memory less a tenth of it (at least
/// 1 GiB left over); at least 1 MiB; none at all for a count that stores nothing (below depth
/// 3 nothing is looked up but the root).
fn auto_mb<N: Record>(shape: &Shape, depth: u32, available: Option<u64>) -> usize {
    let one_each = shape.one_each::<N>();
    if depth < 3 || one_each.is_nan() || one_each <= 0.0 {
        return 0;
    }
    let available = available.unwrap_or(1 << 30) as f64;
    let budget = available - (available / 10.0).max((1u64 << 30) as f64);
    let bytes = (ENTRIES_EACH * one_each)
        .min(one_each.max(SMALL_TABLE))
        .min(budget);
    ((bytes / (1u64 << 20) as f64) as usize).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position;

    #[test]
    fn two_bare_kings_are_bounded_by_their_placements() {
        let kings = Position::from_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1").unwrap();
        assert_eq!(distinct_bound(&kings), 64.0 * 63.0);
        let start = Position::startpos();
        assert!(distinct_bound(&start) > 1e40);
    }

    #[test]
    fn a_sparse_deep_count_is_mostly_wide_and_a_dense_one_mostly_shallow() {
        // Two bare kings: about 6.7 moves a node; 64 plies.
        let kings = Shape::estimate::<u64>(6.7f64.powi(64), 64, 4032.0);
        assert!(kings.wide > 3.0 * kings.deep, "{kings:?}");
        assert!(kings.wide + kings.deep + kings.shallow <= 63.0 * 4032.0);
        let layout = Layout::for_shape::<u64>(&kings, 16 << 20);
        assert!(layout.wide > 0.5 && layout.deep > 0.5, "{layout:?}");
        // The start position's perft 10 (published: 69,352,859,712,417).
        let start = Shape::estimate::<u64>(6.935e13, 10, 1e50);
        assert!(
            start.shallow > 4.0 * start.deep && start.wide < 100.0,
            "{start:?}"
        );
        let layout = Layout::for_shape::<u64>(&start, 8 << 30);
        assert_eq!(layout.wide, LEAST_WIDE);
    }
}
