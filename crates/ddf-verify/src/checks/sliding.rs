//! Checks of the Naor–Yogev sliding Bloom filter: its window promise, its ε, its generation schedule and its space against Theorem 1.2.

use crate::outcome::Outcome;
use crate::{Check, Ctx};
use ddf_core::{DuplicateFilter, Window, Windowed};
use ddf_hash::KeyedSipHasher;
use ddf_sim::{
    Arrivals, EvalConfig, Report, Source, Uniform, Zipf, evaluate, evaluate_timed, run_seeds,
    threads,
};
use ddf_sliding::{LEAST_SPACE_LOAD, Layout, LayoutChoice, Slack, SlidingBloom};
use ddf_theory::sliding_bloom::{
    false_positive_probability, lower_bound_bits, physical_lifetime, retention,
    succinct_construction_bits, theorem_1_1_bits, theorem_1_1_generations,
};
use std::collections::HashMap;

const DEF: &str = "Naor–Yogev §1.1 definition";
const CONSTRUCTION: &str = "Naor–Yogev §2.1, §2.3";
const SCHEDULE: &str = "Naor–Yogev §2.3–2.5";
const BOUNDS: &str = "Naor–Yogev Thm 1.2 vs the construction";

pub(crate) fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "sliding/no-false-negatives-uniform",
            paper: DEF,
            run: no_fn_uniform,
        },
        Check {
            id: "sliding/no-false-negatives-zipf",
            paper: DEF,
            run: no_fn_zipf,
        },
        Check {
            id: "sliding/no-false-negatives-adversarial",
            paper: DEF,
            run: no_fn_adversarial,
        },
        Check {
            id: "sliding/no-false-negatives-time-window",
            paper: DEF,
            run: no_fn_time_window,
        },
        Check {
            id: "sliding/fp-beyond-slack-at-most-epsilon",
            paper: DEF,
            run: fp_at_most_epsilon,
        },
        Check {
            id: "sliding/fp-matches-active-entries",
            paper: CONSTRUCTION,
            run: fp_matches_active_entries,
        },
        Check {
            id: "sliding/generations-advance",
            paper: SCHEDULE,
            run: generations_advance,
        },
        Check {
            id: "sliding/stale-entries-removed-in-time",
            paper: SCHEDULE,
            run: stale_entries_removed,
        },
        Check {
            id: "sliding/stash-stays-empty",
            paper: "Naor–Yogev §2.6 (dictionary never fails)",
            run: |ctx| stash_stays_empty_as(ctx, 69, Form::Planned),
        },
        Check {
            id: "sliding/line-no-false-negatives-uniform",
            paper: DEF,
            run: no_fn_uniform_lines,
        },
        Check {
            id: "sliding/line-fp-beyond-slack-at-most-epsilon",
            paper: DEF,
            run: |ctx| fp_at_most_epsilon_in(ctx, 72, Form::In(Layout::Line)),
        },
        Check {
            id: "sliding/line-fp-matches-active-entries",
            paper: CONSTRUCTION,
            run: |ctx| fp_matches_active_entries_in(ctx, 73, Form::In(Layout::Line)),
        },
        Check {
            id: "sliding/wide-line-no-false-negatives-uniform",
            paper: DEF,
            run: no_fn_uniform_wide_lines,
        },
        Check {
            id: "sliding/wide-line-fp-beyond-slack-at-most-epsilon",
            paper: DEF,
            run: |ctx| fp_at_most_epsilon_in(ctx, 75, Form::WideLines),
        },
        Check {
            id: "sliding/wide-line-fp-matches-active-entries",
            paper: CONSTRUCTION,
            run: |ctx| fp_matches_active_entries_in(ctx, 76, Form::WideLines),
        },
        Check {
            id: "sliding/least-space-no-false-negatives-uniform",
            paper: DEF,
            run: no_fn_uniform_least_space,
        },
        Check {
            id: "sliding/least-space-fp-beyond-slack-at-most-epsilon",
            paper: DEF,
            run: |ctx| fp_at_most_epsilon_in(ctx, 78, Form::LeastSpace),
        },
        Check {
            id: "sliding/least-space-fp-matches-active-entries",
            paper: CONSTRUCTION,
            run: |ctx| fp_matches_active_entries_in(ctx, 79, Form::LeastSpace),
        },
        Check {
            id: "sliding/stash-stays-empty-least-space",
            paper: "Naor–Yogev §2.6 (dictionary never fails)",
            run: |ctx| stash_stays_empty_as(ctx, 80, Form::LeastSpace),
        },
        Check {
            id: "sliding/least-space-near-succinct",
            paper: BOUNDS,
            run: least_space_near_succinct,
        },
        Check {
            id: "sliding/space-vs-lower-bound-eps4",
            paper: BOUNDS,
            run: |ctx| space_vs_lower_bound(ctx, 4),
        },
        Check {
            id: "sliding/space-vs-lower-bound-eps8",
            paper: BOUNDS,
            run: |ctx| space_vs_lower_bound(ctx, 8),
        },
        Check {
            id: "sliding/space-vs-lower-bound-eps12",
            paper: BOUNDS,
            run: |ctx| space_vs_lower_bound(ctx, 12),
        },
    ]
}

