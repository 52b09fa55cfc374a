//! Checks of the Age-Partitioned Bloom filter: the false-positive recursion
//! at the worst point of the sawtooth for rows of Table 2, the access
//! recursions, peak NPWS, no false negatives (by count and by time), and the
//! effect of duplicates (Figure 7).

use super::common::{Fresh, item, no_false_negatives, no_false_negatives_timed};
use crate::outcome::Outcome;
use crate::{Check, Ctx};
use ddf_apbf::Apbf;
use ddf_core::{DuplicateFilter, Window};
use ddf_hash::{KeyedSipHasher, SplitMix64};
use ddf_sim::{run_seeds, threads};
use ddf_theory::apbf::{
    false_positive, peak_npws, peak_npws_exact, query_cost, steady_fill_ratios, window_accesses,
};
use ddf_theory::numerics::one_minus_pow1m;
use std::collections::{HashSet, VecDeque};

const TABLE2: &str = "APBF paper §5.3 F recursion, Table 2, Figure 6";

pub(crate) fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "apbf/steady-fp-k4-l3",
            paper: TABLE2,
            run: |c| steady_fp(c, 4, 3, 61),
        },
        Check {
            id: "apbf/steady-fp-k5-l7",
            paper: TABLE2,
            run: |c| steady_fp(c, 5, 7, 62),
        },
        Check {
            id: "apbf/steady-fp-k7-l5",
            paper: TABLE2,
            run: |c| steady_fp(c, 7, 5, 63),
        },
        Check {
            id: "apbf/steady-fp-k8-l8",
            paper: TABLE2,
            run: |c| steady_fp(c, 8, 8, 64),
        },
        Check {
            id: "apbf/steady-fp-k10-l7",
            paper: TABLE2,
            run: |c| steady_fp(c, 10, 7, 65),
        },
        Check {
            id: "apbf/small-slices-fp-k10-l24",
            paper: "APBF paper §5.3 F recursion at m = 217 (docs/errata.md)",
            // A worst point's rate varies with the slices' realised fills,
            // which at 217 bits vary much: many worst points a run, few
            // queries each.
            run: |c| {
                steady_fp_at(
                    c,
                    (10, 24, 15),
                    (c.pick(32, 128), c.pick(10_000, 25_000)),
                    67,
                )
            },
        },
        Check {
            id: "apbf/fp-after-shift-k4-l3",
            paper: "APBF paper Figure 6 (low point of the sawtooth)",
            run: fp_after_shift,
        },
        Check {
            id: "apbf/accesses-false-k5-l7",
            paper: "APBF paper §5.4 A recursion (\"false\" column)",
            run: accesses_false,
        },
        Check {
            id: "apbf/accesses-window-k5-l7",
            paper: "APBF paper §5.4 (\"window\" column)",
            run: accesses_window,
        },
        Check {
            id: "apbf/peak-npws-k5-l7",
            paper: "APBF paper §5.2 peak NPWS",
            run: npws,
        },
        Check {
            id: "apbf/no-false-negatives",
            paper: "APBF paper §5.6.1 (the last w insertions are reported)",
            run: no_fn,
        },
        Check {
            id: "apbf/no-false-negatives-timed",
            paper: "time-based generations within capacity",
            run: no_fn_timed,
        },
        Check {
            id: "apbf/duplicates-lower-fp",
            paper: "APBF paper §5.6.2 Figure 7 trend",
            run: duplicates_trend,
        },
        Check {
            id: "apbf/fp-with-duplicates",
            paper: "APBF paper §5.6.2 (sharing effect)",
            run: fp_with_duplicates,
        },
    ]
}

/// A filter of `k + l` slices with generations of exactly `g` items.
pub(super) fn sized(k: u32, l: u32, g: u64) -> Apbf {
    let m = ddf_theory::apbf::slice_bits_for_generation(g as f64, f64::from(k)) as u64;
    let f = Apbf::new(k, l, m).expect("valid parameters");
    assert_eq!(f.generation(), g, "generation of the sized filter");
    f
}

