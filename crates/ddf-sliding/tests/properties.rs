//! Property tests: no false negative in the window, whatever the pattern of the stream.

use ddf_core::{Digest, DuplicateFilter, TimedFilter, Verdict, Windowed};
use ddf_sliding::{Slack, SlidingBloom};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use std::collections::HashMap;

/// Fixed seed, no regression files: every run tests the same cases.
fn config() -> Config {
    Config {
        cases: 256,
        rng_seed: RngSeed::Fixed(0xDDF5_11DE),
        failure_persistence: None,
        ..Config::default()
    }
}

/// A piece of a stream: the shapes an adversary (or an unlucky workload)
/// produces.
#[derive(Debug, Clone)]
enum Piece {
    /// One item `len` times in a row.
    Burst { item: u64, len: usize },
    /// `len` items never seen before.
    Distinct { len: usize },
    /// Items `0..period` in turn, `len` insertions: with `period` at or just
    /// below the window, every item returns exactly when it is about to leave.
    Cycle { period: u64, len: usize },
    /// `len` items drawn from a small alphabet.
    Repeats {
        alphabet: u64,
        len: usize,
        seed: u64,
    },
}

fn piece(window: u64) -> impl Strategy<Value = Piece> {
    prop_oneof![
        (0u64..8, 1usize..300).prop_map(|(item, len)| Piece::Burst { item, len }),
        (1usize..400).prop_map(|len| Piece::Distinct { len }),
        (0u64..3, 1usize..600).prop_map(move |(d, len)| Piece::Cycle {
            period: window.saturating_sub(d).max(1),
            len
        }),
        (1u64..40, 1usize..400, any::<u64>()).prop_map(|(alphabet, len, seed)| Piece::Repeats {
            alphabet,
            len,
            seed
        }),
    ]
}

/// The item ids of a stream made of `pieces`; distinct items never repeat.
fn ids(pieces: &[Piece]) -> Vec<u64> {
    let mut out = Vec::new();
    let mut fresh = 1u64 << 40;
    for p in pieces {
        match *p {
            Piece::Burst { item, len } => out.extend(std::iter::repeat_n(item, len)),
            Piece::Distinct { len } => {
                for _ in 0..len {
                    fresh += 1;
                    out.push(fresh);
                }
            }
            Piece::Cycle { period, len } => {
                out.extend((0..len as u64).map(|i| 1_000 + i % period));
            }
            Piece::Repeats {
                alphabet,
                len,
                seed,
            } => {
                let mut rng = ddf_hash::SplitMix64::new(seed);
                out.extend((0..len).map(|_| 100 + rng.below(alphabet)));
            }
        }
    }
    out
}

