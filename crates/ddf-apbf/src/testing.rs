//! The stress harness of the lock-free filters (feature `testing`): threads
//! observing seeded keys, every operation recorded between two tickets of
//! one `SeqCst` counter, and the window promises of [`Atomic`] judged
//! against a brute-force truth over that merged order. The crate's tests
//! run it at test scale and `cargo xtask verify` (`concurrent/*`) at scale.

use crate::{Atomic, AtomicForm};
use ddf_core::{Digest, Verdict};
use ddf_hash::SplitMix64;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// One operation as its thread saw it, between two tickets of the
/// harness's own `SeqCst` counter, taken just before it began and just
/// after it returned: ticket order contains happens-before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Op {
    /// The ticket taken before the operation.
    pub start: u64,
    /// The ticket taken after it returned.
    pub end: u64,
    /// The key observed (hashed with `Digest::mixed`).
    pub key: u64,
    /// The caller's time it was stamped with (0 for an untimed run).
    pub time: u64,
    /// Whether it was reported as a duplicate.
    pub seen: bool,
}

/// `threads` threads observing `per_thread` keys each, drawn below `keys`
/// from a generator seeded by `seed` and the thread's index; with
/// `ticks_per_time = Some(r)` each operation is an `observe_at` stamped with
/// its start ticket divided by `r`. The operations, in start order.
pub fn drive<F: AtomicForm>(
    f: &Atomic<F>,
    threads: u64,
    seed: u64,
    per_thread: u64,
    keys: u64,
    ticks_per_time: Option<u64>,
) -> Vec<Op> {
    drive_in_batches(f, threads, seed, per_thread, keys, ticks_per_time, 1)
}

/// [`drive`] with each thread observing its keys `batch` at a time through
/// [`Atomic::observe_digests`] (or `observe_digests_at`, one time a batch),
/// one by one when `batch` is 1. Every operation of a batch is recorded
/// between the tickets taken before the batch began and after it returned:
/// the harness cannot order them among themselves, so its judgement is
/// looser within a batch (repeats there are not judged) and as strict
/// between batches.
pub fn drive_in_batches<F: AtomicForm>(
    f: &Atomic<F>,
    threads: u64,
    seed: u64,
    per_thread: u64,
    keys: u64,
    ticks_per_time: Option<u64>,
    batch: u64,
) -> Vec<Op> {
    let ticket = AtomicU64::new(0);
    let batch = batch.max(1);
    let mut all = Vec::new();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let ticket = &ticket;
                s.spawn(move || {
                    let mut rng = SplitMix64::new(seed ^ ddf_hash::mix64(t + 1));
                    let mut ops = Vec::with_capacity(per_thread as usize);
                    let (mut digests, mut verdicts) = (Vec::new(), Vec::new());
                    let mut done = 0;
                    while done < per_thread {
                        let n = batch.min(per_thread - done);
                        done += n;
                        let block: Vec<u64> = (0..n).map(|_| rng.next_u64() % keys).collect();
                        digests.clear();
                        digests.extend(block.iter().map(|&k| Digest::mixed(k)));
                        verdicts.clear();
                        // SeqCst: the harness's order (see `Op`).
                        let start = ticket.fetch_add(1, Ordering::SeqCst);
                        let time = ticks_per_time.map_or(0, |r| start / r);
                        match (ticks_per_time, batch) {
                            (Some(_), 1) => verdicts.push(f.observe_at(digests[0], time)),
                            (None, 1) => verdicts.push(f.observe(digests[0])),
                            (Some(_), _) => f.observe_digests_at(&digests, time, &mut verdicts),
                            (None, _) => f.observe_digests(&digests, &mut verdicts),
                        }
                        let end = ticket.fetch_add(1, Ordering::SeqCst);
                        ops.extend(block.iter().zip(&verdicts).map(|(&key, v)| Op {
                            start,
                            end,
                            key,
                            time,
                            seen: *v == Verdict::Duplicate,
                        }));
                    }
                    ops
                })
            })
            .collect();
        for h in handles {
            all.extend(h.join().expect("a driver thread panicked"));
        }
    });
    all.sort_by_key(|o| o.start);
    all
}

/// What [`violations`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Misses {
    /// Operations on a key whose previous observe returned before they began.
    pub repeats: u64,
    /// Those of them answered `Unseen`.
    pub misses: u64,
    /// Those misses the promise does not allow.
    pub violations: u64,
    /// The first violation, for a failure message.
    pub first: Option<String>,
}

