//! One adapter per family: the requirements in the family's units, its own
//! parameter chooser and sizing function, and the [`Candidate`] — or, in
//! words, why the family has none. No family rule lives here: every check
//! and prediction is the family crate's (or `ddf-theory`'s).

use super::{Candidate, Need};
#[cfg(any(
    feature = "exact",
    feature = "shf",
    feature = "apbf",
    feature = "sliding",
    feature = "bloom",
    feature = "qht",
    feature = "cuckoo"
))]
use {super::Config, ddf_core::ParamError};

/// What an adapter gives for one family.
type Sized = (&'static str, Result<Candidate, String>);

/// Windows up to which the queued candidates are planned: their theory sums
/// over the `c` insertions of each subfilter for every `L` compared, about
/// 0.6 s of planning per 2^20 window items in a release build (`ddf plan
/// --window 1048576 --max-memory 4MiB --misses-ok`).
#[cfg(all(feature = "queue", any(feature = "bloom", feature = "qht")))]
pub(crate) const MAX_QUEUE_WINDOW: u64 = 1 << 20;

/// The most subfilters a queued candidate compares (§5.4's search range;
/// the paper's optima are near ten).
#[cfg(all(feature = "queue", feature = "bloom"))]
const MAX_QUEUE_SUBFILTERS: u64 = 64;

/// One family's adapter: its candidate for the requirements, or why none.
type Adapter = fn(&Need) -> Result<Candidate, String>;

/// Every family compiled in, by name: the planner's one list of families.
const FAMILIES: &[(&str, Adapter)] = &[
    #[cfg(feature = "exact")]
    ("exact window", |n| count_only(n).and_then(|w| exact(n, w))),
    #[cfg(feature = "shf")]
    ("SHF", |n| count_only(n).and_then(|w| shf(n, w, false))),
    #[cfg(feature = "shf")]
    ("compact SHF", |n| {
        count_only(n).and_then(|w| shf(n, w, true))
    }),
    #[cfg(feature = "apbf")]
    ("APBF", |n| windowed(n).and_then(|()| apbf(n))),
    #[cfg(feature = "apbf")]
    ("APBBF", |n| windowed(n).and_then(|()| apbbf(n))),
    #[cfg(feature = "sliding")]
    ("sliding Bloom", |n| windowed(n).and_then(|()| sliding(n))),
    #[cfg(all(feature = "queue", feature = "bloom"))]
    ("queued Bloom", |n| {
        count_only(n)
            .and_then(|w| misses_allowed(n).map(|()| w))
            .and_then(|w| queued_bloom(n, w))
    }),
    #[cfg(all(feature = "queue", feature = "qht"))]
    ("queued QHT", |n| {
        count_only(n)
            .and_then(|w| misses_allowed(n).map(|()| w))
            .and_then(|w| queued_qht(n, w))
    }),
    #[cfg(feature = "bloom")]
    ("partitioned Bloom", |n| {
        unbounded_only(n).and_then(|()| bloom(n))
    }),
    #[cfg(feature = "qht")]
    ("QHT", |n| {
        unbounded_only(n).and_then(|()| match n.distinct {
            Some(_) => qht(n),
            None => saturated(n, |m, p| {
                let (rows, k, s) = ddf_qht::Qht::saturated_parameters_for(m, p)?;
                let config = Config::Qht {
                    rows,
                    cells_per_row: k,
                    fingerprint_bits: s,
                };
                Ok((config, ddf_qht::Qht::saturated_sizing(rows, k, s)?))
            }),
        })
    }),
    #[cfg(feature = "qht")]
    ("QHTD", |n| {
        saturated_only(n).and_then(|()| {
            saturated(n, |m, p| {
                let (rows, k, s) = ddf_qht::Qhtd::saturated_parameters_for(m, p)?;
                let config = Config::Qhtd {
                    rows,
                    cells_per_row: k,
                    fingerprint_bits: s,
                };
                Ok((config, ddf_qht::Qhtd::saturated_sizing(rows, k, s)?))
            })
        })
    }),
    #[cfg(feature = "qht")]
    ("QQHTD", |n| {
        saturated_only(n).and_then(|()| {
            saturated(n, |m, p| {
                let (rows, k, s) = ddf_qht::Qqhtd::saturated_parameters_for(m, p)?;
                let config = Config::Qqhtd {
                    rows,
                    cells_per_row: k,
                    fingerprint_bits: s,
                };
                Ok((config, ddf_qht::Qqhtd::saturated_sizing(rows, k, s)?))
            })
        })
    }),
    #[cfg(feature = "qht")]
    ("SQF", |n| {
        saturated_only(n).and_then(|()| {
            saturated(n, |m, p| {
                let (rows, k, r, r_prime) = ddf_qht::Sqf::saturated_parameters_for(m, p)?;
                let config = Config::Sqf {
                    rows,
                    cells_per_row: k,
                    r,
                    r_prime,
                };
                Ok((config, ddf_qht::Sqf::saturated_sizing(rows, k, r, r_prime)?))
            })
        })
    }),
    #[cfg(feature = "cuckoo")]
    ("streaming cuckoo", |n| {
        saturated_only(n).and_then(|()| {
            saturated(n, |m, p| {
                use ddf_cuckoo::StreamingCuckoo as C;
                let (buckets, b, f) = C::saturated_parameters_for(m, p)?;
                let config = Config::Cuckoo {
                    buckets,
                    cells_per_bucket: b,
                    fingerprint_bits: f,
                };
                Ok((config, C::saturated_sizing(buckets, b, f)?))
            })
        })
    }),
    #[cfg(feature = "bloom")]
    ("Stable Bloom", |n| {
        saturated_only(n).and_then(|()| {
            saturated(n, |m, p| {
                use ddf_bloom::StableBloom as S;
                let (cells, d, k, decrements) = S::saturated_parameters_for(m, p)?;
                let config = Config::StableBloom {
                    cells,
                    cell_bits: d,
                    probes: k,
                    decrements,
                };
                Ok((config, S::saturated_sizing(cells, d, k, decrements)?))
            })
        })
    }),
    #[cfg(feature = "bloom")]
    ("A2", |n| {
        saturated_only(n).and_then(|()| {
            saturated(n, |m, p| {
                use ddf_bloom::A2;
                let (buffer_bits, k, capacity) = A2::saturated_parameters_for(m, p)?;
                let config = Config::A2 {
                    buffer_bits,
                    probes: k,
                    capacity,
                };
                Ok((config, A2::saturated_sizing(buffer_bits, k, capacity)?))
            })
        })
    }),
];

/// Every family compiled in, sized for `need`.
pub(super) fn size_all(need: &Need) -> Vec<Sized> {
    FAMILIES
        .iter()
        .map(|&(name, size)| (name, size(need)))
        .collect()
}

/// A [`ParamError`] as an exclusion reason.
#[cfg(any(
    feature = "exact",
    feature = "shf",
    feature = "apbf",
    feature = "sliding",
    feature = "bloom",
    feature = "qht",
    feature = "cuckoo"
))]
fn why(e: ParamError) -> String {
    e.to_string()
}

