//! The Naor–Yogev sliding Bloom filter.

use super::*;

/// The Naor–Yogev sliding Bloom filter with the slack accepted: `ε` = the
/// target, or the least `ε` whose table fits the budget.
pub(crate) fn candidate(need: &Need) -> Result<Candidate, String> {
    windowed(need)?;
    use ddf_sliding::{Slack, SlidingBloom};
    let slack = match need.max_slack {
        u64::MAX => Slack::LeastSpace,
        s => Slack::AtMost(s),
    };
    let (window, capacity) = match need.span {
        Span::Time { span, .. } => (span, Some(need.items())),
        _ => (need.items(), None),
    };
    let fpr = SlidingBloom::parameters_for(need.goal, window, slack, capacity).map_err(why)?;
    let p = match capacity {
        Some(c) => SlidingBloom::sizing_timed(window, slack, c, fpr),
        None => SlidingBloom::sizing(window, slack, fpr),
    }
    .map_err(why)?;
    let config = Config::Sliding {
        window,
        slack,
        fpr,
        capacity,
    };
    Ok(Candidate::new(config, p, Some(window), need.seed))
}
