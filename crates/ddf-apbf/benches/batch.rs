//! One-by-one against batch `observe` (keyed SipHash-1-3, `u64` keys) at L2
//! size (1 Mbit) and DRAM size (64 MiB), in steady state, in CPU time (see
//! `ddf_core::speed`):
//!
//! ```text
//! cargo bench -p ddf-apbf --bench batch -- --warm-up-time 1 --measurement-time 3
//! ```

use criterion::{Criterion, criterion_group, criterion_main};
use ddf_apbf::{Apbbf, Apbf};
use ddf_core::speed::bench_pair;

fn benches(c: &mut Criterion) {
    for (size, bits) in [("l2", 1u64 << 20), ("dram", 1 << 29)] {
        // k + l + 1 generations: every segment has aged through its life.
        let apbbf = Apbbf::new(3, 8, bits / (11 * 512), 512, 4).expect("valid");
        let fill = 12 * apbbf.generation();
        bench_pair(c, &format!("apbbf_k3_l8_B512_b4/{size}"), apbbf, fill);
        let apbf = Apbf::new(10, 24, bits / 34).expect("valid");
        let fill = 35 * apbf.generation();
        bench_pair(c, &format!("apbf_k10_l24/{size}"), apbf, fill);
    }
}

criterion_group!(batch, benches);
criterion_main!(batch);