impl Misses {
    /// The sums of two runs' counts (the first violation of either).
    #[must_use]
    pub fn merged(self, other: Misses) -> Misses {
        Misses {
            repeats: self.repeats + other.repeats,
            misses: self.misses + other.misses,
            violations: self.violations + other.violations,
            first: self.first.or(other.first),
        }
    }
}

/// Judges every `Unseen` verdict of a key whose previous observe returned
/// before this one began: `allowed(previous, op, span)` says whether the
/// promise lets it be missed, `span` being the insertions that may have
/// completed between the previous observe's start and this one's end.
/// `ops` in start order, as [`drive`] returns them.
pub fn violations(ops: &[Op], allowed: impl Fn(&Op, &Op, u64) -> bool) -> Misses {
    let starts: Vec<u64> = ops.iter().map(|o| o.start).collect();
    let mut ends: Vec<u64> = ops.iter().map(|o| o.end).collect();
    ends.sort_unstable();
    // Per key, the latest observe that has ended, as the merged order goes.
    let mut by_end: Vec<&Op> = ops.iter().collect();
    by_end.sort_by_key(|o| o.end);
    let mut last: HashMap<u64, &Op> = HashMap::new();
    let mut out = Misses::default();
    let mut ended = 0;
    for o in ops {
        while ended < by_end.len() && by_end[ended].end < o.start {
            last.insert(by_end[ended].key, by_end[ended]);
            ended += 1;
        }
        let Some(prev) = last.get(&o.key) else {
            continue;
        };
        out.repeats += 1;
        if o.seen {
            continue;
        }
        out.misses += 1;
        let started_by_end = starts.partition_point(|&s| s < o.end) as u64;
        let done_before = ends.partition_point(|&e| e < prev.start) as u64;
        let span = started_by_end - done_before;
        if !allowed(prev, o, span) {
            out.violations += 1;
            out.first.get_or_insert_with(|| {
                format!(
                    "key {} missed: observed at tickets {}..{}, then {}..{}, {span} insertions between",
                    o.key, prev.start, prev.end, o.start, o.end
                )
            });
        }
    }
    out
}

/// The count window's promise under `threads` threads: a repeat is
/// reported unless at least `l·g − c·threads` insertions completed between
/// its previous observe's start and its end.
pub fn count_window_violations<F: AtomicForm>(f: &Atomic<F>, ops: &[Op], threads: u64) -> Misses {
    let (l, g, c) = (u64::from(f.l()), f.generation(), f.chunk());
    violations(ops, |_, _, span| span + c * threads >= l * g)
}

/// The time window's promise: a repeat is reported unless an operation at
/// a time of at least `t + l·τ` began before it ended. Holds while no
/// generation closed early (the caller checks
/// [`generations_closed_early`](ddf_core::TimedFilter::generations_closed_early)).
///
/// # Panics
///
/// If `f` has no clock.
pub fn time_window_violations<F: AtomicForm>(f: &Atomic<F>, ops: &[Op]) -> Misses {
    let tau = f.period().expect("a timed filter");
    let l = u64::from(f.l());
    // The latest time of any operation begun before each start ticket.
    let mut latest = Vec::with_capacity(ops.len());
    let mut max = 0;
    for o in ops {
        max = o.time.max(max);
        latest.push(max);
    }
    let latest_before = |ticket: u64| {
        let i = ops.partition_point(|o| o.start < ticket);
        if i == 0 { 0 } else { latest[i - 1] }
    };
    violations(ops, |prev, o, _| {
        latest_before(o.end) >= prev.time + l * tau
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(start: u64, end: u64, key: u64, seen: bool) -> Op {
        Op {
            start,
            end,
            key,
            time: 0,
            seen,
        }
    }

    #[test]
    fn a_miss_is_judged_only_after_a_completed_observe() {
        // Key 7 at 0..1, again at 2..5 (a repeat, missed), and at 3..4
        // (overlapping the second: its previous completed one is the first).
        let ops = [op(0, 1, 7, false), op(2, 5, 7, false), op(3, 4, 7, true)];
        let strict = violations(&ops, |_, _, _| false);
        assert_eq!(
            (strict.repeats, strict.misses, strict.violations),
            (2, 1, 1)
        );
        assert!(strict.first.is_some());
        // Ops started before 5 (three) less those done before 0 (none).
        let spans = std::cell::RefCell::new(Vec::new());
        let lenient = violations(&ops, |_, _, span| {
            spans.borrow_mut().push(span);
            true
        });
        assert_eq!(lenient.violations, 0);
        assert_eq!(spans.into_inner(), vec![3]);
        // A concurrent first observe is no promise.
        let overlapping = [op(0, 3, 9, false), op(1, 2, 9, false)];
        assert_eq!(violations(&overlapping, |_, _, _| false), Misses::default());
    }
}
