//! Duplicate-detection filters for unbounded streams: one dependency for every `ddf` family.
#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
mod planner;

#[cfg(feature = "apbf")]
pub mod concurrent;
pub mod filter;
pub mod registry;
pub mod request;
pub mod shared;
pub mod state;

/// A figure of the guide, drawn by `cargo xtask figures`, embedded as inline
/// SVG so that every copy of the docs (docs.rs, `cargo doc` offline) shows
/// it. The files in `figures/` link to `docs/figures/`, the one copy.
macro_rules! guide_figure {
    ($name:literal, $caption:literal) => {
        concat!(
            "\n<figure>\n",
            include_str!(concat!("../figures/", $name, ".svg")),
            "\n<figcaption>",
            $caption,
            // rustdoc trims the blank line that must end the HTML block at
            // the end of a fragment; the comment keeps one inside it.
            "</figcaption>\n</figure>\n\n<!-- end of figure -->"
        )
    };
}

#[doc = include_str!("guide/1-which-filter.md")]
#[doc = guide_figure!(
    "sliding-space",
    "Space of windowed filters against the Naor–Yogev lower bound"
)]
#[doc = include_str!("guide/2-at-a-glance.md")]
#[doc = guide_figure!("window-memory", "Memory of the exact and near-exact filters")]
#[doc = include_str!("guide/3-misses-allowed.md")]
#[doc = guide_figure!(
    "queue-er-vs-window",
    "Queued filters of 10^5 bits against the window"
)]
#[doc = include_str!("guide/4-whole-stream.md")]
#[doc = guide_figure!(
    "ddp-saturation",
    "Saturation of a DDP filter with stream length"
)]
#[doc = include_str!("guide/5-theory-notes.md")]
pub mod guide {}

#[cfg(feature = "apbf")]
pub use concurrent::{ConcurrentBuildError, ConcurrentFilter};
pub use ddf_core::snapshot;
pub use ddf_core::{
    DecodeError, Deduper, Digest, DuplicateFilter, FilterExt, Goal, KeyedSipHasher, Merge,
    MergeError, ParamError, PortableHasher, Prediction, Snapshot, Tally, TimedFilter, Verdict,
    Window, Windowed, digest,
};
pub use filter::Filter;
pub use planner::{Candidate, Cost, Exclusion, PlanError, Requirements, Span, Tier, plan};
pub use registry::{Config, Family, UnknownFamily};
pub use request::{Choice, Refusal, Request, Vocabulary};
pub use shared::{DEFAULT_SHARDS, MAX_SHARDS, ShardedPlan, Shared, plan_sharded};

/// Hashing: the keyed SipHash-1-3 hasher, digests, fingerprints and probes
/// (the `ddf-hash` crate).
pub use ddf_hash as hash;

/// The papers' closed forms, numerics and statistics (the `ddf-theory` crate).
pub use ddf_theory as theory;

/// The exact windowed filter of Theorem 1 (the `ddf-exact` crate).
#[cfg(feature = "exact")]
pub use ddf_exact as exact;
#[cfg(feature = "exact")]
pub use ddf_exact::ExactWindow;

/// Quotient hash tables: QHT, QHTD, QQHTD and SQF (the `ddf-qht` crate).
#[cfg(feature = "qht")]
pub use ddf_qht as qht;
#[cfg(feature = "qht")]
pub use ddf_qht::{Qht, Qhtd, Qqhtd, Sqf};

/// The streaming cuckoo filter (the `ddf-cuckoo` crate).
#[cfg(feature = "cuckoo")]
pub use ddf_cuckoo as cuckoo;
#[cfg(feature = "cuckoo")]
pub use ddf_cuckoo::StreamingCuckoo;

/// Bloom filters for streams: partitioned, Stable, A2, block-decaying (the
/// `ddf-bloom` crate).
#[cfg(feature = "bloom")]
pub use ddf_bloom as bloom;
#[cfg(feature = "bloom")]
pub use ddf_bloom::{
    A2, AtomicPartitionedBloom, BlockDecayingBloom, PartitionedBloom, StableBloom,
};

/// Age-Partitioned Bloom filters, plain and blocked (the `ddf-apbf` crate).
#[cfg(feature = "apbf")]
pub use ddf_apbf as apbf;
#[cfg(feature = "apbf")]
pub use ddf_apbf::{Apbbf, Apbf, AtomicApbbf, AtomicApbf};

/// Short Hash Filters: SHF and Compact SHF (the `ddf-shf` crate).
#[cfg(feature = "shf")]
pub use ddf_shf as shf;
#[cfg(feature = "shf")]
pub use ddf_shf::{CompactShf, Shf};

/// The queuing construction over any filter (the `ddf-queue` crate).
#[cfg(feature = "queue")]
pub use ddf_queue as queue;
#[cfg(feature = "queue")]
pub use ddf_queue::Queue;

#[cfg(all(feature = "queue", feature = "qht"))]
pub use ddf_queue::qht::queued_qht;

/// The Naor–Yogev sliding Bloom filter (the `ddf-sliding` crate).
#[cfg(feature = "sliding")]
pub use ddf_sliding as sliding;
#[cfg(feature = "sliding")]
pub use ddf_sliding::{Slack, SlidingBloom};

/// The repository's front page (`README.md` at the root), compiled and run as
/// a doc test so its example stays true for a user who depends on `ddf`.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct RepositoryReadme;
