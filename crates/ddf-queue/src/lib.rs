//! The queuing construction of the sliding-window paper (§5): any filter, windowed.
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

mod queue;
#[cfg(any(feature = "qht", feature = "bloom"))]
mod sized;

pub use queue::{
    MAX_PLANNED_WINDOW, MAX_SUBFILTERS, Plan, Queue, SubfilterSpec, check_shape, plan_for_window,
    subfilter_kind,
};
#[cfg(any(feature = "qht", feature = "bloom"))]
pub use sized::MAX_SIZED_WINDOW;
#[cfg(feature = "bloom")]
pub use sized::bloom;
#[cfg(feature = "qht")]
pub use sized::qht;
