//! Deep counts over many processes and machines: **split** the tree K plies down into its
//! unique positions (jobs, each with its multiplicity), deal them into shard files balanced by
//! expected work; **work** a shard, appending one synced, checksummed line per finished job to
//! its results file, so that a worker killed at any moment carries on where it stopped; **merge**
//! the results, proving every job was counted exactly once, into the total
//! `sum(multiplicity x count)` in 128-bit integers.
//!
//! The files (all text, `#` lines are headers):
//! - `manifest.json`: the split's parameters, its id (a checksum of every job line), the job
//!   count and the sum of multiplicities (= perft K).
//! - `shard-NNNN.jobs`: `# perft split <id> shard <n> of <S> rules <standard|chess960>`, then
//!   `<id> <multiplicity> <remaining depth> <FEN>` per job.
//! - `shard-NNNN.results`: `# perft results <id> shard <n> of <S> rules <r> stats <on|off>`,
//!   then `<id> <count> <seconds> [<13 statistics>] #<checksum>` per finished job.
//!
//! Transpositions are merged on what decides the tree below a position: the pieces, the side to
//! move, the castling rights, and the en-passant square only when an en-passant capture is
//! legal there. The move counters do not matter.

use crate::attacks::Sliders;
use crate::movegen::{count_legal, legal_moves};
use crate::nodes::Nodes;
use crate::perft::{Counting, Options, perft_with};
use crate::position::Position;
use crate::stats::{Stats, StatsTable, stats_with};
use crate::tt::Table;
use crate::types::{Color, Move, MoveKind, PieceKind};
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// A problem with a file of a split, named by path and (where it has one) line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardError {
    pub file: PathBuf,
    pub line: Option<usize>,
    pub message: String,
}

