//! Checks of the partitioned Bloom filter of `ddf-bloom` against Mullin's
//! fill-ratio and false-positive formulas.

use super::common::{Fresh, item, no_false_negatives};
use crate::outcome::Outcome;
use crate::{Check, Ctx};
use ddf_bloom::PartitionedBloom;
use ddf_core::{DuplicateFilter, Window};
use ddf_hash::KeyedSipHasher;
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
        Check {
            id: "bloom/partitioned-no-false-negatives",
            paper: "Bloom filters have no false negatives (APBF paper §4)",
            run: no_false_negatives_ever,
        },
    ]
}

const K: u32 = 4;
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
        let mut f = PartitionedBloom::new(K, M).expect("valid parameters");
        for id in 0..n {
            f.insert(item(&hasher, id));
        }
        let fp = Fresh::new(seed).rate(queries, |d| f.contains(d));
        (f.fill_ratio(), fp)
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
    Outcome::runs(partitioned_fp(n as f64, M as f64, f64::from(K)), &fps).note(format!(
        "k = {K}, m = 2^16, n = {n}, {queries} queries per run"
    ))
}

/// Every repeat on a stream over the whole history is reported.
fn no_false_negatives_ever(ctx: &Ctx) -> Outcome {
    no_false_negatives(
        ctx,
        23,
        Window::Unbounded,
        1 << 16,
        ctx.pick(200_000, 2_000_000),
        |_| PartitionedBloom::with_items(1 << 16, 0.01).expect("valid parameters"),
    )
}
