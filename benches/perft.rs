//! Speed of the slider implementations (raw lookups, and perft of two positions), of the two
//! compiled copies of the bulk count, of the last ply's counters (one board at a time, eight in
//! AVX-512 lanes, four at a time in AVX2 lanes), and of the leaf statistics against the plain
//! count.
//!
//! Every perft bench asserts its node count, so a broken generator can never be timed as fast.
//! Run with `cargo bench`; compare implementations as ratios within one run.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use perft::attacks::magic::Prng;
#[cfg(target_arch = "x86_64")]
use perft::cpu::{Simd, SimdKind};
use perft::perft::Perft;
use perft::{Bitboard, Classical, Magic, Position, Sliders, Square};
use std::hint::black_box;

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

/// A fixed, seeded set of (square, occupancy) pairs with realistic density (about 1/3 full).
fn occupancies() -> Vec<(Square, Bitboard)> {
    let mut rng = Prng::new(0xBEEF);
    (0..4096)
        .map(|_| {
            let sq = Square::new((rng.next_u64() % 64) as u8);
            let occ = rng.next_u64() & (rng.next_u64() | rng.next_u64() >> 32);
            (sq, Bitboard(occ))
        })
        .collect()
}

fn lookups<S: Sliders>(c: &mut Criterion, set: &[(Square, Bitboard)]) {
    let mut g = c.benchmark_group("lookups");
    g.throughput(Throughput::Elements(set.len() as u64));
    g.bench_function(BenchmarkId::new("rook", S::NAME), |b| {
        b.iter(|| {
            set.iter()
                .fold(0u64, |acc, &(sq, occ)| acc ^ S::rook(sq, black_box(occ)).0)
        })
    });
    g.bench_function(BenchmarkId::new("bishop", S::NAME), |b| {
        b.iter(|| {
            set.iter().fold(0u64, |acc, &(sq, occ)| {
                acc ^ S::bishop(sq, black_box(occ)).0
            })
        })
    });
    g.bench_function(BenchmarkId::new("queen", S::NAME), |b| {
        b.iter(|| {
            set.iter()
                .fold(0u64, |acc, &(sq, occ)| acc ^ S::queen(sq, black_box(occ)).0)
        })
    });
    g.finish();
}

fn perft_bench<S: Sliders>(c: &mut Criterion, name: &str, fen: &str, depth: u32, nodes: u64) {
    let mut g = c.benchmark_group(format!("perft/{name}-d{depth}"));
    g.throughput(Throughput::Elements(nodes));
    g.sample_size(20);
    let pos = Position::from_fen(fen).expect("bench FEN is valid");
    g.bench_function(S::NAME, |b| {
        b.iter(|| {
            let n = Perft::new().total::<S>(&pos, black_box(depth));
            assert_eq!(
                n, nodes,
                "{name} depth {depth}: wrong count, the bench is void"
            );
            n
        })
    });
    g.finish();
}

fn all<S: Sliders>(c: &mut Criterion) {
    lookups::<S>(c, &occupancies());
    perft_bench::<S>(c, "startpos", perft::position::STARTPOS, 4, 197_281);
    perft_bench::<S>(c, "kiwipete", KIWIPETE, 3, 97_862);
}

/// The compiled copies of the bulk count (`--simd`) this CPU runs, magic sliders, Kiwipete
/// depth 4, one thread.
fn copies(c: &mut Criterion) {
    use perft::cpu::{Simd, SimdKind};
    let (depth, nodes) = (4, 4_085_603);
    let mut g = c.benchmark_group(format!("bulk-copy/kiwipete-d{depth}"));
    g.throughput(Throughput::Elements(nodes));
    g.sample_size(20);
    let pos = Position::from_fen(KIWIPETE).expect("bench FEN is valid");
    for kind in [SimdKind::Avx512, SimdKind::Avx2, SimdKind::None] {
        let Ok(simd) = Simd::new(kind) else { continue };
        let opts = Perft::new().simd(simd);
        g.bench_function(kind.name(), |b| {
            b.iter(|| {
                let n = opts.total::<Magic>(&pos, black_box(depth));
                assert_eq!(n, nodes, "wrong count, the bench is void");
                n
            })
        });
    }
    g.finish();
}

