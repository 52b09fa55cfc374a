//! Keys as bytes: the bytes a key is hashed by, the same bytes the `ddf`
//! command and the Redis module hash for the same key.
//!
//! - `str`: its UTF-8 encoding.
//! - `bytes`, `bytearray`, `memoryview`: the bytes.
//! - `int` (any size, and objects with `__index__` such as numpy integers):
//!   its decimal text, as `str(n)` writes it. So `42`, `"42"`, the line
//!   `42` given to `ddf dedup` and redis-py's `DDF.OBSERVE k 42` are one key.
//! - numpy arrays: integers as above, `S` (bytes) and `U` (str) elements
//!   without numpy's trailing NUL padding, `O` element by element.
//! - Arrow columns (anything with `__arrow_c_array__` or
//!   `__arrow_c_stream__`: pyarrow arrays and chunked arrays, pandas and
//!   polars columns): strings, binary and integers as above, nulls refused
//!   by index (`arrow`).
//!
//! Anything else is a `ddf.ParamTypeError` (a `TypeError`) naming its
//! place (`key`, `keys[3]`) and type; for `None`, NaN and `pandas.NA` it
//! says "missing value".

use crate::arrow::Column;
use crate::errors;
use crate::units::type_name;
use pyo3::prelude::*;
use pyo3::types::{IntoPyDict, PyByteArray, PyBytes, PyFloat, PyInt, PyList, PySlice, PyString};

/// Keys of one chunk of a batch, laid end to end.
#[derive(Debug, Default)]
pub(crate) struct Keys {
    data: Vec<u8>,
    ends: Vec<usize>,
    /// Integers not yet written as text (see [`Keys::format_ints`]).
    ints: Vec<u64>,
    signed: bool,
}

impl Keys {
    pub(crate) fn clear(&mut self) {
        self.data.clear();
        self.ends.clear();
        self.ints.clear();
    }

    pub(crate) fn push(&mut self, key: &[u8]) {
        self.data.extend_from_slice(key);
        self.ends.push(self.data.len());
    }

    /// Queues integers (`signed`: read as `i64`) to be written as decimal
    /// text by [`format_ints`](Self::format_ints).
    pub(crate) fn push_ints(&mut self, signed: bool, values: impl Iterator<Item = u64>) {
        self.signed = signed;
        self.ints.extend(values);
    }

    /// Writes pending integers as decimal text. Runs without the GIL.
    pub(crate) fn format_ints(&mut self) {
        let mut buf = [0u8; 20];
        let ints = std::mem::take(&mut self.ints);
        for &v in &ints {
            if self.signed && (v as i64) < 0 {
                self.data.push(b'-');
                let digits = decimal_u64((v as i64).unsigned_abs(), &mut buf);
                self.push(digits);
            } else {
                let digits = decimal_u64(v, &mut buf);
                self.push(digits);
            }
        }
        self.ints = ints;
        self.ints.clear();
    }

    /// The keys in order (after [`format_ints`](Self::format_ints)).
    pub(crate) fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        let mut start = 0;
        self.ends.iter().map(move |&end| {
            let k = &self.data[start..end];
            start = end;
            k
        })
    }
}

/// Two decimal digits per entry, `00` to `99`.
const DIGITS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// `v` in decimal, written at the end of `buf`. Eight digits at a time:
/// each group's digits come from independent divisions, so a 20-digit key
/// waits on two dependent 64-bit divisions instead of ten (the batch path
/// formats every integer key, and this was a tenth of its time).
pub(crate) fn decimal_u64(mut v: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    while v >= 100_000_000 {
        let group = (v % 100_000_000) as u32;
        v /= 100_000_000;
        i -= 8;
        eight_digits(group, &mut buf[i..i + 8]);
    }
    // At most eight digits left, in a u32.
    let mut v = v as u32;
    while v >= 100 {
        let d = (v % 100) as usize * 2;
        v /= 100;
        i -= 2;
        buf[i..i + 2].copy_from_slice(&DIGITS[d..d + 2]);
    }
    if v >= 10 {
        let d = v as usize * 2;
        i -= 2;
        buf[i..i + 2].copy_from_slice(&DIGITS[d..d + 2]);
    } else {
        i -= 1;
        buf[i] = b'0' + v as u8;
    }
    &buf[i..]
}

