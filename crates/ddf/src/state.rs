//! State files: a [`Filter`], its hash key and a front end's metadata, in
//! the one layout the `ddf` command (`ddf dedup --state`) and the Python
//! package (`ddf.Dedup.save`, `ddf.load`) both read and write, so a state
//! saved by one resumes in the other with the same answers.
//!
//! # Layout
//!
//! | bytes | field |
//! | --- | --- |
//! | 8 | magic `DDFSTATE` |
//! | 2 | layout version ([`VERSION`]), little-endian |
//! | 4 | length `j` of the metadata |
//! | j | metadata: UTF-8 JSON written by the front end, never the key |
//! | 8 | length `b` of the snapshot |
//! | b | the `Deduper<Filter>` snapshot: the filter's versioned, checksummed snapshot with the SipHash-1-3 key in its envelope ([`Deduper::to_bytes`](crate::Deduper::to_bytes), the bytes the Redis module stores) |
//! | 8 | checksum: SipHash-1-3 under a fixed public key of every byte before it |
//!
//! Layout 1 (written until November 2026) kept the key in a field of its
//! own before a bare filter snapshot (2 bytes of key length, the key, then
//! the snapshot's length and bytes); it is still read, and written again in
//! layout 2.
//!
//! The checksum catches torn or corrupted files, not tampering. The
//! metadata is JSON, typed by [`Meta`]: `family`, `config`, `window`,
//! `slack`, `memory_bits`, `fpr`, `fnr`, `records_seen`, `clock_ms` (the
//! latest time seen, milliseconds since the Unix epoch, or `null`),
//! `time_source`, and `request`, the [`Request`] the filter was chosen
//! for (absent in older files, which still load). [`write_file`] is the
//! one writer, [`read_file`] the one reader.
//!
//! ```
//! use ddf::{Deduper, Filter, KeyedSipHasher, Verdict, Window, state};
//!
//! let mut seen = Deduper::with_hasher(Filter::exact(Window::Count(100))?, KeyedSipHasher::with_seed(7));
//! seen.observe(b"order-42".as_slice());
//! let bytes = state::encode(seen.filter(), seen.hasher(), r#"{"records_seen":1}"#);
//! let back = state::decode(&bytes)?;
//! let mut again = Deduper::with_hasher(back.filter, back.hasher);
//! assert_eq!(again.observe(b"order-42".as_slice()), Verdict::Duplicate);
//! assert_eq!(state::family(again.filter()), "exact");
//! assert!(state::decode(&bytes[..bytes.len() - 1]).is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::request::{Slack, Vocabulary};
use crate::{
    Candidate, Choice, DuplicateFilter, Family, Filter, KeyedSipHasher, PortableHasher, Request,
    Window, Windowed,
};
use serde_json::json;
use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::io::Read;
use std::path::Path;

/// The first eight bytes of every state file.
pub const MAGIC: &[u8; 8] = b"DDFSTATE";

/// The layout version written (layouts 1 and 2 are read).
pub const VERSION: u16 = 2;

/// The layout that kept the key in its own field.
const VERSION_SEPARATE_KEY: u16 = 1;

/// The most bytes of a layout-2 snapshot: the largest body, a hasher key
/// of up to 2^16 bytes and the envelope's fixed fields.
const MAX_DEDUPER_SNAPSHOT: u64 = crate::snapshot::MAX_SNAPSHOT_BYTES + (1 << 16) + 64;

/// Most bytes of metadata accepted (a front end writes a few hundred).
pub const MAX_META: usize = 1 << 20;

/// The checksum's fixed public key (`ddf-cli-` / `state-v1` in ASCII).
const CHECKSUM_KEY: (u64, u64) = (0x6464_662d_636c_692d, 0x7374_6174_652d_7631);

/// The family names state files record and the front ends accept
/// (`ddf dedup --filter`, `ddf.Dedup(family=...)`): the slugs of the
/// [registry](crate::registry), in the planner's order.
pub const FAMILIES: &[&str] = Family::SLUGS;