/// The filter most checks use: a window `n`, a slack of `n/8`, `ε = 2^-8`.
fn standard(n: u64) -> SlidingBloom {
    SlidingBloom::new(n, Slack::AtMost(n / 8), 2f64.powi(-8)).expect("valid parameters")
}

/// Which filter a check runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// [`standard`] as the planner lays it out.
    Planned,
    /// [`standard`] with its buckets laid out so.
    In(Layout),
    /// [`wide_lines`].
    WideLines,
    /// [`standard`]'s parameters planned for the least space
    /// ([`LayoutChoice::LeastSpace`]).
    LeastSpace,
}

/// Wide lines (16 cells, `32 − s` remainder bits): a window `n`, a slack of
/// `n/128` (`c = 128`, so `s = 8` and `r = 24`), `ε = 2·10^-6`, which
/// 16-bit remainders cannot meet.
fn wide_lines(n: u64) -> SlidingBloom {
    let f = SlidingBloom::new(n, Slack::AtMost(n / 128), 2e-6)
        .and_then(|f| f.with_layout(Layout::Line))
        .expect("valid parameters");
    assert!(
        f.remainder_bits() > 16,
        "lines of more than 16 remainder bits"
    );
    f
}

/// The filter of `form` over a window `n`.
fn standard_in(n: u64, form: Form) -> SlidingBloom {
    match form {
        Form::Planned => standard(n),
        Form::In(l) => standard(n)
            .with_layout(l)
            .expect("the standard rate fits every layout"),
        Form::WideLines => wide_lines(n),
        Form::LeastSpace => least_space(n, Slack::AtMost(n / 8), 2f64.powi(-8)),
    }
}

/// The least-space plan of a window `n`, `slack` and `ε`.
fn least_space(n: u64, slack: Slack, eps: f64) -> SlidingBloom {
    let f = SlidingBloom::planned(n, slack, None, eps, LayoutChoice::LeastSpace)
        .expect("valid parameters");
    assert_eq!(f.design_load(), LEAST_SPACE_LOAD);
    f
}

fn window(ctx: &Ctx) -> u64 {
    ctx.pick(50_000, 500_000)
}

/// Zero false negatives over the last `n`, on a stream with both duplicates
/// within the window and items that come back after it.
fn zero_false_negatives(total: &Report, what: &str) -> Outcome {
    let mut out = Outcome::exact(0.0, total.false_negatives as f64).note(format!(
        "{what}: {} items, {} duplicates in the window, {} FN; {} reported outside the window \
         (FP and slack together, allowed), {:.0} ns/op",
        total.items,
        total.duplicates,
        total.false_negatives,
        total.false_positives,
        total.ns_per_op()
    ));
    // A stream without duplicates would make the check vacuous.
    if total.duplicates == 0 {
        out.pass = false;
        out.rule = "exact, on a stream with duplicates".into();
    }
    out
}

fn no_fn_random<S: Source>(ctx: &Ctx, salt: u64, make: impl Fn(u64, u64) -> S + Sync) -> Report {
    no_fn_random_in(ctx, salt, Form::Planned, make)
}