/// `n < 10^8` as exactly eight digits, leading zeros included.
#[inline]
fn eight_digits(n: u32, out: &mut [u8]) {
    let (high, low) = (n / 10_000, n % 10_000);
    let pairs = [high / 100, high % 100, low / 100, low % 100];
    for (slot, pair) in out.chunks_exact_mut(2).zip(pairs) {
        let d = pair as usize * 2;
        slot.copy_from_slice(&DIGITS[d..d + 2]);
    }
}

/// The decimal text of a magnitude given as little-endian bytes, with a
/// sign: schoolbook division by 10^9 over 32-bit limbs (any size; Python's
/// `str` refuses ints over 4300 digits, this does not).
fn decimal_big(magnitude_le: &[u8], negative: bool) -> Vec<u8> {
    let mut limbs: Vec<u32> = magnitude_le
        .chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect();
    while limbs.last() == Some(&0) {
        limbs.pop();
    }
    // Groups of nine digits, least significant first.
    let mut groups = Vec::new();
    while !limbs.is_empty() {
        let mut rem = 0u64;
        for limb in limbs.iter_mut().rev() {
            let cur = (rem << 32) | u64::from(*limb);
            *limb = (cur / 1_000_000_000) as u32;
            rem = cur % 1_000_000_000;
        }
        groups.push(rem as u32);
        while limbs.last() == Some(&0) {
            limbs.pop();
        }
    }
    let mut out = Vec::with_capacity(groups.len() * 9 + 1);
    if negative {
        out.push(b'-');
    }
    match groups.split_last() {
        None => out.push(b'0'),
        Some((top, rest)) => {
            out.extend_from_slice(top.to_string().as_bytes());
            for g in rest.iter().rev() {
                out.extend_from_slice(format!("{g:09}").as_bytes());
            }
        }
    }
    if negative && out.len() == 2 && out[1] == b'0' {
        out.remove(0);
    }
    out
}

/// Calls `f` with the bytes of an int (decimal text).
fn with_int<R>(v: &Bound<'_, PyAny>, f: impl FnOnce(&[u8]) -> R) -> PyResult<R> {
    let mut buf = [0u8; 20];
    // Unsigned first: identifiers are mostly non-negative, and a failed
    // extraction costs an exception object.
    if let Ok(n) = v.extract::<u64>() {
        return Ok(f(decimal_u64(n, &mut buf)));
    }
    if let Ok(n) = v.extract::<i64>() {
        let digits = decimal_u64(n.unsigned_abs(), &mut buf);
        let mut text = [0u8; 21];
        text[0] = b'-';
        text[1..=digits.len()].copy_from_slice(digits);
        return Ok(f(&text[..=digits.len()]));
    }
    // Beyond 64 bits: the magnitude's bytes from Python, the digits here.
    let negative = v.lt(0)?;
    let magnitude = v.call_method0("__abs__")?;
    let bits: usize = magnitude.call_method0("bit_length")?.extract()?;
    let bytes = magnitude.call_method1("to_bytes", (bits.div_ceil(8), "little"))?;
    let bytes = bytes.cast::<PyBytes>()?;
    Ok(f(&decimal_big(bytes.as_bytes(), negative)))
}

/// What a missing value is called when `v` is one: `None`, a float NaN,
/// `pandas.NA` or `pandas.NaT`.
pub(crate) fn missing(v: &Bound<'_, PyAny>) -> Option<&'static str> {
    if v.is_none() {
        return Some("None");
    }
    if let Ok(x) = v.cast::<PyFloat>() {
        return x.value().is_nan().then_some("NaN");
    }
    match type_name(v).as_str() {
        "NAType" => Some("pandas.NA"),
        "NaTType" => Some("NaT"),
        _ => None,
    }
}

/// The error for `v`, at `place`, when it is no key.
fn not_a_key(v: &Bound<'_, PyAny>, place: &dyn Fn() -> String) -> PyErr {
    match missing(v) {
        // A missing key is no key: a type error, as it always was.
        Some(what) => errors::param_type(format!(
            "{}: missing value ({what}); drop or fill missing keys first",
            place()
        )),
        None => errors::param_type(format!(
            "{}: a key must be str, bytes, bytearray, memoryview or int, not {} \
             (pass key= a function that maps it to one)",
            place(),
            type_name(v)
        )),
    }
}

/// Calls `f` with the bytes key `v` is hashed by; an error names `place`
/// (`key`, `keys[3]`).
pub(crate) fn with_key<R>(
    v: &Bound<'_, PyAny>,
    place: &dyn Fn() -> String,
    f: impl FnOnce(&[u8]) -> R,
) -> PyResult<R> {
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(f(s.to_str()?.as_bytes()));
    }
    if let Ok(b) = v.cast::<PyBytes>() {
        return Ok(f(b.as_bytes()));
    }
    if v.is_instance_of::<PyInt>() {
        return with_int(v, f);
    }
    if let Ok(b) = v.cast::<PyByteArray>() {
        return Ok(f(&b.to_vec()));
    }
    let ty = type_name(v);
    if ty == "memoryview" {
        let b = v.call_method0("tobytes")?;
        return Ok(f(b.cast::<PyBytes>()?.as_bytes()));
    }
    // numpy integers and other integral types; never float or bool-like
    // objects without `__index__`.
    if v.hasattr("__index__")? {
        let n = v.call_method0("__index__")?;
        if n.is_instance_of::<PyInt>() {
            return with_int(&n, f);
        }
    }
    Err(not_a_key(v, place))
}