/// Drives a filter over distinct items to steady state, then calls
/// `probe(filter, generation ids)` at the worst point (current generation
/// full, just before a shift) of `points` successive generations. The ids
/// of the last `k + l + 1` generations are passed for age-based probes.
pub(super) fn at_worst_points<F: DuplicateFilter, T>(
    f: &mut F,
    (g, n): (u64, u64),
    hasher: &KeyedSipHasher,
    points: usize,
    mut probe: impl FnMut(&F, &VecDeque<std::ops::Range<u64>>) -> T,
) -> Vec<T> {
    let mut gens: VecDeque<std::ops::Range<u64>> = VecDeque::new();
    let mut out = Vec::new();
    let mut id = 0u64;
    for round in 0..n + 1 + points as u64 {
        let start = id;
        for _ in 0..g {
            f.insert(item(hasher, id));
            id += 1;
        }
        gens.push_front(start..id);
        gens.truncate(n as usize + 1);
        if round > n {
            out.push(probe(f, &gens));
        }
    }
    out
}

/// The generation size and slice count of `sized(k, l, g)`.
fn shape(k: u32, l: u32, g: u64) -> (u64, u64) {
    (g, u64::from(k + l))
}

/// The mean number of segments read by those of `queries` fresh queries
/// that return false.
pub(super) fn mean_false_accesses(
    fresh: &mut Fresh,
    queries: u64,
    query: impl Fn(ddf_core::Digest) -> (bool, u32),
) -> f64 {
    let (mut total, mut count) = (0u64, 0u64);
    for _ in 0..queries {
        let (seen, accesses) = query(fresh.next_digest());
        if !seen {
            total += u64::from(accesses);
            count += 1;
        }
    }
    total as f64 / count as f64
}

/// The fill ratios in steady state with the current generation at `j`.
fn fills(f: &Apbf, j: u64) -> Vec<f64> {
    steady_fill_ratios(
        f.k() as usize,
        f.l() as usize,
        f.slice_bits() as f64,
        f.generation() as f64,
        j as f64,
    )
}

/// The false-positive rate at the worst point, for a row of Table 2, against
/// `F` with the fill ratios the filter really has there (`1 − 2^(−i/k)`, not
/// the paper's linear ramp: see docs/errata.md). A filter's rate depends on
/// its realised fills, so runs are the samples.
fn steady_fp(ctx: &Ctx, k: u32, l: u32, salt: u64) -> Outcome {
    let sample = (ctx.pick(4, 8), ctx.pick(100_000, 400_000));
    steady_fp_at(ctx, (k, l, ctx.pick(4_000, 10_000)), sample, salt)
}

/// [`steady_fp`] with generations of `g` items. Small `g` means slices of a
/// few hundred bits, where `F`'s independent slices need the probes'
/// placement spread (`ddf_apbf`'s `Placement`): the planner hands such
/// filters to the shards of a split window.
/// `points` worst points of `queries` queries each make a run.
fn steady_fp_at(
    ctx: &Ctx,
    (k, l, g): (u32, u32, u64),
    (points, queries): (usize, u64),
    salt: u64,
) -> Outcome {
    let seeds = ctx.seeds(salt, ctx.pick(12, 32));
    let runs = run_seeds(&seeds, threads(), |seed| {
        let mut f = sized(k, l, g);
        let hasher = KeyedSipHasher::with_seed(seed);
        let mut fresh = Fresh::new(seed);
        let rates = at_worst_points(&mut f, shape(k, l, g), &hasher, points, |f, _| {
            fresh.rate(queries, |d| f.contains(d))
        });
        rates.iter().sum::<f64>() / rates.len() as f64
    });
    let f = sized(k, l, g);
    let predicted = false_positive(k as usize, &fills(&f, g));
    let paper = false_positive(
        k as usize,
        &ddf_theory::apbf::worst_case_fill_ratios(k as usize, l as usize),
    );
    Outcome::runs(predicted, &runs).note(format!(
        "k = {k}, l = {l}, g = {g}, m = {}; {points} worst points × {queries} queries per run; \
         Table 2 (linear fills) {paper:.6}",
        f.slice_bits()
    ))
}

