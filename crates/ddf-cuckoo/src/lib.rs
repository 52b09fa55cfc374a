//! The cuckoo filter of Fan et al., adapted to unbounded streams.
#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

/// The core items a user of this crate alone needs (from `ddf-core`): the
/// filter traits, the verdict, the hashing `Deduper` front and the errors.
#[doc(no_inline)]
pub use ddf_core::{
    DecodeError, Deduper, Digest, DuplicateFilter, KeyedSipHasher, Merge, MergeError, ParamError,
    Snapshot, TimedFilter, Verdict, Window, Windowed, digest,
};

mod filter;

pub use ddf_hash::ZeroPolicy;
pub use filter::{FullTable, StreamRule, StreamingCuckoo};
