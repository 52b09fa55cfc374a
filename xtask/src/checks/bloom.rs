//! Checks of the partitioned Bloom filter formulas against a minimal
//! partitioned Bloom filter built on `ddf-bits` and `ddf-hash` probes.
//!
//! The model filter here only exercises the shared mechanics (probe
//! derivation and bit arrays) until `ddf-bloom` provides the real filter.

use crate::outcome::Outcome;
use crate::verify::{Check, Ctx};
use ddf_bits::BitArray;
use ddf_core::Digest;
use ddf_hash::{KeyedSipHasher, digest};
use ddf_sim::{run_seeds, threads};
use ddf_theory::bloom::{partitioned_fp, slice_fill_ratio};

const MULLIN: &str = "partitioned Bloom (Mullin), r = 1-(1-1/m)^n, fp = r^k";

pub(crate) fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "bloom/partitioned-fill-ratio",
            paper: MULLIN,
            run: fill_ratio,
        },
        Check {
            id: "bloom/partitioned-fp",
            paper: MULLIN,
            run: false_positives,
        },
    ]
}

/// `k` slices of `m` bits; probe `i` of an item lands in slice `i`.
struct Partitioned {
    bits: BitArray,
    k: u64,
    m: u64,
}

impl Partitioned {
    fn new(k: u64, m: u64) -> Partitioned {
        Partitioned {
            bits: BitArray::new(k * m).expect("small filter"),
            k,
            m,
        }
    }

    fn probes(&self, d: Digest) -> impl Iterator<Item = u64> + '_ {
        d.probes(self.m)
            .take(self.k as usize)
            .enumerate()
            .map(|(i, p)| i as u64 * self.m + p)
    }

    fn insert(&mut self, d: Digest) {
        let positions: Vec<u64> = self.probes(d).collect();
        for p in positions {
            self.bits.set(p);
        }
    }

    fn contains(&self, d: Digest) -> bool {
        self.probes(d).all(|p| self.bits.get(p))
    }
}

const K: u64 = 4;
const M: u64 = 1 << 16;

/// Items that fill each slice to one half: `m·ln 2`.
fn half_fill_items() -> u64 {
    (M as f64 * std::f64::consts::LN_2) as u64
}

/// One filter per seed filled with `n` distinct items; returns
/// (fill ratio, false-positive rate over `queries` fresh items) per run.
fn runs(ctx: &Ctx, salt: u64, queries: u64) -> Vec<(f64, f64)> {
    let seeds = ctx.seeds(salt, ctx.pick(16, 48));
    let n = half_fill_items();
    run_seeds(&seeds, threads(), |seed| {
        let hasher = KeyedSipHasher::with_seed(seed);
        let mut f = Partitioned::new(K, M);
        for id in 0..n {
            f.insert(digest(&hasher, &id));
        }
        let fill = f.bits.count_ones() as f64 / (K * M) as f64;
        let fps = (n..n + queries)
            .filter(|id| f.contains(digest(&hasher, id)))
            .count();
        (fill, fps as f64 / queries as f64)
    })
}

fn fill_ratio(ctx: &Ctx) -> Outcome {
    let fills: Vec<f64> = runs(ctx, 21, 0).into_iter().map(|r| r.0).collect();
    let n = half_fill_items();
    Outcome::runs(slice_fill_ratio(n as f64, M as f64), &fills)
        .note(format!("k = {K}, m = 2^16, n = {n}"))
}

/// The FP rate of one filter depends on its realised fill, so runs (not
/// queries) are the independent samples.
fn false_positives(ctx: &Ctx) -> Outcome {
    let queries = ctx.pick(100_000, 1_000_000);
    let fps: Vec<f64> = runs(ctx, 22, queries).into_iter().map(|r| r.1).collect();
    let n = half_fill_items();
    Outcome::runs(partitioned_fp(n as f64, M as f64, K as f64), &fps).note(format!(
        "k = {K}, m = 2^16, n = {n}, {queries} queries per run"
    ))
}