fn no_fn_random_in<S: Source>(
    ctx: &Ctx,
    salt: u64,
    form: Form,
    make: impl Fn(u64, u64) -> S + Sync,
) -> Report {
    let n = window(ctx);
    let items = 12 * n;
    let seeds = ctx.seeds(salt, 2);
    let reports = run_seeds(&seeds, threads(), |seed| {
        let mut f = standard_in(n, form);
        let cfg = EvalConfig::new(Window::Count(n), items);
        evaluate(
            &mut f,
            &mut make(n, seed),
            &KeyedSipHasher::with_seed(seed),
            &cfg,
        )
    });
    Report::merged(&reports)
}

fn no_fn_uniform(ctx: &Ctx) -> Outcome {
    // An alphabet of 2n: about 40 % of items repeat within the window.
    let total = no_fn_random(ctx, 61, |n, seed| {
        Uniform::new(2 * n, seed).expect("alphabet ≥ 1")
    });
    zero_false_negatives(&total, "uniform over 2n, n/8 slack, ε = 2^-8")
}

/// The same promise with buckets of one cache line.
fn no_fn_uniform_lines(ctx: &Ctx) -> Outcome {
    let total = no_fn_random_in(ctx, 71, Form::In(Layout::Line), |n, seed| {
        Uniform::new(2 * n, seed).expect("alphabet ≥ 1")
    });
    zero_false_negatives(&total, "line buckets, uniform over 2n, n/8 slack, ε = 2^-8")
}

/// The same promise with wide lines.
fn no_fn_uniform_wide_lines(ctx: &Ctx) -> Outcome {
    let total = no_fn_random_in(ctx, 74, Form::WideLines, |n, seed| {
        Uniform::new(2 * n, seed).expect("alphabet ≥ 1")
    });
    zero_false_negatives(
        &total,
        "wide lines (r = 24), uniform over 2n, n/128 slack, ε = 2·10^-6",
    )
}

/// The same promise planned for the least space: design load 0.95.
fn no_fn_uniform_least_space(ctx: &Ctx) -> Outcome {
    let total = no_fn_random_in(ctx, 77, Form::LeastSpace, |n, seed| {
        Uniform::new(2 * n, seed).expect("alphabet ≥ 1")
    });
    zero_false_negatives(
        &total,
        "least space (load 0.95), uniform over 2n, n/8 slack, ε = 2^-8",
    )
}

fn no_fn_zipf(ctx: &Ctx) -> Outcome {
    let total = no_fn_random(ctx, 62, |n, seed| {
        Zipf::new(50 * n, 1.0, seed).expect("valid Zipf")
    });
    zero_false_negatives(&total, "Zipf s = 1 over 50n, n/8 slack, ε = 2^-8")
}

/// A stream built to sit on the window's edge: cycles whose items return
/// exactly `n` (or `n − 1`, or `n + 1`) insertions later, long bursts of one
/// item, and all-distinct runs that push the table to its peak load.
#[derive(Debug)]
struct EdgeStream {
    n: u64,
    position: u64,
    fresh: u64,
}

impl EdgeStream {
    /// One round: six phases of `2n` insertions each.
    fn round_len(&self) -> u64 {
        12 * self.n
    }
}

impl Source for EdgeStream {
    fn next_id(&mut self) -> Option<u64> {
        let n = self.n;
        let i = self.position % self.round_len();
        let round = self.position / self.round_len();
        self.position += 1;
        let base = (round + 1) << 40;
        let id = match i / (2 * n) {
            // Period n: every item is a duplicate at age exactly n.
            0 => base + i % n,
            // A burst: one item over and over.
            1 => base + (1 << 39),
            // Period n − 1 and n + 1: inside and just outside the window.
            2 => base + (1 << 38) + i % (n - 1),
            3 => base + (1 << 37) + i % (n + 1),
            // All distinct: the table's peak load, generation after generation.
            _ => {
                self.fresh += 1;
                self.fresh
            }
        };
        Some(id)
    }
}

fn no_fn_adversarial(ctx: &Ctx) -> Outcome {
    let n = window(ctx);
    let seeds = ctx.seeds(63, 2);
    let reports = run_seeds(&seeds, threads(), |seed| {
        let mut f = standard(n);
        let mut src = EdgeStream {
            n,
            position: 0,
            fresh: 1 << 60,
        };
        let items = 2 * src.round_len();
        evaluate(
            &mut f,
            &mut src,
            &KeyedSipHasher::with_seed(seed),
            &EvalConfig::new(Window::Count(n), items),
        )
    });
    zero_false_negatives(
        &Report::merged(&reports),
        "cycles of period n − 1, n, n + 1, bursts, distinct runs; n/8 slack, ε = 2^-8",
    )
}

