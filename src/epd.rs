//! Reading perft suites, streamed line by line (memory stays bounded however large the file).
//!
//! Two formats, recognised line by line so a file may even mix them:
//!
//! - EPD with perft opcodes: `<FEN> ;D1 20 ;D2 400 ... [;id name]`, 4- or 6-field FENs.
//! - The `.perft` block format of shakmaty and python-chess:
//!   `id <name>`, `epd <fen>`, then `perft <depth> <nodes>` lines; a block ends at a blank line,
//!   the next `id`/`epd`, or the end of the file.
//!
//! Lines starting with `#` are comments. Counts are [`Nodes`], exact at any size (the start
//! position's depth 14 and 15 counts do not fit in `u64`). The reader does not parse FENs: the caller does, so that a bad
//! FEN is reported with its line like any other error.

use crate::nodes::{Nodes, ParseNodesError};
use std::fmt;
use std::io::BufRead;

internal! {
    /// Longest line accepted; a longer one is an error (and is skipped without being stored whole).
    pub const MAX_LINE: usize = 64 * 1024;
}

/// One position of a suite with its expected counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EpdEntry {
    /// The 1-based line the position's FEN is on.
    pub line: usize,
    /// The `id`, if given.
    pub id: Option<String>,
    /// The FEN, unparsed.
    pub fen: String,
    /// `(depth, nodes)` pairs in file order.
    pub counts: Vec<(u32, Nodes)>,
}

impl EpdEntry {
    /// The id, or the FEN shortened to its board and side fields.
    pub fn name(&self) -> String {
        display_name(self.id.as_deref(), &self.fen)
    }
}

internal! {
    /// How a suite position is named in output: its id, or its FEN's board and side fields.
    pub fn display_name(id: Option<&str>, fen: &str) -> String {
        match id {
            Some(id) => id.to_string(),
            None => fen
                .split_ascii_whitespace()
                .take(2)
                .collect::<Vec<_>>()
                .join(" "),
        }
    }
}

/// A line that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EpdError {
    /// The 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub kind: EpdErrorKind,
}

/// What is wrong with a suite line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EpdErrorKind {
    /// The file could not be read (I/O error): reading stops.
    Io(String),
    /// The line is not valid UTF-8.
    NotUtf8,
    /// The line is longer than 64 KiB.
    TooLong,
    /// A `;`-field that is not `D<depth> <nodes>` or `id <name>`.
    BadField(String),
    /// A depth that is not an integer from 0 to [`MAX_DEPTH`].
    BadDepth(String),
    /// A node count that is not a non-negative integer.
    BadCount(String),
    /// A node count of more than 768 bits (no perft of depth 64 or less reaches it).
    CountTooLarge(String),
    /// A depth listed twice for one position.
    DuplicateDepth(u32),
    /// A position without any depth to check.
    NoCounts,
    /// A `perft` line outside a block with an `epd` line, or a block without one.
    NoPosition,
    /// A `.perft` block keyword with nothing after it.
    Empty(&'static str),
}

impl fmt::Display for EpdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.kind)
    }
}

impl fmt::Display for EpdErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use EpdErrorKind::*;
        match self {
            Io(e) => write!(f, "cannot read: {e}"),
            NotUtf8 => write!(f, "not valid UTF-8 text"),
            TooLong => write!(f, "line longer than {MAX_LINE} bytes"),
            BadField(s) => write!(
                f,
                "unknown field '{}' (expected 'D<depth> <nodes>' or 'id <name>')",
                s.escape_debug()
            ),
            BadDepth(s) => write!(
                f,
                "depth '{}' is not an integer from 0 to {MAX_DEPTH}",
                s.escape_debug()
            ),
            BadCount(s) => write!(
                f,
                "node count '{}' is not a non-negative integer",
                s.escape_debug()
            ),
            CountTooLarge(s) => write!(
                f,
                "node count '{}' is too large (no perft of depth 64 or less reaches 2^768)",
                s.escape_debug()
            ),
            DuplicateDepth(d) => write!(f, "depth {d} is listed twice"),
            NoCounts => write!(f, "no perft counts (';D<depth> <nodes>') for this position"),
            NoPosition => write!(f, "perft counts without a position ('epd <fen>' line)"),
            Empty(what) => write!(f, "'{what}' needs a value"),
        }
    }
}

impl std::error::Error for EpdError {}

