//! Checks of `ddf::Shared` and `plan_sharded`: a count window split over `S`
//! shards keeps the user's promise with the probability
//! `ddf_theory::sharding` computes.

use crate::checks::common::no_false_negatives;
use crate::checks::distinct_run;
use crate::outcome::Outcome;
use crate::{Check, Ctx};
use ddf::theory::sharding::{shard_window, shard_window_miss_bound, shard_window_miss_lower};
use ddf::{
    Candidate, DEFAULT_SHARDS, Digest, DuplicateFilter, ExactWindow, Filter, KeyedSipHasher,
    PlanError, Requirements, ShardedPlan, Shared, Verdict, Window, plan_sharded,
};
use ddf_sim::{EvalConfig, Report};

const SHARDING: &str = "ddf::Shared sizing (ddf_theory::sharding: Binomial share, union bound)";

pub(crate) fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "shared/count-window-miss-at-most-union-bound",
            paper: SHARDING,
            run: |ctx| {
                let (misses, trials, m) = window_misses(ctx);
                Outcome::binomial_at_most(m.bound, misses, trials).note(m.note(misses, trials))
            },
        },
        Check {
            id: "shared/count-window-miss-at-least-independent-bound",
            paper: SHARDING,
            run: |ctx| {
                let (misses, trials, m) = window_misses(ctx);
                Outcome::binomial_at_least(m.lower, misses, trials).note(m.note(misses, trials))
            },
        },
        Check {
            id: "shared/planned-fpr",
            paper: SHARDING,
            run: planned_fpr,
        },
        Check {
            id: "shared/planned-no-fn-merged-window",
            paper: SHARDING,
            run: planned_no_fn,
        },
        Check {
            id: "shared/default-shards-planned-fpr",
            paper: SHARDING,
            run: default_fpr,
        },
        Check {
            id: "shared/default-shards-no-fn-merged-window",
            paper: SHARDING,
            run: default_no_fn,
        },
        Check {
            id: "shared/merged-slack-within-limit",
            paper: SHARDING,
            run: |_| merged_slack_within_limit(),
        },
    ]
}

/// `plan_sharded` over a grid of count windows, shard counts, slack limits
/// and `δ`: a plan's every candidate has a merged slack within the limit,
/// and a refusal names an excess above the limit and a shard count whose
/// plan meets it. The count of violations must be 0.
fn merged_slack_within_limit() -> Outcome {
    let (mut plans, mut refused, mut violations) = (0u64, 0u64, Vec::new());
    let within =
        |p: &ShardedPlan, limit: u64| p.candidates.iter().all(|c| p.merged_slack(c) <= limit);
    for w in [1u64 << 10, 1 << 14, 1 << 16, 1 << 20] {
        for shards in [2usize, 16, DEFAULT_SHARDS, 4096] {
            for limit in [w / 100, w / 4, w] {
                for delta in [1e-6, 1e-12] {
                    let req = Requirements::count(w).fpr(0.01).max_slack(limit);
                    let case = format!("w {w}, {shards} shards, slack {limit}, δ {delta:e}");
                    match plan_sharded(&req, shards, delta) {
                        Ok(p) if within(&p, limit) => plans += 1,
                        Ok(_) => violations.push(case),
                        Err(PlanError::TooManyShards { excess, fits, .. }) => {
                            refused += 1;
                            let fits_plan = plan_sharded(&req, fits, delta);
                            let ok = excess > limit
                                && fits < shards
                                && match &fits_plan {
                                    Ok(p) => within(p, limit),
                                    Err(e) => matches!(e, PlanError::NoCandidate(_)),
                                };
                            if !ok {
                                violations.push(format!("{case}: refused, {fits} shards fail"));
                            }
                        }
                        Err(e) => violations.push(format!("{case}: {e}")),
                    }
                }
            }
        }
    }
    Outcome::exact(0.0, violations.len() as f64).note(format!(
        "{plans} plans within their limit, {refused} refused naming a shard count that fits; \
         violations: {violations:?}"
    ))
}

/// The window of the default-shard checks: 2^16, so each of the
/// [`DEFAULT_SHARDS`] shards holds about 256 items.
const DEFAULT_WINDOW: u64 = 1 << 16;

