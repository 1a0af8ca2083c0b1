//! What identifies a job: the position as it decides the tree below it (pieces, side to move,
//! castling rights, and the en-passant square only where a capture there is legal), and the
//! job's FEN written from that.

use crate::attacks::Sliders;
use crate::movegen::legal_moves;
use crate::position::Position;
use crate::types::{Color, MoveKind, PieceKind};

/// What identifies a position for the tree below it (exactly: no hashing).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct JobKey {
    /// Per square a 4-bit code, one bit per plane: the kind (1-6, 0 empty) in planes 0-2, Black
    /// in plane 3.
    planes: [u64; 4],
    castling: u64,
    side: u8,
    /// The en-passant square's index where a capture there is legal, else 64.
    ep: u8,
}

/// The key of `pos` (its en-passant square only where a capture there is legal).
pub(crate) fn job_key<S: Sliders>(pos: &Position) -> JobKey {
    let board = pos.board();
    let mut planes = [0u64; 4];
    for color in Color::BOTH {
        for kind in PieceKind::ALL {
            let set = board.pieces(color, kind).0;
            let code = kind.index() + 1;
            for (bit, plane) in planes.iter_mut().take(3).enumerate() {
                if code & (1 << bit) != 0 {
                    *plane |= set;
                }
            }
        }
    }
    planes[3] = board.color(Color::Black).0;
    JobKey {
        planes,
        castling: board.castling_rooks().0,
        side: board.side_to_move() as u8,
        ep: if ep_capture_is_legal::<S>(pos) {
            board.ep_square().map_or(64, |sq| sq.index() as u8)
        } else {
            64
        },
    }
}

/// Whether `pos` has an en-passant square and a legal capture onto it.
fn ep_capture_is_legal<S: Sliders>(pos: &Position) -> bool {
    pos.board().ep_square().is_some()
        && legal_moves::<S>(pos)
            .iter()
            .any(|m| m.kind() == MoveKind::EnPassant)
}

/// The job's FEN: the en-passant square only where a capture there is legal, counters `0 1`.
pub(crate) fn job_fen<S: Sliders>(pos: &Position) -> String {
    let fen = pos.to_fen();
    let fields: Vec<&str> = fen.split_ascii_whitespace().collect();
    let ep = if ep_capture_is_legal::<S>(pos) {
        fields.get(3).copied().unwrap_or("-")
    } else {
        "-"
    };
    format!(
        "{} {} {} {ep} 0 1",
        fields.first().copied().unwrap_or(""),
        fields.get(1).copied().unwrap_or("w"),
        fields.get(2).copied().unwrap_or("-")
    )
}

/// One job of a split.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// Its number in the split, from 0 (jobs are numbered in the order of their positions' keys).
    pub id: u64,
    /// How many paths from the root reach its position.
    pub multiplicity: u64,
    /// The depth its position is counted to.
    pub depth: u32,
    /// Its position.
    pub fen: String,
}

impl Job {
    pub(crate) fn line(&self) -> String {
        format!(
            "{} {} {} {}",
            self.id, self.multiplicity, self.depth, self.fen
        )
    }
}

#[cfg(test)]
mod tests {
    use super::{job_fen, job_key};
    use crate::attacks::Magic;
    use crate::position::Position;

    #[test]
    fn an_en_passant_square_without_a_legal_capture_does_not_split_a_job() {
        // After 1. e4 the square e3 is set but Black cannot take: the same job as the position
        // reached with no en-passant square.
        let mut a = Position::startpos();
        crate::movegen::play_uci_moves(&mut a, ["e2e4"]).unwrap();
        let b = Position::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
            .unwrap();
        assert!(job_key::<Magic>(&a) == job_key::<Magic>(&b));
        assert!(job_fen::<Magic>(&a).contains(" b KQkq - 0 1"));
        // Where a capture is legal, it does.
        let c = Position::from_fen("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1").unwrap();
        let d = Position::from_fen("4k3/8/8/8/3pP3/8/8/4K3 b - - 0 1").unwrap();
        assert!(job_key::<Magic>(&c) != job_key::<Magic>(&d));
    }
}
