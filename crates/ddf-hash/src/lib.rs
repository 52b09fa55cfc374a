//! Keyed item hashing and the derivations every `ddf` filter shares.
#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

mod digest;
mod fingerprint;
mod hasher;
mod mix;
mod rng;

pub use digest::{Digest, IndexedProbes, ProbeHashes, Probes};
pub use fingerprint::{Fingerprinter, ZeroPolicy};
pub use hasher::{KeyedSipHasher, MixHasher, MixState, PortableHasher};
pub use mix::mix64;
pub use rng::{SeededRng, SplitMix64};

pub use ddf_param::ParamError;

/// Hashes `item` once with `hasher` into a [`Digest`].
///
/// Every filter works on digests; hash an item once and hand the same digest
/// to every structure that needs it.
#[inline]
pub fn digest<S, T>(hasher: &S, item: &T) -> Digest
where
    S: std::hash::BuildHasher,
    T: std::hash::Hash + ?Sized,
{
    Digest::new(hasher.hash_one(item))
}
