//! Checks of the planner: its first choice for several requirement sets, built and simulated, meets the requirements.

use crate::checks::common::{no_false_negatives, no_false_negatives_timed};
use crate::checks::distinct_run;
use crate::outcome::Outcome;
use crate::{Check, Ctx};
use ddf::{Candidate, Config, DuplicateFilter, Requirements, Span, Window, plan};
use ddf_hash::KeyedSipHasher;
use ddf_sim::{Arrivals, Distinct, EvalConfig, Report, Uniform, evaluate, evaluate_timed};

const PLANNER: &str = "planner (ddf::plan) against its own predictions";

pub(crate) fn checks() -> Vec<Check> {
    let mut checks = vec![
        Check {
            id: "plan/count-no-fn-fpr",
            paper: PLANNER,
            run: |ctx| fpr_at_most_target(ctx, &count_no_fn(ctx), 901),
        },
        Check {
            id: "plan/count-no-fn-misses",
            paper: PLANNER,
            run: |ctx| misses(ctx, &count_no_fn(ctx), 902),
        },
        Check {
            id: "plan/count-tight-memory-fpr",
            paper: PLANNER,
            run: |ctx| fpr_at_most_target(ctx, &count_tight(ctx), 903),
        },
        Check {
            id: "plan/count-tight-memory-fnr",
            paper: PLANNER,
            run: |ctx| misses(ctx, &count_tight(ctx), 904),
        },
        Check {
            id: "plan/count-tight-memory-budget",
            paper: PLANNER,
            run: |ctx| within_budget(&count_tight(ctx)),
        },
        Check {
            id: "plan/time-window-fpr",
            paper: PLANNER,
            run: |ctx| fpr_at_most_target(ctx, &time_window(ctx), 905),
        },
        Check {
            id: "plan/time-window-misses",
            paper: PLANNER,
            run: |ctx| misses(ctx, &time_window(ctx), 906),
        },
        Check {
            id: "plan/unbounded-budget-fpr",
            paper: PLANNER,
            run: |ctx| fpr_at_most_target(ctx, &unbounded_budget(ctx), 907),
        },
        Check {
            id: "plan/unbounded-budget-fnr",
            paper: PLANNER,
            run: |ctx| misses(ctx, &unbounded_budget(ctx), 908),
        },
        Check {
            id: "plan/unbounded-budget-memory",
            paper: PLANNER,
            run: |ctx| within_budget(&unbounded_budget(ctx)),
        },
        Check {
            id: "plan/queued-qht-fpr",
            paper: PLANNER,
            run: |ctx| fpr_as_predicted(ctx, &queued_qht(), 909),
        },
        Check {
            id: "plan/queued-qht-fnr",
            paper: PLANNER,
            run: |ctx| misses(ctx, &queued_qht(), 910),
        },
        Check {
            id: "plan/queued-qht-budget",
            paper: PLANNER,
            run: |_| within_budget(&queued_qht()),
        },
        Check {
            id: "plan/apbbf-count-fpr",
            paper: PLANNER,
            run: |ctx| fpr_at_most_target(ctx, &apbbf_count(ctx), 911),
        },
        Check {
            id: "plan/apbbf-count-misses",
            paper: PLANNER,
            run: |ctx| misses(ctx, &apbbf_count(ctx), 912),
        },
        Check {
            id: "plan/apbbf-time-fpr",
            paper: PLANNER,
            run: |ctx| fpr_at_most_target(ctx, &apbbf_time(ctx), 913),
        },
        Check {
            id: "plan/apbbf-time-misses",
            paper: PLANNER,
            run: |ctx| misses(ctx, &apbbf_time(ctx), 914),
        },
        Check {
            id: "plan/cost-rule",
            paper: PLANNER,
            run: |_| cost_rule(),
        },
    ];
    // The filters that forget, planned at saturation (no distinct_items):
    // each family's saturated FPR and worst-case FNR, measured.
    checks.extend([
        Check {
            id: "plan/saturated-qht-fpr",
            paper: PLANNER,
            run: |ctx| saturated(ctx, "QHT", 940, Rate::Fpr),
        },
        Check {
            id: "plan/saturated-qht-fnr",
            paper: PLANNER,
            run: |ctx| saturated(ctx, "QHT", 941, Rate::Fnr),
        },
        Check {
            id: "plan/saturated-qhtd-fpr",
            paper: PLANNER,
            run: |ctx| saturated(ctx, "QHTD", 942, Rate::Fpr),
        },
        Check {
            id: "plan/saturated-qhtd-fnr",
            paper: PLANNER,
            run: |ctx| saturated(ctx, "QHTD", 943, Rate::Fnr),
        },
        Check {
            id: "plan/saturated-qqhtd-fpr",
            paper: PLANNER,
            run: |ctx| saturated(ctx, "QQHTD", 944, Rate::Fpr),
        },
        Check {
            id: "plan/saturated-qqhtd-fnr",
            paper: PLANNER,
            run: |ctx| saturated(ctx, "QQHTD", 945, Rate::Fnr),
        },
        Check {
            id: "plan/saturated-sqf-fpr",
            paper: PLANNER,
            run: |ctx| saturated(ctx, "SQF", 946, Rate::Fpr),
        },
        Check {
            id: "plan/saturated-sqf-fnr",
            paper: PLANNER,
            run: |ctx| saturated(ctx, "SQF", 947, Rate::Fnr),
        },
        Check {
            id: "plan/saturated-cuckoo-fpr",
            paper: PLANNER,
            run: |ctx| saturated(ctx, "streaming cuckoo", 948, Rate::Fpr),
        },
        Check {
            id: "plan/saturated-cuckoo-fnr",
            paper: PLANNER,
            run: |ctx| saturated(ctx, "streaming cuckoo", 949, Rate::Fnr),
        },
        Check {
            id: "plan/saturated-stable-bloom-fpr",
            paper: PLANNER,
            run: |ctx| saturated(ctx, "Stable Bloom", 950, Rate::Fpr),
        },
        Check {
            id: "plan/saturated-stable-bloom-fnr",
            paper: PLANNER,
            run: |ctx| saturated(ctx, "Stable Bloom", 951, Rate::Fnr),
        },
        Check {
            id: "plan/saturated-a2-fpr",
            paper: PLANNER,
            run: |ctx| saturated(ctx, "A2", 952, Rate::Fpr),
        },
        Check {
            id: "plan/saturated-a2-fnr",
            paper: PLANNER,
            run: |ctx| saturated(ctx, "A2", 953, Rate::Fnr),
        },
    ]);
    checks
}

