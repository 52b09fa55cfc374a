//! One thread on `AtomicApbf` against `Apbf`: `observe` of distinct `u64`
//! keys, SipHash-1-3 included, at the sizes (window 2^20 at
//! fp 10^-3, and 2^16 for a cached state). The two run alternately in one
//! process, so their ratio is read from one run.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ddf_apbf::{Apbf, AtomicApbf, DuplicateFilter, KeyedSipHasher, Verdict, digest};
use std::hint::black_box;

/// Operations per timed iteration.
const OPS: u64 = 1 << 14;

fn bench(c: &mut Criterion) {
    let hasher = KeyedSipHasher::with_seed(7);
    for (name, window) in [("w2^16", 1u64 << 16), ("w2^20", 1 << 20)] {
        let mut plain = Apbf::with_window(window, 1e-3).expect("valid parameters");
        // Steady state: k + l generations of distinct keys.
        let steady = u64::from(plain.k() + plain.l() + 1) * plain.generation();
        for i in 0..steady {
            plain.insert(digest(&hasher, &i));
        }
        let atomic = AtomicApbf::from(plain.clone());
        let mut group = c.benchmark_group(format!("atomic-apbf/{name}"));
        group.throughput(Throughput::Elements(OPS));
        // Each pass takes fresh keys, so every observe is of an unseen item.
        let mut next = steady;
        group.bench_function("Apbf::observe", |b| {
            b.iter(|| {
                let mut dup = 0;
                for i in next..next + OPS {
                    dup += u32::from(
                        plain.observe(digest(&hasher, &black_box(i))) == Verdict::Duplicate,
                    );
                }
                next += OPS;
                dup
            })
        });
        let mut next = steady;
        group.bench_function("AtomicApbf::observe", |b| {
            b.iter(|| {
                let mut dup = 0;
                for i in next..next + OPS {
                    dup += u32::from(
                        atomic.observe(digest(&hasher, &black_box(i))) == Verdict::Duplicate,
                    );
                }
                next += OPS;
                dup
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
