//! The conformance suite every filter type runs, one macro line each.
//!
//! ```text
//! ddf_core::conformance!(qht_conformance, Qht::new(1024, 4, 8).unwrap());
//! ddf_core::conformance!(
//!     apbf_conformance,
//!     Apbf::new(4, 6, 1000).unwrap(),
//!     Conformance::default().promise(Promise::LastInsertions(3000)),
//! );
//! ```
//!
//! The macro expands to a test module with one `#[test]` per clause of the
//! [`DuplicateFilter`] contract plus snapshot round-trip and hostile-bytes
//! tests. The checks are plain functions here, so a crate can also call them
//! from its own tests with other settings.

use crate::filter::{DuplicateFilter, TimedFilter, Verdict};
use crate::snapshot::{self, Snapshot};
use ddf_hash::{Digest, SplitMix64};
use proptest::prelude::{any, prop_assert, prop_assert_eq};
use proptest::strategy::Strategy;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use std::collections::HashMap;
use std::fmt::Debug;

/// Which false negatives a filter type rules out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Promise {
    /// None: the filter may forget anything (QHT, SBF, ...).
    None,
    /// No false negatives ever (Bloom filters, exact sets).
    Ever,
    /// No false negative for an item whose previous occurrence is among the
    /// last `n` insertions (windowed filters).
    LastInsertions(u64),
}

/// Settings of the conformance suite for one filter type.
#[derive(Debug, Clone)]
pub struct Conformance {
    promise: Promise,
    budget_bits: Option<u64>,
    growing_memory: bool,
    stream_len: usize,
    alphabet: u64,
    seed: u64,
}

impl Default for Conformance {
    fn default() -> Self {
        Conformance {
            promise: Promise::None,
            budget_bits: None,
            growing_memory: false,
            stream_len: 20_000,
            alphabet: 4_096,
            seed: 0x00dd_f00d,
        }
    }
}

