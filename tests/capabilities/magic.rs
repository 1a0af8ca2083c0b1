//! Magic bitboards: the shipped magics are what our finder produces, the tables equal the
//! classical ray scan (and the square-by-square walk) for every subset of every mask and for
//! 100,000 seeded random full-board occupancies, and the tables are no larger than the fancy layout.

use perft::attacks::magic::{
    self, BISHOP_MAGICS, Prng, ROOK_MAGICS, SHIPPED_SEED, Slider, relevant_mask, subsets,
};
use perft::attacks::{bishop_walk, rook_walk};
use perft::{Bitboard, Classical, Magic, Sliders, Square};

/// Every implementation compiled into this build.
fn check_all(sq: Square, occ: Bitboard) {
    let rook = rook_walk(sq, occ);
    let bishop = bishop_walk(sq, occ);
    assert_eq!(
        Classical::rook(sq, occ),
        rook,
        "classical rook {sq} {occ:?}"
    );
    assert_eq!(
        Classical::bishop(sq, occ),
        bishop,
        "classical bishop {sq} {occ:?}"
    );
    assert_eq!(Magic::rook(sq, occ), rook, "magic rook {sq} {occ:?}");
    assert_eq!(Magic::bishop(sq, occ), bishop, "magic bishop {sq} {occ:?}");
    assert_eq!(Magic::queen(sq, occ), rook | bishop);
    #[cfg(target_arch = "x86_64")]
    if perft::attacks::Pext::available() {
        use perft::attacks::Pext;
        assert_eq!(Pext::rook(sq, occ), rook, "pext rook {sq} {occ:?}");
        assert_eq!(Pext::bishop(sq, occ), bishop, "pext bishop {sq} {occ:?}");
    }
}

#[test]
fn every_subset_of_every_mask() {
    let mut n = 0;
    for sq in Square::ALL {
        for slider in [Slider::Rook, Slider::Bishop] {
            for occ in subsets(relevant_mask(slider, sq)) {
                check_all(sq, occ);
                n += 1;
            }
        }
    }
    // 102,400 rook and 5,248 bishop occupancies: the sum of 2^(relevant squares) over the
    // board (Chess Programming Wiki, "Magic Bitboards": the fancy tables' 800 KiB and 41 KiB).
    assert_eq!(n, 102_400 + 5_248);
}

#[test]
fn random_full_board_occupancies() {
    let mut rng = Prng::new(0xC0DE);
    for i in 0..100_000u64 {
        // Mix dense, sparse and medium boards; squares off the mask must not matter.
        let occ = match i % 3 {
            0 => rng.next_u64(),
            1 => rng.next_u64() & rng.next_u64() & rng.next_u64(),
            _ => rng.next_u64() | rng.next_u64(),
        };
        let sq = Square::new((rng.next_u64() % 64) as u8);
        check_all(sq, Bitboard(occ));
    }
}

#[test]
fn shipped_magics_are_what_our_finder_produces() {
    let search = magic::find_magics(SHIPPED_SEED);
    let rook: Vec<u64> = search.rook.iter().map(|m| m.magic).collect();
    let bishop: Vec<u64> = search.bishop.iter().map(|m| m.magic).collect();
    assert_eq!(rook, ROOK_MAGICS);
    assert_eq!(bishop, BISHOP_MAGICS);
    assert_eq!(search.entries(), magic::TABLE_LEN);
}

#[test]
fn finder_works_from_other_seeds_and_verifies_exhaustively() {
    for seed in [1, 42, 0xFFFF_FFFF] {
        let search = magic::find_magics(seed);
        let rook: [u64; 64] = std::array::from_fn(|i| search.rook[i].magic);
        let bishop: [u64; 64] = std::array::from_fn(|i| search.bishop[i].magic);
        assert_eq!(magic::verify_magics(Slider::Rook, &rook), Ok(102_400));
        assert_eq!(magic::verify_magics(Slider::Bishop, &bishop), Ok(5_248));
        for (slider, found) in [
            (Slider::Rook, &search.rook),
            (Slider::Bishop, &search.bishop),
        ] {
            for (sq, m) in Square::ALL.into_iter().zip(found) {
                // Accepted candidates passed the quick reject: 6+ bits in the top byte.
                let mask = relevant_mask(slider, sq);
                assert!((mask.0.wrapping_mul(m.magic) >> 56).count_ones() >= 6);
                assert_eq!(m.entries, 1 << mask.count());
                assert!(m.distinct <= m.entries);
            }
        }
    }
}

