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

use crate::attacks::{self, PawnDirs, Sliders};
use crate::bitboard::Bitboard;
use crate::position::{Board, CastlePath, CastlePaths, Position};
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

/// [`generate`] compiled once per side to move, so that pawn directions, ranks and colour
/// lookups are constants.
#[inline(always)]
fn generate_for<S: Sliders, K: Sink, const LEGAL: bool, const WHITE: bool>(
    pos: &Board,
    paths: &CastlePaths,
    sink: &mut K,
) {
    let us = if WHITE { Color::White } else { Color::Black };
    let them = !us;
    let ksq = pos.king(us);
    let occupied = pos.occupied();
    let own = pos.color(us);
    let enemies = pos.color(them);
    if !LEGAL {
        sink.piece_moves(PieceKind::King, ksq, attacks::king(ksq) - own, enemies);
        let checkers = pos.checkers();
        pieces::<S, K, false, WHITE, false>(pos, sink, checkers, Bitboard::EMPTY);
        if checkers.is_empty() && pos.castling_rooks_of(us).any() {
            let leapers = pos.leaper_attacks(them);
            for path in paths.of(us) {
                if castling_is_open(pos, path, occupied)
                    && castle_path_is_safe::<S>(pos, path, us, ksq, occupied, leapers)
                {
                    sink.single(Move::new(ksq, path.rook.lsb(), MoveKind::Castle));
                }
            }
        }
        return;
    }
    let (checkers, pinned) = pos.checkers_and_pinned();
    sink.checkers(checkers);

    // King moves: the squares no enemy leaper attacks, less the attacks of the enemy sliders,
    // through the occupancy without the king. Only sliders within reach of the king's
    // neighbourhood (a table per king square) and aligned with a remaining target are looked up:
    // that loop runs over the few sliders near the king instead of over the targets (faster
    // most of all in endgames, docs/performance.md).
    let leapers = pos.leaper_attacks(them);
    let without_king = occupied ^ Bitboard::from_square(ksq);
    let steps = attacks::king(ksq) - own - leapers;
    if checkers.is_empty() && pos.castling_rooks_of(us).any() {
        king_moves_and_castling::<S, K>(pos, paths, sink, us, steps, leapers);
    } else {
        let safe = pos.without_slider_attacks::<S>(
            steps,
            them,
            attacks::king_zone_reach(ksq),
            without_king,
        );
        sink.piece_moves(PieceKind::King, ksq, safe, enemies);
    }

    if checkers.is_empty() {
        pieces::<S, K, true, WHITE, false>(pos, sink, checkers, pinned);
    } else if !checkers.more_than_one() {
        pieces::<S, K, true, WHITE, true>(pos, sink, checkers, pinned);
    }
}

