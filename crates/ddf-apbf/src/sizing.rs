//! Sizing without building (APBF paper §5): what an APBF of `(k, l, m)`
//! costs and gets wrong, and the `(k, l, m)` a target or a budget asks for.

use crate::Apbf;
use crate::core::time_period;
use ddf_core::{Goal, ParamError, Prediction};
use ddf_theory::apbf::{
    choose_parameters, false_positive, generation_size, query_cost, slice_bits_for_generation,
    steady_fill_ratios,
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

    /// What `new(k, l, m)?.timed(span)` predicts while at most `g`
    /// items arrive per generation period `τ = ⌈t/l⌉`: as
    /// [`sizing`](Self::sizing), with a slack of `k·τ` time units.
    pub fn sizing_timed(k: u32, l: u32, m: u64, span: u64) -> Result<Prediction, ParamError> {
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
                let p = ddf_param::ensure_probability("fp", p)?;
                let (k, l) = choose_parameters(p, crate::DEFAULT_NPWS).ok_or_else(|| {
                    ParamError::new("fp", p, "a rate some (k, l) with k + l ≤ 4096 reaches")
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

#[cfg(test)]
mod tests {
    use super::*;
    use ddf_core::DuplicateFilter;

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
