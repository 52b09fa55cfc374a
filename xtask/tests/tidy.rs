//! Tidy checks over the whole repository, run by `cargo test`.

use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits in the workspace")
        .to_path_buf()
}

/// Every file below `dir` with extension `ext`, skipping build output and VCS data.
fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if path.is_dir() {
            if !matches!(name.as_ref(), "target" | ".git" | "corpus" | "artifacts") {
                files(&path, ext, out);
            }
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// The library crates under `crates/`, and the benchmark suite at the root.
fn crates() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = fs::read_dir(root().join("crates"))
        .expect("crates/ exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("Cargo.toml").exists())
        .collect();
    dirs.sort();
    dirs.push(root().join("benches"));
    dirs
}

#[test]
fn every_rust_file_opens_with_a_module_doc_line() {
    let mut rs = Vec::new();
    files(&root(), "rs", &mut rs);
    let bad: Vec<String> = rs
        .iter()
        .filter(|p| !read(p).trim_start().starts_with("//!"))
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        bad.is_empty(),
        "files without a leading `//!` line:\n{}",
        bad.join("\n")
    );
}

#[test]
fn no_unfinished_markers() {
    // Built from pieces so this file does not flag itself.
    let markers = [
        concat!("TO", "DO"),
        concat!("FIX", "ME"),
        concat!("db", "g!("),
        concat!("tod", "o!("),
    ];
    let mut rs = Vec::new();
    files(&root(), "rs", &mut rs);
    let mut bad = Vec::new();
    for p in &rs {
        for (n, line) in read(p).lines().enumerate() {
            if let Some(m) = markers.iter().find(|m| line.contains(**m)) {
                bad.push(format!("{}:{}: {m}", p.display(), n + 1));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "unfinished work markers:\n{}",
        bad.join("\n")
    );
}

#[test]
fn every_crate_has_readme_lints_and_docs_rs_metadata() {
    let mut bad = Vec::new();
    for dir in crates() {
        let name = dir
            .file_name()
            .expect("crate dir")
            .to_string_lossy()
            .to_string();
        let manifest = read(&dir.join("Cargo.toml"));
        if !manifest.contains(&format!("name = \"{name}\"")) {
            bad.push(format!("{name}: folder name differs from package name"));
        }
        if !dir.join("README.md").exists() {
            bad.push(format!("{name}: no README.md"));
        }
        for needle in [
            "[lints]\nworkspace = true",
            "[package.metadata.docs.rs]",
            "version.workspace = true",
            "description = ",
        ] {
            if !manifest.contains(needle) {
                bad.push(format!(
                    "{name}: Cargo.toml lacks `{}`",
                    needle.replace('\n', " ")
                ));
            }
        }
        let lib = dir.join("src/lib.rs");
        if lib.exists() && !read(&lib).contains("#![doc = include_str!(\"../README.md\")]") {
            bad.push(format!(
                "{name}: src/lib.rs does not include README.md as its doc"
            ));
        }
    }
    let xtask = read(&root().join("xtask/Cargo.toml"));
    if !xtask.contains("[lints]\nworkspace = true") {
        bad.push("xtask: Cargo.toml lacks workspace lints".into());
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Third-party dependencies outside the agreed set need a one-line reason.
#[test]
fn unusual_dependencies_state_a_reason() {
    let agreed = [
        "siphasher",
        "bitvec",
        "smallvec",
        "num-traits",
        "approx",
        "proptest",
        "criterion",
    ];
    let manifest = read(&root().join("Cargo.toml"));
    let section = manifest
        .split("[workspace.dependencies]")
        .nth(1)
        .and_then(|s| s.split("\n[").next())
        .expect("root Cargo.toml has [workspace.dependencies]");
    let mut previous = "";
    let mut bad = Vec::new();
    for line in section.lines() {
        let line = line.trim();
        if let Some((name, _)) = line.split_once('=')
            && !line.starts_with('#')
        {
            let name = name.trim();
            let ours = name.starts_with("ddf");
            if !ours && !agreed.contains(&name) && !previous.starts_with("# Reason:") {
                bad.push(name.to_string());
            }
        }
        if !line.is_empty() {
            previous = line;
        }
    }
    assert!(
        bad.is_empty(),
        "dependencies without a `# Reason:` line above them: {bad:?}"
    );
}
