//! The quotient hash tables: QHT (whole stream, distinct items known or
//! at saturation), QHTD, QQHTD and SQF (at saturation), and a queue of
//! one-cell-per-row QHTs (count windows, misses allowed) with its
//! constructors, which `ddf-queue` cannot hold (it depends on no subfilter
//! family).

use super::*;
use ddf_qht::{Qht, Qhtd, Qqhtd, Sqf};

/// QHT (QHT paper §4): [`Qht::parameters_for`] within the budget for
/// the distinct items given, else its saturated shape.
pub(crate) fn qht(need: &Need) -> Result<Candidate, String> {
    unbounded_only(need)?;
    if need.distinct.is_none() {
        return saturated(need, |m, p| {
            let (rows, k, s) = Qht::saturated_parameters_for(m, p)?;
            let config = Config::Qht {
                rows,
                cells_per_row: k,
                fingerprint_bits: s,
            };
            Ok((config, Qht::saturated_sizing(rows, k, s)?))
        });
    }
    let budget = budget(need)?;
    let n = distinct(need)?;
    let (rows, k, s) = Qht::parameters_within(budget, n, need.target()).map_err(why)?;
    let p = Qht::sizing(rows, k, s, n).map_err(why)?;
    let config = Config::Qht {
        rows,
        cells_per_row: k,
        fingerprint_bits: s,
    };
    Ok(Candidate::new(config, p, None, need.seed))
}

/// QHTD at saturation.
pub(crate) fn qhtd(need: &Need) -> Result<Candidate, String> {
    saturated_only(need)?;
    saturated(need, |m, p| {
        let (rows, k, s) = Qhtd::saturated_parameters_for(m, p)?;
        let config = Config::Qhtd {
            rows,
            cells_per_row: k,
            fingerprint_bits: s,
        };
        Ok((config, Qhtd::saturated_sizing(rows, k, s)?))
    })
}

/// QQHTD at saturation.
pub(crate) fn qqhtd(need: &Need) -> Result<Candidate, String> {
    saturated_only(need)?;
    saturated(need, |m, p| {
        let (rows, k, s) = Qqhtd::saturated_parameters_for(m, p)?;
        let config = Config::Qqhtd {
            rows,
            cells_per_row: k,
            fingerprint_bits: s,
        };
        Ok((config, Qqhtd::saturated_sizing(rows, k, s)?))
    })
}

/// SQF at saturation.
pub(crate) fn sqf(need: &Need) -> Result<Candidate, String> {
    saturated_only(need)?;
    saturated(need, |m, p| {
        let (rows, k, r, r_prime) = Sqf::saturated_parameters_for(m, p)?;
        let config = Config::Sqf {
            rows,
            cells_per_row: k,
            r,
            r_prime,
        };
        Ok((config, Sqf::saturated_sizing(rows, k, r, r_prime)?))
    })
}

#[cfg(feature = "queue")]
pub use queued::queued_qht;
#[cfg(feature = "queue")]
pub(crate) use queued::{build_queued, queued};

#[cfg(feature = "queue")]
/// The queue of one-cell-per-row QHTs: its constructor and its rule.
mod queued {
    use super::*;
    use crate::queued::{MAX_QUEUE_WINDOW, eligible, queue_window};
    use ddf_queue::Queue;

    /// The seed of the subfilters' generators (subfilter `i` gets `seed + i`).
    const SEED: u64 = 0xddf0_5eed_0000_0001;

    /// `L` one-cell-per-row QHTs of `N` rows and `s`-bit fingerprints, `c`
    /// insertions each, subfilter `i` seeded with `seed + i`: what the
    /// planner's `Config::QueuedQht` builds.
    pub(crate) fn build_queued(
        subfilters: usize,
        capacity: u64,
        rows: u64,
        fingerprint_bits: u32,
        seed: u64,
    ) -> Result<Queue<Qht>, ParamError> {
        Queue::new(subfilters, capacity, |i| {
            Ok(Qht::new(rows, 1, fingerprint_bits)?.with_seed(seed.wrapping_add(i as u64)))
        })
    }