impl Conformance {
    /// The false negatives the type rules out (default: none ruled out).
    pub fn promise(mut self, promise: Promise) -> Self {
        self.promise = promise;
        self
    }
    /// `memory_bits` must never exceed `bits`.
    pub fn budget_bits(mut self, bits: u64) -> Self {
        self.budget_bits = Some(bits);
        self
    }
    /// The state grows with the items stored (exact sets); skips the
    /// constant-memory check.
    pub fn growing_memory(mut self, growing: bool) -> Self {
        self.growing_memory = growing;
        self
    }
    /// Items per test stream (default 20,000).
    pub fn stream_len(mut self, len: usize) -> Self {
        self.stream_len = len;
        self
    }
    /// Size of the uniform part of the stream's alphabet (default 4,096).
    pub fn alphabet(mut self, alphabet: u64) -> Self {
        self.alphabet = alphabet.max(1);
        self
    }
    /// Seed of the test streams.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// A deterministic test stream mixing three kinds of items, so every
    /// filter sees duplicates at short and long distances and fresh items:
    /// 40 % uniform over the alphabet, 30 % a repeat of one of the last 32
    /// items, 30 % never seen before.
    pub fn stream(&self, salt: u64) -> Vec<Digest> {
        let mut rng = SplitMix64::new(self.seed ^ salt.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let mut out: Vec<Digest> = Vec::with_capacity(self.stream_len);
        let mut fresh = 1u64 << 62;
        for i in 0..self.stream_len {
            let roll = rng.below(10);
            let d = if roll < 4 || i == 0 {
                Digest::mixed(rng.below(self.alphabet))
            } else if roll < 7 {
                let back = 1 + rng.below(32.min(i as u64)) as usize;
                out[i - back]
            } else {
                fresh += 1;
                Digest::mixed(fresh)
            };
            out.push(d);
        }
        out
    }
}

/// `observe` equals `contains` then `insert`, and `contains` has no side effects.
pub fn observe_is_contains_then_insert<F, M>(make: M, c: &Conformance)
where
    F: DuplicateFilter + Debug,
    M: Fn() -> F,
{
    let (mut fused, mut split) = (make(), make());
    for (i, d) in c.stream(1).into_iter().enumerate() {
        let before = fused.contains(d);
        let again = fused.contains(d);
        assert_eq!(before, again, "contains changed its answer at item {i}");
        let v = fused.observe(d);
        assert_eq!(
            v,
            Verdict::from_seen(before),
            "observe disagrees with contains at item {i}"
        );
        let seen = split.contains(d);
        split.insert(d);
        assert_eq!(
            v,
            Verdict::from_seen(seen),
            "observe differs from contains+insert at item {i}"
        );
    }
}

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

/// `observe_batch` and `contains_batch` agree with the one-by-one calls,
/// for batch sizes from 1 to several hundred.
pub fn batch_matches_one_by_one<F, M>(make: M, c: &Conformance)
where
    F: DuplicateFilter + Debug,
    M: Fn() -> F,
{
    let stream = c.stream(2);
    let (mut batched, mut single) = (make(), make());
    run_batches(&mut batched, &mut single, &stream, &[1, 7, 64, 300, 33]);
}

/// Feeds `digests` to `batched` in batches of the lengths `cuts` (cycled;
/// 0 counts as 1) and to `single` one by one, asserting that
/// `contains_batch` (asked before each batch) and `observe_batch` agree
/// with the one-by-one calls.
fn run_batches<F: DuplicateFilter>(
    batched: &mut F,
    single: &mut F,
    digests: &[Digest],
    cuts: &[usize],
) {
    let (mut verdicts, mut answers) = (Vec::new(), Vec::new());
    let (mut start, mut round) = (0, 0);
    while start < digests.len() {
        let len = cuts.get(round % cuts.len().max(1)).copied().unwrap_or(64);
        let end = (start + len.max(1)).min(digests.len());
        let chunk = &digests[start..end];
        answers.clear();
        batched.contains_batch(chunk, &mut answers);
        let expected: Vec<bool> = chunk.iter().map(|&d| single.contains(d)).collect();
        assert_eq!(
            answers, expected,
            "contains_batch differs in items {start}..{end}"
        );
        verdicts.clear();
        batched.observe_batch(chunk, &mut verdicts);
        assert_eq!(
            verdicts.len(),
            chunk.len(),
            "observe_batch appended the wrong count"
        );
        let expected: Vec<Verdict> = chunk.iter().map(|&d| single.observe(d)).collect();
        assert_eq!(
            verdicts, expected,
            "observe_batch differs in items {start}..{end}"
        );
        start = end;
        round += 1;
    }
}

/// Runs `digests` through `batched` in the batches that `cuts` marks (each
/// cut is a batch length, cycled; 0 counts as 1) and through `single` one by
/// one, and panics unless `contains_batch` (asked before each batch) and
/// `observe_batch` give the one-by-one answers and both filters end in the
/// same snapshot bytes (table, counters and generator state alike).
///
/// For property tests of filters that override the batch methods: give it
/// two equal filters, a stream with many duplicates and random cuts.
pub fn assert_batches_match<F>(mut batched: F, mut single: F, digests: &[Digest], cuts: &[usize])
where
    F: DuplicateFilter + Snapshot,
{
    run_batches(&mut batched, &mut single, digests, cuts);
    assert!(
        batched.to_bytes() == single.to_bytes(),
        "batched and one-by-one filters end in different states"
    );
}

/// After `clear`, the filter replays a fresh one exactly.
pub fn clear_restores_fresh_state<F, M>(make: M, c: &Conformance)
where
    F: DuplicateFilter + Debug,
    M: Fn() -> F,
{
    let mut used = make();
    let fresh_bits = used.memory_bits();
    for d in c.stream(3) {
        used.observe(d);
    }
    used.clear();
    assert_eq!(used.memory_bits(), fresh_bits, "clear changed memory_bits");
    let mut fresh = make();
    for (i, d) in c.stream(4).into_iter().enumerate() {
        assert_eq!(
            used.observe(d),
            fresh.observe(d),
            "cleared filter differs from a fresh one at item {i}"
        );
    }
}

/// No false negative that the type's [`Promise`] rules out.
pub fn promise_holds<F, M>(make: M, c: &Conformance)
where
    F: DuplicateFilter + Debug,
    M: Fn() -> F,
{
    let mut f = make();
    let mut last_seen: HashMap<Digest, usize> = HashMap::new();
    for (i, d) in c.stream(5).into_iter().enumerate() {
        let v = f.observe(d);
        if let Some(&j) = last_seen.get(&d) {
            let promised = match c.promise {
                Promise::None => false,
                Promise::Ever => true,
                Promise::LastInsertions(n) => (i - j) as u64 <= n,
            };
            assert!(
                !promised || v == Verdict::Duplicate,
                "false negative at item {i}: last seen {} insertions ago, promise {:?}",
                i - j,
                c.promise
            );
        }
        last_seen.insert(d, i);
    }
}

/// `memory_bits` is within the budget and constant (unless growing).
pub fn memory_within_budget<F, M>(make: M, c: &Conformance)
where
    F: DuplicateFilter + Debug,
    M: Fn() -> F,
{
    let mut f = make();
    let start = f.memory_bits();
    assert!(start > 0 || c.growing_memory, "memory_bits is 0");
    for d in c.stream(6) {
        f.observe(d);
        if let Some(budget) = c.budget_bits {
            assert!(
                f.memory_bits() <= budget,
                "memory_bits {} above budget {budget}",
                f.memory_bits()
            );
        }
    }
    if !c.growing_memory {
        assert_eq!(
            f.memory_bits(),
            start,
            "memory_bits changed while observing"
        );
    }
}

/// A deterministic proptest runner: `cases` cases from a fixed seed, no
/// regression files (the suite runs in other crates' test directories).
fn runner(cases: u32, seed: u64) -> TestRunner {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    TestRunner::new_with_rng(
        Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &key),
    )
}

