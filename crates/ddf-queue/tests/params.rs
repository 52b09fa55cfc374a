//! Random parameters, boundaries included, give a queue or a `ParamError`
//! naming the parameter: never a panic or an absurd allocation.

use ddf_core::testing::params::{check, check_budget, count_usize, probability, size};
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
        check(Queue::with_time_span(l, capacity, span, |_| Ok(ExactWindow::unbounded())), NAMES)?;
        // A subfilter's own parameter error passes through with its name.
        let sub = &["subfilters", "capacity", "memory_bits", "window", "hash_bits"];
        check_budget(
            Queue::with_memory(l, capacity, memory, |s| CompactShf::with_memory(s.bits, s.capacity)),
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
