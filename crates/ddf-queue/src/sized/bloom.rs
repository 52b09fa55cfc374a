//! A queue of partitioned Bloom filters (the queuing construction of the
//! sliding-window paper §5.4): its shape within a budget ([`sized`]) and its
//! constructor from a shape ([`build`]).

use super::sized_window;
use crate::{Queue, plan_for_window};
use ddf_bloom::PartitionedBloom;
use ddf_core::{Goal, ParamError, Prediction};

/// The shape of a queue of partitioned Bloom filters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BloomQueueShape {
    /// Subfilters, `L`.
    pub subfilters: usize,
    /// Insertions per subfilter, `c`.
    pub capacity: u64,
    /// Slices `k` of each subfilter.
    pub slices: u32,
    /// Bits per slice of each subfilter.
    pub slice_bits: u64,
}

/// The most subfilters a queue of Bloom filters compares (§5.4's search
/// range; the paper's optima are near ten).
const MAX_QUEUE_SUBFILTERS: u64 = 64;

/// `L` partitioned Bloom filters of `k` slices of `m` bits, rotated every
/// `c` insertions.
///
/// ```
/// use ddf_queue::bloom::{BloomQueueShape, build};
/// let shape = BloomQueueShape { subfilters: 4, capacity: 250, slices: 5, slice_bits: 512 };
/// assert_eq!(build(shape)?.subfilters(), 4);
/// # Ok::<(), ddf_queue::ParamError>(())
/// ```
pub fn build(shape: BloomQueueShape) -> Result<Queue<PartitionedBloom>, ParamError> {
    Queue::new(shape.subfilters, shape.capacity, |_| {
        PartitionedBloom::new(shape.slices, shape.slice_bits)
    })
}

/// A queue of partitioned Bloom filters for a count window of `window`
/// insertions (1..=[`MAX_SIZED_WINDOW`](super::MAX_SIZED_WINDOW)) within
/// `memory_bits`: [`plan_for_window`] picks `L` for the least predicted
/// `FPR + FNR` on a uniform stream over `distinct_items` (2^64 when not
/// given), each subfilter shaped by [`PartitionedBloom::parameters_for`] for
/// its share of the budget; the false-positive rate predicted is Theorem 7's
/// on distinct items, the worst case.
///
/// ```
/// use ddf_queue::bloom::sized;
/// let (shape, p) = sized(10_000, 200_000, None)?;
/// assert!(p.memory_bits <= 200_000 && p.fpr < 0.1);
/// assert!(shape.subfilters as u64 * shape.capacity >= 10_000);
/// # Ok::<(), ddf_queue::ParamError>(())
/// ```
pub fn sized(
    window: u64,
    memory_bits: u64,
    distinct_items: Option<f64>,
) -> Result<(BloomQueueShape, Prediction), ParamError> {
    use ddf_theory::bloom::{negative_query_accesses, partitioned_fp, slice_fill_ratio};
    use ddf_theory::queue::fpr_queue;
    use ddf_theory::stream::expected_distinct;
    let w = sized_window(window)?;
    let shape =
        |b: f64, c: u64| PartitionedBloom::parameters_for(c as f64, Goal::Budget(b as u64)).ok();
    // A subfilter's FP_η after η insertions of which `distinct(η)` are
    // distinct items: all of them on a stream of distinct items (the FPR's
    // worst case), the expected count on the uniform stream the FNR is
    // predicted for (repeats set no new bits, and an older subfilter's false
    // positive is what rescues a dropped duplicate).
    let model = |b: f64, c: u64, distinct: fn(f64, f64) -> f64, alphabet: f64| {
        let s = shape(b, c);
        (
            move |eta: f64| {
                s.map_or(1.0, |(k, m)| {
                    partitioned_fp(distinct(eta, alphabet), m as f64, f64::from(k))
                })
            },
            |_: f64| 0.0,
        )
    };
    let all_distinct: fn(f64, f64) -> f64 = |eta, _| eta;
    let alphabet = distinct_items.unwrap_or(2f64.powi(64));
    let plan = plan_for_window(
        w,
        memory_bits,
        alphabet,
        MAX_QUEUE_SUBFILTERS.min(w) as usize,
        |b, c| model(b, c, expected_distinct, alphabet),
    )?;
    let (l, c) = (plan.subfilters as u64, plan.capacity);
    let (k, m) = PartitionedBloom::parameters_for(c as f64, Goal::Budget(plan.subfilter_bits))?;
    let worst = fpr_queue(
        &model(plan.subfilter_bits as f64, c, all_distinct, alphabet),
        l,
        c,
    );
    let r = slice_fill_ratio(c as f64, m as f64);
    let mut p = plan.prediction(
        w,
        u64::from(k) * m,
        negative_query_accesses(k, r),
        f64::from(k),
    );
    p.fpr = worst;
    let shape = BloomQueueShape {
        subfilters: plan.subfilters,
        capacity: c,
        slices: k,
        slice_bits: m,
    };
    Ok((shape, p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_beyond_the_work_bound_are_named() {
        let e = sized(super::super::MAX_SIZED_WINDOW + 1, 1 << 24, None).unwrap_err();
        assert_eq!(e.param(), "window");
        assert_eq!(sized(0, 1 << 20, None).unwrap_err().param(), "window");
    }

    #[test]
    fn the_shape_builds_the_queue_it_predicts() {
        let (shape, p) = sized(5_000, 100_000, Some(50_000.0)).unwrap();
        let q = build(shape).unwrap();
        assert_eq!(ddf_core::DuplicateFilter::memory_bits(&q), p.memory_bits);
        assert!(p.false_negatives && p.fnr > 0.0);
    }
}