/// Runs a property and panics with proptest's minimal failing case.
fn check_property<S: Strategy>(
    runner: &mut TestRunner,
    what: &str,
    strategy: &S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) where
    S::Value: Debug,
{
    if let Err(e) = runner.run(strategy, test) {
        panic!("{what}: {e}");
    }
}

/// A restored snapshot answers exactly as the original on a continued stream,
/// through bytes and through `std::io`.
///
/// A property test: random streams (seed and length), a snapshot at a random
/// point, and a continued stream of random length; at every continued item
/// the restored filters give the original's `contains` and `observe` answers,
/// and a snapshot of a restored filter restores again. A fixed case with the
/// configured stream length runs first.
pub fn snapshot_round_trips<F, M>(make: M, c: &Conformance)
where
    F: DuplicateFilter + Snapshot + Debug,
    M: Fn() -> F,
{
    let len = c.stream_len;
    round_trip_case(&make, c, 7, len / 2, len - len / 2).unwrap_or_else(|e| panic!("{e}"));
    let mut runner = runner(8, c.seed ^ 0x5eed);
    check_property(
        &mut runner,
        "snapshot round trip",
        &(any::<u64>(), 0..=len, 1..=len / 2 + 1),
        |(salt, prefix, suffix)| round_trip_case(&make, c, salt, prefix, suffix),
    );
}

