//! Bloom filters for streams: partitioned (whole stream, distinct items
//! known), Stable and A2 (whole stream at saturation), and a queue of
//! partitioned Bloom filters (sliding-window paper §5.4; count windows,
//! misses allowed), sized by `ddf_queue::bloom`.

use super::*;
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
/// A queue of partitioned Bloom filters for a count window when misses are
/// accepted: the shape and prediction of [`ddf_queue::bloom::sized`].
pub(crate) fn queued(need: &Need) -> Result<Candidate, String> {
    let w = count_only(need)?;
    misses_allowed(need)?;
    let budget = budget(need)?;
    let (shape, p) = ddf_queue::bloom::sized(w, budget, need.distinct).map_err(why)?;
    let config = Config::QueuedBloom {
        subfilters: shape.subfilters,
        capacity: shape.capacity,
        slices: shape.slices,
        slice_bits: shape.slice_bits,
    };
    Ok(Candidate::new(config, p, Some(w), need.seed))
}
