//! One thread on `AtomicApbf` against `Apbf`, and on `AtomicApbbf` against
//! `Apbbf`: `observe` of distinct `u64` keys at window 2^20 (a few MiB of
//! state) and 2^26 (far beyond the caches), fp 10^-3, in steady state.
//! Digests come from [`Digest::mixed`] (a few instructions), not SipHash,
//! so the filters' own work is what is compared. First the two of a pair
//! alternate in one process, each on its own copy of the same state and
//! keys, and the least time per key of each and their ratio are printed
//! (`atomic-apbf/…/alternating`); then criterion times each, and the
//! lock-free filter's batches (`observe_digests`, blocks of 64).
//!
//! ```text
//! cargo bench -p ddf-apbf --bench atomic
//! ```

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ddf_apbf::{
    Apbbf, Apbf, Atomic, AtomicForm, Digest, DuplicateFilter, Verdict, Window, Windowed,
};
use std::hint::black_box;

/// Operations per timed block: a few milliseconds, so that many blocks
/// run without a pause (see `ddf_core::speed::alternate`).
const OPS: u64 = 1 << 13;
/// Alternating rounds of one block each.
const ROUNDS: usize = 31;

/// Observes keys `next..next + OPS` through `observe`; returns `OPS`.
fn block(next: &mut u64, mut observe: impl FnMut(Digest) -> Verdict) -> u64 {
    let mut dup = 0u32;
    for i in *next..*next + OPS {
        dup += u32::from(observe(Digest::mixed(black_box(i))) == Verdict::Duplicate);
    }
    black_box(dup);
    *next += OPS;
    OPS
}

/// Observes keys `next..next + OPS` through `Atomic::observe_digests` in
/// blocks of 64; returns `OPS`.
fn batches<F: AtomicForm>(next: &mut u64, f: &Atomic<F>) -> u64 {
    let keys: Vec<Digest> = (*next..*next + OPS).map(Digest::mixed).collect();
    let mut verdicts = Vec::with_capacity(64);
    let mut dup = 0;
    for chunk in black_box(&keys).chunks(64) {
        verdicts.clear();
        f.observe_digests(chunk, &mut verdicts);
        dup += verdicts.iter().filter(|v| v.is_duplicate()).count();
    }
    black_box(dup);
    *next += OPS;
    OPS
}

/// `F::observe` against `Atomic<F>::observe` on the same steady state, and
/// the lock-free filter's batches.
fn pair<F>(c: &mut Criterion, family: &str, make: impl Fn(u64) -> F)
where
    F: AtomicForm + DuplicateFilter + Windowed + Clone,
{
    for (name, window) in [("w2^20", 1u64 << 20), ("w2^26", 1 << 26)] {
        let mut plain = make(window);
        let Window::Count(w) = plain.window() else {
            unreachable!("a count window")
        };
        // Steady state: past the window and twice the slack `k·g`, so at
        // least `k + l + 1` generations of distinct keys.
        let steady = w + 2 * plain.slack();
        let mut verdicts = Vec::with_capacity(4096);
        for start in (0..steady).step_by(4096) {
            let keys: Vec<Digest> = (start..steady.min(start + 4096))
                .map(Digest::mixed)
                .collect();
            verdicts.clear();
            plain.observe_batch(&keys, &mut verdicts);
        }
        let atomic = Atomic::from(plain.clone());
        let (mut next_plain, mut next_atomic) = (steady, steady);
        let (p, a) = ddf_core::speed::alternate(
            ROUNDS,
            || block(&mut next_plain, |d| plain.observe(d)),
            || block(&mut next_atomic, |d| atomic.observe(d)),
        );
        println!(
            "atomic-{family}/{name}/alternating: plain {p:.1} ns, lock-free {a:.1} ns, \
             ratio {:.3} ({} MiB)",
            a / p,
            plain.memory_bits() >> 23,
        );
        let mut group = c.benchmark_group(format!("atomic-{family}/{name}"));
        group.throughput(Throughput::Elements(OPS));
        group.bench_function("single-threaded observe", |b| {
            b.iter(|| block(&mut next_plain, |d| plain.observe(d)))
        });
        group.bench_function("lock-free observe", |b| {
            b.iter(|| block(&mut next_atomic, |d| atomic.observe(d)))
        });
        group.bench_function("lock-free observe_digests", |b| {
            b.iter(|| batches(&mut next_atomic, &atomic))
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
