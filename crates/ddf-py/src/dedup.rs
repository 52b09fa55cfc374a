//! `ddf.Dedup`: a filter with its keyed hasher behind a mutex, and the
//! state file that the `ddf` command reads too.

use crate::errors::{self, Kind};
use crate::keys::{Keys, Source, with_key};
use crate::planning::{self, Keywords, human_bytes, slack_py, window_py};
use crate::units::{is_one_time, now_ms, time_ms, times_ms, type_name};
use ddf::state::Meta;
use ddf::{
    Deduper, Digest, DuplicateFilter, Filter, KeyedSipHasher, TimedFilter, Verdict, Window,
    Windowed, state,
};
use pyo3::exceptions::{PyFileNotFoundError, PyOSError};
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
    /// Generations closed early when the `CapacityWarning` was last
    /// armed (construction, restore, `clear`), and whether it was issued.
    early_base: u64,
    early_warned: bool,
}

impl Inner {
    /// The `CapacityWarning` to issue, once: the first time the filter
    /// closes a generation early.
    fn capacity_warning(&mut self) -> Option<String> {
        let early = self.seen.filter().generations_closed_early();
        if self.early_warned || early <= self.early_base {
            return None;
        }
        self.early_warned = true;
        let Window::Time(ms) = self.seen.filter().window() else {
            return None;
        };
        Some(format!(
            "the time window of {} s closed a generation early: more keys arrived than it \
             was sized for (rate= or capacity=), so keys seen within the window may be \
             missed from now on; stats()['generations_closed_early'] counts such \
             generations. Size the window for the peak rate.",
            ms as f64 / 1000.0
        ))
    }

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
        return Err(errors::param(
            "at= is for time windows (Dedup(within=...)); this filter counts keys",
        ));
    }
    Ok(())
}

/// Issues the `CapacityWarning`, if any (after the lock is released).
fn warn_capacity(py: Python<'_>, message: Option<String>) -> PyResult<()> {
    match message {
        Some(m) => errors::warn(py, Kind::Capacity, &m),
        None => Ok(()),
    }
}

/// The bytes of a bytes-like object (`bytes`, `bytearray`, `memoryview`,
/// a numpy array, `mmap`, …).
fn bytes_of<'py>(data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    if let Ok(b) = data.cast::<PyBytes>() {
        return Ok(b.clone());
    }
    if data.is_instance_of::<pyo3::types::PyString>() || data.is_instance_of::<pyo3::types::PyInt>()
    {
        return Err(errors::param_type(format!(
            "data must be bytes-like (bytes, bytearray, memoryview), not {}",
            type_name(data)
        )));
    }
    let builtins = data.py().import("builtins")?;
    builtins
        .getattr("bytes")?
        .call1((data,))
        .and_then(|b| Ok(b.cast_into::<PyBytes>()?))
        .map_err(|_| {
            errors::param_type(format!(
                "data must be bytes-like (bytes, bytearray, memoryview), not {}",
                type_name(data)
            ))
        })
}

/// The machine's memory in bytes, when Python can tell.
fn machine_memory(py: Python<'_>) -> Option<u64> {
    let os = py.import("os").ok()?;
    let pages: u64 = os
        .call_method1("sysconf", ("SC_PHYS_PAGES",))
        .ok()?
        .extract()
        .ok()?;
    let size: u64 = os
        .call_method1("sysconf", ("SC_PAGE_SIZE",))
        .ok()?
        .extract()
        .ok()?;
    pages.checked_mul(size)
}

