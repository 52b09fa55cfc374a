//! Groups of filters of one type asked together: a queue's subfilters.
//!
//! The queuing construction (sliding-window paper, §5.1, Algorithm 2) asks
//! every subfilter about each item and inserts it into the newest. The
//! subfilters are usually of one shape, so they derive the same positions
//! (a row, a fingerprint) from a digest; asking them one after the other
//! derives those positions once per subfilter. [`DuplicateFilter::any_contains`]
//! and [`DuplicateFilter::observe_in_group`] take the whole group, so a type
//! can derive them once and, in a batch, prefetch every subfilter's line of
//! an item together. Their defaults are the functions here, which treat the
//! filters one at a time and are what an override falls back to when the
//! filters of a group differ in shape.

use crate::filter::{DuplicateFilter, Verdict};
use ddf_hash::Digest;

/// Whether a filter of `group` other than `group[skip]` (every filter when
/// `skip` is out of range) reports `digest`, asking each in turn: the
/// default of [`DuplicateFilter::any_contains`].
#[inline]
pub fn any_contains<F: DuplicateFilter>(group: &[F], skip: usize, digest: Digest) -> bool {
    group
        .iter()
        .enumerate()
        .any(|(i, f)| i != skip && f.contains(digest))
}

/// Observes `digests` in `group[newest]` with its own
/// [`observe_batch`](DuplicateFilter::observe_batch), then asks every other
/// filter with its own [`contains_batch`](DuplicateFilter::contains_batch)
/// (into `scratch`, cleared first) and marks the items any of them reports:
/// the default of [`DuplicateFilter::observe_in_group`]. The others are only
/// read, so asking them after the newest gives the verdicts of one by one.
///
/// # Panics
/// If `newest` is not an index of `group`.
pub fn observe_by_filter<F: DuplicateFilter>(
    group: &mut [F],
    newest: usize,
    digests: &[Digest],
    verdicts: &mut Vec<Verdict>,
    scratch: &mut Vec<bool>,
) {
    let start = verdicts.len();
    group[newest].observe_batch(digests, verdicts);
    for (i, f) in group.iter().enumerate() {
        if i == newest {
            continue;
        }
        scratch.clear();
        f.contains_batch(digests, scratch);
        for (v, &hit) in verdicts[start..].iter_mut().zip(scratch.iter()) {
            if hit {
                *v = Verdict::Duplicate;
            }
        }
    }
}