/// A requirement set, the stream that exercises it, and the planner's
/// first choice.
struct Case {
    req: Requirements,
    /// Distinct items of the uniform streams (as given to the planner).
    alphabet: u64,
    /// Target rate, or the first choice's own prediction without one.
    target: Option<f64>,
    budget: Option<u64>,
    first: Result<Candidate, String>,
}

impl Case {
    fn new(req: Requirements, alphabet: u64, target: Option<f64>, budget: Option<u64>) -> Case {
        Case::choosing(req, alphabet, target, budget, |_| true)
    }

    /// The case with the planner's first choice among the candidates
    /// `wanted` accepts.
    fn choosing(
        req: Requirements,
        alphabet: u64,
        target: Option<f64>,
        budget: Option<u64>,
        wanted: impl Fn(&Candidate) -> bool,
    ) -> Case {
        let first = match plan(&req) {
            Ok(list) => list
                .into_iter()
                .find(|c| wanted(c))
                .ok_or_else(|| "the planner offered no such candidate".to_string()),
            Err(e) => Err(e.to_string()),
        };
        Case {
            req,
            alphabet,
            target,
            budget,
            first,
        }
    }

    /// Items in the window plus slack: the warm-up before the filter is
    /// at its steady state (for time windows, in expected arrivals).
    fn horizon(&self, c: &Candidate) -> u64 {
        match self.req.span() {
            Span::Count(w) => w + c.slack,
            Span::Time { span, rate } => ((span + c.slack) as f64 * rate).ceil() as u64,
            Span::Unbounded => 4 * self.alphabet,
        }
    }
}

/// The last `w` items, at most 1% false positives, no misses, the default
/// slack (1 % of the window).
fn count_no_fn(ctx: &Ctx) -> Case {
    let w = ctx.pick(20_000, 500_000);
    Case::new(Requirements::count(w).fpr(0.01), 2 * w, Some(0.01), None)
}

/// The last `w` items in 6 bits per item, misses allowed, over a uniform
/// stream of `2w` distinct items: the least predicted `FPR + FNR` wins.
fn count_tight(ctx: &Ctx) -> Case {
    let w = ctx.pick(10_000, 200_000);
    let budget = 6 * w;
    Case::new(
        Requirements::count(w)
            .memory_budget(budget)
            .allow_false_negatives(true)
            .distinct_items((2 * w) as f64),
        2 * w,
        None,
        Some(budget),
    )
}

