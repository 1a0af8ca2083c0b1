//! The UCI loop (commands, FENs, move lists) on arbitrary input: it must never panic. Deep
//! `go perft` requests are capped so a run cannot take forever.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let capped: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("go") || l.split_whitespace().nth(2).is_none_or(|d| d.len() == 1 && d <= "3"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = Vec::new();
    let _ = perft::uci::Uci::new().run(capped.as_bytes(), &mut out);
});
