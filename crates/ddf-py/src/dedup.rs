//! `ddf.Dedup`: a filter with its keyed hasher behind a mutex, and the
//! state file that the `ddf` command reads too.

use crate::keys::{Keys, Source, with_key};
use crate::planning::{self, Keywords, human_bytes, slack_py, window_py};
use crate::units::{is_one_time, now_ms, time_ms, times_ms};
use ddf::state::Meta;
use ddf::{
    Deduper, Digest, DuplicateFilter, Filter, KeyedSipHasher, TimedFilter, Verdict, Window,
    Windowed, state,
};
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict};
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, TryLockError};

/// Keys handed to the filter per release of the GIL: enough to amortise
/// the release (a few hundred nanoseconds), few enough that the copied keys
/// of a chunk stay in a few MiB.
const CHUNK: usize = 1 << 16;

/// The mutable part, behind the mutex.
#[derive(Debug)]
struct Inner {
    seen: Deduper<Filter>,
    meta: Meta,
    duplicates: u64,
    /// Scratch reused across batch calls.
    keys: Keys,
    verdicts: Vec<Verdict>,
    stamped: Vec<(Digest, u64)>,
}

impl Inner {
    fn timed(&self) -> bool {
        self.seen.filter().is_timed()
    }

    /// Advances the recorded clock to `now` (never back).
    fn tick(&mut self, now: u64) {
        self.meta.clock_ms = Some(self.meta.clock_ms.map_or(now, |c| c.max(now)));
    }

    fn to_bytes(&self) -> Vec<u8> {
        let f = self.seen.filter();
        state::encode(f, self.seen.hasher(), &self.meta.to_json(f))
    }
}

/// Rejects `at=` on a filter without a time window.
fn no_clock(at_given: bool) -> PyResult<()> {
    if at_given {
        return Err(PyValueError::new_err(
            "at= is for time windows (Dedup(within=...)); this filter counts keys",
        ));
    }
    Ok(())
}

/// Duplicate detection over a window of keys or of time, in bounded memory.
///
/// Safe to share between threads: one mutex guards the filter, and batch
/// calls release the GIL while they hold it.
#[pyclass(module = "ddf", name = "Dedup", frozen)]
#[derive(Debug)]
pub(crate) struct Dedup {
    inner: Mutex<Inner>,
    /// Whether the filter's window is a span of time (fixed for its life).
    timed: bool,
    /// The `key=` function, applied to every key first.
    key: Option<Py<PyAny>>,
}

/// The times of a batch.
enum Times {
    /// No clock (a count window).
    None,
    /// One time for every key.
    One(u64),
    /// One time per key.
    Each(Vec<u64>),
}

impl Dedup {
    fn new_from(
        filter: Filter,
        hasher: KeyedSipHasher,
        meta: Meta,
        key: Option<Py<PyAny>>,
    ) -> Dedup {
        Dedup {
            timed: filter.is_timed(),
            inner: Mutex::new(Inner {
                seen: Deduper::with_hasher(filter, hasher),
                meta,
                duplicates: 0,
                keys: Keys::default(),
                verdicts: Vec::new(),
                stamped: Vec::new(),
            }),
            key,
        }
    }