/// A decoded state file.
pub struct StateFile {
    /// The filter, of whatever kind the file holds.
    pub filter: Filter,
    /// The item hasher with the file's key.
    pub hasher: KeyedSipHasher,
    /// The front end's metadata (JSON text).
    pub meta: String,
    /// The file's layout version (1 or [`VERSION`]).
    pub layout_version: u16,
    /// The filter snapshot's envelope format version.
    pub snapshot_format: u16,
    /// The filter snapshot's kind code ([`crate::snapshot::kind`]).
    pub snapshot_kind: u16,
}

impl fmt::Debug for StateFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the key.
        f.debug_struct("StateFile")
            .field("family", &family(&self.filter))
            .field("meta", &self.meta)
            .finish_non_exhaustive()
    }
}

/// Why bytes are not a state file this build reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateError(String);

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StateError {}

impl From<String> for StateError {
    fn from(s: String) -> Self {
        StateError(s)
    }
}

impl From<&str> for StateError {
    fn from(s: &str) -> Self {
        StateError(s.to_string())
    }
}

/// The state file's checksum of `bytes`: SipHash-1-3 under a fixed public
/// key (the last 8 bytes of a file, little-endian, are this of the bytes
/// before them). It catches torn or corrupted files, not tampering.
pub fn checksum(bytes: &[u8]) -> u64 {
    let mut key = [0u8; 16];
    key[..8].copy_from_slice(&CHECKSUM_KEY.0.to_le_bytes());
    key[8..].copy_from_slice(&CHECKSUM_KEY.1.to_le_bytes());
    let mut h = KeyedSipHasher::with_key(key).build_hasher();
    h.write(bytes);
    h.finish()
}

/// The bytes of a state file holding `filter`, `hasher`'s key and `meta`.
///
/// `meta` longer than [`MAX_META`] is cut to an empty object, so the file
/// always decodes.
pub fn encode(filter: &Filter, hasher: &KeyedSipHasher, meta: &str) -> Vec<u8> {
    let meta = if meta.len() > MAX_META { "{}" } else { meta };
    let snap = crate::snapshot::seal_with_hasher(filter, hasher);
    let mut out = Vec::with_capacity(30 + meta.len() + snap.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(meta.len() as u32).to_le_bytes());
    out.extend_from_slice(meta.as_bytes());
    out.extend_from_slice(&(snap.len() as u64).to_le_bytes());
    out.extend_from_slice(&snap);
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// Takes `n` bytes from the front of `input`, or says which field ended early.
fn take<'a>(input: &mut &'a [u8], n: usize, field: &str) -> Result<&'a [u8], StateError> {
    if input.len() < n {
        return Err(format!("truncated in the {field}").into());
    }
    let (head, tail) = input.split_at(n);
    *input = tail;
    Ok(head)
}

/// Takes a little-endian integer of `N` bytes.
fn take_le<const N: usize>(input: &mut &[u8], field: &str) -> Result<[u8; N], StateError> {
    let mut out = [0u8; N];
    out.copy_from_slice(take(input, N, field)?);
    Ok(out)
}