impl ShardError {
    fn new(file: &Path, line: Option<usize>, message: impl Into<String>) -> ShardError {
        ShardError {
            file: file.to_path_buf(),
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for ShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file.display(), self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

impl std::error::Error for ShardError {}

/// 64-bit FNV-1a, the split's id and the results lines' checksum (not for security: for
/// telling files of different splits apart and finding damaged lines).
fn fnv1a(state: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(state, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// The checksum written at the end of a results line.
fn line_checksum(text: &str) -> String {
    format!("#{:08x}", fnv1a(FNV_START, text.as_bytes()) as u32)
}

/// What identifies a position for the tree below it (exactly: no hashing).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct JobKey {
    /// Per square a 4-bit code, one bit per plane: the kind (1-6, 0 empty) in planes 0-2, Black
    /// in plane 3.
    planes: [u64; 4],
    castling: u64,
    side: u8,
    /// The en-passant square's index where a capture there is legal, else 64.
    ep: u8,
}

fn job_key<S: Sliders>(pos: &Position) -> JobKey {
    let board = pos.board();
    let mut planes = [0u64; 4];
    for color in Color::BOTH {
        for kind in PieceKind::ALL {
            let set = board.pieces(color, kind).0;
            let code = kind.index() + 1;
            for (bit, plane) in planes.iter_mut().take(3).enumerate() {
                if code & (1 << bit) != 0 {
                    *plane |= set;
                }
            }
        }
    }
    planes[3] = board.color(Color::Black).0;
    JobKey {
        planes,
        castling: board.castling_rooks().0,
        side: board.side_to_move() as u8,
        ep: if ep_capture_is_legal::<S>(pos) {
            board.ep_square().map_or(64, |sq| sq.index() as u8)
        } else {
            64
        },
    }
}

fn ep_capture_is_legal<S: Sliders>(pos: &Position) -> bool {
    pos.board().ep_square().is_some()
        && legal_moves::<S>(pos)
            .iter()
            .any(|m| m.kind() == MoveKind::EnPassant)
}

/// The job's FEN: the en-passant square only where a capture there is legal, counters `0 1`.
fn job_fen<S: Sliders>(pos: &Position) -> String {
    let fen = pos.to_fen();
    let fields: Vec<&str> = fen.split_ascii_whitespace().collect();
    let ep = if ep_capture_is_legal::<S>(pos) {
        fields.get(3).copied().unwrap_or("-")
    } else {
        "-"
    };
    format!(
        "{} {} {} {ep} 0 1",
        fields.first().copied().unwrap_or(""),
        fields.get(1).copied().unwrap_or("w"),
        fields.get(2).copied().unwrap_or("-")
    )
}

/// The rules a split is made under, as its files name them.
pub fn rules_name(chess960: bool) -> &'static str {
    if chess960 { "chess960" } else { "standard" }
}

/// One job of a split.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    pub id: u64,
    pub multiplicity: u64,
    pub depth: u32,
    pub fen: String,
}

impl Job {
    fn line(&self) -> String {
        format!(
            "{} {} {} {}",
            self.id, self.multiplicity, self.depth, self.fen
        )
    }
}

/// The unique positions `at` plies below `root`, with multiplicities, in a fixed order (by
/// their key), each to be counted to `depth - at`. Transpositions are merged ply by ply, so
/// memory goes with the unique positions of the last two plies.
pub fn enumerate<S: Sliders>(root: &Position, depth: u32, at: u32) -> Vec<(Job, Position)> {
    let at = at.min(depth);
    let mut level: Vec<(Position, u64)> = vec![(root.clone(), 1)];
    for ply in 0..at {
        let last = ply + 1 == at;
        let mut index: HashMap<JobKey, u32> = HashMap::new();
        // On the last ply only the parent and the move are kept, and positions are rebuilt
        // for the unique ones: the ply with the most positions holds the least per position.
        let mut children: Vec<(u64, u32, Move)> = Vec::new();
        let mut next: Vec<(Position, u64)> = Vec::new();
        for (parent, (pos, mult)) in level.iter().enumerate() {
            for &mv in legal_moves::<S>(pos).iter() {
                let mut child = pos.clone();
                child.make(mv);
                let key = job_key::<S>(&child);
                match index.entry(key) {
                    Entry::Occupied(e) => {
                        let i = *e.get() as usize;
                        if last {
                            children[i].0 += mult;
                        } else {
                            next[i].1 += mult;
                        }
                    }
                    Entry::Vacant(e) => {
                        if last {
                            e.insert(children.len() as u32);
                            children.push((*mult, parent as u32, mv));
                        } else {
                            e.insert(next.len() as u32);
                            next.push((child, *mult));
                        }
                    }
                }
            }
        }
        if last {
            let mut keyed: Vec<(JobKey, u32)> = index.into_iter().collect();
            keyed.sort_unstable();
            return keyed
                .into_iter()
                .enumerate()
                .map(|(id, (_, i))| {
                    let (mult, parent, mv) = children[i as usize];
                    let mut pos = level[parent as usize].0.clone();
                    pos.make(mv);
                    let job = Job {
                        id: id as u64,
                        multiplicity: mult,
                        depth: depth - at,
                        fen: job_fen::<S>(&pos),
                    };
                    (job, pos)
                })
                .collect();
        }
        // Insertion order is already fixed (parents in order, moves in generation order); only
        // the last ply is sorted, for the ids.
        level = next;
    }
    // at == 0: the root is the one job.
    vec![(
        Job {
            id: 0,
            multiplicity: 1,
            depth,
            fen: job_fen::<S>(root),
        },
        root.clone(),
    )]
}

/// A rough measure of the work of counting `pos` to `depth`, for balancing shards: the
/// branching factor (`sample` plies deep, 1 or 2) raised to the depth.
fn estimate<S: Sliders>(pos: &Position, depth: u32, sample: u32) -> f64 {
    if depth == 0 {
        return 1.0;
    }
    let sample = sample.min(depth);
    let n = if sample == 1 {
        count_legal::<S>(pos) as f64
    } else {
        perft_with::<S>(pos, sample, Options::single(Counting::Bulk)).to_f64()
    };
    (n.max(1.0)).powf(f64::from(depth) / f64::from(sample))
}

/// What `perft split` was asked.
#[derive(Clone, Debug)]
pub struct SplitRequest {
    /// The root FEN as given, and the moves played from it.
    pub fen: String,
    pub moves: Vec<String>,
    pub chess960: bool,
    pub depth: u32,
    pub at: u32,
    /// Shard files asked for; never more are written than there are jobs.
    pub shards: usize,
    /// Replace the files of an earlier split in the output directory (its manifest, shards and
    /// results); without it, a directory that holds anything is refused.
    pub force: bool,
}

/// Makes `out` ready for a split: created if missing; refused if it holds anything, unless
/// `force`, which removes the files of an earlier split (`manifest.json`, `shard-NNNN.jobs`,
/// `shard-NNNN.results`) so that none of its results is left beside the new shards.
fn prepare_out(out: &Path, force: bool) -> Result<(), ShardError> {
    let err = |m: String| ShardError::new(out, None, m);
    std::fs::create_dir_all(out).map_err(|e| err(format!("cannot create the directory: {e}")))?;
    let entries: Vec<std::fs::DirEntry> = std::fs::read_dir(out)
        .map_err(|e| err(format!("cannot read the directory: {e}")))?
        .collect::<Result<_, _>>()
        .map_err(|e| err(format!("cannot read the directory: {e}")))?;
    if entries.is_empty() {
        return Ok(());
    }
    if !force {
        return Err(err(format!(
            "the directory is not empty ({} entries); a split there would orphan the results \
             beside it: choose an empty or new directory, or --force to replace an earlier split",
            entries.len()
        )));
    }
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let ours = name == "manifest.json"
            || (name.starts_with("shard-")
                && (name.ends_with(".jobs") || name.ends_with(".results")));
        if ours {
            std::fs::remove_file(e.path())
                .map_err(|x| ShardError::new(&e.path(), None, format!("cannot remove: {x}")))?;
        }
    }
    Ok(())
}

/// The manifest of a split (`manifest.json`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Manifest {
    pub format: String,
    /// The split's id: a checksum of its parameters and every job line.
    pub split: String,
    pub fen: String,
    pub moves: Vec<String>,
    pub rules: String,
    pub depth: u32,
    pub at: u32,
    pub jobs: u64,
    /// The sum of the jobs' multiplicities: perft `at` of the root.
    pub multiplicity_sum: u64,
    pub shards: usize,
    /// Jobs per shard.
    pub shard_jobs: Vec<u64>,
}

