//! Leaf statistics: how many of perft's leaves were reached by a capture, an en-passant capture,
//! a castle or a promotion, and how many stand in check or mate, split by kind of check, as the
//! Chess Programming Wiki's "Perft Results" tables and the Grand Chess Tree publish them.
//!
//! Every figure counts leaves by the move that led to them. A leaf in check is classified by
//! its checkers and the *moved piece*, the piece on the move's destination (for castling the
//! rook, for a promotion the new piece, for en passant the capturing pawn): *direct*, one
//! checker, the moved piece; *single discovered*, one checker, not the moved piece; *direct
//! discovered*, two checkers, one the moved piece; *double discovered*, two checkers, neither
//! the moved piece (only en passant can do that). A leaf in check without a legal move is a
//! mate of the same kind; the `*_checks` fields count the checks that are not mates.
//!
//! The leaves are not made one by one. At the leaves' parent the move kinds give the capture,
//! en-passant, castle and promotion counts; a move is played (on a copy of the board) only when
//! it gives or may give check. A piece move, pawn push or pawn capture (no promotion, no en
//! passant) gives direct check exactly when its destination is among the squares from which its
//! piece kind attacks the enemy king (the line from there was open, and the move fills no square
//! on it), and discovered check exactly when it leaves a line between one of our sliders and
//! that king (its piece is a *discoverer*): the squares tell the kind of check, and the board
//! after the move is needed only to test for mate. A promotion, an en-passant capture, and a
//! castle whose rook lands on a line to the enemy king (a castle never uncovers a check) may
//! give check: the checkers of the board after the move classify it, so that filter only has
//! to be a superset of the checking moves.

mod classify;
#[cfg(target_arch = "x86_64")]
mod lanes;
mod leaf;
mod record;

pub use record::Stats;

#[cfg(target_arch = "x86_64")]
pub(crate) use lanes::StatsLanes;
pub(crate) use leaf::Statistics;

use crate::tt::compact::CompactStats;
use crate::tt::{Record, Table};

/// A table of statistics records for [`Perft::stats`](crate::perft::Perft::stats): those of
/// depth-2 nodes packed in 32 bytes, verified by 48 bits of the second key (as a count table's
/// depth-2 entries), deeper ones in 64 bytes verified by the whole second key mixed with the
/// depth, the few too large for either whole, verified by both keys and the depth; so an index
/// collision is a miss, never a wrong record.
pub type StatsTable = Table<Stats<u64>>;

