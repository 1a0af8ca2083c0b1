//! A file argument: a path, a pipe (`/dev/stdin`, `<(...)`) or `-` for standard input.
//!
//! A regular file is read as often as needed (a first pass sizes the progress bar, the second
//! streams the positions, so memory stays bounded however large the file). Anything else can
//! be read only once: it is read whole, and every pass reads that copy.

use anyhow::{Context, Result, bail};
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};

/// An opened input file.
pub enum Input {
    /// A regular file, opened again for each pass.
    File(PathBuf),
    /// A pipe or standard input, read whole: its name and bytes.
    Memory(String, Vec<u8>),
}

impl Input {
    /// Opens `path` (`-` is standard input). A directory, or a path that cannot be read, is an
    /// error naming it.
    pub fn open(path: &Path) -> Result<Input> {
        if path == Path::new("-") {
            let mut bytes = Vec::new();
            std::io::stdin()
                .lock()
                .read_to_end(&mut bytes)
                .context("cannot read standard input")?;
            return Ok(Input::Memory("<stdin>".to_string(), bytes));
        }
        let name = path.display().to_string();
        let meta = std::fs::metadata(path).with_context(|| format!("cannot open {name}"))?;
        if meta.is_dir() {
            bail!("{name} is a directory, not a file");
        }
        if meta.is_file() {
            // Fail now, not at the first pass, if it cannot be read.
            std::fs::File::open(path).with_context(|| format!("cannot open {name}"))?;
            return Ok(Input::File(path.to_path_buf()));
        }
        let bytes = std::fs::read(path).with_context(|| format!("cannot read {name}"))?;
        Ok(Input::Memory(name, bytes))
    }

    /// The name to report lines under.
    pub fn name(&self) -> String {
        match self {
            Input::File(path) => path.display().to_string(),
            Input::Memory(name, _) => name.clone(),
        }
    }

    /// A reader from the start of the input.
    pub fn reader(&self) -> Result<Box<dyn BufRead + '_>> {
        Ok(match self {
            Input::File(path) => Box::new(std::io::BufReader::new(
                std::fs::File::open(path)
                    .with_context(|| format!("cannot open {}", path.display()))?,
            )),
            Input::Memory(_, bytes) => Box::new(bytes.as_slice()),
        })
    }
}
