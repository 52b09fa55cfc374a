//! The quotient hash tables: QHT (whole stream, distinct items known or
//! at saturation), QHTD, QQHTD and SQF (at saturation), and a queue of
//! one-cell-per-row QHTs (count windows, misses allowed), sized by
//! `ddf_queue::qht`.

use super::*;
use ddf_qht::{Qht, Qhtd, Qqhtd, Sqf};

/// QHT (QHT paper §4): [`Qht::parameters_for`] within the budget for
/// the distinct items given, else its saturated shape.
pub(crate) fn qht(need: &Need) -> Result<Candidate, String> {
    unbounded_only(need)?;
    if need.distinct.is_none() {
        return saturated(need, |m, p| {
            let (rows, k, s) = Qht::saturated_parameters_for(m, p)?;
            let config = Config::Qht {
                rows,
                cells_per_row: k,
                fingerprint_bits: s,
            };
            Ok((config, Qht::saturated_sizing(rows, k, s)?))
        });
    }
    let budget = budget(need)?;
    let n = distinct(need)?;
    let (rows, k, s) = Qht::parameters_within(budget, n, need.target()).map_err(why)?;
    let p = Qht::sizing(rows, k, s, n).map_err(why)?;
    let config = Config::Qht {
        rows,
        cells_per_row: k,
        fingerprint_bits: s,
    };
    Ok(Candidate::new(config, p, None, need.seed))
}

/// QHTD at saturation.
pub(crate) fn qhtd(need: &Need) -> Result<Candidate, String> {
    saturated_only(need)?;
    saturated(need, |m, p| {
        let (rows, k, s) = Qhtd::saturated_parameters_for(m, p)?;
        let config = Config::Qhtd {
            rows,
            cells_per_row: k,
            fingerprint_bits: s,
        };
        Ok((config, Qhtd::saturated_sizing(rows, k, s)?))
    })
}

/// QQHTD at saturation.
pub(crate) fn qqhtd(need: &Need) -> Result<Candidate, String> {
    saturated_only(need)?;
    saturated(need, |m, p| {
        let (rows, k, s) = Qqhtd::saturated_parameters_for(m, p)?;
        let config = Config::Qqhtd {
            rows,
            cells_per_row: k,
            fingerprint_bits: s,
        };
        Ok((config, Qqhtd::saturated_sizing(rows, k, s)?))
    })
}

/// SQF at saturation.
pub(crate) fn sqf(need: &Need) -> Result<Candidate, String> {
    saturated_only(need)?;
    saturated(need, |m, p| {
        let (rows, k, r, r_prime) = Sqf::saturated_parameters_for(m, p)?;
        let config = Config::Sqf {
            rows,
            cells_per_row: k,
            r,
            r_prime,
        };
        Ok((config, Sqf::saturated_sizing(rows, k, r, r_prime)?))
    })
}

#[cfg(feature = "queue")]
/// A queue of one-cell-per-row QHTs for a count window when misses are
/// accepted: the shape and prediction of [`ddf_queue::qht::sized`].
pub(crate) fn queued(need: &Need) -> Result<Candidate, String> {
    let w = count_only(need)?;
    misses_allowed(need)?;
    let budget = budget(need)?;
    let target = need
        .target()
        .ok_or("sized for a target within a budget (fpr and memory_budget)")?;
    let (shape, p) = ddf_queue::qht::sized(w, target, budget, need.distinct).map_err(why)?;
    let config = Config::QueuedQht {
        subfilters: shape.subfilters,
        capacity: shape.capacity,
        rows: shape.rows,
        fingerprint_bits: shape.fingerprint_bits,
    };
    Ok(Candidate::new(config, p, Some(w), need.seed))
}
