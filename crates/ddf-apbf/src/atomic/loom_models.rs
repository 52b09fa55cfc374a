//! `loom` model checks of the generation shift: the library's own core,
//! instantiated over loom's atomics, explored over every interleaving (up
//! to a preemption bound) of a few threads on tiny shapes. They run in a
//! plain `cargo test`: `loom::model` needs no `--cfg loom`, only that
//! everything the threads share goes through loom's types, which the
//! [`Platform`] parameter arranges.

use super::{AtomicCore, AtomicSegments, BUSY, Platform, Position};
use crate::atomic_blocked::{AtomicBlocks, BlocksCore};
use crate::atomic_slices::{AtomicSlices, SlicesCore};
use crate::{Apbbf, Apbf};
use ddf_bits::{AtomicBitArray, AtomicWord};
use ddf_core::Digest;
use loom::sync::Arc;
use loom::sync::atomic::{AtomicU64 as LoomU64, Ordering};

/// loom's word behind the trait (a local type: the orphan rule).
struct LoomWord(LoomU64);

impl AtomicWord for LoomWord {
    fn new(value: u64) -> Self {
        LoomWord(LoomU64::new(value))
    }
    fn load(&self, order: Ordering) -> u64 {
        self.0.load(order)
    }
    fn store(&self, value: u64, order: Ordering) {
        self.0.store(value, order);
    }
    fn fetch_or(&self, value: u64, order: Ordering) -> u64 {
        self.0.fetch_or(value, order)
    }
    fn fetch_and(&self, value: u64, order: Ordering) -> u64 {
        self.0.fetch_and(value, order)
    }
    fn fetch_add(&self, value: u64, order: Ordering) -> u64 {
        self.0.fetch_add(value, order)
    }
    fn compare_exchange(
        &self,
        current: u64,
        new: u64,
        success: Ordering,
        failure: Ordering,
    ) -> Result<u64, u64> {
        self.0.compare_exchange(current, new, success, failure)
    }
}

struct Loom;

impl Platform for Loom {
    type Word = LoomWord;
    fn pause() {
        loom::thread::yield_now();
    }
}

/// A core over loom's words with the shape of `Apbf::new(k, l, m)` (its
/// `g`), optionally timed with period `tau`.
fn core(k: u32, l: u32, m: u64, tau: Option<u64>) -> SlicesCore<Loom> {
    let g = Apbf::new(k, l, m).unwrap().generation();
    let segs = AtomicSlices {
        bits: AtomicBitArray::<LoomWord>::new(u64::from(k + l) * m).unwrap(),
        m,
        placement: crate::placement::Placement::for_slice_bits(m),
    };
    let at = Position {
        base: 0,
        in_generation: 0,
        clock: None,
        closed_early: 0,
    };
    AtomicCore::new(segs, k, l, g, tau, at)
}

/// A core over loom's words with the blocks of `Apbbf::new(k, l, 1, B, b)`
/// (one block per segment) and generations of one insertion, so that every
/// insertion shifts.
fn blocks_core(k: u32, l: u32, block_bits: u32, b: u32) -> BlocksCore<Loom> {
    let plain = Apbbf::new(k, l, 1, block_bits, b).unwrap();
    let at = Position {
        base: 0,
        in_generation: 0,
        clock: None,
        closed_early: 0,
    };
    AtomicCore::new(
        AtomicBlocks::from_blocks(&plain.core.segs),
        k,
        l,
        1,
        None,
        at,
    )
}

/// The checker's tickets: insertions started and completed, the latest
/// time any operation began with, all `SeqCst` (the checker's own order,
/// not the filter's).
struct Tickets {
    started: LoomU64,
    completed: LoomU64,
    latest_time: LoomU64,
}

impl Tickets {
    fn new() -> Self {
        Tickets {
            started: LoomU64::new(0),
            completed: LoomU64::new(0),
            latest_time: LoomU64::new(0),
        }
    }