/// The last `t` time units at one arrival per unit, at most 1% false
/// positives, no misses.
fn time_window(ctx: &Ctx) -> Case {
    let span = ctx.pick(10_000, 200_000);
    Case::new(
        Requirements::time(span, 1.0).fpr(0.01),
        2 * span,
        Some(0.01),
        None,
    )
}

/// The whole stream of `U` distinct items in 8 bits per item, misses allowed.
fn unbounded_budget(ctx: &Ctx) -> Case {
    let alphabet = ctx.pick(1u64 << 15, 1 << 20);
    let budget = 8 * alphabet;
    Case::new(
        Requirements::unbounded()
            .memory_budget(budget)
            .distinct_items(alphabet as f64)
            .allow_false_negatives(true),
        alphabet,
        None,
        Some(budget),
    )
}

/// The last 10^4 items in 8 bits per item with at most 1%
/// false positives, misses allowed, over a uniform stream of 2^15 items:
/// the queue of one-cell QHTs the planner offers.
fn queued_qht() -> Case {
    let (w, alphabet) = (10_000, 1 << 15);
    let budget = 8 * w;
    Case::choosing(
        Requirements::count(w)
            .fpr(0.01)
            .memory_budget(budget)
            .allow_false_negatives(true)
            .distinct_items(alphabet as f64),
        alphabet,
        Some(0.01),
        Some(budget),
        |c| matches!(c.config, Config::QueuedQht { .. }),
    )
}

/// The last `w` items, at most 1 % false positives, no misses, any slack:
/// the blocked APBF the planner offers (sized by `Apbbf::parameters_for`).
fn apbbf_count(ctx: &Ctx) -> Case {
    let w = ctx.pick(20_000, 500_000);
    Case::choosing(
        Requirements::count(w).fpr(0.01).max_slack(u64::MAX),
        2 * w,
        Some(0.01),
        None,
        |c| matches!(c.config, Config::Apbbf { .. }),
    )
}

/// The last `t` time units at one arrival per unit, at most 0.1 % false
/// positives, no misses, any slack: the blocked APBF in time mode.
fn apbbf_time(ctx: &Ctx) -> Case {
    let span = ctx.pick(10_000, 200_000);
    Case::choosing(
        Requirements::time(span, 1.0).fpr(0.001).max_slack(u64::MAX),
        2 * span,
        Some(0.001),
        None,
        |c| matches!(c.config, Config::Apbbf { .. }),
    )
}

/// The first choice's false-positive rate on distinct items after a
/// warm-up of window + slack, against its prediction (which is exact
/// there, not a bound): one rate per independent run, Student-t rule (a
/// run's items share the filter's state).
fn fpr_as_predicted(ctx: &Ctx, case: &Case, salt: u64) -> Outcome {
    let c = match &case.first {
        Ok(c) => c,
        Err(e) => return no_plan(e),
    };
    let warmup = case.horizon(c);
    let counted = ctx.pick(4, 16) * warmup;
    let fprs: Vec<f64> = ctx.per_seed(salt, 8, 16, |seed| {
        let mut f = c.build().expect("planned candidates build");
        let cfg = EvalConfig::new(window_of(case), warmup + counted).warmup(warmup);
        distinct_run(&mut f, seed, &cfg).fpr()
    });
    Outcome::runs(c.fpr, &fprs).note(format!("first choice {c}; {} runs", fprs.len()))
}

/// A failed outcome when the planner had no first choice.
fn no_plan(why: &str) -> Outcome {
    let mut out = Outcome::exact(1.0, 0.0).note(format!("no first choice: {why}"));
    out.pass = false;
    out
}

/// The false-positive rate of the first choice, measured over unseen
/// items after a warm-up of window + slack, against the target (or the
/// candidate's own prediction): the one-sided Clopper–Pearson rule. Each
/// item's false positive is independent given the filter's state, with
/// probability at most the worst-point rate the planner predicts.
fn fpr_at_most_target(ctx: &Ctx, case: &Case, salt: u64) -> Outcome {
    let c = match &case.first {
        Ok(c) => c,
        Err(e) => return no_plan(e),
    };
    let warmup = case.horizon(c);
    let counted = ctx.pick(2, 4) * warmup.max(50_000);
    let reports: Vec<Report> = ctx.per_seed(salt, 4, 8, |seed| {
        let cfg = EvalConfig::new(window_of(case), warmup + counted).warmup(warmup);
        match case.req.span() {
            Span::Time { rate, .. } => {
                let mut f = c.build().expect("planned candidates build");
                let mut arrivals = Arrivals::poisson(1.0 / rate, seed ^ 0x5a).expect("rate > 0");
                evaluate_timed(
                    &mut f,
                    &mut Distinct::new(seed << 20),
                    &KeyedSipHasher::with_seed(seed),
                    &mut arrivals,
                    &cfg,
                )
            }
            Span::Unbounded => {
                // Unseen items of a long uniform stream: the DDP's FPR.
                let mut f = c.build().expect("planned candidates build");
                let mut src = Uniform::new(case.alphabet, seed).expect("U ≥ 1");
                evaluate(&mut f, &mut src, &KeyedSipHasher::with_seed(seed), &cfg)
            }
            Span::Count(_) => {
                let mut f = c.build().expect("planned candidates build");
                distinct_run(&mut f, seed, &cfg)
            }
        }
    });
    let total = Report::merged(&reports);
    let bound = case.target.unwrap_or(c.fpr);
    Outcome::binomial_at_most(bound, total.false_positives, total.unseen).note(format!(
        "first choice {c}; predicted FPR {:.3e}; {} runs",
        c.fpr,
        reports.len()
    ))
}

