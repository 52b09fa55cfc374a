//! Age-Partitioned Bloom filters: sliding-window duplicate detection, plain and blocked, by count or by time.
#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

mod blocked;
mod core;
mod sizing;
mod slices;

pub use blocked::Apbbf;
pub use core::MAX_SEGMENTS;
pub use slices::{Apbf, DEFAULT_NPWS};

#[cfg(feature = "serde")]
ddf_core::impl_serde_via_snapshot!(Apbf, Apbbf);