/// A `.perft` block being assembled.
#[derive(Default)]
struct Block {
    /// Line of the `id` or `epd` line that opened the block.
    start: usize,
    id: Option<String>,
    fen: Option<(usize, String)>,
    counts: Vec<(u32, Nodes)>,
    open: bool,
}

/// Streams the entries of a suite: one `Result` per position or per bad line.
pub struct EpdReader<R> {
    input: R,
    line: usize,
    block: Block,
    buf: Vec<u8>,
    done: bool,
    /// An entry read together with the end of a block, handed out next.
    pending: Option<Result<EpdEntry, EpdError>>,
}

/// Reads the suite in `input`, line by line.
pub fn read<R: BufRead>(input: R) -> EpdReader<R> {
    EpdReader {
        input,
        line: 0,
        block: Block::default(),
        buf: Vec::new(),
        done: false,
        pending: None,
    }
}

/// Reads the suite in `text`.
pub fn parse_str(text: &str) -> Vec<Result<EpdEntry, EpdError>> {
    read(text.as_bytes()).collect()
}

/// The deepest depth a suite may list: the same bound as `--depth`.
pub const MAX_DEPTH: u32 = 64;

fn parse_depth(s: &str) -> Result<u32, EpdErrorKind> {
    match s.parse::<u32>() {
        Ok(d) if d <= MAX_DEPTH && s.bytes().all(|b| b.is_ascii_digit()) => Ok(d),
        _ => Err(EpdErrorKind::BadDepth(short(s))),
    }
}

fn parse_count(s: &str) -> Result<Nodes, EpdErrorKind> {
    s.parse::<Nodes>().map_err(|e| match e {
        ParseNodesError::NotANumber => EpdErrorKind::BadCount(short(s)),
        ParseNodesError::TooLarge => EpdErrorKind::CountTooLarge(short(s)),
    })
}

fn short(s: &str) -> String {
    if s.chars().count() > 40 {
        s.chars().take(40).chain("...".chars()).collect()
    } else {
        s.to_string()
    }
}

fn add_count(counts: &mut Vec<(u32, Nodes)>, depth: u32, n: Nodes) -> Result<(), EpdErrorKind> {
    if counts.iter().any(|&(d, _)| d == depth) {
        return Err(EpdErrorKind::DuplicateDepth(depth));
    }
    counts.push((depth, n));
    Ok(())
}

/// Parses `<FEN> ;D1 n ;D2 n ... ;id name`.
fn parse_epd_line(line: usize, text: &str) -> Result<EpdEntry, EpdErrorKind> {
    let mut fields = text.split(';');
    let fen = fields.next().unwrap_or("").trim().to_string();
    let mut entry = EpdEntry {
        line,
        id: None,
        fen,
        counts: Vec::new(),
    };
    for field in fields {
        let field = field.trim();
        if field.is_empty() {
            continue;
        }
        let (key, value) = field.split_once(char::is_whitespace).unwrap_or((field, ""));
        let value = value.trim();
        if key == "id" {
            entry.id = Some(value.trim_matches('"').to_string());
        } else if let Some(d) = key.strip_prefix('D') {
            let depth = parse_depth(d)?;
            add_count(&mut entry.counts, depth, parse_count(value)?)?;
        } else {
            return Err(EpdErrorKind::BadField(short(field)));
        }
    }
    if entry.counts.is_empty() {
        return Err(EpdErrorKind::NoCounts);
    }
    Ok(entry)
}

