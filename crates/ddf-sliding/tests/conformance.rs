//! The shared contract, for count and time windows.

use ddf_core::conformance;
use ddf_core::testing::{Conformance, Promise};
use ddf_sliding::{Layout, Slack, SlidingBloom};

conformance!(
    count_window,
    SlidingBloom::new(500, Slack::AtMost(100), 1.0 / 256.0).unwrap(),
    Conformance::default().promise(Promise::LastInsertions(500))
);
conformance!(
    time_window,
    // Without timestamps every insertion happens at time 0: nothing expires,
    // so the table is sized for the whole 20,000-item test stream.
    SlidingBloom::with_time_span(500, Slack::AtMost(100), 20_000, 1.0 / 256.0).unwrap(),
    Conformance::default().promise(Promise::Ever)
);
// With timestamps: about one item per time unit, 500 in the window.
ddf_core::timed_conformance!(
    time_window_clock,
    SlidingBloom::with_time_span(500, Slack::AtMost(100), 20_000, 1.0 / 256.0).unwrap(),
    2
);
// The same contracts with buckets of one cache line.
conformance!(
    count_window_lines,
    SlidingBloom::new(500, Slack::AtMost(100), 1.0 / 256.0)
        .and_then(|f| f.with_layout(Layout::Line))
        .unwrap(),
    Conformance::default().promise(Promise::LastInsertions(500))
);
ddf_core::timed_conformance!(
    time_window_clock_lines,
    SlidingBloom::with_time_span(500, Slack::AtMost(100), 20_000, 1.0 / 256.0)
        .and_then(|f| f.with_layout(Layout::Line))
        .unwrap(),
    2
);
// And with wide lines: a rate 16-bit remainders miss.
conformance!(
    count_window_wide_lines,
    SlidingBloom::new(500, Slack::AtMost(100), 1e-6)
        .and_then(|f| f.with_layout(Layout::Line))
        .unwrap(),
    Conformance::default().promise(Promise::LastInsertions(500))
);
ddf_core::timed_conformance!(
    time_window_clock_wide_lines,
    SlidingBloom::with_time_span(500, Slack::AtMost(100), 20_000, 1e-6)
        .and_then(|f| f.with_layout(Layout::Line))
        .unwrap(),
    2
);
