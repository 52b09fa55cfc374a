//! `observe` through the default keyed SipHash-1-3 at 1 Mbit in the
//! saturated state, at Fan et al.'s relocation bound and at shorter ones,
//! under both full-table policies.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ddf_core::{Deduper, KeyedSipHasher};
use ddf_cuckoo::{FullTable, StreamingCuckoo};
use ddf_hash::SplitMix64;
use std::hint::black_box;

/// State per filter: 1 Mbit, as in Table 3 of the QHT paper.
const MEMORY_BITS: u64 = 1 << 20;
/// Operations per timed iteration.
const OPS: usize = 1024;
/// Distinct keys the iterations cycle through, far more than the filter
/// remembers, so every pass meets a saturated filter and mostly unseen keys.
const STREAM: usize = 1 << 22;

fn keys(seed: u64, n: usize) -> Vec<u64> {
    let mut rng = SplitMix64::new(seed);
    (0..n).map(|_| rng.below(1 << 40)).collect()
}

fn cuckoo(c: &mut Criterion) {
    let stream = keys(3, STREAM);
    for (b, f, kicks, policy) in [
        (1usize, 3u32, 500u32, FullTable::Evict),
        (1, 3, 500, FullTable::Walk),
        (1, 3, 50, FullTable::Walk),
        (1, 3, 16, FullTable::Walk),
        (1, 3, 0, FullTable::Walk),
        (4, 8, 500, FullTable::Evict),
        (4, 8, 500, FullTable::Walk),
        (4, 8, 16, FullTable::Walk),
    ] {
        let filter = StreamingCuckoo::with_memory(MEMORY_BITS, b, f)
            .unwrap()
            .with_max_kicks(kicks)
            .unwrap()
            .with_full_table(policy);
        let mut dedup = Deduper::with_hasher(filter, KeyedSipHasher::with_seed(1));
        for k in keys(2, 2 * MEMORY_BITS as usize) {
            dedup.observe(&k);
        }
        let mut cursor = 0;
        let mut group = c.benchmark_group("observe_1mbit");
        group.throughput(Throughput::Elements(OPS as u64));
        let name = format!("cuckoo_b{b}_f{f}_kicks{kicks}_{policy:?}").to_lowercase();
        group.bench_function(name, |bench| {
            bench.iter(|| {
                let batch = &stream[cursor..cursor + OPS];
                cursor = (cursor + OPS) % STREAM;
                batch
                    .iter()
                    .filter(|k| dedup.observe(black_box(*k)).is_duplicate())
                    .count()
            })
        });
        group.finish();
    }
}

criterion_group!(benches, cuckoo);
criterion_main!(benches);
