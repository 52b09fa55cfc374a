//! `AtomicApbf` and `AtomicApbbf` under threads against a brute-force truth
//! over the recorded merged order, and with one thread against `Apbf` and
//! `Apbbf`.

use ddf_apbf::testing::{count_window_violations, drive, drive_in_batches, time_window_violations};
use ddf_apbf::{
    Apbbf, Apbf, Atomic, AtomicApbbf, AtomicApbf, AtomicForm, Digest, DuplicateFilter, Snapshot,
    TimedFilter, Verdict,
};
use ddf_hash::SplitMix64;

/// The threads of the stress runs.
const THREADS: u64 = 8;

/// Eight threads on `f` (whose `c > 1`) over keys repeating at every
/// distance around the window: no miss the count window does not allow.
fn eight_threads_count_window<F: AtomicForm>(f: &Atomic<F>) {
    let (g, l, c) = (f.generation(), u64::from(f.l()), f.chunk());
    assert!(c > 1, "the shape exercises striped counting (c = {c})");
    // Keys over about the window: repeats at every distance around it.
    let ops = drive(f, THREADS, 0xC0FFEE, 20_000, l * g * 3 / 2, None);
    let found = count_window_violations(f, &ops, THREADS);
    assert_eq!(found.violations, 0, "{:?}", found.first);
    assert!(
        found.repeats > 50_000,
        "only {} repeats checked",
        found.repeats
    );
    // Repeats past the window are forgotten: the check had misses to judge.
    assert!(found.misses > 1_000, "only {} misses", found.misses);
    assert!(f.shifts() >= (THREADS * 20_000 / g) / 2);
}

/// Eight threads on timed `f` at 50 insertions per time unit, below `g`
/// per period: no miss the time window does not allow.
fn eight_threads_time_window<F: AtomicForm>(f: &Atomic<F>) {
    let tau = f.period().unwrap();
    assert!(50 * tau < f.generation(), "no generation closes early");
    // Two tickets per operation: 100 tickets per time unit.
    let ops = drive(f, THREADS, 0xC0FFEE, 10_000, 4_000, Some(100));
    assert_eq!(f.generations_closed_early(), 0);
    let found = time_window_violations(f, &ops);
    assert_eq!(found.violations, 0, "{:?}", found.first);
    assert!(
        found.repeats > 20_000,
        "only {} repeats checked",
        found.repeats
    );
    assert!(found.misses > 100, "only {} misses", found.misses);
}

#[test]
fn eight_threads_count_window_no_false_negative() {
    // g = ⌊4500·ln 2/3⌋ = 1,039: c = 2.
    eight_threads_count_window(&AtomicApbf::new(3, 4, 4_500).unwrap());
}

#[test]
fn eight_threads_time_window_no_false_negative() {
    // g = 1,039 and 50 insertions per time unit at τ = 10: 500 per
    // period, so no generation closes early by count.
    eight_threads_time_window(&AtomicApbf::with_time_span(40, 3, 4, 4_500).unwrap());
}

#[test]
fn apbbf_eight_threads_count_window_no_false_negative() {
    // One-line blocks of 8 parts: g ≥ 1,000, so c = 2; and one-word blocks.
    for (bb, b) in [(512, 8), (64, 4)] {
        eight_threads_count_window(&AtomicApbbf::with_window_shape(4_000, 3, 4, bb, b).unwrap());
    }
}

#[test]
fn apbbf_eight_threads_time_window_no_false_negative() {
    // g ≥ 1,000 and 500 insertions per period of τ = 10.
    let f = AtomicApbbf::with_window_shape(4_000, 3, 4, 512, 4).unwrap();
    let timed = AtomicApbbf::with_time_span(40, 3, 4, f.blocks(), 512, 4).unwrap();
    eight_threads_time_window(&timed);
}