fn no_fn_time_window(ctx: &Ctx) -> Outcome {
    // A span of 10,000 time units with one arrival per unit on average; the
    // table is planned for 15,000 per span, well above the Poisson swings.
    let span = 10_000;
    let items = ctx.pick(200_000, 2_000_000);
    let seeds = ctx.seeds(64, 2);
    let reports = run_seeds(&seeds, threads(), |seed| {
        let mut f =
            SlidingBloom::with_time_span(span, Slack::AtMost(span / 8), 15_000, 2f64.powi(-8))
                .expect("valid parameters");
        let mut arrivals = Arrivals::poisson(1.0, seed ^ 1).expect("mean gap > 0");
        let mut src = Uniform::new(20_000, seed).expect("alphabet ≥ 1");
        let report = evaluate_timed(
            &mut f,
            &mut src,
            &KeyedSipHasher::with_seed(seed),
            &mut arrivals,
            &EvalConfig::new(Window::Time(span), items),
        );
        (report, f.stash_len())
    });
    let stash: usize = reports.iter().map(|r| r.1).sum();
    let total = Report::merged(reports.iter().map(|r| &r.0));
    let mut out = zero_false_negatives(
        &total,
        "time span 10^4, Poisson arrivals of mean gap 1, uniform over 2·10^4",
    );
    out.note
        .push_str(&format!("; stash entries at the end: {stash}"));
    out
}

/// One run for the false-positive checks: a filter over an all-distinct
/// stream, then a query of every item older than `n + m` (and, for wide
/// lines, whose rate is about 10^-6, of `16n` items never inserted as
/// well, so that a run sees some false positives). Returns the false
/// positives, the queries, and the active items at query time.
fn old_item_queries(n: u64, seed: u64, form: Form) -> (u64, u64, u64) {
    let hasher = KeyedSipHasher::with_seed(seed);
    let d = |id: u64| ddf_hash::digest(&hasher, &id);
    let mut f = standard_in(n, form);
    let reach = n + f.slack();
    // Stop at a seed-dependent point of a generation, so the runs sample the
    // whole cycle of the active count between c·g and (c + 1)·g.
    let g = f.generation_len();
    let total = 4 * reach + seed % g;
    for id in 0..total {
        f.insert(d(id));
    }
    let unseen = if form == Form::WideLines { 16 * n } else { 0 };
    let old = total - reach - 1;
    let queried = (0..old).chain(total..total + unseen);
    let fps = queried.filter(|&id| f.contains(d(id))).count() as u64;
    // Distinct items in the active generations: c full ones and the current.
    let active = f.generations() * g + total % g;
    (fps, old + unseen, active)
}

fn fp_runs(ctx: &Ctx, salt: u64, form: Form) -> (SlidingBloom, Vec<(u64, u64, u64)>) {
    let n = window(ctx);
    let seeds = ctx.seeds(salt, ctx.pick(16, 32));
    let runs = run_seeds(&seeds, threads(), |seed| old_item_queries(n, seed, form));
    (standard_in(n, form), runs)
}

/// Definition §1.1, condition 2: for `x ∉ σ_t(n + m)`, `Pr[yes] ≤ ε`.
/// Given the filter's state, queries of distinct old items are independent,
/// each a false positive with probability at most `ε` (their keys are
/// independent of the active ones), so the total is at most Binomial(q, ε).
fn fp_at_most_epsilon(ctx: &Ctx) -> Outcome {
    fp_runs_at_most_epsilon(fp_runs(ctx, 65, Form::Planned))
}

/// [`fp_at_most_epsilon`] for the filter of `form`.
fn fp_at_most_epsilon_in(ctx: &Ctx, salt: u64, form: Form) -> Outcome {
    fp_runs_at_most_epsilon(fp_runs(ctx, salt, form))
}

