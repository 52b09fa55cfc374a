//! The least `ε` a memory budget holds, for planners that size by budget.

use crate::{Sizing, Slack, SlidingBloom};
use ddf_core::ParamError;

/// The smallest `ε` the budget search tries; every table for it fits in
/// 2^40 bits for windows up to the state limit's share.
const MIN_BUDGET_EPSILON: f64 = 1e-12;

/// Bisection steps on `ln ε`: 48 halve the interval `[ln 1e-12, ln ½]` to
/// below 1e-13 of its width.
const BUDGET_STEPS: u32 = 48;

impl SlidingBloom {
    /// What [`new`](Self::new) (`capacity` `None`) or
    /// [`with_time_span`](Self::with_time_span) (`Some(capacity)`) would
    /// build for `window`, `slack` and `epsilon`, without allocating it.
    pub fn sizing_for(
        window: u64,
        slack: Slack,
        capacity: Option<u64>,
        epsilon: f64,
    ) -> Result<Sizing, ParamError> {
        match capacity {
            Some(c) => Self::sizing_timed(window, slack, c, epsilon),
            None => Self::sizing(window, slack, epsilon),
        }
    }

    /// The least `ε` in `[1e-12, ½]` whose table fits in `memory_bits`
    /// ([`sizing_for`](Self::sizing_for)), by bisection on `ln ε` (the table
    /// only grows as `ε` falls): 48 sizings at most.
    pub fn epsilon_for_budget(
        window: u64,
        slack: Slack,
        capacity: Option<u64>,
        memory_bits: u64,
    ) -> Result<f64, ParamError> {
        let fits = |eps: f64| {
            Self::sizing_for(window, slack, capacity, eps)
                .is_ok_and(|s| s.memory_bits <= memory_bits)
        };
        let (mut lo, mut hi) = (MIN_BUDGET_EPSILON.ln(), 0.5f64.ln());
        if !fits(hi.exp()) {
            // The reason the loosest table fails, or that it does not fit.
            Self::sizing_for(window, slack, capacity, 0.5)?;
            return Err(ParamError::new(
                "memory_bits",
                memory_bits,
                format!("enough bits for the table of ε = ½ over a window of {window}"),
            ));
        }
        for _ in 0..BUDGET_STEPS {
            let mid = 0.5 * (lo + hi);
            if fits(mid.exp()) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        Ok(hi.exp())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_epsilon_fits_and_is_tight() {
        let s = SlidingBloom::sizing(10_000, Slack::AtMost(0), 0.001).unwrap();
        let eps = SlidingBloom::epsilon_for_budget(10_000, Slack::AtMost(0), None, s.memory_bits)
            .unwrap();
        assert!(eps <= 0.001 * 1.01, "{eps}");
        let at = SlidingBloom::sizing(10_000, Slack::AtMost(0), eps).unwrap();
        assert!(at.memory_bits <= s.memory_bits);
        assert!(SlidingBloom::epsilon_for_budget(10_000, Slack::LeastSpace, None, 100).is_err());
        let p = at.prediction();
        assert_eq!(p.memory_bits, at.memory_bits);
        assert!(p.accesses > 3.0 && p.accesses < 4.0);
    }
}