/// One round trip: `prefix` items, snapshot, `suffix` continued items.
fn round_trip_case<F, M>(
    make: &M,
    c: &Conformance,
    salt: u64,
    prefix: usize,
    suffix: usize,
) -> Result<(), TestCaseError>
where
    F: DuplicateFilter + Snapshot + Debug,
    M: Fn() -> F,
{
    let stream = c.clone().stream_len(prefix + suffix).stream(salt);
    let (first, second) = stream.split_at(prefix);
    let mut original = make();
    for &d in first {
        original.observe(d);
    }
    let bytes = original.to_bytes();
    let mut restored = F::from_bytes(&bytes)
        .map_err(|e| TestCaseError::fail(format!("own snapshot rejected: {e}")))?;
    prop_assert!(
        restored.to_bytes() == bytes,
        "re-encoding a restored filter changed the bytes"
    );
    let mut via_io = Vec::new();
    original
        .write_to(&mut via_io)
        .expect("writing to a Vec cannot fail");
    let mut streamed = F::read_from(via_io.as_slice())
        .map_err(|e| TestCaseError::fail(format!("own stream rejected: {e}")))?;
    prop_assert_eq!(restored.memory_bits(), original.memory_bits());
    for (i, &d) in second.iter().enumerate() {
        let seen = original.contains(d);
        prop_assert_eq!(
            restored.contains(d),
            seen,
            "restored contains differs at continued item {}",
            i
        );
        let v = original.observe(d);
        prop_assert_eq!(
            restored.observe(d),
            v,
            "restored filter differs at continued item {}",
            i
        );
        prop_assert_eq!(
            streamed.observe(d),
            v,
            "streamed filter differs at continued item {}",
            i
        );
    }
    let end = original.to_bytes();
    prop_assert!(
        restored.to_bytes() == end,
        "states diverged after the continued stream"
    );
    let again = F::from_bytes(&end)
        .map_err(|e| TestCaseError::fail(format!("snapshot of a restored filter: {e}")))?;
    prop_assert!(
        again.to_bytes() == end,
        "second round trip changed the bytes"
    );
    Ok(())
}

/// Values written over 8-, 4- and 2-byte fields of a body: the boundaries a
/// length, count or parameter field must survive.
const HOSTILE_WORDS: [u64; 10] = [
    0,
    1,
    2,
    0x7f,
    0xffff,
    u32::MAX as u64,
    1 << 40,
    (1 << 40) + 1,
    1 << 63,
    u64::MAX,
];

/// Decodes `bytes`; a filter that comes out must be usable: it observes a
/// stream, reports its memory, re-encodes to bytes that decode again, and
/// clears. Never a panic.
fn decode_and_exercise<F>(bytes: &[u8], probe: &[Digest]) -> Result<(), TestCaseError>
where
    F: DuplicateFilter + Snapshot + Debug,
{
    if let Ok(mut g) = F::from_bytes(bytes) {
        for &d in probe {
            g.observe(d);
        }
        let bits = g.memory_bits();
        let again = g.to_bytes();
        prop_assert!(
            F::from_bytes(&again).is_ok(),
            "a filter decoded from mutated bytes wrote a snapshot it cannot read"
        );
        g.clear();
        g.observe(probe.first().copied().unwrap_or_default());
        let _ = (bits, g.memory_bits());
    }
    Ok(())
}

