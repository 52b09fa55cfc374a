//! Helpers shared by the checks: seeded runs over uniform and all-distinct
//! streams, the no-false-negative check, fresh and inserted digests.

use crate::Ctx;
use crate::outcome::Outcome;
use ddf_core::{Digest, DuplicateFilter, TimedFilter, Window};
use ddf_hash::{KeyedSipHasher, digest};
use ddf_sim::{
    Arrivals, Distinct, EvalConfig, Report, Uniform, evaluate, evaluate_timed, run_seeds, threads,
};

/// Runs a filter from `make` over uniform streams labelled for `window`
/// (count or unbounded) and expects no false negatives among a
/// non-trivial number of duplicates: an exact check.
pub(crate) fn no_false_negatives<F: DuplicateFilter>(
    ctx: &Ctx,
    salt: u64,
    window: Window,
    alphabet: u64,
    items: u64,
    make: impl Fn(u64) -> F + Sync,
) -> Outcome {
    on_uniform_streams(ctx, salt, alphabet, |seed, src, hasher| {
        evaluate(
            &mut make(seed),
            src,
            hasher,
            &EvalConfig::new(window, items),
        )
    })
}

/// As [`no_false_negatives`] with Poisson arrivals of mean gap `mean_gap`
/// and a time window of `span`.
pub(crate) fn no_false_negatives_timed<F: TimedFilter>(
    ctx: &Ctx,
    salt: u64,
    span: u64,
    mean_gap: f64,
    alphabet: u64,
    items: u64,
    make: impl Fn(u64) -> F + Sync,
) -> Outcome {
    on_uniform_streams(ctx, salt, alphabet, |seed, src, hasher| {
        let mut arrivals = Arrivals::poisson(mean_gap, seed ^ 0xa5).expect("gap > 0");
        let cfg = EvalConfig::new(Window::Time(span), items);
        evaluate_timed(&mut make(seed), src, hasher, &mut arrivals, &cfg)
    })
}

/// Runs `eval` on two seeded uniform streams and expects no false negatives.
fn on_uniform_streams(
    ctx: &Ctx,
    salt: u64,
    alphabet: u64,
    eval: impl Fn(u64, &mut Uniform, &KeyedSipHasher) -> Report + Sync,
) -> Outcome {
    let seeds = ctx.seeds(salt, 2);
    let reports = run_seeds(&seeds, threads(), |seed| {
        let mut src = Uniform::new(alphabet, seed).expect("U ≥ 1");
        eval(seed, &mut src, &KeyedSipHasher::with_seed(seed))
    });
    zero_false_negatives(&Report::merged(&reports))
}

fn zero_false_negatives(total: &Report) -> Outcome {
    let mut out = Outcome::exact(0.0, total.false_negatives as f64).note(format!(
        "{} items, {} duplicates in the window, {} FN, {} FP",
        total.items, total.duplicates, total.false_negatives, total.false_positives
    ));
    // A stream without duplicates in the window would make the check vacuous.
    if total.duplicates < 1000 {
        out.pass = false;
        out.rule = "exact, on a stream with at least 1000 duplicates in the window".into();
    }
    out
}

/// Digests of items never inserted: ids from `2^63` up, hashed with the run's key.
pub(crate) struct Fresh {
    hasher: KeyedSipHasher,
    next: u64,
}

impl Fresh {
    pub(crate) fn new(seed: u64) -> Fresh {
        Fresh {
            hasher: KeyedSipHasher::with_seed(seed),
            next: 1 << 63,
        }
    }

    pub(crate) fn next_digest(&mut self) -> Digest {
        self.next += 1;
        digest(&self.hasher, &self.next)
    }

    /// The fraction of `n` fresh digests for which `hit` holds.
    pub(crate) fn rate(&mut self, n: u64, mut hit: impl FnMut(Digest) -> bool) -> f64 {
        let hits = (0..n).filter(|_| hit(self.next_digest())).count();
        hits as f64 / n as f64
    }
}

/// Digests of inserted items: ids `0, 1, 2, …` hashed with the run's key.
pub(crate) fn item(hasher: &KeyedSipHasher, id: u64) -> Digest {
    digest(hasher, &id)
}

/// One run of `filter` over a uniform stream of `alphabet` items, hashed
/// with a key derived from `seed`: the papers' artificial streams.
pub(crate) fn uniform_run<F: DuplicateFilter + ?Sized>(
    filter: &mut F,
    alphabet: u64,
    seed: u64,
    cfg: &EvalConfig,
) -> Report {
    let mut src = Uniform::new(alphabet, seed).expect("alphabets in checks are at least 1");
    evaluate(filter, &mut src, &KeyedSipHasher::with_seed(seed), cfg)
}

/// One run of `filter` over an all-distinct stream (every item unseen, so
/// every DUPLICATE is a false positive), hashed with a key derived from `seed`.
pub(crate) fn distinct_run<F: DuplicateFilter + ?Sized>(
    filter: &mut F,
    seed: u64,
    cfg: &EvalConfig,
) -> Report {
    evaluate(
        filter,
        &mut Distinct::new(seed << 20),
        &KeyedSipHasher::with_seed(seed),
        cfg,
    )
}
