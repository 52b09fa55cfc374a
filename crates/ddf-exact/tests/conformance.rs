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
    ExactWindow::with_time_span(50).unwrap(),
    // Without timestamps every insertion happens at time 0: nothing expires.
    Conformance::default()
        .promise(Promise::Ever)
        .growing_memory(true)
);
// With timestamps: gaps of 0–20 time units, so items expire after a few.
ddf_core::timed_conformance!(
    time_window_clock,
    ExactWindow::with_time_span(50).unwrap(),
    20
);