/// Parses a state file's bytes; every error says what is wrong. Nothing is
/// allocated from a length before the bytes it covers are checked to exist.
pub fn decode(bytes: &[u8]) -> Result<StateFile, StateError> {
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
    let version = u16::from_le_bytes(take_le(&mut input, "version")?);
    if version != VERSION && version != VERSION_SEPARATE_KEY {
        return Err(format!(
            "layout version {version}; this ddf reads versions {VERSION_SEPARATE_KEY} and {VERSION}"
        )
        .into());
    }
    let meta_len = u32::from_le_bytes(take_le(&mut input, "metadata length")?) as usize;
    if meta_len > MAX_META {
        return Err(format!("metadata of {meta_len} bytes (at most {MAX_META})").into());
    }
    let meta = std::str::from_utf8(take(&mut input, meta_len, "metadata")?)
        .map_err(|_| "metadata is not UTF-8")?
        .to_string();
    let key = if version == VERSION_SEPARATE_KEY {
        let key_len = u16::from_le_bytes(take_le(&mut input, "key length")?) as usize;
        Some(take(&mut input, key_len, "hash key")?)
    } else {
        None
    };
    let snap_len = u64::from_le_bytes(take_le(&mut input, "snapshot length")?);
    let snap_len = usize::try_from(snap_len).map_err(|_| "snapshot length overflows")?;
    let snap = take(&mut input, snap_len, "filter snapshot")?;
    if !input.is_empty() {
        return Err(format!("{} stray bytes after the snapshot", input.len()).into());
    }
    let (filter, hasher) = match key {
        Some(key) => {
            let hasher =
                KeyedSipHasher::from_key_bytes(key).ok_or("the hash key has the wrong length")?;
            let filter = Filter::from_bytes(snap).map_err(|e| format!("filter snapshot: {e}"))?;
            (filter, hasher)
        }
        None => crate::snapshot::open_with_hasher::<Filter, KeyedSipHasher>(snap)
            .map_err(|e| format!("filter snapshot: {e}"))?,
    };
    // The snapshot decoded, so its header holds this format and a kind.
    let snapshot_kind =
        crate::snapshot::peek_kind(snap).map_err(|e| format!("filter snapshot: {e}"))?;
    Ok(StateFile {
        filter,
        hasher,
        meta,
        layout_version: version,
        snapshot_format: crate::snapshot::FORMAT_VERSION,
        snapshot_kind,
    })
}

/// The most bytes a state file can hold: the fixed fields, the largest
/// metadata and key, and the snapshot of the largest state a filter can
/// promise ([`crate::snapshot::MAX_SNAPSHOT_BYTES`]).
pub const MAX_FILE: u64 =
    8 + 2 + 4 + MAX_META as u64 + 2 + u16::MAX as u64 + 8 + crate::snapshot::MAX_SNAPSHOT_BYTES + 8;

/// Appends exactly `n` bytes of `r` to `out`, or says which field ended
/// early; `take` grows `out` with the bytes actually read, so a length the
/// source does not hold is never allocated.
fn read_field(r: &mut impl Read, n: u64, field: &str, out: &mut Vec<u8>) -> Result<(), StateError> {
    let got = r
        .take(n)
        .read_to_end(out)
        .map_err(|e| StateError::from(format!("cannot read the {field}: {e}")))?;
    if got as u64 == n {
        Ok(())
    } else {
        Err(format!("truncated in the {field}").into())
    }
}

/// The bytes of a state file of `file_len` bytes, read header first: the
/// magic before anything else, each declared length checked against the
/// limits and the file's size before its field is read, and nothing read
/// beyond the declared end (the checksum). [`decode`] then checks them.
pub fn read_bounded(r: &mut impl Read, file_len: u64) -> Result<Vec<u8>, StateError> {
    let mut out = Vec::new();
    // Checks a field's declared end against the file before reading it.
    let fits = |end: u64, field: &str| {
        if end > file_len {
            Err(StateError::from(format!(
                "the {field} ends at byte {end}, beyond the file's {file_len} bytes"
            )))
        } else {
            Ok(())
        }
    };
    read_field(r, 8, "magic", &mut out)?;
    if out[..8] != MAGIC[..] {
        return Err("not a ddf state file (bad magic)".into());
    }
    read_field(r, 2 + 4, "metadata length", &mut out)?;
    let meta_len = u32::from_le_bytes([out[10], out[11], out[12], out[13]]);
    if meta_len as usize > MAX_META {
        return Err(format!("metadata of {meta_len} bytes (at most {MAX_META})").into());
    }
    let version = u16::from_le_bytes([out[8], out[9]]);
    if version != VERSION && version != VERSION_SEPARATE_KEY {
        return Err(format!(
            "layout version {version}; this ddf reads versions {VERSION_SEPARATE_KEY} and {VERSION}"
        )
        .into());
    }
    // Layout 1 has a key field (its 2-byte length read with the metadata)
    // before the snapshot's length; layout 2 the length alone.
    let (after_meta, max_snap) = if version == VERSION_SEPARATE_KEY {
        (2, crate::snapshot::MAX_SNAPSHOT_BYTES)
    } else {
        (0, MAX_DEDUPER_SNAPSHOT)
    };
    fits(14 + u64::from(meta_len) + after_meta, "metadata")?;
    read_field(r, u64::from(meta_len) + after_meta, "metadata", &mut out)?;
    if version == VERSION_SEPARATE_KEY {
        let n = out.len();
        let key_len = u16::from_le_bytes([out[n - 2], out[n - 1]]);
        fits(n as u64 + u64::from(key_len), "hash key")?;
        read_field(r, u64::from(key_len), "hash key", &mut out)?;
    }
    fits(out.len() as u64 + 8, "snapshot length")?;
    read_field(r, 8, "snapshot length", &mut out)?;
    let n = out.len();
    let mut len = [0u8; 8];
    len.copy_from_slice(&out[n - 8..]);
    let snap_len = u64::from_le_bytes(len);
    if snap_len > max_snap {
        return Err(format!(
            "the filter snapshot declares {snap_len} bytes, more than any filter's state ({max_snap} at most)"
        )
        .into());
    }
    let end = n as u64 + snap_len + 8;
    fits(end, "filter snapshot")?;
    read_field(r, snap_len + 8, "filter snapshot", &mut out)?;
    if end != file_len {
        return Err(format!("{} stray bytes after the checksum", file_len - end).into());
    }
    Ok(out)
}

