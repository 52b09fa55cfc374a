//! Checks of the Age-Partitioned Blocked Bloom filter: its false-positive
//! rate through `F` with blocked-filter segment rates (Table 3), block
//! accesses, and no false negatives by count and by time.

use super::apbf::{at_worst_points, mean_false_accesses};
use super::common::{Fresh, no_false_negatives, no_false_negatives_timed};
use crate::outcome::Outcome;
use crate::{Check, Ctx};
use ddf_apbf::Apbbf;
use ddf_core::{DuplicateFilter, Window};
use ddf_hash::KeyedSipHasher;
use ddf_sim::{run_seeds, threads};
use ddf_theory::apbf::{false_positive, query_cost};
use ddf_theory::blocked_bloom::blocked_fp;

const TABLE3: &str = "APBF paper §6 Table 3, blocked rate (Putze et al.) through F";

pub(crate) fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "apbbf/steady-fp-k2-l3-b64-4",
            paper: TABLE3,
            run: |c| steady_fp(c, (2, 3, 64, 4), 81),
        },
        Check {
            id: "apbbf/steady-fp-k3-l5-b512-4",
            paper: TABLE3,
            run: |c| steady_fp(c, (3, 5, 512, 4), 82),
        },
        Check {
            id: "apbbf/steady-fp-k2-l5-b64-8",
            paper: TABLE3,
            run: |c| steady_fp(c, (2, 5, 64, 8), 83),
        },
        Check {
            id: "apbbf/block-accesses-false",
            paper: "APBF paper §6 Table 3 (\"false\" column)",
            run: accesses_false,
        },
        Check {
            id: "apbbf/no-false-negatives",
            paper: "APBF paper §6 (the window of the age-partitioning)",
            run: no_fn,
        },
        Check {
            id: "apbbf/no-false-negatives-timed",
            paper: "time-based generations within capacity",
            run: no_fn_timed,
        },
    ]
}

type Shape = (u32, u32, u32, u32);

/// An APBBF of the given shape with `blocks` blocks per segment.
fn make((k, l, bb, b): Shape, blocks: u64) -> Apbbf {
    Apbbf::new(k, l, blocks, bb, b).expect("valid parameters")
}

/// The segment rates at the worst point: segment `i` holds
/// `min(i + 1, k)·g` items over its blocks.
fn segment_rates(f: &Apbbf) -> Vec<f64> {
    let (k, l) = (f.k() as usize, f.l() as usize);
    (0..k + l)
        .map(|i| {
            let items = ((i + 1).min(k) as u64 * f.generation()) as f64;
            blocked_fp(
                items / f.blocks() as f64,
                f.block_bits(),
                f.bits_per_block(),
            )
        })
        .collect()
}

/// The rate at the worst point against `F` with the blocked segment rates
/// at the filter's real loads. Runs are the samples.
fn steady_fp(ctx: &Ctx, shape: Shape, salt: u64) -> Outcome {
    let blocks = ctx.pick(400, 2_000);
    let queries = ctx.pick(200_000, 1_000_000);
    let points = ctx.pick(4, 8);
    let f = make(shape, blocks);
    let (g, n) = (f.generation(), u64::from(f.k() + f.l()));
    let seeds = ctx.seeds(salt, ctx.pick(12, 32));
    let runs = run_seeds(&seeds, threads(), |seed| {
        let mut f = make(shape, blocks);
        let hasher = KeyedSipHasher::with_seed(seed);
        let mut fresh = Fresh::new(seed);
        let rates = at_worst_points(&mut f, (g, n), &hasher, points, |f, _| {
            fresh.rate(queries, |d| f.contains(d))
        });
        rates.iter().sum::<f64>() / rates.len() as f64
    });
    let (k, l, bb, b) = shape;
    let table3 = false_positive(
        k as usize,
        &ddf_theory::apbf::apbbf_segment_rates(k as usize, l as usize, bb, b),
    );
    Outcome::runs(false_positive(k as usize, &segment_rates(&f)), &runs).note(format!(
        "k = {k}, l = {l}, B = {bb}, b = {b}, {blocks} blocks, g = {g}; Table 3 {table3:.7}"
    ))
}

/// Blocks read by queries that return false against the A recursion.
fn accesses_false(ctx: &Ctx) -> Outcome {
    let shape = (3, 5, 512, 4);
    let blocks = ctx.pick(400, 2_000);
    let queries = ctx.pick(50_000, 200_000);
    let f = make(shape, blocks);
    let (g, n) = (f.generation(), u64::from(f.k() + f.l()));
    let seeds = ctx.seeds(84, ctx.pick(12, 32));
    let runs = run_seeds(&seeds, threads(), |seed| {
        let mut f = make(shape, blocks);
        let hasher = KeyedSipHasher::with_seed(seed);
        let mut fresh = Fresh::new(seed);
        let means = at_worst_points(&mut f, (g, n), &hasher, 4, |f, _| {
            mean_false_accesses(&mut fresh, queries, |d| f.query_accesses(d))
        });
        means.iter().sum::<f64>() / means.len() as f64
    });
    Outcome::runs(query_cost(3, &segment_rates(&f)).accesses_false, &runs).note(format!(
        "k = 3, l = 5, B = 512, b = 4, {blocks} blocks; Table 3 prints 2.26"
    ))
}

fn no_fn(ctx: &Ctx) -> Outcome {
    let f = make((3, 5, 512, 4), 100);
    let w = 5 * f.generation();
    no_false_negatives(
        ctx,
        85,
        Window::Count(w),
        1 << 15,
        ctx.pick(300_000, 3_000_000),
        |_| make((3, 5, 512, 4), 100),
    )
}

/// Poisson arrivals at half the capacity per generation period.
fn no_fn_timed(ctx: &Ctx) -> Outcome {
    let g = make((2, 5, 64, 4), 400).generation();
    let span = 50_000u64;
    let period = span / 5;
    let mean_gap = 2.0 * period as f64 / g as f64;
    no_false_negatives_timed(
        ctx,
        86,
        span,
        mean_gap,
        1 << 14,
        ctx.pick(300_000, 3_000_000),
        |_| Apbbf::with_time_span(span, 2, 5, 400, 64, 4).expect("span ≥ 1"),
    )
}
