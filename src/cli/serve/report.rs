//! The report of `perft diff --html`: one self-contained HTML file (the page's style and board
//! drawing inside it, no external request) showing each position's result and, for each
//! failure, the board at the point of difference with the missed and invented moves drawn.

use super::http::{BOARD, STYLE};
use crate::cli::json::diff::{ReportEntryJson, ReportJson};
use anyhow::{Context, Result};

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

const SCRIPT: &str = include_str!("page/report.js");

/// The report's file, created before the work starts so that a path that cannot be written
/// is said at once.
pub struct Report {
    path: PathBuf,
    file: File,
}

impl Report {
    pub fn create(path: &Path) -> Result<Report> {
        let file = File::create(path)
            .with_context(|| format!("cannot write the report {}", path.display()))?;
        Ok(Report {
            path: path.to_path_buf(),
            file,
        })
    }

    /// Writes the report of `positions` compared with `engine`, under the line `summary`.
    pub fn write(
        mut self,
        engine: &str,
        summary: &str,
        positions: &[ReportEntryJson],
    ) -> Result<()> {
        let data = serde_json::to_string(&ReportJson {
            engine,
            summary,
            positions,
        })?
        // Inside a script element, "</script" would end it early and "<!--" then "<script"
        // would keep the real end from ending it: no "<" is left (JSON has it only inside
        // strings, where "\u003c" is the same character).
        .replace('<', "\\u003c");
        let html = format!(
            "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <title>perft diff: {title}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n\
             <header><h1>perft diff</h1><span class=\"muted\">engine: {title}</span></header>\n\
             <main><div id=\"report\"></div></main>\n\
             <noscript>This report draws its boards with JavaScript.</noscript>\n\
             <script id=\"report-data\" type=\"application/json\">{data}</script>\n\
             <script>\n{BOARD}</script>\n<script>\n{SCRIPT}</script>\n</body>\n</html>\n",
            title = escape(engine),
        );
        self.file
            .write_all(html.as_bytes())
            .and_then(|()| self.file.flush())
            .with_context(|| format!("cannot write the report {}", self.path.display()))
    }
}

/// `text` with the characters HTML gives a meaning escaped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
