//! Random parameters, boundaries included, give a queue or a `ParamError`
//! naming the parameter: never a panic or an absurd allocation.

use ddf_core::testing::params::{check, check_budget, count_usize, probability, size};
use ddf_core::{Window, Windowed};
use ddf_exact::ExactWindow;
use ddf_queue::Queue;
use ddf_shf::CompactShf;
use proptest::prelude::*;

const NAMES: &[&str] = &[
    "subfilters",
    "capacity",
    "time_span",
    "memory_bits",
    "window",
    "max_subfilters",
    "alphabet_size",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn constructors(
        l in count_usize(),
        capacity in size(),
        span in size(),
        memory in size(),
        window in size(),
        alphabet in probability().prop_map(|p| p * 1e6),
    ) {
        check(Queue::new(l, capacity, |_| Ok(ExactWindow::unbounded())), NAMES)?;
        check(Queue::with_time_span(span, l, capacity, |_| Ok(ExactWindow::unbounded())), NAMES)?;
        // A subfilter's own parameter error passes through with its name.
        let sub = &["subfilters", "capacity", "memory_bits", "window", "hash_bits"];
        check_budget(
            Queue::with_memory(memory, l, capacity, |s| CompactShf::with_memory(s.bits, s.capacity)),
            memory,
            sub,
        )?;
        let planned = Queue::for_window(
            window,
            memory,
            alphabet,
            l,
            |_bits, _c| (|_: f64| 0.01, |_: f64| 0.0),
            |s| CompactShf::with_memory(s.bits, s.capacity),
        );
        let names: Vec<&str> = NAMES.iter().chain(sub).copied().collect();
        check_budget(planned.map(|(q, _)| q), memory, &names)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A queue planned for a window `w` reports a window of at least `w`:
    /// the planner's `c = ⌈w/L⌉` and the queue's `window() = c·L` are the
    /// same convention (the paper's `w = c·L`, §5.1).
    #[test]
    fn planned_queues_cover_the_requested_window(
        window in 1u64..50_000,
        max_subfilters in 1usize..24,
        fpr in 0.001f64..0.5,
    ) {
        let memory = 32 * window;
        let planned = Queue::for_window(
            window,
            memory,
            1e9,
            max_subfilters,
            // A subfilter whose false-positive rate grows with its load.
            move |_bits, c| (move |load: f64| fpr * load / c as f64, |_: f64| 0.0),
            |s| CompactShf::with_memory(s.bits, s.capacity),
        );
        let (q, plan) = planned.map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(q.window(), Window::Count(plan.capacity * plan.subfilters as u64));
        prop_assert!(matches!(q.window(), Window::Count(w) if w >= window), "{:?} < {window}", q.window());
        prop_assert_eq!(q.slack(), 0);
    }
}
