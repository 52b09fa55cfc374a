//! Property tests: the exact filter agrees with a brute-force scan of the window.

use ddf_core::Verdict;
use ddf_exact::ExactWindow;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn count_window_matches_brute_force(w in 1u64..40, items in prop::collection::vec(0u64..30, 0..400)) {
        let mut f = ExactWindow::<u64>::new(w).unwrap();
        for (i, &k) in items.iter().enumerate() {
            let start = i.saturating_sub(w as usize);
            let expected = items[start..i].contains(&k);
            prop_assert_eq!(f.observe_key(k), Verdict::from_seen(expected));
            prop_assert!(f.len() as u64 <= w);
        }
    }

    #[test]
    fn time_window_matches_brute_force(
        t in 1u64..50,
        events in prop::collection::vec((0u64..20, 0u64..8), 0..300),
    ) {
        let mut f = ExactWindow::<u64>::with_time_span(t, 300).unwrap();
        let mut now = 0;
        let mut seen: Vec<(u64, u64)> = Vec::new();
        for &(k, gap) in &events {
            now += gap;
            let expected = seen.iter().any(|&(k2, ts)| k2 == k && now - ts < t);
            prop_assert_eq!(f.observe_key_at(k, now), Verdict::from_seen(expected));
            seen.push((k, now));
        }
    }

    #[test]
    fn observe_is_contains_then_insert_even_when_time_runs_back(
        t in 1u64..50,
        events in prop::collection::vec((0u64..20, 0u64..60), 0..300),
    ) {
        // `observe_key_at` answers from the same probe that records the key;
        // a clock that jumps backwards must not change its answer.
        let mut fast = ExactWindow::<u64>::with_time_span(t, 300).unwrap();
        let mut slow = ExactWindow::<u64>::with_time_span(t, 300).unwrap();
        for &(k, now) in &events {
            let expected = slow.contains_key_at(&k, now);
            slow.insert_key_at(k, now);
            prop_assert_eq!(fast.observe_key_at(k, now), Verdict::from_seen(expected));
            prop_assert_eq!(fast.len(), slow.len());
        }
    }
}

/// Windows above the batch paths' prefetch floor (`2^24` bits of state).
const LARGE: u64 = 1 << 17;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    /// The prefetching batch paths, count and timed, give the verdicts and
    /// answers of the one by one paths on large windows (full, so every
    /// insertion evicts and the eviction hints are live).
    #[test]
    fn large_batches_are_one_by_one(
        items in prop::collection::vec((0u64..4_000, 0u64..3), 1..2_000),
        cuts in prop::collection::vec(0usize..70, 1..80),
    ) {
        use ddf_core::{Digest, DuplicateFilter, TimedFilter};
        let makers: [fn() -> ExactWindow; 2] = [
            || ExactWindow::new(LARGE).unwrap(),
            || ExactWindow::with_time_span(LARGE, LARGE).unwrap(),
        ];
        for make in makers {
            let (mut single, mut batched, mut stamped) = (make(), make(), make());
            prop_assert!(single.memory_bits() >= 1 << 24);
            for i in 0..LARGE {
                let d = Digest::mixed(!i);
                for f in [&mut single, &mut batched, &mut stamped] {
                    f.observe_at(d, i / 4);
                }
            }
            let mut now = LARGE / 4;
            let pairs: Vec<(Digest, u64)> = items
                .iter()
                .map(|&(k, gap)| {
                    now += gap;
                    (Digest::mixed(k), now)
                })
                .collect();
            let want: Vec<Verdict> = pairs.iter().map(|&(d, t)| single.observe_at(d, t)).collect();
            let mut got = Vec::new();
            let mut got_stamped = Vec::new();
            let mut at = 0;
            for &c in cuts.iter().cycle() {
                if at == pairs.len() {
                    break;
                }
                // One clock value per `observe_batch_at`: cut at time changes too.
                let t = pairs[at].1;
                let same = pairs[at..].iter().take_while(|p| p.1 == t).count();
                let end = at + c.clamp(1, same);
                let ds: Vec<Digest> = pairs[at..end].iter().map(|p| p.0).collect();
                batched.observe_batch_at(&ds, t, &mut got);
                stamped.observe_batch_stamped(&pairs[at..end], &mut got_stamped);
                at = end;
            }
            prop_assert_eq!(&got, &want);
            prop_assert_eq!(&got_stamped, &want);
            let probes: Vec<Digest> = (0..2_000).map(Digest::mixed).collect();
            let (mut a, mut b) = (Vec::new(), Vec::new());
            batched.contains_batch_at(&probes, now, &mut a);
            batched.contains_batch(&probes, &mut b);
            let one: Vec<bool> = probes.iter().map(|&d| single.contains_at(d, now)).collect();
            prop_assert_eq!(&a, &one);
            prop_assert_eq!(&b, &one);
        }
    }
}
