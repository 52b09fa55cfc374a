//! The traits, types and contract shared by every `ddf` filter.
#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
// The README links the items of feature `serde`; without it they do not exist,
// and those two links render as plain text. The all-features build keeps the
// lint.
#![cfg_attr(not(feature = "serde"), allow(rustdoc::broken_intra_doc_links))]
#![forbid(unsafe_code)]

pub mod batch;
mod clock;
mod deduper;
mod ext;
mod filter;
pub mod group;
pub mod merge;
pub mod sizing;
pub mod snapshot;
#[cfg(feature = "testing")]
pub mod speed;
#[cfg(feature = "testing")]
pub mod testing;

pub use clock::TimeClock;
pub use ddf_hash::{Digest, KeyedSipHasher, PortableHasher, digest};
pub use ddf_param::ParamError;
pub use deduper::Deduper;
pub use ext::{FilterExt, Tally};
pub use filter::{DuplicateFilter, TimedFilter, Verdict, Window, Windowed};
pub use merge::{Merge, MergeError};
pub use sizing::{Goal, Prediction};
pub use snapshot::{DecodeError, Snapshot};
