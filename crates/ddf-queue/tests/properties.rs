//! The remark of §5.2: a queue of exact subfilters never misses an item among
//! the last `c·(L − 1)` insertions and never reports one older than `c·L`;
//! with a time span, nothing seen within the last `t` is missed while the
//! arrival rate stays within capacity.

use ddf_core::{Digest, DuplicateFilter, Snapshot, TimedFilter, Verdict};
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
        let mut q = Queue::with_time_span(span, l, 1_000, |_| Ok(ExactWindow::unbounded())).unwrap();
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The batch paths (block by block through each subfilter's own batch
    /// path) give the verdicts, answers and state of one by one, for count
    /// and time windows, batches longer than a block, rotations inside a
    /// batch and clocks that step back. Subfilters of 2^22 bits, so that even
    /// one of them takes the block path.
    #[test]
    fn batches_are_one_by_one(
        l in 1usize..6,
        c in 1u64..400,
        span in prop::option::of(1u64..50),
        runs in prop::collection::vec((0usize..600, 0u64..20, 0u64..8), 1..12),
        seed in any::<u64>(),
    ) {
        let make = || {
            let sub = |i: usize| ddf_qht::Qht::new(1 << 16, 4, 16).map(|q| q.with_seed(seed ^ i as u64));
            match span {
                Some(t) if l >= 2 => Queue::with_time_span(t, l, c, sub),
                _ => Queue::new(l, c, sub),
            }
            .unwrap()
        };
        let (mut single, mut batched) = (make(), make());
        let mut state = seed;
        let mut now = 100u64;
        for &(len, gap, back) in &runs {
            now = if back == 0 { now.saturating_sub(gap) } else { now + gap };
            // Items from a small alphabet, so that duplicates are common.
            let ds: Vec<Digest> = (0..len)
                .map(|_| {
                    state = Digest::mixed(state).get();
                    Digest::mixed(state % 300)
                })
                .collect();
            let (mut want, mut got) = (Vec::new(), Vec::new());
            let (mut want_in, mut got_in) = (Vec::new(), Vec::new());
            batched.contains_batch_at(&ds, now, &mut got_in);
            want_in.extend(ds.iter().map(|&d| single.contains_at(d, now)));
            prop_assert_eq!(&got_in, &want_in);
            got_in.clear();
            batched.contains_batch(&ds, &mut got_in);
            prop_assert_eq!(got_in, ds.iter().map(|&d| single.contains(d)).collect::<Vec<_>>());
            if back % 2 == 0 {
                batched.observe_batch_at(&ds, now, &mut got);
                want.extend(ds.iter().map(|&d| single.observe_at(d, now)));
            } else {
                batched.observe_batch(&ds, &mut got);
                want.extend(ds.iter().map(|&d| single.observe(d)));
            }
            prop_assert_eq!(got, want);
            prop_assert_eq!(batched.clock_regressions(), single.clock_regressions());
            prop_assert_eq!(
                batched.generations_closed_early(),
                single.generations_closed_early()
            );
        }
        prop_assert!(batched.to_bytes() == single.to_bytes(), "states differ");
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
