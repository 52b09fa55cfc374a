//! The package's exceptions, raised from Rust: the classes are defined in
//! `python/ddf/_errors.py` (`ddf.Error` and its subclasses, each also a
//! built-in `ValueError` or `TypeError`), looked up once.

use pyo3::exceptions::{PyRuntimeWarning, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;
use std::ffi::CString;

/// Which class of `ddf._errors` an error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `ParamError`: a value out of range (also a `ValueError`).
    Param,
    /// `ParamTypeError`: a value of the wrong type (also a `TypeError`).
    ParamType,
    /// `PlanError`: no filter meets the arguments together.
    Plan,
    /// `StateError`: bytes or a file that are not a usable state.
    State,
    /// `CapacityWarning`.
    Capacity,
    /// `MemoryWarning`.
    Memory,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Param => "ParamError",
            Kind::ParamType => "ParamTypeError",
            Kind::Plan => "PlanError",
            Kind::State => "StateError",
            Kind::Capacity => "CapacityWarning",
            Kind::Memory => "MemoryWarning",
        }
    }
}

/// The module `ddf._errors`, imported once.
static MODULE: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

/// The class of `kind`; the built-in it derives from if the module cannot
/// be imported (the extension loaded outside its package).
fn class(py: Python<'_>, kind: Kind) -> Bound<'_, PyType> {
    let found = MODULE
        .get_or_try_init(py, || py.import("ddf._errors").map(Bound::unbind))
        .and_then(|m| m.bind(py).getattr(kind.name()))
        .and_then(|c| c.cast_into::<PyType>().map_err(PyErr::from));
    match found {
        Ok(c) => c,
        Err(_) => match kind {
            Kind::ParamType => py.get_type::<PyTypeError>(),
            Kind::Capacity | Kind::Memory => py.get_type::<PyRuntimeWarning>(),
            _ => py.get_type::<PyValueError>(),
        },
    }
}

/// An exception of `kind` with `message`.
pub(crate) fn error(kind: Kind, message: impl Into<String>) -> PyErr {
    let message = message.into();
    Python::attach(|py| PyErr::from_type(class(py, kind), (message,)))
}

/// `ParamError(message)`.
pub(crate) fn param(message: impl Into<String>) -> PyErr {
    error(Kind::Param, message)
}

/// `ParamTypeError(message)`.
pub(crate) fn param_type(message: impl Into<String>) -> PyErr {
    error(Kind::ParamType, message)
}

/// `StateError(message)`.
pub(crate) fn state(message: impl Into<String>) -> PyErr {
    error(Kind::State, message)
}

/// Issues a warning of `kind` (a filter may turn it into an exception).
pub(crate) fn warn(py: Python<'_>, kind: Kind, message: &str) -> PyResult<()> {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    PyErr::warn(py, &class(py, kind), &text, 1)
}
