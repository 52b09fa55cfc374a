//! One-by-one against batch `observe` (keyed SipHash-1-3, `u64` keys) at L2
//! size (about 1 Mbit) and DRAM size (about 64 MiB), in steady state, in CPU
//! time (see `ddf_core::speed`):
//!
//! ```text
//! cargo bench -p ddf-sliding --bench batch -- --warm-up-time 1 --measurement-time 3
//! ```

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use ddf_core::speed::SpeedRig;
use ddf_core::{DuplicateFilter, Windowed};
use ddf_sliding::SlidingBloom;

/// Operations per timed iteration.
const OPS: usize = 4096;

/// The least-space filter at ε = 2^-10 whose window is the largest power of
/// two keeping the table within `bits`.
fn sized(bits: u64) -> (SlidingBloom, u64) {
    let make = |n: u64| SlidingBloom::least_space(n, 2f64.powi(-10)).expect("valid");
    let mut n = 1024;
    while make(2 * n).memory_bits() <= bits {
        n *= 2;
    }
    (make(n), n)
}

/// Times `observe` one by one and in batches on two copies of `filter`
/// after `fill` warm-up insertions. Ten flat samples of about 0.3 s each:
/// CPU time is read at scheduler-tick resolution, so samples must be long.
fn pair<F: DuplicateFilter + Clone>(c: &mut Criterion, name: &str, filter: F, fill: u64) {
    let mut one = SpeedRig::new(filter, fill);
    let mut many = one.clone();
    let mut group = c.benchmark_group("batch");
    group.throughput(Throughput::Elements(OPS as u64));
    group.sampling_mode(SamplingMode::Flat).sample_size(10);
    group.bench_function(format!("{name}/one-by-one"), |b| {
        b.iter_custom(|iters| one.time_one_by_one(iters, OPS))
    });
    group.bench_function(format!("{name}/batch"), |b| {
        b.iter_custom(|iters| many.time_batched(iters, OPS))
    });
    group.finish();
}

fn benches(c: &mut Criterion) {
    for (size, bits) in [("l2", 1u64 << 20), ("dram", 1 << 29)] {
        let (filter, window) = sized(bits);
        // Two windows and their slack: the table at its steady load.
        let fill = 2 * (window + filter.slack());
        pair(
            c,
            &format!("sliding_eps2-10_n{window}/{size}"),
            filter,
            fill,
        );
    }
}

criterion_group!(batch, benches);
criterion_main!(batch);
