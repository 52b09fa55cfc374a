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

mod snapshots;
mod timed;

pub use snapshots::*;
pub use timed::*;

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
pub mod params;

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