/// Just after a shift (one item in the new generation) the rate is at its
/// lowest: the other end of Figure 6's sawtooth.
fn fp_after_shift(ctx: &Ctx) -> Outcome {
    let (k, l) = (4, 3);
    let g = ctx.pick(4_000, 10_000);
    let queries = ctx.pick(100_000, 400_000);
    let points = ctx.pick(4, 8);
    let seeds = ctx.seeds(66, ctx.pick(12, 32));
    let runs = run_seeds(&seeds, threads(), |seed| {
        let mut f = sized(k, l, g);
        let hasher = KeyedSipHasher::with_seed(seed);
        let mut fresh = Fresh::new(seed);
        let mut id = 1u64 << 40;
        let rates = at_worst_points(&mut f, shape(k, l, g), &hasher, points, |f, _| {
            // One more insertion shifts; measure on a copy.
            let mut after = f.clone();
            after.insert(item(&hasher, id));
            id += 1;
            fresh.rate(queries, |d| after.contains(d))
        });
        rates.iter().sum::<f64>() / rates.len() as f64
    });
    let f = sized(k, l, g);
    Outcome::runs(false_positive(k as usize, &fills(&f, 1)), &runs).note(format!(
        "k = 4, l = 3, g = {g}; worst point {:.6}",
        false_positive(k as usize, &fills(&f, g))
    ))
}

/// Mean slices read by queries that return false, at the worst point,
/// against the A recursion with the real fill ratios.
fn accesses_false(ctx: &Ctx) -> Outcome {
    let (k, l) = (5, 7);
    let g = ctx.pick(2_000, 10_000);
    let queries = ctx.pick(20_000, 100_000);
    let seeds = ctx.seeds(67, ctx.pick(12, 32));
    let runs = run_seeds(&seeds, threads(), |seed| {
        let mut f = sized(k, l, g);
        let hasher = KeyedSipHasher::with_seed(seed);
        let mut fresh = Fresh::new(seed);
        let means = at_worst_points(&mut f, shape(k, l, g), &hasher, 4, |f, _| {
            mean_false_accesses(&mut fresh, queries, |d| f.query_accesses(d))
        });
        means.iter().sum::<f64>() / means.len() as f64
    });
    let f = sized(k, l, g);
    let q = query_cost(k as usize, &fills(&f, g));
    Outcome::runs(q.accesses_false, &runs).note(format!(
        "k = 5, l = 7, g = {g}; Table 2 prints 3.42 (linear fills)"
    ))
}

/// Mean slices read by queries for items of the window (ages `0..l`
/// generations, all full at the worst point) against the recursion.
fn accesses_window(ctx: &Ctx) -> Outcome {
    let (k, l) = (5, 7);
    let g = ctx.pick(2_000, 10_000);
    let seeds = ctx.seeds(68, ctx.pick(12, 32));
    let runs = run_seeds(&seeds, threads(), |seed| {
        let mut f = sized(k, l, g);
        let hasher = KeyedSipHasher::with_seed(seed);
        let means = at_worst_points(&mut f, shape(k, l, g), &hasher, 4, |f, gens| {
            let (mut total, mut count) = (0u64, 0u64);
            for generation in gens.iter().take(l as usize) {
                for id in generation.clone().step_by(3) {
                    let (seen, accesses) = f.query_accesses(item(&hasher, id));
                    assert!(seen, "a window item was not reported");
                    total += u64::from(accesses);
                    count += 1;
                }
            }
            total as f64 / count as f64
        });
        means.iter().sum::<f64>() / means.len() as f64
    });
    let f = sized(k, l, g);
    Outcome::runs(window_accesses(k as usize, &fills(&f, g)), &runs).note(format!(
        "k = 5, l = 7, g = {g}; Table 2 prints 6.17 (linear fills)"
    ))
}

