//! Checks of the Stable Bloom filter against its stable point, and of the
//! lookup the QHT authors' benchmark code performs.

use super::common::{Fresh, item};
use crate::outcome::Outcome;
use crate::{Check, Ctx};
use ddf_bloom::StableBloom;
use ddf_core::DuplicateFilter;
use ddf_hash::KeyedSipHasher;
use ddf_sim::{run_seeds, threads};
use ddf_theory::stable_bloom::{any_probe_rate, stable_fp, stable_zero_fraction};

const STABLE: &str = "Deng-Rafiei stable point, QHT paper §4.1 fn. 12";

pub(crate) fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "sbf/stable-point-fpr",
            paper: STABLE,
            run: stable_point_fpr,
        },
        Check {
            id: "sbf/stable-zero-fraction",
            paper: STABLE,
            run: zero_fraction,
        },
        Check {
            id: "sbf/any-probe-reading",
            paper: "QHT paper §6 Table 4 SBF FPR and fn. 19 (benchmark lookup)",
            run: any_probe_reading,
        },
    ]
}

/// Per run, after the filter has reached its stable point on a stream of
/// distinct items: (FP rate, zero-cell fraction, any-probe rate), each the
/// mean over `points` measurement points `m/(P+K)` insertions apart.
fn stable_runs(
    ctx: &Ctx,
    salt: u64,
    make: impl Fn() -> StableBloom + Sync,
    queries: u64,
) -> Vec<[f64; 3]> {
    let seeds = ctx.seeds(salt, ctx.pick(16, 40));
    let points = ctx.pick(8, 20);
    run_seeds(&seeds, threads(), |seed| {
        let mut f = make().with_seed(seed);
        let hasher = KeyedSipHasher::with_seed(seed);
        let m = f.cells();
        // A cell forgets its past after about m/(P + K) insertions.
        let relax = m / (f.decrements() + u64::from(f.probes()));
        let mut id = 0u64;
        let mut insert = |f: &mut StableBloom, n: u64| {
            for _ in 0..n {
                f.insert(item(&hasher, id));
                id += 1;
            }
        };
        insert(&mut f, 40 * relax);
        let mut fresh = Fresh::new(seed);
        let mut sums = [0.0; 3];
        for _ in 0..points {
            insert(&mut f, relax);
            sums[0] += fresh.rate(queries, |d| f.contains(d));
            sums[1] += f.zero_cells() as f64 / m as f64;
            sums[2] += fresh.rate(queries, |d| f.live_probes(d) > 0);
        }
        sums.map(|s| s / points as f64)
    })
}

/// 10^5 bits, 2-bit cells, 2 probes, 2 %: the QHT paper's SBF at its second size.
fn small() -> StableBloom {
    StableBloom::with_memory(100_000, 2, 2, 0.02).expect("valid parameters")
}

fn params(f: &StableBloom) -> (f64, f64, f64, f64) {
    let max = f64::from((1u32 << f.cell_bits()) - 1);
    (
        f.cells() as f64,
        f64::from(f.probes()),
        f.decrements() as f64,
        max,
    )
}

/// The rate depends on the filter's realised state, so runs are the samples.
fn stable_point_fpr(ctx: &Ctx) -> Outcome {
    let queries = ctx.pick(50_000, 200_000);
    let runs: Vec<f64> = stable_runs(ctx, 31, small, queries)
        .iter()
        .map(|r| r[0])
        .collect();
    let f = small();
    let (m, k, p, max) = params(&f);
    Outcome::runs(stable_fp(m, k, p, max), &runs).note(format!(
        "m = {m}, d = 2, K = 2, P = {p} (target 0.02), {queries} fresh queries per point"
    ))
}

fn zero_fraction(ctx: &Ctx) -> Outcome {
    let runs: Vec<f64> = stable_runs(ctx, 32, small, 1)
        .iter()
        .map(|r| r[1])
        .collect();
    let f = small();
    let (m, k, p, max) = params(&f);
    Outcome::runs(stable_zero_fraction(m, k, p, max), &runs)
        .note(format!("m = {m}, d = 2, K = 2, P = {p}"))
}

/// The QHT benchmark's SBF (10^6 bits, P = ⌊38.36⌋ = 38) read with its own
/// lookup, "any probed cell non-zero": the stable-point rate of that lookup
/// is `1 − P0^K`, about 26.5 %, which is what the QHT paper reports for SBF
/// (25.0–26.5 % in Table 4, "around 28 %" in footnote 19) against its 2 %
/// target. The SBF's own lookup gives `(1 − P0)^K` ≈ 2 %.
fn any_probe_reading(ctx: &Ctx) -> Outcome {
    let queries = ctx.pick(20_000, 100_000);
    let make = || StableBloom::new(500_000, 2, 2, 38).expect("valid parameters");
    let runs: Vec<f64> = stable_runs(ctx, 33, make, queries)
        .iter()
        .map(|r| r[2])
        .collect();
    let (m, k, p, max) = params(&make());
    Outcome::runs(any_probe_rate(m, k, p, max), &runs).note(format!(
        "m = {m}, d = 2, K = 2, P = 38; QHT Table 4 SBF FPR 26.43-26.50 % (artificial streams); \
         all-probe stable rate {:.4}",
        stable_fp(m, k, p, max)
    ))
}
