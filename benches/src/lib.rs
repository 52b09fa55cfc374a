//! The harness of ddf's benchmark suite: key streams, the hardware floor and the case manifest.
#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

pub mod floor;
pub mod keys;
pub mod manifest;
pub mod tumbling;

pub use floor::Floor;
pub use keys::{KeyStream, Str40, StreamKind};
pub use manifest::{Case, GrowthCase, Manifest};
pub use tumbling::Tumbling;

use ddf_core::{Digest, DuplicateFilter, Verdict};
use std::hash::{BuildHasher, Hash};

/// Operations per timed iteration: criterion's time per iteration divided by
/// this is the cost of one operation.
pub const OPS: usize = 4096;

/// Digests per `observe_batch` call on the batch path.
pub const BATCH: usize = 64;

/// The memory of an "L2-sized" filter: 1 Mbit (128 KiB), as in Table 3 of
/// the QHT paper; the L2 cache here is 2 MiB per core.
pub const L2_BITS: u64 = 1 << 20;

/// The memory of a "DRAM-sized" filter: 64 MiB, well past the L2 cache.
pub const DRAM_BITS: u64 = 1 << 29;

/// Which path an operation takes through [`DuplicateFilter`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Path {
    /// `observe` once per item: hash, then observe.
    OneByOne,
    /// Hash a block of [`BATCH`] items, then one `observe_batch` call.
    Batch,
}

impl Path {
    /// The name in reports: `one` or `batch`.
    pub fn name(self) -> &'static str {
        match self {
            Path::OneByOne => "one",
            Path::Batch => "batch",
        }
    }
}

/// One timed iteration: [`OPS`] items from `keys`, hashed with `hasher`
/// and observed by `filter` along `path`. Returns the number of duplicates
/// reported, so the work cannot be optimised away.
///
/// The digest of an item is `hash(item) ⊕ salt`, where the salt changes on
/// every pass over the stream: a pass never meets the previous one's items.
#[inline]
pub fn run_block<F, S, K>(
    filter: &mut F,
    hasher: &S,
    keys: &mut KeyStream<K>,
    path: Path,
    scratch: &mut Vec<Verdict>,
) -> usize
where
    F: DuplicateFilter + ?Sized,
    S: BuildHasher,
    K: Hash,
{
    let (block, salt) = keys.block(OPS);
    match path {
        Path::OneByOne => block
            .iter()
            .filter(|k| {
                filter
                    .observe(Digest::new(hasher.hash_one(k) ^ salt))
                    .is_duplicate()
            })
            .count(),
        Path::Batch => {
            let mut digests = [Digest::new(0); BATCH];
            let mut dups = 0;
            for chunk in block.chunks(BATCH) {
                for (d, k) in digests.iter_mut().zip(chunk) {
                    *d = Digest::new(hasher.hash_one(k) ^ salt);
                }
                scratch.clear();
                filter.observe_batch(&digests[..chunk.len()], scratch);
                dups += scratch.iter().filter(|v| v.is_duplicate()).count();
            }
            dups
        }
    }
}

/// Brings `filter` to its steady state with `items` random digests (no
/// hashing: the digests are uniform already), through the batch path,
/// which leaves the state of one-by-one insertions and is the faster way
/// to fill a table far larger than the caches.
pub fn prefill<F: DuplicateFilter + ?Sized>(filter: &mut F, items: u64, seed: u64) {
    let mut rng = ddf_hash::SplitMix64::new(seed);
    let mut digests = [Digest::new(0); BATCH];
    let mut verdicts = Vec::with_capacity(BATCH);
    let mut left = items;
    while left > 0 {
        let n = left.min(BATCH as u64) as usize;
        digests[..n].fill_with(|| Digest::new(rng.next_u64()));
        verdicts.clear();
        filter.observe_batch(&digests[..n], &mut verdicts);
        left -= n as u64;
    }
}

/// The median of `times` (the upper one of an even count), which it
/// sorts: the figure the studies beside the suite report for rounds a
/// burst of other load may have slowed.
///
/// # Panics
///
/// If `times` is empty.
pub fn median(times: &mut [f64]) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;
    use ddf_exact::ExactWindow;
    use ddf_hash::KeyedSipHasher;

    #[test]
    fn both_paths_report_the_same_duplicates() {
        let hasher = KeyedSipHasher::with_seed(3);
        let mut totals = Vec::new();
        for path in [Path::OneByOne, Path::Batch] {
            let mut keys = KeyStream::u64_keys(4 * OPS, StreamKind::Duplicates, 9);
            let mut exact = ExactWindow::new(1 << 20).expect("valid window");
            let mut scratch = Vec::new();
            let dups: usize = (0..8)
                .map(|_| run_block(&mut exact, &hasher, &mut keys, path, &mut scratch))
                .sum();
            totals.push(dups);
        }
        assert_eq!(totals[0], totals[1]);
        // Half the items past the first `max_gap` repeat a recent one.
        assert!(totals[0] > 8 * OPS / 4, "{totals:?}");
    }

    #[test]
    fn distinct_streams_never_repeat_across_passes() {
        let hasher = KeyedSipHasher::with_seed(3);
        let mut keys = KeyStream::u64_keys(OPS, StreamKind::Distinct, 1);
        let mut exact = ExactWindow::new(1 << 20).expect("valid window");
        let mut scratch = Vec::new();
        let dups: usize = (0..16)
            .map(|_| run_block(&mut exact, &hasher, &mut keys, Path::OneByOne, &mut scratch))
            .sum();
        assert_eq!(dups, 0);
    }
}
