//! The statistics record: the Grand Chess Tree's fields, exact counts of any size or 64-bit
//! ones in the hot code, their sums, and their JSON form.

use crate::nodes::{Nodes, Tally};
use std::ops::{Add, AddAssign};

/// The fields' names, in declaration order (as [`Stats::to_array`] lists them).
const FIELD_NAMES: [&str; 13] = [
    "nodes",
    "captures",
    "enpassants",
    "castles",
    "promotions",
    "direct_checks",
    "single_discovered_checks",
    "direct_discovered_checks",
    "double_discovered_checks",
    "direct_mates",
    "single_discovered_mates",
    "direct_discovered_mates",
    "double_discovered_mates",
];

/// The statistics of the leaves at one depth (the Grand Chess Tree's fields), each an exact
/// [`Nodes`] count; the hot code of shallow subtrees adds them up as `Stats<u64>` (see
/// [`crate::nodes`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Stats<N = Nodes> {
    /// Leaves.
    pub nodes: N,
    /// Leaves reached by a capture (en passant included).
    pub captures: N,
    /// Leaves reached by an en-passant capture.
    pub enpassants: N,
    /// Leaves reached by castling.
    pub castles: N,
    /// Leaves reached by a promotion.
    pub promotions: N,
    /// Checks, not mates, by the moved piece alone.
    pub direct_checks: N,
    /// Checks, not mates, by one piece other than the moved one.
    pub single_discovered_checks: N,
    /// Checks, not mates, by two pieces, one the moved piece.
    pub direct_discovered_checks: N,
    /// Checks, not mates, by two pieces, neither the moved one (en passant only).
    pub double_discovered_checks: N,
    /// Mates by the moved piece alone.
    pub direct_mates: N,
    /// Mates by one piece other than the moved one.
    pub single_discovered_mates: N,
    /// Mates by two pieces, one the moved piece.
    pub direct_discovered_mates: N,
    /// Mates by two pieces, neither the moved one.
    pub double_discovered_mates: N,
}

impl Stats<u64> {
    /// One leaf with nothing to say about the move that led to it (depth 0: the root itself).
    pub const ONE: Stats<u64> = Stats {
        nodes: 1,
        captures: 0,
        enpassants: 0,
        castles: 0,
        promotions: 0,
        direct_checks: 0,
        single_discovered_checks: 0,
        direct_discovered_checks: 0,
        double_discovered_checks: 0,
        direct_mates: 0,
        single_discovered_mates: 0,
        direct_discovered_mates: 0,
        double_discovered_mates: 0,
    };
}

impl<N: Tally> Stats<N> {
    /// The names of the record's fields, in the order of [`Stats::to_array`].
    pub const FIELD_NAMES: [&'static str; 13] = FIELD_NAMES;

    /// The fields in declaration order.
    pub fn to_array(&self) -> [N; 13] {
        [
            self.nodes,
            self.captures,
            self.enpassants,
            self.castles,
            self.promotions,
            self.direct_checks,
            self.single_discovered_checks,
            self.direct_discovered_checks,
            self.double_discovered_checks,
            self.direct_mates,
            self.single_discovered_mates,
            self.direct_discovered_mates,
            self.double_discovered_mates,
        ]
    }

    /// The inverse of [`Stats::to_array`].
    pub fn from_array(a: [N; 13]) -> Stats<N> {
        Stats {
            nodes: a[0],
            captures: a[1],
            enpassants: a[2],
            castles: a[3],
            promotions: a[4],
            direct_checks: a[5],
            single_discovered_checks: a[6],
            direct_discovered_checks: a[7],
            double_discovered_checks: a[8],
            direct_mates: a[9],
            single_discovered_mates: a[10],
            direct_discovered_mates: a[11],
            double_discovered_mates: a[12],
        }
    }

    /// Leaves in check that are not mates (the Wiki's "Checks" column counts mates too: that
    /// is [`Stats::checks`]).
    pub fn checks_without_mates(&self) -> N {
        self.direct_checks
            + self.single_discovered_checks
            + self.direct_discovered_checks
            + self.double_discovered_checks
    }

    /// Leaves in check without a legal move.
    pub fn total_mates(&self) -> N {
        self.direct_mates
            + self.single_discovered_mates
            + self.direct_discovered_mates
            + self.double_discovered_mates
    }

    /// The Wiki's "Checks" column: every leaf in check, mates included.
    pub fn checks(&self) -> N {
        self.checks_without_mates() + self.total_mates()
    }

    /// The Wiki's "Discovery Checks" column.
    pub fn discovery_checks(&self) -> N {
        self.single_discovered_checks
    }

    /// The Wiki's "Double Checks" column.
    pub fn double_checks(&self) -> N {
        self.direct_discovered_checks + self.double_discovered_checks
    }

    /// The Wiki's "Checkmates" column.
    pub fn checkmates(&self) -> N {
        self.total_mates()
    }
}

impl<N: Tally> Stats<N> {
    /// The same record in exact [`Nodes`].
    pub fn widen(&self) -> Stats<Nodes> {
        Stats::from_array(self.to_array().map(Tally::widen))
    }
}

#[cfg(feature = "serde")]
impl<N: Tally + serde::Serialize> serde::Serialize for Stats<N> {
    /// The one JSON form of a record, in every report (`--stats --json`, `perft merge --json`):
    /// the fields in declaration order, with `checks_without_mates` after the checks,
    /// `total_mates` after the mates, and last `checks`, every leaf in check as the Wiki's
    /// "Checks" column counts them (mates included).
    fn serialize<Z: serde::Serializer>(&self, z: Z) -> Result<Z::Ok, Z::Error> {
        use serde::ser::SerializeStruct;
        let mut out = z.serialize_struct("Stats", 16)?;
        for (i, (name, v)) in FIELD_NAMES.iter().zip(self.to_array()).enumerate() {
            out.serialize_field(name, &v)?;
            if i == 8 {
                out.serialize_field("checks_without_mates", &self.checks_without_mates())?;
            }
        }
        out.serialize_field("total_mates", &self.total_mates())?;
        out.serialize_field("checks", &self.checks())?;
        out.end()
    }
}

impl<N: Tally> AddAssign for Stats<N> {
    fn add_assign(&mut self, o: Stats<N>) {
        let (a, b) = (self.to_array(), o.to_array());
        *self = Stats::from_array(std::array::from_fn(|i| a[i] + b[i]));
    }
}

impl<N: Tally> Add for Stats<N> {
    type Output = Stats<N>;
    fn add(mut self, o: Stats<N>) -> Stats<N> {
        self += o;
        self
    }
}