/// Corrupt snapshots are rejected with an error, and bodies mutated behind a
/// recomputed checksum either fail to decode or decode to a usable filter:
/// never a panic.
///
/// Covers, on a valid snapshot of a used filter: every truncation (sampled),
/// random bit flips, a wrong kind / version / hasher in the envelope, body
/// truncation and extension behind a valid checksum, every 8-, 4- and 2-byte
/// field of the body overwritten with boundary values (lengths, counts and
/// parameters: 0, 1, 2^32 − 1, 2^40, 2^64 − 1, ...), random byte mutations
/// (a proptest), random bodies behind a valid envelope and random bytes.
pub fn decoder_rejects_hostile_bytes<F, M>(make: M, c: &Conformance)
where
    F: DuplicateFilter + Snapshot + Debug,
    M: Fn() -> F,
{
    let mut f = make();
    for d in c.stream(8).into_iter().take(c.stream_len / 4) {
        f.observe(d);
    }
    let bytes = f.to_bytes();
    let mut rng = SplitMix64::new(c.seed ^ 0xbad);
    for len in (0..bytes.len()).step_by(1 + bytes.len() / 200) {
        assert!(
            F::from_bytes(&bytes[..len]).is_err(),
            "truncation to {len} bytes accepted"
        );
        assert!(
            F::read_from(&bytes[..len]).is_err(),
            "truncated stream of {len} bytes accepted"
        );
    }
    for _ in 0..200 {
        let mut bad = bytes.clone();
        let at = rng.below(bad.len() as u64) as usize;
        bad[at] ^= 1 << rng.below(8);
        assert!(
            F::from_bytes(&bad).is_err(),
            "bit flip at byte {at} accepted"
        );
    }
    let env = snapshot::open(&bytes).expect("own snapshot opens");
    let reseal = |kind: u16, version: u16, hasher: u16, body: &[u8]| {
        snapshot::seal(kind, version, hasher, env.hasher_key, body)
    };
    for (kind, version, hasher) in [
        (env.kind ^ 1, env.version, env.hasher_id),
        (env.kind, 0, env.hasher_id),
        (env.kind, env.version + 1, env.hasher_id),
        (env.kind, env.version, env.hasher_id ^ 1),
    ] {
        assert!(
            F::from_bytes(&reseal(kind, version, hasher, env.body)).is_err(),
            "envelope with kind {kind:#x}, version {version}, hasher {hasher} accepted"
        );
    }
    let body = env.body;
    let probe: Vec<Digest> = c.stream(9).into_iter().take(200).collect();
    for len in (0..body.len()).step_by(1 + body.len() / 100) {
        assert!(
            F::from_bytes(&reseal(env.kind, env.version, env.hasher_id, &body[..len])).is_err(),
            "body truncated to {len} of {} bytes accepted",
            body.len()
        );
    }
    let mut longer = body.to_vec();
    longer.push(0);
    assert!(
        F::from_bytes(&reseal(env.kind, env.version, env.hasher_id, &longer)).is_err(),
        "body with a trailing byte accepted"
    );
    // Every field position near the front (where parameters, clocks and
    // length prefixes live), then a sample of the rest.
    let front = body.len().min(96);
    let offsets: Vec<usize> = (0..front)
        .chain((0..64).map(|_| rng.below(body.len().max(1) as u64) as usize))
        .collect();
    for &at in &offsets {
        for width in [8usize, 4, 2] {
            if at + width > body.len() {
                continue;
            }
            for v in HOSTILE_WORDS {
                let mut bad = body.to_vec();
                bad[at..at + width].copy_from_slice(&v.to_le_bytes()[..width]);
                let sealed = reseal(env.kind, env.version, env.hasher_id, &bad);
                decode_and_exercise::<F>(&sealed, &probe[..20])
                    .unwrap_or_else(|e| panic!("{width}-byte field at {at} = {v:#x}: {e}"));
            }
        }
    }
    let mut runner = runner(300, c.seed ^ 0xf1e1d);
    check_property(
        &mut runner,
        "mutated body",
        &(
            any::<bool>(),
            proptest::collection::vec((any::<usize>(), any::<u8>()), 1..4),
        ),
        |(front_only, edits)| {
            let mut bad = body.to_vec();
            if bad.is_empty() {
                return Ok(());
            }
            let span = if front_only {
                bad.len().min(64)
            } else {
                bad.len()
            };
            for (at, b) in edits {
                bad[at % span] = b;
            }
            decode_and_exercise::<F>(&reseal(env.kind, env.version, env.hasher_id, &bad), &probe)
        },
    );
    check_property(
        &mut runner,
        "random body behind a valid envelope",
        &proptest::collection::vec(any::<u8>(), 0..512),
        |junk| {
            decode_and_exercise::<F>(&reseal(env.kind, env.version, env.hasher_id, &junk), &probe)
        },
    );
    for _ in 0..100 {
        let len = rng.below(256) as usize;
        let junk: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        assert!(F::from_bytes(&junk).is_err(), "random bytes accepted");
    }
}