    /// The lock, taken without holding the GIL when another thread has it
    /// (a batch runs with the GIL released and the lock held).
    fn lock(&self, py: Python<'_>) -> MutexGuard<'_, Inner> {
        loop {
            match self.inner.try_lock() {
                Ok(g) => return g,
                // A panic in a filter is a bug; the state is still a filter.
                Err(TryLockError::Poisoned(p)) => return p.into_inner(),
                Err(TryLockError::WouldBlock) => {
                    py.detach(|| drop(self.inner.lock()));
                }
            }
        }
    }

    /// Applies the `key=` function.
    fn map<'py>(&self, key: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        match &self.key {
            Some(f) => f.bind(key.py()).call1((key,)),
            None => Ok(key.clone()),
        }
    }

    /// Decodes a state file's bytes.
    fn decode(bytes: &[u8], key: Option<Py<PyAny>>) -> PyResult<Dedup> {
        let file = state::decode(bytes)
            .map_err(|e| PyValueError::new_err(format!("not a usable ddf state: {e}")))?;
        let meta =
            Meta::from_json(&file.meta).map_err(|e| PyValueError::new_err(format!("state {e}")))?;
        Ok(Dedup::new_from(file.filter, file.hasher, meta, key))
    }

    /// The times `at` gives for `n` keys.
    fn times(inner: &Inner, at: Option<&Bound<'_, PyAny>>, n: usize) -> PyResult<Times> {
        if !inner.timed() {
            no_clock(at.is_some())?;
            return Ok(Times::None);
        }
        let Some(at) = at else {
            return Ok(Times::One(now_ms()));
        };
        if is_one_time(at)? {
            return Ok(Times::One(time_ms("at", at)?));
        }
        let ms = times_ms("at", at)?;
        if ms.len() != n {
            return Err(PyValueError::new_err(format!(
                "at has {} times for {n} keys",
                ms.len()
            )));
        }
        Ok(Times::Each(ms))
    }
}

/// Observes one chunk of keys (already in `inner.keys`) at `times[from..]`.
/// Runs without the GIL.
fn observe_chunk(inner: &mut Inner, times: &Times, from: usize, out: &mut Vec<u8>) {
    let Inner {
        seen,
        keys,
        verdicts,
        stamped,
        meta,
        duplicates,
    } = inner;
    keys.format_ints();
    verdicts.clear();
    match times {
        // The prefetching batch path, hashing in blocks.
        Times::None => seen.observe_many(keys.iter(), verdicts),
        Times::One(now) => seen.observe_many_at(keys.iter(), *now, verdicts),
        Times::Each(ms) => {
            stamped.clear();
            stamped.extend(
                keys.iter()
                    .zip(&ms[from..])
                    .map(|(k, &t)| (seen.digest(k), t)),
            );
            seen.filter_mut().observe_batch_stamped(stamped, verdicts);
        }
    }
    let before = out.len();
    out.extend(verdicts.iter().map(|v| u8::from(v.is_duplicate())));
    let dups = out[before..].iter().map(|&b| u64::from(b)).sum::<u64>();
    *duplicates += dups;
    meta.records_seen = meta.records_seen.saturating_add(verdicts.len() as u64);
    match times {
        Times::None => {}
        Times::One(now) => meta.clock_ms = Some(meta.clock_ms.map_or(*now, |c| c.max(*now))),
        Times::Each(ms) => {
            if let Some(&t) = ms[from..from + verdicts.len()].iter().max() {
                meta.clock_ms = Some(meta.clock_ms.map_or(t, |c| c.max(t)));
            }
        }
    }
}

/// A numpy bool array holding `flags` (0 or 1 each).
fn bool_array<'py>(py: Python<'py>, flags: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    let np = py.import("numpy")?;
    let buf = PyByteArray::new(py, flags);
    np.call_method1("frombuffer", (buf, np.getattr("bool_")?))
}