/// The manifest's `format`.
pub const FORMAT: &str = "perft-split 1";

/// The file name of shard `n`.
pub fn shard_name(n: usize) -> String {
    format!("shard-{n:04}.jobs")
}

/// Splits `root` (the position of `req`, already played), deals the jobs into `req.shards`
/// shards balanced by expected work, and writes the manifest and shard files into `out`.
pub fn split<S: Sliders>(
    root: &Position,
    req: &SplitRequest,
    out: &Path,
) -> Result<Manifest, ShardError> {
    let jobs = enumerate::<S>(root, req.depth, req.at);
    let rules = rules_name(req.chess960 || root.is_chess960());
    let remaining = req.depth - req.at.min(req.depth);
    let sample = if jobs.len() <= 100_000 { 2 } else { 1 };
    let mut work: Vec<(f64, usize)> = jobs
        .iter()
        .enumerate()
        .map(|(i, (_, pos))| (estimate::<S>(pos, remaining, sample), i))
        .collect();
    // Longest first, each to the least loaded shard (ties: the lower id, the lower shard).
    work.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    // Never more shards than jobs: an empty shard is a file to run for nothing.
    let shards = req.shards.clamp(1, jobs.len().max(1));
    let mut load = vec![0.0f64; shards];
    let mut heap: std::collections::BinaryHeap<std::cmp::Reverse<(u64, usize)>> =
        (0..shards).map(|s| std::cmp::Reverse((0, s))).collect();
    let mut owner = vec![0usize; jobs.len()];
    for (w, i) in work {
        let Some(std::cmp::Reverse((_, s))) = heap.pop() else {
            break;
        };
        owner[i] = s;
        load[s] += w;
        // The load as an integer key with the order of the float (loads are finite, >= 0).
        heap.push(std::cmp::Reverse((load[s].to_bits(), s)));
    }
    let mut hash = fnv1a(
        FNV_START,
        format!("{FORMAT} depth {} at {} rules {rules}\n", req.depth, req.at).as_bytes(),
    );
    let mut bodies = vec![String::new(); shards];
    let mut counts = vec![0u64; shards];
    let mut sum = 0u64;
    for ((job, _), &s) in jobs.iter().zip(&owner) {
        let line = job.line();
        hash = fnv1a(hash, line.as_bytes());
        hash = fnv1a(hash, b"\n");
        bodies[s].push_str(&line);
        bodies[s].push('\n');
        counts[s] += 1;
        sum += job.multiplicity;
    }
    let id = format!("{hash:016x}");
    prepare_out(out, req.force)?;
    for (n, body) in bodies.iter().enumerate() {
        let path = out.join(shard_name(n));
        let text = format!("# perft split {id} shard {n} of {shards} rules {rules}\n{body}");
        write_file(&path, text.as_bytes())?;
    }
    let manifest = Manifest {
        format: FORMAT.to_string(),
        split: id,
        fen: req.fen.clone(),
        moves: req.moves.clone(),
        rules: rules.to_string(),
        depth: req.depth,
        at: req.at.min(req.depth),
        jobs: jobs.len() as u64,
        multiplicity_sum: sum,
        shards,
        shard_jobs: counts,
    };
    let json = serde_json::to_string_pretty(&manifest)
        .map_err(|e| ShardError::new(out, None, e.to_string()))?;
    write_file(&out.join("manifest.json"), format!("{json}\n").as_bytes())?;
    Ok(manifest)
}

