//! Unit tests of the filter's generation clock, scan and batch paths.

use super::*;

#[test]
fn each_generation_pays_its_whole_scan_quota_in_strides() {
    // Quotas that are and are not multiples of the stride, count and
    // time windows: the scan stands exactly `quota` buckets further at
    // every generation's end (the sweep's deadline, §2.5), and within a
    // generation it moves by whole strides only.
    for (window, eps) in [(1000, 0.01), (4000, 0.05), (300, 0.2)] {
        for timed in [false, true] {
            let mut f = if timed {
                SlidingBloom::with_time_span(window, Slack::LeastSpace, window, eps).unwrap()
            } else {
                SlidingBloom::least_space(window, eps).unwrap()
            };
            let (quota, buckets) = (f.plan.scan_quota, f.plan.buckets);
            let mut rng = SplitMix64::new(window);
            // Where the scan stood when the current generation began.
            let (mut generation, mut start) = (0, 0);
            for i in 0..4 * window {
                let d = Digest::new(rng.next_u64());
                if timed {
                    f.insert_at(d, i);
                } else {
                    f.insert(d);
                }
                start = (start + quota * (f.generation - generation)) % buckets;
                generation = f.generation;
                let strides = f.in_generation * quota / f.plan.stride_credit;
                let expected = (start + SCAN_STRIDE * strides) % buckets;
                assert_eq!(
                    f.table.scan_position(),
                    expected,
                    "window {window}, item {i}"
                );
            }
            assert!(f.generation >= 3);
        }
    }
}

#[test]
fn hinted_batches_match_one_by_one() {
    // The relocation hints of large tables, forced on a small one near
    // its design load (so that relocations happen), with repeats and
    // batches of every length around the pipeline's depth.
    use ddf_core::Snapshot;
    let mut one = SlidingBloom::least_space(2_000, 1.0 / 256.0).unwrap();
    let mut many = one.clone();
    let mut rng = SplitMix64::new(5);
    let mut next = 0;
    for len in (0..3 * traits::PEEK_DISTANCE).chain([100, 1_000, 7_000]) {
        let batch: Vec<Digest> = (0..len)
            .map(|_| {
                next += 1;
                Digest::mixed(if rng.below(4) == 0 {
                    rng.below(next)
                } else {
                    next
                })
            })
            .collect();
        let mut got = Vec::new();
        many.observe_hinted::<false>(&batch, &mut got);
        let want: Vec<Verdict> = batch.iter().map(|&d| one.observe(d)).collect();
        assert_eq!(got, want, "batch of {len}");
        assert_eq!(many.to_bytes(), one.to_bytes(), "batch of {len}");
    }
    assert!(one.kicks() > 100, "{} relocation moves", one.kicks());
}

#[test]
fn window_is_remembered_and_forgotten_on_schedule() {
    // n = 100, c = 4: generations of 25, reported up to age 124.
    let mut f = SlidingBloom::with_generations(100, 4, 0.01).unwrap();
    assert_eq!((f.generation_len(), f.slack()), (25, 24));
    let x = Digest::mixed(u64::MAX);
    f.insert(x);
    for i in 0..123 {
        f.insert(Digest::mixed(i));
        assert!(f.contains(x), "forgotten at age {}", i + 2);
    }
    // Age 125: its generation left the last c + 1.
    f.insert(Digest::mixed(10_000));
    assert_eq!(f.current_generation(), 5);
    // Either forgotten or a false positive of probability ≤ 1%.
    let reported = f.contains(x);
    let own = f.entry_key(x);
    assert!(!reported || f.entries().any(|(k, age)| k == own && age <= 4));
}

#[test]
fn refresh_keeps_an_item_forever() {
    let mut f = SlidingBloom::least_space(50, 0.01).unwrap();
    let x = Digest::mixed(7);
    for i in 0..10_000u64 {
        if i % 50 == 0 {
            assert!(f.contains(x) || i == 0);
            f.insert(x);
        } else {
            f.insert(Digest::mixed(i + 100));
        }
    }
    assert_eq!(f.stash_len(), 0);
}

#[test]
fn time_window_ages_by_the_clock() {
    let mut f = SlidingBloom::with_time_span(1000, Slack::AtMost(250), 100, 0.01).unwrap();
    let c = f.generations();
    let d = f.generation_len();
    assert!(c * d >= 1000 && (c + 1) * d - 1000 <= 250);
    let x = Digest::mixed(1);
    assert_eq!(f.observe_at(x, 5_000), Verdict::Unseen);
    assert!(f.contains_at(x, 5_999));
    assert!(!f.contains_at(x, 5_000 + (c + 1) * d));
    // A far jump forgets everything at once.
    f.insert_at(Digest::mixed(2), 1_000_000);
    assert!(!f.contains(x));
    assert_eq!(f.occupied_cells(), 1);
    // A clock stepping back counts as the latest time.
    assert_eq!(f.observe_at(Digest::mixed(2), 10), Verdict::Duplicate);
}

