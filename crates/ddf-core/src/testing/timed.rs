//! The clauses of the [`TimedFilter`] contract: `observe_at`, its batch
//! paths, clamped steps back, bounded memory under bursts, and snapshots
//! that carry the clock.

use super::*;

/// Arrival times for [`Conformance::stream`]: gaps drawn uniformly from
/// `0..=max_gap`, so items fall in and out of a time window of a few
/// `max_gap`s and several items share a timestamp.
pub fn timestamps(c: &Conformance, salt: u64, max_gap: u64) -> Vec<u64> {
    let mut rng = SplitMix64::new(c.seed ^ salt.wrapping_mul(0xd1b5_4a32_d192_ed03));
    let mut now = 0u64;
    (0..c.stream_len)
        .map(|_| {
            now = now.saturating_add(rng.below(max_gap.saturating_add(1)));
            now
        })
        .collect()
}

/// The timed contract: `observe_at` equals `contains_at` then `insert_at`,
/// and `contains_at` has no side effects, on a stream with arrival gaps up
/// to `max_gap`.
pub fn timed_observe_is_contains_then_insert<F, M>(make: M, c: &Conformance, max_gap: u64)
where
    F: TimedFilter + Debug,
    M: Fn() -> F,
{
    let (mut fused, mut split) = (make(), make());
    let times = timestamps(c, 1, max_gap);
    for (i, (d, now)) in c.stream(1).into_iter().zip(times).enumerate() {
        let before = fused.contains_at(d, now);
        assert_eq!(
            before,
            fused.contains_at(d, now),
            "contains_at changed its answer at item {i}"
        );
        let v = fused.observe_at(d, now);
        assert_eq!(
            v,
            Verdict::from_seen(before),
            "observe_at disagrees at item {i}"
        );
        let seen = split.contains_at(d, now);
        split.insert_at(d, now);
        assert_eq!(
            v,
            Verdict::from_seen(seen),
            "observe_at differs from contains_at + insert_at at item {i}"
        );
    }
}

/// Timed batches equal one by one: the same stream, with clock values that
/// repeat and sometimes step back, goes one by one into one filter and in
/// batches of random sizes (empty ones included) into two others, through
/// [`observe_batch_at`](TimedFilter::observe_batch_at) and
/// [`observe_batch_stamped`](TimedFilter::observe_batch_stamped); verdicts,
/// [`contains_batch_at`](TimedFilter::contains_batch_at) answers and the
/// clock-regression counts agree.
pub fn timed_batches_are_one_by_one<F, M>(make: M, c: &Conformance, max_gap: u64)
where
    F: TimedFilter + Debug,
    M: Fn() -> F,
{
    let (mut single, mut at, mut stamped) = (make(), make(), make());
    let stream = c.stream(4);
    let mut rng = SplitMix64::new(c.seed ^ 0x6261_7463_6874);
    // Runs of equal time (a coarse clock), with a step back now and then.
    let mut now = 0u64;
    let mut times = Vec::with_capacity(stream.len());
    while times.len() < stream.len() {
        let step = rng.below(max_gap.saturating_add(1));
        now = if rng.below(8) == 0 {
            now.saturating_sub(step)
        } else {
            now.saturating_add(step)
        };
        let run = 1 + rng.below(80) as usize;
        times.extend(std::iter::repeat_n(
            now,
            run.min(stream.len() - times.len()),
        ));
    }
    let (mut want, mut got_at, mut got_stamped) = (Vec::new(), Vec::new(), Vec::new());
    for (&d, &t) in stream.iter().zip(&times) {
        want.push(single.observe_at(d, t));
    }
    let mut i = 0;
    while i < stream.len() {
        // One clock value per `observe_batch_at` call: cut at time changes.
        let t = times[i];
        let same = times[i..].iter().take_while(|&&x| x == t).count();
        let len = (rng.below(100) as usize).min(same);
        at.observe_batch_at(&stream[i..i + len], t, &mut got_at);
        i += len;
    }
    let pairs: Vec<(Digest, u64)> = stream.iter().copied().zip(times.iter().copied()).collect();
    let mut i = 0;
    while i < pairs.len() {
        let len = (rng.below(300) as usize).min(pairs.len() - i);
        stamped.observe_batch_stamped(&pairs[i..i + len], &mut got_stamped);
        i += len;
    }
    for (name, got) in [
        ("observe_batch_at", &got_at),
        ("observe_batch_stamped", &got_stamped),
    ] {
        assert_eq!(
            got.len(),
            want.len(),
            "{name} gave a verdict count unlike the items"
        );
        if let Some(k) = (0..want.len()).find(|&k| got[k] != want[k]) {
            panic!("{name} differs from observe_at one by one at item {k}");
        }
    }
    assert_eq!(
        at.clock_regressions(),
        single.clock_regressions(),
        "observe_batch_at clock regressions"
    );
    assert_eq!(
        stamped.clock_regressions(),
        single.clock_regressions(),
        "observe_batch_stamped clock regressions"
    );
    let probes = c.stream(5);
    let last = times.last().copied().unwrap_or(0);
    for t in [last, last.saturating_add(max_gap)] {
        let mut answers = Vec::new();
        at.contains_batch_at(&probes, t, &mut answers);
        assert_eq!(
            answers.len(),
            probes.len(),
            "contains_batch_at answer count"
        );
        for (k, &d) in probes.iter().enumerate() {
            assert_eq!(
                answers[k],
                single.contains_at(d, t),
                "contains_batch_at differs at probe {k}"
            );
        }
    }
}

