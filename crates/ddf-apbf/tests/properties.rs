//! Property tests: no false negatives in the window, by count and by time,
//! plain and blocked, against a brute-force history.

use ddf_apbf::{Apbbf, Apbf};
use ddf_core::{Digest, DuplicateFilter, Snapshot, TimedFilter, Verdict};
use proptest::prelude::*;

/// Observes `items` and fails on a repeat of one of the last `w` insertions
/// reported as unseen.
fn reports_last_w(mut f: impl DuplicateFilter, w: u64, items: &[u64]) -> Result<(), TestCaseError> {
    for (i, &id) in items.iter().enumerate() {
        let start = i.saturating_sub(w as usize);
        let in_window = items[start..i].contains(&id);
        let v = f.observe(Digest::mixed(id));
        prop_assert!(!in_window || v == Verdict::Duplicate, "item {i}");
    }
    Ok(())
}

/// Observes `events` (item, time step) with `observe_at` on `f` and with
/// `contains_at` then `insert_at` on a copy: same verdicts, same state after
/// every step (the one-pass `observe` of cached states must be exactly the two
/// calls, across shifts, wraps and clock jumps).
fn observe_is_query_then_insert<F>(f: F, events: &[(u64, u64)]) -> Result<(), TestCaseError>
where
    F: TimedFilter + Clone + PartialEq + std::fmt::Debug,
{
    let (mut one, mut two, mut now) = (f.clone(), f, 0u64);
    for (i, &(id, step)) in events.iter().enumerate() {
        // Mostly small steps, sometimes a jump over several periods.
        now += if step > 35 { step * 7 } else { step / 8 };
        let d = Digest::mixed(id);
        let v = one.observe_at(d, now);
        let seen = two.contains_at(d, now);
        two.insert_at(d, now);
        prop_assert_eq!(v, Verdict::from_seen(seen), "event {}", i);
        prop_assert!(one == two, "state after event {}", i);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn apbf_observe_is_query_then_insert(
        k in 1u32..8,
        l in 1u32..10,
        m in 8u64..200,
        timed in prop::option::of(1u64..300),
        events in prop::collection::vec((0u64..300, 0u64..40), 0..800),
    ) {
        prop_assume!(m as f64 * std::f64::consts::LN_2 >= f64::from(k));
        match timed {
            Some(span) => {
                observe_is_query_then_insert(Apbf::with_time_span(span, k, l, m).unwrap(), &events)?
            }
            None => observe_is_query_then_insert(Apbf::new(k, l, m).unwrap(), &events)?,
        }
    }

    #[test]
    fn apbbf_observe_is_query_then_insert(
        k in 1u32..4,
        l in 1u32..6,
        blocks in 1u64..20,
        wide in any::<bool>(),
        // 4 and 8 have unrolled forms (one pass when no shift is due), 2 not.
        b in prop::sample::select(vec![2u32, 4, 8]),
        timed in prop::option::of(1u64..300),
        events in prop::collection::vec((0u64..300, 0u64..40), 0..600),
    ) {
        let bb = if wide { 512 } else { 64 };
        let Ok(f) = Apbbf::new(k, l, blocks, bb, b) else { return Ok(()) };
        match timed {
            Some(span) => observe_is_query_then_insert(
                Apbbf::with_time_span(span, k, l, blocks, bb, b).unwrap(),
                &events,
            )?,
            None => observe_is_query_then_insert(f, &events)?,
        }
    }

    #[test]
    fn apbf_reports_the_last_w_insertions(k in 1u32..6, l in 1u32..6, m in 8u64..300, items in prop::collection::vec(0u64..400, 0..1200)) {
        prop_assume!(m as f64 * std::f64::consts::LN_2 >= f64::from(k));
        let f = Apbf::new(k, l, m).unwrap();
        let w = u64::from(l) * f.generation();
        reports_last_w(f, w, &items)?;
    }

    #[test]
    fn apbbf_reports_the_last_w_insertions(
        k in 1u32..4,
        l in 1u32..5,
        blocks in 1u64..20,
        wide in any::<bool>(),
        b in 0u32..4,
        items in prop::collection::vec(0u64..400, 0..1000),
    ) {
        let (bb, b) = if wide { (512, 1 << b) } else { (64, 1 << b) };
        let Ok(f) = Apbbf::new(k, l, blocks, bb, b) else { return Ok(()) };
        let w = u64::from(l) * f.generation();
        reports_last_w(f, w, &items)?;
    }

    /// `contains` (one pass per block shape when no shift is pending) gives
    /// Algorithm 1's answer as `query_accesses` runs it through the core,
    /// for present and absent items, across shifts and wraps.
    #[test]
    fn apbbf_contains_is_algorithm_1(
        k in 1u32..4,
        l in 1u32..6,
        blocks in 1u64..20,
        wide in any::<bool>(),
        b in prop::sample::select(vec![2u32, 4, 8]),
        items in prop::collection::vec(0u64..300, 0..600),
    ) {
        let Ok(mut f) = Apbbf::new(k, l, blocks, if wide { 512 } else { 64 }, b) else { return Ok(()) };
        for (i, &id) in items.iter().enumerate() {
            for probe in [id, id + 1, id * 7 + 3] {
                let d = Digest::mixed(probe);
                prop_assert_eq!(f.contains(d), f.query_accesses(d).0, "item {}", i);
            }
            f.insert(Digest::mixed(id));
        }
    }

    /// Below capacity (at most g arrivals per period), every item inserted
    /// within the last t time units is reported, whatever the gaps.
    #[test]
    fn timed_apbf_reports_the_last_t(
        k in 1u32..5,
        l in 1u32..6,
        span in 1u64..200,
        events in prop::collection::vec((0u64..60, 0u64..40), 0..600),
    ) {
        let m = 400u64;
        let mut f = Apbf::with_time_span(span, k, l, m).unwrap();
        let g = f.generation();
        let period = span.div_ceil(u64::from(l));
        let mut now = 0u64;
        let mut history: Vec<(u64, u64)> = Vec::new();
        for &(id, gap) in &events {
            now += gap;
            // Stay within capacity: skip an arrival that would put more than
            // g items into one period since the last period boundary seen.
            let recent = history.iter().filter(|&&(_, t)| now - t < period).count() as u64;
            if recent >= g {
                continue;
            }
            let expected = history.iter().any(|&(x, t)| x == id && now - t < span);
            let v = f.observe_at(Digest::mixed(id), now);
            prop_assert!(!expected || v == Verdict::Duplicate, "id {id} at {now}");
            history.push((id, now));
        }
    }

    /// Queries see the generations time has closed, with no insertion in between.
    #[test]
    fn timed_queries_age_without_insertions(k in 1u32..5, l in 1u32..6, span in 1u64..1000) {
        let mut f = Apbbf::with_time_span(span, k, l, 64, 512, 8).unwrap();
        let d = Digest::mixed(42);
        f.insert_at(d, 10);
        let period = span.div_ceil(u64::from(l));
        prop_assert!(f.contains_at(d, 10 + span - 1));
        // After k + l periods every segment has been emptied.
        prop_assert!(!f.contains_at(d, 10 + period * u64::from(k + l + 1)));
        // A restored snapshot ages the same way.
        let g = Apbbf::from_bytes(&f.to_bytes()).unwrap();
        prop_assert_eq!(g.contains_at(d, 10 + span - 1), true);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Constructors answer every small input with a filter or a
    /// `ParamError`, never a panic (sizes stay small so valid ones allocate little).
    #[test]
    fn constructors_never_panic(
        k in 0u32..40,
        l in 0u32..40,
        m in 0u64..5_000,
        blocks in 0u64..200,
        block_bits in prop::sample::select(vec![0u32, 1, 63, 64, 128, 512, 513]),
        b in 0u32..20,
        window in 0u64..20_000,
        fp in -0.5f64..1.5,
        npws in -0.5f64..2.5,
        span in 0u64..1_000,
    ) {
        if let Ok(f) = Apbf::new(k, l, m) {
            prop_assert!(f.generation() >= 1);
            let _ = Apbf::with_time_span(span, k, l, m);
        }
        if let Ok(f) = Apbbf::new(k, l, blocks, block_bits, b) {
            prop_assert!(f.generation() >= 1);
        }
        let _ = Apbbf::with_window_shape(window, k, l, block_bits, b);
        if fp > 1e-4 {
            let _ = Apbf::with_window_and_npws(window, fp, npws);
        }
    }
}
