//! Sizing without building (APBF paper §5): what an APBF of `(k, l, m)`
//! costs and gets wrong, and the `(k, l, m)` a target or a budget asks for.

use crate::core::time_period;
use crate::{Apbbf, Apbf};
use ddf_core::{Goal, ParamError, Prediction};
use ddf_theory::apbf::{
    apbbf_bits_per_item, apbbf_segment_rates, choose_parameters, false_positive, generation_size,
    peak_npws, query_cost, slice_bits_for_generation, steady_fill_ratios,
};

/// The `(k, l)` a budget search tries: `k ≤ 32`, `l ≤ 64`, beyond every
/// configuration of the paper's tables (`k + l ≤ 75`).
const BUDGET_MAX_K: u32 = 32;
const BUDGET_MAX_L: u32 = 64;

/// The predicted rate, expected accesses and generation of `(k, l, m)` at
/// the filter's worst point (every generation full, just before a shift).
fn predict(k: u32, l: u32, m: u64) -> Result<(f64, f64, u64), ParamError> {
    let (g, _) = Apbf::check(k, l, m)?;
    let r = steady_fill_ratios(k as usize, l as usize, m as f64, g as f64, g as f64);
    let cost = query_cost(k as usize, &r);
    if cost.accesses_false.is_nan() {
        return Err(ParamError::new(
            "k",
            k,
            format!(
                "(l + 1)·k² ≤ {} for the access prediction (l = {l})",
                ddf_theory::apbf::QUERY_COST_MAX_STATES
            ),
        ));
    }
    // An unseen item: the query's expected slice reads, then k bit writes.
    Ok((
        false_positive(k as usize, &r),
        cost.accesses_false + f64::from(k),
        g,
    ))
}

impl Apbf {
    /// What [`new`](Apbf::new)`(k, l, m)` predicts, without building it: its
    /// `(k + l)·m` bits, the false-positive rate at the worst point
    /// ([`false_positive`] over [`steady_fill_ratios`] of full generations),
    /// no misses within the window `l·g`, slack `k·g` insertions, and the
    /// expected slice reads of a negative query ([`query_cost`]) plus `k`
    /// writes.
    ///
    /// Fails as `new` does, or (parameter `k`) when the access prediction's
    /// table, `(l + 1)·k²` states, exceeds
    /// [`QUERY_COST_MAX_STATES`](ddf_theory::apbf::QUERY_COST_MAX_STATES):
    /// work and memory stay bounded for every input.
    pub fn sizing(k: u32, l: u32, m: u64) -> Result<Prediction, ParamError> {
        let (fpr, accesses, g) = predict(k, l, m)?;
        Ok(
            Prediction::exact_window(u64::from(k + l) * m, fpr, accesses)
                .with_slack(u64::from(k).saturating_mul(g)),
        )
    }

    /// What [`with_time_span`](Apbf::with_time_span)`(span, k, l, m)`
    /// predicts while at most `g` items arrive per generation period
    /// `τ = ⌈t/l⌉`: as
    /// [`sizing`](Self::sizing), with a slack of `k·τ` time units.
    pub fn sizing_timed(span: u64, k: u32, l: u32, m: u64) -> Result<Prediction, ParamError> {
        let (fpr, accesses, _) = predict(k, l, m)?;
        let period = time_period(k, l, span)?;
        Ok(
            Prediction::exact_window(u64::from(k + l) * m, fpr, accesses)
                .with_slack(u64::from(k).saturating_mul(period)),
        )
    }

