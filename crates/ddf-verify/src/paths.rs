//! Where the runners write their results.

use std::path::{Path, PathBuf};

/// The workspace root (this crate lives in `crates/ddf-verify`).
pub fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| manifest.to_path_buf())
}

/// `target/ddf`, honouring `CARGO_TARGET_DIR`; created if missing.
pub fn output_dir() -> std::io::Result<PathBuf> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"));
    let dir = target.join("ddf");
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}