/// Reads the bytes of the state file at `path` for [`decode`]: `None` when
/// it does not exist. Only a regular file of at most [`MAX_FILE`] bytes is
/// read (a device such as `/dev/zero`, a pipe or a directory is refused
/// before it is opened), header first ([`read_bounded`]), so no file makes
/// the reader allocate more than the file holds.
pub fn read_file(path: &Path) -> Result<Option<Vec<u8>>, StateError> {
    let cannot = |e: std::io::Error| format!("cannot read state file {}: {e}", path.display());
    let info = match std::fs::metadata(path) {
        Ok(info) => info,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(cannot(e).into()),
    };
    if !info.is_file() {
        return Err(format!(
            "{} cannot be a state file: it is not a regular file",
            path.display()
        )
        .into());
    }
    if info.len() > MAX_FILE {
        return Err(format!(
            "{} cannot be a state file: {} bytes, more than the largest state ({MAX_FILE})",
            path.display(),
            info.len()
        )
        .into());
    }
    let mut file = std::io::BufReader::new(std::fs::File::open(path).map_err(cannot)?);
    read_bounded(&mut file, info.len())
        .map(Some)
        .map_err(|e| format!("state file {} is corrupt: {e}", path.display()).into())
}

/// The family name of a filter, as state files record it and
/// [`FAMILIES`] lists it (`"unknown"` for types the planner never builds).
pub fn family(f: &Filter) -> &'static str {
    Family::of_filter(f).map_or("unknown", Family::slug)
}

/// The family name of a snapshot kind code (a queue of any subfilter is
/// the first queued family: [`family`] tells a queue of QHTs apart),
/// `"unknown"` for kinds the planner never builds.
pub fn kind_name(code: u16) -> &'static str {
    Family::of_kind(code).map_or("unknown", Family::slug)
}

/// The family name (one of [`FAMILIES`]) of a planned candidate.
// With no family planned (`build.rs`), a candidate cannot exist.
#[cfg_attr(some_families_off, allow(unreachable_code))]
pub fn candidate_family(c: &Candidate) -> &'static str {
    Family::of(&c.config).slug()
}

/// What a front end records beside the filter: the run so far and the
/// request the state was made from. [`to_json`](Meta::to_json) adds what
/// the filter itself says (family, window, slack, memory), for readers
/// such as `ddf inspect`.
#[derive(Debug, Clone, PartialEq)]
pub struct Meta {
    /// The chosen family's parameters, as text.
    pub config: String,
    /// The false-positive rate predicted when the filter was chosen.
    pub fpr: f64,
    /// The false-negative rate predicted (0 when guaranteed).
    pub fnr: f64,
    /// Records observed over every run that used this state.
    pub records_seen: u64,
    /// The latest time given to a time-windowed filter, in milliseconds
    /// since the Unix epoch.
    pub clock_ms: Option<u64>,
    /// Where times came from (`arrival`, `field`, `json`, `python`,
    /// `none`).
    pub time_source: String,
    /// The request the filter was chosen for; `None` in files written
    /// before requests were recorded.
    pub request: Option<Request>,
}

