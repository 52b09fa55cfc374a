//! Property test: the batch path (prefetching) equals the one-by-one path.

use ddf_core::Digest;
use ddf_core::testing::assert_batches_match;
use ddf_sliding::{Slack, SlidingBloom};
use proptest::collection::vec;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A short window: generations end, the scan runs and stale cells are
    /// overwritten inside batches; the small alphabet repeats items.
    #[test]
    fn batches_match_one_by_one(
        items in vec(0u64..700, 0..3000),
        cuts in vec(1usize..90, 1..6),
        seed in any::<u64>(),
    ) {
        let ds: Vec<Digest> = items.iter().map(|&x| Digest::mixed(x)).collect();
        let f = SlidingBloom::new(200, Slack::AtMost(60), 1.0 / 64.0).unwrap().with_seed(seed);
        assert_batches_match(f.clone(), f, &ds, &cuts);
        let f = SlidingBloom::least_space(300, 1.0 / 1024.0).unwrap().with_design_load(0.94).unwrap();
        assert_batches_match(f.clone(), f, &ds, &cuts);
    }
}

/// `contains_batch_at` answers as `contains_at` one by one, at a `now` in
/// the current generation, some generations ahead and beyond the reach;
/// `observe_batch_at` leaves the state of `observe_at` one by one, also when
/// `now` steps back.
#[test]
fn timed_batches_answer_as_one_by_one() {
    use ddf_sliding::{Snapshot, TimedFilter};
    let make = || SlidingBloom::with_time_span(10_000, Slack::LeastSpace, 50_000, 0.001).unwrap();
    let (mut one, mut many) = (make(), make());
    let items: Vec<Digest> = (0..60_000u64).map(Digest::mixed).collect();
    let mut want = Vec::new();
    let mut got = Vec::new();
    for (i, chunk) in items.chunks(300).enumerate() {
        // One time per chunk, stepping back every seventh chunk.
        let now = if i % 7 == 6 {
            (5 * i as u64).saturating_sub(40)
        } else {
            5 * i as u64
        };
        for &d in chunk {
            want.push(one.observe_at(d, now));
        }
        many.observe_batch_at(chunk, now, &mut got);
    }
    assert_eq!(want, got);
    assert_eq!(one.clock_regressions(), many.clock_regressions());
    assert_eq!(one.to_bytes(), many.to_bytes());
    let latest = 5 * (items.len() as u64 / 300 - 1);
    let span = many.generation_len();
    for now in [0, latest, latest + span, latest + 3 * span, latest + 20_000] {
        let mut answers = Vec::new();
        many.contains_batch_at(&items, now, &mut answers);
        let expected: Vec<bool> = items.iter().map(|&d| many.contains_at(d, now)).collect();
        assert_eq!(answers, expected, "now {now}");
    }
}
