//! Overload checks: every timed filter fed at 1×, 2× and 8× the
//! rate it was sized for keeps its memory, its false-positive bound, and
//! misses only what its early closes allow.
//!
//! Each timed filter is sized for `g` items per generation of `τ` time
//! units. Item `i` arrives at time `⌊i·τ/(x·g)⌋`, so at `x = 1` every
//! generation of the filter's grid gets exactly `g` items (the promise's
//! condition) and at `x = 2` or `8` it gets `x·g`. Keys are uniform over
//! twice the items of a sized window, so many repeats fall in the window.
//! Three promises, each a check per filter:
//!
//! - *memory*: `memory_bits` after every insertion is at most what the
//!   fresh filter reported (exact);
//! - *misses*: a repeat within the span `t` reported unseen is a promised
//!   miss only if the filter closed a generation early since the item's
//!   latest occurrence ([`TimedFilter::generations_closed_early`] before the
//!   query against its value after that occurrence); at `1×` no generation
//!   may close early. Unpromised misses and early closes at `1×` must be 0
//!   (exact);
//! - *FPR*: after every insertion one never-inserted item is queried; the
//!   count of false positives against the filter's bound at any fill it may
//!   reach (Clopper–Pearson, one-sided). The queries are Bernoulli trials,
//!   independent given the filter's state at each, whose rates are at most
//!   the bound: for the sliding Bloom filter in every state (the union bound
//!   over at most `(c + 1)·g` active entries); for the APBF, the APBBF and
//!   the queue on average over the states, since their bounds are the
//!   expected rate at the fullest point of a generation of `g` distinct items
//!   (the fill of one state varies around it by far less than the bound's
//!   margin over the measured rate, about a factor of two here because the
//!   streams repeat keys). The count is then at most binomial with the
//!   bound's mean.

use crate::checks::common::Fresh;
use crate::outcome::Outcome;
use crate::{Check, Ctx};
use ddf_apbf::{Apbbf, Apbf};
use ddf_bloom::PartitionedBloom;
use ddf_core::{DuplicateFilter, TimedFilter};
use ddf_exact::ExactWindow;
use ddf_hash::{KeyedSipHasher, SplitMix64, digest};
use ddf_queue::Queue;
use ddf_sliding::{Slack, SlidingBloom};
use ddf_theory::apbf::{apbbf_segment_rates, false_positive, steady_fill_ratios};
use ddf_theory::bloom::partitioned_fp;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

const OVERLOAD: &str = "ARCHITECTURE.md, overload never allocates: bounded memory under overload";

/// The rates tested, in multiples of the sized rate.
const RATES: [u64; 3] = [1, 2, 8];

/// The timed filters under test.
#[derive(Debug, Clone, Copy)]
enum Subject {
    Exact,
    Apbf,
    Apbbf,
    Queue,
    Sliding,
}

/// A filter ready to run, with its sizing and false-positive bound.
struct Setup {
    filter: Box<dyn TimedFilter>,
    /// The time span `t` whose repeats must be reported while within rate.
    span: u64,
    /// Items per generation, `g`.
    per_generation: u64,
    /// Time units per generation, `τ`.
    generation_time: u64,
    /// The largest false-positive probability at any reachable fill.
    fpr_bound: f64,
    /// What the bound is.
    fpr_reason: &'static str,
}

