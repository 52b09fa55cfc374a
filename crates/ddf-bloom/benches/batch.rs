//! One-by-one against batch `observe` of the partitioned Bloom filter
//! (keyed SipHash-1-3, `u64` keys) at L2 size (1 Mbit) and DRAM size
//! (64 MiB), in CPU time (see `ddf_core::speed`):
//!
//! ```text
//! cargo bench -p ddf-bloom --bench batch -- --warm-up-time 1 --measurement-time 3
//! ```

use criterion::{Criterion, criterion_group, criterion_main};
use ddf_bloom::PartitionedBloom;
use ddf_core::speed::bench_pair;

fn benches(c: &mut Criterion) {
    for (size, bits) in [("l2", 1u64 << 20), ("dram", 1 << 29)] {
        // Seven slices, loaded until each is about half full (m·ln 2 items).
        let filter = PartitionedBloom::new(7, bits / 7).expect("valid");
        let fill = (filter.slice_bits() as f64 * std::f64::consts::LN_2) as u64;
        bench_pair(c, &format!("partitioned_k7/{size}"), filter, fill);
    }
}

criterion_group!(batch, benches);
criterion_main!(batch);
