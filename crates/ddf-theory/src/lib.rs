//! Closed forms, recursions and bounds of the duplicate-detection papers, as documented pure functions.
#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

pub mod a2;
pub mod adversary;
pub mod apbf;
pub mod bdbf;
pub mod blocked_bloom;
pub mod bloom;
pub mod cuckoo;
pub mod merge;
pub mod numerics;
pub mod qht;
pub mod queue;
pub mod sharding;
pub mod shf;
pub mod sliding_bloom;
pub mod sliding_window;
pub mod stable_bloom;
pub mod stats;
pub mod stream;
