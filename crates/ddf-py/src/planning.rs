//! From the keyword arguments of `ddf.Dedup` and `ddf.plan` to the
//! library's [`ddf::Request`] (Python's types and units only: the library
//! checks, chooses and refuses, in these keywords' words), and
//! `ddf.plan`'s `Plan` and `Candidate`.

use crate::units::{duration_ms, size_bytes};
use ddf::request::{Slack, Vocabulary, family_named};
use ddf::{Choice, Request, Window};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
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
    pub(crate) rate: Option<f64>,
    pub(crate) capacity: Option<u64>,
    pub(crate) fpr: Option<f64>,
    pub(crate) exact: bool,
    pub(crate) max_memory: Option<&'a Bound<'py, PyAny>>,
    pub(crate) misses_ok: bool,
    pub(crate) family: Option<String>,
    pub(crate) slack: Option<&'a Bound<'py, PyAny>>,
    pub(crate) distinct: Option<f64>,
}

impl Keywords<'_, '_> {
    /// The request: each keyword read from its Python type into the
    /// library's units (a bad type is a `TypeError` naming the keyword).
    pub(crate) fn request(&self) -> PyResult<Request> {
        let window = self
            .window
            .map(|w| {
                let n: i128 = w.extract().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "window must be an int (a count of keys), not {}",
                        crate::units::type_name(w)
                    ))
                })?;
                // Out of u64: the library refuses it by its range.
                Ok::<u64, PyErr>(u64::try_from(n).unwrap_or(0))
            })
            .transpose()?;
        let within_ms = self.within.map(|t| duration_ms("within", t)).transpose()?;
        let slack = match (self.slack, window, within_ms) {
            (None, ..) => None,
            (Some(s), Some(_), _) => Some(Slack::Units(s.extract::<u64>().map_err(|_| {
                PyValueError::new_err(format!(
                    "slack must be a count of keys ≥ 0 with window=, not {s}"
                ))
            })?)),
            (Some(s), None, Some(_)) => Some(Slack::Units(duration_ms("slack", s)?)),
            // The library says what slack needs.
            (Some(s), None, None) => Some(Slack::Text(s.to_string())),
        };
        Ok(Request {
            window,
            within_ms,
            rate: self.rate,
            capacity: self.capacity,
            fpr: self.fpr,
            max_memory: self
                .max_memory
                .map(|m| size_bytes("max_memory", m))
                .transpose()?,
            misses_ok: self.misses_ok,
            distinct: self.distinct,
            slack,
            family: self
                .family
                .as_deref()
                .map(|f| family_named(f, &VOCABULARY))
                .transpose()
                .map_err(refused)?,
            exact: self.exact,
        })
    }
}

/// A refusal of the library as a Python `ValueError`.
pub(crate) fn refused(e: ddf::Refusal) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Every candidate for the keywords, best first (one, the exact filter,
/// when they ask for it).
pub(crate) fn candidates(k: &Keywords<'_, '_>) -> PyResult<Vec<Choice>> {
    k.request()?.candidates(&VOCABULARY).map_err(refused)
}

/// The one filter the keywords ask for.
pub(crate) fn choose(k: &Keywords<'_, '_>) -> PyResult<Choice> {
    k.request()?.choose(&VOCABULARY).map_err(refused)
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