fn fp_runs_at_most_epsilon((f, runs): (SlidingBloom, Vec<(u64, u64, u64)>)) -> Outcome {
    let fps: u64 = runs.iter().map(|r| r.0).sum();
    let queries: u64 = runs.iter().map(|r| r.1).sum();
    Outcome::binomial_at_most(f.fpr(), fps, queries).note(format!(
        "n = {}, slack m = {}, c = {}, r = {} bits, s = {} bits; {} runs, items older than n + m \
         (and for wide lines 16n never inserted) queried",
        window_len(&f),
        f.slack(),
        f.generations(),
        f.remainder_bits(),
        f.tag_bits(),
        runs.len()
    ))
}

/// §2.1 without the union bound: the rate is `1 − (1 − 1/M)^A` for `A`
/// active items and `M` keys ([`SlidingBloom::key_space`]: `B·(2^r − 1)/2`,
/// or `B·(2^16 − 1)·2^(r − 16)/2` in lines, whose remainders never have a
/// zero low half). The rate of one run depends on
/// its table, so runs are the independent samples.
fn fp_matches_active_entries(ctx: &Ctx) -> Outcome {
    fp_runs_match_active_entries(fp_runs(ctx, 66, Form::Planned))
}

/// [`fp_matches_active_entries`] for the filter of `form`.
fn fp_matches_active_entries_in(ctx: &Ctx, salt: u64, form: Form) -> Outcome {
    fp_runs_match_active_entries(fp_runs(ctx, salt, form))
}

fn fp_runs_match_active_entries((f, runs): (SlidingBloom, Vec<(u64, u64, u64)>)) -> Outcome {
    let key_space = f.key_space();
    let rates: Vec<f64> = runs.iter().map(|r| r.0 as f64 / r.1 as f64).collect();
    let predicted: f64 = runs
        .iter()
        .map(|r| false_positive_probability(r.2 as f64, key_space))
        .sum::<f64>()
        / runs.len() as f64;
    Outcome::runs(predicted, &rates).note(format!(
        "M = {key_space:.0} keys, active items {}..{} across runs; the guarantee ε = {}",
        runs.iter().map(|r| r.2).min().unwrap_or(0),
        runs.iter().map(|r| r.2).max().unwrap_or(0),
        f.fpr()
    ))
}

/// Watches the entries of one filter over an all-distinct stream: for every
/// entry, the harness knows the last insertion of an item with its key.
struct Watch {
    n: u64,
    c: u64,
    g: u64,
    /// Entries whose stored age differs from the true one.
    age_mismatches: u64,
    /// Checkpoints where the generation counter was not `T / g`.
    counter_mismatches: u64,
    /// The oldest entry seen in a cell, as an age `T − t` in insertions.
    oldest_entry: u64,
    /// `k`: generations of one sweep of the scan.
    sweep: u64,
    /// `s`: tags count generations modulo `2^s`.
    tag_bits: u32,
    checkpoints: u64,
    entries_seen: u64,
}

fn watch(ctx: &Ctx, salt: u64) -> Watch {
    let n = ctx.pick(20_000, 100_000);
    let f = standard(n);
    let (c, g) = (f.generations(), f.generation_len());
    let (sweep, tag_bits) = (f.sweep_generations(), f.tag_bits());
    let seeds = ctx.seeds(salt, 2);
    let parts = run_seeds(&seeds, threads(), |seed| {
        let hasher = KeyedSipHasher::with_seed(seed);
        let mut f = standard(n);
        let mut last: HashMap<ddf_sliding::EntryKey, u64> = HashMap::new();
        let (mut ages, mut counters, mut oldest, mut points, mut seen) = (0, 0, 0, 0, 0);
        let step = (g / 3).max(1) + seed % 7;
        for id in 0..12 * n {
            let d = ddf_hash::digest(&hasher, &id);
            last.insert(f.entry_key(d), id);
            f.insert(d);
            let t_now = id + 1;
            if t_now % step != 0 {
                continue;
            }
            points += 1;
            counters += u64::from(f.current_generation() != t_now / g);
            for (key, age) in f.entries() {
                seen += 1;
                let t = last[&key];
                let true_age = t_now / g - t / g;
                ages += u64::from(u64::from(age) != true_age);
                oldest = oldest.max(t_now - t);
            }
        }
        (ages, counters, oldest, points, seen)
    });
    Watch {
        n,
        c,
        g,
        sweep,
        tag_bits,
        age_mismatches: parts.iter().map(|p| p.0).sum(),
        counter_mismatches: parts.iter().map(|p| p.1).sum(),
        oldest_entry: parts.iter().map(|p| p.2).max().unwrap_or(0),
        checkpoints: parts.iter().map(|p| p.3).sum(),
        entries_seen: parts.iter().map(|p| p.4).sum(),
    }
}

