//! Closed forms, recursions and bounds of the duplicate-detection papers, as documented pure functions.
#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

pub mod bloom;
pub mod cuckoo;
pub mod numerics;
pub mod qht;
pub mod sliding_window;
pub mod stats;
pub mod stream;
