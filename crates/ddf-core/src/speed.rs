//! A rig for speed benches of one-by-one against batch observation.
//!
//! Every filter crate times the same two loops on the same kind of stream;
//! they live here once (feature `testing`) and each crate's criterion bench
//! only names its filters and sizes.
//!
//! The `time_*` methods return the thread's CPU time where Linux reports it
//! (`/proc/thread-self/schedstat`), else wall time: with more runnable
//! threads than cores, wall time mostly measures how long
//! the thread waited for a core. The kernel updates that counter at
//! scheduler ticks, so one reading can lag by up to a tick of run time; the
//! error of a difference is as likely negative as positive, and criterion's
//! many samples average it out.

use crate::deduper::Deduper;
use crate::filter::{DuplicateFilter, Verdict};
use ddf_hash::{Digest, KeyedSipHasher, SplitMix64};
use std::time::{Duration, Instant};

/// Keys the rig cycles through: far more than a filter of a few Mbit
/// remembers, so a long run meets mostly unseen keys as a long stream does.
const STREAM: usize = 1 << 22;

/// A filter behind the default keyed SipHash-1-3, a long stream of `u64`
/// keys, and a cursor into it.
#[derive(Debug, Clone)]
pub struct SpeedRig<F> {
    dedup: Deduper<F>,
    keys: Vec<u64>,
    cursor: usize,
    verdicts: Vec<Verdict>,
}

impl<F: DuplicateFilter> SpeedRig<F> {
    /// Wraps `filter` (hashing with SipHash-1-3 under a fixed key) after
    /// `fill` warm-up insertions, so the timed loops meet a loaded table.
    pub fn new(mut filter: F, fill: u64) -> Self {
        let mut verdicts = Vec::with_capacity(4096);
        let mut next = 0u64;
        while next < fill {
            let block: Vec<Digest> = (next..fill.min(next + 4096))
                .map(|i| Digest::mixed(i ^ 0x5eed_f111))
                .collect();
            next += block.len() as u64;
            verdicts.clear();
            filter.observe_batch(&block, &mut verdicts);
        }
        let mut rng = SplitMix64::new(3);
        SpeedRig {
            dedup: Deduper::with_hasher(filter, KeyedSipHasher::with_seed(1)),
            keys: (0..STREAM).map(|_| rng.below(1 << 40)).collect(),
            cursor: 0,
            verdicts,
        }
    }

    /// The range of the next `ops` keys (at most 2^22), wrapping around the stream.
    fn next_keys(&mut self, ops: usize) -> std::ops::Range<usize> {
        let ops = ops.min(STREAM);
        if self.cursor + ops > STREAM {
            self.cursor = 0;
        }
        self.cursor += ops;
        self.cursor - ops..self.cursor
    }

    /// Observes the next `ops` keys one by one; returns the duplicates.
    pub fn one_by_one(&mut self, ops: usize) -> usize {
        let range = self.next_keys(ops);
        let mut dups = 0;
        for k in &self.keys[range] {
            dups += usize::from(self.dedup.observe(std::hint::black_box(k)).is_duplicate());
        }
        dups
    }

    /// Observes the next `ops` keys through [`Deduper::observe_many`]
    /// (hashed in blocks, then `observe_batch`); returns the duplicates.
    pub fn batched(&mut self, ops: usize) -> usize {
        let range = self.next_keys(ops);
        self.verdicts.clear();
        let keys = std::hint::black_box(&self.keys[range]);
        self.dedup.observe_many(keys, &mut self.verdicts);
        self.verdicts.iter().filter(|v| v.is_duplicate()).count()
    }

    /// The CPU time (see the module documentation) of `iters` calls of
    /// [`one_by_one`](Self::one_by_one)`(ops)`, for criterion's `iter_custom`.
    pub fn time_one_by_one(&mut self, iters: u64, ops: usize) -> Duration {
        timed(|| {
            for _ in 0..iters {
                std::hint::black_box(self.one_by_one(ops));
            }
        })
    }

    /// The CPU time of `iters` calls of [`batched`](Self::batched)`(ops)`.
    pub fn time_batched(&mut self, iters: u64, ops: usize) -> Duration {
        timed(|| {
            for _ in 0..iters {
                std::hint::black_box(self.batched(ops));
            }
        })
    }

    /// Alternates `rounds` times between [`time_one_by_one`](Self::time_one_by_one)
    /// on `self` and [`time_batched`](Self::time_batched) on `other` (a copy
    /// of `self`, so both see the same stream), `iters` blocks of 4096 keys
    /// each, and returns the median CPU ns per key of each path. Side by
    /// side, both paths meet the same interference from other processes,
    /// which two criterion runs one after the other do not.
    pub fn interleaved(&mut self, other: &mut Self, rounds: usize, iters: u64) -> (f64, f64) {
        const OPS: usize = 4096;
        let per_key = |d: Duration| d.as_nanos() as f64 / (iters * OPS as u64) as f64;
        let (mut one, mut batch): (Vec<f64>, Vec<f64>) = (0..rounds.max(1))
            .map(|_| {
                let a = per_key(self.time_one_by_one(iters, OPS));
                (a, per_key(other.time_batched(iters, OPS)))
            })
            .unzip();
        (median(&mut one), median(&mut batch))
    }