/// §2.3–2.4: the counter advances every `⌈n/c⌉` insertions and every stored
/// tag reads as the number of generations since its item's last insertion.
fn generations_advance(ctx: &Ctx) -> Outcome {
    let w = watch(ctx, 67);
    let errors = (w.age_mismatches + w.counter_mismatches) as f64;
    Outcome::exact(0.0, errors).note(format!(
        "n = {}, c = {}, g = {}: {} checkpoints, {} entries compared, {} tag ages and {} counters wrong",
        w.n, w.c, w.g, w.checkpoints, w.entries_seen, w.age_mismatches, w.counter_mismatches
    ))
}

/// §2.4–2.5: no entry outlives `retention + scan period` insertions, so no
/// stale tag ever wraps around to look fresh (the sweep of `k = 2^s − c − 1`
/// generations is what the tag width allows).
fn stale_entries_removed(ctx: &Ctx) -> Outcome {
    let w = watch(ctx, 68);
    let (n, c) = (w.n as f64, w.c as f64);
    let period = w.sweep as f64 * w.g as f64;
    let bound = physical_lifetime(n, c, period);
    Outcome::at_most(
        bound,
        w.oldest_entry as f64,
        "retention (c + 1)·g − 1 plus a scan period of k·g insertions, k = 2^s − c − 1 (ddf_theory::sliding_bloom::physical_lifetime)",
    )
    .note(format!(
        "n = {}, c = {}, g = {}, k = {}; reported up to age {}, deletion deadline {bound}, tags wrap at {} generations",
        w.n,
        w.c,
        w.g,
        w.sweep,
        retention(n, c),
        1u64 << w.tag_bits
    ))
}

/// At the design load no entry ever reaches the stash: all-distinct streams
/// keep the active entries at the planned maximum, generation after generation.
/// The stash of the filter of `form` (the default plan, or the least-space
/// one at its higher load) stays empty over many windows of distinct
/// items, at `ε = 2^-10` and the least-space slack.
fn stash_stays_empty_as(ctx: &Ctx, salt: u64, form: Form) -> Outcome {
    let n = ctx.pick(100_000, 1_000_000);
    let windows = ctx.pick(6, 12);
    let seeds = ctx.seeds(salt, 2);
    let eps = 2f64.powi(-10);
    let runs = run_seeds(&seeds, threads(), |seed| {
        let hasher = KeyedSipHasher::with_seed(seed);
        let mut f = match form {
            Form::LeastSpace => least_space(n, Slack::LeastSpace, eps),
            _ => SlidingBloom::least_space(n, eps).expect("valid parameters"),
        };
        let mut worst = 0;
        for id in 0..windows * n {
            f.insert(ddf_hash::digest(&hasher, &id));
            if id % 1024 == 0 {
                worst = worst.max(f.stash_len());
            }
        }
        (
            worst.max(f.stash_len()),
            f.kicks(),
            windows * n,
            f.design_load(),
        )
    });
    let worst = runs.iter().map(|r| r.0).max().unwrap_or(0);
    let kicks: u64 = runs.iter().map(|r| r.1).sum();
    let inserted: u64 = runs.iter().map(|r| r.2).sum();
    Outcome::exact(0.0, worst as f64).note(format!(
        "n = {n}, ε = 2^-10, design load {}: {inserted} distinct insertions, {:.3} relocation moves per insertion",
        runs[0].3,
        kicks as f64 / inserted as f64
    ))
}

