//! One-by-one against batch `observe` (keyed SipHash-1-3, `u64` keys) at L2
//! size (1 Mbit) and DRAM size (64 MiB), in CPU time (see `ddf_core::speed`):
//!
//! ```text
//! cargo bench -p ddf-cuckoo --bench batch -- --warm-up-time 1 --measurement-time 3
//! ```

use criterion::{Criterion, criterion_group, criterion_main};
use ddf_core::speed::bench_pair;
use ddf_cuckoo::StreamingCuckoo;

fn benches(c: &mut Criterion) {
    for (size, bits) in [("l2", 1u64 << 20), ("dram", 1 << 29)] {
        // Four 8-bit cells per bucket and a short relocation bound, filled
        // to half its cells: the batch path's gain is in the two bucket
        // reads, not in relocation chains, which it does not predict (the
        // small table saturates during the run and then relocates on every
        // insertion).
        let filter = StreamingCuckoo::with_memory(bits, 4, 8)
            .and_then(|f| f.with_max_kicks(16))
            .expect("valid");
        let fill = filter.buckets() * 2;
        bench_pair(c, &format!("cuckoo_b4_f8_kicks16/{size}"), filter, fill);
    }
}

criterion_group!(batch, benches);
criterion_main!(batch);
