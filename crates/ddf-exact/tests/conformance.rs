//! The shared contract, for every mode of the exact filter.

use ddf_core::conformance;
use ddf_core::testing::{Conformance, Promise};
use ddf_exact::ExactWindow;

conformance!(
    count_window,
    ExactWindow::new(100).unwrap(),
    Conformance::default().promise(Promise::LastInsertions(100))
);
conformance!(
    unbounded_set,
    ExactWindow::unbounded(),
    Conformance::default()
        .promise(Promise::Ever)
        .growing_memory(true)
);
conformance!(
    time_window,
    ExactWindow::with_time_span(50, 1 << 20).unwrap(),
    // Without timestamps every insertion happens at time 0: nothing expires
    // (the capacity exceeds every stream of the suite).
    Conformance::default().promise(Promise::Ever)
);
// With timestamps: gaps of 0–20 time units, so items expire after a few.
ddf_core::timed_conformance!(
    time_window_clock,
    // Capacity 40 for a span of 50 and gaps averaging 10: at most about 5
    // items per span arrive, bursts of the suite overload it.
    ExactWindow::with_time_span(50, 40).unwrap(),
    20
);