#[pymethods]
impl Dedup {
    /// See the package docs and `ddf.pyi`.
    #[new]
    #[pyo3(signature = (window=None, *, within=None, rate=None, capacity=None, fpr=None,
        exact=false, max_memory=None, misses_ok=false, family=None, slack=None, distinct=None,
        seed=None, key=None))]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        py: Python<'_>,
        window: Option<&Bound<'_, PyAny>>,
        within: Option<&Bound<'_, PyAny>>,
        rate: Option<f64>,
        capacity: Option<u64>,
        fpr: Option<f64>,
        exact: bool,
        max_memory: Option<&Bound<'_, PyAny>>,
        misses_ok: bool,
        family: Option<String>,
        slack: Option<&Bound<'_, PyAny>>,
        distinct: Option<f64>,
        seed: Option<u64>,
        key: Option<Py<PyAny>>,
    ) -> PyResult<Dedup> {
        let keywords = Keywords {
            window,
            within,
            rate,
            capacity,
            fpr,
            exact,
            max_memory,
            misses_ok,
            family,
            slack,
            distinct,
        };
        if let Some(k) = &key
            && !k.bind(py).is_callable()
        {
            return Err(PyTypeError::new_err(
                "key must be a callable (a function of one key)",
            ));
        }
        let choice = planning::choose(&keywords)?;
        let filter = choice.build().map_err(|e| {
            PyValueError::new_err(format!("cannot build the {} filter: {e}", choice.family))
        })?;
        let hasher = match seed {
            Some(s) => KeyedSipHasher::with_seed(s),
            None => KeyedSipHasher::try_new().map_err(|e| {
                PyOSError::new_err(format!("no OS randomness for the hash key: {e}"))
            })?,
        };
        let request = keywords.request()?;
        let time_source = if filter.is_timed() { "python" } else { "none" };
        let meta = Meta::new(&choice, &request, time_source);
        Ok(Dedup::new_from(filter, hasher, meta, key))
    }

    /// Whether `key` was seen within the window (`True`: a duplicate); then
    /// remembers it. `at`: seconds since the epoch for a time window
    /// (default `time.time()`).
    #[pyo3(signature = (key, *, at=None))]
    fn observe(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        at: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let mapped;
        let key = match &self.key {
            Some(f) => {
                mapped = f.bind(py).call1((key,))?;
                &mapped
            }
            None => key,
        };
        // The clock is read before the lock, the key's bytes under it (they
        // are borrowed from the Python object).
        let now = if self.timed {
            Some(match at {
                Some(t) => time_ms("at", t)?,
                None => now_ms(),
            })
        } else {
            no_clock(at.is_some())?;
            None
        };
        let mut inner = self.lock(py);
        let verdict = match now {
            Some(now) => {
                inner.tick(now);
                let seen = &mut inner.seen;
                with_key(key, |b| seen.observe_at(b, now))?
            }
            None => {
                let seen = &mut inner.seen;
                with_key(key, |b| seen.observe(b))?
            }
        };
        let dup = verdict.is_duplicate();
        inner.duplicates += u64::from(dup);
        inner.meta.records_seen = inner.meta.records_seen.saturating_add(1);
        Ok(dup)
    }

    /// Whether `key` is reported as seen, without remembering it. A time
    /// window answers at `at` (default: the latest time observed).
    #[pyo3(signature = (key, *, at=None))]
    fn contains(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        at: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let key = self.map(key)?;
        let inner = self.lock(py);
        if inner.timed() {
            let now = match at {
                Some(t) => time_ms("at", t)?,
                None => inner.meta.clock_ms.unwrap_or(0),
            };
            with_key(&key, |b| inner.seen.contains_at(b, now))
        } else {
            no_clock(at.is_some())?;
            with_key(&key, |b| inner.seen.contains(b))
        }
    }

    fn __contains__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.contains(py, key, None)
    }

    /// Observes every key in order through the prefetching batch path with
    /// the GIL released; a numpy bool array, `True` for each duplicate.
    #[pyo3(signature = (keys, *, at=None))]
    fn observe_many<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'py, PyAny>,
        at: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let source = Source::new(keys, self.key.is_some())?;
        let n = source.len()?;
        let times = {
            let inner = self.lock(py);
            Dedup::times(&inner, at, n)?
        };
        let key_fn = self.key.as_ref().map(|f| f.bind(py).clone());
        let mut out: Vec<u8> = Vec::with_capacity(n);
        let mut keys = Keys::default();
        let mut start = 0;
        while start < n {
            let end = (start + CHUNK).min(n);
            source.fill(start, end, key_fn.as_ref(), &mut keys)?;
            py.detach(|| {
                let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
                std::mem::swap(&mut inner.keys, &mut keys);
                observe_chunk(&mut inner, &times, start, &mut out);
                std::mem::swap(&mut inner.keys, &mut keys);
            });
            start = end;
        }
        bool_array(py, &out)
    }

    /// `key in self` for every key, without remembering any; a numpy bool
    /// array. A time window answers at `at` (default: the latest time
    /// observed).
    #[pyo3(signature = (keys, *, at=None))]
    fn contains_many<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'py, PyAny>,
        at: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let source = Source::new(keys, self.key.is_some())?;
        let n = source.len()?;
        let key_fn = self.key.as_ref().map(|f| f.bind(py).clone());
        let mut out: Vec<u8> = Vec::with_capacity(n);
        let mut keys = Keys::default();
        let mut start = 0;
        let now = at.map(|t| time_ms("at", t)).transpose()?;
        {
            let inner = self.lock(py);
            if !inner.timed() {
                no_clock(at.is_some())?;
            }
        }
        while start < n {
            let end = (start + CHUNK).min(n);
            source.fill(start, end, key_fn.as_ref(), &mut keys)?;
            py.detach(|| {
                let inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
                keys.format_ints();
                let digests: Vec<Digest> = keys.iter().map(|k| inner.seen.digest(k)).collect();
                let mut answers = Vec::with_capacity(digests.len());
                let f = inner.seen.filter();
                if f.is_timed() {
                    let t = now.unwrap_or(inner.meta.clock_ms.unwrap_or(0));
                    f.contains_batch_at(&digests, t, &mut answers);
                } else {
                    f.contains_batch(&digests, &mut answers);
                }
                out.extend(answers.iter().map(|&a| u8::from(a)));
            });
            start = end;
        }
        bool_array(py, &out)
    }

    /// Merges `other` (a `Dedup` over another share of the stream, with the
    /// same window, parameters and hash key) into this one, which then
    /// answers for both. A refused merge raises `ValueError` naming the
    /// difference and changes nothing.
    fn merge(&self, py: Python<'_>, other: &Bound<'_, Dedup>) -> PyResult<()> {
        // A copy of the other side first: never two locks at once, and
        // `a.merge(a)` takes one lock at a time too.
        let (seen, meta, duplicates) = {
            let theirs = other.get().lock(py);
            (theirs.seen.clone(), theirs.meta.clone(), theirs.duplicates)
        };
        let mut inner = self.lock(py);
        let mine = &mut inner.seen;
        py.detach(|| mine.merge(&seen))
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        inner.meta.merge(&meta);
        inner.duplicates = inner.duplicates.saturating_add(duplicates);
        Ok(())
    }

    /// `a |= b`: [`merge`](Self::merge) (Python keeps `a`).
    fn __ior__(&self, py: Python<'_>, other: &Bound<'_, Dedup>) -> PyResult<()> {
        self.merge(py, other)
    }

    /// Forgets every key (the hash key stays).
    fn clear(&self, py: Python<'_>) {
        let mut inner = self.lock(py);
        inner.seen.filter_mut().clear();
        inner.meta.clock_ms = None;
    }

    /// The family name (`"exact"`, `"shf"`, `"apbf"`, …).
    #[getter]
    fn family(&self, py: Python<'_>) -> &'static str {
        state::family(self.lock(py).seen.filter())
    }

    /// The family's parameters, as text.
    #[getter]
    fn config(&self, py: Python<'_>) -> String {
        self.lock(py).meta.config.clone()
    }

    /// The window: keys (int), seconds (float), or `None` for the whole stream.
    #[getter]
    fn window(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let w = self.lock(py).seen.filter().window();
        window_py(py, w)
    }

    /// How far beyond the window a key may still be reported (keys, or
    /// seconds for a time window).
    #[getter]
    fn slack(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let (w, s) = {
            let inner = self.lock(py);
            (inner.seen.filter().window(), inner.seen.filter().slack())
        };
        slack_py(py, w, s)
    }

    /// State bits of the filter (fixed at construction, except the exact
    /// filter, which grows with the keys it holds).
    #[getter]
    fn memory_bits(&self, py: Python<'_>) -> u64 {
        self.lock(py).seen.filter().memory_bits()
    }

    /// The false-positive rate predicted when the filter was planned.
    #[getter]
    fn predicted_fpr(&self, py: Python<'_>) -> f64 {
        self.lock(py).meta.fpr
    }

    /// The false-negative rate predicted (0 when no key in the window is missed).
    #[getter]
    fn predicted_fnr(&self, py: Python<'_>) -> f64 {
        self.lock(py).meta.fnr
    }

    /// Whether the window is a span of time (`at=` applies).
    #[getter]
    fn is_timed(&self, py: Python<'_>) -> bool {
        self.lock(py).timed()
    }

    /// Counters and parameters, as a dict.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let inner = self.lock(py);
        let f = inner.seen.filter();
        d.set_item("family", state::family(f))?;
        d.set_item("config", &inner.meta.config)?;
        d.set_item("window", window_py(py, f.window())?)?;
        d.set_item("slack", slack_py(py, f.window(), f.slack())?)?;
        d.set_item("memory_bits", f.memory_bits())?;
        d.set_item("memory_bytes", f.memory_bits().div_ceil(8))?;
        d.set_item("predicted_fpr", inner.meta.fpr)?;
        d.set_item("predicted_fnr", inner.meta.fnr)?;
        d.set_item("observed", inner.meta.records_seen)?;
        d.set_item("duplicates", inner.duplicates)?;
        d.set_item("clock", inner.meta.clock_ms.map(|ms| ms as f64 / 1000.0))?;
        d.set_item("clock_regressions", f.clock_regressions())?;
        d.set_item("generations_closed_early", f.generations_closed_early())?;
        Ok(d)
    }

    /// The state as bytes: the `.ddf` state file format of `ddf dedup
    /// --state` (it holds the hash key: keep it as secret as the data).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let bytes = self.lock(py).to_bytes();
        PyBytes::new(py, &bytes)
    }

    /// Restores `to_bytes` output (or a state file's contents).
    #[staticmethod]
    #[pyo3(signature = (data, *, key=None))]
    fn from_bytes(data: &[u8], key: Option<Py<PyAny>>) -> PyResult<Dedup> {
        Dedup::decode(data, key)
    }

    /// Writes the state file atomically (a temporary file of mode 0600,
    /// synced, renamed over `path`).
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let inner = self.lock(py);
        let (seen, meta) = (&inner.seen, &inner.meta);
        py.detach(|| state::write_file(&path, seen.filter(), seen.hasher(), meta))
            .map_err(|e| PyOSError::new_err(e.to_string()))
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let restore = py.import("ddf._ddf")?.getattr("_restore")?;
        let bytes = self.to_bytes(py);
        let key = self.key.as_ref().map(|k| k.clone_ref(py));
        (restore, (bytes, key))
            .into_pyobject(py)
            .map(Bound::into_any)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let inner = self.lock(py);
        let f = inner.seen.filter();
        let window = match f.window() {
            Window::Count(n) => format!("window={n}"),
            Window::Time(ms) => format!("within={}s", ms as f64 / 1000.0),
            Window::Unbounded => "whole stream".into(),
        };
        format!(
            "<ddf.Dedup {} {}, {}, predicted fpr {:.3e}, {} observed>",
            state::family(f),
            window,
            human_bytes(f.memory_bits().div_ceil(8)),
            inner.meta.fpr,
            inner.meta.records_seen
        )
    }
}