/// The moves of every piece but the king, compiled apart for the side in check (`CHECK`: one
/// checker) and not, so that the common case carries no evasion mask. In check a pinned piece
/// cannot move at all: its line and the checking line meet only at the king.
#[inline(always)]
fn pieces<S: Sliders, K: Sink, const LEGAL: bool, const WHITE: bool, const CHECK: bool>(
    pos: &Board,
    sink: &mut K,
    checkers: Bitboard,
    pinned: Bitboard,
) {
    let us = if WHITE { Color::White } else { Color::Black };
    let them = !us;
    let ksq = pos.king(us);
    let occupied = pos.occupied();
    let own = pos.color(us);
    let enemies = pos.color(them);
    // Evasion mask: in single check, capture the checker or block its line.
    let mask = if CHECK {
        attacks::between(ksq, checkers.lsb()) | checkers
    } else {
        Bitboard::FULL
    };
    let targets = mask - own;
    // Knights and sliders. A sink that only adds up (`K::TOTALS`, the counter) gets them all as
    // if none were pinned, and the pinned ones' impossible moves are taken back below: then the
    // lookups do not wait for the pin walk through the set of pieces to visit. Other sinks
    // skip the pinned pieces here.
    let totals = LEGAL && K::TOTALS;
    let skipped = if totals { Bitboard::EMPTY } else { pinned };

    for from in pos.kind(PieceKind::Knight) & (own - skipped) {
        sink.piece_moves(
            PieceKind::Knight,
            from,
            attacks::knight(from) & targets,
            enemies,
        );
    }
    let queens = pos.kind(PieceKind::Queen);
    let diagonal = (pos.kind(PieceKind::Bishop) | queens) & own;
    let straight = (pos.kind(PieceKind::Rook) | queens) & own;
    // A queen moves in both loops; its kind is a select, not a branch, and a sink that does
    // not read it (the counter) does not compute it.
    let diagonal_kind = |from| slider_kind(queens, from, PieceKind::Bishop);
    let straight_kind = |from| slider_kind(queens, from, PieceKind::Rook);
    for from in diagonal - skipped {
        let t = S::bishop(from, occupied) & targets;
        sink.piece_moves(diagonal_kind(from), from, t, enemies);
    }
    for from in straight - skipped {
        let t = S::rook(from, occupied) & targets;
        sink.piece_moves(straight_kind(from), from, t, enemies);
    }
    // Pinned pieces: in check none can move; otherwise a pinned knight cannot, a pinned slider
    // only along its pin line. The counter had them all above and takes back what they cannot
    // do; other sinks get what they can.
    if LEGAL && (totals || !CHECK) && pinned.any() {
        if totals {
            for from in pos.kind(PieceKind::Knight) & pinned {
                sink.retract(attacks::knight(from) & targets);
            }
        }
        for from in diagonal & pinned {
            let t = S::bishop(from, occupied) & targets;
            pinned_slider_moves::<K, CHECK>(sink, diagonal_kind(from), from, t, ksq, enemies);
        }
        for from in straight & pinned {
            let t = S::rook(from, occupied) & targets;
            pinned_slider_moves::<K, CHECK>(sink, straight_kind(from), from, t, ksq, enemies);
        }
    }

    // Pawns, all at once. A pinned pawn stays on its pin line: it pushes if pinned along its
    // file and captures one way if pinned along that diagonal (only the pinner can stand
    // there), never if pinned along its rank. Which line through the king it stands on says
    // which, so the pinned pawns join the free ones in each kind of move they may make.
    let d = PawnDirs::of(us);
    let pawns = pos.pieces(us, PieceKind::Pawn);
    let free_pawns = pawns - pinned;
    let pinned_pawns = pawns & pinned;
    let movers = if LEGAL && !CHECK && pinned_pawns.any() {
        let (diagonal, anti) = (attacks::diagonal(ksq), attacks::anti_diagonal(ksq));
        let (east_line, west_line) = if d.east_on_diagonal {
            (diagonal, anti)
        } else {
            (anti, diagonal)
        };
        PawnMovers {
            push: free_pawns | (pinned_pawns & Bitboard::file(ksq.file())),
            east: free_pawns | (pinned_pawns & east_line),
            west: free_pawns | (pinned_pawns & west_line),
        }
    } else {
        PawnMovers {
            push: free_pawns,
            east: free_pawns,
            west: free_pawns,
        }
    };
    pawn_moves(sink, &d, movers, !occupied, enemies, mask);

    if let Some(ep) = pos.ep_square() {
        let victim = ep.offset(-d.up);
        for from in attacks::pawn(them, ep) & pawns {
            if !LEGAL || ep_is_legal::<S>(pos, from, ep, victim, ksq) {
                sink.single(Move::new(from, ep, MoveKind::EnPassant));
            }
        }
    }
}

/// The moves of a pinned slider of `kind` on `from` whose targets, pin ignored, are `moves`:
/// those along the line through it and the king on `ksq` (none in check). A sink that only
/// adds up ([`Sink::TOTALS`]) was given all of `moves` and takes back the rest.
#[inline(always)]
fn pinned_slider_moves<K: Sink, const CHECK: bool>(
    sink: &mut K,
    kind: PieceKind,
    from: Square,
    moves: Bitboard,
    ksq: Square,
    enemies: Bitboard,
) {
    let legal = if CHECK {
        Bitboard::EMPTY
    } else {
        moves & attacks::line(ksq, from)
    };
    if K::TOTALS {
        sink.retract(moves - legal);
    } else {
        sink.piece_moves(kind, from, legal, enemies);
    }
}

/// The kind of the slider on `from`: a queen if it is one of `queens`, else `kind`.
#[inline(always)]
fn slider_kind(queens: Bitboard, from: Square, kind: PieceKind) -> PieceKind {
    if queens.contains(from) {
        PieceKind::Queen
    } else {
        kind
    }
}

