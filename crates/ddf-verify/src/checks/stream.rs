//! Checks of the simulation harness itself: its streams have the duplicate
//! statistics the closed forms predict.

use crate::outcome::Outcome;
use crate::{Check, Ctx};
use ddf_exact::ExactWindow;
use ddf_sim::{Source, Uniform, Zipf, run_seeds, threads};
use ddf_theory::stream::{expected_duplicate_fraction, expected_windowed_duplicate_fraction};

pub(crate) fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "stream/duplicate-fraction-unbounded",
            paper: "uniform stream, 1 - U(1-(1-1/U)^n)/n",
            run: duplicate_fraction_unbounded,
        },
        Check {
            id: "stream/duplicate-fraction-windowed",
            paper: "uniform stream, windowed duplicate probability",
            run: duplicate_fraction_windowed,
        },
        Check {
            id: "stream/zipf-rank1-frequency",
            paper: "Zipf law, P(rank 1) = 1/H(U,s)",
            run: zipf_rank1,
        },
    ]
}

/// The fraction of duplicates (for `window`, `None` = unbounded) in one
/// uniform stream per seed, as the ground truth labels it.
fn fractions(ctx: &Ctx, salt: u64, alphabet: u64, n: u64, window: Option<u64>) -> Vec<f64> {
    let seeds = ctx.seeds(salt, ctx.pick(12, 32));
    run_seeds(&seeds, threads(), |seed| {
        let mut src = Uniform::new(alphabet, seed).expect("U ≥ 1");
        let mut truth = match window {
            Some(w) => ExactWindow::<u64>::new(w).expect("w ≥ 1"),
            None => ExactWindow::unbounded(),
        };
        let mut dups = 0u64;
        for _ in 0..n {
            let id = src.next_id().expect("uniform streams are endless");
            dups += u64::from(truth.observe_key(id).is_duplicate());
        }
        dups as f64 / n as f64
    })
}

// The items of one stream are dependent (each duplicate depends on all
// earlier items), so the tolerance comes from the spread across runs.

fn duplicate_fraction_unbounded(ctx: &Ctx) -> Outcome {
    let (u, n) = (1u64 << 18, ctx.pick(200_000, 1_000_000));
    let runs = fractions(ctx, 11, u, n, None);
    Outcome::runs(expected_duplicate_fraction(n as f64, u as f64), &runs)
        .note(format!("U = 2^18, n = {n}"))
}

fn duplicate_fraction_windowed(ctx: &Ctx) -> Outcome {
    let (u, n, w) = (1u64 << 18, ctx.pick(200_000, 1_000_000), 20_000u64);
    let runs = fractions(ctx, 12, u, n, Some(w));
    Outcome::runs(
        expected_windowed_duplicate_fraction(n as f64, u as f64, w as f64),
        &runs,
    )
    .note(format!("U = 2^18, n = {n}, w = {w}"))
}

/// Zipf draws are independent, so the count of rank 1 is binomial.
fn zipf_rank1(ctx: &Ctx) -> Outcome {
    let (u, s, n) = (1_000_000u64, 1.1f64, ctx.pick(1_000_000u64, 20_000_000));
    let mut src = Zipf::new(u, s, ctx.seeds(13, 1)[0]).expect("valid Zipf");
    let hits = (0..n).filter(|_| src.next_id() == Some(0)).count() as u64;
    // H(U, s) = Σ r^-s, summed from the small terms up for accuracy.
    let harmonic: f64 = (1..=u).rev().map(|r| (r as f64).powf(-s)).sum();
    Outcome::binomial(1.0 / harmonic, hits, n).note(format!("U = 10^6, s = {s}, n = {n}"))
}
