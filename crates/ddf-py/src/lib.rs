//! The Python package `ddf` (PyO3 on the stable ABI, CPython 3.10+, built by maturin).
//!
//! Modules: `dedup` (the `Dedup` class and state files), `keys` (a key's
//! bytes: the same bytes the `ddf` command and the Redis module hash),
//! `arrow` (Arrow columns of keys through the C data interface, the one
//! module with `unsafe` code), `errors` (the `ddf.Error` classes of
//! `python/ddf/_errors.py`, raised from Rust),
//! `planning` (keyword arguments to the planner's requirements, `plan`),
//! `units` (durations, sizes, clocks). The package's types are in
//! `python/ddf/_ddf.pyi`; its front page follows.
#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(unsafe_code)]

mod arrow;
mod dedup;
mod errors;
mod keys;
mod planning;
mod units;

use pyo3::prelude::*;

/// The planner's ranked candidates for the arguments of ``Dedup``.
///
/// Args:
///     window, within, rate, capacity, fpr, exact, max_memory, misses_ok,
///     slack, distinct: as for ``Dedup``.
///
/// Returns:
///     A ``Plan``: the candidates best first; ``print(plan)`` shows a table.
///
/// Raises:
///     ddf.ParamError: an argument out of range (names it).
///     ddf.PlanError: no filter meets the arguments (the planner's reasons).
#[pyfunction]
#[pyo3(signature = (window=None, *, within=None, rate=None, capacity=None, fpr=None,
    exact=false, max_memory=None, misses_ok=false, slack=None, distinct=None))]
#[allow(clippy::too_many_arguments)]
fn plan(
    py: Python<'_>,
    window: Option<&Bound<'_, PyAny>>,
    within: Option<&Bound<'_, PyAny>>,
    rate: Option<&Bound<'_, PyAny>>,
    capacity: Option<&Bound<'_, PyAny>>,
    fpr: Option<&Bound<'_, PyAny>>,
    exact: bool,
    max_memory: Option<&Bound<'_, PyAny>>,
    misses_ok: bool,
    slack: Option<&Bound<'_, PyAny>>,
    distinct: Option<&Bound<'_, PyAny>>,
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