#[test]
fn verifier_rejects_a_bad_magic() {
    let mut rook = ROOK_MAGICS;
    rook[27] = 1; // multiplying by 1 keeps the low bits: every subset lands on one index
    assert_eq!(
        magic::verify_magics(Slider::Rook, &rook),
        Err(Square::new(27))
    );
    let mut bishop = BISHOP_MAGICS;
    bishop[0] = 0;
    assert_eq!(
        magic::verify_magics(Slider::Bishop, &bishop),
        Err(Square::new(0))
    );
}

#[test]
fn masks_leave_out_the_edges() {
    let sq = |s: &str| Square::parse(s).unwrap();
    // Rook on a1: a2..a7 and b1..g1. Bishop on d4: its diagonals without the edge squares.
    assert_eq!(relevant_mask(Slider::Rook, sq("a1")).count(), 12);
    assert_eq!(relevant_mask(Slider::Rook, sq("d4")).count(), 10);
    assert_eq!(relevant_mask(Slider::Bishop, sq("d4")).count(), 9);
    assert_eq!(relevant_mask(Slider::Bishop, sq("a1")).count(), 6);
    for s in Square::ALL {
        let edges = Bitboard::FILE_A | Bitboard::FILE_H | Bitboard::rank(0) | Bitboard::rank(7);
        // A bishop mask never holds an edge square; a rook mask only along its own rank/file.
        assert!((relevant_mask(Slider::Bishop, s) & edges).is_empty());
        let own_lines = Bitboard::rank(s.rank()) | Bitboard::file(s.file());
        let rook = relevant_mask(Slider::Rook, s);
        assert_eq!(rook, (rook_walk(s, Bitboard::EMPTY) & own_lines) & rook);
        assert!(!rook.contains(s));
    }
}

#[test]
fn packed_tables_are_no_larger_than_the_fancy_layout() {
    // Fancy layout: 2^bits entries per square, computed here from the masks.
    let fancy: usize = [Slider::Rook, Slider::Bishop]
        .into_iter()
        .flat_map(|s| Square::ALL.map(|sq| 1usize << relevant_mask(s, sq).count()))
        .sum();
    assert_eq!(fancy, 107_648);
    let len = magic::TABLE_LEN;
    assert!(len <= fancy, "{len} entries");
    // Plus a 32-byte lookup record (mask, multiplier, pointer, shift) per square and slider.
    assert!(magic::table_bytes() <= fancy * 8 + 128 * 32);
}

#[test]
fn subsets_enumerates_each_subset_once() {
    let mask = relevant_mask(Slider::Bishop, Square::new(0));
    let mut all: Vec<u64> = subsets(mask).map(|b| b.0).collect();
    assert_eq!(all.len(), 64);
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), 64);
    assert!(all.iter().all(|&b| b & !mask.0 == 0));
}

/// CPUs that run `pext` in microcode, by their `cpuid` signatures (vendor registers as the
/// little-endian bytes of the vendor string; leaf 1 `eax` as published for each part).
#[cfg(target_arch = "x86_64")]
#[test]
fn pext_is_microcoded_only_on_amd_before_zen_3() {
    use perft::attacks::pext::microcoded_on;
    let regs = |v: &[u8; 12]| {
        let r = |i: usize| u32::from_le_bytes([v[i], v[i + 1], v[i + 2], v[i + 3]]);
        (r(0), r(4), r(8))
    };
    let (ab, ad, ac) = regs(b"AuthenticAMD");
    let (ib, id, ic) = regs(b"GenuineIntel");
    assert!(microcoded_on(ab, ad, ac, 0x0080_0F11), "Zen (family 17h)");
    assert!(microcoded_on(ab, ad, ac, 0x0083_0F10), "Zen 2 (family 17h)");
    assert!(
        microcoded_on(ab, ad, ac, 0x0066_0F01),
        "Excavator (family 15h)"
    );
    assert!(
        !microcoded_on(ab, ad, ac, 0x00A2_0F10),
        "Zen 3 (family 19h)"
    );
    assert!(
        !microcoded_on(ab, ad, ac, 0x00A6_0F12),
        "Zen 4 (family 19h)"
    );
    assert!(
        !microcoded_on(ab, ad, ac, 0x00B4_0F40),
        "Zen 5 (family 1Ah)"
    );
    assert!(!microcoded_on(ib, id, ic, 0x0003_06C3), "Haswell");
    assert!(!microcoded_on(ib, id, ic, 0x000C_06F2), "Emerald Rapids");
}
