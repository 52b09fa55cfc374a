//! Windowed duplicate detection as a Redis module.
#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod alloc;
pub mod cluster;
mod module;
mod plan;
mod state;

pub use alloc::ServerAlloc;