/// Observes `ids` and checks every item seen among the last `window`
/// insertions is reported; returns the verdicts.
fn check_window(f: &mut SlidingBloom, ids: &[u64], window: u64) -> Result<(), TestCaseError> {
    let mut last: HashMap<u64, usize> = HashMap::new();
    for (i, &id) in ids.iter().enumerate() {
        let v = f.observe(Digest::mixed(id));
        if let Some(&j) = last.get(&id) {
            prop_assert!(
                (i - j) as u64 > window || v == Verdict::Duplicate,
                "false negative at {i}: item {id} last seen {} insertions ago (window {window})",
                i - j
            );
        }
        last.insert(id, i);
    }
    prop_assert_eq!(f.stash_len(), 0);
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn no_false_negative_in_a_count_window(
        window in 1u64..300,
        slack in prop_oneof![Just(None), (0u64..200).prop_map(Some)],
        k in 2i32..14,
        pieces in prop::collection::vec(piece(150), 1..12),
    ) {
        let eps = 2f64.powi(-k);
        let slack = slack.map_or(Slack::LeastSpace, Slack::AtMost);
        let mut f = SlidingBloom::new(window, slack, eps).unwrap();
        if let Slack::AtMost(m) = slack {
            prop_assert!(f.slack() <= m);
        }
        check_window(&mut f, &ids(&pieces), window)?;
    }

    #[test]
    fn cycles_at_the_window_edge_are_always_caught(
        window in 1u64..500,
        k in 2i32..12,
        rounds in 2usize..6,
    ) {
        // Every item returns exactly `window` insertions later, the oldest
        // age the promise covers.
        let mut f = SlidingBloom::new(window, Slack::AtMost(window / 4), 2f64.powi(-k)).unwrap();
        let ids: Vec<u64> = (0..window * rounds as u64).map(|i| i % window).collect();
        check_window(&mut f, &ids, window)?;
    }

    #[test]
    fn items_older_than_window_plus_slack_are_forgotten_but_for_collisions(
        window in 1u64..200,
        slack in 0u64..100,
    ) {
        // A tight ε makes collisions rare enough to check exactly: an item
        // is reported past n + m only if another recent item shares its key.
        let mut f = SlidingBloom::new(window, Slack::AtMost(slack), 2f64.powi(-16)).unwrap();
        let m = f.slack();
        let x = Digest::mixed(u64::MAX);
        f.insert(x);
        // x is now among the last n + m insertions, and no further back.
        for i in 0..window + m - 1 {
            f.insert(Digest::mixed(i));
        }
        prop_assert!(f.contains(x), "forgotten within n + m");
        f.insert(Digest::mixed(1 << 50));
        let own = f.entry_key(x);
        let shared = (0..window + m).any(|i| f.entry_key(Digest::mixed(i)) == own)
            || f.entry_key(Digest::mixed(1 << 50)) == own;
        prop_assert!(!f.contains(x) || shared, "remembered beyond n + m = {}", window + m);
    }

    #[test]
    fn no_false_negative_in_a_time_window(
        span in 1u64..500,
        slack in 1u64..200,
        gaps in prop::collection::vec(0u64..40, 1..1500),
        alphabet in 1u64..60,
        seed in any::<u64>(),
    ) {
        // Capacity for every insertion of the stream, so the rate promise holds.
        let mut f = SlidingBloom::with_time_span(span, Slack::AtMost(slack), 2_000, 1.0 / 1024.0).unwrap();
        prop_assert!(f.slack() <= slack);
        let mut rng = ddf_hash::SplitMix64::new(seed);
        let mut now = 1_000_000u64;
        let mut last: HashMap<u64, u64> = HashMap::new();
        for &gap in &gaps {
            now += gap;
            let id = rng.below(alphabet);
            let v = f.observe_at(Digest::mixed(id), now);
            if let Some(&ts) = last.get(&id) {
                prop_assert!(
                    now - ts >= span || v == Verdict::Duplicate,
                    "false negative at time {now}: last seen at {ts} (span {span})"
                );
            }
            last.insert(id, now);
        }
    }

    #[test]
    fn overload_keeps_memory_and_misses_only_after_early_closes(
        span in 1u64..500,
        capacity in 1u64..300,
        gaps in prop::collection::vec(0u64..4, 1..3000),
        alphabet in 1u64..400,
        seed in any::<u64>(),
    ) {
        // Gaps of 0–3 units against capacities down to 1 per span: most
        // streams are far above the sized rate.
        let mut f = SlidingBloom::with_time_span(span, Slack::LeastSpace, capacity, 1.0 / 256.0).unwrap();
        let bits = f.memory_bits();
        let mut rng = ddf_hash::SplitMix64::new(seed);
        let mut now = 0u64;
        let mut last: HashMap<u64, (u64, u64)> = HashMap::new();
        for &gap in &gaps {
            now += gap;
            let id = rng.below(alphabet);
            let closed_before = f.generations_closed_early();
            let v = f.observe_at(Digest::mixed(id), now);
            if let Some(&(ts, closed_then)) = last.get(&id) {
                prop_assert!(
                    now - ts >= span || v == Verdict::Duplicate || closed_before > closed_then,
                    "false negative at time {now} without an early close since {ts}"
                );
            }
            last.insert(id, (now, f.generations_closed_early()));
            prop_assert!(f.memory_bits() == bits && f.stash_len() == 0);
        }
        prop_assert!(f.active_entries() <= f.max_active());
    }
}

#[test]
fn clear_forgets_and_replays() {
    let mut f = SlidingBloom::least_space(100, 0.01).unwrap();
    for i in 0..1_000 {
        f.insert(Digest::mixed(i));
    }
    f.clear();
    assert_eq!(
        (f.occupied_cells(), f.current_generation(), f.insertions()),
        (0, 0, 0)
    );
    assert!(!(990..1_000).any(|i| f.contains(Digest::mixed(i))));
}