/// Writes `bytes` to `path` through a temporary file and a rename, so that a reader never sees
/// half a file.
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), ShardError> {
    let tmp = path.with_extension("tmp");
    let err = |e: std::io::Error| ShardError::new(path, None, format!("cannot write: {e}"));
    let mut f = std::fs::File::create(&tmp).map_err(err)?;
    f.write_all(bytes).map_err(err)?;
    f.sync_all().map_err(err)?;
    std::fs::rename(&tmp, path).map_err(err)
}

/// A shard file, read and checked.
#[derive(Clone, Debug)]
pub struct Shard {
    pub path: PathBuf,
    pub split: String,
    pub number: usize,
    pub shards: usize,
    pub rules: String,
    /// The jobs, with the line each was read from.
    pub jobs: Vec<(Job, usize)>,
}

impl Shard {
    pub fn chess960(&self) -> bool {
        self.rules == "chess960"
    }

    /// The results file beside it: `shard-NNNN.results`.
    pub fn results_path(&self) -> PathBuf {
        self.path.with_extension("results")
    }
}

/// Reads a shard file; every job's FEN must parse under the shard's rules.
pub fn read_shard(path: &Path) -> Result<Shard, ShardError> {
    let text = std::fs::read(path)
        .map_err(|e| ShardError::new(path, None, format!("cannot read: {e}")))?;
    let text = String::from_utf8(text)
        .map_err(|_| ShardError::new(path, None, "not a text file (invalid UTF-8)"))?;
    let mut lines = text.lines();
    let header = lines.next().unwrap_or("");
    let words: Vec<&str> = header.split_ascii_whitespace().collect();
    let (split, number, shards, rules) = match words.as_slice() {
        ["#", "perft", "split", id, "shard", n, "of", s, "rules", r] => (
            id.to_string(),
            n.parse::<usize>().ok(),
            s.parse::<usize>().ok(),
            r.to_string(),
        ),
        _ => {
            return Err(ShardError::new(
                path,
                Some(1),
                "not a shard file of `perft split` (its first line must be \
                 '# perft split <id> shard <n> of <S> rules <rules>')",
            ));
        }
    };
    let (Some(number), Some(shards)) = (number, shards) else {
        return Err(ShardError::new(
            path,
            Some(1),
            "bad shard numbers in the header",
        ));
    };
    if rules != "standard" && rules != "chess960" {
        return Err(ShardError::new(
            path,
            Some(1),
            format!("unknown rules '{rules}'"),
        ));
    }
    let chess960 = rules == "chess960";
    let mut jobs = Vec::new();
    for (i, line) in lines.enumerate() {
        let n = i + 2;
        let bad = |m: &str| ShardError::new(path, Some(n), m.to_string());
        let mut parts = line.splitn(4, ' ');
        let (Some(id), Some(mult), Some(depth), Some(fen)) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad(
                "expected '<id> <multiplicity> <remaining depth> <FEN>'",
            ));
        };
        let (Ok(id), Ok(multiplicity), Ok(depth)) =
            (id.parse::<u64>(), mult.parse::<u64>(), depth.parse::<u32>())
        else {
            return Err(bad("id, multiplicity and depth must be whole numbers"));
        };
        if depth > 64 {
            return Err(bad("remaining depth over 64"));
        }
        if let Err(e) = Position::from_fen_with(fen, chess960) {
            return Err(bad(&format!("invalid FEN: {e}")));
        }
        let job = Job {
            id,
            multiplicity,
            depth,
            fen: fen.to_string(),
        };
        jobs.push((job, n));
    }
    Ok(Shard {
        path: path.to_path_buf(),
        split,
        number,
        shards,
        rules,
        jobs,
    })
}