/// Whether the en-passant capture `from` x `ep` (taking the pawn on `victim`) leaves the king
/// on `ksq` unattacked: played on a copy of the occupancy, tested against every enemy piece.
#[inline(never)]
fn ep_is_legal<S: Sliders>(
    pos: &Board,
    from: Square,
    ep: Square,
    victim: Square,
    ksq: Square,
) -> bool {
    let us = pos.side_to_move();
    let them = !us;
    let occ = pos.occupied()
        ^ Bitboard::from_square(from)
        ^ Bitboard::from_square(victim)
        ^ Bitboard::from_square(ep);
    let leapers = (attacks::knight(ksq) & pos.pieces(them, PieceKind::Knight))
        | (attacks::pawn(us, ksq)
            & (pos.pieces(them, PieceKind::Pawn) - Bitboard::from_square(victim)));
    leapers.is_empty() && !pos.slider_attacks_square::<S>(ksq, them, occ)
}

/// King moves and castling (not in check, a castling right left), tested in one pass over the
/// enemy sliders: the squares a castling king crosses or lands on join its steps (`steps`: the
/// squares next to it, neither own nor attacked by an enemy leaper), so that a slider that
/// could stop both is looked up once. That occupancy still holds the castling rook; the rook
/// can only shield a square of the path along the back rank, from beyond itself, which a rook
/// in the corner never does, and a path where it can ([`CastlePath::rook_screens`], Chess960)
/// is tested on its own with the rook taken off the board.
#[inline(always)]
fn king_moves_and_castling<S: Sliders, K: Sink>(
    pos: &Board,
    paths: &CastlePaths,
    sink: &mut K,
    us: Color,
    steps: Bitboard,
    leapers: Bitboard,
) {
    let ksq = pos.king(us);
    let ksq_bb = Bitboard::from_square(ksq);
    let occupied = pos.occupied();
    let [a, b] = paths.of(us);
    // A path an enemy pawn, knight or king already attacks is closed before any slider is
    // looked up for it.
    let (open_a, open_b) = (
        castling_is_open(pos, a, occupied) && (a.king_path & leapers).is_empty(),
        castling_is_open(pos, b, occupied) && (b.king_path & leapers).is_empty(),
    );
    let mut targets = steps;
    let mut reach = attacks::king_zone_reach(ksq);
    for (open, path) in [(open_a, a), (open_b, b)] {
        if open {
            targets |= path.king_path - ksq_bb;
            reach = reach | path.reach;
        }
    }
    let safe = pos.without_slider_attacks::<S>(targets, !us, reach, occupied ^ ksq_bb);
    sink.piece_moves(PieceKind::King, ksq, safe & steps, pos.color(!us));
    for (open, path) in [(open_a, a), (open_b, b)] {
        let legal = open
            && if path.rook_screens {
                castle_path_is_safe::<S>(pos, path, us, ksq, occupied, leapers)
            } else {
                // The king's square is safe: not in check.
                (path.king_path - ksq_bb - safe).is_empty()
            };
        if legal {
            sink.single(Move::new(ksq, path.rook.lsb(), MoveKind::Castle));
        }
    }
}

/// Whether castling along `path` is still allowed and its squares are empty (the rook's right
/// is left, nothing stands between).
#[inline(always)]
fn castling_is_open(pos: &Board, path: &CastlePath, occupied: Bitboard) -> bool {
    (pos.castling_rooks() & path.rook).any() && (occupied & path.empty).is_empty()
}

/// Whether no enemy piece attacks a square of `path`'s king path, the castling rook and the
/// king taken off the board (`leapers`: the squares enemy pawns, knights and king attack): the
/// full test, for pseudo-legal generation and for the paths the rook screens (Chess960).
#[inline(always)]
fn castle_path_is_safe<S: Sliders>(
    pos: &Board,
    path: &CastlePath,
    us: Color,
    ksq: Square,
    occupied: Bitboard,
    leapers: Bitboard,
) -> bool {
    // The start square too: with the rook gone it may be attacked (king c1, rook b1, enemy
    // queen a1, castling a-side leaves the king on c1).
    let occ = occupied - path.rook - Bitboard::from_square(ksq);
    (path.king_path & leapers).is_empty()
        && pos.without_slider_attacks::<S>(path.king_path, !us, path.reach, occ) == path.king_path
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

/// Why a UCI move could not be played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UciMoveError {
    /// Not of the form `e2e4`, `e7e8q`.
    Malformed(String),
    /// Well-formed, but not a legal move in the position.
    Illegal(String),
    /// A legal promotion written without the piece it promotes to.
    NoPromotionPiece(String),
    /// In Chess960, a castle written as the king's move (`e1g1`): there it is written as king
    /// takes rook (the second field).
    CastleAsKingMove(String, String),
}

