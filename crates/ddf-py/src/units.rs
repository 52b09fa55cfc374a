//! Durations, sizes and times from Python values, in the `ddf` command's
//! units: windows and clocks in milliseconds, sizes in bytes. Sizes and
//! duration text are read by `ddf::request`, times by
//! `ddf::request::time`, as the command reads them.

use crate::errors;
use ddf::request::time::{TimeUnit, int_to_ms, to_ms};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyString};
use std::time::{SystemTime, UNIX_EPOCH};

/// The longest duration in seconds accepted: milliseconds still fit in a
/// `u64` and an `f64` still holds them to the millisecond (2^53 ms).
const MAX_SECONDS: f64 = 9_007_199_254_740.0;

/// A duration in seconds (a float or int) as whole milliseconds, rounded
/// to the nearest (half away from zero).
fn seconds_to_ms(param: &str, s: f64) -> PyResult<u64> {
    if !(s.is_finite() && (0.0..=MAX_SECONDS).contains(&s)) {
        return Err(errors::param(format!(
            "{param}= must be a duration from 1 ms to {MAX_SECONDS:e} seconds, not {s} seconds"
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
        ddf::request::parse_duration_ms(text).map_err(|e| errors::param(format!("{param}={e}")))?
    } else if v.is_instance_of::<PyInt>() || v.is_instance_of::<PyFloat>() {
        let s: f64 = v.extract()?;
        seconds_to_ms(param, s)?
    } else if v.hasattr("total_seconds")? {
        let s: f64 = v.call_method0("total_seconds")?.extract()?;
        seconds_to_ms(param, s)?
    } else {
        return Err(errors::param_type(format!(
            "{param} must be a duration (str such as \"1h\", seconds, or datetime.timedelta), not {}",
            type_name(v)
        )));
    };
    if ms == 0 {
        return Err(errors::param(format!(
            "{param}= must be a duration of at least 1 ms"
        )));
    }
    Ok(ms)
}

/// A size in bytes: an int, or text such as `"64MiB"` or `"1GB"`; at least 1.
pub(crate) fn size_bytes(param: &str, v: &Bound<'_, PyAny>) -> PyResult<u64> {
    let bytes = if let Ok(s) = v.cast::<PyString>() {
        let text = s.to_str()?;
        ddf::request::parse_size(text).map_err(|e| errors::param(format!("{param}={e}")))?
    } else if v.is_instance_of::<PyInt>() {
        v.extract::<u64>().map_err(|_| {
            errors::param(format!(
                "{param} must be a byte count in [1, 2^64), not {v}"
            ))
        })?
    } else {
        return Err(errors::param_type(format!(
            "{param} must be a byte count (int) or a size such as \"64MiB\", not {}",
            type_name(v)
        )));
    };
    if bytes == 0 {
        return Err(errors::param(format!("{param} must be at least 1 byte")));
    }
    Ok(bytes)
}

/// The name of a value's type, for errors.
pub(crate) fn type_name(v: &Bound<'_, PyAny>) -> String {
    v.get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string())
}

/// A time read in `unit`, as the library reads it ([`to_ms`]), its error
/// naming `param`.
fn read_time(param: &str, x: f64, unit: TimeUnit) -> PyResult<u64> {
    if x.is_nan() {
        return Err(errors::param(format!("{param}: missing value (NaN)")));
    }
    to_ms(x, unit).map_err(|e| errors::param(format!("{param}: {e}")))
}

/// An integer count of `count` × `unit` since the epoch (numpy's
/// `datetime64[count unit]`), in milliseconds; `i64::MIN` is NaT.
fn read_ticks(param: &str, x: i64, unit: &str, count: i64) -> PyResult<u64> {
    if x == i64::MIN {
        return Err(errors::param(format!("{param}: missing value (NaT)")));
    }
    // Coarser units than seconds are whole seconds.
    let (scale, unit) = match unit {
        "W" => (604_800, TimeUnit::Seconds),
        "D" => (86_400, TimeUnit::Seconds),
        "h" => (3_600, TimeUnit::Seconds),
        "m" => (60, TimeUnit::Seconds),
        other => match TimeUnit::from_symbol(other) {
            Some(u) => (1, u),
            None => {
                return Err(errors::param_type(format!(
                    "{param} is a datetime64 in [{other}]; give seconds, ms, us or ns \
                     (or days, hours, minutes, weeks)"
                )));
            }
        },
    };
    let ticks = x
        .checked_mul(count)
        .and_then(|t| t.checked_mul(scale))
        .ok_or_else(|| errors::param(format!("{param}: {x} [{unit:?}] out of range")))?;
    int_to_ms(ticks, unit).map_err(|e| errors::param(format!("{param}: {e}")))
}

/// The unit and multiplier of a numpy datetime64 dtype.
fn datetime_unit(np: &Bound<'_, PyAny>, dtype: &Bound<'_, PyAny>) -> PyResult<(String, i64)> {
    np.call_method1("datetime_data", (dtype,))?.extract()
}

/// The kind of `v`'s numpy dtype (`M` for datetime64, `f` for floats, …).
fn dtype_kind(v: &Bound<'_, PyAny>) -> Option<String> {
    v.getattr("dtype")
        .and_then(|d| d.getattr("kind"))
        .and_then(|k| k.extract())
        .ok()
}

/// Whether `v` has a numpy dtype of kind `M` (datetime64).
fn is_datetime64(v: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(dtype_kind(v).is_some_and(|k| k == "M"))
}

/// One time as users hold it, in milliseconds since the Unix epoch:
/// seconds (int or float), `datetime.datetime` (naive = UTC, aware
/// converted), `pandas.Timestamp`, or a `numpy.datetime64` of any unit.
/// A number that is a time only in a finer unit is refused, naming it.
pub(crate) fn time_ms(param: &str, v: &Bound<'_, PyAny>) -> PyResult<u64> {
    let py = v.py();
    if let Some(what) = crate::keys::missing(v) {
        return Err(errors::param(format!("{param}: missing value ({what})")));
    }
    if v.is_instance_of::<PyBool>() {
        return Err(errors::param_type(format!(
            "{param} must be a time, not a bool"
        )));
    }
    if v.is_instance_of::<PyInt>() || v.is_instance_of::<PyFloat>() {
        return read_time(param, v.extract()?, TimeUnit::Seconds);
    }
    if is_datetime64(v)? {
        let np = py.import("numpy")?;
        let (unit, count) = datetime_unit(&np, &v.getattr("dtype")?)?;
        let x: i64 = v.call_method1("astype", ("int64",))?.extract()?;
        return read_ticks(param, x, &unit, count);
    }
    // A numpy number (`np.int64`, `np.float32`, …): seconds.
    if dtype_kind(v).is_some_and(|k| matches!(k.as_str(), "i" | "u" | "f")) {
        return read_time(param, v.extract()?, TimeUnit::Seconds);
    }
    let datetime = py.import("datetime")?;
    if v.is_instance(&datetime.getattr("datetime")?)? {
        // pandas.Timestamp: its nanoseconds since the epoch (UTC).
        if type_name(v) == "Timestamp" && v.hasattr("value")? {
            let ns: i64 = v.getattr("value")?.extract()?;
            return read_ticks(param, ns, "ns", 1);
        }
        let aware = if v.getattr("tzinfo")?.is_none() {
            let utc = datetime.getattr("timezone")?.getattr("utc")?;
            let kwargs = PyDict::new(py);
            kwargs.set_item("tzinfo", utc)?;
            v.call_method("replace", (), Some(&kwargs))?
        } else {
            v.clone()
        };
        let s: f64 = aware.call_method0("timestamp")?.extract()?;
        return read_time(param, s, TimeUnit::Seconds);
    }
    Err(errors::param_type(format!(
        "{param} must be a time: seconds since the Unix epoch, a datetime, a \
         pandas.Timestamp or a numpy.datetime64, not {}",
        type_name(v)
    )))
}

/// Whether `v` is one time (a number, a datetime, a numpy scalar) rather
/// than one per key.
pub(crate) fn is_one_time(v: &Bound<'_, PyAny>) -> PyResult<bool> {
    if v.is_instance_of::<PyInt>() || v.is_instance_of::<PyFloat>() {
        return Ok(true);
    }
    if v.hasattr("ndim")? {
        return Ok(v.getattr("ndim")?.extract::<usize>().ok() == Some(0));
    }
    v.is_instance(&v.py().import("datetime")?.getattr("datetime")?)
}

/// The times of `n` keys, one each, as users hold them: a numpy array
/// of datetime64 (any unit) or of numbers (seconds), a pandas or polars
/// datetime Series or Index, or a sequence of anything [`time_ms`] reads.
pub(crate) fn times_ms(param: &str, v: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
    let py = v.py();
    // pandas and polars columns: their numpy form (a tz-aware pandas
    // column as UTC datetime64[ns]).
    let v = if v.hasattr("to_numpy")? && !v.hasattr("__array_interface__")? {
        let array = v.call_method0("to_numpy")?;
        if dtype_kind(&array).as_deref() == Some("O") && is_datetime64(v)? {
            let kwargs = PyDict::new(py);
            kwargs.set_item("dtype", "datetime64[ns]")?;
            v.call_method("to_numpy", (), Some(&kwargs))?
        } else {
            array
        }
    } else {
        v.clone()
    };
    if v.hasattr("__array_interface__")? && v.hasattr("dtype")? {
        let np = py.import("numpy")?;
        let little = |dtype: &str| -> PyResult<Vec<u8>> {
            Ok(v.call_method1("astype", (dtype,))?
                .call_method0("tobytes")?
                .cast::<PyBytes>()?
                .as_bytes()
                .to_vec())
        };
        let words = |raw: Vec<u8>| -> Vec<[u8; 8]> {
            raw.chunks_exact(8)
                .map(|c| [c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])
                .collect()
        };
        if is_datetime64(&v)? {
            let (unit, count) = datetime_unit(&np, &v.getattr("dtype")?)?;
            return words(little("<i8")?)
                .into_iter()
                .enumerate()
                .map(|(i, w)| {
                    let x = i64::from_le_bytes(w);
                    // The index is written only into an error.
                    read_ticks(param, x, &unit, count)
                        .or_else(|_| read_ticks(&format!("{param}[{i}]"), x, &unit, count))
                })
                .collect();
        }
        return words(little("<f8")?)
            .into_iter()
            .enumerate()
            .map(|(i, w)| {
                let x = f64::from_le_bytes(w);
                read_time(param, x, TimeUnit::Seconds)
                    .or_else(|_| read_time(&format!("{param}[{i}]"), x, TimeUnit::Seconds))
            })
            .collect();
    }
    let items = v.try_iter().map_err(|_| {
        errors::param_type(format!(
            "{param} must be a time, or one per key (a sequence or array), not {}",
            type_name(&v)
        ))
    })?;
    items
        .enumerate()
        .map(|(i, item)| {
            let item = item?;
            time_ms(param, &item).or_else(|_| time_ms(&format!("{param}[{i}]"), &item))
        })
        .collect::<PyResult<Vec<u64>>>()
}