/// The count window, for families the planner sizes by insertions only.
#[cfg(any(
    feature = "exact",
    feature = "shf",
    all(feature = "queue", any(feature = "bloom", feature = "qht"))
))]
fn count_only(need: &Need) -> Result<u64, String> {
    if need.unbounded {
        Err("answers for a window; the stream is unbounded".into())
    } else if need.time.is_some() {
        Err("planned for count windows only; a time window was asked for".into())
    } else {
        Ok(need.items)
    }
}

/// Count or time windows, not the whole stream.
#[cfg(any(feature = "apbf", feature = "sliding"))]
fn windowed(need: &Need) -> Result<(), String> {
    if need.unbounded {
        Err("answers for a window; the stream is unbounded".into())
    } else {
        Ok(())
    }
}

/// The whole stream only: these filters never forget.
#[cfg(any(feature = "bloom", feature = "qht"))]
fn unbounded_only(need: &Need) -> Result<(), String> {
    if need.unbounded {
        Ok(())
    } else {
        Err("never forgets, so reports every item older than the window".into())
    }
}

/// An unbounded stream with no count of distinct items: the families that
/// forget are rated at saturation.
#[cfg(any(feature = "bloom", feature = "qht", feature = "cuckoo"))]
fn saturated_only(need: &Need) -> Result<(), String> {
    if !need.unbounded {
        Err("forgets by eviction, not by age: planned for the whole stream only".into())
    } else if need.distinct.is_some() {
        Err("predicted at saturation only: planned when distinct_items is not given".into())
    } else {
        Ok(())
    }
}