/// `ddf.load(path)`: a `Dedup` from a state file.
#[pyfunction]
#[pyo3(signature = (path, *, key=None))]
pub(crate) fn load(py: Python<'_>, path: PathBuf, key: Option<Py<PyAny>>) -> PyResult<Dedup> {
    // A regular file only, header first, never more than it declares.
    let bytes = match py.detach(|| ddf::state::read_file(&path)) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => {
            return Err(PyFileNotFoundError::new_err(format!(
                "no state file at {}",
                path.display()
            )));
        }
        Err(e) => return Err(PyValueError::new_err(e.to_string())),
    };
    Dedup::decode(&bytes, key).map_err(|e| {
        PyValueError::new_err(format!("state file {}: {}", path.display(), e.value(py)))
    })
}

/// `ddf.from_bytes(data)`: a `Dedup` from `Dedup.to_bytes` output.
#[pyfunction]
#[pyo3(signature = (data, *, key=None))]
pub(crate) fn from_bytes(data: &[u8], key: Option<Py<PyAny>>) -> PyResult<Dedup> {
    Dedup::decode(data, key)
}

/// The pickle constructor.
#[pyfunction]
pub(crate) fn _restore(data: &[u8], key: Option<Py<PyAny>>) -> PyResult<Dedup> {
    Dedup::decode(data, key)
}
