//! Where xtask writes its results.

use std::path::PathBuf;

/// The workspace root (xtask lives one level below it).
pub(crate) fn workspace_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(PathBuf::from).unwrap_or(manifest)
}

/// `target/ddf`, honouring `CARGO_TARGET_DIR`; created if missing.
pub(crate) fn output_dir() -> std::io::Result<PathBuf> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"));
    let dir = target.join("ddf");
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}