    fn insert<S: AtomicSegments>(
        &self,
        c: &AtomicCore<S, Loom>,
        d: Digest,
        now: Option<u64>,
        stripe: usize,
    ) {
        if let Some(t) = now {
            self.latest_time.fetch_max(t, Ordering::SeqCst);
        }
        self.started.fetch_add(1, Ordering::SeqCst);
        c.observe(d, now, stripe);
        self.completed.fetch_add(1, Ordering::SeqCst);
    }
}

/// Every interleaving with at most `preemptions` preemptions. Three cover
/// a shift preempted between its clear and its publication while another
/// thread inserts, flushes and queries; the larger models take two, which
/// still preempt the shifter once in either thread.
fn model(preemptions: usize, f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    b.preemption_bound = Some(preemptions);
    b.check(f);
}

/// Count window: item `a` observed by thread 1 is found by thread 1's
/// next query unless `l·g` insertions may have completed between the
/// observe's start and the query's end, while thread 2's insertions shift
/// the generations (g = 1: every insertion closes one) concurrently.
#[test]
fn count_window_keeps_items_across_concurrent_shifts() {
    // k = 1, l = 2, m = 2: g = ⌊2·ln 2⌋ = 1, window 2, flush every insertion.
    model(3, || {
        let c = Arc::new(core(1, 2, 2, None));
        assert_eq!(c.generation, 1);
        let t = Arc::new(Tickets::new());
        let (c2, t2) = (c.clone(), t.clone());
        let other = loom::thread::spawn(move || {
            t2.insert(&c2, Digest::mixed(2), None, 1);
            t2.insert(&c2, Digest::mixed(3), None, 1);
        });
        let a = Digest::mixed(1);
        let done_before = t.completed.load(Ordering::SeqCst);
        t.insert(&c, a, None, 0);
        let found = c.contains(a, None);
        let started_by_end = t.started.load(Ordering::SeqCst);
        // Insertions that may have completed in [observe start, query end],
        // `a`'s own included.
        let window = u64::from(c.l) * c.generation;
        assert!(
            found || started_by_end - done_before >= window,
            "a missed with at most {} insertions in its interval",
            started_by_end - done_before
        );
        other.join().unwrap();
        // Every shift published: the last item inserted is always found.
        assert!(c.contains(Digest::mixed(3), None) || c.contains(a, None));
    });
}

/// Two threads each observe then query their own item while the other's
/// insertions shift: with `k = 2` an item spans two slices, so a shift
/// emptying the slice an insertion is writing would show here.
#[test]
fn count_window_with_two_slices_per_item() {
    // k = 2, l = 2, m = 3: g = ⌊3·ln 2/2⌋ = 1.
    model(2, || {
        let c = Arc::new(core(2, 2, 3, None));
        assert_eq!(c.generation, 1);
        let t = Arc::new(Tickets::new());
        let run = |c: &SlicesCore<Loom>, t: &Tickets, item: u64, stripe: usize| {
            let d = Digest::mixed(item);
            let done_before = t.completed.load(Ordering::SeqCst);
            t.insert(c, d, None, stripe);
            let found = c.contains(d, None);
            let started_by_end = t.started.load(Ordering::SeqCst);
            let window = u64::from(c.l) * c.generation;
            assert!(found || started_by_end - done_before >= window);
        };
        let (c2, t2) = (c.clone(), t.clone());
        let other = loom::thread::spawn(move || run(&c2, &t2, 20, 1));
        run(&c, &t, 10, 0);
        other.join().unwrap();
        // Two insertions, window 2: both are still reported. A count that
        // lands while the other thread shifts opens the next generation
        // without closing it, so one or two shifts happened.
        assert!(c.contains(Digest::mixed(10), None));
        assert!(c.contains(Digest::mixed(20), None));
        assert!((1..=2).contains(&c.shifts()), "{} shifts", c.shifts());
    });
}

