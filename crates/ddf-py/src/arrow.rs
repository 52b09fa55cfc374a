//! Arrow columns as keys, read through the Arrow C data interface: the
//! PyCapsule protocol's `__arrow_c_array__` (one array) and
//! `__arrow_c_stream__` (a stream of arrays: a chunked array, a pandas or
//! polars column). The arrays are moved out of their capsules and read in
//! place, without a Python object per key and without the GIL.
//!
//! Read: strings and binary (`utf8`, `large_utf8`, `binary`,
//! `large_binary` and their view forms) as their bytes, integers of every
//! width as decimal text (the bytes every front end hashes for an int). A
//! null is refused by its index; every offset and view is checked once at
//! import, so reading a chunk cannot fail.
//!
//! The structs are the C data interface's own (its ABI is fixed by the
//! Arrow specification); this is the one module of the crate with
//! `unsafe` code, each block with its reason.
#![allow(unsafe_code)]

use crate::errors;
use crate::keys::Keys;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyCapsuleMethods, PyTuple};
use std::ffi::{CStr, c_char, c_int, c_void};
use std::ptr::NonNull;

/// `struct ArrowSchema` of the C data interface.
#[repr(C)]
#[derive(Debug)]
struct ArrowSchema {
    format: *const c_char,
    name: *const c_char,
    metadata: *const c_char,
    flags: i64,
    n_children: i64,
    children: *mut *mut ArrowSchema,
    dictionary: *mut ArrowSchema,
    release: Option<unsafe extern "C" fn(*mut ArrowSchema)>,
    private_data: *mut c_void,
}

/// `struct ArrowArray` of the C data interface.
#[repr(C)]
#[derive(Debug)]
struct ArrowArray {
    length: i64,
    null_count: i64,
    offset: i64,
    n_buffers: i64,
    n_children: i64,
    buffers: *mut *const c_void,
    children: *mut *mut ArrowArray,
    dictionary: *mut ArrowArray,
    release: Option<unsafe extern "C" fn(*mut ArrowArray)>,
    private_data: *mut c_void,
}

/// `struct ArrowArrayStream` of the C stream interface.
#[repr(C)]
#[derive(Debug)]
struct ArrowArrayStream {
    get_schema: Option<unsafe extern "C" fn(*mut ArrowArrayStream, *mut ArrowSchema) -> c_int>,
    get_next: Option<unsafe extern "C" fn(*mut ArrowArrayStream, *mut ArrowArray) -> c_int>,
    get_last_error: Option<unsafe extern "C" fn(*mut ArrowArrayStream) -> *const c_char>,
    release: Option<unsafe extern "C" fn(*mut ArrowArrayStream)>,
    private_data: *mut c_void,
}

/// Owns a struct moved out of its producer: released once, on drop.
macro_rules! owned {
    ($name:ident, $raw:ty) => {
        #[derive(Debug)]
        struct $name($raw);
        impl Drop for $name {
            fn drop(&mut self) {
                if let Some(release) = self.0.release {
                    // SAFETY: the struct was moved out of its producer (the
                    // source marked released), so this is its one release,
                    // as the interface requires of the consumer.
                    unsafe { release(&mut self.0) };
                }
            }
        }
    };
}
owned!(Schema, ArrowSchema);
owned!(Array, ArrowArray);
owned!(Stream, ArrowArrayStream);

impl Schema {
    fn empty() -> Schema {
        Schema(ArrowSchema {
            format: std::ptr::null(),
            name: std::ptr::null(),
            metadata: std::ptr::null(),
            flags: 0,
            n_children: 0,
            children: std::ptr::null_mut(),
            dictionary: std::ptr::null_mut(),
            release: None,
            private_data: std::ptr::null_mut(),
        })
    }

    /// The format string (`u`, `l`, `vu`, …).
    fn format(&self) -> Result<String, String> {
        if self.0.release.is_none() || self.0.format.is_null() {
            return Err("an Arrow schema without a format".into());
        }
        // SAFETY: a live schema's format is a NUL-terminated string owned
        // by the schema (the interface's contract), read before release.
        let format = unsafe { CStr::from_ptr(self.0.format) };
        Ok(format.to_string_lossy().into_owned())
    }
}