/// One finished job, as a results line records it.
#[derive(Clone, Debug, PartialEq)]
pub struct JobResult {
    pub id: u64,
    pub count: Nodes,
    pub seconds: f64,
    pub stats: Option<Stats>,
}

impl JobResult {
    fn line(&self) -> String {
        let mut text = format!("{} {} {:.3}", self.id, self.count, self.seconds);
        if let Some(stats) = &self.stats {
            for v in stats.to_array() {
                text.push_str(&format!(" {v}"));
            }
        }
        let sum = line_checksum(&text);
        format!("{text} {sum}\n")
    }
}

fn results_header(shard: &Shard, stats: bool) -> String {
    format!(
        "# perft results {} shard {} of {} rules {} stats {}\n",
        shard.split,
        shard.number,
        shard.shards,
        shard.rules,
        if stats { "on" } else { "off" }
    )
}

/// A results file, read and checked against its shard.
#[derive(Clone, Debug, Default)]
pub struct Results {
    pub results: Vec<(JobResult, usize)>,
    /// Whether its lines carry statistics (`None`: no file, or no header yet).
    pub stats: Option<bool>,
    /// The byte length of its complete lines, where a last line was cut short (a worker killed
    /// while writing it): the rest is to be cut off and the job redone.
    pub cut_at: Option<u64>,
}

impl Results {
    /// The jobs of `shard` without a result here.
    pub fn pending<'a>(&self, shard: &'a Shard) -> Vec<&'a Job> {
        let done: std::collections::HashSet<u64> = self.results.iter().map(|r| r.0.id).collect();
        shard
            .jobs
            .iter()
            .map(|(j, _)| j)
            .filter(|j| !done.contains(&j.id))
            .collect()
    }

    /// Whether there is nothing left to do for `perft work` with (or without) `stats`: every
    /// job has its result and no line is cut short.
    pub fn finished(&self, shard: &Shard, stats: bool) -> bool {
        self.cut_at.is_none() && self.stats == Some(stats) && self.pending(shard).is_empty()
    }
}

/// Reads the results file of `shard`, if there is one. A last line without its newline is
/// reported in `cut_at`, not as an error; any other damage is an error naming the line.
pub fn read_results(shard: &Shard) -> Result<Results, ShardError> {
    let path = shard.results_path();
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Results::default()),
        Err(e) => return Err(ShardError::new(&path, None, format!("cannot read: {e}"))),
    };
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let mut out = Results::default();
    if complete < bytes.len() {
        out.cut_at = Some(complete as u64);
    }
    let text = String::from_utf8_lossy(&bytes[..complete]);
    let ids: std::collections::HashSet<u64> = shard.jobs.iter().map(|(j, _)| j.id).collect();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let bad = |m: String| ShardError::new(&path, Some(n), m);
        if n == 1 {
            let words: Vec<&str> = line.split_ascii_whitespace().collect();
            let [
                "#",
                "perft",
                "results",
                split,
                "shard",
                number,
                "of",
                shards,
                "rules",
                rules,
                "stats",
                stats,
            ] = words.as_slice()
            else {
                return Err(bad(
                    "not a results file of `perft work` (bad first line)".to_string()
                ));
            };
            if *split != shard.split {
                return Err(bad(format!(
                    "written for split {split}, but {} is of split {}: a results file of \
                     another split",
                    shard.path.display(),
                    shard.split
                )));
            }
            if *number != shard.number.to_string() || *shards != shard.shards.to_string() {
                return Err(bad(format!(
                    "written for shard {number} of {shards}, not shard {} of {}",
                    shard.number, shard.shards
                )));
            }
            if *rules != shard.rules {
                return Err(bad(format!(
                    "written under {rules} rules, but the shard is {}",
                    shard.rules
                )));
            }
            out.stats = Some(*stats == "on");
            continue;
        }
        let Some((text, sum)) = line.rsplit_once(' ') else {
            return Err(bad("damaged line (no checksum)".to_string()));
        };
        if line_checksum(text) != sum {
            return Err(bad(
                "damaged line (its checksum does not match): remove it and run `perft work` \
                 on the shard again to redo that job"
                    .to_string(),
            ));
        }
        let fields: Vec<&str> = text.split(' ').collect();
        let want = if out.stats == Some(true) { 16 } else { 3 };
        if fields.len() != want {
            return Err(bad(format!(
                "expected {want} fields, found {}",
                fields.len()
            )));
        }
        let counts: Option<Vec<Nodes>> = fields
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != 0 && i != 2)
            .map(|(_, f)| f.parse::<Nodes>().ok())
            .collect();
        let (Ok(id), Some(counts), Ok(seconds)) =
            (fields[0].parse::<u64>(), counts, fields[2].parse::<f64>())
        else {
            return Err(bad("a field is not a number".to_string()));
        };
        if !ids.contains(&id) {
            return Err(bad(format!("job {id} is not in {}", shard.path.display())));
        }
        let stats = (want == 16).then(|| {
            let mut a = [Nodes::ZERO; 13];
            a.copy_from_slice(&counts[1..14]);
            Stats::from_array(a)
        });
        out.results.push((
            JobResult {
                id,
                count: counts[0],
                seconds,
                stats,
            },
            n,
        ));
    }
    Ok(out)
}

