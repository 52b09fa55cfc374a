//! `ddf::Shared` from real threads: no false negative where the shards'
//! filters promise none, against a brute-force truth over the recorded
//! merged order; and `plan_sharded`'s sizing.

use ddf::hash::SplitMix64;
use ddf::{
    Digest, DuplicateFilter, Filter, PlanError, Requirements, Shared, Span, TimedFilter, Verdict,
    Window, Windowed, plan_sharded,
};
use proptest::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// One observation as recorded under its shard's lock.
#[derive(Debug, Clone, Copy)]
struct Event {
    seq: u64,
    shard: usize,
    digest: Digest,
    verdict: Verdict,
}

/// Every thread observes its own seeded stream over a common universe (so
/// items repeat within and across threads). The sequence number is taken
/// while the shard's lock is held, so sorting by it gives an order in which
/// each shard saw its items; a timed filter is given `now = seq / 4`, which
/// is then non-decreasing in every shard.
fn run_threads(
    shared: &Shared<Filter>,
    threads: usize,
    per_thread: usize,
    seed: u64,
) -> Vec<Event> {
    let counter = AtomicU64::new(0);
    let timed = shared.each_shard(|_, f| f.is_timed())[0];
    let mut events: Vec<Event> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let counter = &counter;
                s.spawn(move || {
                    let mut rng = SplitMix64::new(seed ^ (t as u64).wrapping_mul(0x9e37_79b9));
                    (0..per_thread)
                        .map(|_| {
                            let digest = Digest::mixed(rng.below(3_000));
                            let shard = shared.shard_of(digest);
                            let mut f = shared.lock(digest);
                            let seq = counter.fetch_add(1, Ordering::Relaxed);
                            let verdict = if timed {
                                f.observe_at(digest, seq / 4)
                            } else {
                                f.observe(digest)
                            };
                            drop(f);
                            Event {
                                seq,
                                shard,
                                digest,
                                verdict,
                            }
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    events.sort_by_key(|e| e.seq);
    events
}

/// Checks the hard promise against brute force over the merged order: a
/// repeat within the shard's window (its own insertions, or time) is never
/// missed. Returns how many such repeats were checked.
fn assert_no_false_negative(events: &[Event], shards: usize, window: Window) -> usize {
    let mut shard_count = vec![0u64; shards];
    // Last (shard-local index, time) of each digest.
    let mut last: HashMap<Digest, (u64, u64)> = HashMap::new();
    let mut checked = 0;
    for e in events {
        let index = shard_count[e.shard];
        shard_count[e.shard] += 1;
        let now = e.seq / 4;
        if let Some(&(prev_index, prev_time)) = last.get(&e.digest) {
            let inside = match window {
                // Among the last `w` insertions of its shard before this one.
                Window::Count(w) => index - prev_index <= w,
                Window::Time(t) => now - prev_time < t,
                Window::Unbounded => true,
            };
            if inside {
                checked += 1;
                assert_eq!(
                    e.verdict,
                    Verdict::Duplicate,
                    "{e:?} missed inside {window:?}"
                );
            }
        }
        last.insert(e.digest, (index, now));
    }
    checked
}

fn shard_filters(kind: usize, seed: u64) -> (Shared<Filter>, Window) {
    let shards = 4;
    let make = move |i: usize| -> Result<Filter, ddf::ParamError> {
        let s = seed ^ i as u64;
        Ok(match kind {
            0 => ddf::ExactWindow::<Digest>::new(300)?.into(),
            1 => ddf::SlidingBloom::new(300, ddf::sliding::Slack::AtMost(100), 0.01)?
                .with_seed(s)
                .into(),
            2 => ddf::Apbf::with_window(300, 0.01)?.into(),
            3 => ddf::ExactWindow::with_time_span(200, u64::MAX)?.into(),
            // Generations also close after `g` insertions: size them for
            // far more than the ~1 arrival per time unit a shard sees here,
            // so that time alone expires items (the promise's condition).
            _ => {
                let w = ddf::Apbf::with_window(2_000, 0.01)?;
                ddf::Apbf::with_time_span(200, w.k(), w.l(), w.slice_bits())?.into()
            }
        })
    };
    let shared = Shared::with_seed(shards, seed, make).unwrap();
    let window = shared.each_shard(|_, f| f.window())[0];
    (shared, window)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10))]

    /// Exact window, sliding Bloom and APBF, by count and by time: none
    /// misses a repeat inside its window, whatever the interleaving.
    #[test]
    fn no_false_negative_from_many_threads(
        threads in 2usize..=8,
        kind in 0usize..5,
        seed in any::<u64>(),
    ) {
        let (shared, window) = shard_filters(kind, seed);
        let events = run_threads(&shared, threads, 1_500, seed);
        prop_assert_eq!(events.len(), threads * 1_500);
        let checked = assert_no_false_negative(&events, shared.shards(), window);
        // The universe and window make in-window repeats common: the check
        // is not vacuous.
        prop_assert!(checked > 100, "only {} repeats checked", checked);
    }
}

#[test]
fn shards_are_chosen_by_digest_and_spread_evenly() {
    let shared = Shared::with_seed(16, 1, |_| ddf::ExactWindow::<Digest>::new(10)).unwrap();
    let mut counts = [0u64; 16];
    for i in 0..160_000u64 {
        let d = Digest::mixed(i);
        let s = shared.shard_of(d);
        assert_eq!(s, shared.shard_of(d));
        counts[s] += 1;
    }
    // Each count is Binomial(160000, 1/16): mean 10000, sd ≈ 97; 6 sd is
    // exceeded with probability below 1e-8 per shard.
    for c in counts {
        assert!(c.abs_diff(10_000) < 6 * 97, "{counts:?}");
    }
}

#[test]
fn shard_count_is_checked() {
    let make = |_| ddf::ExactWindow::<Digest>::new(10);
    assert_eq!(Shared::with_shards(0, make).unwrap_err().param(), "shards");
    assert_eq!(
        Shared::with_shards(ddf::MAX_SHARDS + 1, make)
            .unwrap_err()
            .param(),
        "shards"
    );
    assert_eq!(Shared::new(make).unwrap().shards(), ddf::DEFAULT_SHARDS);
    // A shard that fails to build fails the whole.
    let err = Shared::with_shards(3, |i| {
        ddf::ExactWindow::<Digest>::new(if i == 2 { 0 } else { 5 })
    });
    assert_eq!(err.unwrap_err().param(), "window");
}

#[test]
fn parts_round_trip_and_items_keep_their_shard() {
    let shared = Shared::with_seed(5, 9, |_| ddf::ExactWindow::<Digest>::new(1_000)).unwrap();
    for i in 0..2_000u32 {
        shared.observe(&i);
    }
    assert_eq!(shared.observe(&1_999u32), Verdict::Duplicate);
    let bits = shared.memory_bits();
    let (filters, hasher) = shared.into_parts();
    let back = Shared::from_parts(filters, hasher).unwrap();
    assert_eq!(back.memory_bits(), bits);
    assert!(back.contains(&1_500u32));
    assert!(!back.contains(&5_000u32));
    back.clear();
    assert!(!back.contains(&1_500u32));
}

#[test]
fn plan_sharded_sizes_each_shard_by_the_binomial_quantile() {
    let req = Requirements::count(100_000).fpr(0.001).max_slack(10_000);
    let p = plan_sharded(&req, 8, 1e-6).unwrap();
    let Span::Count(ws) = p.shard_span else {
        panic!("{:?}", p.shard_span)
    };
    assert_eq!(
        Some(ws),
        ddf::theory::sharding::shard_window(100_000, 8, 1e-6)
    );
    assert!(p.miss_bound <= 1e-6);
    let best = &p.candidates[0];
    assert!(!best.false_negatives && best.fpr <= 0.001);
    let shared = p.build(best).unwrap();
    assert_eq!(shared.shards(), 8);
    assert_eq!(shared.memory_bits(), p.memory_bits(best));
    // Each shard holds the planned window (or more).
    for w in shared.each_shard(|_, f| f.window()) {
        assert!(matches!(w, Window::Count(c) if c >= ws), "{w:?}");
    }
    // Time windows keep their span; each shard gets λ/S.
    let t = plan_sharded(&Requirements::time(60, 1_000.0).fpr(0.01), 4, 1e-6).unwrap();
    assert_eq!(
        t.shard_span,
        Span::Time {
            span: 60,
            rate: 250.0
        }
    );
    let timed = t.build(&t.candidates[0]).unwrap();
    assert!(timed.each_shard(|_, f| f.is_timed()).into_iter().all(|x| x));
    // Bad parameters are named.
    assert_eq!(
        plan_sharded(&req, 0, 0.1).unwrap_err().param(),
        Some("shards")
    );
    assert_eq!(
        plan_sharded(&req, 4, 0.0).unwrap_err().param(),
        Some("delta")
    );
    assert_eq!(
        plan_sharded(&Requirements::count(0).fpr(0.1), 4, 0.1)
            .unwrap_err()
            .param(),
        Some("window")
    );
}

/// The binomial excess `S·w_s − w` of `shards` shards over a count window.
fn excess(w: u64, shards: usize, delta: f64) -> u64 {
    let ws = ddf::theory::sharding::shard_window(w, shards as u64, delta).unwrap();
    ws * shards as u64 - w
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// `plan_sharded` over a count window meets the slack limit or refuses:
    /// every candidate's merged slack is within the limit; a refusal names
    /// the excess above it and a shard count that meets it, one more than
    /// which does not.
    #[test]
    fn merged_slack_never_exceeds_the_limit(
        log_w in 4.0f64..22.0,
        shards in 1usize..=512,
        slack in proptest::option::of(0.0f64..1.2),
        log_delta in -12.0f64..-1.0,
    ) {
        let w = 2f64.powf(log_w) as u64;
        let mut req = Requirements::count(w).fpr(0.01);
        if let Some(f) = slack {
            req = req.max_slack((w as f64 * f) as u64);
        }
        let limit = req.slack_limit();
        let delta = 10f64.powf(log_delta);
        let within = |p: &ddf::ShardedPlan| p.candidates.iter().all(|c| p.merged_slack(c) <= limit);
        match plan_sharded(&req, shards, delta) {
            Ok(p) => {
                prop_assert!(excess(w, shards, delta) <= limit);
                prop_assert!(within(&p), "{:?}", p);
            }
            Err(PlanError::TooManyShards { shards: asked, excess: e, max_slack, fits }) => {
                prop_assert_eq!((asked, max_slack), (shards, limit));
                prop_assert_eq!(e, excess(w, shards, delta));
                prop_assert!(e > limit && (1..shards).contains(&fits));
                prop_assert!(excess(w, fits, delta) <= limit);
                prop_assert!(fits + 1 == shards || excess(w, fits + 1, delta) > limit);
                match plan_sharded(&req, fits, delta) {
                    Ok(p) => prop_assert!(within(&p)),
                    // A tight slack may leave no family at all.
                    Err(PlanError::NoCandidate(_)) => {}
                    Err(other) => prop_assert!(false, "{} shards: {}", fits, other),
                }
            }
            Err(PlanError::NoCandidate(_)) => {}
            Err(other) => prop_assert!(false, "{other}"),
        }
    }
}

/// Shards of one of five kinds (count and time windows, exact and not), for
/// the batch tests: small windows so that items expire within a run.
fn batch_shards(kind: usize, shards: usize, seed: u64) -> Shared<Filter> {
    Shared::with_seed(shards, seed, move |i| {
        let s = seed ^ i as u64;
        Ok(match kind {
            0 => ddf::ExactWindow::<Digest>::new(40)?.into(),
            1 => ddf::SlidingBloom::new(60, ddf::sliding::Slack::AtMost(20), 0.01)?
                .with_seed(s)
                .into(),
            2 => ddf::Apbf::with_window(60, 0.01)?.into(),
            3 => ddf::ExactWindow::with_time_span(30, 500)?.into(),
            _ => {
                let w = ddf::Apbf::with_window(500, 0.01)?;
                ddf::Apbf::with_time_span(30, w.k(), w.l(), w.slice_bits())?.into()
            }
        })
    })
    .unwrap()
}

/// Every shard's snapshot bytes, in shard order: the whole state.
fn states(shared: &Shared<Filter>) -> Vec<Vec<u8>> {
    shared.each_shard(|_, f| f.to_bytes())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// `observe_many` / `contains_many` (and their timed forms) give the
    /// answers of one-by-one calls, in input order, and leave every shard in
    /// the same state, for batches that span several blocks and shards.
    #[test]
    fn batches_equal_one_by_one(
        kind in 0usize..5,
        shards in 1usize..=9,
        seed in any::<u64>(),
        lens in proptest::collection::vec(0usize..3_000, 1..6),
    ) {
        let timed = kind >= 3;
        let one = batch_shards(kind, shards, seed);
        let many = batch_shards(kind, shards, seed);
        let mut rng = SplitMix64::new(seed);
        for (b, &len) in lens.iter().enumerate() {
            // A universe of 400 items: repeats within and across batches.
            let items: Vec<u64> = (0..len).map(|_| rng.below(400)).collect();
            let now = 10 * b as u64;
            let (mut got, mut answers) = (Vec::new(), Vec::new());
            if timed {
                many.contains_many_at(items.iter(), now, &mut answers);
                many.observe_many_at(items.iter(), now, &mut got);
            } else {
                many.contains_many(items.iter(), &mut answers);
                many.observe_many(items.iter(), &mut got);
            }
            let expected_answers: Vec<bool> = items
                .iter()
                .map(|i| if timed { one.contains_at(i, now) } else { one.contains(i) })
                .collect();
            let expected: Vec<Verdict> = items
                .iter()
                .map(|i| if timed { one.observe_at(i, now) } else { one.observe(i) })
                .collect();
            prop_assert_eq!(&answers, &expected_answers);
            prop_assert_eq!(&got, &expected);
            prop_assert_eq!(states(&many), states(&one));
        }
        // The digest forms are the same path.
        let digests: Vec<Digest> = (0..700).map(|_| many.digest(&rng.below(400))).collect();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        if timed {
            many.observe_digests_at(&digests, 100, &mut a);
            b.extend(digests.iter().map(|&d| one.lock(d).observe_at(d, 100)));
        } else {
            many.observe_digests(&digests, &mut a);
            b.extend(digests.iter().map(|&d| one.observe_digest(d)));
        }
        prop_assert_eq!(a, b);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        if timed {
            many.contains_digests_at(&digests, 100, &mut a);
            b.extend(digests.iter().map(|&d| one.lock(d).contains_at(d, 100)));
        } else {
            many.contains_digests(&digests, &mut a);
            b.extend(digests.iter().map(|&d| one.contains_digest(d)));
        }
        prop_assert_eq!(a, b);
        prop_assert_eq!(states(&many), states(&one));
    }
}

/// Batches from many threads at once, some shards busy: every thread's
/// first batch of its own keys is all `Unseen`, its second batch of the same
/// keys all `Duplicate` (an exact whole-stream set per shard), and the
/// shards hold exactly the keys observed.
#[test]
fn batches_from_many_threads_see_their_own_keys() {
    for threads in [2usize, 8] {
        let shared =
            Shared::with_seed(16, 3, |_| Ok(ddf::ExactWindow::<Digest>::unbounded())).unwrap();
        std::thread::scope(|s| {
            for t in 0..threads as u64 {
                let shared = &shared;
                s.spawn(move || {
                    let keys: Vec<u64> = (0..20_000).map(|i| (t << 32) | i).collect();
                    for chunk in keys.chunks(2_500) {
                        let mut v = Vec::new();
                        shared.observe_many(chunk.iter(), &mut v);
                        assert!(v.iter().all(|x| *x == Verdict::Unseen), "thread {t}");
                        v.clear();
                        shared.observe_many(chunk.iter(), &mut v);
                        assert!(v.iter().all(|x| *x == Verdict::Duplicate), "thread {t}");
                        assert_eq!(v.len(), chunk.len());
                    }
                });
            }
        });
        let mut answers = Vec::new();
        let probe: Vec<u64> = (0..threads as u64 + 2)
            .flat_map(|t| [(t << 32) | 19_999, (t << 32) | 20_000])
            .collect();
        shared.contains_many(probe.iter(), &mut answers);
        for (k, seen) in probe.iter().zip(answers) {
            let t = k >> 32;
            assert_eq!(
                seen,
                t < threads as u64 && k & 0xffff_ffff < 20_000,
                "{k:#x}"
            );
        }
    }
}

#[test]
fn every_shard_has_its_own_cache_lines() {
    use ddf::shared::CACHE_BLOCK;
    assert_eq!(CACHE_BLOCK, 128);
    // The lock word and filter header of consecutive shards are at least a
    // block apart: `lock` returns a guard to the filter inside each shard.
    let shared = Shared::with_seed(4, 1, |_| ddf::ExactWindow::<Digest>::new(10)).unwrap();
    let mut addresses: Vec<usize> = shared.each_shard(|_, f| f as *mut _ as usize);
    addresses.sort_unstable();
    for pair in addresses.windows(2) {
        assert!(pair[1] - pair[0] >= CACHE_BLOCK, "{addresses:x?}");
        assert_eq!(pair[1] % CACHE_BLOCK, pair[0] % CACHE_BLOCK);
    }
}

/// `plan_sharded` at [`ddf::DEFAULT_SHARDS`] keeps its promise: every
/// repeat within the last `w` merged items is reported (the window, with
/// probability `1 − δ` at each moment), fresh items are reported at most
/// at the planned rate, the shards' slack is within the mapped limit, and
/// the merged slack is what `merged_slack` says.
#[test]
fn default_shard_count_keeps_the_planned_promise() {
    let w = 1u64 << 16;
    let req = Requirements::count(w).fpr(0.01).max_slack(w / 2);
    let p = plan_sharded(&req, ddf::DEFAULT_SHARDS, 1e-9).unwrap();
    assert!(p.miss_bound <= 1e-9);
    let Span::Count(ws) = p.shard_span else {
        panic!("{:?}", p.shard_span)
    };
    let s = ddf::DEFAULT_SHARDS as u64;
    // The binomial excess alone fits the slack asked for, so every
    // candidate's merged slack does too.
    assert!(s * ws - w <= w / 2, "w_s = {ws}");
    for c in &p.candidates {
        assert!(p.merged_slack(c) <= w / 2, "{c}: {}", p.merged_slack(c));
        assert!(c.fpr <= 0.01, "{c}");
    }
    let best = &p.candidates[0];
    let shared = p
        .build_with_hasher(best, ddf::KeyedSipHasher::with_seed(5))
        .unwrap();
    assert_eq!(shared.memory_bits(), p.memory_bits(best));
    let mut rng = SplitMix64::new(11);
    let mut stream: Vec<u64> = Vec::new();
    let (mut fresh, mut false_positives, mut repeats) = (0u64, 0u64, 0u64);
    for i in 0..(1u64 << 18) {
        let repeat = stream.len() as u64 >= w && rng.below(2) == 0;
        let item = if repeat {
            stream[stream.len() - 1 - rng.below(w) as usize]
        } else {
            (1 << 40) | i
        };
        let verdict = shared.observe(&item);
        if repeat {
            repeats += 1;
            assert_eq!(verdict, Verdict::Duplicate, "repeat {item} missed at {i}");
        } else {
            fresh += 1;
            false_positives += u64::from(verdict == Verdict::Duplicate);
        }
        stream.push(item);
    }
    assert!(repeats > 90_000, "{repeats}");
    // Binomial(fresh, ≤ 0.01): the mean plus 6 standard deviations is
    // exceeded with probability below 1e-8.
    let mean = fresh as f64 * best.fpr;
    assert!(
        (false_positives as f64) <= mean + 6.0 * mean.sqrt() + 1.0,
        "{false_positives} false positives of {fresh}, planned {}",
        best.fpr
    );
}