/// A window as the metadata writes it: `{"records": n}`, `{"ms": t}` or
/// `"unbounded"`.
pub fn window_json(w: Window) -> serde_json::Value {
    match w {
        Window::Count(n) => json!({ "records": n }),
        Window::Time(ms) => json!({ "ms": ms }),
        Window::Unbounded => json!("unbounded"),
    }
}

/// A request as the metadata writes it, resolved
/// ([`Request::resolved`]): the same filter asked for in other words
/// compares equal.
fn request_json(r: &Request) -> serde_json::Value {
    let r = r.resolved();
    json!({
        "window": r.window,
        "within_ms": r.within_ms,
        "rate": r.rate,
        "capacity": r.capacity,
        "fpr": r.fpr,
        "max_memory": r.max_memory,
        "misses_ok": r.misses_ok,
        "distinct": r.distinct,
        "slack": match r.slack {
            Some(Slack::Units(n)) => json!(n),
            Some(Slack::Text(t)) => json!(t),
            None => json!(null),
        },
        "family": r.family.map(Family::slug),
        "exact": r.exact,
    })
}

fn request_from_json(v: &serde_json::Value) -> Option<Request> {
    use serde_json::Value;
    let u = |k: &str| match v.get(k)? {
        Value::Null => Some(None),
        x => x.as_u64().map(Some),
    };
    let f = |k: &str| match v.get(k)? {
        Value::Null => Some(None),
        x => x.as_f64().map(Some),
    };
    Some(Request {
        window: u("window")?,
        within_ms: u("within_ms")?,
        rate: f("rate")?,
        capacity: u("capacity")?,
        fpr: f("fpr")?,
        max_memory: u("max_memory")?,
        misses_ok: v.get("misses_ok")?.as_bool()?,
        distinct: f("distinct")?,
        slack: match v.get("slack")? {
            Value::Null => None,
            Value::String(t) => Some(Slack::Text(t.clone())),
            x => Some(Slack::Units(x.as_u64()?)),
        },
        family: match v.get("family")? {
            Value::Null => None,
            x => Some(Family::named(x.as_str()?)?),
        },
        exact: v.get("exact")?.as_bool()?,
    })
}

impl Meta {
    /// The metadata of a new state: `choice` made for `request`.
    pub fn new(choice: &Choice, request: &Request, time_source: &str) -> Meta {
        Meta {
            config: choice.config.clone(),
            fpr: choice.fpr,
            fnr: choice.fnr,
            records_seen: 0,
            clock_ms: None,
            time_source: time_source.to_string(),
            request: Some(request.clone()),
        }
    }

    /// The JSON a state file holds for `filter` with this metadata.
    pub fn to_json(&self, filter: &Filter) -> String {
        let mut v = json!({
            "family": family(filter),
            "config": self.config,
            "window": window_json(filter.window()),
            "slack": filter.slack(),
            "memory_bits": filter.memory_bits(),
            "fpr": self.fpr,
            "fnr": self.fnr,
            "records_seen": self.records_seen,
            "clock_ms": self.clock_ms,
            "time_source": self.time_source,
        });
        if let Some(r) = &self.request {
            v["request"] = request_json(r);
        }
        v.to_string()
    }