/// What `perft work` did.
#[derive(Clone, Debug, Default)]
pub struct WorkSummary {
    pub jobs: usize,
    pub already_done: usize,
    pub counted: usize,
    pub nodes: Nodes,
    /// A cut-short last line was removed (and its job redone).
    pub repaired: bool,
}

/// How to count a shard's jobs.
#[derive(Clone, Copy)]
pub struct WorkOptions<'a> {
    pub threads: usize,
    pub table: Option<&'a Table>,
    /// Count statistics (with this table, if any) instead of plain nodes.
    pub stats: Option<Option<&'a StatsTable>>,
}

/// Counts every job of `shard` not yet in `existing` (its results file, as [`read_results`] read
/// it), appending (and syncing) one line per job as it finishes. `progress` is called with each job's count.
pub fn work<S: Sliders>(
    shard: &Shard,
    existing: &Results,
    opts: WorkOptions<'_>,
    progress: impl Fn(Nodes) + Sync,
) -> Result<WorkSummary, ShardError> {
    let path = shard.results_path();
    let want_stats = opts.stats.is_some();
    if let Some(stats) = existing.stats
        && stats != want_stats
    {
        return Err(ShardError::new(
            &path,
            Some(1),
            format!(
                "its lines were written {} --stats; run `perft work` {} --stats, or remove the file",
                if stats { "with" } else { "without" },
                if stats { "with" } else { "without" }
            ),
        ));
    }
    let io = |e: std::io::Error| ShardError::new(&path, None, format!("cannot write: {e}"));
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(io)?;
    let mut summary = WorkSummary::default();
    if let Some(len) = existing.cut_at {
        file.set_len(len).map_err(io)?;
        file.sync_all().map_err(io)?;
        summary.repaired = true;
    }
    if existing.stats.is_none() {
        // No header yet (a new file, or one cut before its first newline).
        file.set_len(0).map_err(io)?;
        file.write_all(results_header(shard, want_stats).as_bytes())
            .map_err(io)?;
        file.sync_all().map_err(io)?;
    }
    let pending = existing.pending(shard);
    summary.jobs = shard.jobs.len();
    summary.already_done = summary.jobs - pending.len();
    let chess960 = shard.chess960();
    let next = AtomicUsize::new(0);
    let file = Mutex::new(file);
    let failure: Mutex<Option<ShardError>> = Mutex::new(None);
    let nodes = Mutex::new(Nodes::ZERO);
    let counted = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..opts.threads.max(1) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = pending.get(i) else { break };
                    if failure.lock().map_or(true, |f| f.is_some()) {
                        break;
                    }
                    // Checked when the shard was read.
                    let Ok(pos) = Position::from_fen_with(&job.fen, chess960) else {
                        break;
                    };
                    let start = Instant::now();
                    let (count, stats) = match opts.stats {
                        Some(table) => {
                            let s = stats_with::<S>(&pos, job.depth, 1, table);
                            (s.nodes, Some(s))
                        }
                        None => {
                            let o = Options {
                                counting: Counting::Bulk,
                                threads: 1,
                                table: opts.table,
                            };
                            (perft_with::<S>(&pos, job.depth, o), None)
                        }
                    };
                    let result = JobResult {
                        id: job.id,
                        count,
                        seconds: start.elapsed().as_secs_f64(),
                        stats,
                    };
                    let line = result.line();
                    let written = file.lock().map_err(|_| ()).and_then(|mut f| {
                        f.write_all(line.as_bytes())
                            .and_then(|_| f.sync_data())
                            .map_err(|_| ())
                    });
                    if written.is_err() {
                        if let Ok(mut f) = failure.lock() {
                            *f = Some(ShardError::new(&path, None, "cannot append a result"));
                        }
                        break;
                    }
                    if let Ok(mut n) = nodes.lock() {
                        *n += count;
                    }
                    counted.fetch_add(1, Ordering::Relaxed);
                    progress(count);
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().ok().flatten() {
        return Err(e);
    }
    summary.counted = counted.into_inner();
    summary.nodes = nodes.into_inner().unwrap_or_else(|e| e.into_inner());
    Ok(summary)
}