/// Duplicate detection over a window of keys or of time, in bounded memory.
///
/// ``observe(key)`` answers whether ``key`` was seen within the window
/// (``True``: a duplicate), then remembers it. The filter is the planner's
/// first choice for the arguments, or the named ``family``. Safe to share
/// between threads: one mutex guards the filter, and batch calls release
/// the GIL while they hold it.
///
/// Args:
///     window: remember the last ``window`` keys (an int from 1 to 2^40).
///     within: remember keys of the last duration (``"1h"``, seconds, or a
///         ``timedelta``); times are ``at=`` or ``time.time()``.
///     rate: expected keys per second, to size a ``within`` window
///         (default 1000).
///     capacity: expected keys per ``within`` window, to size it (instead
///         of ``rate``).
///     fpr: largest share of new keys reported as duplicates (default 1e-6,
///         unless ``max_memory`` is given alone).
///     exact: no false positives: keep every key of the window.
///     max_memory: most memory for the filter (``"64MiB"`` or bytes).
///     misses_ok: accept filters that may miss duplicates.
///     family: one of ``ddf.FAMILIES`` (or its display name, case and
///         separators ignored) instead of the planner's pick.
///     slack: how far beyond the window a key may still be reported (keys,
///         or a duration for ``within``); default 1 % of the window.
///     distinct: expected distinct keys, to size a filter without a window.
///     seed: derive the hash key from this seed (reproducible, NOT secret);
///         default a random key.
///     key: a function applied to every key first.
///
/// Raises:
///     ddf.ParamError: an argument out of range (a ``ValueError``; the
///         message names it); ``ddf.ParamTypeError`` (also a ``TypeError``)
///         for one of the wrong type.
///     ddf.PlanError: no filter meets the arguments together (the
///         planner's reasons and what to change).
///
/// Warns:
///     ddf.MemoryWarning: the filter planned needs more memory than the
///         machine has.
#[pyclass(module = "ddf", name = "Dedup", frozen)]
#[derive(Debug)]
pub(crate) struct Dedup {
    /// Boxed: the filter may be aligned beyond the 16 bytes Python's
    /// allocator gives an object.
    inner: Box<Mutex<Inner>>,
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
            inner: Box::new(Mutex::new(Inner {
                early_base: filter.generations_closed_early(),
                early_warned: false,
                seen: Deduper::with_hasher(filter, hasher),
                meta,
                duplicates: 0,
                keys: Keys::default(),
                verdicts: Vec::new(),
                stamped: Vec::new(),
            })),
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
            .map_err(|e| errors::state(format!("not a usable ddf state: {e}")))?;
        let meta = Meta::from_json(&file.meta).map_err(|e| errors::state(format!("state {e}")))?;
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
            return Err(errors::param(format!(
                "at has {} times for {n} keys (give one time, or one per key)",
                ms.len()
            )));
        }
        Ok(Times::Each(ms))
    }

    /// Hands every chunk of `source`'s keys, and its first index, to
    /// `each`, which runs without the GIL (an Arrow column's keys are
    /// filled there too).
    fn chunks<'py>(
        &self,
        py: Python<'py>,
        source: &Source<'py>,
        mut each: impl FnMut(&mut Keys, usize) + Send,
    ) -> PyResult<()> {
        let n = source.len()?;
        let key_fn = self.key.as_ref().map(|f| f.bind(py).clone());
        let arrow = source.arrow();
        let mut keys = Keys::default();
        let mut start = 0;
        while start < n {
            let end = (start + CHUNK).min(n);
            if arrow.is_none() {
                source.fill(start, end, key_fn.as_ref(), &mut keys)?;
            }
            py.detach(|| {
                if let Some(column) = arrow {
                    column.fill(start, end, &mut keys);
                }
                each(&mut keys, start);
            });
            start = end;
        }
        Ok(())
    }

    /// Observes every key of `keys` in order; the flags (1: a duplicate)
    /// when `answers`, else nothing kept.
    fn observe_all(
        &self,
        py: Python<'_>,
        keys: &Bound<'_, PyAny>,
        at: Option<&Bound<'_, PyAny>>,
        answers: bool,
    ) -> PyResult<Vec<u8>> {
        let source = Source::new(keys, self.key.is_some())?;
        let n = source.len()?;
        let times = {
            let inner = self.lock(py);
            Dedup::times(&inner, at, n)?
        };
        let mut out: Vec<u8> = Vec::with_capacity(if answers { n } else { 0 });
        self.chunks(py, &source, |keys, start| {
            let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
            std::mem::swap(&mut inner.keys, keys);
            observe_chunk(&mut inner, &times, start, &mut out);
            std::mem::swap(&mut inner.keys, keys);
            if !answers {
                out.clear();
            }
        })?;
        let warning = self
            .timed
            .then(|| self.lock(py).capacity_warning())
            .flatten();
        warn_capacity(py, warning)?;
        Ok(out)
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
        ..
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
    #[new]
    #[pyo3(signature = (window=None, *, within=None, rate=None, capacity=None, fpr=None,
        exact=false, max_memory=None, misses_ok=false, family=None, slack=None, distinct=None,
        seed=None, key=None))]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        py: Python<'_>,
        window: Option<&Bound<'_, PyAny>>,
        within: Option<&Bound<'_, PyAny>>,
        rate: Option<&Bound<'_, PyAny>>,
        capacity: Option<&Bound<'_, PyAny>>,
        fpr: Option<&Bound<'_, PyAny>>,
        exact: bool,
        max_memory: Option<&Bound<'_, PyAny>>,
        misses_ok: bool,
        family: Option<&Bound<'_, PyAny>>,
        slack: Option<&Bound<'_, PyAny>>,
        distinct: Option<&Bound<'_, PyAny>>,
        seed: Option<&Bound<'_, PyAny>>,
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
            return Err(errors::param_type(format!(
                "key= must be a callable (a function of one key), not {}",
                type_name(k.bind(py))
            )));
        }
        let seed = seed.map(planning::seed).transpose()?;
        let choice = planning::choose(&keywords)?;
        if let Some(total) = machine_memory(py)
            && choice.memory_bits / 8 > total
        {
            errors::warn(
                py,
                Kind::Memory,
                &format!(
                    "the {} filter planned for these arguments needs {} of memory, more than \
                     this machine's {}: it may fail or swap once it fills; lower window= or \
                     raise fpr=",
                    choice.family,
                    human_bytes(choice.memory_bits / 8),
                    human_bytes(total)
                ),
            )?;
        }
        let filter = choice.build().map_err(|e| {
            errors::error(
                Kind::Plan,
                format!("cannot build the {} filter: {e}", choice.family),
            )
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

    /// Whether ``key`` was seen within the window (``True``: a duplicate);
    /// then remembers it.
    ///
    /// Args:
    ///     key: str, bytes-like or int (hashed as ``str(n)``).
    ///     at: the time of a time window (seconds since the Unix epoch, a
    ///         datetime, ``pandas.Timestamp`` or ``numpy.datetime64``);
    ///         default ``time.time()``.
    ///
    /// Warns:
    ///     ddf.CapacityWarning: the first time a time window closes a
    ///         generation early.
    #[pyo3(signature = (key, /, *, at=None))]
    fn observe(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        at: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let mapped;
        let (key, place): (_, &dyn Fn() -> String) = match &self.key {
            Some(f) => {
                mapped = f.bind(py).call1((key,))?;
                (&mapped, &|| "key(key)".to_string())
            }
            None => (key, &|| "key".to_string()),
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
        let (dup, warning) = {
            let mut inner = self.lock(py);
            let verdict = match now {
                Some(now) => {
                    inner.tick(now);
                    let seen = &mut inner.seen;
                    with_key(key, place, |b| seen.observe_at(b, now))?
                }
                None => {
                    let seen = &mut inner.seen;
                    with_key(key, place, |b| seen.observe(b))?
                }
            };
            let dup = verdict.is_duplicate();
            inner.duplicates += u64::from(dup);
            inner.meta.records_seen = inner.meta.records_seen.saturating_add(1);
            let warning = now.and_then(|_| inner.capacity_warning());
            (dup, warning)
        };
        warn_capacity(py, warning)?;
        Ok(dup)
    }

    /// Remembers ``key``, as ``observe`` does, without an answer (the
    /// ``set.add`` of the set-like API).
    #[pyo3(signature = (key, /, *, at=None))]
    fn add(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        at: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.observe(py, key, at).map(|_| ())
    }

    /// Whether ``key`` is reported as seen, without remembering it.
    ///
    /// Args:
    ///     key: as for ``observe``.
    ///     at: the time a time window answers at (default: the latest time
    ///         observed).
    #[pyo3(signature = (key, /, *, at=None))]
    fn contains(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        at: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let key = self.map(key)?;
        let place = || "key".to_string();
        let inner = self.lock(py);
        if inner.timed() {
            let now = match at {
                Some(t) => time_ms("at", t)?,
                None => inner.meta.clock_ms.unwrap_or(0),
            };
            with_key(&key, &place, |b| inner.seen.contains_at(b, now))
        } else {
            no_clock(at.is_some())?;
            with_key(&key, &place, |b| inner.seen.contains(b))
        }
    }

    fn __contains__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.contains(py, key, None)
    }

    /// ``observe`` for every key in order, through the prefetching batch
    /// path with the GIL released; a numpy bool array, ``True`` for each
    /// duplicate.
    ///
    /// Args:
    ///     keys: a list or iterable of keys; a numpy array of integers,
    ///         ``S`` bytes, ``U`` str or objects; or an Arrow column
    ///         (pyarrow ``Array``/``ChunkedArray``, a pandas or polars
    ///         Series) of strings, binary or integers, read in place.
    ///     at: one time for every key, or one per key (a sequence, a numpy
    ///         array of seconds or datetime64, a pandas or polars datetime
    ///         column); time windows only.
    ///
    /// Raises:
    ///     ddf.ParamError: an element that is no key names its index
    ///         (``keys[3]``); ``None``, NaN, ``pandas.NA`` and nulls are a
    ///         "missing value".
    #[pyo3(signature = (keys, /, *, at=None))]
    fn observe_many<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'py, PyAny>,
        at: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let out = self.observe_all(py, keys, at, true)?;
        bool_array(py, &out)
    }

    /// Remembers every key, as ``observe_many`` does, without the answers
    /// (the ``set.update`` of the set-like API).
    #[pyo3(signature = (keys, /, *, at=None))]
    fn update(
        &self,
        py: Python<'_>,
        keys: &Bound<'_, PyAny>,
        at: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.observe_all(py, keys, at, false).map(|_| ())
    }

    /// ``key in self`` for every key, without remembering any; a numpy bool
    /// array.
    ///
    /// Args:
    ///     keys: as for ``observe_many``.
    ///     at: one time, or one per key; default the latest time observed.
    #[pyo3(signature = (keys, /, *, at=None))]
    fn contains_many<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'py, PyAny>,
        at: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let source = Source::new(keys, self.key.is_some())?;
        let n = source.len()?;
        let times = {
            let inner = self.lock(py);
            match Dedup::times(&inner, at, n)? {
                // The default is the latest time observed, not now.
                Times::One(_) if at.is_none() => Times::One(inner.meta.clock_ms.unwrap_or(0)),
                t => t,
            }
        };
        let mut out: Vec<u8> = Vec::with_capacity(n);
        self.chunks(py, &source, |keys, start| {
            let inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
            keys.format_ints();
            let digests: Vec<Digest> = keys.iter().map(|k| inner.seen.digest(k)).collect();
            let mut answers = Vec::with_capacity(digests.len());
            let f = inner.seen.filter();
            match &times {
                Times::None => f.contains_batch(&digests, &mut answers),
                Times::One(t) => f.contains_batch_at(&digests, *t, &mut answers),
                Times::Each(ms) => answers.extend(
                    digests
                        .iter()
                        .zip(&ms[start..])
                        .map(|(&d, &t)| f.contains_at(d, t)),
                ),
            }
            out.extend(answers.iter().map(|&a| u8::from(a)));
        })?;
        bool_array(py, &out)
    }

    /// Merges ``other`` (a ``Dedup`` over another share of the stream, with
    /// the same window, parameters and hash key) into this one, which then
    /// answers for both.
    ///
    /// Raises:
    ///     ddf.StateError: the two cannot merge (a count window, another
    ///         family, parameter, hash key or clock grid); the message names
    ///         the difference and nothing changes.
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
            .map_err(|e| errors::state(format!("cannot merge: {e}")))?;
        inner.meta.merge(&meta);
        inner.duplicates = inner.duplicates.saturating_add(duplicates);
        Ok(())
    }

    /// ``a |= b``: ``a.merge(b)``.
    fn __ior__(&self, py: Python<'_>, other: &Bound<'_, Dedup>) -> PyResult<()> {
        self.merge(py, other)
    }

    /// Forgets every key and resets the counters (``len``, ``stats()``'s
    /// observed, duplicates, clock, clock regressions and generations
    /// closed early); the hash key stays.
    fn clear(&self, py: Python<'_>) {
        let mut inner = self.lock(py);
        inner.seen.filter_mut().clear();
        inner.meta.clock_ms = None;
        inner.meta.records_seen = 0;
        inner.duplicates = 0;
        inner.early_base = inner.seen.filter().generations_closed_early();
        inner.early_warned = false;
    }

    /// Keys observed (``stats()["observed"]``), duplicates included.
    fn __len__(&self, py: Python<'_>) -> usize {
        usize::try_from(self.lock(py).meta.records_seen).unwrap_or(usize::MAX)
    }

    /// An independent copy: the same filter state, hash key, counters and
    /// ``key`` function.
    fn copy(&self, py: Python<'_>) -> PyResult<Dedup> {
        let (bytes, duplicates, base, warned) = {
            let inner = self.lock(py);
            (
                inner.to_bytes(),
                inner.duplicates,
                inner.early_base,
                inner.early_warned,
            )
        };
        let key = self.key.as_ref().map(|k| k.clone_ref(py));
        let copy = Dedup::decode(&bytes, key)?;
        {
            let mut inner = copy.lock(py);
            inner.duplicates = duplicates;
            inner.early_base = base;
            inner.early_warned = warned;
        }
        Ok(copy)
    }

    fn __copy__(&self, py: Python<'_>) -> PyResult<Dedup> {
        self.copy(py)
    }

    fn __deepcopy__(&self, py: Python<'_>, _memo: &Bound<'_, PyAny>) -> PyResult<Dedup> {
        self.copy(py)
    }

    /// Equal states: the same filter contents, hash key, window and counters
    /// of the state file (``to_bytes()`` equal).
    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, Dedup>) -> bool {
        if std::ptr::eq(self, other.get()) {
            return true;
        }
        let mine = self.lock(py).to_bytes();
        let theirs = other.get().lock(py).to_bytes();
        mine == theirs
    }

    /// The family name (``"exact"``, ``"shf"``, ``"apbf"``, …).
    #[getter]
    fn family(&self, py: Python<'_>) -> &'static str {
        state::family(self.lock(py).seen.filter())
    }

    /// The family's parameters, as text.
    #[getter]
    fn config(&self, py: Python<'_>) -> String {
        self.lock(py).meta.config.clone()
    }

    /// The window: keys (int), seconds (float), or ``None`` for the whole stream.
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

    /// Whether the window is a span of time (``at=`` applies).
    #[getter]
    fn is_timed(&self, py: Python<'_>) -> bool {
        self.lock(py).timed()
    }

    /// Counters and parameters, as a dict: family, config, window, slack,
    /// memory_bits, memory_bytes, predicted_fpr, predicted_fnr, observed,
    /// duplicates, clock, clock_regressions, generations_closed_early.
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

    /// The state as bytes: the ``.ddf`` state file format of ``ddf dedup
    /// --state`` (it holds the hash key: keep it as secret as the data).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let bytes = self.lock(py).to_bytes();
        PyBytes::new(py, &bytes)
    }

    /// Restores ``to_bytes`` output or a state file's contents.
    ///
    /// Args:
    ///     data: any bytes-like object (``bytes``, ``bytearray``,
    ///         ``memoryview``, ``mmap``).
    ///     key: the ``key`` function (functions are not saved).
    ///
    /// Raises:
    ///     ddf.StateError: corrupt or foreign bytes (a ``ValueError``).
    #[staticmethod]
    #[pyo3(signature = (data, /, *, key=None))]
    fn from_bytes(data: &Bound<'_, PyAny>, key: Option<Py<PyAny>>) -> PyResult<Dedup> {
        Dedup::decode(bytes_of(data)?.as_bytes(), key)
    }

    /// A ``Dedup`` from a state file (``save`` or ``ddf dedup --state``);
    /// the same as ``ddf.load``.
    #[staticmethod]
    #[pyo3(signature = (path, /, *, key=None))]
    fn load(py: Python<'_>, path: PathBuf, key: Option<Py<PyAny>>) -> PyResult<Dedup> {
        load(py, path, key)
    }

    /// Writes the state file atomically (a temporary file of mode 0600,
    /// synced, renamed over ``path``).
    #[pyo3(signature = (path, /))]
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let inner = self.lock(py);
        let (seen, meta) = (&inner.seen, &inner.meta);
        py.detach(|| state::write_file(&path, seen.filter(), seen.hasher(), meta))
            .map_err(|e| PyOSError::new_err(format!("cannot save {}: {e}", path.display())))
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

