//! State files: a filter, its hash key and what the CLI knows about the run
//! ([`Meta`], the metadata JSON), in the layout of `ddf::state`, which the
//! Python package reads and writes too.
//!
//! A save writes
//! `FILE.tmp-PID` (mode 0600, since the key is secret), syncs it and renames
//! it over `FILE`, so a crash leaves either the old state or the new one.

use crate::engine::{self, Engine};
use ddf::KeyedSipHasher;
use ddf::{DuplicateFilter, Window, Windowed};
use serde_json::{Value, json};
use std::fs;
use std::io::Write;
use std::path::Path;

/// What the CLI records beside the filter.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Meta {
    /// The planner's parameters, as text.
    pub(crate) config: String,
    /// The predicted false-positive rate when the filter was planned.
    pub(crate) fpr: f64,
    /// Records observed over every run that used this state.
    pub(crate) records_seen: u64,
    /// The latest timestamp given to a time-windowed filter (milliseconds
    /// since the Unix epoch), if any.
    pub(crate) clock_ms: Option<u64>,
    /// Where times come from: `arrival`, `field` or `json`.
    pub(crate) time_source: String,
}

impl Meta {
    fn to_json(&self, f: &Engine) -> Value {
        json!({
            "family": engine::family(f),
            "config": self.config,
            "window": window_json(f.window()),
            "slack": f.slack(),
            "memory_bits": f.memory_bits(),
            "fpr": self.fpr,
            "records_seen": self.records_seen,
            "clock_ms": self.clock_ms,
            "time_source": self.time_source,
        })
    }

    fn from_json(v: &Value) -> Option<Meta> {
        Some(Meta {
            config: v.get("config")?.as_str()?.to_string(),
            fpr: v.get("fpr")?.as_f64()?,
            records_seen: v.get("records_seen")?.as_u64()?,
            clock_ms: match v.get("clock_ms")? {
                Value::Null => None,
                x => Some(x.as_u64()?),
            },
            time_source: v.get("time_source")?.as_str()?.to_string(),
        })
    }
}

/// A window as JSON: `{"records": n}`, `{"ms": t}` or `"unbounded"`.
pub(crate) fn window_json(w: Window) -> Value {
    match w {
        Window::Count(n) => json!({ "records": n }),
        Window::Time(ms) => json!({ "ms": ms }),
        Window::Unbounded => json!("unbounded"),
    }
}

/// A state read back.
pub(crate) struct Loaded {
    pub(crate) filter: Engine,
    pub(crate) hasher: KeyedSipHasher,
    pub(crate) meta: Meta,
    /// The layout version.
    pub(crate) version: u16,
    /// The filter snapshot's envelope: format version and kind code.
    pub(crate) snapshot_format: u16,
    pub(crate) snapshot_kind: u16,
    /// The file's size in bytes.
    pub(crate) file_bytes: u64,
}

impl std::fmt::Debug for Loaded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key.
        f.debug_struct("Loaded")
            .field("family", &engine::family(&self.filter))
            .field("meta", &self.meta)
            .finish_non_exhaustive()
    }
}

/// The bytes of a state file.
pub(crate) fn encode(f: &Engine, hasher: &KeyedSipHasher, meta: &Meta) -> Vec<u8> {
    ddf::state::encode(f, hasher, &meta.to_json(f).to_string())
}

/// Parses a state file's bytes; every error says what is wrong.
pub(crate) fn decode(bytes: &[u8]) -> Result<Loaded, String> {
    let file = ddf::state::decode(bytes).map_err(|e| e.to_string())?;
    let meta_json: Value =
        serde_json::from_str(&file.meta).map_err(|e| format!("metadata is not JSON: {e}"))?;
    let meta = Meta::from_json(&meta_json).ok_or("metadata lacks a field")?;
    Ok(Loaded {
        filter: file.filter,
        hasher: file.hasher,
        meta,
        version: file.layout_version,
        snapshot_format: file.snapshot_format,
        snapshot_kind: file.snapshot_kind,
        file_bytes: bytes.len() as u64,
    })
}

