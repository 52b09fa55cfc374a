//! Quotient hash tables for duplicate detection: QHT, QHTD, QQHTD and SQF.
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

mod quotient;
mod rows;
mod sizing;
mod sqf;

pub use ddf_hash::ZeroPolicy;
pub use quotient::{Distinct, Duplicates, Fifo, Insertion, Qht, Qhtd, Qqhtd, QuotientFilter};
pub use sqf::Sqf;

#[cfg(feature = "serde")]
ddf_core::impl_serde_via_snapshot!(Sqf);
#[cfg(feature = "serde")]
ddf_core::impl_serde_via_snapshot!(impl<I: Insertion> for QuotientFilter<I>);