impl Array {
    fn empty() -> Array {
        Array(ArrowArray {
            length: 0,
            null_count: 0,
            offset: 0,
            n_buffers: 0,
            n_children: 0,
            buffers: std::ptr::null_mut(),
            children: std::ptr::null_mut(),
            dictionary: std::ptr::null_mut(),
            release: None,
            private_data: std::ptr::null_mut(),
        })
    }

    /// Buffer `i` as `len` bytes (empty when `len` is 0 or the buffer is
    /// absent, which the interface allows only where nothing is read).
    fn buffer(&self, i: usize, len: usize) -> Result<&[u8], String> {
        if len == 0 {
            return Ok(&[]);
        }
        if i >= self.0.n_buffers as usize || self.0.buffers.is_null() {
            return Err(format!("an Arrow array without buffer {i}"));
        }
        // SAFETY: `buffers` holds `n_buffers` pointers (checked above), owned
        // by the array until it is released, which `&self` prevents.
        let ptr = unsafe { *self.0.buffers.add(i) };
        if ptr.is_null() {
            return Err(format!("an Arrow array whose buffer {i} is missing"));
        }
        // SAFETY: the producer's buffer holds at least the bytes its layout
        // addresses (`len`, computed from the array's length and offset as
        // the format defines), immutable while the array lives.
        Ok(unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) })
    }

    fn len(&self) -> usize {
        self.0.length as usize
    }

    fn offset(&self) -> usize {
        self.0.offset as usize
    }
}

/// How a chunk's values are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// Offsets of `width` bytes (4 or 8) into one data buffer.
    Bytes { width: usize },
    /// 16-byte views into variadic data buffers.
    View,
    /// Integers of `width` bytes.
    Int { width: usize, signed: bool },
}

impl Layout {
    /// The layout of an Arrow format string, or what to say about it.
    fn of(format: &str) -> Result<Layout, Refused> {
        let int = |width, signed| Ok(Layout::Int { width, signed });
        match format {
            "u" | "z" => Ok(Layout::Bytes { width: 4 }),
            "U" | "Z" => Ok(Layout::Bytes { width: 8 }),
            "vu" | "vz" => Ok(Layout::View),
            "c" => int(1, true),
            "C" => int(1, false),
            "s" => int(2, true),
            "S" => int(2, false),
            "i" => int(4, true),
            "I" => int(4, false),
            "l" => int(8, true),
            "L" => int(8, false),
            other => Err(Refused::Type(format!(
                "keys: an Arrow column of type {} holds no key type (strings, binary or \
                 integers; cast it, or pass key= to map each value)",
                type_words(other)
            ))),
        }
    }
}

/// An Arrow format string in words, for messages.
fn type_words(format: &str) -> String {
    let name = match format {
        "n" => "null",
        "b" => "bool",
        "e" => "float16",
        "f" => "float32",
        "g" => "float64",
        "+s" => "struct (a table: pass one column)",
        "+l" | "+L" | "+vl" | "+vL" => "list",
        f if f.starts_with("ts") => "timestamp",
        f if f.starts_with("td") => "date",
        f if f.starts_with("tt") => "time",
        f if f.starts_with("tD") => "duration",
        f if f.starts_with("d:") => "decimal",
        f => return format!("with format {f:?}"),
    };
    name.to_string()
}

/// Why a column is refused: a type that holds no keys or a null, as a
/// list's `None` is (`ddf.ParamTypeError`), or corrupt buffers
/// (`ddf.ParamError`).
#[derive(Debug)]
enum Refused {
    Type(String),
    Value(String),
}

impl From<String> for Refused {
    fn from(s: String) -> Refused {
        Refused::Value(s)
    }
}

impl From<Refused> for PyErr {
    fn from(r: Refused) -> PyErr {
        match r {
            Refused::Type(m) => errors::param_type(m),
            Refused::Value(m) => errors::param(m),
        }
    }
}

/// One array of a column, checked: every value it holds can be read.
#[derive(Debug)]
struct Chunk {
    array: Array,
    layout: Layout,
}

