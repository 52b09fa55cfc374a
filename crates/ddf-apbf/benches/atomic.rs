//! One thread on `AtomicApbf` against `Apbf`, and on `AtomicApbbf` against
//! `Apbbf`: `observe` of distinct `u64` keys, SipHash-1-3 included, at the
//! issue's sizes (window 2^20 at fp 10^-3, and 2^16 for a cached state).
//! The two of a pair run in one process, so their ratio is read from one
//! run.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ddf_apbf::{
    Apbbf, Apbf, Atomic, AtomicForm, DuplicateFilter, KeyedSipHasher, Verdict, Window, Windowed,
    digest,
};
use std::hint::black_box;

/// Operations per timed iteration.
const OPS: u64 = 1 << 14;

/// `F::observe` against `Atomic<F>::observe` on the same steady state.
fn pair<F>(c: &mut Criterion, family: &str, make: impl Fn(u64) -> F)
where
    F: AtomicForm + DuplicateFilter + Windowed + Clone,
{
    let hasher = KeyedSipHasher::with_seed(7);
    for (name, window) in [("w2^16", 1u64 << 16), ("w2^20", 1 << 20)] {
        let mut plain = make(window);
        let Window::Count(w) = plain.window() else {
            unreachable!("a count window")
        };
        // Steady state: past the window and twice the slack `k·g`, so at
        // least `k + l + 1` generations of distinct keys.
        let steady = w + 2 * plain.slack();
        for i in 0..steady {
            plain.insert(digest(&hasher, &i));
        }
        let atomic = Atomic::from(plain.clone());
        let mut group = c.benchmark_group(format!("atomic-{family}/{name}"));
        group.throughput(Throughput::Elements(OPS));
        // Each pass takes fresh keys, so every observe is of an unseen item.
        let mut next = steady;
        group.bench_function("single-threaded observe", |b| {
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
        group.bench_function("lock-free observe", |b| {
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

fn bench(c: &mut Criterion) {
    pair(c, "apbf", |w| {
        Apbf::with_window(w, 1e-3).expect("valid parameters")
    });
    pair(c, "apbbf", |w| {
        Apbbf::with_window(w, 1e-3).expect("valid parameters")
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
