//! The FEN parser on arbitrary input: it must never panic, and a FEN it accepts must print back
//! to a FEN that parses to the same position, with the incremental key equal to the full one
//! after every legal move.
#![no_main]

use libfuzzer_sys::fuzz_target;
use perft::movegen::legal_moves;
use perft::perft::{Counting, Perft};
use perft::{Classical, Magic, Position};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for chess960 in [false, true] {
        let Ok(pos) = Position::from_fen_with(text, chess960) else { continue };
        let fen = pos.to_fen();
        let again = Position::from_fen_with(&fen, pos.is_chess960()).expect("printed FEN parses");
        assert_eq!(again, pos);
        let mut p = pos.clone();
        for mv in legal_moves::<Magic>(&pos).iter().copied() {
            let undo = p.make(mv);
            assert_eq!(p.key(), p.compute_key());
            p.unmake(mv, &undo);
            assert_eq!(p, pos);
        }
        let mut q = pos.clone();
        assert_eq!(Perft::new().total::<Magic>(&p, 2), Perft::new().counting(Counting::NoBulk).total::<Classical>(&q, 2));
    }
});