/// The least-space plan within 2.5 bits per element of the construction
/// with an ideal succinct dictionary (`succinct_construction_bits` at
/// Theorem 1.1's `c`), at every row of `cargo xtask tables`'
/// `sliding-space` that has one (all but the zero slacks).
///
/// 2.5 bits is the project's space target for this filter, not a
/// tolerance: it leaves room for what a two-choice table of small buckets pays and an
/// ideal dictionary does not — `log₂(2bα) − log₂ e ≈ 1.5` bits to compare a
/// query with `2b` cells, the rounding of `r`, and the 5 % of free cells.
/// The sizes are exact (no simulation), so the check is too.
fn least_space_near_succinct(_ctx: &Ctx) -> Outcome {
    let configs: Vec<_> = crate::sliding_rows::space_rows()
        .into_iter()
        .filter(|&(_, m, _)| m != Some(0))
        .collect();
    let mut worst: Option<(f64, String)> = None;
    for &(n, m, eps) in &configs {
        let slack = m.map_or(Slack::LeastSpace, Slack::AtMost);
        let f = least_space(n, slack, eps);
        let nf = n as f64;
        let mf = m.map_or(f64::INFINITY, |m| m as f64);
        let succinct =
            succinct_construction_bits(nf, theorem_1_1_generations(nf, mf, eps), eps) / nf;
        let gap = f.memory_bits() as f64 / nf - succinct;
        if worst.as_ref().is_none_or(|(g, _)| gap > *g) {
            let row = format!(
                "n = {n}, m = {}, ε = {eps:e}: {:.2} bits against {succinct:.2} ({:?}, c = {}, r = {}, s = {})",
                m.map_or("∞".to_string(), |m| m.to_string()),
                f.memory_bits() as f64 / nf,
                f.layout(),
                f.generations(),
                f.remainder_bits(),
                f.tag_bits()
            );
            worst = Some((gap, row));
        }
    }
    let (gap, row) = worst.expect("rows");
    Outcome::at_most(
        2.5,
        gap,
        "bits per element − succinct construction ≤ 2.5 at every row; the widest gap shown",
    )
    .note(format!("{} rows; widest: {row}", configs.len()))
}

/// Measured bits per element against Theorem 1.2 at `n = 10^6`, for the
/// least-space slack and slacks of n/4, n/16 and n/64.
///
/// The target is `1.5 × LB + K` with `K` fixed by the construction rather
/// than fitted: the additive gap the paper leaves between Theorem 1.1 (at its
/// own `c`) and Theorem 1.2, both `O(n)` terms, plus `log₂(2b)` bits that
/// a two-choice table of `b`-cell buckets pays per entry for comparing a
/// query with `2b` cells (a succinct dictionary compares one), plus the bits
/// of each bucket's word that no cell uses (buckets are whole aligned words).
fn space_vs_lower_bound(_ctx: &Ctx, k: i32) -> Outcome {
    let n = 1_000_000u64;
    let eps = 2f64.powi(-k);
    let mut rows = Vec::new();
    let mut worst: Option<(f64, f64)> = None;
    for (label, slack) in [
        ("m = ∞", Slack::LeastSpace),
        ("m = n/4", Slack::AtMost(n / 4)),
        ("m = n/16", Slack::AtMost(n / 16)),
        ("m = n/64", Slack::AtMost(n / 64)),
    ] {
        let f = SlidingBloom::new(n, slack, eps).expect("valid parameters");
        let table_cost =
            (2.0 * f64::from(f.cells_per_bucket())).log2() + f.space_breakdown().padding;
        let m = match slack {
            Slack::LeastSpace => f64::INFINITY,
            Slack::AtMost(m) => m as f64,
        };
        let nf = n as f64;
        let lower = lower_bound_bits(nf, m, eps) / nf;
        let gap = (theorem_1_1_bits(nf, m, eps) - lower_bound_bits(nf, m, eps)) / nf;
        let target = 1.5 * lower + gap + table_cost;
        let measured = f.memory_bits() as f64 / nf;
        rows.push(format!(
            "{label}: {measured:.2} bits (c = {}, slack {}), LB {lower:.2}, ratio {:.2}, target {target:.2}",
            f.generations(),
            f.slack(),
            measured / lower
        ));
        if worst.is_none_or(|(b, x)| measured - target > x - b) {
            worst = Some((target, measured));
        }
    }
    let (target, measured) = worst.expect("four slacks");
    Outcome::at_most(
        target,
        measured,
        "1.5 × Thm 1.2 + (Thm 1.1 − Thm 1.2) + log2(2k) bits per element; closest slack shown",
    )
    .note(rows.join("; "))
}

/// The window length `n` (or span `t`) of a filter.
fn window_len(f: &SlidingBloom) -> u64 {
    match f.window() {
        Window::Count(n) | Window::Time(n) => n,
        Window::Unbounded => 0,
    }
}
