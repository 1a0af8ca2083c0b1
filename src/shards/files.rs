//! The files of a split: `manifest.json`, the shard files (`shard-NNNN.jobs`) and the results
//! files (`shard-NNNN.results`), each written whole or appended line by line, and read back with
//! every header and line checked.

use super::job::Job;
use super::{ShardError, line_checksum};
use crate::nodes::Nodes;
use crate::position::Position;
use crate::stats::Stats;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The manifest of a split (`manifest.json`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Manifest {
    /// The file format, [`FORMAT`].
    pub format: String,
    /// The split's id: a checksum of its parameters and every job line.
    pub split: String,
    /// The root FEN as given.
    pub fen: String,
    /// The moves played from it (UCI) to the root counted.
    pub moves: Vec<String>,
    /// `standard` or `chess960`.
    pub rules: String,
    /// The depth of the whole count.
    pub depth: u32,
    /// The ply at which the tree was cut into jobs.
    pub at: u32,
    /// The jobs: the distinct positions `at` plies below the root.
    pub jobs: u64,
    /// The sum of the jobs' multiplicities: perft `at` of the root.
    pub multiplicity_sum: u64,
    /// The shard files.
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

/// Writes `bytes` to `path` through a temporary file and a rename, so that a reader never sees
/// half a file.
pub(crate) fn write_file(path: &Path, bytes: &[u8]) -> Result<(), ShardError> {
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
    /// Where it was read from.
    pub path: PathBuf,
    /// The id of the split it belongs to.
    pub split: String,
    /// Its number, from 1.
    pub number: usize,
    /// The split's shard files.
    pub shards: usize,
    /// `standard` or `chess960`.
    pub rules: String,
    /// The jobs, with the line each was read from.
    pub jobs: Vec<(Job, usize)>,
}

impl Shard {
    /// Whether its positions use Chess960 castling rules.
    pub fn chess960(&self) -> bool {
        self.rules == "chess960"
    }

    /// The results file beside it: `shard-NNNN.results`.
    pub(crate) fn results_path(&self) -> PathBuf {
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
    /// The job's id.
    pub id: u64,
    /// Perft of the job's position to its depth.
    pub count: Nodes,
    /// The time it took, in seconds (written to the nanosecond: most jobs of a split take less
    /// than a millisecond, and the workers' time is their sum).
    pub seconds: f64,
    /// Its leaf statistics, when the split is counted with them.
    pub stats: Option<Stats>,
}

impl JobResult {
    pub(crate) fn line(&self) -> String {
        let mut text = format!("{} {} {:.9}", self.id, self.count, self.seconds);
        if let Some(stats) = &self.stats {
            for v in stats.to_array() {
                text.push_str(&format!(" {v}"));
            }
        }
        let sum = line_checksum(&text);
        format!("{text} {sum}\n")
    }
}

/// The first line of a results file: the split, the shard, the rules and whether its lines
/// carry statistics.
pub(crate) fn results_header(shard: &Shard, stats: bool) -> String {
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
    /// Each result, with the line it was read from.
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
        if !counts.iter().all(|c| c.is_perft_sized()) {
            return Err(bad(
                "a count larger than any perft gives (2^647 or more): a damaged results file"
                    .to_string(),
            ));
        }
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
