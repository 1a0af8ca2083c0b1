//! The JSON reports are pinned: each command's document, reduced to its shape (field names, in
//! order, and the type of each value; an array by its first element), must equal the golden
//! shape in `tests/data/json/`. A renamed, removed or retyped field fails here, so a change of
//! schema is a visible, reviewed change of those files. `PERFT_BLESS=1 cargo test --release
//! --test capabilities json_schema` rewrites them after an intended change, and fails on
//! purpose: a run that rewrites a golden file never passes (so a stray `PERFT_BLESS` in CI
//! cannot turn a changed schema green). The server's answers are pinned the same way.

use crate::common;

use serde_json::{Map, Value};
use std::path::PathBuf;
use std::process::{Command, Output};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_perft")
}

fn run(args: &[&str]) -> Output {
    Command::new(bin()).args(args).output().expect("perft runs")
}

/// The document's shape: every scalar replaced by its type's name, every array by one element,
/// the union of its elements' shapes (or by nothing when empty).
fn shape(v: &Value) -> Value {
    match v {
        Value::Null => Value::from("null"),
        Value::Bool(_) => Value::from("bool"),
        Value::Number(_) => Value::from("number"),
        Value::String(_) => Value::from("string"),
        Value::Array(a) => Value::Array(a.iter().map(shape).reduce(union).into_iter().collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), shape(v)))
                .collect::<Map<String, Value>>(),
        ),
    }
}

/// Two shapes of one place as one: an object has the fields of both (the first's order, then
/// the second's new ones); a null gives way to the other's type; arrays unite their elements.
fn union(a: Value, b: Value) -> Value {
    match (a, b) {
        (Value::Object(mut x), Value::Object(y)) => {
            for (k, v) in y {
                match x.get_mut(&k) {
                    Some(old) => {
                        let first = std::mem::take(old);
                        *old = union(first, v);
                    }
                    None => {
                        x.insert(k, v);
                    }
                }
            }
            Value::Object(x)
        }
        (Value::Array(x), Value::Array(y)) => {
            Value::Array(x.into_iter().chain(y).reduce(union).into_iter().collect())
        }
        (a, b) if a == "null" => b,
        (a, _) => a,
    }
}

/// Compares the shape of `stdout` with `tests/data/json/<name>.json` (or writes it when
/// blessing).
fn pinned(name: &str, o: &Output) {
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{name}: not JSON ({e}): {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    });
    pinned_value(name, &doc);
}

/// Compares the shape of `doc` with `tests/data/json/<name>.json`; with `PERFT_BLESS` set, a
/// shape that differs is written there and the test fails, so that rewriting a golden file is
/// never a passing run.
fn pinned_value(name: &str, doc: &Value) {
    let got = serde_json::to_string_pretty(&shape(doc)).unwrap() + "\n";
    // Not `repo_file`: a new document's file is written here first (`PERFT_BLESS`).
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/json/{name}.json"));
    let old = std::fs::read_to_string(&path).ok();
    if std::env::var_os("PERFT_BLESS").is_some() && old.as_deref() != Some(&got) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &got).unwrap();
        panic!(
            "{} rewritten (PERFT_BLESS): review the change, then run again without it",
            path.display()
        );
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(got, want, "the shape of {name} changed");
}

#[test]
fn suite_json_keeps_its_shape() {
    let suite = crate::common::repo_file("suites/standard.epd");
    // One position fails (a wrong count) so that the divide is in the document too.
    let dir = common::Scratch::new("json");
    let wrong = dir.join("wrong.epd");
    let mut text = std::fs::read_to_string(&suite).unwrap();
    text.push_str("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D2 401 ;id wrong\n");
    text.push_str("not a fen ;D1 1\n");
    std::fs::write(&wrong, text).unwrap();
    let o = run(&[
        "--suite",
        wrong.to_str().unwrap(),
        "--max-nodes",
        "10000",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    pinned("suite", &o);
}

#[test]
fn stats_json_keeps_its_shape() {
    let o = run(&["--stats", "--depth", "2", "--divide", "--json"]);
    assert!(o.status.success());
    pinned("stats", &o);
}

#[test]
fn diff_json_keeps_its_shape() {
    let fake = common::fake_engine();
    let suite = crate::common::repo_file("tests/data/diff.epd");
    let o = run(&[
        "diff",
        "--engine",
        &format!("{} --bug ep-pin", fake.display()),
        "--suite",
        suite.to_str().unwrap(),
        "--max-nodes",
        "200000",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    pinned("diff-suite", &o);
    let o = run(&[
        "diff",
        "--engine",
        fake.to_str().unwrap(),
        "--depth",
        "4",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    pinned("diff-one", &o);
}

#[test]
fn merge_json_keeps_its_shape() {
    let scratch = common::Scratch::new("json-merge");
    let dir = scratch.join("shards");
    let o = run(&[
        "split",
        "--depth",
        "3",
        "--at",
        "1",
        "--shards",
        "2",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    for shard in ["shard-0000.jobs", "shard-0001.jobs"] {
        let o = run(&["work", dir.join(shard).to_str().unwrap(), "--stats"]);
        assert!(o.status.success());
    }
    let o = run(&["merge", dir.to_str().unwrap(), "--json"]);
    assert!(o.status.success());
    pinned("merge", &o);
}

/// The server's answers keep their shape too: a divide with an engine beside it, a diff's
/// failure, the progress, the info, a cancel and an error.
#[test]
fn server_json_keeps_its_shape() {
    let s = common::web::Server::start(&["--engine", common::fake_engine().to_str().unwrap()]);
    let json = |path: &str| -> Value { s.get(path).json() };
    pinned_value("serve-divide", &json("/api/divide?depth=4"));
    pinned_value("serve-diff", &json("/api/diff?depth=4"));
    pinned_value("serve-progress", &json("/api/progress"));
    pinned_value("serve-info", &json("/api/info"));
    pinned_value("serve-cancel", &s.ask("POST", "/api/cancel", &[]).json());
    pinned_value("serve-error", &json("/api/divide"));
}
