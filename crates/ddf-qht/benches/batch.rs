//! One-by-one against batch `observe` (keyed SipHash-1-3, `u64` keys) at L2
//! size (1 Mbit) and DRAM size (64 MiB), in CPU time (see `ddf_core::speed`):
//!
//! ```text
//! cargo bench -p ddf-qht --bench batch -- --warm-up-time 1 --measurement-time 3
//! ```

use criterion::{Criterion, criterion_group, criterion_main};
use ddf_core::speed::bench_pair;
use ddf_qht::{Qht, Qqhtd, Sqf};

/// 1 Mbit: the paper's benchmark size, inside L2.
const L2_BITS: u64 = 1 << 20;
/// 64 MiB: far beyond the last-level cache.
const DRAM_BITS: u64 = 1 << 29;

fn benches(c: &mut Criterion) {
    for (size, bits) in [("l2", L2_BITS), ("dram", DRAM_BITS)] {
        // Loaded: as many items as the table has cells (about 63 % full for
        // k = 1, more for QQHTD, whose rows fill at once).
        let qht = Qht::with_memory(bits, 1, 3).expect("valid");
        let fill = qht.rows();
        bench_pair(c, &format!("qht_k1_s3/{size}"), qht, fill);
        let qht = Qht::with_memory(bits, 4, 8).expect("valid");
        let fill = 4 * qht.rows();
        bench_pair(c, &format!("qht_k4_s8/{size}"), qht, fill);
        let qq = Qqhtd::with_memory(bits, 4, 8).expect("valid");
        let fill = 4 * qq.rows();
        bench_pair(c, &format!("qqhtd_k4_s8/{size}"), qq, fill);
        let sqf = Sqf::with_memory(bits, 1, 2, 1).expect("valid");
        let fill = sqf.rows();
        bench_pair(c, &format!("sqf_k1_r2_r1/{size}"), sqf, fill);
    }
}

criterion_group!(batch, benches);
criterion_main!(batch);