/// Misses within the window: none for a candidate that promises none
/// (exact rule), else the per-run false-negative rates on the uniform
/// stream the prediction assumes (runs rule: one filter's misses depend on
/// its state, so runs are the independent samples).
fn misses(ctx: &Ctx, case: &Case, salt: u64) -> Outcome {
    let c = match &case.first {
        Ok(c) => c,
        Err(e) => return no_plan(e),
    };
    let warmup = case.horizon(c);
    let items = warmup + ctx.pick(4, 8) * warmup;
    let out = if !c.false_negatives {
        match case.req.span() {
            Span::Time { span, rate } => {
                no_false_negatives_timed(ctx, salt, span, 1.0 / rate, case.alphabet, items, |_| {
                    c.build().expect("planned candidates build")
                })
            }
            _ => no_false_negatives(ctx, salt, window_of(case), case.alphabet, items, |_| {
                c.build().expect("planned candidates build")
            }),
        }
    } else {
        let fnrs: Vec<f64> = ctx.per_seed(salt, 6, 12, |seed| {
            let mut f = c.build().expect("planned candidates build");
            let mut src = Uniform::new(case.alphabet, seed).expect("U ≥ 1");
            let cfg = EvalConfig::new(window_of(case), items).warmup(warmup);
            evaluate(&mut f, &mut src, &KeyedSipHasher::with_seed(seed), &cfg).fnr()
        });
        Outcome::runs(c.fnr, &fnrs)
    };
    let note = format!("first choice {c}; {}", out.note);
    out.note(note)
}

/// The first choice's `memory_bits` against the budget.
fn within_budget(case: &Case) -> Outcome {
    let c = match &case.first {
        Ok(c) => c,
        Err(e) => return no_plan(e),
    };
    let built = c.build().expect("planned candidates build").memory_bits();
    let budget = case.budget.unwrap_or(u64::MAX);
    let mut out = Outcome::at_most(
        budget as f64,
        built as f64,
        "the requirement's memory budget",
    )
    .note(format!(
        "first choice {c}; predicted {} bits",
        c.memory_bits
    ));
    // The prediction must be the built size, too.
    out.pass &= built == c.memory_bits;
    out
}

/// The ground truth's window for a case.
fn window_of(case: &Case) -> Window {
    match case.req.span() {
        Span::Count(w) => Window::Count(w),
        Span::Time { span, .. } => Window::Time(span),
        Span::Unbounded => Window::Unbounded,
    }
}

/// Which saturated rate a check measures.
#[derive(Clone, Copy, PartialEq)]
enum Rate {
    Fpr,
    Fnr,
}