impl Subject {
    fn build(self, seed: u64) -> Setup {
        match self {
            Subject::Exact => {
                // 4,096 items per span of 16,384 units: one per 4 units.
                let filter = ExactWindow::with_time_span(16_384, 4_096).expect("valid");
                Setup {
                    filter: Box::new(filter),
                    span: 16_384,
                    per_generation: 1,
                    generation_time: 4,
                    fpr_bound: 0.0,
                    fpr_reason: "exact: no false positives",
                }
            }
            Subject::Apbf => {
                // The paper's choice of (k, l) for 1 % over a window of
                // 8,000 insertions, generations of τ = 100 units.
                let sized = Apbf::with_window(8_000, 0.01).expect("valid");
                let (k, l, m) = (sized.k(), sized.l(), sized.slice_bits());
                let span = 100 * u64::from(l);
                let filter = Apbf::with_time_span(span, k, l, m).expect("valid");
                let g = filter.generation();
                let tau = filter.period().expect("timed");
                let r = steady_fill_ratios(k as usize, l as usize, m as f64, g as f64, g as f64);
                Setup {
                    span,
                    per_generation: g,
                    generation_time: tau,
                    fpr_bound: false_positive(k as usize, &r),
                    fpr_reason: "APBF §5.3 F(k, l) at the steady fill just before a shift",
                    filter: Box::new(filter),
                }
            }
            Subject::Apbbf => {
                // Table 3's first shape (k = 2, l = 3, B = 64, b = 4, 1.6 %).
                let (k, l, blocks, big_b, b) = (2u32, 3u32, 200u64, 64u32, 4u32);
                let filter = Apbbf::with_time_span(300, k, l, blocks, big_b, b).expect("valid");
                let g = filter.generation();
                let tau = filter.period().expect("timed");
                let r = apbbf_segment_rates(k as usize, l as usize, big_b, b);
                Setup {
                    span: 300,
                    per_generation: g,
                    generation_time: tau,
                    fpr_bound: false_positive(k as usize, &r),
                    fpr_reason: "APBF §6: F(k, l) over the blocked segments' rates at capacity",
                    filter: Box::new(filter),
                }
            }
            Subject::Queue => {
                // L = 5 partitioned Bloom subfilters of c = 1,000 at 1 %,
                // slices of 250 units over a span of 1,000.
                let (l, c, span) = (5usize, 1_000u64, 1_000u64);
                let sub = PartitionedBloom::with_items(c, 0.01).expect("valid");
                let (k, m) = (sub.slices(), sub.slice_bits());
                let filter =
                    Queue::with_time_span(span, l, c, |_| PartitionedBloom::with_items(c, 0.01))
                        .expect("valid");
                let p = partitioned_fp(c as f64, m as f64, f64::from(k));
                Setup {
                    span,
                    per_generation: c,
                    generation_time: span.div_ceil(l as u64 - 1),
                    fpr_bound: (l as f64 * p).min(1.0),
                    fpr_reason: "union bound over L subfilters of at most c items each",
                    filter: Box::new(filter),
                }
            }
            Subject::Sliding => {
                // Sized for 1,000 items per 1,000 units at ε = 1 %.
                let filter = SlidingBloom::with_time_span(1_000, Slack::LeastSpace, 1_000, 0.01)
                    .expect("valid")
                    .with_seed(seed);
                Setup {
                    span: 1_000,
                    per_generation: filter.generation_capacity(),
                    generation_time: filter.generation_len(),
                    fpr_bound: filter.false_positive_bound(),
                    fpr_reason: "Naor–Yogev §2.1 union bound (c + 1)·g / (B·(2^r − 1)/2)",
                    filter: Box::new(filter),
                }
            }
        }
    }
}

/// What one run at one rate measured.
#[derive(Debug, Clone, Copy, Default)]
struct RunStats {
    /// `memory_bits` of the fresh filter.
    constructed_bits: u64,
    /// The largest `memory_bits` seen after any insertion.
    max_bits: u64,
    /// Repeats within the span.
    in_span: u64,
    /// Of those, reported unseen.
    misses: u64,
    /// Misses with no early close since the item's latest occurrence.
    unpromised: u64,
    closed_early: u64,
    fp: u64,
    queries: u64,
}

impl RunStats {
    fn add(&mut self, o: &RunStats) {
        self.constructed_bits = self.constructed_bits.max(o.constructed_bits);
        self.max_bits = self.max_bits.max(o.max_bits);
        self.in_span += o.in_span;
        self.misses += o.misses;
        self.unpromised += o.unpromised;
        self.closed_early += o.closed_early;
        self.fp += o.fp;
        self.queries += o.queries;
    }
}

