//! Hand-packed cells against `bitvec` on the same layout, and SWAR row search
//! against a per-cell loop, over arrays of about 1 Mbit with random indices.

use bitvec::field::BitField;
use bitvec::prelude::{BitVec, Lsb0};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ddf_bits::{CellRows, PackedArray};
use ddf_hash::SplitMix64;
use std::hint::black_box;

/// State per structure: 1 Mbit, 128 KiB, so the comparison measures bit
/// handling rather than cache misses.
const ARRAY_BITS: u64 = 1 << 20;
/// Operations per timed iteration; criterion reports the time of all of them.
const OPS: usize = 4096;

fn packed_vs_bitvec(c: &mut Criterion) {
    for width in [3u32, 8, 13, 32] {
        let len = ARRAY_BITS / u64::from(width);
        let max = u32::MAX >> (32 - width);
        let mut rng = SplitMix64::new(0xB175 + u64::from(width));
        let index: Vec<u64> = (0..OPS).map(|_| rng.below(len)).collect();
        let value: Vec<u32> = (0..OPS).map(|_| rng.next_u64() as u32 & max).collect();

        let mut hand = PackedArray::new(len, width).expect("valid parameters");
        let mut oracle: BitVec<u64, Lsb0> =
            BitVec::repeat(false, (len * u64::from(width)) as usize);
        for i in 0..len {
            let v = rng.next_u64() as u32 & max;
            hand.set(i, v);
            let start = (i * u64::from(width)) as usize;
            oracle[start..start + width as usize].store_le(v);
        }
        assert_eq!(hand.as_words(), oracle.as_raw_slice(), "same layout");

        let w = width as usize;
        let mut group = c.benchmark_group(format!("packed/width{width}"));
        group.throughput(Throughput::Elements(OPS as u64));
        group.bench_function("get/hand", |b| {
            b.iter(|| {
                index
                    .iter()
                    .fold(0u32, |acc, &i| acc.wrapping_add(hand.get(black_box(i))))
            })
        });
        group.bench_function("get/bitvec", |b| {
            b.iter(|| {
                index.iter().fold(0u32, |acc, &i| {
                    let start = black_box(i) as usize * w;
                    acc.wrapping_add(oracle[start..start + w].load_le::<u32>())
                })
            })
        });
        group.bench_function("set/hand", |b| {
            b.iter(|| {
                for (&i, &v) in index.iter().zip(&value) {
                    hand.set(black_box(i), v);
                }
            })
        });
        group.bench_function("set/bitvec", |b| {
            b.iter(|| {
                for (&i, &v) in index.iter().zip(&value) {
                    let start = black_box(i) as usize * w;
                    oracle[start..start + w].store_le(v);
                }
            })
        });
        group.finish();
        black_box((&hand, &oracle));
    }
}

fn find_swar_vs_loop(c: &mut Criterion) {
    for (k, width) in [(4usize, 8u32), (1, 3), (16, 6)] {
        let rows = ARRAY_BITS / (k as u64 * u64::from(width));
        let max = u32::MAX >> (32 - width);
        let mut rng = SplitMix64::new(0xF1D + k as u64 * 64 + u64::from(width));
        // Full rows of non-zero fingerprints, the steady state of a QHT.
        let mut table = CellRows::new(rows, k, width).expect("valid parameters");
        for r in 0..rows {
            for j in 0..k {
                table.set(r, j, 1 + rng.below(u64::from(max)) as u32);
            }
        }
        let queries: Vec<(u64, u32)> = (0..OPS)
            .map(|_| (rng.below(rows), 1 + rng.below(u64::from(max)) as u32))
            .collect();
        let naive = |t: &CellRows, r: u64, v: u32| (0..k).find(|&j| t.get(r, j) == v);
        for &(r, v) in &queries {
            assert_eq!(table.find(r, v), naive(&table, r, v));
        }

        let mut group = c.benchmark_group(format!("find/k{k}_width{width}"));
        group.throughput(Throughput::Elements(OPS as u64));
        group.bench_function("swar", |b| {
            b.iter(|| {
                queries.iter().fold(0usize, |acc, &(r, v)| {
                    acc + table.find(black_box(r), black_box(v)).map_or(0, |j| j + 1)
                })
            })
        });
        group.bench_function("loop", |b| {
            b.iter(|| {
                queries.iter().fold(0usize, |acc, &(r, v)| {
                    acc + naive(&table, black_box(r), black_box(v)).map_or(0, |j| j + 1)
                })
            })
        });
        group.finish();
    }
}

criterion_group!(benches, packed_vs_bitvec, find_swar_vs_loop);
criterion_main!(benches);
