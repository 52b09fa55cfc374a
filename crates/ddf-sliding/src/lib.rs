//! The Naor–Yogev sliding Bloom filter: a generation-tagged fingerprint dictionary.
#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

mod filter;
mod plan;
mod sizing;
mod snapshot;
mod table;

pub use filter::SlidingBloom;
pub use plan::{CELLS_PER_BUCKET, DESIGN_LOAD, DESIGN_LOAD_RANGE, Sizing, Slack};
pub use table::{EntryKey, MAX_KICKS};

#[cfg(feature = "serde")]
ddf_core::impl_serde_via_snapshot!(SlidingBloom);