/// A family rated at saturation (an unbounded stream in fixed memory, no
/// `distinct_items`): its shape for the budget and the saturated FPR target
/// (`target_fpr`, else [`SATURATED_FPR`](super::SATURATED_FPR)), and its
/// saturated prediction, both the family crate's (`saturated_parameters_for`
/// and `saturated_sizing`).
#[cfg(any(feature = "bloom", feature = "qht", feature = "cuckoo"))]
fn saturated(
    need: &Need,
    size: impl FnOnce(u64, f64) -> Result<(Config, ddf_core::Prediction), ParamError>,
) -> Result<Candidate, String> {
    let budget = need.budget.ok_or(
        "an unbounded stream without distinct_items is planned in fixed memory (memory_budget)",
    )?;
    let fpr = need.target.unwrap_or(super::SATURATED_FPR);
    let (config, p) = size(budget, fpr).map_err(why)?;
    Ok(Candidate::new(config, p, None, need.seed).at_saturation())
}

/// The count of distinct items, which some predictions need.
#[cfg(any(feature = "bloom", feature = "qht"))]
fn distinct(need: &Need) -> Result<f64, String> {
    need.distinct
        .ok_or_else(|| "needs the number of distinct items (distinct_items)".into())
}

/// The budget, which some families are sized by.
#[cfg(any(feature = "qht", all(feature = "queue", feature = "bloom")))]
fn budget(need: &Need) -> Result<u64, String> {
    need.budget
        .ok_or_else(|| "sized by a memory budget (memory_budget)".into())
}

/// Theorem 1's FIFO and counting dictionary ([`ddf_exact::ExactWindow::sizing`]).
#[cfg(feature = "exact")]
fn exact(need: &Need, w: u64) -> Result<Candidate, String> {
    let p = ddf_exact::ExactWindow::sizing(w).map_err(why)?;
    Ok(Candidate::new(
        Config::Exact { window: w },
        p,
        Some(w),
        need.seed,
    ))
}

/// SHF or CSHF: the family's hash width for the goal, then its sizing.
#[cfg(feature = "shf")]
fn shf(need: &Need, w: u64, compact: bool) -> Result<Candidate, String> {
    use ddf_shf::{CompactShf, Shf};
    let goal = need.goal;
    let (h, p) = if compact {
        let h = CompactShf::hash_bits_for(w, goal).map_err(why)?;
        (h, CompactShf::sizing(w, h).map_err(why)?)
    } else {
        let h = Shf::hash_bits_for(w, goal).map_err(why)?;
        (h, Shf::sizing(w, h).map_err(why)?)
    };
    let config = if compact {
        Config::CompactShf {
            window: w,
            hash_bits: h,
        }
    } else {
        Config::Shf {
            window: w,
            hash_bits: h,
        }
    };
    Ok(Candidate::new(config, p, Some(w), need.seed))
}

/// The arrivals a time slice of `⌈span/parts⌉` must hold for Poisson
/// arrivals at rate `λ`, and that slice.
#[cfg(feature = "apbf")]
fn arrivals_per(span: u64, parts: u64, rate: f64) -> (u64, u64) {
    let slice = span.div_ceil(parts.max(1));
    let mean = slice as f64 * rate;
    let cap = ddf_theory::stream::poisson_arrival_bound(mean, super::ARRIVAL_TAIL).ceil();
    (slice, (cap as u64).max(1))
}

/// The insertions one of `l` window generations must hold: `⌈w/l⌉` for a
/// count window, the arrivals of one time slice `⌈t/l⌉` for a time window.
#[cfg(feature = "apbf")]
fn generation_of(need: &Need, l: u32) -> u64 {
    match need.time {
        Some((span, rate)) => arrivals_per(span, u64::from(l), rate).1,
        None => need.items.div_ceil(u64::from(l)),
    }
}

