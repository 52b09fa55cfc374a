//! The Python package `ddf` (PyO3 on the stable ABI, CPython 3.10+, built by maturin).
//!
//! Modules: `dedup` (the `Dedup` class and state files), `keys` (a key's
//! bytes: the same bytes the `ddf` command and the Redis module hash),
//! `planning` (keyword arguments to the planner's requirements, `plan`),
//! `units` (durations, sizes, clocks). The package's types are in
//! `python/ddf/_ddf.pyi`; its front page follows.
#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

mod dedup;
mod keys;
mod planning;
mod units;

use pyo3::prelude::*;

/// The planner's ranked candidates for the same arguments as `Dedup`.
#[pyfunction]
#[pyo3(signature = (window=None, *, within=None, rate=None, capacity=None, fpr=None,
    exact=false, max_memory=None, misses_ok=false, slack=None, distinct=None))]
#[allow(clippy::too_many_arguments)]
fn plan(
    py: Python<'_>,
    window: Option<&Bound<'_, PyAny>>,
    within: Option<&Bound<'_, PyAny>>,
    rate: Option<f64>,
    capacity: Option<u64>,
    fpr: Option<f64>,
    exact: bool,
    max_memory: Option<&Bound<'_, PyAny>>,
    misses_ok: bool,
    slack: Option<&Bound<'_, PyAny>>,
    distinct: Option<f64>,
) -> PyResult<planning::Plan> {
    let keywords = planning::Keywords {
        window,
        within,
        rate,
        capacity,
        fpr,
        exact,
        max_memory,
        misses_ok,
        family: None,
        slack,
        distinct,
    };
    let candidates = planning::candidates(&keywords)?
        .into_iter()
        .enumerate()
        .map(|(rank, choice)| Py::new(py, planning::PyCandidate { choice, rank }))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(planning::Plan { candidates })
}

/// The extension module `ddf._ddf`, re-exported by the package `ddf`.
#[pymodule]
#[pyo3(name = "_ddf")]
fn ddf_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<dedup::Dedup>()?;
    m.add_class::<planning::Plan>()?;
    m.add_class::<planning::PyCandidate>()?;
    m.add_function(wrap_pyfunction!(plan, m)?)?;
    m.add_function(wrap_pyfunction!(dedup::load, m)?)?;
    m.add_function(wrap_pyfunction!(dedup::from_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(dedup::_restore, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("FAMILIES", ddf::state::FAMILIES.to_vec())?;
    Ok(())
}