/// A ``Dedup`` from a state file (``Dedup.save`` or ``ddf dedup --state``).
///
/// Args:
///     path: the file.
///     key: the ``key`` function (functions are not saved).
///
/// Raises:
///     FileNotFoundError: no file at ``path``.
///     ddf.StateError: a corrupt or foreign file, or a path that cannot be
///         a state file (a device, a pipe, a directory), refused without
///         reading more than the file's header declares.
#[pyfunction]
#[pyo3(signature = (path, /, *, key=None))]
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
        Err(e) => return Err(errors::state(e.to_string())),
    };
    Dedup::decode(&bytes, key)
        .map_err(|e| errors::state(format!("state file {}: {}", path.display(), e.value(py))))
}

/// A ``Dedup`` from ``Dedup.to_bytes`` output (any bytes-like object).
///
/// Raises:
///     ddf.StateError: corrupt or foreign bytes.
#[pyfunction]
#[pyo3(signature = (data, /, *, key=None))]
pub(crate) fn from_bytes(data: &Bound<'_, PyAny>, key: Option<Py<PyAny>>) -> PyResult<Dedup> {
    Dedup::from_bytes(data, key)
}

/// The pickle constructor.
#[pyfunction]
pub(crate) fn _restore(data: &[u8], key: Option<Py<PyAny>>) -> PyResult<Dedup> {
    Dedup::decode(data, key)
}