#[test]
fn overload_closes_generations_early_and_keeps_memory() {
    // Sized for 1,000 per 1,000 units, fed 2 per unit.
    let mut f = SlidingBloom::with_time_span(1000, Slack::LeastSpace, 1000, 0.01).unwrap();
    let bits = f.memory_bits();
    for i in 0..20_000u64 {
        f.observe_at(Digest::mixed(i), i / 2);
        if i % 997 == 0 {
            assert!(f.active_entries() <= f.max_active());
        }
    }
    assert_eq!(f.memory_bits(), bits);
    assert_eq!(f.stash_len(), 0);
    assert!(f.active_entries() <= f.max_active());
    // Twice the items the table was sized for: a generation of active
    // entries retires early about every g insertions beyond the rate.
    let closed = f.generations_closed_early();
    let time_generations = 10_000 / f.generation_len();
    assert!(
        closed >= time_generations / 2 && closed <= 3 * time_generations,
        "{closed}"
    );
    // No early close at the sized rate (one per unit, g per τ).
    let mut g = SlidingBloom::with_time_span(1000, Slack::LeastSpace, 1000, 0.01).unwrap();
    assert!(g.generation_capacity() >= g.generation_len());
    for i in 0..20_000u64 {
        g.observe_at(Digest::mixed(i), i);
    }
    assert_eq!(g.generations_closed_early(), 0);
}

#[test]
fn an_early_close_shortens_the_window_only_for_older_items() {
    let mut f = SlidingBloom::with_time_span(1000, Slack::LeastSpace, 100, 0.01).unwrap();
    let g = f.generation_capacity();
    let c = f.generations();
    let x = Digest::mixed(u64::MAX);
    f.insert_at(x, 0);
    // A burst at time 1 closes generations early until x's has left
    // the last c + 1: x is forgotten though it is 1 unit old, and the
    // counter says why.
    let mut i = 0;
    while f.generations_closed_early() < c + 1 {
        assert!(i < 10 * (c + 1) * g, "no early close after {i} burst items");
        f.insert_at(Digest::mixed(i), 1);
        i += 1;
    }
    assert!(i >= f.max_active(), "closed early after only {i} items");
    let own = f.entry_key(x);
    assert!(!f.contains_at(x, 1) || f.entries().any(|(k, a)| k == own && a <= c as u32));
    assert_eq!(f.clock_regressions(), 0);
    f.insert_at(x, 0);
    assert_eq!(f.clock_regressions(), 1);
    assert!(f.contains_at(x, 1));
}

/// The line paths run as kernels compiled twice ([`Isa`]); the copy for
/// this machine's instructions and the baseline's give the same verdicts,
/// answers and state, for every layout, count and time windows, one by
/// one, in batches and through the hinted pipeline. (On a machine without
/// x86-64-v3 both are the baseline and the test compares it with itself.)
#[test]
fn every_instruction_set_gives_the_same_filter() {
    use crate::Layout;
    use ddf_core::Snapshot;
    let detected = Isa::detect();
    // 1e-6 lays lines out wide.
    for (layout, fpr) in [
        (Layout::Aligned, 1e-3),
        (Layout::Line, 1e-3),
        (Layout::Line, 1e-6),
    ] {
        for timed in [false, true] {
            let w = 3_000;
            let f = if timed {
                SlidingBloom::with_time_span(w, Slack::AtMost(w), w, fpr)
            } else {
                SlidingBloom::new(w, Slack::AtMost(w), fpr)
            };
            let f = f.unwrap().with_design_load(0.96).unwrap();
            let mut here = f.with_layout(layout).unwrap();
            here.isa = detected;
            let mut base = here.clone();
            base.isa = Isa::BASELINE;
            let mut rng = SplitMix64::new(11);
            let mut now = 0;
            for round in 0..60u64 {
                let keys: Vec<Digest> = (0..rng.below(300))
                    .map(|i| Digest::mixed(rng.below(round * 200 + i + 1)))
                    .collect();
                now += rng.below(200);
                let (mut a, mut b) = (Vec::new(), Vec::new());
                match round % 3 {
                    0 => {
                        for &k in &keys {
                            a.push(here.observe_at(k, now));
                            b.push(base.observe_at(k, now));
                        }
                    }
                    1 => {
                        here.observe_batch_at(&keys, now, &mut a);
                        base.observe_batch_at(&keys, now, &mut b);
                    }
                    _ => {
                        let hinted = |f: &mut SlidingBloom, out: &mut Vec<Verdict>| {
                            if f.table.has_lines() {
                                f.observe_hinted::<true>(&keys, out)
                            } else {
                                f.observe_hinted::<false>(&keys, out)
                            }
                        };
                        hinted(&mut here, &mut a);
                        hinted(&mut base, &mut b);
                    }
                }
                assert_eq!(a, b, "{layout:?} {fpr}, timed {timed}, round {round}");
                let probes: Vec<Digest> =
                    (0..50).map(|_| Digest::mixed(rng.below(99_999))).collect();
                let answers = |f: &SlidingBloom| -> Vec<bool> {
                    probes
                        .iter()
                        .map(|&d| f.contains_at(d, now) || f.contains(d))
                        .collect()
                };
                assert_eq!(answers(&here), answers(&base));
            }
            assert!(here.insertions() > 5_000);
            assert_eq!(
                here.to_bytes(),
                base.to_bytes(),
                "{layout:?} {fpr}, timed {timed}"
            );
        }
    }
}
