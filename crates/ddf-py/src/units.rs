//! Durations, sizes and times from Python values, in the `ddf` command's
//! units: windows and clocks in milliseconds, sizes in bytes.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyInt, PyString};
use std::time::{SystemTime, UNIX_EPOCH};

/// The largest time in seconds accepted: milliseconds still fit in a `u64`
/// and an `f64` still holds them to the millisecond (2^53 ms, year 287 396).
const MAX_SECONDS: f64 = 9_007_199_254_740.0;

/// Seconds (a float or int) as whole milliseconds, rounded to the nearest
/// (half away from zero), as the `ddf` command reads `--time-unit s`.
pub(crate) fn seconds_to_ms(param: &str, s: f64) -> PyResult<u64> {
    if !(s.is_finite() && (0.0..=MAX_SECONDS).contains(&s)) {
        return Err(PyValueError::new_err(format!(
            "{param} must be seconds since the Unix epoch in [0, {MAX_SECONDS:e}], not {s}"
        )));
    }
    // In range: the product is below 2^63, so the cast is exact after round.
    Ok((s * 1000.0).round() as u64)
}

/// The caller's clock now, in milliseconds since the Unix epoch (what
/// `time.time()` reads).
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// A duration: text such as `"1h"`, `"90s"`, `"1h 30m"` (the `ddf`
/// command's syntax), seconds as a number, or a `datetime.timedelta`; in
/// milliseconds, at least 1.
pub(crate) fn duration_ms(param: &str, v: &Bound<'_, PyAny>) -> PyResult<u64> {
    let ms = if let Ok(s) = v.cast::<PyString>() {
        let text = s.to_str()?;
        let d = humantime::parse_duration(text).map_err(|e| {
            PyValueError::new_err(format!(
                "{param}={text:?} is not a duration such as \"90s\", \"15min\" or \"1h 30m\": {e}"
            ))
        })?;
        u64::try_from(d.as_millis())
            .map_err(|_| PyValueError::new_err(format!("{param}={text:?} is too long")))?
    } else if v.is_instance_of::<PyInt>() || v.is_instance_of::<PyFloat>() {
        let s: f64 = v.extract()?;
        seconds_to_ms(param, s)?
    } else if v.hasattr("total_seconds")? {
        let s: f64 = v.call_method0("total_seconds")?.extract()?;
        seconds_to_ms(param, s)?
    } else {
        return Err(PyTypeError::new_err(format!(
            "{param} must be a duration (str such as \"1h\", seconds, or datetime.timedelta), not {}",
            type_name(v)
        )));
    };
    if ms == 0 {
        return Err(PyValueError::new_err(format!(
            "{param} must be at least 1 ms"
        )));
    }
    Ok(ms)
}

/// A size in bytes: an int, or text such as `"64MiB"` or `"1GB"`; at least 1.
pub(crate) fn size_bytes(param: &str, v: &Bound<'_, PyAny>) -> PyResult<u64> {
    let bytes = if let Ok(s) = v.cast::<PyString>() {
        let text = s.to_str()?;
        text.trim()
            .parse::<bytesize::ByteSize>()
            .map_err(|e| {
                PyValueError::new_err(format!(
                    "{param}={text:?} is not a size such as \"64MiB\" or \"1GB\": {e}"
                ))
            })?
            .as_u64()
    } else if v.is_instance_of::<PyInt>() {
        v.extract::<u64>().map_err(|_| {
            PyValueError::new_err(format!(
                "{param} must be a byte count in [1, 2^64), not {v}"
            ))
        })?
    } else {
        return Err(PyTypeError::new_err(format!(
            "{param} must be a byte count (int) or a size such as \"64MiB\", not {}",
            type_name(v)
        )));
    };
    if bytes == 0 {
        return Err(PyValueError::new_err(format!(
            "{param} must be at least 1 byte"
        )));
    }
    Ok(bytes)
}

/// The name of a value's type, for errors.
pub(crate) fn type_name(v: &Bound<'_, PyAny>) -> String {
    v.get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string())
}
