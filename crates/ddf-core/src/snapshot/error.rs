//! Why a snapshot could not be decoded: [`DecodeError`], whose messages name the kinds and the calls.

use super::*;

/// What a hasher identity in a snapshot says about the bytes.
pub(super) fn hasher_words(id: u16) -> String {
    match id {
        0 => "no hasher: a filter-only snapshot, written by the filter's own `to_bytes` and read \
              by the filter type's `from_bytes`"
            .to_string(),
        1 => "hasher 1, a SipHash-1-3 key (`KeyedSipHasher`): a `Deduper` snapshot, written by \
              `Deduper::to_bytes` and read by `Deduper::from_bytes`"
            .to_string(),
        2 => {
            "hasher 2, a `MixState` key: a `Deduper` snapshot, written by `Deduper::to_bytes` and \
              read by `Deduper::from_bytes` with that hasher"
                .to_string()
        }
        other => format!("hasher {other}, unknown to this build"),
    }
}

/// Why a snapshot could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeError {
    /// The input ended inside `field`.
    Truncated {
        /// The field being read.
        field: &'static str,
    },
    /// The input does not start with [`MAGIC`].
    BadMagic,
    /// The envelope version is not one this build reads.
    UnsupportedFormat {
        /// The version found.
        version: u16,
    },
    /// The snapshot holds another kind of filter.
    WrongKind {
        /// The kind asked for.
        expected: u16,
        /// The kind found.
        found: u16,
    },
    /// The kind code names no filter type this reader reads (an unknown
    /// code, or a family compiled out of this build).
    UnknownKind {
        /// The kind found.
        kind: u16,
    },
    /// The kind's layout version is not one this build reads.
    UnsupportedVersion {
        /// The kind.
        kind: u16,
        /// The version found.
        version: u16,
    },
    /// The hasher section names another hasher (0: none).
    HasherMismatch {
        /// The hasher identity asked for.
        expected: u16,
        /// The hasher identity found.
        found: u16,
    },
    /// The checksum does not match the bytes.
    BadChecksum,
    /// A field holds an impossible value.
    Invalid {
        /// The field.
        field: &'static str,
        /// Why it is impossible.
        reason: String,
    },
    /// The stored parameters are rejected by the filter's constructor.
    Param(ParamError),
    /// Bytes remain after the snapshot's end.
    TrailingBytes {
        /// How many.
        count: u64,
    },
    /// A declared length exceeds [`MAX_SNAPSHOT_BYTES`].
    TooLarge {
        /// The declared length.
        len: u64,
    },
    /// Reading from the source failed.
    Io {
        /// The I/O error's kind.
        kind: io::ErrorKind,
        /// Its message.
        message: String,
    },
}

impl DecodeError {
    /// An [`Invalid`](Self::Invalid) error for `field`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_core::DecodeError;
    ///
    /// let e = DecodeError::invalid("rows", "zero rows");
    /// assert!(matches!(e, DecodeError::Invalid { .. }));
    /// ```
    pub fn invalid(field: &'static str, reason: impl Into<String>) -> Self {
        DecodeError::Invalid {
            field,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Truncated { field } => write!(f, "snapshot truncated in {field}"),
            DecodeError::BadMagic => f.write_str("not a ddf snapshot (bad magic)"),
            DecodeError::UnsupportedFormat { version } => {
                write!(
                    f,
                    "unsupported snapshot format version {version} (this build reads {FORMAT_VERSION})"
                )
            }
            DecodeError::WrongKind { expected, found } => {
                write!(
                    f,
                    "snapshot holds {}; expected {}",
                    kind::describe(*found),
                    kind::describe(*expected)
                )
            }
            DecodeError::UnknownKind { kind } => {
                write!(
                    f,
                    "snapshot holds filter kind {kind:#06x}, which this build does not read"
                )
            }
            DecodeError::UnsupportedVersion { kind, version } => {
                write!(
                    f,
                    "unsupported layout version {version} for the {}",
                    kind::describe(*kind)
                )
            }
            DecodeError::HasherMismatch { expected, found } => {
                write!(
                    f,
                    "these bytes carry {}; this call expects {}",
                    hasher_words(*found),
                    hasher_words(*expected)
                )
            }
            DecodeError::BadChecksum => f.write_str("snapshot checksum mismatch (corrupt bytes)"),
            DecodeError::Invalid { field, reason } => {
                write!(f, "invalid {field} in snapshot: {reason}")
            }
            DecodeError::Param(e) => write!(f, "snapshot parameters rejected: {e}"),
            DecodeError::TrailingBytes { count } => {
                write!(f, "{count} unexpected bytes after the snapshot")
            }
            DecodeError::TooLarge { len } => {
                write!(
                    f,
                    "snapshot declares {len} bytes, above the limit of {MAX_SNAPSHOT_BYTES}"
                )
            }
            DecodeError::Io { kind, message } => {
                write!(f, "reading snapshot failed ({kind:?}): {message}")
            }
        }
    }
}

impl std::error::Error for DecodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DecodeError::Param(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ParamError> for DecodeError {
    fn from(e: ParamError) -> Self {
        DecodeError::Param(e)
    }
}

impl From<io::Error> for DecodeError {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            DecodeError::Truncated { field: "stream" }
        } else {
            DecodeError::Io {
                kind: e.kind(),
                message: e.to_string(),
            }
        }
    }
}
