//! The Naor–Yogev sliding Bloom filter: a generation-tagged fingerprint dictionary.
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

mod buckets;
mod filter;
mod lines;
mod plan;
mod sizing;
mod snapshot;
mod table;

pub use filter::SlidingBloom;
pub use plan::{
    ALIGNED_SPACE_MARGIN, BEYOND_CACHE_BITS, CELLS_PER_BUCKET, COUNTER_WORDS, DESIGN_LOAD,
    DESIGN_LOAD_RANGE, LEAST_SPACE_LOAD, LINE_SPACE_MARGIN, Layout, LayoutChoice,
    MAX_CELLS_PER_BUCKET, SCAN_SPEEDUP, Sizing, Slack, SpaceBreakdown,
};
pub use table::{EntryKey, MAX_KICKS, STASH_CAPACITY};

#[cfg(feature = "serde")]
ddf_core::impl_serde_via_snapshot!(SlidingBloom);
