//! One-by-one against batch `observe` (keyed SipHash-1-3, `u64` keys) at L2
//! size (1 Mbit) and DRAM size (64 MiB), in steady state, in CPU time (see
//! `ddf_core::speed`):
//!
//! ```text
//! cargo bench -p ddf-apbf --bench batch -- --warm-up-time 1 --measurement-time 3
//! ```

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use ddf_apbf::{Apbbf, Apbf};
use ddf_core::DuplicateFilter;
use ddf_core::speed::SpeedRig;

/// Operations per timed iteration.
const OPS: usize = 4096;

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
        // k + l + 1 generations: every segment has aged through its life.
        let apbbf = Apbbf::new(3, 8, bits / (11 * 512), 512, 4).expect("valid");
        let fill = 12 * apbbf.generation();
        pair(c, &format!("apbbf_k3_l8_B512_b4/{size}"), apbbf, fill);
        let apbf = Apbf::new(10, 24, bits / 34).expect("valid");
        let fill = 35 * apbf.generation();
        pair(c, &format!("apbf_k10_l24/{size}"), apbf, fill);
    }
}

criterion_group!(batch, benches);
criterion_main!(batch);
