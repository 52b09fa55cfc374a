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

use crate::filter::{DuplicateFilter, Verdict};
use crate::snapshot::{self, Snapshot};
use ddf_hash::{Digest, SplitMix64};
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

/// A restored snapshot answers exactly as the original on a continued stream,
/// through bytes and through `std::io`.
pub fn snapshot_round_trips<F, M>(make: M, c: &Conformance)
where
    F: DuplicateFilter + Snapshot + Debug,
    M: Fn() -> F,
{
    let stream = c.stream(7);
    let (first, second) = stream.split_at(stream.len() / 2);
    let mut original = make();
    for &d in first {
        original.observe(d);
    }
    let bytes = original.to_bytes();
    let mut restored =
        F::from_bytes(&bytes).unwrap_or_else(|e| panic!("own snapshot rejected: {e}"));
    assert_eq!(
        restored.to_bytes(),
        bytes,
        "re-encoding a restored filter changed the bytes"
    );
    let mut via_io = Vec::new();
    original
        .write_to(&mut via_io)
        .expect("writing to a Vec cannot fail");
    let mut streamed =
        F::read_from(via_io.as_slice()).unwrap_or_else(|e| panic!("own stream rejected: {e}"));
    for (i, &d) in second.iter().enumerate() {
        let v = original.observe(d);
        assert_eq!(
            restored.observe(d),
            v,
            "restored filter differs at continued item {i}"
        );
        assert_eq!(
            streamed.observe(d),
            v,
            "streamed filter differs at continued item {i}"
        );
    }
    assert_eq!(
        restored.to_bytes(),
        original.to_bytes(),
        "states diverged after the continued stream"
    );
}

/// Corrupt snapshots are rejected with an error, and bodies mutated behind a
/// recomputed checksum either fail to decode or decode to a usable filter:
/// never a panic.
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
    let probe = c.stream(9);
    for round in 0..300 {
        let mut body = env.body.to_vec();
        if body.is_empty() {
            break;
        }
        // Mutate a few bytes, biased toward the parameter-bearing front.
        for _ in 0..1 + rng.below(3) {
            let at = if round % 2 == 0 {
                rng.below(body.len().min(64) as u64)
            } else {
                rng.below(body.len() as u64)
            };
            body[at as usize] = rng.next_u64() as u8;
        }
        let resealed = snapshot::seal(env.kind, env.version, env.hasher_id, env.hasher_key, &body);
        if let Ok(mut g) = F::from_bytes(&resealed) {
            for &d in probe.iter().take(200) {
                g.observe(d);
            }
            let _ = g.memory_bits();
        }
    }
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
