//! Property test: the batch path (prefetching) equals the one-by-one path.

use ddf_apbf::{Apbbf, Apbf, Atomic, AtomicForm};
use ddf_core::Snapshot;
use ddf_core::testing::assert_batches_match;
use ddf_core::{Digest, TimedFilter};
use proptest::collection::vec;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Small generations, so that shifts happen inside batches, and many
    /// duplicates, so that queries hit and take the other path.
    #[test]
    fn batches_match_one_by_one(
        items in vec(0u64..500, 0..3000),
        cuts in vec(1usize..90, 1..6),
    ) {
        let ds: Vec<Digest> = items.iter().map(|&x| Digest::mixed(x)).collect();
        let f = Apbf::new(4, 6, 300).unwrap();
        assert_batches_match(f.clone(), f, &ds, &cuts);
        let f = Apbbf::new(3, 8, 4, 512, 4).unwrap();
        assert_batches_match(f.clone(), f, &ds, &cuts);
        let f = Apbbf::new(2, 5, 10, 64, 4).unwrap();
        assert_batches_match(f.clone(), f, &ds, &cuts);
        let f = Apbbf::new(3, 4, 6, 512, 8).unwrap();
        assert_batches_match(f.clone(), f, &ds, &cuts);
        let f = Apbbf::new(2, 3, 12, 64, 8).unwrap();
        assert_batches_match(f.clone(), f, &ds, &cuts);
        // At least 16 Mbit, so that the batch path prefetches.
        let f = Apbbf::new(3, 8, 3_000, 512, 4).unwrap();
        assert!(ddf_core::DuplicateFilter::memory_bits(&f) >= 1 << 24);
        assert_batches_match(f.clone(), f, &ds, &cuts);
    }
}

/// Timed batches (`observe_batch_at`, `contains_batch_at`, and the stamped
/// batches built on them) against `observe_at` / `contains_at` one by one:
/// same verdicts and the same state, at a size that prefetches and one that
/// does not, with time steps that close generations inside batches.
fn timed_batches_match<F: TimedFilter + Clone + PartialEq + std::fmt::Debug>(
    f: F,
    stamped: &[(Digest, u64)],
    cut: usize,
) {
    let (mut one, mut batch, mut stamped_batch) = (f.clone(), f.clone(), f);
    let mut expect = Vec::new();
    let mut got = Vec::new();
    for run in stamped.chunks(cut) {
        // One time per run: the run's first stamp.
        let now = run[0].1;
        let ds: Vec<Digest> = run.iter().map(|&(d, _)| d).collect();
        let mut answers = Vec::new();
        batch.contains_batch_at(&ds, now, &mut answers);
        let one_answers: Vec<bool> = ds.iter().map(|&d| one.contains_at(d, now)).collect();
        assert_eq!(answers, one_answers);
        expect.extend(ds.iter().map(|&d| one.observe_at(d, now)));
        batch.observe_batch_at(&ds, now, &mut got);
    }
    assert_eq!(got, expect);
    assert!(batch == one, "state after observe_batch_at");
    let mut stamped_got = Vec::new();
    let mut replay = Vec::new();
    let mut fresh = stamped_batch.clone();
    stamped_batch.observe_batch_stamped(stamped, &mut stamped_got);
    replay.extend(stamped.iter().map(|&(d, t)| fresh.observe_at(d, t)));
    assert_eq!(stamped_got, replay);
    assert!(stamped_batch == fresh, "state after observe_batch_stamped");
}

/// Digests of `items` stamped with the running sum of their time steps.
fn stamp(items: &[(u64, u64)]) -> Vec<(Digest, u64)> {
    let mut now = 0;
    items
        .iter()
        .map(|&(x, step)| {
            now += step;
            (Digest::mixed(x), now)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn timed_batches_match_one_by_one(
        items in vec((0u64..500, 0u64..3), 1..2000),
        cut in 1usize..90,
    ) {
        let stamped = stamp(&items);
        timed_batches_match(Apbf::with_time_span(60, 4, 6, 300).unwrap(), &stamped, cut);
        timed_batches_match(Apbbf::with_time_span(80, 3, 8, 4, 512, 4).unwrap(), &stamped, cut);
        // At least 16 Mbit, so that the batch path prefetches.
        let f = Apbbf::with_time_span(80, 3, 8, 3_000, 512, 4).unwrap();
        timed_batches_match(f, &stamped, cut);
    }
}

/// The lock-free filters' batches through `&self` (`observe_digests`,
/// `contains_digests` and their timed forms) against their own one-by-one
/// calls from one thread: same verdicts, answers and state.
fn atomic_batches_match<F: AtomicForm + Clone>(f: F, stamped: &[(Digest, u64)], cut: usize) {
    let (one, batch) = (Atomic::from(f.clone()), Atomic::from(f));
    let timed = one.period().is_some();
    let (mut expect, mut got) = (Vec::new(), Vec::new());
    for run in stamped.chunks(cut) {
        let now = run[0].1;
        let ds: Vec<Digest> = run.iter().map(|&(d, _)| d).collect();
        let mut answers = Vec::new();
        if timed {
            batch.contains_digests_at(&ds, now, &mut answers);
            let one_answers: Vec<bool> = ds.iter().map(|&d| one.contains_at(d, now)).collect();
            assert_eq!(answers, one_answers);
            expect.extend(ds.iter().map(|&d| one.observe_at(d, now)));
            batch.observe_digests_at(&ds, now, &mut got);
        } else {
            batch.contains_digests(&ds, &mut answers);
            let one_answers: Vec<bool> = ds.iter().map(|&d| one.contains(d)).collect();
            assert_eq!(answers, one_answers);
            expect.extend(ds.iter().map(|&d| one.observe(d)));
            batch.observe_digests(&ds, &mut got);
        }
    }
    assert_eq!(got, expect);
    assert_eq!(batch.to_bytes(), one.to_bytes(), "state after the batches");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// Count and time windows, small and at least 16 Mbit (where the batch
    /// path hints), with generations closing inside batches.
    #[test]
    fn atomic_batches_match_one_by_one(
        items in vec((0u64..500, 0u64..3), 1..2000),
        cut in 1usize..90,
    ) {
        let stamped = stamp(&items);
        atomic_batches_match(Apbf::new(4, 6, 300).unwrap(), &stamped, cut);
        atomic_batches_match(Apbf::new(4, 6, 1 << 22).unwrap(), &stamped, cut);
        atomic_batches_match(Apbbf::new(3, 8, 4, 512, 4).unwrap(), &stamped, cut);
        atomic_batches_match(Apbbf::new(3, 8, 3_000, 512, 4).unwrap(), &stamped, cut);
        atomic_batches_match(Apbf::with_time_span(60, 4, 6, 300).unwrap(), &stamped, cut);
        atomic_batches_match(Apbbf::with_time_span(80, 3, 8, 3_000, 512, 4).unwrap(), &stamped, cut);
    }
}