/// Statistics are kept packed without locks (depth 2 in 32 bytes, deeper in 64), the few too
/// large for that whole under a lock (see `tt/compact.rs`), and the records whose node count
/// passes 2^64 in a sixty-fourth of the table.
impl Record for Stats<u64> {
    type Wide = Stats;
    type Part = CompactStats;
    type WidePart = crate::tt::record::RecordTable<Stats>;
    const WIDE_SHARE: usize = 64;
    const BYTES_EACH: f64 = crate::tt::compact::BYTES_EACH;
    const SHALLOW_BYTES: f64 = 32.0;
    const DEEP_BYTES: f64 = 64.0;
    const WIDE_BYTES: f64 = crate::tt::record::bytes_each::<Stats>();
    const WIDE_FROM: f64 = 18_446_744_073_709_551_616.0;
    #[inline(always)]
    fn widen(self) -> Stats {
        Stats::widen(&self)
    }
    fn narrow(wide: &Stats) -> Option<Stats<u64>> {
        // Every field is at most `nodes`: if it fits, they all do.
        wide.nodes.to_u64()?;
        Some(Stats::from_array(
            wide.to_array().map(|v| v.to_u64().unwrap_or(u64::MAX)),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::classify::interposed;
    use super::leaf::no_reply_checks;
    use super::{Statistics, Stats};
    use crate::attacks::Magic;
    use crate::bitboard::Bitboard;
    use crate::movegen::legal_moves;
    use crate::nodes::Nodes;
    use crate::perft::Perft;
    use crate::perft::{Baseline, BoardLeaf};
    use crate::position::Position;
    use crate::types::{MoveKind, PieceKind};
    use crate::unchanged_replies::tests::depth_2_nodes;
    use crate::unchanged_replies::{Inert, SliderReach};

    /// The moves of `pos` that [`Inert::for_statistics`] lets go unplayed, and the statistics
    /// of their leaves, each move made and its leaves classified.
    pub(super) fn each_unplayed(pos: &Position) -> (u64, Stats) {
        let reach = SliderReach::of::<Magic>(pos.board());
        let inert = Inert::for_statistics::<Magic>(pos.board(), pos.castle_path_table(), &reach);
        let (mut n, mut total) = (0, Stats::default());
        for &mv in &legal_moves::<Magic>(pos) {
            let Some(piece) = pos.piece_at(mv.from()) else {
                continue;
            };
            let quiet = matches!(mv.kind(), MoveKind::Quiet | MoveKind::DoublePush);
            let to = Bitboard::from_square(mv.to());
            if quiet && inert.unplayed(piece.kind, mv.from(), to).any() {
                let mut child = pos.clone();
                child.make(mv);
                total += Perft::stats().total::<Magic>(&child, 1);
                n += 1;
            }
        }
        (n, total)
    }

    /// Where the opponent has a checking reply, whether it mates may differ from one unplayed
    /// move to the next: the unplayed moves' leaves are then found by playing each, and must
    /// be what making each move gives. Where no reply can give check, they are the board with
    /// no move made, once per move.
    #[test]
    fn unplayed_moves_count_as_if_played() {
        // The position, whether a reply may give check, and whether the unplayed moves'
        // leaves differ from the board with no move made's.
        for (fen, checks, differ) in [
            // Rook to a1 mates unless the knight has gone where it can take on a1 (b3) or
            // block on c1 or e1 (d3): a different number of mates under different moves.
            ("r6k/8/8/2N5/8/8/6PP/7K w - - 0 1", true, true),
            // The rook checks on a1 and e2; neither mates, whatever the knight did.
            ("7k/8/8/8/2N5/8/r7/4K3 w - - 0 1", true, false),
            ("7k/8/8/8/8/8/5PPP/1N4K1 w - - 0 1", false, false),
            // The queen checks from a5, reached along the file, and from no square it reaches
            // along a diagonal: a gate that paired each kind of move with its own kind of line
            // would miss it.
            ("q6k/8/8/8/8/8/4P1PP/1N2K3 w - - 0 1", true, false),
            // Chess960: castling short, their king leaves f8 and their rook lands there,
            // checking along the f-file once the knight has left it: the knight's moves must
            // be played, the pawn's may go unplayed.
            ("5k1r/7p/8/8/8/8/P4N2/5K2 w h - 0 1", false, false),
        ] {
            let pos = Position::from_fen(fen).unwrap();
            assert_eq!(
                no_reply_checks::<Magic>(pos.board()).is_none(),
                checks,
                "{fen}"
            );
            let (n, expected) = each_unplayed(&pos);
            assert!(n > 0, "{fen}: no move left unplayed");
            let mut got = Stats::default();
            Statistics::unplayed::<Magic, Baseline>(&pos, n, &mut got);
            assert_eq!(got.widen(), expected, "{fen}");
            // Where they differ, the board with no move made would not do.
            let times_n = Stats::from_array(passed(&pos).to_array().map(|v| v * n));
            assert_eq!(times_n.widen() != expected, differ, "{fen}");
        }
    }

    /// A promotion's checks are not among what [`Inert::for_statistics`] keeps as they were:
    /// here the knight's moves go unplayed by its rule, and each, made, opens the first rank
    /// for a promotion on g1 that checks, where with no move made none does. So the gate must
    /// answer that a reply may check wherever a pawn of theirs may promote, and then no move
    /// goes unplayed.
    #[test]
    fn a_pawn_about_to_promote_keeps_every_move_played() {
        let pos = Position::from_fen("7k/8/8/8/8/8/6p1/K2N4 w - - 0 1").unwrap();
        assert!(no_reply_checks::<Magic>(pos.board()).is_none());
        let (n, expected) = each_unplayed(&pos);
        assert!(n > 0, "the rule leaves no move unplayed");
        assert_eq!(passed(&pos).checks(), 0);
        assert!(
            expected.checks() != Nodes::ZERO,
            "no unplayed move lets a promotion check"
        );
    }

    /// The statistics of the replies to `pos` with no move made.
    fn passed(pos: &Position) -> Stats<u64> {
        let mut passed = Stats::default();
        Statistics::on_board::<Magic>(&pos.board().passed(), pos.castle_path_table(), &mut passed);
        passed
    }

    /// Where [`interposed`] says a piece of theirs answers a direct check, the board after the
    /// move, made, has a legal move: over the depth-2 nodes' moves that give a direct check
    /// alone (no double push, promotion, castle or en passant), those it answers and those it
    /// leaves to be played, mates among them.
    #[test]
    fn a_check_said_to_be_answered_by_a_piece_is_no_mate() {
        let (mut answered, mut played, mut mates) = (0, 0, 0);
        for pos in depth_2_nodes() {
            let board = pos.board();
            for &mv in &legal_moves::<Magic>(&pos) {
                let Some(piece) = pos.piece_at(mv.from()) else {
                    continue;
                };
                if !matches!(mv.kind(), MoveKind::Quiet | MoveKind::Capture)
                    || piece.kind == PieceKind::King
                {
                    continue;
                }
                let mut child = pos.clone();
                child.make(mv);
                if child.board().checkers() != Bitboard::from_square(mv.to()) {
                    continue;
                }
                let mate = legal_moves::<Magic>(&child).is_empty();
                if interposed::<Magic>(board, piece.kind, mv.from(), mv.to()) {
                    answered += 1;
                    assert!(
                        !mate,
                        "{} after {mv:?}: said answered, but mate",
                        pos.to_fen()
                    );
                } else {
                    played += 1;
                    mates += u64::from(mate);
                }
            }
        }
        eprintln!("{answered} answered, {played} played ({mates} mates)");
        assert!(
            answered > 1000 && played > 1000 && mates > 10,
            "{answered} answered, {played} played ({mates} mates)"
        );
    }

    /// The statistics let moves go unplayed only where [`no_reply_checks`] answers `Some`, and
    /// count the replies of the board with no move made for them: that is right only if then
    /// no reply gives check. Checked against the leaves' own classification, on positions
    /// where replies do check (which the gate must catch) and where none does.
    #[test]
    fn moves_go_unplayed_only_where_no_reply_gives_check() {
        let (mut open, mut checking) = (0, 0);
        for pos in depth_2_nodes() {
            let checks = passed(&pos).checks();
            if checks > 0 {
                checking += 1;
            }
            if no_reply_checks::<Magic>(pos.board()).is_some() {
                open += 1;
                assert_eq!(checks, 0, "a reply gives check in {}", pos.to_fen());
            }
        }
        // Both kinds met, many times: the assertion was really put to the test.
        eprintln!("{open} open, {checking} checking");
        assert!(
            open > 1000 && checking > 1000,
            "{open} open, {checking} checking"
        );
    }

    /// Where the gate lets moves go unplayed, each unplayed move's leaves are those of the
    /// board with no move made: [`BoardLeaf::unplayed`] must give what making each move and
    /// classifying its leaves gives.
    #[test]
    fn unplayed_moves_count_as_if_played_where_no_reply_checks() {
        let mut compared = 0;
        for pos in depth_2_nodes() {
            if no_reply_checks::<Magic>(pos.board()).is_none() {
                continue;
            }
            let (n, expected) = each_unplayed(&pos);
            if n == 0 {
                continue;
            }
            let mut got = Stats::default();
            Statistics::unplayed::<Magic, Baseline>(&pos, n, &mut got);
            assert_eq!(got.widen(), expected, "{}", pos.to_fen());
            compared += 1;
        }
        eprintln!("{compared} positions compared");
        assert!(compared > 500, "{compared} positions compared");
    }
}