/// Leaf statistics against the plain bulk count of the same tree, one thread: the ratio of the
/// two is the price of `--stats` (the README gives it, measured with the binary at full depth).
fn statistics(c: &mut Criterion) {
    for (name, fen, depth, nodes) in [
        ("startpos", perft::position::STARTPOS, 5, 4_865_609),
        ("kiwipete", KIWIPETE, 4, 4_085_603),
    ] {
        let mut g = c.benchmark_group(format!("stats/{name}-d{depth}"));
        g.throughput(Throughput::Elements(nodes));
        g.sample_size(10);
        let pos = Position::from_fen(fen).expect("bench FEN is valid");
        g.bench_function("plain", |b| {
            b.iter(|| {
                let n = Perft::new().total::<Magic>(&pos, black_box(depth));
                assert_eq!(n, nodes, "wrong count, the bench is void");
                n
            })
        });
        g.bench_function("stats", |b| {
            b.iter(|| {
                let st = Perft::stats().total::<Magic>(&pos, black_box(depth));
                assert_eq!(st.nodes, nodes, "wrong count, the bench is void");
                st
            })
        });
        g.finish();
    }
}

/// The last ply's counters on the same boards: the children of every node three plies into
/// Kiwipete, one node's children at a time as perft hands them over; the one-board counter
/// against the AVX-512 and AVX2 lanes (those the CPU runs). Each sums to Kiwipete's perft 5.
fn reply_counters(c: &mut Criterion) {
    use perft::movegen::{count_legal_on, legal_moves};
    use perft::position::Board;
    fn children(pos: &mut Position, depth: u32, out: &mut Vec<Vec<Board>>) {
        let moves = legal_moves::<Magic>(pos);
        if depth == 0 {
            out.push(moves.iter().map(|&mv| pos.board_after(mv)).collect());
            return;
        }
        for &mv in moves.iter() {
            let undo = pos.make(mv);
            children(pos, depth - 1, out);
            pos.unmake(mv, &undo);
        }
    }
    let mut pos = Position::from_fen(KIWIPETE).expect("bench FEN is valid");
    let paths = *pos.castle_path_table();
    let mut groups = Vec::new();
    children(&mut pos, 3, &mut groups);
    let boards: u64 = groups.iter().map(|g| g.len() as u64).sum();
    let nodes = 193_690_690;
    let mut g = c.benchmark_group("reply-counters/kiwipete-d5");
    g.throughput(Throughput::Elements(boards));
    g.sample_size(20);
    g.bench_function("one-board", |b| {
        b.iter(|| {
            let n: u64 = groups
                .iter()
                .flatten()
                .map(|b| count_legal_on::<Magic>(b, &paths))
                .sum();
            assert_eq!(n, nodes, "wrong count, the bench is void");
            n
        })
    });
    #[cfg(target_arch = "x86_64")]
    for kind in [SimdKind::Avx512, SimdKind::Avx2] {
        let Ok(simd) = Simd::new(kind) else { continue };
        g.bench_function(format!("lanes {}", kind.name()), |b| {
            b.iter(|| {
                let n: u64 = groups
                    .iter()
                    .map(|g| perft::lanes::count_total::<Magic>(simd, g, &paths).unwrap_or(0))
                    .sum();
                assert_eq!(n, nodes, "wrong count, the bench is void");
                n
            })
        });
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    reply_counters(c);
    statistics(c);
    copies(c);
    all::<Classical>(c);
    all::<Magic>(c);
    #[cfg(target_arch = "x86_64")]
    if perft::attacks::Pext::available() {
        all::<perft::attacks::Pext>(c);
    }
}

criterion_group!(sliders, benches);
criterion_main!(sliders);
