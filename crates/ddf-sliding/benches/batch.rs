//! One-by-one against batch `observe` (keyed SipHash-1-3, `u64` keys) at L2
//! size (about 1 Mbit) and DRAM size (about 64 MiB), in steady state, in CPU
//! time (see `ddf_core::speed`):
//!
//! ```text
//! cargo bench -p ddf-sliding --bench batch -- --warm-up-time 1 --measurement-time 3
//! ```

use criterion::{Criterion, criterion_group, criterion_main};
use ddf_core::speed::bench_pair;
use ddf_core::{DuplicateFilter, Windowed};
use ddf_sliding::SlidingBloom;

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

fn benches(c: &mut Criterion) {
    for (size, bits) in [("l2", 1u64 << 20), ("dram", 1 << 29)] {
        let (filter, window) = sized(bits);
        // Two windows and their slack: the table at its steady load.
        let fill = 2 * (window + filter.slack());
        bench_pair(
            c,
            &format!("sliding_eps2-10_n{window}/{size}"),
            filter,
            fill,
        );
    }
}

criterion_group!(batch, benches);
criterion_main!(batch);