/// Just before a shift, the share of the `k·g` items past the window that
/// are still reported, over `l·g`: the peak NPWS, against the recursion
/// over item ages (the paper's `Σ 2^(−i)/l` ignores the other windows such
/// an item may complete).
fn npws(ctx: &Ctx) -> Outcome {
    let (k, l) = (5u32, 7u32);
    let g = ctx.pick(2_000, 10_000);
    let seeds = ctx.seeds(69, ctx.pick(12, 32));
    let runs = run_seeds(&seeds, threads(), |seed| {
        let mut f = sized(k, l, g);
        let hasher = KeyedSipHasher::with_seed(seed);
        let shares = at_worst_points(&mut f, shape(k, l, g), &hasher, 4, |f, gens| {
            let reported: usize = (l..l + k)
                .map(|age| {
                    gens[age as usize]
                        .clone()
                        .filter(|&id| f.contains(item(&hasher, id)))
                        .count()
                })
                .sum();
            reported as f64 / (u64::from(l) * g) as f64
        });
        shares.iter().sum::<f64>() / shares.len() as f64
    });
    let f = sized(k, l, g);
    Outcome::runs(peak_npws_exact(k as usize, &fills(&f, g)), &runs).note(format!(
        "k = 5, l = 7, g = {g}; the paper's Σ 2^-i / l = {:.4}",
        peak_npws(k, l, 0.5)
    ))
}

fn no_fn(ctx: &Ctx) -> Outcome {
    // w = 7·2000: duplicates within the window are frequent over 2^15 ids.
    no_false_negatives(
        ctx,
        70,
        Window::Count(7 * 2_000),
        1 << 15,
        ctx.pick(300_000, 3_000_000),
        |_| sized(5, 7, 2_000),
    )
}

/// Poisson arrivals at half the capacity (a mean of g/2 items per period):
/// every item seen within the last `t` time units is reported.
fn no_fn_timed(ctx: &Ctx) -> Outcome {
    let (l, g, span) = (7u64, 2_000u64, 70_000u64);
    let period = span / l;
    let mean_gap = 2.0 * period as f64 / g as f64;
    no_false_negatives_timed(
        ctx,
        71,
        span,
        mean_gap,
        1 << 15,
        ctx.pick(300_000, 3_000_000),
        |_| {
            let f = sized(5, 7, g);
            Apbf::with_time_span(span, 5, 7, f.slice_bits()).expect("span ≥ 1")
        },
    )
}

/// A stream in which each item is, with probability `rate`, a copy of one
/// of the last `w` items, else new (Figure 7's uniform duplication).
struct Duplicating {
    rng: SplitMix64,
    recent: VecDeque<u64>,
    w: usize,
    rate: f64,
    next: u64,
}

impl Duplicating {
    fn new(seed: u64, w: usize, rate: f64) -> Self {
        Duplicating {
            rng: SplitMix64::new(seed),
            recent: VecDeque::with_capacity(w),
            w,
            rate,
            next: 0,
        }
    }

    fn next_id(&mut self) -> u64 {
        let id = if !self.recent.is_empty() && self.rng.chance(self.rate) {
            self.recent[self.rng.below(self.recent.len() as u64) as usize]
        } else {
            self.next += 1;
            self.next
        };
        if self.recent.len() == self.w {
            self.recent.pop_front();
        }
        self.recent.push_back(id);
        id
    }
}

