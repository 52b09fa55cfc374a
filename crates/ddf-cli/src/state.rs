//! State files: a filter, its hash key and what the CLI knows about the run
//! (`ddf::state::Meta`, the metadata JSON), read and written by
//! `ddf::state`, as the Python package reads and writes them.

use crate::engine::{self, Engine};
use ddf::KeyedSipHasher;
pub(crate) use ddf::state::{Meta, window_json};
use std::path::Path;

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
#[cfg(test)]
fn encode(f: &Engine, hasher: &KeyedSipHasher, meta: &Meta) -> Vec<u8> {
    ddf::state::encode(f, hasher, &meta.to_json(f))
}

/// Parses a state file's bytes; every error says what is wrong.
pub(crate) fn decode(bytes: &[u8]) -> Result<Loaded, String> {
    let file = ddf::state::decode(bytes).map_err(|e| e.to_string())?;
    let meta = Meta::from_json(&file.meta).map_err(|e| e.to_string())?;
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

/// Writes the state atomically ([`ddf::state::write_file`]).
pub(crate) fn save(
    path: &Path,
    f: &Engine,
    hasher: &KeyedSipHasher,
    meta: &Meta,
) -> Result<(), String> {
    ddf::state::write_file(path, f, hasher, meta).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ddf::{Window, Windowed};
    use proptest::prelude::*;

    fn sample() -> Vec<u8> {
        let mut f = ddf::Filter::exact(Window::Count(8)).unwrap();
        let digests = (0..20u64).map(ddf::Digest::new).collect();
        let mut v = Vec::new();
        engine::observe(&mut f, &crate::input::Keys::Digests(digests), &mut v);
        let meta = Meta {
            config: "exact window".into(),
            fpr: 0.0,
            fnr: 0.0,
            records_seen: 20,
            clock_ms: None,
            time_source: "none".into(),
            request: None,
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