/// A count window of 2^16 at 1 % over [`DEFAULT_SHARDS`] shards, `δ` and
/// the slack limit as given (the binomial excess `S·w_s − w` of 256 shards
/// is 38 % of this window at `δ` = 10⁻⁶ and 52 % at 10⁻¹², and
/// `plan_sharded` refuses a limit below it).
fn default_plan(delta: f64, max_slack: u64) -> Result<(ShardedPlan, Candidate), String> {
    let req = Requirements::count(DEFAULT_WINDOW)
        .fpr(0.01)
        .max_slack(max_slack);
    let plan = plan_sharded(&req, DEFAULT_SHARDS, delta).map_err(|e| e.to_string())?;
    let best = plan
        .candidates
        .first()
        .cloned()
        .ok_or("plan_sharded found no candidate")?;
    Ok((plan, best))
}

/// [`planned_fpr`] at the default shard count.
fn default_fpr(ctx: &Ctx) -> Outcome {
    let (plan, best) = match default_plan(1e-6, DEFAULT_WINDOW / 2) {
        Ok(p) => p,
        Err(e) => return Outcome::exact(0.0, 1.0).note(e),
    };
    let warmup = 2 * (plan.merged_slack(&best) + DEFAULT_WINDOW);
    let counted = ctx.pick(100_000, 1_000_000);
    let reports: Vec<Report> = ctx.per_seed(1104, 4, 8, |seed| {
        let cfg = EvalConfig::new(Window::Count(DEFAULT_WINDOW), warmup + counted).warmup(warmup);
        distinct_run(&mut build(&plan, &best, seed), seed, &cfg)
    });
    let total = Report::merged(&reports);
    Outcome::binomial_at_most(best.fpr, total.false_positives, total.unseen).note(format!(
        "{DEFAULT_SHARDS} shards of {best}; shard window {:?}",
        plan.shard_span
    ))
}

/// [`planned_no_fn`] at the default shard count (`δ = 10⁻¹²`, so any miss
/// fails the check).
fn default_no_fn(ctx: &Ctx) -> Outcome {
    let (plan, best) = match default_plan(1e-12, DEFAULT_WINDOW) {
        Ok(p) => p,
        Err(e) => return Outcome::exact(0.0, 1.0).note(e),
    };
    let items = ctx.pick(300_000, 3_000_000);
    let out = no_false_negatives(
        ctx,
        1105,
        Window::Count(DEFAULT_WINDOW),
        2 * DEFAULT_WINDOW,
        items,
        |seed| build(&plan, &best, seed),
    );
    let note = format!(
        "{}; {DEFAULT_SHARDS} shards of {best}; shard window {:?}",
        out.note, plan.shard_span
    );
    out.note(note)
}

/// The window-miss experiment's parameters: `w`, `S`, `δ`, the planned
/// `w_s`, and the two bounds on the miss probability at `w_s`.
struct MissSetup {
    window: u64,
    shards: u64,
    delta: f64,
    shard_window: u64,
    bound: f64,
    lower: f64,
}

impl MissSetup {
    fn note(&self, misses: u64, trials: u64) -> String {
        format!(
            "w = {}, S = {}, δ = {}: w_s = {}; {misses}/{trials} moments with an item of the \
             last w outside its shard's window; bracket [{:.4}, {:.4}]",
            self.window, self.shards, self.delta, self.shard_window, self.lower, self.bound
        )
    }
}