/// APBF: the family's `(k, l, m)` for the goal, each of the `l` window
/// generations holding [`generation_of`], then its sizing.
#[cfg(feature = "apbf")]
fn apbf(need: &Need) -> Result<Candidate, String> {
    use ddf_apbf::Apbf;
    let (k, l, m) = Apbf::parameters_for(need.goal, |l| generation_of(need, l)).map_err(why)?;
    let p = match need.time {
        Some((span, _)) => Apbf::sizing_timed(k, l, m, span),
        None => Apbf::sizing(k, l, m),
    }
    .map_err(why)?;
    let window = need.time.map_or(need.items, |(span, _)| span);
    let config = Config::Apbf {
        k,
        l,
        slice_bits: m,
        time_span: need.time.map(|(t, _)| t),
    };
    Ok(Candidate::new(config, p, Some(window), need.seed))
}

/// APBBF (APBF paper §6): the family's block shape and `(k, l)` for the
/// goal, each generation holding [`generation_of`], then its sizing.
#[cfg(feature = "apbf")]
fn apbbf(need: &Need) -> Result<Candidate, String> {
    use ddf_apbf::Apbbf;
    let s = Apbbf::parameters_for(need.goal, |l| generation_of(need, l)).map_err(why)?;
    let (k, l, blocks, bb, b) = (s.k, s.l, s.blocks, s.block_bits, s.bits_per_block);
    let p = match need.time {
        Some((span, _)) => Apbbf::sizing_timed(k, l, blocks, bb, b, span),
        None => Apbbf::sizing(k, l, blocks, bb, b),
    }
    .map_err(why)?;
    let window = need.time.map_or(need.items, |(span, _)| span);
    let config = Config::Apbbf {
        k,
        l,
        blocks,
        block_bits: bb,
        bits_per_block: b,
        time_span: need.time.map(|(t, _)| t),
    };
    Ok(Candidate::new(config, p, Some(window), need.seed))
}

/// The Naor–Yogev sliding Bloom filter with the slack accepted: `ε` = the
/// target, or the least `ε` whose table fits the budget.
#[cfg(feature = "sliding")]
fn sliding(need: &Need) -> Result<Candidate, String> {
    use ddf_sliding::{Slack, SlidingBloom};
    let slack = match need.max_slack {
        u64::MAX => Slack::LeastSpace,
        s => Slack::AtMost(s),
    };
    let (window, capacity) = match need.time {
        Some((span, _)) => (span, Some(need.items)),
        None => (need.items, None),
    };
    let epsilon = match need.goal {
        ddf_core::Goal::Fpr(p) => p,
        ddf_core::Goal::Budget(m) => {
            SlidingBloom::epsilon_for_budget(window, slack, capacity, m).map_err(why)?
        }
    };
    let s = SlidingBloom::sizing_for(window, slack, capacity, epsilon).map_err(why)?;
    let config = Config::Sliding {
        window,
        slack,
        epsilon,
        capacity,
    };
    Ok(Candidate::new(
        config,
        s.prediction(),
        Some(window),
        need.seed,
    ))
}

/// Whether misses within the window are accepted, asked before a queued
/// candidate is sized: a queue always drops the oldest items of its window
/// at a rotation, and its sizing sums over every insertion of a subfilter
/// (about 0.6 s at a window of 2^20), work wasted when misses are refused.
#[cfg(all(feature = "queue", any(feature = "bloom", feature = "qht")))]
fn misses_allowed(need: &Need) -> Result<(), String> {
    if need.misses_ok {
        Ok(())
    } else {
        Err("misses items within the window (the oldest at each rotation); allow_false_negatives(true) accepts it".into())
    }
}

/// The window a queued candidate is planned for, within the work bound.
#[cfg(all(feature = "queue", any(feature = "bloom", feature = "qht")))]
fn queue_window(w: u64) -> Result<u64, String> {
    if w > MAX_QUEUE_WINDOW {
        Err(format!(
            "planned for windows up to {MAX_QUEUE_WINDOW} (its theory sums over every insertion)"
        ))
    } else {
        Ok(w)
    }
}

