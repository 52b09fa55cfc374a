//! From the keyword arguments of `ddf.Dedup` and `ddf.plan` to the
//! library's [`ddf::Request`] (Python's types and units only: the library
//! checks, chooses and refuses, in these keywords' words), and
//! `ddf.plan`'s `Plan` and `Candidate`.

use crate::errors::{self, Kind};
use crate::units::{duration_ms, size_bytes, type_name};
use ddf::request::{Reason, Slack, Vocabulary, family_named};
use ddf::{Choice, Request, Window};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyIterator, PyList, PyString};
use std::fmt::Write as _;

/// How the Python package spells each field of a request.
pub(crate) const VOCABULARY: Vocabulary = Vocabulary {
    arguments: "arguments",
    window: "window=",
    within: "within=",
    rate: "rate=",
    capacity: "capacity=",
    fpr: "fpr=",
    max_memory: "max_memory=",
    misses_ok: "misses_ok=True",
    distinct: "distinct=",
    slack: "slack=",
    family: "family=",
    exact: "exact=True",
};

/// The keyword arguments of `ddf.Dedup` and `ddf.plan`, as Python gives them.
#[derive(Debug, Default)]
pub(crate) struct Keywords<'a, 'py> {
    pub(crate) window: Option<&'a Bound<'py, PyAny>>,
    pub(crate) within: Option<&'a Bound<'py, PyAny>>,
    pub(crate) rate: Option<&'a Bound<'py, PyAny>>,
    pub(crate) capacity: Option<&'a Bound<'py, PyAny>>,
    pub(crate) fpr: Option<&'a Bound<'py, PyAny>>,
    pub(crate) exact: bool,
    pub(crate) max_memory: Option<&'a Bound<'py, PyAny>>,
    pub(crate) misses_ok: bool,
    pub(crate) family: Option<&'a Bound<'py, PyAny>>,
    pub(crate) slack: Option<&'a Bound<'py, PyAny>>,
    pub(crate) distinct: Option<&'a Bound<'py, PyAny>>,
}

/// A count given as a Python int, and how it reaches the library: in
/// `u64`, or saturated (with the text the user gave, for messages).
struct Count {
    value: u64,
    given: Option<String>,
}

/// A count keyword (`window=`, `capacity=`, `slack=`): any Python integer
/// (numpy's too), never a bool or a float; out of `u64` it is saturated
/// and the library's range check refuses it.
fn count(param: &str, v: &Bound<'_, PyAny>, what: &str) -> PyResult<Count> {
    let n: i128 = if v.is_instance_of::<PyBool>() {
        None
    } else {
        integer(v)
    }
    .ok_or_else(|| {
        errors::param_type(format!(
            "{param}= must be an int ({what}), not {}",
            type_name(v)
        ))
    })?;
    Ok(match u64::try_from(n) {
        Ok(value) => Count { value, given: None },
        Err(_) => Count {
            value: if n < 0 { 0 } else { u64::MAX },
            given: Some(v.str()?.to_string()),
        },
    })
}

/// `v` as an integer, if it is one (an int of any size, clamped to `i128`,
/// or an object with `__index__`).
fn integer(v: &Bound<'_, PyAny>) -> Option<i128> {
    let n = if v.is_instance_of::<PyInt>() {
        v.clone()
    } else {
        v.call_method0("__index__").ok()?
    };
    n.extract::<i128>().ok().or_else(|| {
        // Beyond i128: only its sign matters.
        Some(if n.lt(0).ok()? { i128::MIN } else { i128::MAX })
    })
}

/// A number keyword (`rate=`, `fpr=`, `distinct=`): an int or a float
/// (numpy's too), never a bool; its range is the library's to check.
pub(crate) fn number(param: &str, v: &Bound<'_, PyAny>) -> PyResult<f64> {
    let numeric = !v.is_instance_of::<PyBool>()
        && !v.is_instance_of::<PyString>()
        && (v.is_instance_of::<PyInt>() || v.hasattr("__float__")?);
    if !numeric {
        return Err(errors::param_type(format!(
            "{param}= must be a number, not {}",
            type_name(v)
        )));
    }
    // An int too large for a float is infinite: out of every range.
    Ok(v.extract::<f64>().unwrap_or(f64::INFINITY))
}

/// `seed=`: the seed the hash key is derived from, any `u64`.
pub(crate) fn seed(v: &Bound<'_, PyAny>) -> PyResult<u64> {
    let c = count("seed", v, "the seed of the hash key")?;
    match c.given {
        None => Ok(c.value),
        Some(given) => Err(errors::param(format!(
            "seed= must be an int from 0 to 2^64 - 1, not {given}"
        ))),
    }
}

