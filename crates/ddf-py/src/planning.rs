//! From the keyword arguments of `ddf.Dedup` and `ddf.plan` to the
//! planner's requirements, its ranked candidates and one filter.

use crate::units::{duration_ms, size_bytes};
use ddf::{Candidate, Filter, Requirements, Window, state};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::fmt::Write as _;

/// The false-positive rate asked for when none is given (and no
/// `max_memory` alone): the `ddf` command's default, so a state saved by
/// one resumes in the other with the same choice.
pub(crate) const DEFAULT_FPR: f64 = 1e-6;

/// The arrival rate (per second) a time window is sized for when none is
/// given: the `ddf` command's `--rate` default.
pub(crate) const DEFAULT_RATE: f64 = 1000.0;

/// The arguments, checked and in the `ddf` command's units.
#[derive(Debug, Clone)]
pub(crate) struct Args {
    pub(crate) window: Window,
    pub(crate) rate: Option<f64>,
    pub(crate) fpr: Option<f64>,
    pub(crate) exact: bool,
    pub(crate) max_memory: Option<u64>,
    pub(crate) misses_ok: bool,
    pub(crate) family: Option<String>,
    pub(crate) slack: Option<u64>,
    pub(crate) distinct: Option<f64>,
}

impl Args {
    /// Checks the Python arguments one by one, naming the bad one.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn parse(
        window: Option<&Bound<'_, PyAny>>,
        within: Option<&Bound<'_, PyAny>>,
        rate: Option<f64>,
        fpr: Option<f64>,
        exact: bool,
        max_memory: Option<&Bound<'_, PyAny>>,
        misses_ok: bool,
        family: Option<String>,
        slack: Option<&Bound<'_, PyAny>>,
        distinct: Option<f64>,
    ) -> PyResult<Args> {
        let bad = |msg: String| Err(PyValueError::new_err(msg));
        let window = match (window, within) {
            (Some(_), Some(_)) => {
                return bad(
                    "give window= (a count of keys) or within= (a duration), not both".into(),
                );
            }
            (Some(w), None) => {
                let n: i128 = w.extract().map_err(|_| {
                    pyo3::exceptions::PyTypeError::new_err(format!(
                        "window must be an int (a count of keys), not {}",
                        crate::units::type_name(w)
                    ))
                })?;
                // The planner checks the upper end (its largest window).
                if !(1..=i128::from(u64::MAX)).contains(&n) {
                    return bad(format!("window must be a count of keys ≥ 1, not {n}"));
                }
                Window::Count(n as u64)
            }
            (None, Some(t)) => Window::Time(duration_ms("within", t)?),
            (None, None) => Window::Unbounded,
        };
        if let Some(r) = rate {
            if !(r.is_finite() && r > 0.0) {
                return bad(format!(
                    "rate must be a positive number of keys per second, not {r}"
                ));
            }
            if !matches!(window, Window::Time(_)) {
                return bad("rate= sizes a time window: give within= too".into());
            }
        }
        if let Some(p) = fpr
            && !(p > 0.0 && p < 1.0)
        {
            return bad(format!("fpr must be in (0, 1), not {p}"));
        }
        if let Some(n) = distinct
            && !(n.is_finite() && n >= 1.0)
        {
            return bad(format!("distinct must be a number of keys ≥ 1, not {n}"));
        }
        let max_memory = max_memory
            .map(|m| size_bytes("max_memory", m))
            .transpose()?;
        if let Some(f) = &family
            && !state::FAMILIES.contains(&f.as_str())
        {
            return bad(format!(
                "family={f:?} is not one of {}",
                state::FAMILIES.join(", ")
            ));
        }
        if exact && (family.is_some() || misses_ok || max_memory.is_some() || fpr.is_some()) {
            return bad(
                "exact=True keeps every key of the window: it takes no family, misses_ok, \
                 max_memory or fpr"
                    .into(),
            );
        }
        let slack = match (slack, window) {
            (None, _) => None,
            (Some(s), Window::Count(_)) => Some(s.extract::<u64>().map_err(|_| {
                PyValueError::new_err(format!(
                    "slack must be a count of keys ≥ 0 with window=, not {s}"
                ))
            })?),
            (Some(s), Window::Time(_)) => Some(duration_ms("slack", s)?),
            (Some(_), Window::Unbounded) => {
                return bad("slack needs window= or within=".into());
            }
        };
        Ok(Args {
            window,
            rate,
            fpr,
            exact,
            max_memory,
            misses_ok,
            family,
            slack,
            distinct,
        })
    }

    /// The planner's requirements, or `None` for the exact filter (asked
    /// for, or the whole stream with nothing to bound it).
    pub(crate) fn requirements(&self) -> PyResult<Option<Requirements>> {
        if self.exact {
            return Ok(None);
        }
        let mut req = match self.window {
            Window::Count(n) => Requirements::count(n),
            // Milliseconds, like the `ddf` command: arrivals per ms.
            Window::Time(ms) => Requirements::time(ms, self.rate.unwrap_or(DEFAULT_RATE) / 1000.0),
            Window::Unbounded => {
                if self.family.is_none()
                    && self.max_memory.is_none()
                    && !self.misses_ok
                    && self.distinct.is_none()
                {
                    return Ok(None);
                }
                Requirements::unbounded()
            }
        };
        match (self.fpr, self.max_memory) {
            (Some(p), _) => req = req.fpr(p),
            (None, None) => req = req.fpr(DEFAULT_FPR),
            (None, Some(_)) => {}
        }
        if let Some(bytes) = self.max_memory {
            req = req.memory_budget(bytes.saturating_mul(8));
        }
        if let Some(n) = self.distinct {
            req = req.distinct_items(n);
        }
        if let Some(s) = self.slack {
            req = req.max_slack(s);
        }
        Ok(Some(req.allow_false_negatives(self.misses_ok)))
    }
}