    /// The `(k, l, m)` for `goal`, where `generation(l)` is the number of
    /// insertions one of `l` window generations must hold (`⌈w/l⌉` for a
    /// count window of `w`).
    ///
    /// A target: `(k, l)` by [`choose_parameters`] with peak NPWS at most
    /// [`DEFAULT_NPWS`](crate::DEFAULT_NPWS), then the least `m` whose
    /// generation holds `generation(l)`. A budget: among `k ≤ 32`, `l ≤ 64`
    /// with `m = ⌊budget/(k + l)⌋` large enough, the pair with the least
    /// rate at the worst point. Either way the result passes
    /// [`sizing`](Self::sizing).
    pub fn parameters_for(
        goal: Goal,
        generation: impl Fn(u32) -> u64,
    ) -> Result<(u32, u32, u64), ParamError> {
        match goal {
            Goal::Fpr(p) => {
                let p = ddf_param::ensure_probability("fpr", p)?;
                let (k, l) = choose_parameters(p, crate::DEFAULT_NPWS).ok_or_else(|| {
                    ParamError::new("fpr", p, "a rate some (k, l) with k + l ≤ 4096 reaches")
                })?;
                let m = slice_bits_for_generation(generation(l) as f64, f64::from(k));
                let m = if m.is_finite() && m >= 1.0 {
                    m as u64
                } else {
                    0
                };
                predict(k, l, m)?;
                Ok((k, l, m))
            }
            Goal::Budget(budget) => {
                let mut best: Option<(f64, u32, u32, u64)> = None;
                for k in 1..=BUDGET_MAX_K {
                    for l in 1..=BUDGET_MAX_L {
                        let m = budget / u64::from(k + l);
                        if m == 0 || generation_size(m as f64, f64::from(k)) < generation(l) as f64
                        {
                            continue;
                        }
                        let Ok((fp, _, _)) = predict(k, l, m) else {
                            continue;
                        };
                        if best.is_none_or(|b| fp < b.0) {
                            best = Some((fp, k, l, m));
                        }
                    }
                }
                let (_, k, l, m) = best.ok_or_else(|| {
                    ParamError::new(
                        "memory_bits",
                        budget,
                        format!(
                            "enough bits for k + l slices of the generation of some k ≤ {BUDGET_MAX_K}, l ≤ {BUDGET_MAX_L}"
                        ),
                    )
                })?;
                Ok((k, l, m))
            }
        }
    }
}

/// The parameters of an [`Apbbf`]: `k`, `l`, blocks per segment and the
/// block shape `(B, b)`, as [`Apbbf::new`] takes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApbbfParameters {
    /// `k`, segments per item.
    pub k: u32,
    /// `l`, extra segments.
    pub l: u32,
    /// Blocks per segment.
    pub blocks: u64,
    /// `B`, bits per block (64 or 512).
    pub block_bits: u32,
    /// `b`, bits set per item in a block.
    pub bits_per_block: u32,
}

/// How many times the fewest bits per window item an APBBF may take for
/// fewer segments ([`Apbbf::parameters_for`]): 1.1.
///
/// The `l` with the fewest bits is the largest that meets the rate, and an
/// unseen item's query reads about `l/k` segments, each a cache line
/// beyond the caches. The planner's shape at `fpr(1e-3)`, `k = 2`,
/// `B = 512`, `b = 8`, measured at a window of 2^25 in steady state
/// (`observe_batch` in blocks of 64, AMD EPYC): `l = 40` takes 24.4 bits
/// per item and 301–326 ns an item, `l = 20` 25.6 bits and 129–152 ns,
/// `l = 10` 27.9 bits and 83–90 ns (its rate falls with `l`, to 2.5·10^-4).
/// Expected accesses alone do not rank shapes: `k = 7, l = 24, b = 2` reads
/// about 12 lines against 23 for `k = 2, l = 40`, but writes 7, and took
/// 318–430 ns.
pub const APBBF_SEGMENT_TOLERANCE: f64 = 1.1;

/// The block shapes `(B, b)` a search tries: every shape [`Apbbf::new`]
/// accepts, a word or a cache line per block.
const APBBF_SHAPES: [(u32, u32); 8] = [
    (512, 2),
    (512, 4),
    (512, 8),
    (64, 2),
    (64, 4),
    (64, 8),
    (64, 16),
    (64, 32),
];

/// [`apbbf_segment_rates`]`(k, BUDGET_MAX_L, B, b)` for a shape of
/// [`APBBF_SHAPES`] and `k ≤ BUDGET_MAX_K`, computed once per process: the
/// searches of [`Apbbf::parameters_for`] read all `8·32` tables, about 10^8
/// instructions of Poisson sums, which every plan would otherwise repeat.
/// Only the `k` distinct rates are kept (about 34 KB); the full segments
/// repeat the last.
fn search_rates(shape: usize, k: u32) -> Vec<f64> {
    static DISTINCT: std::sync::OnceLock<Vec<Vec<f64>>> = std::sync::OnceLock::new();
    let table = DISTINCT.get_or_init(|| {
        APBBF_SHAPES
            .iter()
            .flat_map(|&(bb, b)| {
                // With l = 0: the k distinct rates, the last the full one.
                (1..=BUDGET_MAX_K).map(move |k| apbbf_segment_rates(k as usize, 0, bb, b))
            })
            .collect()
    });
    let distinct = &table[shape * BUDGET_MAX_K as usize + (k as usize - 1)];
    let full = distinct[distinct.len() - 1];
    let mut rates = distinct.clone();
    rates.resize((k + BUDGET_MAX_L) as usize, full);
    rates
}