/// One seeded run of `subject` at `rate` times its sized rate over
/// `windows` sized windows' worth of time.
fn run(subject: Subject, rate: u64, windows: u64, seed: u64) -> RunStats {
    let Setup {
        mut filter,
        span,
        per_generation: g,
        generation_time: tau,
        ..
    } = subject.build(seed);
    let sized_window = g * span.div_ceil(tau);
    let items = windows * sized_window * rate;
    let alphabet = 2 * sized_window;
    let hasher = KeyedSipHasher::with_seed(seed);
    let mut keys = SplitMix64::new(seed ^ 0x000f_10ad);
    let mut fresh = Fresh::new(seed);
    // Each key's latest time and the early-close count just after it.
    let mut latest: HashMap<u64, (u64, u64)> = HashMap::new();
    let mut s = RunStats {
        constructed_bits: filter.memory_bits(),
        ..RunStats::default()
    };
    s.max_bits = s.constructed_bits;
    for i in 0..items {
        let now = u64::try_from(u128::from(i) * u128::from(tau) / u128::from(rate * g))
            .expect("times fit");
        let key = keys.below(alphabet);
        let closed_before = filter.generations_closed_early();
        let unseen = !filter.observe_at(digest(&hasher, &key), now).is_duplicate();
        if let Some(&(ts, closed_then)) = latest.get(&key)
            && now - ts < span
        {
            s.in_span += 1;
            if unseen {
                s.misses += 1;
                if closed_before == closed_then {
                    s.unpromised += 1;
                }
            }
        }
        latest.insert(key, (now, filter.generations_closed_early()));
        s.max_bits = s.max_bits.max(filter.memory_bits());
        // One never-inserted item per insertion, after a window of warm-up.
        if i >= sized_window * rate {
            s.queries += 1;
            s.fp += u64::from(filter.contains_at(fresh.next_digest(), now));
        }
    }
    s.closed_early = filter.generations_closed_early();
    s
}

/// Subject, rate, quick mode and base seed of a set of runs.
type RunKey = (u64, u64, bool, u64);

/// The runs of `subject` at `rate`, merged over the seeds. The memory,
/// misses and FPR checks of a filter share one set of runs: the first
/// check to ask runs them, the others read the result.
fn measure(ctx: &Ctx, subject: Subject, rate: u64) -> RunStats {
    static DONE: OnceLock<Mutex<HashMap<RunKey, RunStats>>> = OnceLock::new();
    let key = (subject as u64, rate, ctx.quick, ctx.seed);
    let done = DONE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(s) = done.lock().expect("not poisoned").get(&key) {
        return *s;
    }
    let windows = ctx.pick(8, 40);
    let salt = 0x0e71_0ad0 ^ (subject as u64) << 8 ^ rate;
    let runs = ctx.per_seed(salt, 2, 4, |seed| run(subject, rate, windows, seed));
    let mut total = RunStats::default();
    for r in &runs {
        total.add(r);
    }
    done.lock().expect("not poisoned").insert(key, total);
    total
}