/// Little-endian integer of `b.len()` ≤ 8 bytes, sign-extended if `signed`.
#[inline]
fn int_at(b: &[u8], signed: bool) -> u64 {
    let mut w = [0u8; 8];
    w[..b.len()].copy_from_slice(b);
    let v = u64::from_le_bytes(w);
    let shift = 64 - 8 * b.len() as u32;
    if signed && shift > 0 {
        (((v << shift) as i64) >> shift) as u64
    } else {
        v
    }
}

impl Chunk {
    /// Checks `array` against `layout` (lengths, offsets, views, nulls);
    /// `base` is its first key's index in the column, for messages.
    fn new(array: Array, layout: Layout, base: usize) -> Result<Chunk, Refused> {
        let a = &array.0;
        if a.length < 0 || a.offset < 0 || a.n_buffers < 0 {
            return Err(Refused::Value(
                "an Arrow array with a negative length or offset".into(),
            ));
        }
        if !a.dictionary.is_null() {
            return Err(Refused::Type(dictionary_words()));
        }
        let chunk = Chunk { array, layout };
        chunk.check_values()?;
        if let Some(i) = chunk.first_null()? {
            return Err(Refused::Type(format!(
                "keys[{}]: missing value (null); drop or fill missing keys first",
                base + i
            )));
        }
        Ok(chunk)
    }

    /// The offsets of a `Bytes` chunk (`len + 1` of `width` bytes).
    fn offsets(&self, width: usize) -> Result<&[u8], String> {
        let (a, len) = (&self.array, self.array.len());
        if len == 0 {
            return Ok(&[]);
        }
        a.buffer(1, (a.offset() + len + 1) * width)
            .map(|b| &b[a.offset() * width..])
    }

    /// The data buffer of a `Bytes` chunk: as long as its last offset (the
    /// largest, once `check_values` found them non-decreasing).
    fn data(&self, width: usize) -> Result<&[u8], String> {
        let offsets = self.offsets(width)?;
        let end = offsets
            .len()
            .checked_sub(width)
            .map_or(0, |last| int_at(&offsets[last..], true));
        let end = usize::try_from(end as i64)
            .map_err(|_| "an Arrow array with a negative offset".to_string())?;
        self.array.buffer(2, end)
    }

    /// The variadic data buffers of a `View` chunk.
    fn view_buffers(&self) -> Result<Vec<&[u8]>, String> {
        let a = &self.array;
        let n = a.0.n_buffers as usize;
        if n < 3 {
            return Err("an Arrow view array without its buffer sizes".into());
        }
        let count = n - 3;
        let sizes = a.buffer(n - 1, count * 8)?;
        (0..count)
            .map(|i| {
                let size = int_at(&sizes[i * 8..i * 8 + 8], true);
                let size = usize::try_from(size)
                    .map_err(|_| "an Arrow view buffer of negative size".to_string())?;
                a.buffer(2 + i, size)
            })
            .collect()
    }

    /// The views of a `View` chunk (16 bytes each).
    fn views(&self) -> Result<&[u8], String> {
        let (a, len) = (&self.array, self.array.len());
        a.buffer(1, (a.offset() + len) * 16)
            .map(|b| if len == 0 { b } else { &b[a.offset() * 16..] })
    }

    /// Checks that every value lies within its buffers.
    fn check_values(&self) -> Result<(), String> {
        let corrupt = || "an Arrow array with offsets or views outside its buffers".to_string();
        match self.layout {
            Layout::Bytes { width } => {
                let offsets = self.offsets(width)?;
                let mut previous = None;
                for o in offsets.chunks_exact(width) {
                    let o = int_at(o, true) as i64;
                    if o < 0 || previous.is_some_and(|p| p > o) {
                        return Err(corrupt());
                    }
                    previous = Some(o);
                }
                self.data(width).map(|_| ())
            }
            Layout::View => {
                let buffers = self.view_buffers()?;
                for v in self.views()?.chunks_exact(16) {
                    let len = int_at(&v[0..4], true) as i64;
                    if len < 0 {
                        return Err(corrupt());
                    }
                    if len > 12 {
                        let index = int_at(&v[8..12], false) as usize;
                        let start = int_at(&v[12..16], false) as usize;
                        let fits = buffers
                            .get(index)
                            .is_some_and(|b| start + len as usize <= b.len());
                        if !fits {
                            return Err(corrupt());
                        }
                    }
                }
                Ok(())
            }
            Layout::Int { width, .. } => self
                .array
                .buffer(1, (self.array.offset() + self.array.len()) * width)
                .map(|_| ()),
        }
    }