impl<R: BufRead> EpdReader<R> {
    /// Reads the next line into `self.buf` (without its end of line). `Ok(false)` at the end.
    /// A line over [`MAX_LINE`] is consumed to its end but not stored: `Err(TooLong)`.
    fn next_line(&mut self) -> Result<bool, EpdErrorKind> {
        self.buf.clear();
        let mut too_long = false;
        loop {
            let chunk = match self.input.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(EpdErrorKind::Io(e.to_string())),
            };
            if chunk.is_empty() {
                if self.buf.is_empty() && !too_long {
                    return Ok(false);
                }
                break;
            }
            let (take, end) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (i, true),
                None => (chunk.len(), false),
            };
            if !too_long && self.buf.len() + take <= MAX_LINE {
                self.buf.extend_from_slice(&chunk[..take]);
            } else {
                too_long = true;
                self.buf.clear();
            }
            self.input.consume(take + end as usize);
            if end {
                break;
            }
        }
        self.line += 1;
        if too_long {
            return Err(EpdErrorKind::TooLong);
        }
        if self.buf.last() == Some(&b'\r') {
            self.buf.pop();
        }
        // A byte-order mark some editors put at the start of a UTF-8 file is not part of the
        // first line's FEN.
        if self.line == 1 && self.buf.starts_with("\u{feff}".as_bytes()) {
            self.buf.drain(..3);
        }
        Ok(true)
    }

    /// Closes the current `.perft` block, if any, into an entry.
    fn flush(&mut self) -> Option<Result<EpdEntry, EpdError>> {
        let block = std::mem::take(&mut self.block);
        if !block.open {
            return None;
        }
        Some(match block.fen {
            None => Err(EpdError {
                line: block.start,
                kind: EpdErrorKind::NoPosition,
            }),
            Some(_) if block.counts.is_empty() => Err(EpdError {
                line: block.start,
                kind: EpdErrorKind::NoCounts,
            }),
            Some((line, fen)) => Ok(EpdEntry {
                line,
                id: block.id,
                fen,
                counts: block.counts,
            }),
        })
    }

    /// Handles a `.perft` block line; `Some` when it completes an entry or is an error.
    fn block_line(&mut self, key: &str, value: &str) -> Option<Result<EpdEntry, EpdError>> {
        let line = self.line;
        let err = |kind| Some(Err(EpdError { line, kind }));
        match key {
            "id" | "epd" => {
                if value.is_empty() {
                    return err(EpdErrorKind::Empty(if key == "id" { "id" } else { "epd" }));
                }
                // `id` always opens a new block; `epd` does unless the block has no FEN yet.
                let flushed = if key == "id" || self.block.fen.is_some() {
                    self.flush()
                } else {
                    None
                };
                if !self.block.open {
                    self.block = Block {
                        start: line,
                        open: true,
                        ..Block::default()
                    };
                }
                if key == "id" {
                    self.block.id = Some(value.to_string());
                } else {
                    self.block.fen = Some((line, value.to_string()));
                }
                flushed
            }
            _ => {
                if !self.block.open || self.block.fen.is_none() {
                    return err(EpdErrorKind::NoPosition);
                }
                let mut parts = value.split_ascii_whitespace();
                let (Some(d), Some(n), None) = (parts.next(), parts.next(), parts.next()) else {
                    return err(EpdErrorKind::BadField(short(&format!("perft {value}"))));
                };
                let result = parse_depth(d)
                    .and_then(|d| parse_count(n).map(|n| (d, n)))
                    .and_then(|(d, n)| add_count(&mut self.block.counts, d, n));
                match result {
                    Ok(()) => None,
                    Err(kind) => err(kind),
                }
            }
        }
    }
}

impl<R: BufRead> Iterator for EpdReader<R> {
    type Item = Result<EpdEntry, EpdError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(entry) = self.pending.take() {
                return Some(entry);
            }
            if self.done {
                return None;
            }
            match self.next_line() {
                Ok(true) => {}
                Ok(false) => {
                    self.done = true;
                    return self.flush();
                }
                Err(kind) => {
                    if matches!(kind, EpdErrorKind::Io(_)) {
                        self.done = true;
                    }
                    let line = self.line.max(1);
                    return Some(Err(EpdError { line, kind }));
                }
            }
            let Ok(text) = std::str::from_utf8(&self.buf) else {
                return Some(Err(EpdError {
                    line: self.line,
                    kind: EpdErrorKind::NotUtf8,
                }));
            };
            let text = text.trim().to_string();
            let text = text.as_str();
            if text.starts_with('#') {
                continue;
            }
            if text.is_empty() {
                if let Some(entry) = self.flush() {
                    return Some(entry);
                }
                continue;
            }
            let (key, value) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
            if matches!(key, "id" | "epd" | "perft") {
                let (key, value) = (key.to_string(), value.trim().to_string());
                if let Some(result) = self.block_line(&key, &value) {
                    return Some(result);
                }
                continue;
            }
            // An EPD line ends any open block.
            let flushed = self.flush();
            let line = self.line;
            let parsed = parse_epd_line(line, text).map_err(|kind| EpdError { line, kind });
            match flushed {
                // Hand out the block first, the EPD line's entry next.
                Some(entry) => {
                    self.pending = Some(parsed);
                    return Some(entry);
                }
                None => return Some(parsed),
            }
        }
    }
}