/// Where a batch's keys come from.
pub(crate) enum Source<'py> {
    /// A list (any other iterable is made a list first).
    Seq(Bound<'py, PyList>),
    /// A one-dimensional numpy array of integers (`signed`), read as
    /// little-endian 64-bit words.
    Ints {
        array: Bound<'py, PyAny>,
        signed: bool,
    },
    /// A numpy `S` array: `width` bytes per element, NUL-padded.
    Bytes {
        array: Bound<'py, PyAny>,
        width: usize,
    },
    /// A numpy `U` array: `width` UCS-4 code points per element, NUL-padded.
    Text {
        array: Bound<'py, PyAny>,
        width: usize,
    },
    /// An Arrow column (pyarrow, pandas, polars, …), read without the GIL.
    Arrow(Column),
}

/// Whether `v` looks like a numpy array (without importing numpy).
fn is_ndarray(v: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(v.hasattr("__array_interface__")? && v.hasattr("dtype")? && v.hasattr("tobytes")?)
}

impl<'py> Source<'py> {
    /// Classifies `keys`; with a key function every element goes through
    /// Python, so arrays become lists.
    pub(crate) fn new(keys: &Bound<'py, PyAny>, mapped: bool) -> PyResult<Self> {
        if keys.is_instance_of::<PyString>()
            || keys.is_instance_of::<PyBytes>()
            || keys.is_instance_of::<PyByteArray>()
        {
            return Err(errors::param_type(format!(
                "keys must be an iterable of keys, not one {} (wrap it in a list)",
                type_name(keys)
            )));
        }
        if is_ndarray(keys)? {
            return Source::ndarray(keys, mapped);
        }
        if !mapped && let Some(column) = Column::import(keys)? {
            return Ok(Source::Arrow(column));
        }
        if let Ok(list) = keys.cast::<PyList>() {
            return Ok(Source::Seq(list.clone()));
        }
        // Arrow arrays iterate as scalar objects; their list holds values.
        if keys.hasattr("to_pylist")? {
            let list = keys.call_method0("to_pylist")?;
            if let Ok(list) = list.cast_into::<PyList>() {
                return Ok(Source::Seq(list));
            }
        }
        let iter = keys.try_iter().map_err(|_| {
            errors::param_type(format!(
                "keys must be an iterable, a numpy array or an Arrow column, not {}",
                type_name(keys)
            ))
        })?;
        let list = PyList::empty(keys.py());
        for k in iter {
            list.append(k?)?;
        }
        Ok(Source::Seq(list))
    }

