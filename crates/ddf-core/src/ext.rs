//! Generic conveniences on every filter, kept out of the object-safe core trait.

use crate::filter::{DuplicateFilter, Verdict};
use ddf_hash::Digest;
use std::hash::{BuildHasher, Hash};

/// How many of a run of observations came out each way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Items reported as unseen.
    pub unseen: u64,
    /// Items reported as duplicates.
    pub duplicates: u64,
}

impl Tally {
    /// Counts one verdict.
    pub fn add(&mut self, verdict: Verdict) {
        match verdict {
            Verdict::Unseen => self.unseen += 1,
            Verdict::Duplicate => self.duplicates += 1,
        }
    }

    /// All verdicts counted.
    pub fn total(&self) -> u64 {
        self.unseen + self.duplicates
    }
}

/// Extension methods for every [`DuplicateFilter`], in the style of `rand::Rng`
/// over `rand_core::RngCore`: generic helpers that would make the core trait
/// non-object-safe. Implemented for all filters, boxed ones included.
pub trait FilterExt: DuplicateFilter {
    /// Hashes `item` with `hasher` and observes it.
    fn observe_item<T, S>(&mut self, hasher: &S, item: &T) -> Verdict
    where
        T: Hash + ?Sized,
        S: BuildHasher,
    {
        self.observe(ddf_hash::digest(hasher, item))
    }

    /// Hashes `item` with `hasher` and asks whether it was seen.
    fn contains_item<T, S>(&self, hasher: &S, item: &T) -> bool
    where
        T: Hash + ?Sized,
        S: BuildHasher,
    {
        self.contains(ddf_hash::digest(hasher, item))
    }

    /// Observes every digest in order and counts the verdicts.
    fn observe_all<I>(&mut self, digests: I) -> Tally
    where
        I: IntoIterator<Item = Digest>,
    {
        let mut tally = Tally::default();
        for d in digests {
            tally.add(self.observe(d));
        }
        tally
    }

    /// Boxes the filter as a trait object.
    fn boxed<'a>(self) -> Box<dyn DuplicateFilter + 'a>
    where
        Self: Sized + 'a,
    {
        Box::new(self)
    }
}

impl<F: DuplicateFilter + ?Sized> FilterExt for F {}
