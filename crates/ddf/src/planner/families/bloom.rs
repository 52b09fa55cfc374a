//! Bloom filters for streams: partitioned (whole stream, distinct items
//! known), Stable and A2 (whole stream at saturation), and a queue of
//! partitioned Bloom filters (sliding-window paper §5.4; count windows,
//! misses allowed).

use super::*;
#[cfg(feature = "queue")]
use crate::queued::{eligible, queue_window};
use ddf_bloom::{A2, PartitionedBloom, StableBloom};

/// A partitioned Bloom filter over the whole stream, which never
/// forgets: only when the number of distinct items is known
/// ([`PartitionedBloom::parameters_for`]).
pub(crate) fn partitioned(need: &Need) -> Result<Candidate, String> {
    unbounded_only(need)?;
    let n = distinct(need)?;
    let (k, m) = PartitionedBloom::parameters_for(n, need.goal).map_err(why)?;
    let p = PartitionedBloom::sizing(k, m, n).map_err(why)?;
    let config = Config::Bloom {
        slices: k,
        slice_bits: m,
    };
    Ok(Candidate::new(config, p, None, need.seed))
}

/// The Stable Bloom filter at saturation.
pub(crate) fn stable(need: &Need) -> Result<Candidate, String> {
    saturated_only(need)?;
    saturated(need, |m, p| {
        let (cells, d, k, decrements) = StableBloom::saturated_parameters_for(m, p)?;
        let config = Config::StableBloom {
            cells,
            cell_bits: d,
            probes: k,
            decrements,
        };
        Ok((
            config,
            StableBloom::saturated_sizing(cells, d, k, decrements)?,
        ))
    })
}

/// A2 at saturation.
pub(crate) fn a2(need: &Need) -> Result<Candidate, String> {
    saturated_only(need)?;
    saturated(need, |m, p| {
        let (buffer_bits, k, capacity) = A2::saturated_parameters_for(m, p)?;
        let config = Config::A2 {
            buffer_bits,
            probes: k,
            capacity,
        };
        Ok((config, A2::saturated_sizing(buffer_bits, k, capacity)?))
    })
}

#[cfg(feature = "queue")]
/// The most subfilters a queued candidate compares (§5.4's search range;
/// the paper's optima are near ten).
const MAX_QUEUE_SUBFILTERS: u64 = 64;

#[cfg(feature = "queue")]
/// The queuing construction over partitioned Bloom subfilters (§5.4):
/// `ddf_queue::plan_for_window` picks `L` for the least predicted
/// `FPR + FNR` on the stream, each subfilter shaped by
/// `PartitionedBloom::parameters_for` for its share of the budget; the
/// rate reported is Theorem 7's on distinct items, the worst case.
pub(crate) fn queued(need: &Need) -> Result<Candidate, String> {
    let w = eligible(need)?;
    use ddf_theory::bloom::{negative_query_accesses, partitioned_fp, slice_fill_ratio};
    use ddf_theory::queue::fpr_queue;
    use ddf_theory::stream::expected_distinct;
    let budget = budget(need)?;
    let w = queue_window(w)?;
    let shape = |b: f64, c: u64| {
        PartitionedBloom::parameters_for(c as f64, ddf_core::Goal::Budget(b as u64)).ok()
    };
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
    let alphabet = need.distinct.unwrap_or(2f64.powi(64));
    let plan = ddf_queue::plan_for_window(
        w,
        budget,
        alphabet,
        MAX_QUEUE_SUBFILTERS.min(w) as usize,
        |b, c| model(b, c, expected_distinct, alphabet),
    )
    .map_err(why)?;
    let (l, c) = (plan.subfilters as u64, plan.capacity);
    let (k, m) =
        PartitionedBloom::parameters_for(c as f64, ddf_core::Goal::Budget(plan.subfilter_bits))
            .map_err(why)?;
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
    let config = Config::QueuedBloom {
        subfilters: plan.subfilters,
        capacity: c,
        slices: k,
        slice_bits: m,
    };
    Ok(Candidate::new(config, p, Some(w), need.seed))
}
