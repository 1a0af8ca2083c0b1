//! The statistics' lanes against the one-board leaf, in each kind of lanes the CPU has.

use super::{Batch, CheckSets, LANES, Lane, Mover, StatsLanes, Steps, one_board_only};
use crate::attacks::{self, Magic};
use crate::bitboard::Bitboard;
use crate::lanes::BatchStats;
use crate::lanes::{V256, V512};
use crate::movegen::legal_moves;
use crate::perft::{Baseline, BoardLeaf, Leaves, SharedLanes};
use crate::position::{Board, CastlePaths};
use crate::stats::leaf::{discoverers, no_reply_checks};
use crate::stats::tests::each_unplayed;
use crate::stats::{Statistics, Stats};
use crate::types::{MoveKind, PieceKind};
use crate::unchanged_replies::tests::depth_2_nodes;

/// Runs the test `$f::<V>()` (unsafe: the CPU must have `V`'s instructions) in each kind
/// of lanes the CPU has.
macro_rules! in_each_kind_of_lanes {
    ($f:ident) => {{
        let mut ran = 0;
        if crate::cpu::has_avx512_lanes() {
            // SAFETY: the CPU has the AVX-512 lanes' instructions.
            unsafe { $f::<V512>() };
            ran += 1;
        }
        if crate::cpu::has_v3() {
            // SAFETY: the CPU has the AVX2 lanes' instructions.
            unsafe { $f::<V256>() };
            ran += 1;
        }
        eprintln!("ran in {ran} kinds of lanes");
    }};
}

/// What the lanes of `V` tell of `board` alone in a batch, classified by its side to move.
///
/// # Safety
/// The CPU must have the instructions of `V`'s lanes.
unsafe fn alone_in_a_batch<V: Lane>(board: &Board, paths: &CastlePaths) -> BatchStats {
    let us = board.side_to_move();
    let mut batch = Batch::default();
    batch.set(0, board);
    let mut castling = [0; LANES];
    castling[0] = board.castling_rooks_of(us).0;
    let mover = Mover::of_side(board, us);
    let mut sets = CheckSets::EMPTY;
    let mut total = Stats::default();
    // SAFETY: the caller's.
    let left = unsafe {
        V::stats(
            &batch,
            &castling,
            &[1; LANES],
            0,
            1,
            mover,
            paths,
            &mut sets,
            &mut total,
        )
    };
    BatchStats {
        moves: total.nodes,
        captures: total.captures,
        castles: total.castles,
        direct_checks: total.direct_checks,
        each: left.each,
        direct: left.direct,
        castling: left.castling,
    }
}

/// A board that stands for a depth-2 node's unplayed moves joins a batch with its
/// siblings, and counts as the one-board leaf counts it ([`BoardLeaf::unplayed`], which
/// the statistics' own tests hold to making each move): multiplied in the lanes where no
/// reply may check, else left to the one-board leaf, which plays each move where whether a
/// check mates may differ between them. Over the depth-2 nodes with unplayed moves, where
/// a reply may check (no move is left unplayed there in a count: here they are) and where
/// none may, each with all its moves' boards in the same batches; in the AVX-512 lanes and
/// in the AVX2 lanes, each where the CPU runs them.
#[test]
fn unplayed_moves_in_the_lanes_count_as_one_board_at_a_time() {
    in_each_kind_of_lanes!(unplayed_moves_in);
}

/// [`unplayed_moves_in_the_lanes_count_as_one_board_at_a_time`] in the lanes of `V`.
///
/// # Safety
/// The CPU must have the instructions of `V`'s lanes.
unsafe fn unplayed_moves_in<V: Lane>() {
    let (mut open, mut checking) = (0, 0);
    for pos in depth_2_nodes() {
        let board = pos.board();
        if board.in_check() {
            continue;
        }
        let (n, _) = each_unplayed(&pos);
        if n == 0 {
            continue;
        }
        let paths = pos.castle_path_table();
        let mut expected = Stats::default();
        Statistics::unplayed::<Magic, Baseline>(&pos, n, &mut expected);
        // SAFETY: the caller's.
        let mut lanes = unsafe { StatsLanes::<V>::of_side(board, !board.side_to_move()) };
        for &mv in &legal_moves::<Magic>(&pos) {
            let child = pos.board_after(mv);
            Statistics::on_board::<Magic>(&child, paths, &mut expected);
            Leaves::<Statistics>::push::<Magic, Baseline>(&mut lanes, &child, paths);
        }
        Leaves::<Statistics>::push_unplayed::<Magic, Baseline>(&mut lanes, &pos, n);
        let got = Leaves::<Statistics>::finish::<Magic, Baseline>(&mut lanes, paths);
        assert_eq!(got, expected, "{} lanes of {}", V::WIDTH, pos.to_fen());
        if no_reply_checks::<Magic>(board).is_some() {
            open += 1;
        } else {
            checking += 1;
        }
    }
    let width = V::WIDTH;
    eprintln!("{width} lanes: {open} nodes where no reply may check, {checking} where one may");
    assert!(
        open > 500 && checking > 500,
        "{width} lanes: {open} nodes where no reply may check, {checking} where one may"
    );
}

