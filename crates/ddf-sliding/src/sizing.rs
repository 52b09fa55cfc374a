//! The `ε` a goal asks for (a rate target, or the least `ε` a memory budget
//! holds, for planners that size by budget), and tables sized and built
//! with a [`LayoutChoice`].

use crate::plan::{Plan, Request};
use crate::{LayoutChoice, Sizing, Slack, SlidingBloom};
use ddf_core::{Goal, ParamError};

/// The smallest `ε` the budget search tries; every table for it fits in
/// 2^40 bits for windows up to the state limit's share.
const MIN_BUDGET_EPSILON: f64 = 1e-12;

/// Bisection steps on `ln ε`: 48 halve the interval `[ln 1e-12, ln ½]` to
/// below 1e-13 of its width.
const BUDGET_STEPS: u32 = 48;

impl SlidingBloom {
    /// The `ε` a [`Goal`] asks for: the target itself (checked by the
    /// constructor's rules), or the least `ε` in `[1e-12, ½]` whose table
    /// fits the budget in the word layouts
    /// ([`LayoutChoice::Words`]: build it with
    /// [`planned`](Self::planned) and that choice), by bisection on `ln ε`
    /// (the table only grows as `ε` falls): 48 sizings at most. `capacity`
    /// as in [`table_sizing`](Self::table_sizing).
    pub fn parameters_for(
        goal: Goal,
        window: u64,
        slack: Slack,
        capacity: Option<u64>,
    ) -> Result<f64, ParamError> {
        match goal {
            Goal::Fpr(fpr) => {
                Self::table_sizing(window, slack, capacity, fpr)?;
                Ok(fpr)
            }
            Goal::Budget(memory_bits) => epsilon_for_budget(window, slack, capacity, memory_bits),
        }
    }

    /// [`new`](Self::new) (`capacity` `None`) or
    /// [`with_time_span`](Self::with_time_span) (`Some(capacity)`) with the
    /// bucket layout chosen as `layout` says, allocated once: what a
    /// planner that sized the table with
    /// [`table_sizing_with`](Self::table_sizing_with) builds.
    ///
    /// ```
    /// use ddf_sliding::{Layout, LayoutChoice, Slack, SlidingBloom};
    ///
    /// let w = 1 << 22;
    /// // Beyond the caches `new` lays the table out in lines...
    /// assert_eq!(SlidingBloom::new(w, Slack::AtMost(w), 1e-3)?.layout(), Layout::Line);
    /// // ...unless the least space is asked for.
    /// let small = SlidingBloom::planned(w, Slack::AtMost(w), None, 1e-3, LayoutChoice::LeastSpace)?;
    /// assert_ne!(small.layout(), Layout::Line);
    /// # Ok::<(), ddf_sliding::ParamError>(())
    /// ```
    pub fn planned(
        window: u64,
        slack: Slack,
        capacity: Option<u64>,
        fpr: f64,
        layout: LayoutChoice,
    ) -> Result<Self, ParamError> {
        Self::from_request(Self::request(window, slack, capacity, fpr).with_choice(layout))
    }

    /// [`table_sizing`](Self::table_sizing) with the bucket layout chosen as
    /// `layout` says.
    pub fn table_sizing_with(
        window: u64,
        slack: Slack,
        capacity: Option<u64>,
        fpr: f64,
        layout: LayoutChoice,
    ) -> Result<Sizing, ParamError> {
        let request = Self::request(window, slack, capacity, fpr).with_choice(layout);
        Ok(Plan::new(request)?.sizing())
    }

    /// The request of a count window (`capacity` `None`) or a time window.
    fn request(window: u64, slack: Slack, capacity: Option<u64>, fpr: f64) -> Request {
        match capacity {
            Some(c) => Request::time(window, slack, c, fpr),
            None => Request::count(window, slack, None, fpr),
        }
    }
}

/// The budget half of [`SlidingBloom::parameters_for`].
fn epsilon_for_budget(
    window: u64,
    slack: Slack,
    capacity: Option<u64>,
    memory_bits: u64,
) -> Result<f64, ParamError> {
    // The word layouts: lines, whose size hardly moves with ε, would make
    // the size jump along the search.
    let sizing = |eps: f64| {
        SlidingBloom::table_sizing_with(window, slack, capacity, eps, LayoutChoice::Words)
    };
    let fits = |eps: f64| sizing(eps).is_ok_and(|s| s.memory_bits <= memory_bits);
    let (mut lo, mut hi) = (MIN_BUDGET_EPSILON.ln(), 0.5f64.ln());
    if !fits(hi.exp()) {
        // The reason the loosest table fails, or that it does not fit.
        sizing(0.5)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_epsilon_fits_and_is_tight() {
        let s = SlidingBloom::table_sizing(10_000, Slack::AtMost(0), None, 0.001).unwrap();
        let budget = Goal::Budget(s.memory_bits);
        let eps = SlidingBloom::parameters_for(budget, 10_000, Slack::AtMost(0), None).unwrap();
        assert!(eps <= 0.001 * 1.01, "{eps}");
        let at = SlidingBloom::table_sizing(10_000, Slack::AtMost(0), None, eps).unwrap();
        assert!(at.memory_bits <= s.memory_bits);
        let tiny = Goal::Budget(100);
        assert!(SlidingBloom::parameters_for(tiny, 10_000, Slack::LeastSpace, None).is_err());
        let p = SlidingBloom::sizing(10_000, Slack::AtMost(0), eps).unwrap();
        assert_eq!(p.memory_bits, at.memory_bits);
        assert!(p.accesses > 3.0 && p.accesses < 4.0);
        // A rate target is the ε itself, checked.
        let fpr = Goal::Fpr(0.01);
        assert_eq!(
            SlidingBloom::parameters_for(fpr, 10_000, Slack::AtMost(0), None),
            Ok(0.01)
        );
        let bad = Goal::Fpr(1.5);
        assert!(SlidingBloom::parameters_for(bad, 10_000, Slack::AtMost(0), None).is_err());
    }
}
