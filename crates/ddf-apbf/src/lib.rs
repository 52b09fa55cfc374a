//! Age-Partitioned Bloom filters: sliding-window duplicate detection, plain and blocked, by count or by time.
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

mod age;
mod atomic;
mod atomic_blocked;
mod atomic_filter;
mod atomic_slices;
mod blocked;
mod core;
mod placement;
mod query;
mod sizing;
mod slices;
#[cfg(feature = "testing")]
pub mod testing;

pub use age::{AgePartitioned, SegmentLayout};
pub use atomic_blocked::AtomicApbbf;
pub use atomic_filter::{Atomic, AtomicForm};
pub use atomic_slices::AtomicApbf;
pub use blocked::{Apbbf, Blocks};
pub use core::MAX_SEGMENTS;
pub use sizing::{APBBF_SEGMENT_TOLERANCE, ApbbfParameters};
pub use slices::{Apbf, DEFAULT_NPWS, Slices};

#[cfg(feature = "serde")]
ddf_core::impl_serde_via_snapshot!(Apbf, Apbbf);