/// The queuing construction over partitioned Bloom subfilters (§5.4):
/// `ddf_queue::plan_for_window` picks `L` for the least predicted
/// `FPR + FNR` on the stream, each subfilter shaped by
/// `PartitionedBloom::parameters_for` for its share of the budget; the
/// rate reported is Theorem 7's on distinct items, the worst case.
#[cfg(all(feature = "queue", feature = "bloom"))]
fn queued_bloom(need: &Need, w: u64) -> Result<Candidate, String> {
    use ddf_bloom::PartitionedBloom;
    use ddf_theory::bloom::{negative_query_accesses, partitioned_fp, slice_fill_ratio};
    use ddf_theory::queue::fpr_queue;
    use ddf_theory::stream::expected_distinct;
    let budget = budget(need)?;
    let w = queue_window(w)?;
    let shape = |b: f64, c: u64| {
        PartitionedBloom::parameters_for(c as f64, ddf_core::Goal::Budget(b as u64)).ok()
    };
    // A subfilter's FP_η after η insertions of which `distinct(η)` are
    // distinct items: all of them on a stream of distinct items (the FPR's
    // worst case), the expected count on the uniform stream the FNR is
    // predicted for (repeats set no new bits, and an older subfilter's false
    // positive is what rescues a dropped duplicate).
    let model = |b: f64, c: u64, distinct: fn(f64, f64) -> f64, alphabet: f64| {
        let s = shape(b, c);
        (
            move |eta: f64| {
                s.map_or(1.0, |(k, m)| {
                    partitioned_fp(distinct(eta, alphabet), m as f64, f64::from(k))
                })
            },
            |_: f64| 0.0,
        )
    };
    let all_distinct: fn(f64, f64) -> f64 = |eta, _| eta;
    let alphabet = need.distinct.unwrap_or(2f64.powi(64));
    let plan = ddf_queue::plan_for_window(
        w,
        budget,
        alphabet,
        MAX_QUEUE_SUBFILTERS.min(w) as usize,
        |b, c| model(b, c, expected_distinct, alphabet),
    )
    .map_err(why)?;
    let (l, c) = (plan.subfilters as u64, plan.capacity);
    let (k, m) =
        PartitionedBloom::parameters_for(c as f64, ddf_core::Goal::Budget(plan.subfilter_bits))
            .map_err(why)?;
    let worst = fpr_queue(
        &model(plan.subfilter_bits as f64, c, all_distinct, alphabet),
        l,
        c,
    );
    let r = slice_fill_ratio(c as f64, m as f64);
    let mut p = plan.prediction(
        w,
        u64::from(k) * m,
        negative_query_accesses(k, r),
        f64::from(k),
    );
    p.fpr = worst;
    let config = Config::QueuedBloom {
        subfilters: plan.subfilters,
        capacity: c,
        slices: k,
        slice_bits: m,
    };
    Ok(Candidate::new(config, p, Some(w), need.seed))
}

/// The most subfilters a queued QHT compares: the FPR grows with `L`, and
/// beyond 16 a budget of a few bits per item leaves rows too short.
#[cfg(all(feature = "queue", feature = "qht"))]
const MAX_QUEUED_QHT_SUBFILTERS: u64 = 16;

/// A queue of one-cell-per-row QHTs (§5 over the QHT of the QHT paper)
/// within the budget and meeting the target: for every `L`, the narrowest
/// fingerprint whose Theorem 7 rate on distinct items
/// ([`queue_fpr_one_cell`](ddf_theory::qht::queue_fpr_one_cell), exact
/// there) meets the target; among those, the `L` with the least predicted
/// `FPR + FNR` (the FNR from the product of Theorems 5–8 with
/// [`QhtSubfilter`](ddf_theory::qht::QhtSubfilter)). The FNR reported is
/// [`queue_rates_fixed_hash`](ddf_theory::qht::queue_rates_fixed_hash)'s
/// when the distinct items are known and its sum is small, the product's
/// otherwise.
#[cfg(all(feature = "queue", feature = "qht"))]
fn queued_qht(need: &Need, w: u64) -> Result<Candidate, String> {
    let budget = budget(need)?;
    let target = need
        .target
        .ok_or("sized for a target within a budget (target_fpr and memory_budget)")?;
    queued_qht_for(w, target, budget, need.distinct, need.seed)
}

