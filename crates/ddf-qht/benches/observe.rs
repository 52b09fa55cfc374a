//! `observe` through the default keyed SipHash-1-3 at 1 Mbit, in the steady
//! (saturated) state, for every quotient filter shape the paper benchmarks.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ddf_core::{Deduper, DuplicateFilter, KeyedSipHasher};
use ddf_hash::SplitMix64;
use ddf_qht::{Qht, Qhtd, Qqhtd, Sqf};
use std::hint::black_box;

/// State per filter: 1 Mbit, as in Table 3 of the QHT paper.
const MEMORY_BITS: u64 = 1 << 20;
/// Operations per timed iteration.
const OPS: usize = 4096;
/// Distinct keys the timed iterations cycle through: far more than a 1 Mbit
/// filter remembers, so every pass meets a saturated filter and mostly
/// unseen keys, as a long stream does (repeating one short batch would time
/// the duplicate path only).
const STREAM: usize = 1 << 22;

/// Keys from a large alphabet: almost all unseen, as in a saturated stream.
fn keys(seed: u64, n: usize) -> Vec<u64> {
    let mut rng = SplitMix64::new(seed);
    (0..n).map(|_| rng.below(1 << 40)).collect()
}

fn bench_filter<F: DuplicateFilter>(c: &mut Criterion, name: &str, filter: F) {
    let mut dedup = Deduper::with_hasher(filter, KeyedSipHasher::with_seed(1));
    // Saturate: several times as many items as the table has bits.
    for k in keys(2, 4 * MEMORY_BITS as usize) {
        dedup.observe(&k);
    }
    let stream = keys(3, STREAM);
    let mut cursor = 0;
    let mut group = c.benchmark_group("observe_1mbit");
    group.throughput(Throughput::Elements(OPS as u64));
    group.bench_function(name, |b| {
        b.iter(|| {
            let batch = &stream[cursor..cursor + OPS];
            cursor = (cursor + OPS) % STREAM;
            batch
                .iter()
                .filter(|k| dedup.observe(black_box(*k)).is_duplicate())
                .count()
        })
    });
    group.finish();
}

fn quotient_filters(c: &mut Criterion) {
    let hasher = KeyedSipHasher::with_seed(1);
    let stream = keys(3, OPS);
    let mut group = c.benchmark_group("observe_1mbit");
    group.throughput(Throughput::Elements(OPS as u64));
    group.bench_function("siphash13_only", |b| {
        b.iter(|| {
            stream.iter().fold(0u64, |acc, k| {
                acc ^ ddf_hash::digest(&hasher, black_box(k)).get()
            })
        })
    });
    group.finish();
    bench_filter(c, "qht_k1_s3", Qht::with_memory(MEMORY_BITS, 1, 3).unwrap());
    bench_filter(c, "qht_k4_s8", Qht::with_memory(MEMORY_BITS, 4, 8).unwrap());
    bench_filter(
        c,
        "qhtd_k4_s8",
        Qhtd::with_memory(MEMORY_BITS, 4, 8).unwrap(),
    );
    bench_filter(
        c,
        "qqhtd_k1_s3",
        Qqhtd::with_memory(MEMORY_BITS, 1, 3).unwrap(),
    );
    bench_filter(
        c,
        "qqhtd_k4_s8",
        Qqhtd::with_memory(MEMORY_BITS, 4, 8).unwrap(),
    );
    bench_filter(
        c,
        "sqf_k1_r2_r1",
        Sqf::with_memory(MEMORY_BITS, 1, 2, 1).unwrap(),
    );
}

criterion_group!(benches, quotient_filters);
criterion_main!(benches);