impl Keywords<'_, '_> {
    /// The request: each keyword read from its Python type into the
    /// library's units (a bad type is a `ParamTypeError` naming the
    /// keyword), and the text of a count given beyond `u64`.
    fn read(&self) -> PyResult<(Request, Option<String>)> {
        let window = self
            .window
            .map(|w| count("window", w, "a count of keys"))
            .transpose()?;
        let within_ms = self.within.map(|t| duration_ms("within", t)).transpose()?;
        let capacity = self
            .capacity
            .map(|c| count("capacity", c, "keys per time window"))
            .transpose()?;
        let slack = match (self.slack, &window, within_ms) {
            (None, ..) => None,
            (Some(s), Some(_), _) => {
                let c = count("slack", s, "a count of keys beyond the window")?;
                if let Some(given) = c.given {
                    return Err(errors::param(format!(
                        "slack= must be a count of keys ≥ 0 with window=, not {given}"
                    )));
                }
                Some(Slack::Units(c.value))
            }
            (Some(s), None, Some(_)) => Some(Slack::Units(duration_ms("slack", s)?)),
            // The library says what slack needs.
            (Some(s), None, None) => Some(Slack::Text(s.str()?.to_string())),
        };
        let family = self
            .family
            .map(|f| {
                f.cast::<PyString>()
                    .map_err(|_| {
                        errors::param_type(format!(
                            "family= must be a str (one of ddf.FAMILIES), not {}",
                            type_name(f)
                        ))
                    })
                    .and_then(|s| Ok(s.to_str()?.to_string()))
            })
            .transpose()?;
        let request = Request {
            window: window.as_ref().map(|c| c.value),
            within_ms,
            rate: self.rate.map(|r| number("rate", r)).transpose()?,
            capacity: capacity.map(|c| c.value),
            fpr: self.fpr.map(|p| number("fpr", p)).transpose()?,
            max_memory: self
                .max_memory
                .map(|m| size_bytes("max_memory", m))
                .transpose()?,
            misses_ok: self.misses_ok,
            distinct: self.distinct.map(|d| number("distinct", d)).transpose()?,
            slack,
            family: family
                .as_deref()
                .map(|f| family_named(f, &VOCABULARY))
                .transpose()
                .map_err(|e| refused(e, None))?,
            exact: self.exact,
        };
        Ok((request, window.and_then(|c| c.given)))
    }

    /// The request (for the state file's record of it).
    pub(crate) fn request(&self) -> PyResult<Request> {
        self.read().map(|(r, _)| r)
    }
}

/// A refusal of the library as a `ddf` exception: a `ParamError` for a
/// value out of range or two that conflict, a `PlanError` when no filter
/// meets the arguments together. `window` is the text of a window given
/// beyond `u64`, which the library saw saturated: its message shows it.
pub(crate) fn refused(e: ddf::Refusal, window: Option<&str>) -> PyErr {
    let mut message = e.message().to_string();
    if let Some(given) = window {
        for saturated in ["not 0", &format!("not {}", u64::MAX)] {
            if message.ends_with(saturated) {
                message.truncate(message.len() - saturated.len());
                message.push_str(&format!("not {given}"));
            }
        }
    }
    let kind = match e.reason {
        Reason::Invalid | Reason::Conflict | Reason::ExactTakesOnlyAWindow => Kind::Param,
        _ => Kind::Plan,
    };
    errors::error(kind, message)
}

/// Every candidate for the keywords, best first (one, the exact filter,
/// when they ask for it).
pub(crate) fn candidates(k: &Keywords<'_, '_>) -> PyResult<Vec<Choice>> {
    let (request, window) = k.read()?;
    request
        .candidates(&VOCABULARY)
        .map_err(|e| refused(e, window.as_deref()))
}

/// The one filter the keywords ask for.
pub(crate) fn choose(k: &Keywords<'_, '_>) -> PyResult<Choice> {
    let (request, window) = k.read()?;
    request
        .choose(&VOCABULARY)
        .map_err(|e| refused(e, window.as_deref()))
}

/// A window in Python's units: keys (int), seconds (float) or `None`.
pub(crate) fn window_py(py: Python<'_>, w: Window) -> PyResult<Py<PyAny>> {
    Ok(match w {
        Window::Count(n) => n.into_pyobject(py)?.into_any().unbind(),
        Window::Time(ms) => (ms as f64 / 1000.0).into_pyobject(py)?.into_any().unbind(),
        Window::Unbounded => py.None(),
    })
}

/// The slack in the window's Python unit.
pub(crate) fn slack_py(py: Python<'_>, w: Window, slack: u64) -> PyResult<Py<PyAny>> {
    window_py(
        py,
        match w {
            Window::Count(_) => Window::Count(slack),
            Window::Time(_) => Window::Time(slack),
            Window::Unbounded => Window::Unbounded,
        },
    )
}