/// The conformance suite for one filter type: a test module named `$name`
/// with one test per contract clause.
///
/// `$make` is an expression building a fresh filter (evaluated once per
/// filter the tests need); the optional third argument is a [`Conformance`].
/// The filter type must implement `DuplicateFilter`, `Snapshot` and `Debug`.
#[macro_export]
macro_rules! conformance {
    ($name:ident, $make:expr $(,)?) => {
        $crate::conformance!($name, $make, $crate::testing::Conformance::default());
    };
    ($name:ident, $make:expr, $config:expr $(,)?) => {
        #[cfg(test)]
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            fn config() -> $crate::testing::Conformance {
                $config
            }

            #[test]
            fn observe_is_contains_then_insert() {
                $crate::testing::observe_is_contains_then_insert(|| $make, &config());
            }
            #[test]
            fn batch_matches_one_by_one() {
                $crate::testing::batch_matches_one_by_one(|| $make, &config());
            }
            #[test]
            fn clear_restores_fresh_state() {
                $crate::testing::clear_restores_fresh_state(|| $make, &config());
            }
            #[test]
            fn promise_holds() {
                $crate::testing::promise_holds(|| $make, &config());
            }
            #[test]
            fn memory_within_budget() {
                $crate::testing::memory_within_budget(|| $make, &config());
            }
            #[test]
            fn snapshot_round_trips() {
                $crate::testing::snapshot_round_trips(|| $make, &config());
            }
            #[test]
            fn decoder_rejects_hostile_bytes() {
                $crate::testing::decoder_rejects_hostile_bytes(|| $make, &config());
            }
        }
    };
}

/// The timed clauses for a [`TimedFilter`], one line per timed
/// configuration, next to its [`conformance!`] line: `observe_at` is
/// `contains_at` then `insert_at`, snapshots carry the clock, a time behind
/// the latest is answered as the latest and counted, and a burst far beyond
/// any sized rate never grows `memory_bits`. Arrival
/// gaps are drawn from `0..=max_gap`; pick it so the stream spans several
/// windows.
///
/// ```text
/// ddf_core::timed_conformance!(exact_timed_clock, ExactWindow::with_time_span(50, 40).unwrap(), 20);
/// ```
#[macro_export]
macro_rules! timed_conformance {
    ($name:ident, $make:expr, $max_gap:expr $(,)?) => {
        $crate::timed_conformance!(
            $name,
            $make,
            $max_gap,
            $crate::testing::Conformance::default()
        );
    };
    ($name:ident, $make:expr, $max_gap:expr, $config:expr $(,)?) => {
        #[cfg(test)]
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            #[test]
            fn observe_at_is_contains_at_then_insert_at() {
                $crate::testing::timed_observe_is_contains_then_insert(
                    || $make,
                    &$config,
                    $max_gap,
                );
            }
            #[test]
            fn timed_snapshot_round_trips() {
                $crate::testing::timed_snapshot_round_trips(|| $make, &$config, $max_gap);
            }
            #[test]
            fn timed_steps_back_are_clamped() {
                $crate::testing::timed_steps_back_are_clamped(|| $make, &$config, $max_gap);
            }
            #[test]
            fn timed_batches_are_one_by_one() {
                $crate::testing::timed_batches_are_one_by_one(|| $make, &$config, $max_gap);
            }
            #[test]
            fn timed_burst_keeps_memory() {
                $crate::testing::timed_burst_keeps_memory(|| $make, &$config);
            }
        }
    };
}

/// The tail of [`assert_fpr_on_distinct_stream`]'s rule: a correct filter
/// fails it with probability at most 10^-6.
pub const FPR_TAIL: f64 = 1e-6;

/// Checks a filter built for a false-positive target on a seeded stream of
/// distinct items, and returns the false positives counted.
///
/// At each of `queries` steps a fresh item (never inserted) is queried,
/// then another fresh item is inserted. Each query is a false positive with
/// probability at most `target` when the target bounds the filter's rate at
/// every point of the stream, so the count must stay at most the binomial
/// upper quantile of `Bin(queries, target)` at tail [`FPR_TAIL`]
/// ([`binomial_upper_quantile`](ddf_theory::stats::binomial_upper_quantile)).
/// Not vacuous: the count must also exceed `floor · target · queries`, the
/// share of the target a filter sized for it reaches (a filter that never
/// reports passes the first rule alone).
///
/// # Panics
///
/// When either rule fails (it is a test helper).
pub fn assert_fpr_on_distinct_stream<F: DuplicateFilter + ?Sized>(
    f: &mut F,
    target: f64,
    queries: u64,
    floor: f64,
) -> u64 {
    let mut false_positives = 0;
    for i in 0..queries {
        // Queried items have the top bit set, inserted ones never do.
        false_positives += u64::from(f.contains(Digest::mixed(i | 1 << 63)));
        f.insert(Digest::mixed(i));
    }
    let bound = ddf_theory::stats::binomial_upper_quantile(queries, target, FPR_TAIL);
    assert!(
        false_positives <= bound,
        "{false_positives} false positives in {queries} queries > {bound}, the 1e-6 quantile at {target}"
    );
    assert!(
        false_positives as f64 > floor * target * queries as f64,
        "{false_positives} false positives in {queries} queries: not {floor} of the target {target}"
    );
    false_positives
}