fn memory(ctx: &Ctx, subject: Subject) -> Outcome {
    let per_rate: Vec<RunStats> = RATES.iter().map(|&x| measure(ctx, subject, x)).collect();
    let bound = per_rate
        .iter()
        .map(|s| s.constructed_bits)
        .max()
        .unwrap_or(0);
    let max = per_rate.iter().map(|s| s.max_bits).max().unwrap_or(0);
    let note = RATES
        .iter()
        .zip(&per_rate)
        .map(|(x, s)| {
            format!(
                "{x}×: max {} bits, {} early closes",
                s.max_bits, s.closed_early
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    Outcome::at_most(
        bound as f64,
        max as f64,
        "memory_bits reported at construction",
    )
    .note(note)
}

fn misses(ctx: &Ctx, subject: Subject) -> Outcome {
    let per_rate: Vec<RunStats> = RATES.iter().map(|&x| measure(ctx, subject, x)).collect();
    // At the sized rate nothing may close early; at any rate no miss
    // without an early close since the item's latest occurrence.
    let violations: u64 =
        per_rate[0].closed_early + per_rate.iter().map(|s| s.unpromised).sum::<u64>();
    let note = RATES
        .iter()
        .zip(&per_rate)
        .map(|(x, s)| {
            format!(
                "{x}×: {} repeats within t, {} missed ({} unpromised), {} early closes",
                s.in_span, s.misses, s.unpromised, s.closed_early
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    let mut out = Outcome::exact(0.0, violations as f64).note(note);
    // A run without repeats in the span would make the check vacuous.
    if per_rate.iter().any(|s| s.in_span < 1_000) {
        out.pass = false;
        out.rule = "exact, with at least 1000 repeats within t at every rate".into();
    }
    out
}

fn fpr(ctx: &Ctx, subject: Subject, rate: u64) -> Outcome {
    let s = measure(ctx, subject, rate);
    let setup = subject.build(0);
    let note = format!(
        "{rate}× the sized rate ({} per {} units): {} FP in {} queries, {} early closes; bound: {}",
        setup.per_generation,
        setup.generation_time,
        s.fp,
        s.queries,
        s.closed_early,
        setup.fpr_reason
    );
    if setup.fpr_bound == 0.0 {
        return Outcome::exact(0.0, s.fp as f64).note(note);
    }
    Outcome::binomial_at_most(setup.fpr_bound, s.fp, s.queries).note(note)
}

/// One memory, one misses and three FPR checks per timed filter.
macro_rules! subject_checks {
    ($subject:expr, $memory:literal, $misses:literal, $fpr1:literal, $fpr2:literal, $fpr8:literal) => {
        [
            Check {
                id: $memory,
                paper: OVERLOAD,
                run: |ctx| memory(ctx, $subject),
            },
            Check {
                id: $misses,
                paper: OVERLOAD,
                run: |ctx| misses(ctx, $subject),
            },
            Check {
                id: $fpr1,
                paper: OVERLOAD,
                run: |ctx| fpr(ctx, $subject, 1),
            },
            Check {
                id: $fpr2,
                paper: OVERLOAD,
                run: |ctx| fpr(ctx, $subject, 2),
            },
            Check {
                id: $fpr8,
                paper: OVERLOAD,
                run: |ctx| fpr(ctx, $subject, 8),
            },
        ]
    };
}

pub(crate) fn checks() -> Vec<Check> {
    let mut all = Vec::new();
    all.extend(subject_checks!(
        Subject::Exact,
        "overload/exact-memory",
        "overload/exact-misses",
        "overload/exact-fpr-1x",
        "overload/exact-fpr-2x",
        "overload/exact-fpr-8x"
    ));
    all.extend(subject_checks!(
        Subject::Apbf,
        "overload/apbf-memory",
        "overload/apbf-misses",
        "overload/apbf-fpr-1x",
        "overload/apbf-fpr-2x",
        "overload/apbf-fpr-8x"
    ));
    all.extend(subject_checks!(
        Subject::Apbbf,
        "overload/apbbf-memory",
        "overload/apbbf-misses",
        "overload/apbbf-fpr-1x",
        "overload/apbbf-fpr-2x",
        "overload/apbbf-fpr-8x"
    ));
    all.extend(subject_checks!(
        Subject::Queue,
        "overload/queue-memory",
        "overload/queue-misses",
        "overload/queue-fpr-1x",
        "overload/queue-fpr-2x",
        "overload/queue-fpr-8x"
    ));
    all.extend(subject_checks!(
        Subject::Sliding,
        "overload/sliding-memory",
        "overload/sliding-misses",
        "overload/sliding-fpr-1x",
        "overload/sliding-fpr-2x",
        "overload/sliding-fpr-8x"
    ));
    all
}
