//! The library as another program depends on it (`default-features = false`): its own
//! dependencies only, none of the command line's, the server's or the progress bar's crates,
//! with or without its `serde` feature (what `cargo tree` resolves, not what the manifest says).

use std::process::Command;

/// The crates `cargo tree` resolves for the library's normal build without the default
/// features, with `features`.
fn library_tree(features: &[&str]) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(env!("CARGO_MANIFEST_DIR")).args([
        "tree",
        "--offline",
        "-p",
        "perft",
        "-e",
        "normal",
        "--prefix",
        "none",
        "--no-default-features",
    ]);
    if !features.is_empty() {
        cmd.args(["--features", &features.join(",")]);
    }
    let out = cmd.output().expect("cargo runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn the_library_depends_on_none_of_the_tools_crates() {
    for features in [&[][..], &["serde"]] {
        let tree = library_tree(features);
        assert_eq!(tree.first().map(String::as_str), Some("perft"), "{tree:?}");
        for tool_only in [
            "clap",
            "clap_complete",
            "clap_mangen",
            "anyhow",
            "httparse",
            "form_urlencoded",
            "indicatif",
            "signal-hook",
            "tiny_http",
        ] {
            assert!(
                !tree.iter().any(|c| c == tool_only),
                "{features:?}: {tree:?}"
            );
        }
        let serde = tree.iter().any(|c| c == "serde_json");
        assert_eq!(serde, !features.is_empty(), "{features:?}: {tree:?}");
    }
}