/// Strategies and a checker for constructor property tests: random
/// parameters, boundary values included, must give a working filter or a
/// [`ParamError`](crate::ParamError) naming one of the constructor's
/// parameters, never a panic, an overflow or an absurd allocation.
///
/// ```text
/// proptest! {
///     #[test]
///     fn qht_new(rows in params::size(), k in params::count_usize(), s in params::width()) {
///         params::check(Qht::new(rows, k, s), &["rows", "cells_per_row", "fingerprint_bits"])?;
///     }
/// }
/// ```
///
/// Sizes stay out of the range between 5,000 and 2^41, where a valid request
/// would legitimately allocate up to [`MAX_STATE_BITS`](ddf_param::MAX_STATE_BITS)
/// bits: everything drawn is either small or too large for any filter state.
pub mod params {
    use crate::ParamError;
    use crate::filter::DuplicateFilter;
    use crate::snapshot::Snapshot;
    use ddf_hash::Digest;
    use proptest::prelude::{Just, prop_assert, prop_assert_eq, prop_oneof};
    use proptest::sample::select;
    use proptest::strategy::Strategy;
    use proptest::test_runner::TestCaseError;
    use std::fmt::Debug;

    /// Values of a `u64` size, count, window or time span: 0, 1, small,
    /// and huge (2^41 up to `u64::MAX`, boundaries included).
    pub fn size() -> impl Strategy<Value = u64> {
        prop_oneof![
            2 => select(vec![0u64, 1, 2, 3]),
            3 => 4u64..5_000,
            1 => select(vec![
                1u64 << 41,
                (1 << 41) + 1,
                1 << 53,
                1 << 62,
                (1 << 62) + 1,
                1 << 63,
                u64::MAX - 1,
                u64::MAX,
            ]),
            1 => (1u64 << 41)..=u64::MAX,
        ]
    }

    /// Values of a small `u32` parameter (bit widths, probe and slice
    /// counts): 0 to 70, and boundaries up to `u32::MAX`.
    pub fn width() -> impl Strategy<Value = u32> {
        prop_oneof![
            4 => 0u32..=70,
            1 => select(vec![64u32, 65, 100, 511, 512, 513, 4_095, 4_096, 4_097, 1 << 16, u32::MAX]),
        ]
    }

    /// As [`width`], for `usize` parameters (cells per row, subfilters).
    pub fn count_usize() -> impl Strategy<Value = usize> {
        prop_oneof![
            4 => 0usize..=70,
            1 => select(vec![100usize, 4_095, 4_096, 4_097, 1 << 20, usize::MAX]),
        ]
    }

    /// Values of an `f64` probability or ratio: NaN, ±∞, negatives, 0, 1,
    /// above 1, denormals, and ordinary values in (0, 1).
    pub fn probability() -> impl Strategy<Value = f64> {
        prop_oneof![
            1 => select(vec![
                f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
                -1.0,
                -0.0,
                0.0,
                1.0,
                1.5,
                f64::MIN_POSITIVE,
                5e-324,
                1e-300,
                f64::EPSILON,
                1.0 - f64::EPSILON,
                f64::MAX,
            ]),
            3 => 1e-6f64..1.0,
            1 => Just(0.5),
        ]
    }

