//! The remark of §5.2: a queue of exact subfilters never misses an item among
//! the last `c·(L − 1)` insertions and never reports one older than `c·L`;
//! with a time span, nothing seen within the last `t` is missed while the
//! arrival rate stays within capacity.

use ddf_core::{Digest, DuplicateFilter, TimedFilter, Verdict};
use ddf_exact::ExactWindow;
use ddf_queue::Queue;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn exact_subfilters_keep_between_c_l_minus_1_and_c_l(
        l in 1usize..8,
        c in 1u64..12,
        items in prop::collection::vec(0u64..25, 0..400),
    ) {
        let mut q = Queue::new(l, c, |_| Ok(ExactWindow::unbounded())).unwrap();
        for (i, &item) in items.iter().enumerate() {
            let last = items[..i].iter().rposition(|&x| x == item).map(|j| (i - j) as u64);
            let v = q.observe(Digest::mixed(item));
            match last {
                Some(age) if age <= c * (l as u64 - 1) => prop_assert_eq!(v, Verdict::Duplicate),
                Some(age) if age > c * l as u64 => prop_assert_eq!(v, Verdict::Unseen),
                None => prop_assert_eq!(v, Verdict::Unseen),
                _ => {}
            }
        }
    }

    #[test]
    fn time_span_is_kept_within_capacity(
        l in 2usize..6,
        span in 1u64..60,
        events in prop::collection::vec((0u64..20, 0u64..5), 0..300),
    ) {
        // Capacity above any possible arrival count: only time rotates.
        let mut q = Queue::with_time_span(l, 1_000, span, |_| Ok(ExactWindow::unbounded())).unwrap();
        let mut now = 0;
        let mut seen: Vec<(u64, u64)> = Vec::new();
        for &(item, gap) in &events {
            now += gap;
            let recent = seen.iter().any(|&(x, ts)| x == item && now - ts < span);
            let v = q.observe_at(Digest::mixed(item), now);
            if recent {
                prop_assert_eq!(v, Verdict::Duplicate);
            }
            seen.push((item, now));
        }
    }
}

#[test]
fn repeated_bursts_and_distinct_items() {
    let mut q = Queue::new(3, 4, |_| Ok(ExactWindow::unbounded())).unwrap();
    let d = Digest::mixed(42);
    assert_eq!(q.observe(d), Verdict::Unseen);
    for _ in 0..100 {
        assert_eq!(q.observe(d), Verdict::Duplicate);
    }
    for i in 0..1_000 {
        assert_eq!(q.observe(Digest::mixed(1_000 + i)), Verdict::Unseen);
    }
    assert!(!q.contains(d));
}