/// The merged result of a split.
#[derive(Clone, Debug, Default)]
pub struct Merged {
    pub manifest: Option<Manifest>,
    /// `sum(multiplicity x count)`: perft `depth` of the root.
    pub total: Nodes,
    /// The same for every statistics field, if the results carry statistics.
    pub stats: Option<Stats>,
    pub jobs: u64,
    pub jobs_done: u64,
    /// Nodes the workers counted (each unique position once).
    pub nodes: Nodes,
    pub seconds: f64,
    /// Jobs without a result: (shard number, id).
    pub missing: Vec<(usize, u64)>,
    /// Shards with a cut-short last line (a worker was killed while writing it).
    pub cut: Vec<usize>,
}

impl Merged {
    pub fn complete(&self) -> bool {
        self.missing.is_empty()
    }
}

/// Reads the manifest of the split in `dir`.
pub fn read_manifest(dir: &Path) -> Result<Manifest, ShardError> {
    let path = dir.join("manifest.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| ShardError::new(&path, None, format!("cannot read: {e}")))?;
    let m: Manifest = serde_json::from_str(&text)
        .map_err(|e| ShardError::new(&path, Some(e.line()), format!("not a manifest: {e}")))?;
    if m.format != FORMAT {
        return Err(ShardError::new(
            &path,
            None,
            format!("format '{}', this build reads '{FORMAT}'", m.format),
        ));
    }
    if m.shard_jobs.len() != m.shards {
        return Err(ShardError::new(
            &path,
            None,
            "shard_jobs does not list every shard",
        ));
    }
    Ok(m)
}

/// Checks every shard and results file of the split in `dir` against its manifest and adds up
/// the results. Errors are damage or files of another split; missing results are not errors
/// but listed in [`Merged::missing`].
pub fn merge(dir: &Path) -> Result<Merged, ShardError> {
    let manifest = read_manifest(dir)?;
    let mut merged = Merged {
        jobs: manifest.jobs,
        ..Merged::default()
    };
    let mut stats_on: Option<bool> = None;
    let mut stats_sum = Stats::default();
    let mut jobs_seen = 0u64;
    let mut mult_seen = 0u64;
    for n in 0..manifest.shards {
        let path = dir.join(shard_name(n));
        let shard = read_shard(&path)?;
        let header = |m: String| ShardError::new(&path, Some(1), m);
        if shard.split != manifest.split {
            return Err(header(format!(
                "of split {}, but the manifest is of split {}",
                shard.split, manifest.split
            )));
        }
        if shard.number != n || shard.shards != manifest.shards || shard.rules != manifest.rules {
            return Err(header(format!(
                "says shard {} of {} ({} rules); the manifest expects shard {n} of {} ({} rules)",
                shard.number, shard.shards, shard.rules, manifest.shards, manifest.rules
            )));
        }
        if shard.jobs.len() as u64 != manifest.shard_jobs[n] {
            return Err(ShardError::new(
                &path,
                None,
                format!(
                    "{} jobs, the manifest says {}",
                    shard.jobs.len(),
                    manifest.shard_jobs[n]
                ),
            ));
        }
        jobs_seen += shard.jobs.len() as u64;
        let results = read_results(&shard)?;
        if results.cut_at.is_some() {
            merged.cut.push(n);
        }
        if let Some(on) = results.stats {
            match stats_on {
                Some(s) if s != on => {
                    return Err(ShardError::new(
                        &shard.results_path(),
                        Some(1),
                        "some shards were worked with --stats and some without",
                    ));
                }
                _ => stats_on = Some(on),
            }
        }
        let mut found: HashMap<u64, (Nodes, Option<Stats>, usize)> = HashMap::new();
        for (r, line) in &results.results {
            match found.get(&r.id) {
                Some(&(count, stats, first)) if count != r.count || stats != r.stats => {
                    return Err(ShardError::new(
                        &shard.results_path(),
                        Some(*line),
                        format!(
                            "job {} counted twice with different results: {count} (line {first}) \
                             and {}",
                            r.id, r.count
                        ),
                    ));
                }
                Some(_) => {}
                None => {
                    found.insert(r.id, (r.count, r.stats, *line));
                    merged.seconds += r.seconds;
                }
            }
        }
        for (job, _) in &shard.jobs {
            mult_seen += job.multiplicity;
            match found.get(&job.id) {
                Some(&(count, stats, _)) => {
                    merged.jobs_done += 1;
                    merged.nodes += count;
                    merged.total += count * job.multiplicity;
                    if let Some(s) = stats {
                        stats_sum += Stats::from_array(s.to_array().map(|v| v * job.multiplicity));
                    }
                }
                None => merged.missing.push((n, job.id)),
            }
        }
    }
    let manifest_path = dir.join("manifest.json");
    if jobs_seen != manifest.jobs || mult_seen != manifest.multiplicity_sum {
        return Err(ShardError::new(
            &manifest_path,
            None,
            format!(
                "the shards hold {jobs_seen} jobs of multiplicity {mult_seen}; the manifest says \
                 {} and {}",
                manifest.jobs, manifest.multiplicity_sum
            ),
        ));
    }
    if stats_on == Some(true) {
        merged.stats = Some(stats_sum);
    }
    merged.manifest = Some(manifest);
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attacks::Magic;

    #[test]
    fn transpositions_merge_and_multiplicities_sum_to_perft() {
        let root = Position::startpos();
        // Published: perft 2 = 400, perft 3 = 8,902, perft 4 = 197,281 of the start position.
        for (at, perft) in [(1u32, 20u64), (2, 400), (3, 8902), (4, 197_281)] {
            let jobs = enumerate::<Magic>(&root, at, at);
            let sum: u64 = jobs.iter().map(|(j, _)| j.multiplicity).sum();
            assert_eq!(sum, perft, "at {at}");
            let ids: Vec<u64> = jobs.iter().map(|(j, _)| j.id).collect();
            assert_eq!(ids, (0..jobs.len() as u64).collect::<Vec<_>>());
        }
        // 1. Nf3 Nf6 2. Nc3 and 1. Nc3 Nf6 2. Nf3 meet: fewer jobs than paths at ply 3.
        assert!(enumerate::<Magic>(&root, 3, 3).len() < 8902);
        assert_eq!(enumerate::<Magic>(&root, 2, 2).len(), 400);
    }

    #[test]
    fn an_en_passant_square_without_a_legal_capture_does_not_split_a_job() {
        // After 1. e4 the square e3 is set but Black cannot take: the same job as the position
        // reached with no en-passant square.
        let mut a = Position::startpos();
        crate::uci::play_moves(&mut a, ["e2e4"]).unwrap();
        let b = Position::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
            .unwrap();
        assert!(job_key::<Magic>(&a) == job_key::<Magic>(&b));
        assert!(job_fen::<Magic>(&a).contains(" b KQkq - 0 1"));
        // Where a capture is legal, it does.
        let c = Position::from_fen("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1").unwrap();
        let d = Position::from_fen("4k3/8/8/8/3pP3/8/8/4K3 b - - 0 1").unwrap();
        assert!(job_key::<Magic>(&c) != job_key::<Magic>(&d));
    }
}
