//! Benches: SHF observe (O(1)) and CSHF observe (an O(w) scan) by window size,
//! next to a QHT of the same memory (the target: within a small factor of QHT).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ddf_core::{Digest, DuplicateFilter};
use ddf_hash::{KeyedSipHasher, digest};
use ddf_qht::Qht;
use ddf_shf::{CompactShf, Shf};
use std::hint::black_box;

const OPS: usize = 4096;

fn keys() -> Vec<u64> {
    let mut rng = ddf_hash::SplitMix64::new(7);
    (0..OPS).map(|_| rng.below(1 << 40)).collect()
}

/// Fills the filter's window first so every measured operation also evicts.
fn warm<F: DuplicateFilter>(f: &mut F, window: u64) {
    for i in 0..window {
        f.insert(Digest::mixed(i ^ 0x5555));
    }
}

fn bench(c: &mut Criterion) {
    let hasher = KeyedSipHasher::with_seed(1);
    let keys = keys();
    let mut group = c.benchmark_group("observe");
    group.throughput(Throughput::Elements(OPS as u64));
    // 1 Mbit budgets at several windows: SHF stays O(1), CSHF grows with w.
    for window in [1_000u64, 10_000, 30_000] {
        let mut shf = Shf::with_memory(1 << 20, window).expect("fits");
        warm(&mut shf, window);
        group.bench_with_input(
            BenchmarkId::new("shf_siphash_1mbit", window),
            &window,
            |b, _| {
                b.iter(|| {
                    for k in &keys {
                        black_box(shf.observe(digest(&hasher, k)));
                    }
                })
            },
        );
        let mut cshf = CompactShf::with_memory(1 << 20, window).expect("fits");
        warm(&mut cshf, window);
        group.bench_with_input(
            BenchmarkId::new("cshf_siphash_1mbit", window),
            &window,
            |b, _| {
                b.iter(|| {
                    for k in &keys {
                        black_box(cshf.observe(digest(&hasher, k)));
                    }
                })
            },
        );
    }
    // The QHT of the papers' benchmarks (k = 1, s = 3) in the same 1 Mbit,
    // saturated like the SHFs' windows.
    let mut qht = Qht::with_memory(1 << 20, 1, 3).expect("fits");
    warm(&mut qht, 1 << 20);
    group.bench_function("qht_siphash_1mbit", |b| {
        b.iter(|| {
            for k in &keys {
                black_box(qht.observe(digest(&hasher, k)));
            }
        })
    });
    group.finish();
}

/// How CSHF's cost grows with the window at a fixed rate (10^-3, the
/// narrowest `h` that meets it), next to the SHF of the same `(w, h)`: an
/// unseen item's lookup scans the whole ring, `⌈w/⌊64/h⌋⌉` words, so its
/// time grows about linearly. Every observed key is new (a counter), so
/// each operation is a full scan and an eviction, as in steady state.
fn growth(c: &mut Criterion) {
    let hasher = KeyedSipHasher::with_seed(1);
    let mut group = c.benchmark_group("growth_fpr_1e-3");
    group.sample_size(10);
    group.throughput(Throughput::Elements(OPS as u64));
    for log_w in [8u32, 10, 12, 14, 16] {
        let window = 1u64 << log_w;
        let goal = ddf_core::Goal::Fpr(1e-3);
        let h = CompactShf::parameters_for(goal, window).expect("a rate 64-bit hashes reach");
        let mut cshf = CompactShf::new(window, h).expect("fits");
        warm(&mut cshf, window);
        let mut next = 1u64 << 50;
        group.bench_with_input(BenchmarkId::new("cshf", window), &window, |b, _| {
            b.iter(|| {
                for _ in 0..OPS {
                    next += 1;
                    black_box(cshf.observe(digest(&hasher, &next)));
                }
            })
        });
        let mut shf = Shf::new(window, h).expect("fits");
        warm(&mut shf, window);
        group.bench_with_input(BenchmarkId::new("shf", window), &window, |b, _| {
            b.iter(|| {
                for _ in 0..OPS {
                    next += 1;
                    black_box(shf.observe(digest(&hasher, &next)));
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench, growth);
criterion_main!(benches);
