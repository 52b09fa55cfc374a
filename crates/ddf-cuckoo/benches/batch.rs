//! One-by-one against batch `observe` (keyed SipHash-1-3, `u64` keys) at L2
//! size (1 Mbit) and DRAM size (64 MiB), in CPU time (see `ddf_core::speed`):
//!
//! ```text
//! cargo bench -p ddf-cuckoo --bench batch -- --warm-up-time 1 --measurement-time 3
//! ```

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ddf_core::speed::SpeedRig;
use ddf_cuckoo::StreamingCuckoo;

/// Operations per timed iteration.
const OPS: usize = 4096;

fn benches(c: &mut Criterion) {
    for (size, bits) in [("l2", 1u64 << 20), ("dram", 1 << 29)] {
        // Four 8-bit cells per bucket, a short relocation bound, filled to
        // 90 % of its cells: the batch path's gain is in the two bucket
        // reads, not in long relocation chains.
        let filter = StreamingCuckoo::with_memory(bits, 4, 8)
            .and_then(|f| f.with_max_kicks(16))
            .expect("valid");
        let fill = filter.buckets() * 4 * 9 / 10;
        let mut one = SpeedRig::new(filter, fill);
        let mut many = one.clone();
        let mut group = c.benchmark_group("batch");
        group.throughput(Throughput::Elements(OPS as u64));
        let name = format!("cuckoo_b4_f8_kicks16/{size}");
        group.bench_function(format!("{name}/one-by-one"), |b| {
            b.iter_custom(|iters| one.time_one_by_one(iters, OPS))
        });
        group.bench_function(format!("{name}/batch"), |b| {
            b.iter_custom(|iters| many.time_batched(iters, OPS))
        });
        group.finish();
    }
}

criterion_group!(batch, benches);
criterion_main!(batch);