/// Where the lanes count a board's direct checks themselves, each such move, made, leaves
/// their king a step onto a square no piece of ours attacks (so none mates), and there are
/// as many as the board's moves that give direct check. Over the boards of the depth-2
/// nodes that the lanes classify, each alone in a batch; in the AVX-512 lanes and in the
/// AVX2 lanes, each where the CPU runs them.
#[test]
fn direct_checks_counted_in_the_lanes_leave_their_king_a_step() {
    in_each_kind_of_lanes!(direct_checks_counted_in);
}

/// [`direct_checks_counted_in_the_lanes_leave_their_king_a_step`] in the lanes of `V`.
///
/// # Safety
/// The CPU must have the instructions of `V`'s lanes.
unsafe fn direct_checks_counted_in<V: Lane>() {
    let (mut counted, mut checks, mut left) = (0, 0, 0);
    for pos in depth_2_nodes() {
        let board = pos.board();
        let us = board.side_to_move();
        let rooks = board.castling_rooks_of(us);
        let paths = pos.castle_path_table();
        if board.in_check() || one_board_only(board, rooks, paths) {
            continue;
        }
        // SAFETY: the caller's.
        let r = unsafe { alone_in_a_batch::<V>(board, paths) };
        if r.direct_checks == 0 {
            left += u32::from(r.direct);
            continue;
        }
        assert_eq!((r.each, r.direct), (0, 0), "{}", pos.to_fen());
        counted += 1;
        let eksq = board.king(!us);
        let mut direct = 0;
        for &mv in &legal_moves::<Magic>(&pos) {
            let child = pos.board_after(mv);
            if mv.kind() == MoveKind::Castle || child.checkers().is_empty() {
                continue;
            }
            assert_eq!(child.checkers(), Bitboard::from_square(mv.to()));
            direct += 1;
            let lifted = child.occupied() - Bitboard::from_square(eksq);
            let step = (attacks::king(eksq) - child.color(!us))
                .into_iter()
                .any(|sq| !child.is_attacked_by::<Magic>(sq, us, lifted));
            assert!(step, "{} after {mv:?}: no step", pos.to_fen());
        }
        assert_eq!(direct, r.direct_checks, "{}", pos.to_fen());
        checks += direct;
    }
    // Both ways many times: the lanes count checks, and leave others to be played.
    let width = V::WIDTH;
    eprintln!(
        "{width} lanes: {counted} boards' {checks} direct checks counted in the lanes, {left} left"
    );
    assert!(
        counted > 1000 && left > 1000,
        "{width} lanes: {counted} boards' {checks} direct checks counted in the lanes, {left} left"
    );
}

/// A board with an en-passant square joins a batch with its siblings, its en-passant
/// captures counted apart, and counts as the one-board leaf counts it. Over the depth-2
/// nodes with a child that has one, all of a node's children pushed in turn; in the
/// AVX-512 lanes and in the AVX2 lanes, each where the CPU runs them.
#[test]
fn boards_with_an_en_passant_square_count_in_the_lanes() {
    in_each_kind_of_lanes!(en_passant_in);
}

/// [`boards_with_an_en_passant_square_count_in_the_lanes`] in the lanes of `V`.
///
/// # Safety
/// The CPU must have the instructions of `V`'s lanes.
unsafe fn en_passant_in<V: Lane>() {
    let (mut boards, mut captures, mut checks) = (0, 0, 0);
    for pos in depth_2_nodes() {
        let board = pos.board();
        let paths = pos.castle_path_table();
        let moves = legal_moves::<Magic>(&pos);
        let children: Vec<_> = moves.iter().map(|&mv| pos.board_after(mv)).collect();
        if !children.iter().any(|c| c.ep_square().is_some()) {
            continue;
        }
        let mut expected = Stats::default();
        // SAFETY: the caller's.
        let mut lanes = unsafe { StatsLanes::<V>::of_side(board, !board.side_to_move()) };
        for child in &children {
            let mut one = Stats::default();
            Statistics::on_board::<Magic>(child, paths, &mut one);
            if child.ep_square().is_some() {
                boards += 1;
                captures += one.enpassants;
                checks += u64::from(one.enpassants > 0 && one.checks() > 0);
            }
            expected += one;
            Leaves::<Statistics>::push::<Magic, Baseline>(&mut lanes, child, paths);
        }
        let got = Leaves::<Statistics>::finish::<Magic, Baseline>(&mut lanes, paths);
        assert_eq!(got, expected, "{} lanes: {}", V::WIDTH, pos.to_fen());
    }
    let width = V::WIDTH;
    eprintln!(
        "{width} lanes: {boards} boards with an en-passant square, {captures} captures, {checks} with a check among their leaves"
    );
    assert!(
        boards > 300 && captures > 100 && checks > 20,
        "{width} lanes: {boards} boards with an en-passant square, {captures} captures, {checks} with a check among their leaves"
    );
}