impl std::fmt::Display for UciMoveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UciMoveError::Malformed(m) => write!(
                f,
                "'{}' is not a move in UCI notation (from square, to square, optional promotion \
                 piece: e2e4, e7e8q)",
                m.escape_debug()
            ),
            UciMoveError::Illegal(m) => write!(f, "'{m}' is not legal in this position"),
            UciMoveError::NoPromotionPiece(m) => write!(
                f,
                "'{m}' is a promotion: add the piece it promotes to ({m}q, {m}r, {m}b or {m}n)"
            ),
            UciMoveError::CastleAsKingMove(m, as_960) => write!(
                f,
                "'{m}' is not legal in this position: in Chess960 castling is written as king \
                 takes rook ({as_960})"
            ),
        }
    }
}

impl std::error::Error for UciMoveError {}

/// The legal move named by `uci`. Castling is accepted as the king's move (`e1g1`) and, the UCI
/// form for Chess960, as king takes rook (`e1h1`); in Chess960 only the latter, since there the
/// king's destination can also be an ordinary king move.
pub fn parse_uci_move<S: Sliders>(pos: &Position, uci: &str) -> Result<Move, UciMoveError> {
    let malformed = || UciMoveError::Malformed(uci.chars().take(16).collect());
    if !uci.is_ascii() || !(4..=5).contains(&uci.len()) {
        return Err(malformed());
    }
    let from = Square::parse(&uci[0..2]).ok_or_else(malformed)?;
    let to = Square::parse(&uci[2..4]).ok_or_else(malformed)?;
    let promotion = match uci.as_bytes().get(4) {
        None => None,
        Some(&c) => match PieceKind::from_letter(c as char) {
            Some(
                k @ (PieceKind::Knight | PieceKind::Bishop | PieceKind::Rook | PieceKind::Queen),
            ) => Some(k),
            _ => return Err(malformed()),
        },
    };
    // Every move by its own target (king takes rook for castling); in standard chess castling
    // also by the king's destination.
    let by_king_to = |mv: &Move| mv.kind() == MoveKind::Castle && !pos.is_chess960();
    legal_moves::<S>(pos)
        .iter()
        .copied()
        .find(|mv| {
            mv.from() == from
                && mv.promotion_piece() == promotion
                && (mv.to() == to || by_king_to(mv) && mv.castle_king_to() == to)
        })
        .ok_or_else(|| {
            let promotes = promotion.is_none()
                && legal_moves::<S>(pos)
                    .iter()
                    .any(|mv| mv.from() == from && mv.to() == to && mv.promotion_piece().is_some());
            // A Chess960 castle named by the king's destination, as standard chess allows.
            let castle = legal_moves::<S>(pos).iter().copied().find(|mv| {
                mv.kind() == MoveKind::Castle && mv.from() == from && mv.castle_king_to() == to
            });
            if promotes {
                UciMoveError::NoPromotionPiece(uci.to_string())
            } else if let Some(castle) = castle.filter(|_| pos.is_chess960()) {
                UciMoveError::CastleAsKingMove(uci.to_string(), castle.to_uci(true))
            } else {
                UciMoveError::Illegal(uci.to_string())
            }
        })
}

/// Plays UCI `moves` on `pos`; the error names the first bad move and its 1-based index.
pub fn play_uci_moves<'a>(
    pos: &mut Position,
    moves: impl IntoIterator<Item = &'a str>,
) -> Result<(), (usize, String)> {
    for (i, m) in moves.into_iter().enumerate() {
        let mv =
            parse_uci_move::<crate::attacks::Magic>(pos, m).map_err(|e| (i + 1, e.to_string()))?;
        pos.make(mv);
    }
    Ok(())
}
