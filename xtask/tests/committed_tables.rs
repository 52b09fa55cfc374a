//! The committed copies in `docs/tables/` of the tables that take seconds
//! (theory, constructors, or short simulations) equal what
//! `cargo xtask tables` writes now, so a change to a formula or a filter
//! cannot leave its table stale.
//!
//! Tables that simulate long streams take from half a minute to many
//! minutes and are refreshed by hand (`docs/reproduce.md` lists their run
//! times).

use std::path::{Path, PathBuf};
use std::process::Command;

/// `--only` arguments naming the cheap tables, each one or more table names
/// (`apbf-fp` is two seeded simulations of a few seconds in a test build).
const CHEAP: [&str; 7] = [
    "window-memory",
    "error-lower-bound",
    "shf-wmax",
    "apbf-table",
    "apbf-fp",
    "sliding-space-breakdown",
    "queue-er-vs-L-theory",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits in the workspace")
        .to_path_buf()
}

#[test]
fn cheap_committed_tables_are_current() {
    // A private target directory: `xtask` writes to `$CARGO_TARGET_DIR/ddf/tables`.
    let target = std::env::temp_dir().join(format!("ddf-committed-tables-{}", std::process::id()));
    let out = target.join("ddf").join("tables");
    let mut stale = Vec::new();
    let mut compared = 0usize;
    for only in CHEAP {
        let run = Command::new(env!("CARGO_BIN_EXE_xtask"))
            .args(["tables", "--only", only])
            .env("CARGO_TARGET_DIR", &target)
            .output()
            .expect("running xtask");
        assert!(
            run.status.success(),
            "`xtask tables --only {only}` failed:\n{}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
    let mut written: Vec<PathBuf> = std::fs::read_dir(&out)
        .expect("xtask wrote its tables")
        .flatten()
        .map(|e| e.path())
        .collect();
    written.sort();
    for path in &written {
        let name = path.file_name().expect("a file").to_string_lossy();
        let committed = root().join("docs/tables").join(name.as_ref());
        let now = std::fs::read_to_string(path).expect("reading a written table");
        match std::fs::read_to_string(&committed) {
            Ok(old) if old == now => compared += 1,
            Ok(_) => stale.push(format!("{name} differs")),
            Err(_) => stale.push(format!("{name} is not committed")),
        }
    }
    let _ = std::fs::remove_dir_all(&target);
    assert!(
        compared + stale.len() >= 2 * CHEAP.len(),
        "too few tables written"
    );
    assert!(
        stale.is_empty(),
        "docs/tables is stale; run `cargo xtask tables --only NAME` and copy \
         target/ddf/tables/NAME.{{csv,md}} to docs/tables/:\n{}",
        stale.join("\n")
    );
}
