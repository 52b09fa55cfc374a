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

/// The crates under `crates/`, the benchmark suite and its runner at the root.
fn crates() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = fs::read_dir(root().join("crates"))
        .expect("crates/ exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("Cargo.toml").exists())
        .collect();
    dirs.sort();
    dirs.push(root().join("benches"));
    dirs.push(root().join("benchrun"));
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
fn no_template_placeholders_in_pages() {
    // A `@@NAME@@` left in a page is a template nothing filled: the crate
    // pages are the crate docs, so it would show on docs.rs. Built from
    // pieces so this file does not flag itself.
    let at = "@".repeat(2);
    let mut md = Vec::new();
    files(&root(), "md", &mut md);
    let mut bad = Vec::new();
    for p in &md {
        for (n, line) in read(p).lines().enumerate() {
            if let Some(start) = line.find(at.as_str()) {
                let rest = &line[start + 2..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_uppercase() || *c == '_')
                    .collect();
                if !name.is_empty() && rest[name.len()..].starts_with(at.as_str()) {
                    bad.push(format!("{}:{}: {line}", p.display(), n + 1));
                }
            }
        }
    }
    assert!(bad.is_empty(), "unfilled placeholders:\n{}", bad.join("\n"));
}

#[test]
fn no_merge_conflict_markers() {
    // A marker line is seven of one character at the start of a line;
    // built from pieces so this file does not flag itself.
    let markers = ["<".repeat(7) + " ", ">".repeat(7) + " ", "=".repeat(7)];
    let mut text = Vec::new();
    for ext in ["rs", "md", "toml", "yml", "csv"] {
        files(&root(), ext, &mut text);
    }
    let mut bad = Vec::new();
    for p in &text {
        for (n, line) in read(p).lines().enumerate() {
            if markers
                .iter()
                .any(|m| line.starts_with(m.as_str()) && (m.ends_with(' ') || line == m))
            {
                bad.push(format!("{}:{}", p.display(), n + 1));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "merge-conflict markers:\n{}",
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
            "rustdoc-args = [\"--cfg\", \"docsrs\"]",
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
        if lib.exists() && !read(&lib).contains("#![cfg_attr(docsrs, feature(doc_cfg))]") {
            bad.push(format!(
                "{name}: src/lib.rs does not label feature-gated items on docs.rs"
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

/// `UPPER_SNAKE` kind names as the `CamelCase` type names they register
/// (`SLIDING_BLOOM` → `SlidingBloom`; `CUCKOO` matches `StreamingCuckoo`).
fn camel(kind: &str) -> String {
    kind.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next().map_or_else(String::new, |f| {
                f.to_string() + &c.as_str().to_ascii_lowercase()
            })
        })
        .collect()
}

/// The filter kinds of the snapshot registry (`ddf_core::snapshot::kind`),
/// less the test kind.
fn snapshot_kinds() -> Vec<String> {
    let text = read(&root().join("crates/ddf-core/src/snapshot/mod.rs"));
    let module = text
        .split("pub mod kind {")
        .nth(1)
        .and_then(|s| s.split("\n}").next())
        .expect("snapshot/mod.rs has `pub mod kind`");
    module
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub const "))
        .filter_map(|l| l.split(':').next())
        .map(str::trim)
        .filter(|k| {
            k.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        })
        .map(str::to_string)
        .filter(|k| k != "TEST" && k != "ANY")
        .collect()
}

fn texts_below(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut rs = Vec::new();
    files(dir, "rs", &mut rs);
    rs.sort();
    rs.into_iter()
        .map(|p| {
            let t = read(&p);
            (p, t)
        })
        .collect()
}

/// The "Adding a family" checklist of ARCHITECTURE.md, enforced: every
/// snapshot kind has an owning crate with a conformance line and a
/// parameter test, a fuzz target, a verify module and a benchmark entry.
#[test]
fn every_filter_kind_is_wired_everywhere() {
    let root = root();
    let kinds = snapshot_kinds();
    assert!(kinds.len() >= 16, "kind registry not found: {kinds:?}");
    let fuzz = texts_below(&root.join("fuzz/fuzz_targets"));
    let checks = texts_below(&root.join("crates/ddf-verify/src/checks"));
    let bench = texts_below(&root.join("benches"));
    let mut bad = Vec::new();
    for kind in &kinds {
        let ty = camel(kind);
        let owner = crates().into_iter().find(|dir| {
            !dir.ends_with("ddf-core")
                && texts_below(&dir.join("src"))
                    .iter()
                    .any(|(_, t)| t.contains(&format!("kind::{kind};")))
        });
        let Some(owner) = owner else {
            bad.push(format!("{kind}: no crate registers it (`kind::{kind}`)"));
            continue;
        };
        let tests = texts_below(&owner.join("tests"));
        let conformed = tests.iter().any(|(_, t)| {
            t.split("conformance!(")
                .skip(1)
                .any(|call| call.chars().take(400).collect::<String>().contains(&ty))
        });
        if !conformed {
            bad.push(format!(
                "{kind}: no `conformance!` line names {ty} in {}/tests",
                owner.display()
            ));
        }
        let params = owner.join("tests/params.rs");
        if !params.exists() || !read(&params).contains(&ty) {
            bad.push(format!(
                "{kind}: {} does not test {ty}'s constructors",
                params.display()
            ));
        }
        for (what, set) in [
            ("fuzz target in fuzz/fuzz_targets", &fuzz),
            ("verify module in crates/ddf-verify/src/checks", &checks),
            ("benchmark case in benches", &bench),
        ] {
            if !set.iter().any(|(_, t)| t.contains(&ty)) {
                bad.push(format!("{kind}: no {what} names {ty}"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The `deps` block of ARCHITECTURE.md: each crate and the workspace crates
/// its `[dependencies]` may name.
fn allowed_dependencies() -> Vec<(String, Vec<String>)> {
    let text = read(&root().join("ARCHITECTURE.md"));
    let block = text
        .split("```text deps\n")
        .nth(1)
        .and_then(|s| s.split("```").next())
        .expect("ARCHITECTURE.md has a ```text deps block");
    block
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (name, deps) = l.split_once(':').expect("`crate: dep, dep` lines");
            let deps = deps
                .split(',')
                .map(|d| d.trim().to_string())
                .filter(|d| !d.is_empty())
                .collect();
            (name.trim().to_string(), deps)
        })
        .collect()
}

/// Workspace crates named in the `[dependencies]` table of a manifest.
fn workspace_dependencies(manifest: &str) -> Vec<String> {
    let mut deps = Vec::new();
    let mut section = "";
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line;
        } else if section == "[dependencies]"
            && let Some((name, _)) = line.split_once(['=', '.'])
        {
            let name = name.trim();
            if name.starts_with("ddf") {
                deps.push(name.to_string());
            }
        }
    }
    deps
}

/// Dependencies point one way: a crate's `[dependencies]` stay within the
/// graph written in ARCHITECTURE.md, and every crate has a line there.
#[test]
fn dependencies_follow_the_architecture_graph() {
    let allowed = allowed_dependencies();
    let mut bad = Vec::new();
    for dir in crates().into_iter().chain([root().join("xtask")]) {
        let name = dir
            .file_name()
            .expect("crate dir")
            .to_string_lossy()
            .to_string();
        let Some((_, may)) = allowed.iter().find(|(n, _)| *n == name) else {
            bad.push(format!("{name}: no line in ARCHITECTURE.md's deps block"));
            continue;
        };
        for dep in workspace_dependencies(&read(&dir.join("Cargo.toml"))) {
            if !may.contains(&dep) {
                bad.push(format!(
                    "{name} depends on {dep}, which the graph does not allow"
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The text of a Markdown page outside fenced code blocks, line by line.
fn prose_lines(text: &str) -> Vec<&str> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push(line);
        }
    }
    out
}

/// A link destination that works on docs.rs and on the repository page
/// alike (ARCHITECTURE.md, "Documentation"): an intra-doc path, a full URL
/// or an anchor. Relative file links break on docs.rs.
fn portable_destination(dest: &str) -> bool {
    dest.starts_with("https://") || dest.starts_with('#') || dest.contains("::")
}

/// The label of a reference definition (`[label]: destination`) on `line`.
fn definition(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix('[')?;
    let end = rest.find(']')?;
    let dest = rest[end + 1..].strip_prefix(':')?;
    Some((&rest[..end], dest.trim()))
}

/// The `ddf::guide` page: its parts in `crates/ddf/src/guide/`, in order.
fn guide_text() -> String {
    let mut parts = Vec::new();
    files(&root().join("crates/ddf/src/guide"), "md", &mut parts);
    parts.sort();
    assert!(!parts.is_empty(), "the guide has no parts");
    parts.iter().map(|p| read(p)).collect::<Vec<_>>().join("\n")
}

/// Every part of the guide, and every figure in `crates/ddf/figures/`, is
/// assembled into the `ddf::guide` page by `crates/ddf/src/lib.rs`, and
/// every figure there is a committed figure of `docs/figures/`.
#[test]
fn guide_assembles_every_part_and_figure() {
    let lib = read(&root().join("crates/ddf/src/lib.rs"));
    let mut parts = Vec::new();
    files(&root().join("crates/ddf/src/guide"), "md", &mut parts);
    let mut figures = Vec::new();
    files(&root().join("crates/ddf/figures"), "svg", &mut figures);
    let mut bad = Vec::new();
    for part in &parts {
        let file = part.file_name().unwrap().to_string_lossy();
        if !lib.contains(&format!("include_str!(\"guide/{file}\")")) {
            bad.push(format!("guide part {file} is not in lib.rs"));
        }
    }
    for figure in &figures {
        let stem = figure.file_stem().unwrap().to_string_lossy();
        if !lib.contains(&format!("\"{stem}\"")) {
            bad.push(format!("figure {stem} is not in lib.rs"));
        }
        let committed = root()
            .join("docs/figures")
            .join(figure.file_name().unwrap());
        if fs::read(figure).ok() != fs::read(&committed).ok() {
            bad.push(format!(
                "{} differs from {}",
                figure.display(),
                committed.display()
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// No page embeds a remote image: the docs are read offline (`cargo doc
/// --open`) and on docs.rs before or after any repository serves files, so a
/// figure is inline SVG or a link, never `![..](https://..)` or `<img src="http..">`.
#[test]
fn no_remote_images() {
    let mut pages = Vec::new();
    files(&root(), "md", &mut pages);
    files(&root(), "rs", &mut pages);
    let mut bad = Vec::new();
    // This file names the patterns it looks for.
    let this = root().join("xtask/tests/tidy.rs");
    for page in pages.iter().filter(|p| **p != this) {
        for (n, line) in read(page).lines().enumerate() {
            let remote_md = line.contains("](http") && line.contains("![");
            let remote_img = line.contains("<img") && line.contains("src=\"http");
            if remote_md || remote_img {
                bad.push(format!("{}:{}", page.display(), n + 1));
            }
        }
    }
    assert!(bad.is_empty(), "remote images:\n{}", bad.join("\n"));
}

/// Every crate page (the README that is the crate doc, and the `ddf`
/// guide) links only to portable destinations, and every shortcut link
/// `[`Item`]` has its definition, so GitHub shows no bare brackets.
#[test]
fn crate_pages_link_portably() {
    let mut pages: Vec<(String, String)> = crates()
        .iter()
        .map(|d| d.join("README.md"))
        .filter(|p| p.exists())
        .map(|p| {
            let name = p.strip_prefix(root()).unwrap_or(&p).display().to_string();
            (name, read(&p))
        })
        .collect();
    // The guide is one page assembled from its parts (reference definitions
    // at the end of the last part serve them all).
    pages.push(("crates/ddf/src/guide/".to_string(), guide_text()));
    let mut bad = Vec::new();
    for (name, text) in &pages {
        let lines = prose_lines(text);
        let defined: Vec<&str> = lines
            .iter()
            .filter_map(|l| definition(l))
            .map(|d| d.0)
            .collect();
        for line in &lines {
            if let Some((label, dest)) = definition(line) {
                if !portable_destination(dest) {
                    bad.push(format!("{name}: [{label}]: {dest}"));
                }
                continue;
            }
            // Inline links: `](destination)`.
            for (i, _) in line.match_indices("](") {
                let dest = &line[i + 2..];
                let dest = &dest[..dest.find(')').unwrap_or(dest.len())];
                if !portable_destination(dest) {
                    bad.push(format!("{name}: ({dest})"));
                }
            }
            // Shortcut links to items: `` [`X`] `` not followed by `(` or `[`.
            let mut rest = *line;
            while let Some(start) = rest.find("[`") {
                let after = &rest[start + 1..];
                let Some(end) = after.find("`]") else { break };
                let label = &after[..end + 1];
                let next = after[end + 2..].chars().next();
                if !matches!(next, Some('(' | '[')) && !defined.contains(&label) {
                    bad.push(format!("{name}: [{label}] has no definition"));
                }
                rest = &after[end + 2..];
            }
        }
    }
    assert!(
        bad.is_empty(),
        "non-portable or undefined links:\n{}",
        bad.join("\n")
    );
}

/// Every absolute URL into this repository's `main` branch (files linked on
/// `github.com`) names a
/// file or folder that exists here, so a renamed or uncommitted figure shows
/// as a failure instead of a broken image on docs.rs.
#[test]
fn repository_urls_name_existing_files() {
    let prefixes = [
        "https://github.com/ddf-rs/ddf/blob/main/",
        "https://github.com/ddf-rs/ddf/tree/main/",
    ];
    let mut pages = Vec::new();
    for ext in ["md", "rs", "toml"] {
        files(&root(), ext, &mut pages);
    }
    let mut bad = Vec::new();
    let mut seen = 0usize;
    for page in &pages {
        let text = read(page);
        for (n, line) in text.lines().enumerate() {
            for prefix in prefixes {
                for (i, _) in line.match_indices(prefix) {
                    let rest = &line[i + prefix.len()..];
                    let end = rest
                        .find(|c: char| c.is_whitespace() || ")]>\"'`#".contains(c))
                        .unwrap_or(rest.len());
                    let path = &rest[..end];
                    // An elided path (`.../main/...`) or the bare prefix is prose, not a link.
                    if path.is_empty() || path.starts_with("...") {
                        continue;
                    }
                    seen += 1;
                    if !root().join(path).exists() {
                        bad.push(format!("{}:{}: {path}", page.display(), n + 1));
                    }
                }
            }
        }
    }
    assert!(
        seen > 0,
        "no repository URLs found; is the prefix list stale?"
    );
    assert!(
        bad.is_empty(),
        "URLs into the repository name missing files:\n{}",
        bad.join("\n")
    );
}

/// A front page (the root README and every crate's README) judges a number
/// by its CPU, date and command; the load average of a run is detail for
/// `docs/performance.md`.
#[test]
fn front_pages_carry_no_load_average() {
    let mut pages: Vec<PathBuf> = crates().iter().map(|d| d.join("README.md")).collect();
    pages.push(root().join("README.md"));
    let bad: Vec<String> = pages
        .iter()
        .filter(|p| p.exists())
        .flat_map(|p| {
            read(p)
                .lines()
                .enumerate()
                .filter(|(_, l)| l.to_lowercase().contains("load average"))
                .map(|(n, _)| format!("{}:{}", p.display(), n + 1))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        bad.is_empty(),
        "load averages on front pages:\n{}",
        bad.join("\n")
    );
}

/// Public docs name the CPU, date and command of a measurement, not how busy
/// the development machine was; generated benchmark blocks (which carry a
/// load average in their header) are exempt.
#[test]
fn no_machine_prose() {
    let mut pages = Vec::new();
    files(&root().join("crates"), "md", &mut pages);
    files(&root().join("crates"), "rs", &mut pages);
    files(&root().join("docs"), "md", &mut pages);
    pages.push(root().join("README.md"));
    pages.push(root().join("ARCHITECTURE.md"));
    let phrases = [
        "shared machine",
        "oversubscribed",
        "machine measured",
        "busy machine",
        "this virtual machine",
        "other jobs",
    ];
    // "load average" is allowed: beside a timing it is what a reader needs
    // to judge it, like the CPU, the date and the command.
    let mut bad = Vec::new();
    for page in &pages {
        let text = read(page);
        let mut generated = false;
        for (n, line) in text.lines().enumerate() {
            if line.contains("<!-- bench") && line.contains(":begin") {
                generated = true;
            } else if line.contains("<!-- bench") && line.contains(":end") {
                generated = false;
            }
            let lower = line.to_lowercase();
            // The rule itself, in ARCHITECTURE.md, and this test name the phrases.
            // A run header copied from `target/ddf/bench.md` counts as generated.
            let header = line.starts_with("Run ") && line.contains("(`cargo xtask bench");
            if generated
                || header
                || lower.contains("generated header")
                || page.ends_with("tidy.rs")
            {
                continue;
            }
            for p in phrases {
                if lower.contains(p) {
                    bad.push(format!("{}:{}: {p}", page.display(), n + 1));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "machine prose in public docs:\n{}",
        bad.join("\n")
    );
}

/// The entries of the family registry (`crates/ddf/src/registry.rs`):
/// `(variant type path, slug if the planner builds it)`.
fn registry_entries() -> Vec<(String, Option<String>)> {
    let text = read(&root().join("crates/ddf/src/registry.rs"));
    let body = text
        .split("\nfamilies! {\n")
        .nth(1)
        .and_then(|s| s.split("\n}\n").next())
        .expect("registry.rs invokes `families!`");
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    for line in body.lines().map(str::trim) {
        if line.starts_with("///") {
            continue;
        }
        // `[cfg] Variant(path::Type), mode, "name"` opens an entry (the
        // cfg and the variant may sit on two lines).
        let entry = line.rsplit("] ").next().unwrap_or(line);
        if let Some((variant, rest)) = entry.split_once('(')
            && !variant.is_empty()
            && variant.chars().all(|c| c.is_ascii_alphanumeric())
            && variant.starts_with(|c: char| c.is_ascii_uppercase())
            && rest.contains("), ")
        {
            let ty = rest.split("), ").next().unwrap_or_default().to_string();
            out.push((ty, None));
        } else if let Some(slug) = line.strip_prefix("planned \"") {
            let slug = slug.split('"').next().unwrap_or_default().to_string();
            if let Some(last) = out.last_mut() {
                last.1 = Some(slug);
            }
        }
    }
    out
}

/// One registry line per filter type, everywhere it is read: every
/// snapshot kind's type has an entry (so removing a line fails here), and
/// the slugs of the planned families are the command's `--filter` values
/// as its README lists them, in the registry's order.
#[test]
fn registry_lines_are_everywhere() {
    let entries = registry_entries();
    assert!(entries.len() >= 16, "registry not found: {entries:?}");
    let mut bad = Vec::new();
    for kind in snapshot_kinds() {
        let ty = camel(&kind);
        if !entries.iter().any(|(path, _)| path.contains(&ty)) {
            bad.push(format!(
                "{kind}: no entry of crates/ddf/src/registry.rs holds a {ty}"
            ));
        }
    }
    let slugs: Vec<String> = entries.iter().filter_map(|e| e.1.clone()).collect();
    let cli = read(&root().join("crates/ddf-cli/README.md"));
    let row = cli
        .lines()
        .find(|l| l.starts_with("| `--filter NAME`"))
        .unwrap_or_default();
    let listed: Vec<String> = row
        .split(':')
        .nth(1)
        .unwrap_or_default()
        .split(',')
        .map(|s| {
            s.trim()
                .trim_matches(|c| c == '`' || c == '|' || c == ' ')
                .to_string()
        })
        .filter(|s| !s.is_empty())
        .collect();
    if listed != slugs {
        bad.push(format!(
            "crates/ddf-cli/README.md lists --filter {listed:?}; the registry's slugs are {slugs:?}"
        ));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Files that each do one thing: no source file outside `tests/` is over
/// 1,000 lines (a longer one is split by topic, public paths unchanged).
#[test]
fn no_source_file_over_a_thousand_lines() {
    let mut rs = Vec::new();
    for dir in crates().into_iter().chain([root().join("xtask")]) {
        files(&dir.join("src"), "rs", &mut rs);
    }
    let long: Vec<String> = rs
        .iter()
        .map(|p| (p, read(p).lines().count()))
        .filter(|&(_, n)| n > 1_000)
        .map(|(p, n)| format!("{}: {n} lines", p.display()))
        .collect();
    assert!(long.is_empty(), "split by topic:\n{}", long.join("\n"));
}

/// Whether `text` holds `word` between non-identifier characters.
fn holds_word(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        !text[..at].chars().next_back().is_some_and(ident)
            && !text[at + word.len()..].chars().next().is_some_and(ident)
    })
}

/// A family's type is named in at most three source files of the facade,
/// the command, the Redis module and the Python package together (tests
/// aside): the registry,
/// the facade's re-export and the family's adapter
/// (`planner/families/<crate>.rs`). Everything else reaches the family
/// through the registry (`Filter`, `Config`, `Family`, a plan), the
/// lock-free forms too (`registry::build_concurrent`).
#[test]
fn each_family_type_is_named_in_at_most_three_files() {
    let mut sources = Vec::new();
    for dir in [
        "crates/ddf/src",
        "crates/ddf-cli/src",
        "crates/ddf-redis/src",
        "crates/ddf-py/src",
    ] {
        files(&root().join(dir), "rs", &mut sources);
    }
    let sources: Vec<(String, String)> = sources
        .iter()
        .filter(|p| !p.components().any(|c| c.as_os_str() == "tests"))
        .map(|p| {
            let rel = p.strip_prefix(root()).unwrap_or(p);
            (rel.display().to_string(), read(p))
        })
        .collect();
    // The type names of every entry: `ddf_queue::Queue<ddf_bloom::PartitionedBloom>`
    // names `Queue` and `PartitionedBloom`.
    let mut types: Vec<String> = Vec::new();
    for (path, _) in registry_entries() {
        for segment in path.split(['<', '>', ',', ' ']) {
            let name = segment.rsplit("::").next().unwrap_or_default();
            if name.starts_with(|c: char| c.is_ascii_uppercase())
                && !types.iter().any(|t| t == name)
            {
                types.push(name.to_string());
            }
        }
    }
    assert!(types.len() >= 16, "registry types not found: {types:?}");
    let mut bad = Vec::new();
    for ty in &types {
        let named: Vec<&str> = sources
            .iter()
            .filter(|(_, text)| holds_word(text, ty))
            .map(|(rel, _)| rel.as_str())
            .collect();
        if named.len() > 3 {
            bad.push(format!("{ty}: {} files: {}", named.len(), named.join(", ")));
        }
    }
    assert!(
        bad.is_empty(),
        "a family's type is named outside the registry, the re-export and its adapter:\n{}",
        bad.join("\n")
    );
}

/// The other names the false-positive rate once had.
const OLD_RATE_NAMES: [&str; 4] = ["fp", "epsilon", "target_fpr", "max_fpr"];

/// The parameters of the `pub fn`s of `text`, as `(line, function,
/// parameter, type)`: the identifier before each `:` that follows `(` or
/// `,` up to the body, and the type's first word.
fn pub_fn_parameters(text: &str) -> Vec<(usize, String, String, String)> {
    let mut out = Vec::new();
    for (start, _) in text
        .match_indices("pub fn ")
        .chain(text.match_indices("pub const fn "))
    {
        let rest = &text[start..];
        let end = rest.find(['{', ';']).unwrap_or(rest.len());
        let signature = &rest[..end];
        let name: String = signature
            .split("fn ")
            .nth(1)
            .unwrap_or("")
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let line = text[..start].matches('\n').count() + 1;
        for piece in signature.split(['(', ',']).skip(1) {
            let piece = piece.trim_start();
            let piece = piece.strip_prefix("mut ").unwrap_or(piece);
            let ident: String = piece
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let after = piece[ident.len()..].trim_start();
            if !ident.is_empty() && after.starts_with(':') && !after.starts_with("::") {
                let ty: String = after[1..]
                    .trim_start()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '<'))
                    .collect();
                out.push((line, name.clone(), ident, ty));
            }
        }
    }
    out
}

/// The rate is `fpr` everywhere a user meets it (ARCHITECTURE.md,
/// "Naming"): no `pub fn` in a crate's `src/` takes it as `fp`, `epsilon`,
/// `target_fpr` or `max_fpr`, and no parameter error is named so.
/// `ddf-theory` (whose formulas keep the papers' symbols) and `ddf-sim`
/// are exempt.
#[test]
fn the_rate_is_fpr_everywhere() {
    let mut bad = Vec::new();
    for dir in crates() {
        let krate = dir.file_name().map(|n| n.to_string_lossy().into_owned());
        let krate = krate.unwrap_or_default();
        if matches!(krate.as_str(), "ddf-theory" | "ddf-sim") {
            continue;
        }
        let mut rs = Vec::new();
        files(&dir.join("src"), "rs", &mut rs);
        for path in &rs {
            let text = read(path);
            for (line, function, param, ty) in pub_fn_parameters(&text) {
                // A rate is an `f64` (a cuckoo fingerprint `fp: u32` is not one).
                let rate = ty == "f64" || ty.starts_with("Option<f64");
                if rate && OLD_RATE_NAMES.contains(&param.as_str()) {
                    bad.push(format!(
                        "{}:{line}: `pub fn {function}` takes `{param}`",
                        path.display()
                    ));
                }
            }
            // Whitespace removed, so a call split over lines is one string.
            let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
            for call in ["ParamError::new(", "ensure_probability("] {
                for old in OLD_RATE_NAMES {
                    if squeezed.contains(&format!("{call}\"{old}\"")) {
                        bad.push(format!("{}: `{call}\"{old}\"`", path.display()));
                    }
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "name the false-positive rate `fpr`:\n{}",
        bad.join("\n")
    );
}

/// The parser above finds what it must, so the rule above can fail.
#[test]
fn pub_fn_parameters_reads_split_signatures() {
    let text = "/// x\npub fn with_window(\n    window: u64,\n    mut fp: f64,\n) -> Result<Self, E> {\n}\n\
                pub const fn f<F: Fn(u64) -> u64>(g: F, epsilon: f64) -> u64 { 0 }\n\
                fn private(fp: f64) {}\n";
    let found = pub_fn_parameters(text);
    let names: Vec<(&str, &str, &str)> = found
        .iter()
        .map(|(_, f, p, t)| (f.as_str(), p.as_str(), t.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("with_window", "window", "u64"),
            ("with_window", "fp", "f64"),
            ("f", "g", "F"),
            ("f", "epsilon", "f64"),
        ]
    );
    assert_eq!(found[1].0, 2);
}

/// The breaches of the one idiom for time windows in `text`: a consuming
/// setter `pub fn timed(`, or a `pub fn with_time_span` whose first
/// parameter is not `span: u64`.
fn time_window_breaches(text: &str) -> Vec<String> {
    let mut bad = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.contains("pub fn timed(") {
            bad.push(format!("line {}: `timed(span)`", n + 1));
        }
    }
    // A time window's sizing takes its constructor's arguments.
    for function in ["pub fn with_time_span", "pub fn sizing_timed"] {
        for (at, _) in text.match_indices(function) {
            let rest = &text[at + function.len()..];
            // Skip generic parameters, if any, up to the parameter list.
            let Some(open) = rest.find('(') else {
                continue;
            };
            let params = &rest[open + 1..];
            let end = params.find([',', ')']).unwrap_or(params.len());
            let first = params[..end]
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            if first != "span: u64" {
                let line = text[..at].lines().count() + 1;
                let name = &function["pub fn ".len()..];
                bad.push(format!("line {line}: `{name}({first}, …)`"));
            }
        }
    }
    bad
}

/// One idiom for time windows (the naming table of ARCHITECTURE.md):
/// every time-window constructor is `with_time_span(span: u64, …)`, span
/// first, its sizing `sizing_timed(span: u64, …)` with the same arguments,
/// and no filter switches to time with a setter `timed(span)`.
#[test]
fn time_windows_are_with_time_span_span_first() {
    // The checker catches both breaches, and passes generic parameters.
    let wrong = "pub fn timed(self, span: u64)\npub fn with_time_span(\n    n: usize,\n    span: u64,\n)\n\
                 pub fn sizing_timed(k: u32, span: u64)";
    assert_eq!(time_window_breaches(wrong).len(), 3);
    let right = "pub fn with_time_span<F>(\n    span: u64,\n    make: F,\n)";
    assert!(time_window_breaches(right).is_empty());
    let mut rs = Vec::new();
    for dir in crates() {
        files(&dir.join("src"), "rs", &mut rs);
    }
    let bad: Vec<String> = rs
        .iter()
        .flat_map(|p| {
            time_window_breaches(&read(p))
                .into_iter()
                .map(move |b| format!("{}: {b}", p.display()))
        })
        .collect();
    assert!(
        bad.is_empty(),
        "time windows are `with_time_span(span: u64, …)`:\n{}",
        bad.join("\n")
    );
}

/// The benchmark peers and clients that only the bench runner links.
const BENCH_ONLY: [&str; 3] = ["redis", "dashmap", "fastbloom"];

/// `cargo xtask verify` builds no benchmark dependency: neither xtask nor
/// the verification crate names one (the runner is a process of its own).
#[test]
fn xtask_links_no_benchmark_peer() {
    let mut bad = Vec::new();
    for manifest in ["xtask/Cargo.toml", "crates/ddf-verify/Cargo.toml"] {
        let text = read(&root().join(manifest));
        let deps = text
            .split("[dependencies]")
            .nth(1)
            .map(|s| s.split("\n[").next().unwrap_or(""))
            .unwrap_or("");
        for line in deps.lines() {
            let name = line.split(['=', '.']).next().unwrap_or("").trim();
            if BENCH_ONLY.contains(&name) {
                bad.push(format!("{manifest} depends on {name}"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The top-level modules each module names through `crate::` (`crate` for
/// the root's own items), from `(module, source)` pairs; comments skipped.
fn crate_imports(files: &[(String, String)]) -> Vec<(String, String)> {
    let modules: Vec<&str> = files.iter().map(|(m, _)| m.as_str()).collect();
    let mut edges = Vec::new();
    for (module, text) in files {
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or("");
            for (at, _) in code.match_indices("crate::") {
                let rest = &code[at + "crate::".len()..];
                let names: Vec<&str> = match rest.strip_prefix('{') {
                    Some(group) => group.split('}').next().unwrap_or("").split(',').collect(),
                    None => vec![rest],
                };
                for name in names {
                    let first: String = name
                        .trim()
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    let target = if modules.contains(&first.as_str()) {
                        first
                    } else {
                        "crate".to_string()
                    };
                    if target != *module && !edges.contains(&(module.clone(), target.clone())) {
                        edges.push((module.clone(), target));
                    }
                }
            }
        }
    }
    edges
}

/// A cycle in the graph of `edges`, as the modules along it, if any.
fn import_cycle(edges: &[(String, String)]) -> Option<Vec<String>> {
    fn visit(
        at: &str,
        edges: &[(String, String)],
        path: &mut Vec<String>,
        done: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|m| m == at) {
            let mut cycle = path[start..].to_vec();
            cycle.push(at.to_string());
            return Some(cycle);
        }
        if done.iter().any(|m| m == at) {
            return None;
        }
        path.push(at.to_string());
        for (_, to) in edges.iter().filter(|(from, _)| from == at) {
            if let Some(cycle) = visit(to, edges, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.push(at.to_string());
        None
    }
    let mut done = Vec::new();
    edges
        .iter()
        .find_map(|(from, _)| visit(from, edges, &mut Vec::new(), &mut done))
}

/// No module of the verification crate imports a module that imports it
/// back: the root holds `Check`, `Ctx` and the seeds, the checks use the
/// root, the runners use the checks.
#[test]
fn verification_modules_form_no_cycle() {
    let src = root().join("crates/ddf-verify/src");
    let mut rs = Vec::new();
    files(&src, "rs", &mut rs);
    let modules: Vec<(String, String)> = rs
        .iter()
        .map(|p| {
            let rel = p.strip_prefix(&src).expect("below src");
            let first = rel.components().next().expect("a file");
            let name = first.as_os_str().to_string_lossy();
            let module = match name.strip_suffix(".rs") {
                Some("lib") => "crate".to_string(),
                Some(stem) => stem.to_string(),
                None => name.to_string(),
            };
            (module, read(p))
        })
        .collect();
    let edges = crate_imports(&modules);
    assert!(
        edges
            .iter()
            .any(|(from, to)| from == "checks" && to == "crate"),
        "the import reader found no `use crate::` of the checks: {edges:?}"
    );
    if let Some(cycle) = import_cycle(&edges) {
        panic!("modules import each other: {}", cycle.join(" -> "));
    }
}

#[test]
fn import_cycles_are_found() {
    let file = |m: &str, t: &str| (m.to_string(), t.to_string());
    let cyclic = [
        file("crate", "use crate::outcome::Outcome;\n"),
        file(
            "checks",
            "use crate::{Check, Ctx};\n// use crate::verify;\n",
        ),
        file("verify", "use crate::checks;\n"),
        file("outcome", "let x = crate::verify::run(o);\n"),
    ];
    let edges = crate_imports(&cyclic);
    assert!(edges.contains(&("checks".to_string(), "crate".to_string())));
    assert!(!edges.contains(&("checks".to_string(), "verify".to_string())));
    assert_eq!(
        import_cycle(&edges),
        Some(vec![
            "crate".to_string(),
            "outcome".to_string(),
            "verify".to_string(),
            "checks".to_string(),
            "crate".to_string()
        ])
    );
    let acyclic = [
        file("crate", "use crate::outcome::Outcome;\n"),
        file("checks", "use crate::{Check, Ctx};\n"),
        file("verify", "use crate::checks;\n"),
        file("outcome", "\n"),
    ];
    assert_eq!(import_cycle(&crate_imports(&acyclic)), None);
}

/// The files of the facade a new family's feature and registry entry
/// touch, checked by `a_new_family_is_wired_through_the_facade` and named
/// in ARCHITECTURE.md's "Adding a family".
const FACADE_FILES: [&str; 6] = [
    "crates/ddf/Cargo.toml",
    "crates/ddf/build.rs",
    "crates/ddf/src/registry.rs",
    "crates/ddf/src/planner/families/mod.rs",
    "crates/ddf/tests/common/mod.rs",
    "crates/ddf/tests/golden.rs",
];

/// The family features of the facade (`name = ["dep:ddf-…", …]`), each
/// with its crate.
fn family_features(manifest: &str) -> Vec<(String, String)> {
    let features = manifest
        .split("[features]")
        .nth(1)
        .and_then(|s| s.split("\n[").next())
        .unwrap_or_default();
    features
        .lines()
        .filter_map(|l| {
            let (name, value) = l.split_once('=')?;
            let krate = value.trim().strip_prefix("[\"dep:")?.split('"').next()?;
            Some((name.trim().to_string(), krate.to_string()))
        })
        .collect()
}

/// Every family feature is in the default set, the `serde` list and
/// `build.rs`'s list; every planned entry's adapter module is declared;
/// every registry entry's type has a filter in the golden list, whose
/// names the golden table pins; and ARCHITECTURE.md's "Adding a family"
/// names each of these files.
#[test]
fn a_new_family_is_wired_through_the_facade() {
    let root = root();
    let [cargo, build, registry, families, common, golden] =
        FACADE_FILES.map(|f| read(&root.join(f)));
    let mut bad = Vec::new();
    let features = family_features(&cargo);
    assert!(
        features.len() >= 8,
        "family features not found: {features:?}"
    );
    let default = cargo
        .lines()
        .find(|l| l.starts_with("default = "))
        .unwrap_or_default();
    for (feature, krate) in &features {
        if !default.contains(&format!("\"{feature}\"")) {
            bad.push(format!(
                "crates/ddf/Cargo.toml: `{feature}` is not a default feature"
            ));
        }
        if !cargo.contains(&format!("\"{krate}?/serde\"")) {
            bad.push(format!(
                "crates/ddf/Cargo.toml: `serde` does not forward to {krate}"
            ));
        }
        if !build.contains(&format!("\"{}\"", feature.to_uppercase())) {
            bad.push(format!(
                "crates/ddf/build.rs: FAMILIES lacks {}",
                feature.to_uppercase()
            ));
        }
    }
    for line in registry.lines().map(str::trim) {
        if let Some(path) = line
            .split(" by crate::planner::families::")
            .nth(1)
            .filter(|_| line.starts_with("planned \""))
        {
            let module = path.split("::").next().unwrap_or_default();
            if !families.contains(&format!("pub(crate) mod {module};")) {
                bad.push(format!(
                    "planner/families/mod.rs does not declare `{module}`"
                ));
            }
            if !root
                .join(format!("crates/ddf/src/planner/families/{module}.rs"))
                .exists()
            {
                bad.push(format!("no adapter file planner/families/{module}.rs"));
            }
        }
    }
    let kinds = common
        .split("pub fn every_kind()")
        .nth(1)
        .unwrap_or_default();
    for (ty, _) in registry_entries() {
        // `ddf_queue::Queue<ddf_qht::Qht>`: a queue whose closure builds a Qht.
        let (outer, inner) = match ty.split_once('<') {
            Some((o, i)) => (o, Some(i.trim_end_matches('>'))),
            None => (ty.as_str(), None),
        };
        let name = |path: &str| path.rsplit("::").next().unwrap_or_default().to_string();
        let found = match inner {
            None => holds_word(kinds, &name(outer)),
            Some(inner) => kinds
                .split(&format!("{}::new(", name(outer)))
                .skip(1)
                .any(|call| holds_word(&call.chars().take(120).collect::<String>(), &name(inner))),
        };
        if !found {
            bad.push(format!("tests/common/mod.rs: the golden list has no {ty}"));
        }
    }
    for name in kinds
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("(\"")
                .or_else(|| l.trim().strip_prefix("\""))
        })
        .filter_map(|l| l.split('"').next())
    {
        if !golden.contains(&format!("(\"{name}\", 0x")) {
            bad.push(format!("tests/golden.rs pins no hash for `{name}`"));
        }
    }
    let architecture = read(&root.join("ARCHITECTURE.md"));
    let adding = architecture
        .split("## Adding a family")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .unwrap_or_default();
    for file in FACADE_FILES {
        if !adding.contains(file) {
            bad.push(format!(
                "ARCHITECTURE.md's \"Adding a family\" does not name {file}"
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