    /// The filter.
    pub fn filter(&self) -> &F {
        self.dedup.filter()
    }
}

/// Operations per timed iteration of [`bench_pair`].
#[cfg(feature = "bench")]
pub const BENCH_OPS: usize = 4096;

/// Times `observe` one by one and in batches (criterion group `batch`,
/// functions `{name}/one-by-one` and `{name}/batch`) on two copies of
/// `filter` after `fill` warm-up insertions, [`BENCH_OPS`] keys per
/// iteration. Ten flat samples of about a tenth of the measurement time
/// each: CPU time is read at scheduler-tick resolution, so samples must be
/// long. Feature `bench`.
#[cfg(feature = "bench")]
pub fn bench_pair<F: DuplicateFilter + Clone>(
    c: &mut criterion::Criterion,
    name: &str,
    filter: F,
    fill: u64,
) {
    let mut one = SpeedRig::new(filter, fill);
    let mut many = one.clone();
    let (a, b) = one.interleaved(&mut many, 7, 64);
    println!(
        "batch/{name}/interleaved: one-by-one {a:.1} ns, batch {b:.1} ns, ratio {:.2}",
        a / b
    );
    let mut group = c.benchmark_group("batch");
    group.throughput(criterion::Throughput::Elements(BENCH_OPS as u64));
    group
        .sampling_mode(criterion::SamplingMode::Flat)
        .sample_size(10);
    group.bench_function(format!("{name}/one-by-one"), |b| {
        b.iter_custom(|iters| one.time_one_by_one(iters, BENCH_OPS))
    });
    group.bench_function(format!("{name}/batch"), |b| {
        b.iter_custom(|iters| many.time_batched(iters, BENCH_OPS))
    });
    group.finish();
}

/// Alternates `rounds` times between `a` and `b`, each a block of work
/// that returns how many operations it did (in the order a, b then b, a,
/// so neither always runs on a cache the other just warmed), and returns
/// the least wall-clock ns per operation of each over its blocks. Blocks
/// of a few milliseconds mostly run without a pause, and the least time
/// is one that ran undisturbed: the thread's CPU time (see the module
/// documentation) is read at scheduler ticks, too coarse for such
/// blocks. Side by side, both meet the same interference from other
/// processes, so their ratio is read from one run.
pub fn alternate(
    rounds: usize,
    mut a: impl FnMut() -> u64,
    mut b: impl FnMut() -> u64,
) -> (f64, f64) {
    let per_op = |f: &mut dyn FnMut() -> u64| {
        let start = Instant::now();
        let ops = f();
        start.elapsed().as_nanos() as f64 / ops.max(1) as f64
    };
    let (mut x, mut y) = (f64::INFINITY, f64::INFINITY);
    for r in 0..rounds.max(1) {
        if r % 2 == 0 {
            x = x.min(per_op(&mut a));
            y = y.min(per_op(&mut b));
        } else {
            y = y.min(per_op(&mut b));
            x = x.min(per_op(&mut a));
        }
    }
    (x, y)
}

/// The median of `xs` (not empty).
fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Nanoseconds this thread has run, if the platform says.
fn thread_cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// The CPU time `f` takes, or its wall time where CPU time is unavailable.
fn timed(f: impl FnOnce()) -> Duration {
    let (cpu, wall) = (thread_cpu_ns(), Instant::now());
    f();
    match (cpu, thread_cpu_ns()) {
        (Some(a), Some(b)) => Duration::from_nanos(b.saturating_sub(a)),
        _ => wall.elapsed(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::DuplicateFilter;
    use std::collections::HashSet;

    #[derive(Debug, Clone, Default)]
    struct Set(HashSet<Digest>);
    impl DuplicateFilter for Set {
        fn contains(&self, d: Digest) -> bool {
            self.0.contains(&d)
        }
        fn insert(&mut self, d: Digest) {
            self.0.insert(d);
        }
        fn memory_bits(&self) -> u64 {
            0
        }
        fn clear(&mut self) {
            self.0.clear()
        }
    }

    #[test]
    fn both_loops_see_the_same_stream() {
        let mut a = SpeedRig::new(Set::default(), 10_000);
        assert_eq!(a.filter().0.len(), 10_000);
        let mut b = a.clone();
        assert_eq!(a.one_by_one(5000), b.batched(5000));
        assert_eq!(a.filter().0, b.filter().0);
        assert_eq!(a.filter().0.len(), 15_000);
        let (x, y) = a.interleaved(&mut b, 3, 1);
        assert!(x >= 0.0 && y >= 0.0);
        assert_eq!(a.filter().0, b.filter().0);
    }

    #[test]
    fn alternate_runs_each_side_every_round() {
        let (mut na, mut nb) = (0, 0);
        let (x, y) = alternate(
            4,
            || {
                na += 1;
                10
            },
            || {
                nb += 1;
                20
            },
        );
        assert_eq!((na, nb), (4, 4));
        assert!(x >= 0.0 && y >= 0.0);
    }
}
