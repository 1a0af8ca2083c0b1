//! Zobrist keys, generated at compile time from a fixed seed (splitmix64).

/// One key per (piece index 0..12, square).
pub(crate) static PIECE: [[u64; 64]; 12] = piece_table(0x1234_5678_9ABC_DEF0);

/// The second key's piece table (independent seed): hashed perft verifies entries with it.
pub(crate) static PIECE2: [[u64; 64]; 12] = piece_table(0x0DDB_A11C_0FFE_E5ED);

/// The second key's keys for castling rooks, en-passant files and side to move.
pub(crate) static OTHER2: [u64; 64 + 8 + 1] = {
    let mut t = [0u64; 73];
    let mut state = 0x7777_AAAA_5555_3333u64;
    let mut i = 0;
    while i < 73 {
        let (v, next) = splitmix(state);
        t[i] = v;
        state = next;
        i += 1;
    }
    t
};

const fn piece_table(seed: u64) -> [[u64; 64]; 12] {
    let mut t = [[0u64; 64]; 12];
    let mut state = seed;
    let mut p = 0;
    while p < 12 {
        let mut s = 0;
        while s < 64 {
            let (v, next) = splitmix(state);
            t[p][s] = v;
            state = next;
            s += 1;
        }
        p += 1;
    }
    t
}

/// One key per castling-rook square: castling rights are the set of those squares.
pub(crate) static CASTLE: [u64; 64] = {
    let mut t = [0u64; 64];
    let mut state = 0x0F0F_1E1E_2D2D_3C3Cu64;
    let mut s = 0;
    while s < 64 {
        let (v, next) = splitmix(state);
        t[s] = v;
        state = next;
        s += 1;
    }
    t
};

/// One key per en-passant file.
pub(crate) static EP_FILE: [u64; 8] = {
    let mut t = [0u64; 8];
    let mut state = 0xA5A5_5A5A_C3C3_3C3Cu64;
    let mut f = 0;
    while f < 8 {
        let (v, next) = splitmix(state);
        t[f] = v;
        state = next;
        f += 1;
    }
    t
};

/// Toggled when Black is to move.
pub(crate) const SIDE: u64 = splitmix(0xDEAD_BEEF_CAFE_F00D).0;

/// One step of splitmix64: (output, next state).
const fn splitmix(state: u64) -> (u64, u64) {
    let next = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = next;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31), next)
}