/// The rate at the worst point (Table 3's) and the expected accesses of
/// an unseen item, from the segment rates of full generations.
fn predict_blocked(k: u32, rates: &[f64]) -> Result<(f64, f64), ParamError> {
    let cost = query_cost(k as usize, rates);
    if cost.accesses_false.is_nan() {
        return Err(ParamError::new(
            "k",
            k,
            format!(
                "(l + 1)·k² ≤ {} for the access prediction",
                ddf_theory::apbf::QUERY_COST_MAX_STATES
            ),
        ));
    }
    // An unseen item: the query's expected segment reads, then k writes.
    Ok((
        false_positive(k as usize, rates),
        cost.accesses_false + f64::from(k),
    ))
}

impl Apbbf {
    /// What [`new`](Apbbf::new)`(k, l, blocks, block_bits, bits_per_block)`
    /// predicts, without building it: its `(k + l)·blocks·B` bits, the
    /// false-positive rate at the worst point (every generation at the
    /// blocks' capacity, [`apbbf_segment_rates`] as in the APBF paper's
    /// Table 3), no misses within the window `l·g`, slack `k·g`, and the
    /// expected segment reads of a negative query plus `k` writes.
    ///
    /// Fails as `new` does, or (parameter `k`) when the access prediction's
    /// table, `(l + 1)·k²` states, exceeds
    /// [`QUERY_COST_MAX_STATES`](ddf_theory::apbf::QUERY_COST_MAX_STATES).
    pub fn sizing(
        k: u32,
        l: u32,
        blocks: u64,
        block_bits: u32,
        bits_per_block: u32,
    ) -> Result<Prediction, ParamError> {
        let (g, _, _) = Apbbf::check(k, l, blocks, block_bits, bits_per_block)?;
        let rates = apbbf_segment_rates(k as usize, l as usize, block_bits, bits_per_block);
        let (fpr, accesses) = predict_blocked(k, &rates)?;
        let bits = u64::from(k + l) * blocks * u64::from(block_bits);
        Ok(
            Prediction::exact_window(bits, fpr, accesses)
                .with_slack(u64::from(k).saturating_mul(g)),
        )
    }

    /// What [`with_time_span`](Apbbf::with_time_span)`(span, k, l, blocks,
    /// block_bits, bits_per_block)` predicts, with the same arguments, while
    /// at most `g` items arrive per generation period `τ = ⌈t/l⌉`: as
    /// [`sizing`](Self::sizing), with a slack of `k·τ` time units.
    pub fn sizing_timed(
        span: u64,
        k: u32,
        l: u32,
        blocks: u64,
        block_bits: u32,
        bits_per_block: u32,
    ) -> Result<Prediction, ParamError> {
        let p = Self::sizing(k, l, blocks, block_bits, bits_per_block)?;
        let period = time_period(k, l, span)?;
        Ok(p.with_slack(u64::from(k).saturating_mul(period)))
    }

