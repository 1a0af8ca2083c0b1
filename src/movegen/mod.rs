//! Move generation: pseudo-legal moves for every piece, and the legality filter.
//!
//! One generator, `generate`, produces moves *as target sets*: for each piece (or, for pawns,
//! for all of them at once) the squares it can move to. It hands those sets to a `Sink`:
//! [`MoveList`] turns them into moves, `Counter` only adds their sizes, which is how perft's
//! last ply counts legal moves without listing or making them. Both are monomorphized, so the
//! counter's loop holds no move encoding at all.
//!
//! With `LEGAL = false` the sets are the pseudo-legal moves. With `LEGAL = true` the legality
//! filter is applied to them, as Stockfish's `legal()` would be to each move, but once per piece:
//! checkers and pinned pieces come from one walk over the enemy sliders aligned with the king,
//! and only four kinds of move are tested. *Evasions*: in single check the other pieces' targets
//! are masked by the checking line (the checker and the squares between it and the king), and
//! pinned pieces cannot move (that body is compiled apart, so the common one carries no mask); in
//! double check only the king moves. *Pinned pieces*: their targets are masked by the line
//! through the king and the piece (pinned pawns: by which line through the king they stand on,
//! all at once; a counting sink takes pinned knights' and sliders' moves back instead, see
//! `Sink::TOTALS`). *King moves*: the squares attacked by enemy pawns, knights and
//! king are removed at once; then each enemy slider that could reach a square next to the king
//! and lines up with a remaining target removes its attacks, taken through the occupancy without
//! the king so that the king cannot hide behind itself. *En
//! passant*: the capture is played on a copy of the occupancy and the king tested against every
//! enemy piece, which catches the rank that opens when both pawns leave it. Castling is tested in
//! both modes: path empty, king not in check and no square it crosses or lands on attacked
//! (`make` cannot detect a crossed square later).
//!
//! The generator reads a [`Board`] and the game's `CastlePaths`; `generate` takes them from a
//! [`Position`], `generate_on` directly (perft's last ply counts on board copies).

mod generate;
mod uci;

pub use uci::{UciMoveError, parse_uci_move, play_uci_moves};

#[cfg(target_arch = "x86_64")]
pub(crate) use generate::en_passant_takers;
use generate::generate_for;

use crate::attacks::{PawnDirs, Sliders};
use crate::bitboard::Bitboard;
use crate::position::{Board, CastlePaths, Position};
use crate::types::{Color, Move, MoveKind, PieceKind, Square};
use std::mem::MaybeUninit;

internal! {
    /// Capacity of a [`MoveList`]: a bound on the moves of *any* position our FEN parser accepts,
    /// reachable or not. A square can be reached by at most 16 pieces of one side (the first piece on
    /// each of the 8 rays through it, and 8 knights), so non-promotion moves are at most 64 x 16 =
    /// 1024; a last-rank square has at most 3 pawn movers, each making 4 promotions (72 more over 8
    /// squares); castling adds 2. Legal positions never exceed 218, so only the first cache lines of
    /// the (uninitialised) array are ever touched.
    pub const MAX_MOVES: usize = 1104;
}

internal! {
    /// Receives generated moves as target sets.
    pub trait Sink {
        /// Moves of the piece of `kind` on `from` to each square of `targets`; those in `enemies`
        /// capture. The generator passes `kind` as a constant, so a sink that plays the moves
        /// (perft's depth-2 pass) is compiled per piece kind.
        fn piece_moves(&mut self, kind: PieceKind, from: Square, targets: Bitboard, enemies: Bitboard);
        /// The moves of a group of pawns, as the squares they reach (see [`PawnTargets`]).
        fn pawns(&mut self, t: &PawnTargets);
        /// One move (en passant, castling).
        fn single(&mut self, mv: Move);
        /// Whether this sink only adds up target sets and can take a set back
        /// ([`Sink::retract`]): then the generator counts knights and sliders as if none were
        /// pinned, so that their lookups need not wait for the pin walk, and takes back the pinned
        /// ones' impossible moves afterwards.
        const TOTALS: bool = false;
        /// Takes back moves added before (only called when [`Sink::TOTALS`]).
        fn retract(&mut self, _targets: Bitboard) {}
        /// Told, before any move, which enemy pieces give check (legal generation only): a sink
        /// that needs them gets the generator's own, not a second computation.
        #[inline(always)]
        fn checkers(&mut self, _checkers: Bitboard) {}
    }
}