    /// A queue of one-cell-per-row QHTs (the queuing construction of the
    /// sliding-window paper §5 over the QHT of the QHT paper §4) for a window of
    /// `window` insertions (1..=2^20) whose predicted false-positive **and**
    /// false-negative rates are both at most `fpr` (in `(0, 1)`), on a uniform
    /// stream of distinct items (the planner's default).
    ///
    /// A QHT forgets by overwriting, so the least memory that meets a
    /// false-positive target alone is degenerate (one row per subfilter: every
    /// item in the window forgotten); bounding the misses too is what makes the
    /// size meaningful. The rule is the planner's for a target within a budget
    /// (for every `L ≤ 16`, the narrowest fingerprint whose Theorem 7 rate meets
    /// the target; among those the `L` with the least `FPR + FNR`), applied to
    /// the least budget, found by doubling and then bisection to 1 %, at which
    /// its prediction also has `FNR ≤ fpr`. The work is at most about 16
    /// evaluations of that rule (below 0.1 s at `window = 4000` in a test
    /// build).
    ///
    /// Fails (parameter `window` or `fpr`) outside those ranges, or when no
    /// budget below the exact window's state, `w·(log₂ w + 128)` bits
    /// ([`exact_memory_bits`](ddf_theory::sliding_window::exact_memory_bits)
    /// for 64-bit digests), gives both rates: an exact filter is then smaller
    /// and makes no errors.
    ///
    /// ```
    /// use ddf::{DuplicateFilter, queued_qht};
    /// let f = queued_qht(1000, 0.05)?;
    /// assert!(f.memory_bits() > 0);
    /// # Ok::<(), ddf::ParamError>(())
    /// ```
    pub fn queued_qht(window: u64, fpr: f64) -> Result<Queue<Qht>, ParamError> {
        let w = ddf_param::ensure_range("window", window, 1..=MAX_QUEUE_WINDOW)?;
        let fpr = ddf_param::ensure_probability("fpr", fpr)?;
        // The shape (L, c, rows, s) of the rule's queue at `budget`, when it
        // meets both rates.
        let meets = |budget: u64| {
            let c = queued_rule(w, fpr, budget, None, SEED).ok()?;
            match c.config {
                crate::Config::QueuedQht {
                    subfilters,
                    capacity,
                    rows,
                    fingerprint_bits,
                } if c.fnr <= fpr && c.fpr <= fpr => {
                    Some((subfilters, capacity, rows, fingerprint_bits))
                }
                _ => None,
            }
        };
        // Beyond the exact window's state (Theorem 1 over 64-bit digests) an
        // exact filter, with no errors at all, is the smaller choice.
        let exact = ddf_theory::sliding_window::exact_memory_bits(w as f64, 2f64.powi(64)) as u64;
        // Doubling from one bit per window item: the least power of two that
        // meets both rates bounds the search.
        let mut hi = w;
        let mut best = loop {
            if let Some(c) = meets(hi.min(exact)) {
                hi = hi.min(exact);
                break c;
            }
            if hi >= exact {
                return Err(ParamError::new(
                    "fpr",
                    fpr,
                    format!(
                        "a rate a queue of QHTs reaches for both false positives and false \
                         negatives in less than the {exact} bits of the exact window of {w} \
                         items (the exact window, which makes no errors)"
                    ),
                ));
            }
            hi *= 2;
        };
        let mut lo = hi / 2;
        // To 1 %, or to one bit for small budgets (hi/100 = 0 would not end).
        while hi - lo > (hi / 100).max(1) {
            let mid = lo + (hi - lo) / 2;
            match meets(mid) {
                Some(c) => {
                    hi = mid;
                    best = c;
                }
                None => lo = mid,
            }
        }
        let (subfilters, capacity, rows, fingerprint_bits) = best;
        build_queued(subfilters, capacity, rows, fingerprint_bits, SEED)
    }

    /// The most subfilters a queued QHT compares: the FPR grows with `L`, and
    /// beyond 16 a budget of a few bits per item leaves rows too short.
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
    pub(crate) fn queued(need: &Need) -> Result<Candidate, String> {
        let w = eligible(need)?;
        let budget = budget(need)?;
        let target = need
            .target()
            .ok_or("sized for a target within a budget (fpr and memory_budget)")?;
        queued_rule(w, target, budget, need.distinct, need.seed)
    }

    /// The rule of [`queued`] for a count window `w`, a target, a budget
    /// and (if known) the distinct items of the stream: shared with
    /// [`queued_qht`], which searches the budget.
    pub(crate) fn queued_rule(
        w: u64,
        target: f64,
        budget: u64,
        distinct: Option<f64>,
        seed: u64,
    ) -> Result<Candidate, String> {
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
            format!("no L ≤ {MAX_QUEUED_QHT_SUBFILTERS} and fingerprint ≤ 32 bits meets fpr within memory_budget")
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

    #[cfg(test)]
    mod tests {
        use super::*;
        use ddf_core::{DuplicateFilter, Window, Windowed};

        #[test]
        fn bad_input_is_named() {
            let param = |r: Result<Queue<Qht>, ParamError>| r.unwrap_err().param();
            assert_eq!(param(queued_qht(0, 0.01)), "window");
            assert_eq!(param(queued_qht(MAX_QUEUE_WINDOW + 1, 0.01)), "window");
            assert_eq!(param(queued_qht(1000, 0.0)), "fpr");
            assert_eq!(param(queued_qht(1000, 1.5)), "fpr");
            // Small windows end (a budget search to one bit) with a queue or
            // a named error.
            for w in 1..=40 {
                if let Err(e) = queued_qht(w, 0.3) {
                    assert_eq!(e.param(), "fpr", "w = {w}");
                }
            }
        }

        #[test]
        fn measured_rates_are_within_the_target() {
            // Distinct items; every step a fresh item is queried (a false
            // positive if reported) and, every 7th step, an item of the window
            // at an age spread evenly over 1..=w (a false negative if missed).
            // Both counts stay below the binomial's 10^-6 upper quantile at the
            // target.
            let (w, fpr) = (1_000u64, 0.05);
            let mut f = queued_qht(w, fpr).unwrap();
            // The queue's window is c·L ≥ w insertions (the planner's model,
            // Theorems 7 and 8).
            assert!(matches!(f.window(), Window::Count(len) if len >= w));
            let steps = 40 * w;
            let (mut fp, mut fn_, mut repeats) = (0, 0, 0);
            for i in 0..steps {
                fp += u64::from(f.contains(ddf_core::Digest::mixed(i | 1 << 63)));
                if i % 7 == 0 && i >= w {
                    repeats += 1;
                    let age = 1 + (i * 7_919) % w;
                    fn_ += u64::from(!f.contains(ddf_core::Digest::mixed(i - age)));
                }
                f.insert(ddf_core::Digest::mixed(i));
            }
            let q = ddf_theory::stats::binomial_upper_quantile;
            assert!(fp <= q(steps, fpr, 1e-6), "{fp} false positives in {steps}");
            assert!(fn_ <= q(repeats, fpr, 1e-6), "{fn_} misses in {repeats}");
        }
    }
}