    /// The parameters for `goal`, where `generation(l)` is the number of
    /// insertions one of `l` window generations must hold (`⌈w/l⌉` for a
    /// count window of `w`). Every block shape `(B, b)` [`new`](Self::new)
    /// accepts and `k ≤ 32`, `l ≤ 64` are searched (beyond the paper's
    /// Tables 3 and 4, `k ≤ 3`, `l ≤ 8`).
    ///
    /// - A target `fp`: for each shape and `k`, the largest `l` whose rate
    ///   at the worst point is at most `fp` (the rate grows with `l`) and
    ///   whose peak NPWS, `Σ_{i<k} r^i/l` with `r` a full segment's rate
    ///   (Table 3's column), is at most
    ///   [`DEFAULT_NPWS`](crate::DEFAULT_NPWS); among those, the fewest bits
    ///   per window item ([`apbbf_bits_per_item`]), a cache-line block on a
    ///   tie. Then, for that shape and `k`, the fewest segments: the least
    ///   `l` within [`APBBF_SEGMENT_TOLERANCE`] of those bits whose peak
    ///   NPWS is within the bound and whose parameters `accept` takes (the
    ///   caller's bound on the slack `k·g`, which grows as `l` shrinks), or
    ///   the largest `l` if none is. Then the fewest blocks whose generation
    ///   holds `generation(l)`.
    /// - A budget: among the same shapes and `(k, l)` with
    ///   `blocks = ⌊budget/((k + l)·B)⌋` large enough, the least rate
    ///   (`accept` is not asked).
    ///
    /// Either way the result passes [`sizing`](Self::sizing). The work is
    /// bounded: at most `8·32` segment-rate tables of `k + 64` Poisson sums,
    /// `8·32·64` rate evaluations and, for a target, 64 sizings.
    pub fn parameters_for(
        goal: Goal,
        generation: impl Fn(u32) -> u64,
        accept: impl Fn(&ApbbfParameters) -> bool,
    ) -> Result<ApbbfParameters, ParamError> {
        // (bits per item or rate, k, l, B, b) of the best so far.
        let mut best: Option<(f64, u32, u32, u32, u32)> = None;
        let mut consider = |score: f64, k, l, bb, b| {
            if best.is_none_or(|x| score < x.0) {
                best = Some((score, k, l, bb, b));
            }
        };
        match goal {
            Goal::Fpr(p) => {
                let p = ddf_param::ensure_probability("fpr", p)?;
                for (shape, (bb, b)) in APBBF_SHAPES.into_iter().enumerate() {
                    for k in 1..=BUDGET_MAX_K {
                        let rates = search_rates(shape, k);
                        let fp_at = |l: u32| false_positive(k as usize, &rates[..(k + l) as usize]);
                        let full = rates[rates.len() - 1];
                        // The rate grows with l: bisect for the largest l that meets p.
                        if fp_at(1) > p {
                            continue;
                        }
                        let (mut lo, mut hi) = (1, BUDGET_MAX_L + 1);
                        while hi - lo > 1 {
                            let mid = lo + (hi - lo) / 2;
                            if fp_at(mid) <= p {
                                lo = mid;
                            } else {
                                hi = mid;
                            }
                        }
                        let l = lo;
                        if peak_npws(k, l, full) <= crate::DEFAULT_NPWS {
                            consider(apbbf_bits_per_item(k, l, bb, b), k, l, bb, b);
                        }
                    }
                }
                let (fewest, k, l_max, bb, b) = best.ok_or_else(|| {
                    ParamError::new(
                        "fpr",
                        p,
                        format!(
                            "a rate some block shape with k ≤ {BUDGET_MAX_K}, l ≤ {BUDGET_MAX_L} reaches"
                        ),
                    )
                })?;
                let shape = APBBF_SHAPES
                    .iter()
                    .position(|&s| s == (bb, b))
                    .expect("the best is a searched shape");
                let rates = search_rates(shape, k);
                let full = rates[rates.len() - 1];
                let with_l = |l: u32| ApbbfParameters {
                    k,
                    l,
                    blocks: crate::blocked::blocks_for_generation(generation(l), k, bb, b),
                    block_bits: bb,
                    bits_per_block: b,
                };
                // An unseen item reads about l/k segments, each a cache line
                // beyond the caches: the fewest within the tolerance.
                let chosen = (1..l_max)
                    .filter(|&l| {
                        apbbf_bits_per_item(k, l, bb, b) <= APBBF_SEGMENT_TOLERANCE * fewest
                            && false_positive(k as usize, &rates[..(k + l) as usize]) <= p
                            && peak_npws(k, l, full) <= crate::DEFAULT_NPWS
                    })
                    .map(with_l)
                    .find(|s| Apbbf::sizing(s.k, s.l, s.blocks, bb, b).is_ok() && accept(s))
                    .unwrap_or_else(|| with_l(l_max));
                Apbbf::sizing(k, chosen.l, chosen.blocks, bb, b)?;
                Ok(chosen)
            }
            Goal::Budget(budget) => {
                for (shape, (bb, b)) in APBBF_SHAPES.into_iter().enumerate() {
                    for k in 1..=BUDGET_MAX_K {
                        let rates = search_rates(shape, k);
                        for l in 1..=BUDGET_MAX_L {
                            let blocks = budget / (u64::from(k + l) * u64::from(bb));
                            let need =
                                crate::blocked::blocks_for_generation(generation(l), k, bb, b);
                            if blocks == 0 || blocks < need {
                                continue;
                            }
                            let fp = false_positive(k as usize, &rates[..(k + l) as usize]);
                            consider(fp, k, l, bb, b);
                        }
                    }
                }
                let (_, k, l, bb, b) = best.ok_or_else(|| {
                    ParamError::new(
                        "memory_bits",
                        budget,
                        format!(
                            "enough bits for k + l segments of the generation of some block shape, k ≤ {BUDGET_MAX_K}, l ≤ {BUDGET_MAX_L}"
                        ),
                    )
                })?;
                let blocks = budget / (u64::from(k + l) * u64::from(bb));
                Apbbf::sizing(k, l, blocks, bb, b)?;
                Ok(ApbbfParameters {
                    k,
                    l,
                    blocks,
                    block_bits: bb,
                    bits_per_block: b,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ddf_core::DuplicateFilter;

    #[test]
    fn search_rates_are_the_theory_tables() {
        for (shape, (bb, b)) in APBBF_SHAPES.into_iter().enumerate() {
            for k in 1..=BUDGET_MAX_K {
                let want = apbbf_segment_rates(k as usize, BUDGET_MAX_L as usize, bb, b);
                assert_eq!(search_rates(shape, k), want, "B = {bb}, b = {b}, k = {k}");
            }
        }
    }

    #[test]
    fn sizing_matches_the_built_filter() {
        let s = Apbf::sizing(13, 22, 10_000).unwrap();
        let f = Apbf::new(13, 22, 10_000).unwrap();
        assert_eq!(s.memory_bits, f.memory_bits());
        assert_eq!(s.slack, 13 * f.generation());
        assert!(s.fpr > 0.0 && s.fpr < 0.01 && !s.false_negatives);
    }

    #[test]
    fn sizing_rejects_what_new_rejects_and_bounds_its_work() {
        for (k, l, m) in [(0, 3, 100), (3, 0, 100), (4000, 200, 100), (13, 22, 1)] {
            let new = Apbf::new(k, l, m).unwrap_err().param();
            assert_eq!(Apbf::sizing(k, l, m).unwrap_err().param(), new);
        }
        // Buildable, but the access table would hold 925·997² states.
        assert_eq!(Apbf::sizing(997, 924, 2000).unwrap_err().param(), "k");
    }

    /// A target takes the fewest segments within the tolerance of the
    /// fewest bits, only where `accept` takes them, and the fewest bits'
    /// `l` when it takes none.
    #[test]
    fn apbbf_targets_take_the_fewest_segments_accepted() {
        let generation = |l: u32| (1u64 << 20).div_ceil(l.into());
        let all = Apbbf::parameters_for(Goal::Fpr(0.001), generation, |_| true).unwrap();
        let none = Apbbf::parameters_for(Goal::Fpr(0.001), generation, |_| false).unwrap();
        // The least bits: the largest l that meets the rate.
        assert_eq!(
            (none.k, none.l, none.block_bits, none.bits_per_block),
            (2, 40, 512, 8)
        );
        assert_eq!((all.k, all.block_bits, all.bits_per_block), (2, 512, 8));
        let bits =
            |s: &ApbbfParameters| apbbf_bits_per_item(s.k, s.l, s.block_bits, s.bits_per_block);
        assert!(all.l < none.l && bits(&all) <= APBBF_SEGMENT_TOLERANCE * bits(&none));
        // One segment fewer is beyond the tolerance.
        let fewer = ApbbfParameters {
            l: all.l - 1,
            ..all
        };
        assert!(bits(&fewer) > APBBF_SEGMENT_TOLERANCE * bits(&none));
        for s in [&all, &none] {
            let p = Apbbf::sizing(s.k, s.l, s.blocks, s.block_bits, s.bits_per_block).unwrap();
            assert!(p.fpr <= 0.001);
        }
        // A slack bound between the two: the least l it accepts.
        let bounded = Apbbf::parameters_for(Goal::Fpr(0.001), generation, |s| s.l >= 20).unwrap();
        assert_eq!(bounded.l, 20);
    }

    #[test]
    fn parameters_meet_the_goal() {
        let (k, l, m) =
            Apbf::parameters_for(Goal::Fpr(0.001), |l| 10_000u64.div_ceil(l.into())).unwrap();
        assert_eq!((k, l), (13, 22));
        let s = Apbf::sizing(k, l, m).unwrap();
        assert!(s.fpr <= 0.001);
        let (k, l, m) =
            Apbf::parameters_for(Goal::Budget(200_000), |l| 10_000u64.div_ceil(l.into())).unwrap();
        assert!(u64::from(k + l) * m <= 200_000);
        assert!(Apbf::parameters_for(Goal::Budget(10), |_| 1000).is_err());
        assert!(Apbf::parameters_for(Goal::Fpr(1e-300), |l| 100u64.div_ceil(l.into())).is_err());
    }
}
