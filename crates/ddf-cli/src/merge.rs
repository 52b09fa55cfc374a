//! `ddf merge`: state files of one filter kept on several nodes into one.

use crate::Fail;
use crate::state::{self, Loaded};
use ddf::Deduper;
use std::path::{Path, PathBuf};

fn load(path: &Path) -> Result<Loaded, Fail> {
    state::load(path)
        .map_err(Fail::Run)?
        .ok_or_else(|| Fail::Run(format!("no state file at {}", path.display())))
}

/// Merges the states at `inputs` in order into the first, and writes the
/// result to `output`. A refused merge names the files and the
/// difference ([`ddf::MergeError`]); nothing is written then.
pub(crate) fn run(inputs: &[PathBuf], output: &Path) -> Result<(), Fail> {
    let (first, rest) = inputs
        .split_first()
        .ok_or_else(|| Fail::Usage("ddf merge needs two or more state files".into()))?;
    let head = load(first)?;
    let mut meta = head.meta;
    let mut merged = Deduper::with_hasher(head.filter, head.hasher);
    for path in rest {
        let next = load(path)?;
        let other = Deduper::with_hasher(next.filter, next.hasher);
        merged.merge(&other).map_err(|e| {
            Fail::Run(format!(
                "cannot merge {} into {}: {e}",
                path.display(),
                first.display()
            ))
        })?;
        meta.merge(&next.meta);
    }
    let (filter, hasher) = merged.into_parts();
    state::save(output, &filter, &hasher, &meta).map_err(Fail::Run)
}