/// A board whose side to move has a pinned rook, bishop or queen stays in its lane, and
/// counts as the one-board leaf counts it: the pinned slider's attacks off its pin line
/// take their king's flights and uncover checks as any slider's do. Over the children of
/// the depth-2 nodes with such a slider, each alone in a batch; in the AVX-512 lanes and in
/// the AVX2 lanes, each where the CPU runs them.
#[test]
fn boards_with_a_pinned_slider_count_in_the_lanes() {
    in_each_kind_of_lanes!(pinned_sliders_in);
}

/// [`boards_with_a_pinned_slider_count_in_the_lanes`] in the lanes of `V`.
///
/// # Safety
/// The CPU must have the instructions of `V`'s lanes.
unsafe fn pinned_sliders_in<V: Lane>() {
    let (mut in_lanes, mut left, mut checking) = (0, 0, 0);
    for pos in depth_2_nodes() {
        let paths = pos.castle_path_table();
        for &mv in &legal_moves::<Magic>(&pos) {
            let child = pos.board_after(mv);
            let us = child.side_to_move();
            let (straight, diagonal) = child.sliders(us);
            let rooks = child.castling_rooks_of(us);
            if ((straight | diagonal) & child.checkers_and_pinned().1).is_empty()
                || one_board_only(&child, rooks, paths)
            {
                continue;
            }
            let mut expected = Stats::default();
            Statistics::on_board::<Magic>(&child, paths, &mut expected);
            // SAFETY: the caller's.
            let mut lanes = unsafe { StatsLanes::<V>::of_side(&child, us) };
            Leaves::<Statistics>::push::<Magic, Baseline>(&mut lanes, &child, paths);
            let got = Leaves::<Statistics>::finish::<Magic, Baseline>(&mut lanes, paths);
            assert_eq!(
                got,
                expected,
                "{} lanes: {} after {mv:?}",
                V::WIDTH,
                pos.to_fen()
            );
            // SAFETY: the caller's.
            let r = unsafe { alone_in_a_batch::<V>(&child, paths) };
            if r.each == 0 {
                in_lanes += 1;
                if expected.checks() > 0 {
                    checking += 1;
                }
            } else {
                left += 1;
            }
        }
    }
    let width = V::WIDTH;
    eprintln!(
        "{width} lanes: {in_lanes} boards with a pinned slider in the lanes ({checking} with a check), {left} left"
    );
    assert!(
        in_lanes > 1000 && checking > 300,
        "{width} lanes: {in_lanes} boards with a pinned slider in the lanes ({checking} with a check), {left} left"
    );
}

/// Where [`Steps::answered`] says their king has a step after a direct check, it does: the
/// board after the move, made, has a king step onto a square no piece of ours attacks (the
/// checker's square among them). Over the boards with no piece of ours uncovering a check
/// (those the lanes classify among them, pinned pieces or not), every direct check by a
/// piece move or pawn move that is not a promotion.
#[test]
fn a_check_said_to_leave_a_step_leaves_one() {
    let (mut answered, mut taking, mut played) = (0, 0, 0);
    for pos in depth_2_nodes() {
        let board = pos.board();
        let us = board.side_to_move();
        if discoverers(board, us).any() {
            continue;
        }
        let eksq = board.king(!us);
        let without_king = board.occupied() - Bitboard::from_square(eksq);
        let flights = (attacks::king(eksq) - board.color(!us))
            .into_iter()
            .filter(|&sq| !board.is_attacked_by::<Magic>(sq, us, without_king))
            .fold(Bitboard::EMPTY, |f, sq| f | Bitboard::from_square(sq));
        let steps = Steps::of(board, flights);
        for &mv in &legal_moves::<Magic>(&pos) {
            let direct = matches!(
                mv.kind(),
                MoveKind::Quiet | MoveKind::Capture | MoveKind::DoublePush
            );
            let Some(piece) = pos.piece_at(mv.from()) else {
                continue;
            };
            if !direct || piece.kind == PieceKind::King {
                continue;
            }
            let child = pos.board_after(mv);
            if child.checkers() != Bitboard::from_square(mv.to()) {
                continue;
            }
            if !steps.answered::<Magic>(piece.kind, mv.from(), mv.to()) {
                played += 1;
                continue;
            }
            answered += 1;
            let lifted = child.occupied() - Bitboard::from_square(eksq);
            let steps_to: Vec<_> = (attacks::king(eksq) - child.color(!us))
                .into_iter()
                .filter(|&sq| !child.is_attacked_by::<Magic>(sq, us, lifted))
                .collect();
            assert!(
                !steps_to.is_empty(),
                "{} after {mv:?}: no step",
                pos.to_fen()
            );
            if steps_to == [mv.to()] {
                taking += 1;
            }
        }
    }
    // Every answer given, many times, and the king's capture of the checker alone among
    // them: the assertion was put to the test.
    eprintln!("{answered} answered ({taking} by taking the checker alone), {played} played");
    assert!(
        answered > 1000 && taking > 100 && played > 100,
        "{answered} answered ({taking} by taking the checker alone), {played} played"
    );
}
