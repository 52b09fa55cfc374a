//! State files: a filter, its hash key and what the CLI knows about the run.
//!
//! # Layout
//!
//! | bytes | field |
//! | --- | --- |
//! | 8 | magic `DDFSTATE` |
//! | 2 | layout version ([`VERSION`]), little-endian |
//! | 4 | length `j` of the metadata |
//! | j | metadata: JSON ([`Meta`]), never the key |
//! | 2 | hash-key length `n` |
//! | n | the SipHash-1-3 key |
//! | 8 | length `b` of the filter snapshot |
//! | b | the filter's own versioned, checksummed snapshot (`ddf::Snapshot`) |
//! | 8 | checksum: SipHash-1-3 under a fixed public key of every byte before it |
//!
//! The checksum catches torn or corrupted files, not tampering. A save writes
//! `FILE.tmp-PID` (mode 0600, since the key is secret), syncs it and renames
//! it over `FILE`, so a crash leaves either the old state or the new one.

use crate::engine::{self, Engine};
use ddf::KeyedSipHasher;
use ddf::{DuplicateFilter, PortableHasher, Window, Windowed};
use serde_json::{Value, json};
use std::fs;
use std::hash::Hasher;
use std::io::Write;
use std::path::Path;

const MAGIC: &[u8; 8] = b"DDFSTATE";

/// The layout version written and read.
pub(crate) const VERSION: u16 = 1;

const CHECKSUM_KEY: (u64, u64) = (0x6464_662d_636c_692d, 0x7374_6174_652d_7631);

/// Most bytes of metadata accepted (it is a few hundred in practice).
const MAX_META: usize = 1 << 20;

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

fn checksum(bytes: &[u8]) -> u64 {
    let mut h = siphasher::sip::SipHasher13::new_with_keys(CHECKSUM_KEY.0, CHECKSUM_KEY.1);
    h.write(bytes);
    h.finish()
}

/// The bytes of a state file.
pub(crate) fn encode(f: &Engine, hasher: &KeyedSipHasher, meta: &Meta) -> Vec<u8> {
    let meta = meta.to_json(f).to_string();
    let key = hasher.key_bytes();
    let snap = f.to_bytes();
    let mut out = Vec::with_capacity(32 + meta.len() + key.len() + snap.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(meta.len() as u32).to_le_bytes());
    out.extend_from_slice(meta.as_bytes());
    out.extend_from_slice(&(key.len() as u16).to_le_bytes());
    out.extend_from_slice(&key);
    out.extend_from_slice(&(snap.len() as u64).to_le_bytes());
    out.extend_from_slice(&snap);
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// Takes `n` bytes from the front of `input`, or says which field ended early.
fn take<'a>(input: &mut &'a [u8], n: usize, field: &str) -> Result<&'a [u8], String> {
    if input.len() < n {
        return Err(format!("truncated in the {field}"));
    }
    let (head, tail) = input.split_at(n);
    *input = tail;
    Ok(head)
}

/// Parses a state file's bytes; every error says what is wrong.
pub(crate) fn decode(bytes: &[u8]) -> Result<Loaded, String> {
    if bytes.len() < 8 || &bytes[..8] != MAGIC {
        return Err("not a ddf state file (bad magic)".into());
    }
    if bytes.len() < 8 + 2 + 4 + 2 + 8 + 8 {
        return Err("truncated".into());
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    if checksum(body).to_le_bytes() != sum {
        return Err("checksum mismatch (the file is torn or corrupted)".into());
    }
    let mut input = &body[8..];
    let version = u16::from_le_bytes(take(&mut input, 2, "version")?.try_into().unwrap_or([0; 2]));
    if version != VERSION {
        return Err(format!(
            "layout version {version}; this ddf reads version {VERSION}"
        ));
    }
    let meta_len = u32::from_le_bytes(
        take(&mut input, 4, "metadata length")?
            .try_into()
            .unwrap_or([0; 4]),
    ) as usize;
    if meta_len > MAX_META {
        return Err(format!("metadata of {meta_len} bytes (at most {MAX_META})"));
    }
    let meta_bytes = take(&mut input, meta_len, "metadata")?;
    let meta_json: Value =
        serde_json::from_slice(meta_bytes).map_err(|e| format!("metadata is not JSON: {e}"))?;
    let meta = Meta::from_json(&meta_json).ok_or("metadata lacks a field")?;
    let key_len = u16::from_le_bytes(
        take(&mut input, 2, "key length")?
            .try_into()
            .unwrap_or([0; 2]),
    ) as usize;
    let key = take(&mut input, key_len, "hash key")?;
    let hasher = KeyedSipHasher::from_key_bytes(key).ok_or("the hash key has the wrong length")?;
    let snap_len = u64::from_le_bytes(
        take(&mut input, 8, "snapshot length")?
            .try_into()
            .unwrap_or([0; 8]),
    );
    let snap_len = usize::try_from(snap_len).map_err(|_| "snapshot length overflows")?;
    let snap = take(&mut input, snap_len, "filter snapshot")?;
    if !input.is_empty() {
        return Err(format!("{} stray bytes after the snapshot", input.len()));
    }
    let filter = engine::load(snap).map_err(|e| format!("filter snapshot: {e}"))?;
    Ok(Loaded {
        filter,
        hasher,
        meta,
        version,
        snapshot_format: snap
            .get(4..6)
            .map_or(0, |b| u16::from_le_bytes([b[0], b[1]])),
        snapshot_kind: engine::snapshot_kind(snap).unwrap_or(0),
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
        let digests: Vec<ddf::Digest> = (0..20u64).map(ddf::Digest::new).collect();
        let mut v = Vec::new();
        engine::observe(&mut f, &digests, &[], &mut v);
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
            let sum = checksum(&bytes[..n]);
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
