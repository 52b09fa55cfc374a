//! The shared contract for queues of exact and of hashed subfilters.

use ddf_core::conformance;
use ddf_core::testing::{Conformance, Promise};
use ddf_exact::ExactWindow;
use ddf_queue::Queue;
use ddf_shf::CompactShf;

conformance!(
    queue_of_exact_sets,
    Queue::new(5, 40, |_| Ok(ExactWindow::unbounded())).unwrap(),
    Conformance::default()
        .promise(Promise::LastInsertions(4 * 40))
        .growing_memory(true)
);
conformance!(
    queue_of_compact_shfs,
    Queue::with_memory(8_000, 4, 100, |s| CompactShf::with_memory(
        s.bits, s.capacity
    ))
    .unwrap(),
    Conformance::default()
        .promise(Promise::LastInsertions(300))
        .budget_bits(8_000)
);
conformance!(
    timed_queue,
    // Untimed calls never advance the clock: only the capacity rotates.
    Queue::with_time_span(1_000, 3, 50, |_| ExactWindow::new(50)).unwrap(),
    Conformance::default().promise(Promise::LastInsertions(100))
);
// With timestamps: subfilters also rotate when their time slot ends.
ddf_core::timed_conformance!(
    timed_queue_clock,
    Queue::with_time_span(1_000, 3, 50, |_| ExactWindow::new(50)).unwrap(),
    100
);
// Hashed subfilters with their own prefetching batch paths, timed; 2^22
// bits in all, so that batches go block by block (the property test
// `batches_are_one_by_one` covers count windows at that size).
ddf_core::timed_conformance!(
    timed_queue_of_qhts,
    Queue::with_time_span(1_000, 4, 60, |i| ddf_qht::Qht::new(1 << 15, 4, 8)
        .map(|q| q.with_seed(i as u64)))
    .unwrap(),
    100
);
// The same under 2^22 bits, where batches take the one-by-one loop (small,
// as the suite decodes and re-encodes it many times).
conformance!(
    queue_of_qhts,
    Queue::with_memory(16_384, 4, 100, |s| ddf_qht::Qht::with_memory(s.bits, 4, 8)
        .map(|q| q.with_seed(s.index as u64)))
    .unwrap(),
    Conformance::default().budget_bits(16_384)
);
