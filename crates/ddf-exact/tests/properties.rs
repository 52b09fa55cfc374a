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
