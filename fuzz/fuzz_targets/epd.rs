//! The suite reader on arbitrary bytes: it must never panic, and every entry it returns has at
//! least one count and a line number within the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use perft::epd;

fuzz_target!(|data: &[u8]| {
    let lines = data.iter().filter(|&&b| b == b'\n').count() + 1;
    for entry in epd::read(data) {
        match entry {
            Ok(e) => {
                assert!(!e.counts.is_empty());
                assert!(e.line >= 1 && e.line <= lines);
                let _ = perft::Position::from_fen(&e.fen);
            }
            Err(e) => assert!(e.line >= 1 && e.line <= lines),
        }
    }
});