/// The planner's answer as a Python `ValueError`, its reasons included.
fn plan_error(e: &ddf::PlanError) -> PyErr {
    PyValueError::new_err(format!(
        "the planner has no filter for these arguments: {e}"
    ))
}

/// One filter chosen: what to build and what it predicts.
#[derive(Debug, Clone)]
pub(crate) struct Choice {
    pub(crate) family: &'static str,
    pub(crate) window: Window,
    pub(crate) config: String,
    pub(crate) fpr: f64,
    pub(crate) fnr: f64,
    pub(crate) memory_bits: u64,
    pub(crate) slack: u64,
    candidate: Option<Candidate>,
}

impl Choice {
    fn exact(w: Window) -> PyResult<Choice> {
        let bits = match w {
            Window::Count(n) => {
                ddf::ExactWindow::sizing(n)
                    .map_err(|e| PyValueError::new_err(e.to_string()))?
                    .memory_bits
            }
            _ => 0,
        };
        Ok(Choice {
            family: "exact",
            window: w,
            config: match w {
                Window::Unbounded => "exact set of 64-bit digests".into(),
                _ => "exact window of 64-bit digests".into(),
            },
            fpr: 0.0,
            fnr: 0.0,
            memory_bits: bits,
            slack: 0,
            candidate: None,
        })
    }

    fn planned(w: Window, c: &Candidate) -> Choice {
        Choice {
            family: state::candidate_family(c),
            window: w,
            config: format!("{:?}", c.config),
            fpr: c.fpr,
            fnr: c.fnr,
            memory_bits: c.memory_bits,
            slack: c.slack,
            candidate: Some(c.clone()),
        }
    }

    /// Builds the filter: the candidate, or the exact filter for the window
    /// (uncapped over a time span, so its memory follows the arrivals).
    pub(crate) fn build(&self) -> PyResult<Filter> {
        let err = |e: ddf::ParamError| {
            PyValueError::new_err(format!("cannot build {}: {e}", self.family))
        };
        match &self.candidate {
            Some(c) => Filter::try_from(c).map_err(err),
            None => Ok(Filter::from(
                match self.window {
                    Window::Count(w) => ddf::ExactWindow::new(w),
                    Window::Time(t) => ddf::ExactWindow::with_time_span(t, u64::MAX),
                    Window::Unbounded => Ok(ddf::ExactWindow::unbounded()),
                }
                .map_err(err)?,
            )),
        }
    }
}

/// Every candidate for `args`, best first (one, the exact filter, when
/// the arguments ask for it).
pub(crate) fn candidates(args: &Args) -> PyResult<Vec<Choice>> {
    match args.requirements()? {
        None => Ok(vec![Choice::exact(args.window)?]),
        Some(req) => {
            let all = ddf::plan(&req).map_err(|e| plan_error(&e))?;
            Ok(all
                .iter()
                .map(|c| Choice::planned(args.window, c))
                .collect())
        }
    }
}

/// The one filter `args` ask for: the planner's first, or the named family.
pub(crate) fn choose(args: &Args) -> PyResult<Choice> {
    let all = candidates(args)?;
    match &args.family {
        None => Ok(all
            .into_iter()
            .next()
            .expect("the planner never returns Ok(empty)")),
        Some(name) => {
            let names: Vec<&str> = all.iter().map(|c| c.family).collect();
            all.iter()
                .find(|c| c.family == name)
                .cloned()
                .ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "family={name:?} does not meet these arguments; the families that do: {}",
                        names.join(", ")
                    ))
                })
        }
    }
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
        self.choice.fnr > 0.0
            || self
                .choice
                .candidate
                .as_ref()
                .is_some_and(|c| c.false_negatives)
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
        self.choice.candidate.as_ref().map_or(1.0, |c| c.accesses)
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
