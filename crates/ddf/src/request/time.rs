//! Times as users hold them: a number in a unit (seconds, milliseconds,
//! microseconds, nanoseconds since the Unix epoch), read into the
//! milliseconds every time window of the front ends counts in.
//!
//! A number is never silently read in the wrong unit: a time beyond the
//! year 3000 in the unit given is refused, and the error names the unit
//! the number most likely is (epoch milliseconds read as seconds land near
//! the year 55 000).

use std::fmt;

/// The unit of a number that is a time since the Unix epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimeUnit {
    /// Seconds (fractions allowed).
    Seconds,
    /// Milliseconds.
    Millis,
    /// Microseconds.
    Micros,
    /// Nanoseconds.
    Nanos,
}

impl TimeUnit {
    /// Every unit, coarsest first.
    pub const ALL: [TimeUnit; 4] = [
        TimeUnit::Seconds,
        TimeUnit::Millis,
        TimeUnit::Micros,
        TimeUnit::Nanos,
    ];

    /// How many of this unit make a millisecond (a fraction for seconds).
    fn per_ms(self) -> f64 {
        match self {
            TimeUnit::Seconds => 1e-3,
            TimeUnit::Millis => 1.0,
            TimeUnit::Micros => 1e3,
            TimeUnit::Nanos => 1e6,
        }
    }

    /// Its short name (`s`, `ms`, `us`, `ns`), as numpy and the command
    /// spell it.
    pub fn symbol(self) -> &'static str {
        match self {
            TimeUnit::Seconds => "s",
            TimeUnit::Millis => "ms",
            TimeUnit::Micros => "us",
            TimeUnit::Nanos => "ns",
        }
    }

    /// Its name in words.
    pub fn name(self) -> &'static str {
        match self {
            TimeUnit::Seconds => "seconds",
            TimeUnit::Millis => "milliseconds",
            TimeUnit::Micros => "microseconds",
            TimeUnit::Nanos => "nanoseconds",
        }
    }

    /// The unit of a short name (`s`, `ms`, `us`, `μs`, `ns`).
    pub fn from_symbol(s: &str) -> Option<TimeUnit> {
        match s {
            "s" => Some(TimeUnit::Seconds),
            "ms" => Some(TimeUnit::Millis),
            "us" | "μs" => Some(TimeUnit::Micros),
            "ns" => Some(TimeUnit::Nanos),
            _ => None,
        }
    }
}

/// The latest time accepted: 3000-01-01T00:00:00Z, in milliseconds since
/// the epoch. Later times are taken for a number in a finer unit.
pub const LATEST_MS: u64 = 32_503_680_000_000;

/// Why a number is not a time.
#[derive(Debug, Clone, PartialEq)]
pub enum TimeError {
    /// Not finite, or before the epoch.
    OutOfRange(f64, TimeUnit),
    /// Beyond the year 3000 in this unit; `likely` is the unit in which it
    /// is a time before then, if any.
    TooLate {
        /// The number given.
        value: f64,
        /// The unit it was read in.
        unit: TimeUnit,
        /// A finer unit in which it is a plausible time.
        likely: Option<TimeUnit>,
    },
}

impl fmt::Display for TimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TimeError::OutOfRange(x, unit) => write!(
                f,
                "{x} is not a time: {} since the Unix epoch must be finite and not negative",
                unit.name()
            ),
            TimeError::TooLate {
                value,
                unit,
                likely: Some(likely),
            } => write!(
                f,
                "{value} {} since the Unix epoch is after the year 3000; it looks like {} \
                 (give the time in {}, or as a datetime)",
                unit.name(),
                likely.name(),
                unit.name()
            ),
            TimeError::TooLate { value, unit, .. } => write!(
                f,
                "{value} {} since the Unix epoch is after the year 3000",
                unit.name()
            ),
        }
    }
}

impl std::error::Error for TimeError {}

/// `x` in `unit` since the Unix epoch, as whole milliseconds (rounded to
/// the nearest, half away from zero), refused beyond [`LATEST_MS`].
///
/// ```
/// use ddf::request::time::{TimeUnit, to_ms};
///
/// assert_eq!(to_ms(1.5, TimeUnit::Seconds), Ok(1500));
/// assert_eq!(to_ms(1_704_114_000_000.0, TimeUnit::Millis), Ok(1_704_114_000_000));
/// // Epoch milliseconds read as seconds: refused, naming the likely unit.
/// let e = to_ms(1_704_114_000_000.0, TimeUnit::Seconds).unwrap_err();
/// assert!(e.to_string().contains("looks like milliseconds"), "{e}");
/// ```
pub fn to_ms(x: f64, unit: TimeUnit) -> Result<u64, TimeError> {
    if !(x.is_finite() && x >= 0.0) {
        return Err(TimeError::OutOfRange(x, unit));
    }
    let ms = (x / unit.per_ms()).round();
    if ms > LATEST_MS as f64 {
        let likely = TimeUnit::ALL
            .into_iter()
            .filter(|u| u.per_ms() > unit.per_ms())
            .find(|u| x / u.per_ms() <= LATEST_MS as f64);
        return Err(TimeError::TooLate {
            value: x,
            unit,
            likely,
        });
    }
    // At most LATEST_MS, so the cast is exact.
    Ok(ms as u64)
}

/// An integer `x` in `unit` since the epoch (numpy's `datetime64` values
/// times their unit's multiplier), as [`to_ms`] reads it but without the
/// rounding error of a float for nanoseconds: whole milliseconds, rounded
/// to the nearest.
pub fn int_to_ms(x: i64, unit: TimeUnit) -> Result<u64, TimeError> {
    let per_ms: i64 = match unit {
        TimeUnit::Seconds => return to_ms(x as f64, unit),
        TimeUnit::Millis => 1,
        TimeUnit::Micros => 1_000,
        TimeUnit::Nanos => 1_000_000,
    };
    if x < 0 {
        return Err(TimeError::OutOfRange(x as f64, unit));
    }
    let ms = (x + per_ms / 2) / per_ms;
    if ms as u64 > LATEST_MS {
        return to_ms(x as f64, unit);
    }
    Ok(ms as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_unit_reads_the_same_instant() {
        let s = 1_704_114_000.25;
        assert_eq!(to_ms(s, TimeUnit::Seconds), Ok(1_704_114_000_250));
        assert_eq!(
            int_to_ms(1_704_114_000_250, TimeUnit::Millis),
            Ok(1_704_114_000_250)
        );
        assert_eq!(
            int_to_ms(1_704_114_000_250_400, TimeUnit::Micros),
            Ok(1_704_114_000_250)
        );
        assert_eq!(
            int_to_ms(1_704_114_000_250_600_000, TimeUnit::Nanos),
            Ok(1_704_114_000_251)
        );
    }

    #[test]
    fn a_number_in_a_finer_unit_is_refused_with_its_likely_unit() {
        for (x, likely) in [
            (1.7e12, TimeUnit::Millis),
            (1.7e15, TimeUnit::Micros),
            (1.7e18, TimeUnit::Nanos),
        ] {
            match to_ms(x, TimeUnit::Seconds) {
                Err(TimeError::TooLate { likely: l, .. }) => assert_eq!(l, Some(likely)),
                other => panic!("{x}: {other:?}"),
            }
        }
        assert!(to_ms(-1.0, TimeUnit::Seconds).is_err());
        assert!(to_ms(f64::NAN, TimeUnit::Millis).is_err());
        assert!(int_to_ms(i64::MIN, TimeUnit::Nanos).is_err());
        assert_eq!(to_ms(32_503_680_000.0, TimeUnit::Seconds), Ok(LATEST_MS));
    }
}
