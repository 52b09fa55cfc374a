//! Speed of the sliding Bloom filter: insertions, streams with duplicates, lookups, and the latency tail.
//!
//! ```text
//! cargo bench -p ddf-sliding --bench sliding -- --warm-up-time 1 --measurement-time 3
//! ```
//!
//! Every timed iteration runs `BATCH` operations on digests drawn in advance,
//! on a filter already past several windows (its steady state). After the
//! criterion groups, the latency tail of single insertions is printed.

use criterion::{BatchSize, Criterion, Throughput, criterion_group};
use ddf_core::{Digest, DuplicateFilter, TimedFilter};
use ddf_hash::SplitMix64;
use ddf_sliding::{Slack, SlidingBloom};
use std::time::Instant;

/// The window of the speed target (docs/performance.md).
const N: u64 = 100_000;
const BATCH: u64 = 4096;

fn fpr() -> f64 {
    2f64.powi(-10)
}

/// A filter at design load `load` after four windows of distinct items.
fn warmed(load: f64) -> (SlidingBloom, u64) {
    let mut f = SlidingBloom::least_space(N, fpr())
        .and_then(|f| f.with_design_load(load))
        .expect("valid parameters");
    let warm = 4 * (N + ddf_core::Windowed::slack(&f));
    for i in 0..warm {
        f.insert(Digest::mixed(i));
    }
    (f, warm)
}

fn inserts(c: &mut Criterion) {
    let mut group = c.benchmark_group("insert");
    group.throughput(Throughput::Elements(BATCH));
    for load in [0.75, 0.90, 0.94] {
        let (mut f, mut next) = warmed(load);
        // Every insertion new: the worst case, each one placing an entry.
        group.bench_function(format!("distinct/load-{load}"), |b| {
            b.iter(|| {
                for _ in 0..BATCH {
                    f.insert(Digest::mixed(next));
                    next += 1;
                }
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("observe");
    group.throughput(Throughput::Elements(BATCH));
    let (mut f, _) = warmed(ddf_sliding::DESIGN_LOAD);
    let mut timed =
        SlidingBloom::with_time_span(N, Slack::LeastSpace, N, fpr()).expect("valid parameters");
    let mut now = 0u64;
    let mut rng = SplitMix64::new(7);
    // Uniform over 2n: about 40 % of items repeat within the window. The
    // time window sees one item per time unit, n per span.
    let mut uniform = move || {
        (0..BATCH)
            .map(|_| Digest::mixed(rng.below(2 * N)))
            .collect::<Vec<_>>()
    };
    group.bench_function("uniform-2n", |b| {
        b.iter_batched(
            &mut uniform,
            |ds| ds.into_iter().map(|d| f.observe(d)).count(),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("time-window/uniform-2n", |b| {
        b.iter_batched(
            &mut uniform,
            |ds| {
                ds.into_iter()
                    .map(|d| {
                        now += 1;
                        timed.observe_at(d, now)
                    })
                    .count()
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

fn lookups(c: &mut Criterion) {
    let mut group = c.benchmark_group("contains");
    group.throughput(Throughput::Elements(BATCH));
    let (f, next) = warmed(ddf_sliding::DESIGN_LOAD);
    let hits: Vec<Digest> = (next - BATCH..next).map(Digest::mixed).collect();
    let misses: Vec<Digest> = (0..BATCH).map(|i| Digest::mixed(u64::MAX - i)).collect();
    group.bench_function("hit", |b| {
        b.iter(|| hits.iter().filter(|&&d| f.contains(d)).count())
    });
    group.bench_function("miss", |b| {
        b.iter(|| misses.iter().filter(|&&d| f.contains(d)).count())
    });
    group.finish();
}

/// Percentiles of single-insertion latency over a million distinct
/// insertions in steady state. Each is timed with `Instant`, whose own cost
/// (tens of ns) is in every figure; the shape of the tail is the point.
fn tail() {
    for load in [0.75, ddf_sliding::DESIGN_LOAD] {
        let (mut f, next) = warmed(load);
        let kicks_before = f.kicks();
        let count = 1_000_000u64;
        let mut ns: Vec<u64> = Vec::with_capacity(count as usize);
        for i in next..next + count {
            let d = Digest::mixed(i);
            let t = Instant::now();
            f.insert(d);
            ns.push(t.elapsed().as_nanos() as u64);
        }
        ns.sort_unstable();
        let at = |q: f64| ns[((ns.len() - 1) as f64 * q) as usize];
        println!(
            "tail/insert/distinct/load-{load}: p50 {} ns, p90 {} ns, p99 {} ns, p99.9 {} ns, max {} ns; \
             {:.3} relocation moves per insertion, one scan step every {:.1} insertions",
            at(0.5),
            at(0.9),
            at(0.99),
            at(0.999),
            ns[ns.len() - 1],
            (f.kicks() - kicks_before) as f64 / count as f64,
            f.generation_len() as f64 / (f.buckets() as f64 / (f.generations() + 1) as f64),
        );
    }
}

criterion_group!(benches, inserts, lookups);

fn main() {
    benches();
    tail();
    Criterion::default().configure_from_args().final_summary();
}