    /// Reads the metadata JSON of a state file, of any layout: `fnr` and
    /// `request` may be absent (files written before them).
    pub fn from_json(text: &str) -> Result<Meta, StateError> {
        use serde_json::Value;
        let v: Value = serde_json::from_str(text)
            .map_err(|e| StateError(format!("metadata is not JSON: {e}")))?;
        let missing = |f: &str| StateError(format!("metadata lacks {f}"));
        Ok(Meta {
            config: v
                .get("config")
                .and_then(Value::as_str)
                .ok_or_else(|| missing("config"))?
                .to_string(),
            fpr: v
                .get("fpr")
                .and_then(Value::as_f64)
                .ok_or_else(|| missing("fpr"))?,
            fnr: v.get("fnr").and_then(Value::as_f64).unwrap_or(0.0),
            records_seen: v
                .get("records_seen")
                .and_then(Value::as_u64)
                .ok_or_else(|| missing("records_seen"))?,
            clock_ms: match v.get("clock_ms") {
                None => return Err(missing("clock_ms")),
                Some(Value::Null) => None,
                Some(x) => Some(
                    x.as_u64()
                        .ok_or_else(|| missing("clock_ms as an integer"))?,
                ),
            },
            time_source: v
                .get("time_source")
                .and_then(Value::as_str)
                .ok_or_else(|| missing("time_source"))?
                .to_string(),
            request: match v.get("request") {
                None | Some(Value::Null) => None,
                Some(r) => Some(request_from_json(r).ok_or_else(|| missing("a readable request"))?),
            },
        })
    }

    /// The metadata of a merge of this state with one described by
    /// `other` (their filters merged by [`Filter::merge`]): records seen
    /// add up, the clock is the later one, and the rest (the request and
    /// the choice, which the filters' merge found equal) is this one's.
    pub fn merge(&mut self, other: &Meta) {
        self.records_seen = self.records_seen.saturating_add(other.records_seen);
        self.clock_ms = match (self.clock_ms, other.clock_ms) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
    }

    /// Whether a state holding `filter` with this metadata resumes under
    /// `request`, whose filter would be `choice`: it does when the request
    /// is the one the state was made from (defaults and units resolved),
    /// or when `choice` is the filter the state holds (same family and
    /// parameters, or same family and window), as for a state that
    /// records no request. Else the error says both in `v`'s words.
    pub fn resumes(
        &self,
        filter: &Filter,
        request: &Request,
        choice: &Choice,
        v: &Vocabulary,
    ) -> Result<(), String> {
        let made_for = self.request.as_ref().map(Request::resolved);
        if made_for.as_ref() == Some(&request.resolved()) {
            return Ok(());
        }
        let held = family(filter);
        let same_plan = choice.candidate.is_some() && self.config == choice.config;
        if held == choice.family && (same_plan || filter.window() == choice.window) {
            return Ok(());
        }
        Err(format!(
            "it holds a {held} filter over {} ({}), but the {} ask for a {} filter over {} ({})",
            describe_window(filter.window()),
            self.config,
            v.arguments,
            choice.family,
            describe_window(choice.window),
            choice.config,
        ))
    }
}

/// `w` in words: the last `n` records, the last duration, or the whole
/// stream.
pub fn describe_window(w: Window) -> String {
    match w {
        Window::Count(n) => format!("the last {n} records"),
        Window::Time(ms) => format!(
            "the last {}",
            humantime::format_duration(std::time::Duration::from_millis(ms))
        ),
        Window::Unbounded => "the whole stream".into(),
    }
}

/// Writes the state file at `path` so that a crash leaves either the old
/// file or the new one: the bytes go to a temporary file in the same
/// directory (mode 0600, since they hold the secret hash key), which is
/// synced, renamed over `path`, and the directory synced so the rename
/// itself is durable. On failure the temporary file is removed and `path`
/// is untouched.
pub fn write_file(
    path: &Path,
    filter: &Filter,
    hasher: &KeyedSipHasher,
    meta: &Meta,
) -> Result<(), StateError> {
    use std::io::Write;
    use std::sync::atomic::{AtomicU64, Ordering};
    // Two saves of one process (two threads) never share a temporary file.
    static SAVES: AtomicU64 = AtomicU64::new(0);
    let bytes = encode(filter, hasher, &meta.to_json(filter));
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(format!(
        ".tmp-{}-{}",
        std::process::id(),
        SAVES.fetch_add(1, Ordering::Relaxed)
    ));
    let tmp = path.with_file_name(tmp_name);
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
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
        std::fs::rename(&tmp, path)?;
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        match std::fs::File::open(dir).and_then(|d| d.sync_all()) {
            // Some file systems cannot sync a directory; the rename stands.
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::InvalidInput | std::io::ErrorKind::Unsupported
                ) =>
            {
                Ok(())
            }
            other => other,
        }
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        StateError(format!("cannot save state to {}: {e}", path.display()))
    })
}