/// Eight threads observing in batches of 16 (`observe_digests`, and
/// `observe_digests_at` with one time a batch): no miss either window does
/// not allow, between batches.
#[test]
fn eight_threads_in_batches_no_false_negative() {
    let count = AtomicApbf::new(3, 4, 4_500).unwrap();
    let blocked = AtomicApbbf::with_window_shape(4_000, 3, 4, 512, 8).unwrap();
    for (name, ops, found) in [
        {
            let ops = drive_in_batches(&count, THREADS, 0xBA7C, 20_000, 9_000, None, 16);
            let found = count_window_violations(&count, &ops, THREADS);
            ("APBF", ops, found)
        },
        {
            let ops = drive_in_batches(&blocked, THREADS, 0xBA7C, 20_000, 9_000, None, 16);
            let found = count_window_violations(&blocked, &ops, THREADS);
            ("APBBF", ops, found)
        },
    ] {
        assert_eq!(found.violations, 0, "{name}: {:?}", found.first);
        assert!(
            found.repeats > 50_000,
            "{name}: only {} repeats",
            found.repeats
        );
        assert!(found.misses > 1_000, "{name}: only {} misses", found.misses);
        assert_eq!(ops.len() as u64, THREADS * 20_000);
    }
    // Two tickets a batch of 16: 50 insertions per time unit at 6 tickets
    // per unit (48 insertions), below g = 1,039 per period of τ = 10.
    let timed = AtomicApbf::with_time_span(40, 3, 4, 4_500).unwrap();
    let ops = drive_in_batches(&timed, THREADS, 0xBA7C, 10_000, 4_000, Some(6), 16);
    assert_eq!(timed.generations_closed_early(), 0);
    let found = time_window_violations(&timed, &ops);
    assert_eq!(found.violations, 0, "{:?}", found.first);
    assert!(found.repeats > 20_000, "only {} repeats", found.repeats);
    assert!(found.misses > 100, "only {} misses", found.misses);
}

/// With one thread and `c = 1` (`g < 512`) the verdicts are `Apbf`'s but
/// at a generation's end: the atomic filter shifts right after the `g`-th
/// insertion (its counting thread is there), `Apbf` just before the next,
/// so the next query may report less (never more), and the states agree
/// again after it.
#[test]
fn one_thread_gives_apbf_verdicts_but_at_shifts() {
    for (k, l, m) in [(3u32, 4u32, 300u64), (2, 9, 40), (5, 5, 700), (10, 54, 600)] {
        let mut plain = Apbf::new(k, l, m).unwrap();
        let atomic = AtomicApbf::from(plain.clone());
        assert_eq!(atomic.chunk(), 1);
        let mut rng = SplitMix64::new(u64::from(k * 1000 + l));
        let keys = u64::from(l) * plain.generation() * 2;
        let mut boundary_differences = 0;
        for i in 0..20_000u64 {
            let d = Digest::mixed(rng.next_u64() % keys);
            let (a, p) = (atomic.observe(d), plain.observe(d));
            if a != p {
                // Only the observe that shifts `Apbf` (fill back to 1), and
                // only the way of one generation less.
                assert_eq!(plain.generation_fill(), 1, "k {k} l {l} step {i}");
                assert_eq!((a, p), (Verdict::Unseen, Verdict::Duplicate));
                boundary_differences += 1;
            }
            if plain.generation_fill() < plain.generation() {
                let q = Digest::mixed(rng.next_u64() % keys);
                assert_eq!(atomic.contains(q), plain.contains(q), "step {i}");
            }
        }
        assert!(boundary_differences < 20_000 / plain.generation() + 1);
        if plain.generation_fill() < plain.generation() {
            assert_eq!(atomic.to_bytes(), plain.to_bytes());
        }
    }
}

#[test]
fn snapshots_are_apbf_bytes_both_ways() {
    let mut plain = Apbf::new(4, 6, 500).unwrap();
    for i in 0..3_000 {
        plain.insert(Digest::mixed(i));
    }
    let atomic = AtomicApbf::from(plain.clone());
    // Mid-generation, the copy is the filter it came from, byte for byte.
    assert!(plain.generation_fill() > 0 && plain.generation_fill() < plain.generation());
    assert_eq!(atomic.to_bytes(), plain.to_bytes());
    let loaded = AtomicApbf::from_bytes(&plain.to_bytes()).unwrap();
    assert_eq!(loaded.into_inner(), plain);
    let timed = AtomicApbf::with_time_span(60, 4, 6, 500).unwrap();
    for i in 0..500 {
        timed.insert_at(Digest::mixed(i), i / 10);
    }
    let again = Apbf::from_bytes(&timed.to_bytes()).unwrap();
    assert_eq!(again.period(), timed.period());
    for i in 400..500 {
        assert!(again.contains(Digest::mixed(i)), "{i}");
    }
}