    /// Checks one constructor's answer: an error must name one of `names`
    /// (and say what it expected); a filter must work: it observes items,
    /// its snapshot restores, and `clear` keeps its size. Returns the filter.
    pub fn check<F>(
        built: Result<F, ParamError>,
        names: &[&str],
    ) -> Result<Option<F>, TestCaseError>
    where
        F: DuplicateFilter + Snapshot + Debug,
    {
        match built {
            Err(e) => {
                prop_assert!(
                    names.contains(&e.param()),
                    "error `{}` names `{}`, not one of {:?}",
                    e,
                    e.param(),
                    names
                );
                prop_assert!(!e.expected().is_empty(), "error `{}` says nothing", e);
                Ok(None)
            }
            Ok(mut f) => {
                let bits = f.memory_bits();
                for i in 0..64 {
                    f.observe(Digest::mixed(i % 40));
                }
                let restored = F::from_bytes(&f.to_bytes());
                prop_assert!(restored.is_ok(), "snapshot rejected: {:?}", restored.err());
                f.clear();
                prop_assert_eq!(f.memory_bits(), bits, "clear changed memory_bits");
                Ok(Some(f))
            }
        }
    }

    /// As [`check`], for a constructor given a memory budget: a filter must
    /// fit in `budget_bits` (a larger state is an error, not a surprise).
    pub fn check_budget<F>(
        built: Result<F, ParamError>,
        budget_bits: u64,
        names: &[&str],
    ) -> Result<Option<F>, TestCaseError>
    where
        F: DuplicateFilter + Snapshot + Debug,
    {
        let out = check(built, names)?;
        if let Some(f) = &out {
            prop_assert!(
                f.memory_bits() <= budget_bits,
                "{} bits built for a budget of {}",
                f.memory_bits(),
                budget_bits
            );
        }
        Ok(out)
    }
}

/// A serde round trip of `f` fed a stream: it serializes (`ser`) as its
/// snapshot bytes would (`ser_bytes`), deserializes (`de`) to a filter that
/// answers exactly as the original, and corrupt bytes are an error. Used
/// by [`serde_round_trip!`](crate::serde_round_trip).
#[cfg(feature = "serde")]
pub fn check_serde_round_trip<F, E>(
    mut f: F,
    ser: impl Fn(&F) -> Vec<u8>,
    ser_bytes: impl Fn(&Vec<u8>) -> Vec<u8>,
    de: impl Fn(&[u8]) -> Result<F, E>,
) where
    F: DuplicateFilter + Snapshot + Debug,
    E: Debug,
{
    for i in 0..300 {
        f.observe(Digest::mixed(i % 170));
    }
    let encoded = ser(&f);
    assert_eq!(encoded, ser_bytes(&f.to_bytes()), "not the snapshot bytes");
    let mut g = de(&encoded).expect("own serialization rejected");
    assert!(g.to_bytes() == f.to_bytes(), "deserialized state differs");
    for i in 0..300 {
        let d = Digest::mixed(i % 250);
        assert_eq!(g.observe(d), f.observe(d), "answers differ at item {i}");
    }
    let mut bytes = f.to_bytes();
    bytes[20] ^= 1;
    assert!(
        de(&ser_bytes(&bytes)).is_err(),
        "corrupt bytes deserialized"
    );
}

/// A `#[test]` named `$name`: [`check_serde_round_trip`] on the filter
/// `$make` through the format crate `$format` (one with `to_vec` and
/// `from_slice`, e.g. `serde_json`). Needs features `testing` and `serde`.
///
/// ```text
/// #![cfg(feature = "serde")]
/// ddf_core::serde_round_trip!(json, Qht::new(64, 4, 8).unwrap(), serde_json);
/// ```
#[cfg(feature = "serde")]
#[macro_export]
macro_rules! serde_round_trip {
    ($name:ident, $make:expr, $format:ident $(,)?) => {
        #[test]
        fn $name() {
            $crate::testing::check_serde_round_trip(
                $make,
                |f| $format::to_vec(f).unwrap(),
                |b| $format::to_vec(b).unwrap(),
                |s| $format::from_slice(s),
            );
        }
    };
}