/// Counts moves without listing them: perft's last ply.
#[derive(Clone, Copy, Default, Debug)]
pub(crate) struct Counter(pub u64);

impl Sink for Counter {
    #[inline(always)]
    fn piece_moves(&mut self, _: PieceKind, _: Square, targets: Bitboard, _: Bitboard) {
        self.0 += targets.count() as u64;
    }
    /// Pushes and double pushes land on empty squares of different ranks and captures on
    /// enemy ones, so those three sets are disjoint and one popcount serves them; captures
    /// towards the a-file can share a square with those towards the h-file and are counted
    /// apart. A promotion is one move here and three more below.
    #[inline(always)]
    fn pawns(&mut self, t: &PawnTargets) {
        self.0 += ((t.single | t.double | t.east).count() + t.west.count()) as u64;
        if ((t.single | t.east | t.west) & t.last).any() {
            let promotions = ((t.single | t.east) & t.last).count() + (t.west & t.last).count();
            self.0 += 3 * promotions as u64;
        }
    }
    #[inline(always)]
    fn single(&mut self, _: Move) {
        self.0 += 1;
    }
    const TOTALS: bool = true;
    #[inline(always)]
    fn retract(&mut self, targets: Bitboard) {
        self.0 -= targets.count() as u64;
    }
}

/// A list of moves on the stack, with a fixed capacity of `MAX_MOVES`: no heap allocation.
pub struct MoveList {
    len: usize,
    moves: [MaybeUninit<Move>; MAX_MOVES],
}

impl MoveList {
    /// An empty list. The storage is left uninitialised: creating a list costs nothing.
    #[inline(always)]
    pub fn new() -> MoveList {
        MoveList {
            len: 0,
            moves: [const { MaybeUninit::uninit() }; MAX_MOVES],
        }
    }

    /// Appends `mv`.
    #[inline(always)]
    pub fn push(&mut self, mv: Move) {
        // The index is below MAX_MOVES for every position the parser accepts (see MAX_MOVES);
        // the bounds check stays as a guard, one predictable compare.
        self.moves[self.len] = MaybeUninit::new(mv);
        self.len += 1;
    }

    /// The moves, in generation order.
    #[inline(always)]
    pub fn as_slice(&self) -> &[Move] {
        // SAFETY: the first `len` elements were written by `push`, and `MaybeUninit<Move>` has
        // the layout of `Move`.
        unsafe { std::slice::from_raw_parts(self.moves.as_ptr().cast::<Move>(), self.len) }
    }

    /// The number of moves.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the list is empty.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether `mv` is in the list.
    pub fn contains(&self, mv: Move) -> bool {
        self.as_slice().contains(&mv)
    }
}