    /// The index of the first null, if any.
    fn first_null(&self) -> Result<Option<usize>, String> {
        let (a, len) = (&self.array, self.array.len());
        if a.0.null_count == 0 || len == 0 {
            return Ok(None);
        }
        let bits = a.buffer(0, (a.offset() + len).div_ceil(8));
        let bits = match bits {
            Ok(b) => b,
            // No validity bitmap: no nulls.
            Err(_) => return Ok(None),
        };
        Ok((0..len).find(|&i| {
            let j = a.offset() + i;
            bits[j / 8] >> (j % 8) & 1 == 0
        }))
    }

    /// Appends keys `lo..hi` of this chunk to `out` (checked at import).
    fn fill(&self, lo: usize, hi: usize, out: &mut Keys) {
        let checked = "checked at import";
        match self.layout {
            Layout::Bytes { width } => {
                let offsets = self.offsets(width).expect(checked);
                let data = self.data(width).expect(checked);
                let at = |i: usize| int_at(&offsets[i * width..(i + 1) * width], true) as usize;
                for i in lo..hi {
                    out.push(&data[at(i)..at(i + 1)]);
                }
            }
            Layout::View => {
                let buffers = self.view_buffers().expect(checked);
                let views = self.views().expect(checked);
                for v in views[lo * 16..hi * 16].chunks_exact(16) {
                    let len = int_at(&v[0..4], true) as usize;
                    if len <= 12 {
                        out.push(&v[4..4 + len]);
                    } else {
                        let index = int_at(&v[8..12], false) as usize;
                        let start = int_at(&v[12..16], false) as usize;
                        out.push(&buffers[index][start..start + len]);
                    }
                }
            }
            Layout::Int { width, signed } => {
                let a = &self.array;
                let values = a.buffer(1, (a.offset() + a.len()) * width).expect(checked);
                let values = &values[(a.offset() + lo) * width..(a.offset() + hi) * width];
                if width == 8 {
                    // The common case: one load per key, no sign extension.
                    let word = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
                    out.push_ints(signed, values.chunks_exact(8).map(word));
                } else {
                    let extend = |b: &[u8]| int_at(b, signed);
                    out.push_ints(signed, values.chunks_exact(width).map(extend));
                }
            }
        }
    }
}

/// What to say about a dictionary-encoded (categorical) column.
fn dictionary_words() -> String {
    "keys: an Arrow dictionary (categorical) column; cast it to its values first \
     (pandas: .astype(str), polars: .cast(pl.String), pyarrow: .dictionary_decode())"
        .into()
}

/// An Arrow column of keys: its arrays, checked, in order.
#[derive(Debug)]
pub(crate) struct Column {
    chunks: Vec<(usize, Chunk)>,
    len: usize,
}

// SAFETY: the arrays are immutable while held (the C data interface's
// contract) and only read; they are released on the thread that drops the
// column, which holds the GIL, as producers backed by Python objects need.
unsafe impl Send for Column {}
// SAFETY: as above: shared access only reads immutable buffers.
unsafe impl Sync for Column {}