// The samples are exact windows.
#[cfg(all(test, feature = "exact"))]
mod tests {
    use super::*;
    use crate::{Digest, DuplicateFilter, Window, Windowed};

    fn sample() -> Vec<u8> {
        let mut f = Filter::exact(Window::Count(8)).unwrap();
        let digests: Vec<Digest> = (0..20u64).map(Digest::new).collect();
        let mut v = Vec::new();
        f.observe_batch(&digests, &mut v);
        encode(&f, &KeyedSipHasher::with_seed(1), "{\"records_seen\":20}")
    }

    fn reseal(mut bytes: Vec<u8>) -> Vec<u8> {
        let n = bytes.len() - 8;
        let sum = checksum(&bytes[..n]);
        bytes[n..].copy_from_slice(&sum.to_le_bytes());
        bytes
    }

    #[test]
    fn reading_stops_at_what_the_header_declares() {
        let good = sample();
        let n = good.len() as u64;
        assert_eq!(read_bounded(&mut good.as_slice(), n).unwrap(), good);
        // Zeros for ever: refused at the magic.
        let e = read_bounded(&mut std::io::repeat(0), u64::MAX).unwrap_err();
        assert!(e.to_string().contains("bad magic"), "{e}");
        // A snapshot length beyond any filter's state, then zeros for ever.
        let meta_len = u32::from_le_bytes(good[10..14].try_into().unwrap()) as usize;
        let len_at = 14 + meta_len;
        let mut head = good[..len_at + 8].to_vec();
        head[len_at..].copy_from_slice(&u64::MAX.to_le_bytes());
        let mut endless = head.as_slice().chain(std::io::repeat(0));
        let e = read_bounded(&mut endless, u64::MAX).unwrap_err();
        assert!(
            e.to_string().contains("more than any filter's state"),
            "{e}"
        );
        // A length within the limit but beyond the file's size.
        head[len_at..].copy_from_slice(&(1u64 << 30).to_le_bytes());
        let mut endless = head.as_slice().chain(std::io::repeat(0));
        let e = read_bounded(&mut endless, n).unwrap_err();
        assert!(e.to_string().contains("beyond the file"), "{e}");
        // A file longer than its header declares.
        let e = read_bounded(&mut good.as_slice(), n + 1).unwrap_err();
        assert!(e.to_string().contains("1 stray bytes"), "{e}");
    }

    /// A state file of layout 1, written by the `ddf` command before
    /// layout 2 (`printf 'order-1\norder-2\norder-1\norder-3\n' | ddf dedup
    /// --window 1000 --fpr 0.01 --state state-v1.ddfstate`), still loads, and
    /// saves again in layout 2 with the same answers.
    #[test]
    #[cfg(feature = "sliding")] // the fixture holds a sliding Bloom filter
    fn layout_1_files_still_load() {
        let old = include_bytes!("../tests/data/state-v1.ddfstate");
        assert_eq!(u16::from_le_bytes([old[8], old[9]]), 1);
        let n = old.len() as u64;
        let bytes = read_bounded(&mut old.as_slice(), n).unwrap();
        let l = decode(&bytes).unwrap();
        assert_eq!(family(&l.filter), "sliding");
        assert!(l.meta.contains("\"records_seen\":4"), "{}", l.meta);
        let seen = crate::Deduper::with_hasher(l.filter.clone(), l.hasher.clone());
        for k in ["order-1", "order-2", "order-3"] {
            assert!(seen.contains(k.as_bytes()), "{k}");
        }
        assert!(!seen.contains(b"order-4".as_slice()));
        let again = encode(&l.filter, &l.hasher, &l.meta);
        assert_eq!(u16::from_le_bytes([again[8], again[9]]), VERSION);
        let l2 = decode(&again).unwrap();
        assert_eq!(l2.filter.to_bytes(), l.filter.to_bytes());
        assert_eq!(l2.hasher.key(), l.hasher.key());
        assert_eq!(l2.snapshot_kind, l.snapshot_kind);
    }

