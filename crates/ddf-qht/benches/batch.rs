//! One-by-one against batch `observe` (keyed SipHash-1-3, `u64` keys) at L2
//! size (1 Mbit) and DRAM size (64 MiB), in CPU time (see `ddf_core::speed`):
//!
//! ```text
//! cargo bench -p ddf-qht --bench batch -- --warm-up-time 1 --measurement-time 3
//! ```

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use ddf_core::DuplicateFilter;
use ddf_core::speed::SpeedRig;
use ddf_qht::{Qht, Qqhtd, Sqf};

/// Operations per timed iteration.
const OPS: usize = 4096;
/// 1 Mbit: the paper's benchmark size, inside L2.
const L2_BITS: u64 = 1 << 20;
/// 64 MiB: far beyond the last-level cache.
const DRAM_BITS: u64 = 1 << 29;

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
    for (size, bits) in [("l2", L2_BITS), ("dram", DRAM_BITS)] {
        // Loaded: as many items as the table has cells (about 63 % full for
        // k = 1, more for QQHTD, whose rows fill at once).
        let qht = Qht::with_memory(bits, 1, 3).expect("valid");
        let fill = qht.rows();
        pair(c, &format!("qht_k1_s3/{size}"), qht, fill);
        let qht = Qht::with_memory(bits, 4, 8).expect("valid");
        let fill = 4 * qht.rows();
        pair(c, &format!("qht_k4_s8/{size}"), qht, fill);
        let qq = Qqhtd::with_memory(bits, 4, 8).expect("valid");
        let fill = 4 * qq.rows();
        pair(c, &format!("qqhtd_k4_s8/{size}"), qq, fill);
        let sqf = Sqf::with_memory(bits, 1, 2, 1).expect("valid");
        let fill = sqf.rows();
        pair(c, &format!("sqf_k1_r2_r1/{size}"), sqf, fill);
    }
}

criterion_group!(batch, benches);
criterion_main!(batch);