/// One planned configuration, as `ddf.plan` lists it.
#[pyclass(module = "ddf", name = "Candidate", frozen)]
#[derive(Debug)]
pub(crate) struct PyCandidate {
    pub(crate) choice: Choice,
    pub(crate) rank: usize,
}

#[pymethods]
impl PyCandidate {
    /// The family name (`"shf"`, `"apbf"`, …), as `Dedup(family=...)` takes it.
    #[getter]
    fn family(&self) -> &'static str {
        self.choice.family
    }
    /// The family's parameters, as text.
    #[getter]
    fn config(&self) -> &str {
        &self.choice.config
    }
    /// State bits of the filter (the papers' count of cells × width).
    #[getter]
    fn memory_bits(&self) -> u64 {
        self.choice.memory_bits
    }
    /// State bytes, rounded up.
    #[getter]
    fn memory_bytes(&self) -> u64 {
        self.choice.memory_bits.div_ceil(8)
    }
    /// Predicted false-positive rate for keys older than window + slack.
    #[getter]
    fn fpr(&self) -> f64 {
        self.choice.fpr
    }
    /// Predicted false-negative rate (0 when no key in the window is missed).
    #[getter]
    fn fnr(&self) -> f64 {
        self.choice.fnr
    }
    /// Whether a key seen within the window can be missed.
    #[getter]
    fn false_negatives(&self) -> bool {
        self.choice.fnr > 0.0 || self.choice.false_negatives
    }
    /// How far beyond the window a key may still be reported: keys, or
    /// seconds for a time window.
    #[getter]
    fn slack(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        slack_py(py, self.choice.window, self.choice.slack)
    }
    /// The window: keys, seconds, or `None` for the whole stream.
    #[getter]
    fn window(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        window_py(py, self.choice.window)
    }
    /// Expected memory accesses of one observation of a new key.
    #[getter]
    fn accesses(&self) -> f64 {
        self.choice.accesses
    }
    fn __repr__(&self) -> String {
        format!(
            "Candidate(family={:?}, memory_bytes={}, fpr={:.3e}, fnr={:.3e}, config={:?})",
            self.choice.family,
            self.choice.memory_bits.div_ceil(8),
            self.choice.fpr,
            self.choice.fnr,
            self.choice.config
        )
    }
}

/// Bytes in binary units (`1.5 MiB`).
pub(crate) fn human_bytes(b: u64) -> String {
    bytesize::ByteSize(b).display().iec().to_string()
}

/// The ranked candidates of `ddf.plan`: a sequence of `Candidate`, best
/// first, that prints as a table.
#[pyclass(module = "ddf", name = "Plan", frozen, sequence)]
#[derive(Debug)]
pub(crate) struct Plan {
    pub(crate) candidates: Vec<Py<PyCandidate>>,
}

#[pymethods]
impl Plan {
    fn __len__(&self) -> usize {
        self.candidates.len()
    }
    fn __getitem__(&self, py: Python<'_>, i: isize) -> PyResult<Py<PyCandidate>> {
        let n = self.candidates.len() as isize;
        let j = if i < 0 { i + n } else { i };
        if !(0..n).contains(&j) {
            return Err(pyo3::exceptions::PyIndexError::new_err(format!(
                "plan index {i} out of range for {n} candidates"
            )));
        }
        Ok(self.candidates[j as usize].clone_ref(py))
    }
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyIterator>> {
        let all: Vec<Py<PyCandidate>> = self.candidates.iter().map(|c| c.clone_ref(py)).collect();
        PyList::new(py, all)?.try_iter()
    }
    /// The planner's first choice.
    #[getter]
    fn best(&self, py: Python<'_>) -> Py<PyCandidate> {
        self.candidates[0].clone_ref(py)
    }
    fn __str__(&self, py: Python<'_>) -> String {
        let mut out = String::from(
            "rank  family        memory      fpr        fnr        slack         config\n",
        );
        for c in &self.candidates {
            let c = c.bind(py).get();
            let slack = match c.choice.window {
                Window::Time(_) => format!("{} s", c.choice.slack as f64 / 1000.0),
                _ => c.choice.slack.to_string(),
            };
            let _ = writeln!(
                out,
                "{:<5} {:<13} {:<11} {:<10.3e} {:<10.3e} {:<13} {}",
                c.rank + 1,
                c.choice.family,
                human_bytes(c.choice.memory_bits.div_ceil(8)),
                c.choice.fpr,
                c.choice.fnr,
                slack,
                c.choice.config
            );
        }
        out
    }
    fn __repr__(&self, py: Python<'_>) -> String {
        self.__str__(py)
    }
}