/// Trials of: `w` distinct items into `S` exact shards of window `w_s`
/// (each trial under its own hash key, so shard choices are independent
/// across trials), then whether any of the `w` is forgotten. With exact
/// shards that happens exactly when some shard received more than `w_s`:
/// the event `δ` bounds. `δ` is large (0.2) so the rate is measurable and
/// both sides of the bracket `1 − (1 − q)^S ≤ P ≤ S·q` are tested.
fn window_misses(ctx: &Ctx) -> (u64, u64, MissSetup) {
    let (window, shards, delta) = (2_000u64, 8u64, 0.2);
    let ws = shard_window(window, shards, delta).expect("valid sharding parameters");
    let setup = MissSetup {
        window,
        shards,
        delta,
        shard_window: ws,
        bound: shard_window_miss_bound(window, shards, ws),
        lower: shard_window_miss_lower(window, shards, ws),
    };
    let per_seed = ctx.pick(500, 5_000);
    let counts = ctx.per_seed(1101, 4, 8, |seed| {
        (0..per_seed)
            .filter(|&trial| {
                let key = seed ^ ddf_hash::mix64(trial);
                let shared =
                    Shared::with_seed(shards as usize, key, |_| ExactWindow::<Digest>::new(ws))
                        .expect("valid shards");
                for id in 0..window {
                    shared.insert(&id);
                }
                (0..window).any(|id| !shared.contains(&id))
            })
            .count() as u64
    });
    let trials = per_seed * counts.len() as u64;
    (counts.iter().sum(), trials, setup)
}

/// A count window of 20,000 at 1% over 4 shards, `δ` as given, slack up to
/// 2,000 (the binomial excess of 4 shards is 1,240 at `δ` = 10⁻⁶, 1,790 at
/// 10⁻¹²).
fn sharded_plan(delta: f64) -> Result<(ShardedPlan, Candidate), String> {
    let req = Requirements::count(20_000).fpr(0.01).max_slack(2_000);
    let plan = plan_sharded(&req, 4, delta).map_err(|e| e.to_string())?;
    let best = plan
        .candidates
        .first()
        .cloned()
        .ok_or("plan_sharded found no candidate")?;
    Ok((plan, best))
}

/// The sharded whole from one thread, as a filter over digests.
struct Whole(Shared<Filter>);

impl DuplicateFilter for Whole {
    fn contains(&self, digest: Digest) -> bool {
        self.0.contains_digest(digest)
    }
    fn insert(&mut self, digest: Digest) {
        self.0.insert_digest(digest);
    }
    fn observe(&mut self, digest: Digest) -> Verdict {
        self.0.observe_digest(digest)
    }
    fn memory_bits(&self) -> u64 {
        self.0.memory_bits()
    }
    fn clear(&mut self) {
        self.0.clear();
    }
}

fn build(plan: &ShardedPlan, best: &Candidate, seed: u64) -> Whole {
    Whole(
        plan.build_with_hasher(best, KeyedSipHasher::with_seed(seed ^ 0x5a4d))
            .expect("planned candidates build"),
    )
}

/// Unseen items are reported at most at the per-shard predicted rate: an
/// unseen item meets one shard, sized as planned.
fn planned_fpr(ctx: &Ctx) -> Outcome {
    let (plan, best) = match sharded_plan(1e-6) {
        Ok(p) => p,
        Err(e) => return Outcome::exact(0.0, 1.0).note(e),
    };
    // Past the horizon every shard is in its steady state.
    let warmup = 2 * (plan.merged_slack(&best) + 20_000);
    let counted = ctx.pick(100_000, 1_000_000);
    let reports: Vec<Report> = ctx.per_seed(1102, 4, 8, |seed| {
        let cfg = EvalConfig::new(Window::Count(20_000), warmup + counted).warmup(warmup);
        distinct_run(&mut build(&plan, &best, seed), seed, &cfg)
    });
    let total = Report::merged(&reports);
    Outcome::binomial_at_most(best.fpr, total.false_positives, total.unseen).note(format!(
        "4 shards of {best}; shard window {:?}",
        plan.shard_span
    ))
}

/// No repeat within the last `w` merged items is missed. With
/// `δ = 10⁻¹²` a single miss anywhere in the run has probability below
/// (duplicates)·δ/S ≈ 10⁻⁷, so any miss fails the check.
fn planned_no_fn(ctx: &Ctx) -> Outcome {
    let (plan, best) = match sharded_plan(1e-12) {
        Ok(p) => p,
        Err(e) => return Outcome::exact(0.0, 1.0).note(e),
    };
    let items = ctx.pick(300_000, 3_000_000);
    let out = no_false_negatives(ctx, 1103, Window::Count(20_000), 40_000, items, |seed| {
        build(&plan, &best, seed)
    });
    let note = format!(
        "{}; 4 shards of {best}; shard window {:?}",
        out.note, plan.shard_span
    );
    out.note(note)
}