/// Time going backwards is clamped: a filter fed timestamps that sometimes
/// step back gives the verdicts and `contains_at` answers of one fed the
/// running maximum, and counts each step back in `clock_regressions`
/// (queries count nothing); `clear` resets both counters.
pub fn timed_steps_back_are_clamped<F, M>(make: M, c: &Conformance, max_gap: u64)
where
    F: TimedFilter + Debug,
    M: Fn() -> F,
{
    let (mut jittery, mut clamped) = (make(), make());
    let times = timestamps(c, 3, max_gap);
    let mut rng = SplitMix64::new(c.seed ^ 0x6261_636b);
    let (mut latest, mut steps_back) = (0u64, 0u64);
    for (i, (d, now)) in c.stream(3).into_iter().zip(times).enumerate() {
        // One item in four arrives with a time up to twice the largest gap
        // behind the latest (or at 0).
        let given = if rng.below(4) == 0 {
            now.saturating_sub(rng.below(2 * max_gap.saturating_add(1)) + 1)
        } else {
            now
        };
        if given < latest {
            steps_back += 1;
        }
        latest = latest.max(given);
        assert_eq!(
            jittery.contains_at(d, given),
            clamped.contains_at(d, latest),
            "contains_at at a time behind the latest is not the clamped answer at item {i}"
        );
        assert_eq!(
            jittery.observe_at(d, given),
            clamped.observe_at(d, latest),
            "observe_at at a time behind the latest is not the clamped verdict at item {i}"
        );
        assert_eq!(
            jittery.clock_regressions(),
            steps_back,
            "clock_regressions miscounted at item {i}"
        );
    }
    assert_eq!(
        clamped.clock_regressions(),
        0,
        "a monotone clock counted regressions"
    );
    assert_eq!(
        jittery.generations_closed_early(),
        clamped.generations_closed_early(),
        "clamped and jittery runs closed different generations early"
    );
    jittery.clear();
    assert_eq!(
        (
            jittery.clock_regressions(),
            jittery.generations_closed_early()
        ),
        (0, 0),
        "clear kept the clock counters"
    );
}

/// Overload never grows the state: a burst of many distinct items at one
/// instant (far beyond any sized rate) leaves `memory_bits` at most what the
/// fresh filter reported, at every step.
pub fn timed_burst_keeps_memory<F, M>(make: M, c: &Conformance)
where
    F: TimedFilter + Debug,
    M: Fn() -> F,
{
    let mut f = make();
    let bound = f.memory_bits();
    let burst = 8 * c.stream_len as u64;
    for i in 0..burst {
        f.observe_at(Digest::mixed(i ^ 0x0b5e_55ed), 1);
        assert!(
            f.memory_bits() <= bound,
            "memory grew to {} bits (constructed with {bound}) after {} burst items",
            f.memory_bits(),
            i + 1
        );
    }
}

/// A snapshot taken mid-stream carries the filter's clock: the restored
/// filter answers `contains_at` and `observe_at` exactly as the original on
/// the timed continuation, for random streams and cut points.
pub fn timed_snapshot_round_trips<F, M>(make: M, c: &Conformance, max_gap: u64)
where
    F: TimedFilter + Snapshot + Debug,
    M: Fn() -> F,
{
    let len = c.stream_len;
    let mut runner = runner(8, c.seed ^ 0x7173);
    check_property(
        &mut runner,
        "timed snapshot round trip",
        &(any::<u64>(), 0..=len),
        |(salt, cut)| {
            let stream = c.stream(salt);
            let times = timestamps(c, salt, max_gap);
            let mut original = make();
            for (&d, &now) in stream[..cut].iter().zip(&times[..cut]) {
                original.observe_at(d, now);
            }
            let bytes = original.to_bytes();
            let mut restored = F::from_bytes(&bytes)
                .map_err(|e| TestCaseError::fail(format!("own snapshot rejected: {e}")))?;
            for (i, (&d, &now)) in stream[cut..].iter().zip(&times[cut..]).enumerate() {
                prop_assert_eq!(
                    restored.contains_at(d, now),
                    original.contains_at(d, now),
                    "restored contains_at differs at continued item {}",
                    i
                );
                prop_assert_eq!(
                    restored.observe_at(d, now),
                    original.observe_at(d, now),
                    "restored observe_at differs at continued item {}",
                    i
                );
            }
            prop_assert!(
                restored.to_bytes() == original.to_bytes(),
                "restored and original state differ after the continuation"
            );
            Ok(())
        },
    );
}
