//! The streaming cuckoo filter at saturation.

use super::*;
use ddf_cuckoo::StreamingCuckoo;

/// Its shape and saturated prediction for the budget.
pub(crate) fn candidate(need: &Need) -> Result<Candidate, String> {
    saturated_only(need)?;
    saturated(need, |m, p| {
        let (buckets, b, f) = StreamingCuckoo::saturated_parameters_for(m, p)?;
        let config = Config::Cuckoo {
            buckets,
            cells_per_bucket: b,
            fingerprint_bits: f,
        };
        Ok((config, StreamingCuckoo::saturated_sizing(buckets, b, f)?))
    })
}