/// Moves the struct a capsule named `name` holds out of it, marking the
/// capsule's copy released (the PyCapsule protocol's rule for consumers).
fn take<T>(capsule: &Bound<'_, PyCapsule>, name: &CStr) -> PyResult<T>
where
    T: Released,
{
    let ptr: NonNull<c_void> = capsule.pointer_checked(Some(name))?;
    let ptr = ptr.cast::<T>().as_ptr();
    // SAFETY: a capsule of this name holds a live struct of this type (the
    // protocol); it is copied out and its release cleared, so the capsule's
    // destructor leaves it to the copy.
    unsafe {
        let taken = std::ptr::read(ptr);
        T::mark_released(ptr);
        Ok(taken)
    }
}

/// A C data interface struct whose release callback can be cleared.
trait Released {
    /// Clears the release callback of the struct at `ptr`.
    ///
    /// # Safety
    /// `ptr` points to a live struct of this type.
    unsafe fn mark_released(ptr: *mut Self);
}

impl Released for ArrowSchema {
    unsafe fn mark_released(ptr: *mut Self) {
        // SAFETY: the caller's contract.
        unsafe { (*ptr).release = None }
    }
}
impl Released for ArrowArray {
    unsafe fn mark_released(ptr: *mut Self) {
        // SAFETY: the caller's contract.
        unsafe { (*ptr).release = None }
    }
}
impl Released for ArrowArrayStream {
    unsafe fn mark_released(ptr: *mut Self) {
        // SAFETY: the caller's contract.
        unsafe { (*ptr).release = None }
    }
}

impl Column {
    /// The column `obj` exports, or `None` when it has no Arrow export.
    pub(crate) fn import(obj: &Bound<'_, PyAny>) -> PyResult<Option<Column>> {
        if obj.hasattr("__arrow_c_array__")? {
            let pair = obj.call_method0("__arrow_c_array__")?;
            let pair = pair.cast::<PyTuple>()?;
            let schema = Schema(take(&pair.get_item(0)?.cast_into()?, c"arrow_schema")?);
            let array = Array(take(&pair.get_item(1)?.cast_into()?, c"arrow_array")?);
            let layout = layout_of(&schema)?;
            let len = array.len();
            let chunk = Chunk::new(array, layout, 0)?;
            return Ok(Some(Column {
                chunks: vec![(0, chunk)],
                len,
            }));
        }
        if obj.hasattr("__arrow_c_stream__")? {
            let capsule = obj.call_method0("__arrow_c_stream__")?;
            let stream = Stream(take(&capsule.cast_into()?, c"arrow_array_stream")?);
            return Ok(Some(Column::read(stream)?));
        }
        Ok(None)
    }

    /// Every array of `stream`, checked.
    fn read(mut stream: Stream) -> Result<Column, Refused> {
        let s = &mut stream.0;
        let (Some(get_schema), Some(get_next)) = (s.get_schema, s.get_next) else {
            return Err(Refused::Value("an Arrow stream without callbacks".into()));
        };
        let mut schema = Schema::empty();
        // SAFETY: a live stream's callback, writing a schema the consumer
        // then owns.
        let rc = unsafe { get_schema(s, &mut schema.0) };
        if rc != 0 {
            return Err(Refused::Value(stream_error(s, rc)));
        }
        let layout = layout_of(&schema)?;
        let mut chunks = Vec::new();
        let mut len = 0;
        loop {
            let mut array = Array::empty();
            // SAFETY: as above; a released array marks the end.
            let rc = unsafe { get_next(s, &mut array.0) };
            if rc != 0 {
                return Err(Refused::Value(stream_error(s, rc)));
            }
            if array.0.release.is_none() {
                break;
            }
            let n = array.len();
            chunks.push((len, Chunk::new(array, layout, len)?));
            len += n;
        }
        Ok(Column { chunks, len })
    }

    /// The number of keys.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Appends keys `start..end` to `out` (cleared first). Needs no GIL.
    pub(crate) fn fill(&self, start: usize, end: usize, out: &mut Keys) {
        out.clear();
        for (base, chunk) in &self.chunks {
            let (lo, hi) = (start.max(*base), end.min(base + chunk.array.len()));
            if lo < hi {
                chunk.fill(lo - base, hi - base, out);
            }
        }
    }
}

/// The layout of a schema's values.
fn layout_of(schema: &Schema) -> Result<Layout, Refused> {
    if !schema.0.dictionary.is_null() {
        return Err(Refused::Type(dictionary_words()));
    }
    Layout::of(&schema.format()?)
}

/// The stream's own message for an error code.
fn stream_error(s: &mut ArrowArrayStream, rc: c_int) -> String {
    let message = s.get_last_error.and_then(|f| {
        // SAFETY: a live stream's callback; the text lives until the next
        // call on the stream, and is copied at once.
        let p = unsafe { f(s) };
        // SAFETY: non-null: a NUL-terminated string (the interface).
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    });
    format!(
        "keys: the Arrow stream failed (error {rc}): {}",
        message.unwrap_or_else(|| "no message".into())
    )
}
