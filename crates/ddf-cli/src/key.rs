//! Keys and times out of records: whole record, a delimited field, or a
//! JSON value at an RFC 6901 pointer; times in seconds, milliseconds or
//! RFC 3339.

use crate::cli::TimeUnit;
use serde_json::Value;
use std::borrow::Cow;

/// Where the key is.
#[derive(Debug, Clone)]
pub(crate) enum KeySpec {
    /// The whole record.
    Whole,
    /// Field `n` (from 1).
    Field(usize),
    /// The JSON value at a pointer.
    Json(String),
}

/// Where the time is.
#[derive(Debug, Clone)]
pub(crate) enum TimeSpec {
    /// No time window, or the arrival clock.
    None,
    /// Field `n` (from 1).
    Field(usize),
    /// The JSON value at a pointer.
    Json(String),
}

/// How to cut keys and times out of records.
#[derive(Debug, Clone)]
pub(crate) struct Extractor {
    pub(crate) key: KeySpec,
    pub(crate) time: TimeSpec,
    pub(crate) delimiter: u8,
    pub(crate) unit: TimeUnit,
}

/// The key (and time, when asked for) of one record.
#[derive(Debug)]
pub(crate) struct Extracted<'a> {
    pub(crate) key: Cow<'a, [u8]>,
    pub(crate) time_ms: Option<u64>,
}

impl Extractor {
    fn needs_json(&self) -> bool {
        matches!(self.key, KeySpec::Json(_)) || matches!(self.time, TimeSpec::Json(_))
    }

    /// The key and time of `record`, or why there is none.
    pub(crate) fn extract<'a>(&self, record: &'a [u8]) -> Result<Extracted<'a>, String> {
        let json = if self.needs_json() {
            Some(serde_json::from_slice::<Value>(record).map_err(|e| format!("not JSON: {e}"))?)
        } else {
            None
        };
        let key: Cow<'a, [u8]> = match &self.key {
            KeySpec::Whole => Cow::Borrowed(record),
            KeySpec::Field(n) => Cow::Borrowed(
                field(record, *n, self.delimiter).ok_or_else(|| format!("no field {n}"))?,
            ),
            KeySpec::Json(p) => {
                let v = json
                    .as_ref()
                    .and_then(|j| j.pointer(p))
                    .ok_or_else(|| format!("no JSON value at {p}"))?;
                Cow::Owned(json_key(v))
            }
        };
        let time_ms = match &self.time {
            TimeSpec::None => None,
            TimeSpec::Field(n) => {
                let f = field(record, *n, self.delimiter)
                    .ok_or_else(|| format!("no time field {n}"))?;
                let s =
                    std::str::from_utf8(f).map_err(|_| format!("time field {n} is not UTF-8"))?;
                Some(parse_time(s, self.unit)?)
            }
            TimeSpec::Json(p) => {
                let v = json
                    .as_ref()
                    .and_then(|j| j.pointer(p))
                    .ok_or_else(|| format!("no JSON time at {p}"))?;
                Some(match v {
                    Value::Number(n) => {
                        let x = n.as_f64().ok_or("time is not a number")?;
                        scale(x, self.unit)?
                    }
                    Value::String(s) => parse_time(s, self.unit)?,
                    _ => return Err(format!("the time at {p} is neither a number nor a string")),
                })
            }
        };
        Ok(Extracted { key, time_ms })
    }
}

/// Field `n` (from 1) of `record` split at `delimiter`, like `cut -f`.
pub(crate) fn field(record: &[u8], n: usize, delimiter: u8) -> Option<&[u8]> {
    if n == 0 {
        return None;
    }
    record.split(|&b| b == delimiter).nth(n - 1)
}

/// The key bytes of a JSON value: its compact JSON text, so the string
/// `"7"` and the number `7` are different keys (and `1.0` differs from `1`).
fn json_key(v: &Value) -> Vec<u8> {
    v.to_string().into_bytes()
}

/// A number in `unit`, in milliseconds since the epoch, read as every
/// front end reads times (`ddf::request::time`): one beyond the year 3000
/// in `unit` is refused, naming the unit it likely is.
fn scale(x: f64, unit: TimeUnit) -> Result<u64, String> {
    use ddf::request::time::{self, TimeUnit as Unit};
    let unit = match unit {
        TimeUnit::S => Unit::Seconds,
        TimeUnit::Ms => Unit::Millis,
        TimeUnit::Us => Unit::Micros,
        TimeUnit::Ns => Unit::Nanos,
    };
    time::to_ms(x, unit).map_err(|e| format!("time {e}"))
}

/// A number in `unit` or an RFC 3339 UTC timestamp, in milliseconds since
/// the Unix epoch.
pub(crate) fn parse_time(s: &str, unit: TimeUnit) -> Result<u64, String> {
    let s = s.trim();
    if let Ok(x) = s.parse::<f64>() {
        return scale(x, unit);
    }
    let t = humantime::parse_rfc3339_weak(s)
        .map_err(|e| format!("time {s:?} is neither a number nor RFC 3339: {e}"))?;
    let d = t
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|_| format!("time {s:?} is before 1970"))?;
    u64::try_from(d.as_millis()).map_err(|_| format!("time {s:?} out of range"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_like_cut() {
        assert_eq!(field(b"a,b,c", 2, b','), Some(&b"b"[..]));
        assert_eq!(field(b"a,b,c", 4, b','), None);
        assert_eq!(field(b"a,,c", 2, b','), Some(&b""[..]));
        assert_eq!(field(b"abc", 1, b','), Some(&b"abc"[..]));
        assert_eq!(field(b"abc", 0, b','), None);
    }

    #[test]
    fn times() {
        assert_eq!(parse_time("90", TimeUnit::S), Ok(90_000));
        assert_eq!(parse_time("1.5", TimeUnit::S), Ok(1500));
        assert_eq!(parse_time("1500", TimeUnit::Ms), Ok(1500));
        assert_eq!(parse_time("1970-01-01T00:01:00Z", TimeUnit::S), Ok(60_000));
        assert_eq!(
            parse_time("1970-01-01T00:00:01.250Z", TimeUnit::Ms),
            Ok(1250)
        );
        assert!(parse_time("-1", TimeUnit::S).is_err());
        assert_eq!(parse_time("1500000", TimeUnit::Us), Ok(1500));
        // Epoch milliseconds read as seconds: refused, not misread.
        let e = parse_time("1704114000000", TimeUnit::S).unwrap_err();
        assert!(e.contains("looks like milliseconds"), "{e}");
        assert!(parse_time("yesterday", TimeUnit::S).is_err());
    }

    #[test]
    fn json_keys_and_times() {
        let x = Extractor {
            key: KeySpec::Json("/user/id".into()),
            time: TimeSpec::Json("/ts".into()),
            delimiter: b'\t',
            unit: TimeUnit::S,
        };
        let e = x.extract(br#"{"user":{"id":"u7"},"ts":12}"#).unwrap();
        assert_eq!(&*e.key, br#""u7""#);
        assert_eq!(e.time_ms, Some(12_000));
        let e = x
            .extract(br#"{"user":{"id":7},"ts":"1970-01-01T00:00:02Z"}"#)
            .unwrap();
        assert_eq!(&*e.key, b"7");
        assert_eq!(e.time_ms, Some(2000));
        assert!(x.extract(br#"{"user":{},"ts":1}"#).is_err());
        assert!(x.extract(b"not json").is_err());
        assert!(x.extract(br#"{"user":{"id":1},"ts":true}"#).is_err());
    }
}