/// Time window: thread 2 inserts at a later time, which shifts by time
/// (catching up several periods at once), while thread 1 inserts at an
/// earlier time and queries: thread 1's item is found unless an operation
/// at a time of at least `t + l·τ` began before the query ended.
#[test]
fn time_window_keeps_items_across_concurrent_time_shifts() {
    // k = 1, l = 2, τ = 1: window 2 time units; m = 5 makes g = 3, so the
    // three insertions close no generation early by count.
    for later in [2u64, 3] {
        model(3, move || {
            let c = Arc::new(core(1, 2, 5, Some(1)));
            assert_eq!(c.generation, 3);
            let t = Arc::new(Tickets::new());
            // Open the first generation at time 10.
            t.insert(&c, Digest::mixed(9), Some(10), 0);
            let (c2, t2) = (c.clone(), t.clone());
            let other = loom::thread::spawn(move || {
                t2.insert(&c2, Digest::mixed(2), Some(10 + later), 1);
            });
            let a = Digest::mixed(1);
            t.insert(&c, a, Some(10), 0);
            let found = c.contains(a, Some(10));
            let latest = t.latest_time.load(Ordering::SeqCst);
            let span = u64::from(c.l) * c.period.unwrap();
            assert!(
                found || latest >= 10 + span || c.closed_early() > 0,
                "a missed with latest time {latest}"
            );
            other.join().unwrap();
        });
    }
}

/// A shifter descheduled while it holds `BUSY`: the insertion that fills
/// the generation waits in its flush until the shift is made, so no
/// further insertion lands in the full generation (`g = 1`, `c = 1`).
#[test]
fn a_full_generation_waits_for_a_descheduled_shifter() {
    model(2, || {
        let c = Arc::new(core(1, 2, 2, None));
        assert_eq!((c.generation, c.chunk()), (1, 1));
        // SeqCst: the test's own order with the thread below.
        let word = c.epoch.load(Ordering::SeqCst);
        c.epoch
            .compare_exchange(word, word | BUSY, Ordering::SeqCst, Ordering::SeqCst)
            .unwrap();
        let returned = Arc::new(LoomU64::new(0));
        let (c2, r2) = (c.clone(), returned.clone());
        let other = loom::thread::spawn(move || {
            for i in 0..3 {
                c2.observe(Digest::mixed(i), None, 1);
                r2.fetch_add(1, Ordering::SeqCst);
            }
        });
        // The first insertion fills the generation and waits: none returns
        // while the shift is held.
        assert_eq!(returned.load(Ordering::SeqCst), 0);
        c.epoch.store(word, Ordering::SeqCst);
        other.join().unwrap();
        // Every insertion then closed its generation.
        assert_eq!(c.shifts(), 3);
    });
}

/// The blocked layout: two threads each observe then query their own item
/// while the other's insertion shifts (`g = 1`), `k = 2` blocks per item of
/// 512 bits with `b = 2` parts of 256 bits, so an insertion sets two words
/// per block (a `fetch_or` each) while a shift may empty the block's
/// segment word by word.
#[test]
fn count_window_over_blocks() {
    model(2, || {
        let c = Arc::new(blocks_core(2, 2, 512, 2));
        let t = Arc::new(Tickets::new());
        let run = |c: &BlocksCore<Loom>, t: &Tickets, item: u64, stripe: usize| {
            let d = Digest::mixed(item);
            let done_before = t.completed.load(Ordering::SeqCst);
            t.insert(c, d, None, stripe);
            let found = c.contains(d, None);
            let started_by_end = t.started.load(Ordering::SeqCst);
            let window = u64::from(c.l) * c.generation;
            assert!(found || started_by_end - done_before >= window);
        };
        let (c2, t2) = (c.clone(), t.clone());
        let other = loom::thread::spawn(move || run(&c2, &t2, 20, 1));
        run(&c, &t, 10, 0);
        other.join().unwrap();
        // Two insertions, window 2: both are still reported.
        assert!(c.contains(Digest::mixed(10), None));
        assert!(c.contains(Digest::mixed(20), None));
        assert!((1..=2).contains(&c.shifts()), "{} shifts", c.shifts());
    });
}