#[test]
fn clear_forgets_everything() {
    let mut f = AtomicApbf::with_window(1_000, 0.01).unwrap();
    f.insert(Digest::mixed(1));
    DuplicateFilter::clear(&mut f);
    assert!(!f.contains(Digest::mixed(1)));
    assert_eq!(f.shifts(), 0);
    assert_eq!(
        f.to_bytes(),
        AtomicApbf::with_window(1_000, 0.01).unwrap().to_bytes()
    );
}

/// As `one_thread_gives_apbf_verdicts_but_at_shifts`, for the blocked
/// filter over every block shape with an unrolled single-threaded kernel
/// and one without (`B = 512, b = 2`).
#[test]
fn one_thread_gives_apbbf_verdicts_but_at_shifts() {
    for (k, l, blocks, bb, b) in [
        (3u32, 4u32, 4u64, 512u32, 4u32),
        (2, 9, 3, 64, 4),
        (5, 5, 2, 512, 8),
        (4, 6, 9, 64, 8),
        (3, 3, 2, 512, 2),
    ] {
        let mut plain = Apbbf::new(k, l, blocks, bb, b).unwrap();
        let atomic = AtomicApbbf::from(plain.clone());
        assert_eq!(atomic.chunk(), 1);
        let mut rng = SplitMix64::new(u64::from(k * 1000 + l));
        let keys = u64::from(l) * plain.generation() * 2;
        let mut boundary_differences = 0;
        for i in 0..20_000u64 {
            let d = Digest::mixed(rng.next_u64() % keys);
            let (a, p) = (atomic.observe(d), plain.observe(d));
            if a != p {
                assert_eq!(plain.generation_fill(), 1, "B {bb} b {b} step {i}");
                assert_eq!((a, p), (Verdict::Unseen, Verdict::Duplicate));
                boundary_differences += 1;
            }
            if plain.generation_fill() < plain.generation() {
                let q = Digest::mixed(rng.next_u64() % keys);
                assert_eq!(atomic.contains(q), plain.contains(q), "step {i}");
            }
        }
        assert!(boundary_differences < 20_000 / plain.generation() + 1);
        if plain.generation_fill() < plain.generation() {
            assert_eq!(atomic.to_bytes(), plain.to_bytes());
        }
    }
}

#[test]
fn snapshots_are_apbbf_bytes_both_ways() {
    let mut plain = Apbbf::new(3, 5, 7, 512, 8).unwrap();
    for i in 0..2_000 {
        plain.insert(Digest::mixed(i));
    }
    let atomic = AtomicApbbf::from(plain.clone());
    assert!(plain.generation_fill() > 0 && plain.generation_fill() < plain.generation());
    assert_eq!(atomic.to_bytes(), plain.to_bytes());
    assert_eq!(atomic.to_apbbf(), plain);
    let loaded = AtomicApbbf::from_bytes(&plain.to_bytes()).unwrap();
    assert_eq!(loaded.into_inner(), plain);
    // The APBF's bytes are another kind.
    assert!(AtomicApbbf::from_bytes(&Apbf::new(3, 5, 100).unwrap().to_bytes()).is_err());
    let timed = AtomicApbbf::with_time_span(60, 3, 5, 7, 64, 4).unwrap();
    for i in 0..500 {
        timed.insert_at(Digest::mixed(i), i / 10);
    }
    let again = Apbbf::from_bytes(&timed.to_bytes()).unwrap();
    assert_eq!(again.period(), timed.period());
    assert_eq!(
        AtomicApbbf::from(again.clone()).to_bytes(),
        timed.to_bytes()
    );
    for i in 400..500 {
        assert!(again.contains(Digest::mixed(i)), "{i}");
    }
}