    /// A numpy array's keys.
    fn ndarray(keys: &Bound<'py, PyAny>, mapped: bool) -> PyResult<Self> {
        let ndim: usize = keys.getattr("ndim")?.extract()?;
        if ndim != 1 {
            return Err(errors::param(format!(
                "keys must be a one-dimensional array, not {ndim}-dimensional"
            )));
        }
        let dtype = keys.getattr("dtype")?;
        // Converted only when the dtype differs (no copy of the keys).
        let no_copy = [("copy", false)].into_py_dict(keys.py())?;
        let astype = |to: String| keys.call_method("astype", (to,), Some(&no_copy));
        let kind: String = dtype.getattr("kind")?.extract()?;
        let itemsize: usize = dtype.getattr("itemsize")?.extract()?;
        if !mapped {
            match kind.as_str() {
                "i" | "b" => {
                    let array = astype("<i8".into())?;
                    return Ok(Source::Ints {
                        array,
                        signed: true,
                    });
                }
                "u" => {
                    let array = astype("<u8".into())?;
                    return Ok(Source::Ints {
                        array,
                        signed: false,
                    });
                }
                "S" => {
                    return Ok(Source::Bytes {
                        array: keys.clone(),
                        width: itemsize,
                    });
                }
                "U" => {
                    let width = itemsize / 4;
                    let array = astype(format!("<U{width}"))?;
                    return Ok(Source::Text { array, width });
                }
                "O" => {}
                _ => {
                    return Err(errors::param_type(format!(
                        "keys: a numpy array of dtype {} holds no key type \
                         (integers, 'S' bytes, 'U' str or objects; pass key= to map it)",
                        dtype.str()?
                    )));
                }
            }
        }
        let list = keys.call_method0("tolist")?;
        Ok(Source::Seq(list.cast_into::<PyList>()?))
    }

    /// The number of keys.
    pub(crate) fn len(&self) -> PyResult<usize> {
        match self {
            Source::Seq(s) => Ok(s.len()),
            Source::Ints { array, .. }
            | Source::Bytes { array, .. }
            | Source::Text { array, .. } => array.len(),
            Source::Arrow(c) => Ok(c.len()),
        }
    }

    /// The Arrow column, whose chunks are filled without the GIL.
    pub(crate) fn arrow(&self) -> Option<&Column> {
        match self {
            Source::Arrow(c) => Some(c),
            _ => None,
        }
    }

    /// Fills `out` with keys `start..end` (cleared first), through `key`
    /// when given; an Arrow column's are filled by [`Column::fill`].
    pub(crate) fn fill(
        &self,
        start: usize,
        end: usize,
        key: Option<&Bound<'py, PyAny>>,
        out: &mut Keys,
    ) -> PyResult<()> {
        out.clear();
        match self {
            Source::Seq(seq) => {
                for i in start..end {
                    let item = seq.get_item(i)?;
                    match key {
                        Some(f) => {
                            let mapped = f.call1((item,))?;
                            let place = || format!("key(keys[{i}])");
                            with_key(&mapped, &place, |b| out.push(b))?;
                        }
                        None => with_key(&item, &|| format!("keys[{i}]"), |b| out.push(b))?,
                    }
                }
            }
            Source::Ints { array, signed } => {
                let raw = chunk_bytes(array, start, end)?;
                out.signed = *signed;
                out.ints.extend(raw.as_bytes().chunks_exact(8).map(|w| {
                    let mut b = [0u8; 8];
                    b.copy_from_slice(w);
                    u64::from_le_bytes(b)
                }));
            }
            Source::Bytes { array, width } => {
                let raw = chunk_bytes(array, start, end)?;
                if *width == 0 {
                    (start..end).for_each(|_| out.push(b""));
                } else {
                    for item in raw.as_bytes().chunks_exact(*width) {
                        let n = item.iter().rposition(|&c| c != 0).map_or(0, |p| p + 1);
                        out.push(&item[..n]);
                    }
                }
            }
            Source::Text { array, width } => {
                let raw = chunk_bytes(array, start, end)?;
                let mut s = String::new();
                if *width == 0 {
                    (start..end).for_each(|_| out.push(b""));
                } else {
                    for (i, item) in (start..).zip(raw.as_bytes().chunks_exact(width * 4)) {
                        s.clear();
                        let points = item
                            .chunks_exact(4)
                            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
                        let n = item
                            .chunks_exact(4)
                            .rposition(|c| c != [0, 0, 0, 0])
                            .map_or(0, |p| p + 1);
                        for p in points.take(n) {
                            s.push(char::from_u32(p).ok_or_else(|| {
                                errors::param(format!(
                                    "keys[{i}]: code point {p:#x} is not a Unicode scalar value"
                                ))
                            })?);
                        }
                        out.push(s.as_bytes());
                    }
                }
            }
            Source::Arrow(c) => c.fill(start, end, out),
        }
        Ok(())
    }
}

/// The raw bytes of `array[start:end]`.
fn chunk_bytes<'py>(
    array: &Bound<'py, PyAny>,
    start: usize,
    end: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let slice = PySlice::new(array.py(), start as isize, end as isize, 1);
    let part = array.get_item(slice)?;
    Ok(part.call_method0("tobytes")?.cast_into::<PyBytes>()?)
}
