//! Observe (detect then insert, the QHT paper's Stream) and query speed of
//! the Bloom family at the QHT paper's 1 Mbit, in steady state.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ddf_bloom::{A2, BlockDecayingBloom, PartitionedBloom, StableBloom};
use ddf_core::{Digest, DuplicateFilter};
use ddf_hash::SplitMix64;
use std::hint::black_box;

/// Operations per timed iteration; criterion reports the time of all of them.
const OPS: usize = 4096;

fn bench_filter<F: DuplicateFilter + Clone>(c: &mut Criterion, name: &str, mut f: F, warmup: u64) {
    let mut rng = SplitMix64::new(0xB10);
    for _ in 0..warmup {
        f.insert(Digest::new(rng.next_u64()));
    }
    let fresh: Vec<Digest> = (0..OPS).map(|_| Digest::new(rng.next_u64())).collect();
    let stream: Vec<Digest> = (0..OPS).map(|_| Digest::new(rng.next_u64())).collect();
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(OPS as u64));
    group.bench_function("query", |b| {
        b.iter(|| fresh.iter().filter(|&&d| f.contains(black_box(d))).count())
    });
    let mut g = f.clone();
    group.bench_function("observe", |b| {
        b.iter(|| {
            stream
                .iter()
                .filter(|&&d| g.observe(black_box(d)).is_duplicate())
                .count()
        })
    });
    group.finish();
}

fn benches(c: &mut Criterion) {
    const M: u64 = 1_000_000;
    bench_filter(
        c,
        "bloom/partitioned-1Mbit",
        PartitionedBloom::new(7, M / 7).expect("valid"),
        90_000,
    );
    bench_filter(
        c,
        "bloom/sbf-1Mbit",
        StableBloom::with_memory(M, 2, 2, 0.02).expect("valid"),
        200_000,
    );
    bench_filter(
        c,
        "bloom/a2-1Mbit",
        A2::with_memory(M, 0.1).expect("valid"),
        200_000,
    );
    bench_filter(
        c,
        "bloom/bdbf-1Mbit",
        BlockDecayingBloom::with_memory(M, 6_000).expect("valid"),
        50_000,
    );
}

criterion_group!(bloom_benches, benches);
criterion_main!(bloom_benches);