/// Reads `path`: `None` when it does not exist, an error when it cannot be
/// read or decoded. The bytes are read by [`ddf::state::read_file`]: a
/// regular file only, header first, never more than it declares.
pub(crate) fn load(path: &Path) -> Result<Option<Loaded>, String> {
    let Some(bytes) = ddf::state::read_file(path).map_err(|e| e.to_string())? else {
        return Ok(None);
    };
    decode(&bytes)
        .map(Some)
        .map_err(|e| format!("state file {} is corrupt: {e}", path.display()))
}

/// Writes the state atomically: temporary file (mode 0600), sync, rename.
pub(crate) fn save(
    path: &Path,
    f: &Engine,
    hasher: &KeyedSipHasher,
    meta: &Meta,
) -> Result<(), String> {
    let bytes = encode(f, hasher, meta);
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(format!(".tmp-{}", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    let fail = |e: std::io::Error| format!("cannot save state to {}: {e}", path.display());
    let mut opts = fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let write = || -> std::io::Result<()> {
        let mut file = opts.open(&tmp)?;
        file.write_all(&bytes)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, path)?;
        // The rename itself is durable once the directory is synced.
        if let Some(dir) = path.parent() {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            if let Ok(d) = fs::File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    };
    write().map_err(|e| {
        let _ = fs::remove_file(&tmp);
        fail(e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sample() -> Vec<u8> {
        let mut f = engine::exact(Window::Count(8)).unwrap();
        let digests = (0..20u64).map(ddf::Digest::new).collect();
        let mut v = Vec::new();
        engine::observe(&mut f, &crate::input::Keys::Digests(digests), &mut v);
        let meta = Meta {
            config: "exact window".into(),
            fpr: 0.0,
            records_seen: 20,
            clock_ms: None,
            time_source: "none".into(),
        };
        encode(&f, &KeyedSipHasher::with_seed(1), &meta)
    }

    /// Re-seals `bytes` with a valid checksum, so the inner checks are reached.
    fn reseal(mut bytes: Vec<u8>) -> Vec<u8> {
        if bytes.len() >= 8 {
            let n = bytes.len() - 8;
            let sum = ddf::state::checksum(&bytes[..n]);
            bytes[n..].copy_from_slice(&sum.to_le_bytes());
        }
        bytes
    }

    #[test]
    fn round_trip() {
        let l = decode(&sample()).unwrap();
        assert_eq!(l.meta.records_seen, 20);
        assert_eq!(l.filter.window(), Window::Count(8));
        assert_eq!(l.hasher.key(), KeyedSipHasher::with_seed(1).key());
    }

    #[test]
    fn inner_fields_are_checked_behind_a_valid_checksum() {
        let good = sample();
        // Metadata length far beyond the file.
        let mut b = good.clone();
        b[10..14].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(decode(&reseal(b)).is_err());
        // A layout version this build does not read.
        let mut b = good.clone();
        b[8..10].copy_from_slice(&7u16.to_le_bytes());
        assert!(decode(&reseal(b)).unwrap_err().contains("version 7"));
        // Stray bytes after the snapshot.
        let mut b = good.clone();
        b.insert(good.len() - 8, 0);
        assert!(decode(&reseal(b)).unwrap_err().contains("stray"));
    }

    proptest! {
        /// Any change to a state file is an error, never a panic, even when
        /// the outer checksum is recomputed to match.
        #[test]
        fn mutations_never_panic(at in any::<prop::sample::Index>(), x in 1u8..=255, cut in any::<prop::sample::Index>()) {
            let good = sample();
            let mut b = good.clone();
            let i = at.index(b.len() - 8);
            b[i] ^= x;
            let resealed = reseal(b.clone());
            let _ = decode(&resealed);
            prop_assert!(decode(&b).is_err());
            let n = cut.index(good.len());
            prop_assert!(decode(&good[..n]).is_err());
        }
    }
}
