//! Insert and query speed of APBF and APBBF at the sizes of the CrowdStrike
//! Go APBF's published figures and at L2 size, in steady state.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ddf_apbf::{Apbbf, Apbf};
use ddf_core::{Digest, DuplicateFilter};
use ddf_hash::SplitMix64;
use std::hint::black_box;

/// Operations per timed iteration; criterion reports the time of all of them.
const OPS: usize = 4096;

/// An APBF with generations of exactly `g` items.
fn apbf(k: u32, l: u32, g: u64) -> Apbf {
    let mut m = (g as f64 * f64::from(k) / std::f64::consts::LN_2).ceil() as u64;
    while ddf_theory::apbf::generation_size(m as f64, f64::from(k)) < g as f64 {
        m += 1;
    }
    Apbf::new(k, l, m).expect("valid parameters")
}

/// Times insertion of fresh items (the filter keeps shifting, so it stays
/// in steady state), queries for items never inserted, and queries for
/// items in the window.
fn bench_filter<F: DuplicateFilter + Clone>(
    c: &mut Criterion,
    name: &str,
    mut f: F,
    window: u64,
    steady: u64,
) {
    let mut rng = SplitMix64::new(0xA9BF);
    // k + l + 1 generations: every slice has aged through its life.
    for _ in 0..steady {
        f.insert(Digest::new(rng.next_u64()));
    }
    let mut recent: Vec<Digest> = (0..window.min(1 << 20))
        .map(|_| Digest::new(rng.next_u64()))
        .collect();
    for &d in &recent {
        f.insert(d);
    }
    recent.truncate(OPS.min(recent.len()));
    let fresh: Vec<Digest> = (0..OPS).map(|_| Digest::new(rng.next_u64())).collect();
    let inserts: Vec<Digest> = (0..OPS).map(|_| Digest::new(rng.next_u64())).collect();
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(OPS as u64));
    group.bench_function("query_absent", |b| {
        b.iter(|| fresh.iter().filter(|&&d| f.contains(black_box(d))).count())
    });
    group.bench_function("query_present", |b| {
        b.iter(|| recent.iter().filter(|&&d| f.contains(black_box(d))).count())
    });
    let mut g = f.clone();
    group.bench_function("insert", |b| {
        b.iter(|| {
            for &d in &inserts {
                g.insert(black_box(d));
            }
        })
    });
    group.finish();
}

fn benches(c: &mut Criterion) {
    // CrowdStrike's Go APBF reference points: (k, l, g) = (3, 3, 1000) and (15, 15, 100000).
    bench_filter(c, "apbf/k3-l3-g1000", apbf(3, 3, 1_000), 3_000, 7 * 1_000);
    bench_filter(
        c,
        "apbf/k15-l15-g100000",
        apbf(15, 15, 100_000),
        1_500_000,
        31 * 100_000,
    );
    // About 1 MiB of state (L2 holds 2 MiB per core here).
    bench_filter(
        c,
        "apbf/k10-l24-1MiB",
        apbf(10, 24, 17_000),
        24 * 17_000,
        35 * 17_000,
    );
    let b512 = Apbbf::new(3, 8, 1_490, 512, 4).expect("valid parameters");
    let g512 = b512.generation();
    bench_filter(c, "apbbf/k3-l8-B512-b4-1MiB", b512, 8 * g512, 12 * g512);
    let b64 = Apbbf::new(2, 5, 18_700, 64, 4).expect("valid parameters");
    let g64 = b64.generation();
    bench_filter(c, "apbbf/k2-l5-B64-b4-1MiB", b64, 5 * g64, 8 * g64);
}

criterion_group!(apbf_benches, benches);
criterion_main!(apbf_benches);