    #[test]
    fn round_trip() {
        let l = decode(&sample()).unwrap();
        assert_eq!(l.meta, "{\"records_seen\":20}");
        assert_eq!(l.filter.window(), Window::Count(8));
        assert_eq!(l.hasher.key(), KeyedSipHasher::with_seed(1).key());
        assert_eq!(l.snapshot_kind, crate::snapshot::kind::EXACT_WINDOW);
    }

    #[test]
    fn every_cut_and_flip_is_an_error() {
        let good = sample();
        for n in 0..good.len() {
            assert!(decode(&good[..n]).is_err(), "cut at {n}");
        }
        for i in 0..good.len() {
            let mut b = good.clone();
            b[i] ^= 0x5a;
            assert!(decode(&b).is_err(), "flip at {i}");
            // Behind a valid checksum the inner checks answer, never panic.
            let _ = decode(&reseal(b));
        }
        let mut b = good.clone();
        b[8..10].copy_from_slice(&7u16.to_le_bytes());
        assert!(
            decode(&reseal(b))
                .unwrap_err()
                .to_string()
                .contains("version 7")
        );
    }

    #[test]
    fn write_file_saves_meta_with_its_request_and_replaces_the_old_file() {
        let dir = std::env::temp_dir().join(format!("ddf-state-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.ddf");
        let request = Request {
            window: Some(8),
            exact: true,
            ..Request::default()
        };
        let choice = request.choose(&Vocabulary::RUST).unwrap();
        let f = choice.build().unwrap();
        let meta = Meta {
            records_seen: 3,
            ..Meta::new(&choice, &request, "none")
        };
        for _ in 0..2 {
            write_file(&path, &f, &KeyedSipHasher::with_seed(1), &meta).unwrap();
        }
        let bytes = read_file(&path).unwrap().unwrap();
        let back = decode(&bytes).unwrap();
        let read = Meta::from_json(&back.meta).unwrap();
        assert_eq!(
            read.request.as_ref().map(Request::resolved),
            Some(request.resolved())
        );
        assert_eq!(read.records_seen, 3);
        assert!(
            read.resumes(&back.filter, &request, &choice, &Vocabulary::RUST)
                .is_ok()
        );
        let other = Request {
            window: Some(9),
            ..request
        };
        let other_choice = other.choose(&Vocabulary::RUST).unwrap();
        let e = read
            .resumes(&back.filter, &other, &other_choice, &Vocabulary::RUST)
            .unwrap_err();
        assert!(
            e.contains("last 8 records") && e.contains("last 9 records"),
            "{e}"
        );
        // Only the file itself is left: no temporary file.
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["s.ddf"]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        // A directory that does not exist: an error naming the path.
        let e = write_file(
            &dir.join("no/such/s.ddf"),
            &f,
            &KeyedSipHasher::with_seed(1),
            &meta,
        )
        .unwrap_err();
        assert!(e.to_string().contains("cannot save state"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The metadata the command wrote before the request was recorded
    /// (no `fnr`, no `request`) still reads.
    #[test]
    fn metadata_without_a_request_reads() {
        let old = r#"{"family":"exact","config":"exact window of 64-bit digests","window":{"records":8},"slack":0,"memory_bits":1,"fpr":0.0,"records_seen":20,"clock_ms":null,"time_source":"none"}"#;
        let m = Meta::from_json(old).unwrap();
        assert_eq!((m.records_seen, m.fnr, m.request), (20, 0.0, None));
        assert!(Meta::from_json("{}").is_err());
        assert!(Meta::from_json("not json").is_err());
    }

    #[test]
    fn family_names_are_listed() {
        let req = crate::Requirements::count(10_000).fpr(0.01);
        for c in crate::plan(&req).unwrap() {
            let name = candidate_family(&c);
            assert!(FAMILIES.contains(&name), "{name}");
            assert_eq!(family(&c.build().unwrap()), name);
        }
    }
}