impl Default for MoveList {
    fn default() -> MoveList {
        MoveList::new()
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl std::fmt::Debug for MoveList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

const PROMOTION_PIECES: [PieceKind; 4] = [
    PieceKind::Queen,
    PieceKind::Rook,
    PieceKind::Bishop,
    PieceKind::Knight,
];

/// Takes moves one at a time. Every `Push` is a [`Sink`] that turns target sets into moves.
pub(crate) trait Push {
    /// Receives one move.
    fn push(&mut self, mv: Move);
}

impl Push for MoveList {
    #[inline(always)]
    fn push(&mut self, mv: Move) {
        MoveList::push(self, mv);
    }
}

impl<T: Push> Sink for T {
    #[inline(always)]
    fn piece_moves(&mut self, _: PieceKind, from: Square, targets: Bitboard, enemies: Bitboard) {
        for to in targets & enemies {
            self.push(Move::new(from, to, MoveKind::Capture));
        }
        for to in targets - enemies {
            self.push(Move::new(from, to, MoveKind::Quiet));
        }
    }

    #[inline(always)]
    fn pawns(&mut self, t: &PawnTargets) {
        t.for_each(|from, to, kind, promoted| {
            self.push(match kind {
                MoveKind::Promotion | MoveKind::PromotionCapture => {
                    Move::promotion(from, to, promoted, kind == MoveKind::PromotionCapture)
                }
                _ => Move::new(from, to, kind),
            })
        });
    }

    #[inline(always)]
    fn single(&mut self, mv: Move) {
        self.push(mv);
    }
}

internal! {
    /// The moves of a group of pawns as the squares they reach, each set already masked by any
    /// check or pin: `single` and `double` pushes, captures towards the h-file (`east`) and the
    /// a-file (`west`). A pawn reaching a square `to` of a set came from `to - delta` (`up`,
    /// `2 * up`, `up_east`, `up_west`); those reaching `last` promote.
    #[derive(Clone, Copy, Debug)]
    pub struct PawnTargets {
        /// Squares reached by a single push.
        pub single: Bitboard,
        /// Squares reached by a double push.
        pub double: Bitboard,
        /// Squares reached by a capture towards the h-file.
        pub east: Bitboard,
        /// Squares reached by a capture towards the a-file.
        pub west: Bitboard,
        /// The square delta of a single push (8 for White, -8 for Black).
        pub up: i8,
        /// The square delta of a capture towards the h-file.
        pub up_east: i8,
        /// The square delta of a capture towards the a-file.
        pub up_west: i8,
        /// The promotion rank.
        pub last: Bitboard,
    }
}

impl PawnTargets {
    /// Calls `f(from, to, kind, promoted)` for each move, pushes first, then double pushes and
    /// captures, then promotions (four per square, queen first; `promoted` means nothing for
    /// the other kinds). Inlined, each call site gets its `kind` as a constant.
    #[inline(always)]
    pub fn for_each<F: FnMut(Square, Square, MoveKind, PieceKind)>(&self, mut f: F) {
        // One call per group (not a loop over an array of them), so that `kind` stays a
        // constant at each.
        #[inline(always)]
        fn group<F: FnMut(Square, Square, MoveKind, PieceKind)>(
            f: &mut F,
            targets: Bitboard,
            delta: i8,
            kind: MoveKind,
        ) {
            for to in targets {
                let from = to.offset(-delta);
                if matches!(kind, MoveKind::Promotion | MoveKind::PromotionCapture) {
                    for piece in PROMOTION_PIECES {
                        f(from, to, kind, piece);
                    }
                } else {
                    f(from, to, kind, PieceKind::Pawn);
                }
            }
        }
        let last = self.last;
        group(&mut f, self.single - last, self.up, MoveKind::Quiet);
        group(&mut f, self.double, 2 * self.up, MoveKind::DoublePush);
        group(&mut f, self.east - last, self.up_east, MoveKind::Capture);
        group(&mut f, self.west - last, self.up_west, MoveKind::Capture);
        if ((self.single | self.east | self.west) & last).any() {
            group(&mut f, self.single & last, self.up, MoveKind::Promotion);
            group(
                &mut f,
                self.east & last,
                self.up_east,
                MoveKind::PromotionCapture,
            );
            group(
                &mut f,
                self.west & last,
                self.up_west,
                MoveKind::PromotionCapture,
            );
        }
    }
}

/// Which pawns may make each kind of pawn move: `push` (single and double), capture towards the
/// h-file (`east`) and towards the a-file (`west`).
#[derive(Clone, Copy)]
struct PawnMovers {
    push: Bitboard,
    east: Bitboard,
    west: Bitboard,
}

/// The moves of the pawns in `movers`, all targets restricted to `mask` (the evasion mask).
#[inline(always)]
fn pawn_moves<K: Sink>(
    sink: &mut K,
    d: &PawnDirs,
    movers: PawnMovers,
    empty: Bitboard,
    enemies: Bitboard,
    mask: Bitboard,
) {
    let east = d.east(movers.east) & enemies & mask;
    let west = d.west(movers.west) & enemies & mask;
    let single = movers.push.shift(d.up) & empty;
    let double = (single & (d.start_rank.shift(d.up))).shift(d.up) & empty & mask;
    sink.pawns(&PawnTargets {
        single: single & mask,
        double,
        east,
        west,
        up: d.up,
        up_east: d.up_east,
        up_west: d.up_west,
        last: d.last_rank(),
    });
}

internal! {
    /// Generates the moves of the side to move into `sink`: the legal moves if `LEGAL`, otherwise the
    /// pseudo-legal ones (see the module documentation for what the filter tests).
    #[inline(always)]
    pub fn generate<S: Sliders, K: Sink, const LEGAL: bool>(pos: &Position, sink: &mut K) {
        generate_on::<S, K, LEGAL>(pos.board(), pos.castle_path_table(), sink);
    }
}

internal! {
    /// [`generate`] on a bare [`Board`], with the game's castling paths.
    #[inline(always)]
    pub fn generate_on<S: Sliders, K: Sink, const LEGAL: bool>(
        pos: &Board,
        paths: &CastlePaths,
        sink: &mut K,
    ) {
        match pos.side_to_move() {
            Color::White => generate_for::<S, K, LEGAL, true>(pos, paths, sink),
            Color::Black => generate_for::<S, K, LEGAL, false>(pos, paths, sink),
        }
    }
}

/// The legal moves of the side to move.
///
/// ```
/// use perft::movegen::legal_moves;
/// use perft::{Magic, Position};
///
/// // Position 3 of the Chess Programming Wiki's perft page: 14 legal moves.
/// let pos = Position::from_fen("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1").unwrap();
/// let moves = legal_moves::<Magic>(&pos);
/// assert_eq!(moves.len(), 14);
/// assert!(moves.iter().any(|m| m.to_uci(false) == "e2e4"));
/// ```
pub fn legal_moves<S: Sliders>(pos: &Position) -> MoveList {
    let mut list = MoveList::new();
    generate::<S, MoveList, true>(pos, &mut list);
    list
}

internal! {
    /// The pseudo-legal moves of the side to move: every move by the rules of piece movement,
    /// whether or not it leaves the king in check (castling is still tested in full).
    pub fn pseudo_legal_moves<S: Sliders>(pos: &Position) -> MoveList {
        let mut list = MoveList::new();
        generate::<S, MoveList, false>(pos, &mut list);
        list
    }
}

/// The number of legal moves, counted without listing them.
#[inline(always)]
pub fn count_legal<S: Sliders>(pos: &Position) -> u64 {
    count_legal_on::<S>(pos.board(), pos.castle_path_table())
}

internal! {
    /// [`count_legal`] on a bare [`Board`], with the game's castling paths.
    #[inline(always)]
    pub fn count_legal_on<S: Sliders>(board: &Board, paths: &CastlePaths) -> u64 {
        let mut counter = Counter(0);
        generate_on::<S, Counter, true>(board, paths, &mut counter);
        counter.0
    }
}

/// Whether the pseudo-legal move `mv` is legal, by the slow and obvious test: make it and see
/// whether the mover's king is attacked. The independent check the tests compare with.
#[doc(hidden)]
pub fn is_legal_by_make<S: Sliders>(pos: &mut Position, mv: Move) -> bool {
    let us = pos.side_to_move();
    let undo = pos.make(mv);
    let legal = !pos.is_attacked_by::<S>(pos.king(us), !us, pos.occupied());
    pos.unmake(mv, &undo);
    legal
}
