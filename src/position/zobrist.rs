//! Zobrist keys, generated at compile time from fixed seeds (splitmix64).
//!
//! [`KEYS`] for the incremental key every position carries, and [`MIX`], the constants of the
//! second key that hashed perft computes at probes to verify table entries.

/// One set of Zobrist keys.
pub(crate) struct Keys {
    /// One key per (piece index 0..12, square).
    pub piece: [[u64; 64]; 12],
    /// One key per castling-rook square: castling rights are the set of those squares.
    pub castle: [u64; 64],
    /// One key per en-passant file.
    pub ep_file: [u64; 8],
    /// Toggled when Black is to move.
    pub side: u64,
}

/// The keys of [`super::Position::key`].
pub(crate) static KEYS: Keys = Keys::new(0x1234_5678_9ABC_DEF0);

/// The constants of [`super::Position::key2`], from another seed than [`KEYS`].
pub(crate) const MIX: [u64; 12] = {
    let mut out = [0; 12];
    let mut state = 0x0DDB_A11C_0FFE_E5ED;
    let mut i = 0;
    while i < 12 {
        (out[i], state) = splitmix(state);
        i += 1;
    }
    out
};

impl Keys {
    const fn new(seed: u64) -> Keys {
        let mut state = seed;
        let mut keys = Keys {
            piece: [[0; 64]; 12],
            castle: [0; 64],
            ep_file: [0; 8],
            side: 0,
        };
        let mut i = 0;
        while i < 12 * 64 {
            (keys.piece[i / 64][i % 64], state) = splitmix(state);
            i += 1;
        }
        i = 0;
        while i < 64 {
            (keys.castle[i], state) = splitmix(state);
            i += 1;
        }
        i = 0;
        while i < 8 {
            (keys.ep_file[i], state) = splitmix(state);
            i += 1;
        }
        keys.side = splitmix(state).0;
        keys
    }
}

/// One step of splitmix64: (output, next state).
pub(crate) const fn splitmix(state: u64) -> (u64, u64) {
    let next = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = next;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31), next)
}
