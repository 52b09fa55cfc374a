//! One-by-one against batch `observe` of a queue of four QHTs (keyed
//! SipHash-1-3, `u64` keys) at L2 size (1 Mbit) and DRAM size (64 MiB), in
//! CPU time (see `ddf_core::speed`); the shape of `cargo xtask bench`'s
//! `Queue<Qht>`:
//!
//! ```text
//! cargo bench -p ddf-queue --bench batch -- --warm-up-time 1 --measurement-time 3
//! ```

use criterion::{Criterion, criterion_group, criterion_main};
use ddf_core::speed::bench_pair;
use ddf_qht::Qht;
use ddf_queue::Queue;

/// 1 Mbit: inside L2.
const L2_BITS: u64 = 1 << 20;
/// 64 MiB: far beyond the last-level cache.
const DRAM_BITS: u64 = 1 << 29;

fn benches(c: &mut Criterion) {
    for (size, bits) in [("l2", L2_BITS), ("dram", DRAM_BITS)] {
        // Four QHTs of M/4 bits (k = 4, s = 8), each taking half its cells'
        // worth of items; filled through two rotations of every subfilter.
        let capacity = bits / 4 / 32 * 4 / 2;
        let queue = Queue::with_memory(bits, 4, capacity, |s| {
            Qht::with_memory(s.bits, 4, 8).map(|q| q.with_seed(s.index as u64))
        })
        .expect("valid");
        bench_pair(c, &format!("queue_qht_l4/{size}"), queue, 8 * capacity);
    }
}

criterion_group!(batch, benches);
criterion_main!(batch);
