//! The Naor–Yogev sliding Bloom filter.

use super::*;

/// The Naor–Yogev sliding Bloom filter with the slack accepted: `ε` = the
/// target, in the layout the crate chooses (lines beyond the caches), or the
/// least `ε` whose table fits the budget, in the word layouts.
pub(crate) fn candidate(need: &Need) -> Result<Candidate, String> {
    windowed(need)?;
    use ddf_core::Goal;
    use ddf_sliding::{LayoutChoice, Slack, SlidingBloom};
    let slack = match need.max_slack {
        u64::MAX => Slack::LeastSpace,
        s => Slack::AtMost(s),
    };
    let (window, capacity) = match need.span {
        Span::Time { span, .. } => (span, Some(need.items())),
        _ => (need.items(), None),
    };
    let fpr = SlidingBloom::parameters_for(need.goal, window, slack, capacity).map_err(why)?;
    // A budget was searched in the word layouts, and is built in them.
    let layout = match need.goal {
        Goal::Budget(_) => LayoutChoice::Words,
        Goal::Fpr(_) => LayoutChoice::Auto,
    };
    let p = SlidingBloom::table_sizing_with(window, slack, capacity, fpr, layout)
        .map_err(why)?
        .prediction();
    let config = Config::Sliding {
        window,
        slack,
        fpr,
        capacity,
        layout,
    };
    Ok(Candidate::new(config, p, Some(window), need.seed))
}