/// The rule of [`queued_qht`] for a count window `w`, a target, a budget
/// and (if known) the distinct items of the stream: shared with
/// [`crate::queued_qht`], which searches the budget.
#[cfg(all(feature = "queue", feature = "qht"))]
pub(crate) fn queued_qht_for(
    w: u64,
    target: f64,
    budget: u64,
    distinct: Option<f64>,
    seed: u64,
) -> Result<Candidate, String> {
    use ddf_qht::Qht;
    use ddf_theory::qht::{QhtSubfilter, queue_fpr_one_cell, queue_rates_fixed_hash};
    use ddf_theory::queue::{capacity_for_window, fnr_queue};
    let w = queue_window(w)?;
    let alphabet = distinct.unwrap_or(2f64.powi(64));
    let values = Qht::fingerprint_values;
    // (ER, L, c, N, s, FPR, FNR) of the best L so far.
    let mut best: Option<(f64, u64, u64, u64, u32, f64, f64)> = None;
    for l in 2..=MAX_QUEUED_QHT_SUBFILTERS.min(w.max(2)) {
        let c = capacity_for_window(w, l);
        if ddf_queue::check_shape(l as usize, c).is_err() {
            continue;
        }
        let fits = (1..=32u32).find_map(|s| {
            let rows = budget / l / u64::from(s);
            Qht::sizing(rows, 1, s, alphabet).ok()?;
            let fpr = queue_fpr_one_cell(rows as f64, values(s), l, c);
            (fpr <= target).then_some((rows, s, fpr))
        });
        let Some((rows, s, fpr)) = fits else { continue };
        let model = QhtSubfilter::new(rows as f64, 1, values(s), c, alphabet);
        let fnr = fnr_queue(&model, l, c, alphabet);
        if fnr.is_finite() && best.is_none_or(|b| fpr + fnr < b.0) {
            best = Some((fpr + fnr, l, c, rows, s, fpr, fnr));
        }
    }
    let (_, l, c, rows, s, fpr, mut fnr) = best.ok_or_else(|| {
        format!("no L ≤ {MAX_QUEUED_QHT_SUBFILTERS} and fingerprint ≤ 32 bits meets target_fpr within memory_budget")
    })?;
    if let Some(u) = distinct {
        // The fixed-hash mixture sums about (14√(U/N) + 15)·(14√(U/(N·S)) + 15)
        // terms of O(c) each; keep it below 2^26 model steps.
        let (n, sv) = (rows as f64, values(s));
        let terms = (14.0 * (u / n).sqrt() + 15.0) * (14.0 * (u / (n * sv)).sqrt() + 15.0);
        if terms * c as f64 <= f64::from(1u32 << 26) {
            fnr = queue_rates_fixed_hash(n, sv, l, c, u).1;
        }
    }
    let sub = Qht::sizing(rows, 1, s, alphabet).map_err(why)?;
    let plan = ddf_queue::Plan {
        subfilters: l as usize,
        capacity: c,
        subfilter_bits: sub.memory_bits,
        predicted_fpr: fpr,
        predicted_fnr: fnr,
    };
    // Every subfilter's row read, the newest's written: a QHT's accesses each.
    let p = plan.prediction(w, sub.memory_bits, sub.accesses, sub.accesses);
    let config = Config::QueuedQht {
        subfilters: l as usize,
        capacity: c,
        rows,
        fingerprint_bits: s,
    };
    Ok(Candidate::new(config, p, Some(w), seed))
}

/// A partitioned Bloom filter over the whole stream, which never forgets:
/// only when the number of distinct items is known
/// ([`PartitionedBloom::parameters_for`](ddf_bloom::PartitionedBloom::parameters_for)).
#[cfg(feature = "bloom")]
fn bloom(need: &Need) -> Result<Candidate, String> {
    use ddf_bloom::PartitionedBloom;
    let n = distinct(need)?;
    let (k, m) = PartitionedBloom::parameters_for(n, need.goal).map_err(why)?;
    let p = PartitionedBloom::sizing(k, m, n).map_err(why)?;
    let config = Config::Bloom {
        slices: k,
        slice_bits: m,
    };
    Ok(Candidate::new(config, p, None, need.seed))
}

/// QHT (QHT paper §4): [`Qht::parameters_for`](ddf_qht::Qht::parameters_for)
/// within the budget, for the distinct items given.
#[cfg(feature = "qht")]
fn qht(need: &Need) -> Result<Candidate, String> {
    use ddf_qht::Qht;
    let budget = budget(need)?;
    let n = distinct(need)?;
    let (rows, k, s) = Qht::parameters_for(budget, n, need.target).map_err(why)?;
    let p = Qht::sizing(rows, k, s, n).map_err(why)?;
    let config = Config::Qht {
        rows,
        cells_per_row: k,
        fingerprint_bits: s,
    };
    Ok(Candidate::new(config, p, None, need.seed))
}