/// The planner's saturated candidate of `family` for an unbounded stream
/// in `M` bits with misses allowed and no `distinct_items` (so the default
/// saturated target, 1 %), run on a stream built to be the worst case its
/// prediction describes: each item is, with probability 1/2, the item of
/// exactly `G = 8·M` steps earlier, else a new one. Every table holds at
/// most `M` cells, so a repeat comes after `G ≥ 8·cells` other insertions,
/// long past any chance of its fingerprint surviving; the new items meet a
/// saturated table. The first `G` steps (no repeats yet) are the warm-up.
///
/// FPR (new items answered DUPLICATE) and FNR (repeats answered UNSEEN)
/// are measured per run, and the runs, independent, are the samples
/// (Student-t rule): the predictions are the saturated means. A2's are
/// worst-phase bounds (its rate moves with the fill of its active buffer),
/// checked as bounds with the one-sided Clopper–Pearson rule on the pooled
/// counts, each item's answer being independent given the filter's state.
fn saturated(ctx: &Ctx, family: &str, salt: u64, rate: Rate) -> Outcome {
    let budget: u64 = ctx.pick(1 << 14, 1 << 16);
    let req = Requirements::unbounded()
        .memory_budget(budget)
        .allow_false_negatives(true);
    let c = match plan(&req).map_err(|e| e.to_string()).and_then(|list| {
        list.into_iter()
            .find(|c| c.family() == family)
            .ok_or_else(|| format!("the planner offered no {family} candidate"))
    }) {
        Ok(c) => c,
        Err(e) => return no_plan(&e),
    };
    if !c.saturated {
        return no_plan("the candidate is not rated at saturation");
    }
    let gap = 8 * budget;
    let steps = gap + ctx.pick(1, 2) * gap;
    // (false positives, new items, misses, repeats) per run.
    let counts: Vec<[u64; 4]> = ctx.per_seed(salt, 4, 8, |seed| {
        let mut f = c.build().expect("planned candidates build");
        let mut fresh = crate::checks::common::Fresh::new(seed);
        let mut coin = ddf_hash::SplitMix64::new(seed ^ 0x5a7u64);
        let mut ring = vec![ddf_core::Digest::default(); gap as usize];
        let mut n = [0u64; 4];
        for t in 0..steps {
            let slot = (t % gap) as usize;
            let repeat = t >= gap && coin.chance(0.5);
            let d = if repeat {
                ring[slot]
            } else {
                fresh.next_digest()
            };
            ring[slot] = d;
            let duplicate = f.observe(d) == ddf_core::Verdict::Duplicate;
            if t < gap {
                continue;
            }
            if repeat {
                n[2] += u64::from(!duplicate);
                n[3] += 1;
            } else {
                n[0] += u64::from(duplicate);
                n[1] += 1;
            }
        }
        n
    });
    let (predicted, hit, of) = match rate {
        Rate::Fpr => (c.fpr, 0, 1),
        Rate::Fnr => (c.fnr, 2, 3),
    };
    let out = if matches!(c.config, Config::A2 { .. }) {
        let hits = counts.iter().map(|n| n[hit]).sum();
        let total = counts.iter().map(|n| n[of]).sum();
        Outcome::binomial_at_most(predicted, hits, total)
    } else {
        let rates: Vec<f64> = counts
            .iter()
            .map(|n| n[hit] as f64 / n[of].max(1) as f64)
            .collect();
        Outcome::runs(predicted, &rates)
    };
    let note = format!(
        "first {family} candidate {c}; budget {budget} bits, repeats at gap {gap}, {steps} steps, {} runs",
        counts.len()
    );
    out.note(note)
}

/// The cost rule of `ddf::plan` over count and time windows from 2^10 to
/// 2^26 at targets 10^-2 … 10^-6, any slack up to the window, the compact
/// SHF's scan allowed: no candidate ranks before one that needs at most
/// 1.25× its memory at less than half its memory time, and
/// `dominated_by` says so exactly. The count of violations must be 0.
fn cost_rule() -> Outcome {
    let dominates = |cheap: &Candidate, costly: &Candidate| {
        cheap.memory_bits as f64 <= 1.25 * costly.memory_bits as f64
            && costly.cost.memory_ns() > 2.0 * cheap.cost.memory_ns()
    };
    let (mut lists, mut demoted, mut violations) = (0u64, 0u64, Vec::new());
    for log_w in [10u32, 14, 18, 22, 26] {
        let w = 1u64 << log_w;
        for fpr in [1e-2, 1e-3, 1e-6] {
            for timed in [false, true] {
                let req = if timed {
                    Requirements::time(w / 64, 64.0)
                } else {
                    Requirements::count(w)
                }
                .fpr(fpr)
                .max_slack(w)
                .max_accesses(1e6);
                let Ok(list) = plan(&req) else { continue };
                lists += 1;
                for (i, c) in list.iter().enumerate() {
                    let first = list[..i].iter().find(|d| dominates(d, c));
                    demoted += u64::from(first.is_some());
                    if list[i + 1..].iter().any(|d| dominates(d, c))
                        || c.dominated_by != first.map(Candidate::family)
                    {
                        violations.push(format!("w 2^{log_w}, fpr {fpr:e}, timed {timed}: {c}"));
                    }
                }
            }
        }
    }
    Outcome::exact(0.0, violations.len() as f64).note(format!(
        "{lists} plans, {demoted} candidates ranked after a cheaper one of about their memory; \
         violations: {violations:?}"
    ))
}
