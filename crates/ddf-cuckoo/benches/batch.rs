//! One-by-one against batch `observe` (keyed SipHash-1-3, `u64` keys) at L2
//! size (1 Mbit) and DRAM size (64 MiB), in CPU time (see `ddf_core::speed`):
//!
//! ```text
//! cargo bench -p ddf-cuckoo --bench batch -- --warm-up-time 1 --measurement-time 3
//! ```

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use ddf_core::DuplicateFilter;
use ddf_core::speed::SpeedRig;
use ddf_cuckoo::StreamingCuckoo;

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
        // Four 8-bit cells per bucket, a short relocation bound, filled to
        // 90 % of its cells: the batch path's gain is in the two bucket
        // reads, not in long relocation chains (the small table saturates
        // during the run and then relocates on every insertion).
        let filter = StreamingCuckoo::with_memory(bits, 4, 8)
            .and_then(|f| f.with_max_kicks(16))
            .expect("valid");
        let fill = filter.buckets() * 4 * 9 / 10;
        pair(c, &format!("cuckoo_b4_f8_kicks16/{size}"), filter, fill);
    }
}

criterion_group!(batch, benches);
criterion_main!(batch);