/// The rate at the worst point on a duplicating stream, and the prediction
/// from the distinct items each slice really received: slice `i` holds the
/// items of generations `max(0, i − k + 1) ..= i` back, so its fill is
/// `1 − (1 − 1/m)^D_i` with `D_i` their distinct count.
pub(crate) fn duplicated_run(
    seed: u64,
    rate: f64,
    g: u64,
    queries: u64,
    points: usize,
) -> (f64, f64) {
    let (k, l) = (4u32, 3u32);
    let mut f = sized(k, l, g);
    let n = (k + l) as usize;
    let hasher = KeyedSipHasher::with_seed(seed);
    let mut stream = Duplicating::new(seed ^ 0xd0, (u64::from(l) * g) as usize, rate);
    let mut gens: VecDeque<Vec<u64>> = VecDeque::new();
    let mut fresh = Fresh::new(seed);
    let (mut measured, mut predicted) = (0.0, 0.0);
    for round in 0..n + 1 + points {
        let mut ids = Vec::with_capacity(g as usize);
        for _ in 0..g {
            let id = stream.next_id();
            f.insert(item(&hasher, id));
            ids.push(id);
        }
        gens.push_front(ids);
        gens.truncate(n);
        if round <= n {
            continue;
        }
        let m = f.slice_bits() as f64;
        let fills: Vec<f64> = (0..n)
            .map(|i| {
                let oldest = i;
                let newest = i.saturating_sub(k as usize - 1);
                let distinct: HashSet<u64> = (newest..=oldest)
                    .flat_map(|a| gens[a].iter().copied())
                    .collect();
                one_minus_pow1m(1.0 / m, distinct.len() as f64)
            })
            .collect();
        predicted += false_positive(k as usize, &fills);
        measured += fresh.rate(queries, |d| f.contains(d));
    }
    (measured / points as f64, predicted / points as f64)
}

/// The rate at the worst point of a (k = 4, l = 3) filter falls at every
/// step of the duplicate rate 0, 0.25, 0.5, 0.75 (Figure 7): the count of
/// falling steps must be 3.
fn duplicates_trend(ctx: &Ctx) -> Outcome {
    let rates = [0.0, 0.25, 0.5, 0.75];
    let g = ctx.pick(2_000, 5_000);
    let queries = ctx.pick(50_000, 200_000);
    let seeds = ctx.seeds(72, 4);
    let per_rate: Vec<f64> = rates
        .iter()
        .map(|&r| {
            let runs = run_seeds(&seeds, threads(), |seed| {
                duplicated_run(seed, r, g, queries, 2).0
            });
            runs.iter().sum::<f64>() / runs.len() as f64
        })
        .collect();
    let falling = per_rate.windows(2).filter(|p| p[1] < p[0]).count();
    Outcome::exact(3.0, falling as f64).note(format!(
        "k = 4, l = 3, g = {g}; worst-point rate at duplicate rates 0/0.25/0.5/0.75: {}",
        per_rate
            .iter()
            .map(|x| format!("{x:.4}"))
            .collect::<Vec<_>>()
            .join(" / ")
    ))
}

/// At duplicate rate 0.5 the measured rate against `F` with the fills the
/// distinct items predict: the sharing effect explains the fall. Each run
/// has its own prediction (its own distinct counts); samples are the
/// differences, recentred on the mean prediction.
fn fp_with_duplicates(ctx: &Ctx) -> Outcome {
    let g = ctx.pick(2_000, 5_000);
    let queries = ctx.pick(100_000, 400_000);
    let seeds = ctx.seeds(73, ctx.pick(12, 32));
    let runs = run_seeds(&seeds, threads(), |seed| {
        duplicated_run(seed, 0.5, g, queries, 3)
    });
    let predicted = runs.iter().map(|r| r.1).sum::<f64>() / runs.len() as f64;
    let samples: Vec<f64> = runs.iter().map(|r| r.0 - r.1 + predicted).collect();
    Outcome::runs(predicted, &samples).note(format!(
        "k = 4, l = 3, g = {g}, half the items copies of one of the last w; distinct-stream rate {:.4}",
        false_positive(4, &fills(&sized(4, 3, g), g))
    ))
}
