//! Parameter errors and checked sizing for `ddf` constructors.
#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

use std::borrow::Cow;
use std::fmt;
use std::ops::RangeInclusive;

/// The largest filter state, in bits, that any constructor accepts: 2^40 bits (128 GiB).
///
/// A request above it is almost always a unit mistake (bits for bytes, a
/// window in nanoseconds); refusing it early turns an allocation abort into a
/// [`ParamError`].
pub const MAX_STATE_BITS: u64 = 1 << 40;

/// A constructor parameter outside its valid range.
///
/// The message names the parameter as the papers and the API name it
/// (`rows`, `fingerprint_bits`, `window`, ...), the value given and what is accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamError {
    param: &'static str,
    value: String,
    expected: Cow<'static, str>,
}

impl ParamError {
    /// An error for `param`, given `value`, which should have satisfied `expected`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_param::ParamError;
    ///
    /// let e = ParamError::new("window", 0, "at least 1 item");
    /// assert_eq!(e.param(), "window");
    /// assert_eq!(e.to_string(), "invalid window = 0: expected at least 1 item");
    /// ```
    pub fn new(
        param: &'static str,
        value: impl fmt::Display,
        expected: impl Into<Cow<'static, str>>,
    ) -> Self {
        ParamError {
            param,
            value: value.to_string(),
            expected: expected.into(),
        }
    }

    /// The parameter's name.
    pub fn param(&self) -> &'static str {
        self.param
    }

    /// The offending value, as text.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// What the parameter accepts.
    pub fn expected(&self) -> &str {
        &self.expected
    }
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid {} = {}: expected {}",
            self.param, self.value, self.expected
        )
    }
}

impl std::error::Error for ParamError {}

/// Returns `value` if it lies in `range`, else a [`ParamError`] quoting the range.
pub fn ensure_range<T>(
    param: &'static str,
    value: T,
    range: RangeInclusive<T>,
) -> Result<T, ParamError>
where
    T: PartialOrd + fmt::Display,
{
    if range.contains(&value) {
        Ok(value)
    } else {
        Err(ParamError::new(
            param,
            &value,
            format!("{}..={}", range.start(), range.end()),
        ))
    }
}

/// What every count window of 0 is told, in every family: one rule, one wording.
pub const WINDOW_ZERO: &str = "a window of at least 1 item (a window of 0 items remembers nothing)";

/// Returns `window` (parameter `window`, a count of items) if it lies in
/// `1..=max`. A window of 0 gets the same error, [`WINDOW_ZERO`], from every
/// filter; above `max` the error quotes the filter's own limit.
pub fn ensure_window(window: u64, max: u64) -> Result<u64, ParamError> {
    if window == 0 {
        Err(ParamError::new("window", 0, WINDOW_ZERO))
    } else if window > max {
        Err(ParamError::new(
            "window",
            window,
            format!("a window of 1..={max} items"),
        ))
    } else {
        Ok(window)
    }
}

/// Returns `value` if it is at least 1.
pub fn ensure_positive<T>(param: &'static str, value: T) -> Result<T, ParamError>
where
    T: PartialOrd + fmt::Display + From<u8>,
{
    if value >= T::from(1) {
        Ok(value)
    } else {
        Err(ParamError::new(param, &value, "at least 1"))
    }
}

/// Returns `p` if it is a probability strictly between 0 and 1.
pub fn ensure_probability(param: &'static str, p: f64) -> Result<f64, ParamError> {
    if p > 0.0 && p < 1.0 {
        Ok(p)
    } else {
        Err(ParamError::new(
            param,
            p,
            "a probability strictly between 0 and 1",
        ))
    }
}

/// Multiplies sizes, reporting overflow as an error against `param`.
pub fn checked_mul(param: &'static str, a: u64, b: u64) -> Result<u64, ParamError> {
    a.checked_mul(b).ok_or_else(|| {
        ParamError::new(
            param,
            format!("{a} * {b}"),
            "a product that fits in 64 bits",
        )
    })
}

/// Checks that a state of `bits` bits is at most [`MAX_STATE_BITS`] and
/// returns it as a `usize` count of `u64` words to allocate (rounded up).
pub fn state_words(param: &'static str, bits: u64) -> Result<usize, ParamError> {
    if bits > MAX_STATE_BITS {
        return Err(ParamError::new(
            param,
            format!("{bits} bits"),
            format!("a state of at most {MAX_STATE_BITS} bits (2^40)"),
        ));
    }
    usize::try_from(bits.div_ceil(64)).map_err(|_| {
        ParamError::new(
            param,
            format!("{bits} bits"),
            "a state addressable on this platform",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_error_names_parameter_and_range() {
        let err = ensure_range("cells_per_row", 0u32, 1..=64).unwrap_err();
        assert_eq!(err.param(), "cells_per_row");
        assert_eq!(err.value(), "0");
        assert_eq!(err.expected(), "1..=64");
        assert_eq!(
            err.to_string(),
            "invalid cells_per_row = 0: expected 1..=64"
        );
        assert_eq!(ensure_range("cells_per_row", 64u32, 1..=64), Ok(64));
    }

    #[test]
    fn positive_and_probability() {
        assert!(ensure_positive("window", 0u64).is_err());
        let zero = ensure_window(0, 10).unwrap_err();
        assert_eq!((zero.param(), zero.expected()), ("window", WINDOW_ZERO));
        assert_eq!(
            ensure_window(11, 10).unwrap_err().expected(),
            "a window of 1..=10 items"
        );
        assert_eq!(ensure_window(10, 10), Ok(10));
        assert_eq!(ensure_positive("window", 3u64), Ok(3));
        for bad in [0.0, 1.0, -0.5, f64::NAN, f64::INFINITY] {
            let err = ensure_probability("fpr", bad).unwrap_err();
            assert_eq!(err.param(), "fpr");
        }
        assert_eq!(ensure_probability("fpr", 0.01), Ok(0.01));
    }

    #[test]
    fn sizes_overflow_and_ceiling() {
        assert!(checked_mul("rows", u64::MAX, 2).is_err());
        assert_eq!(checked_mul("rows", 1 << 20, 8), Ok(1 << 23));
        assert_eq!(state_words("memory_bits", 65), Ok(2));
        assert_eq!(state_words("memory_bits", 0), Ok(0));
        let err = state_words("memory_bits", MAX_STATE_BITS + 1).unwrap_err();
        assert_eq!(err.param(), "memory_bits");
    }
}
