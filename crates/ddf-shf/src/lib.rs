//! The Short Hash Filter and the Compact Short Hash Filter (sliding-window paper, §3).
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

mod compact;
mod ring;
mod shf;
mod sizing;
mod table;

pub use compact::CompactShf;
pub use shf::Shf;

/// `⌈log₂ w⌉` for `w ≥ 1`, the bits Theorem 2's near-exact sizing doubles.
fn ceil_log2(w: u64) -> u32 {
    64 - (w - 1).leading_zeros()
}

/// The near-exact hash width of Theorem 2, `h = 2·⌈log₂ w⌉`, kept in 1..=64:
/// a new item collides with one of `w` stored hashes with probability about `1/w`.
fn near_exact_bits(window: u64) -> u32 {
    (2 * ceil_log2(window.max(1))).clamp(1, 64)
}

#[cfg(feature = "serde")]
ddf_core::impl_serde_via_snapshot!(Shf, CompactShf);
