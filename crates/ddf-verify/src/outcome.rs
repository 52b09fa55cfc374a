//! The result of one check, and the statistical rules that decide it.

use ddf_theory::stats::{clopper_pearson_interval, mean_interval};
use serde::Serialize;

/// Two-sided confidence of every statistical tolerance. With about a hundred
/// checks, a correct theory and a correct filter fail one of them by chance
/// with probability about 1 %; the seeds are fixed, so a run is reproducible.
pub const CONFIDENCE: f64 = 0.9999;

/// Predicted against measured, with the tolerance and how it was derived.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    /// What the theory says.
    pub predicted: f64,
    /// What the simulation gave.
    pub measured: f64,
    /// The largest |measured − predicted| (or distance past a bound) accepted.
    pub tolerance: f64,
    /// Where the tolerance comes from.
    pub rule: String,
    /// Whether the measurement agrees with the prediction under the rule.
    pub pass: bool,
    /// Parameters and raw counts, for the reader of the report.
    pub note: String,
}

impl Outcome {
    /// A predicted probability `p` against `successes` in `trials` independent
    /// Bernoulli trials: passes if `p` lies in the Clopper–Pearson interval,
    /// whose coverage is at least [`CONFIDENCE`] for every `p` (and which is
    /// tighter than Wilson's near 0 at this level, where rare-event checks live).
    pub fn binomial(p: f64, successes: u64, trials: u64) -> Outcome {
        let (lo, hi, measured) = interval(successes, trials);
        Outcome {
            predicted: p,
            measured,
            tolerance: (hi - measured).max(measured - lo),
            rule: format!(
                "Clopper–Pearson {CONFIDENCE} interval [{lo:.6}, {hi:.6}] of {successes}/{trials}"
            ),
            pass: lo <= p && p <= hi,
            note: String::new(),
        }
    }

    /// A predicted mean against one measurement per independent run: passes
    /// if the prediction lies in the Student-t interval of the runs. Used when
    /// the items of one run are not independent (the filter's state is shared).
    pub fn runs(predicted: f64, samples: &[f64]) -> Outcome {
        match mean_interval(samples, CONFIDENCE) {
            Some(ci) => Outcome {
                predicted,
                measured: ci.mean,
                tolerance: ci.half_width,
                rule: format!(
                    "Student-t {CONFIDENCE} interval over {} runs (sd {:.3e})",
                    ci.runs, ci.std_dev
                ),
                pass: ci.contains(predicted),
                note: String::new(),
            },
            None => Outcome {
                predicted,
                measured: samples.first().copied().unwrap_or(f64::NAN),
                tolerance: 0.0,
                rule: "needs at least two runs".into(),
                pass: false,
                note: String::new(),
            },
        }
    }

    /// A published claim that the measurement should refute: passes if
    /// `claim` lies outside the Student-t interval of the runs, that is, if a
    /// two-sided test of the mean rejects it at [`CONFIDENCE`]. The runs are
    /// independent, as for [`runs`](Self::runs); the check shows a paper's
    /// statement failing without turning the verify run red.
    pub fn refutes(claim: f64, samples: &[f64]) -> Outcome {
        let mut out = Outcome::runs(claim, samples);
        if out.rule != "needs at least two runs" {
            out.pass = !out.pass;
            out.rule = format!("claim refuted if outside the {}", out.rule);
        }
        out
    }

    /// A lower bound on a mean measured once per independent run: passes
    /// unless the whole Student-t interval of the runs lies below `bound`.
    pub fn runs_at_least(bound: f64, samples: &[f64]) -> Outcome {
        let mut out = Outcome::runs(bound, samples);
        if let Some(ci) = mean_interval(samples, CONFIDENCE) {
            out.pass = ci.hi() >= bound;
            out.rule = format!(
                "lower bound: the Student-t {CONFIDENCE} interval over {} runs must reach it",
                ci.runs
            );
        }
        out
    }

    /// A bound `p` on a probability against `successes` in `trials` trials
    /// that are independent given the filter's state, each with probability
    /// at most `p`: passes unless the data show the rate above `p`, i.e.
    /// unless `p` lies below the lower end of the Clopper–Pearson interval.
    ///
    /// The count is then stochastically at most Binomial(`trials`, `p`), so a
    /// correct bound fails with probability at most (1 − [`CONFIDENCE`])/2,
    /// the one-sided tail of the two-sided interval. A rate far below the
    /// bound passes: this rule tests a guarantee, not a prediction.
    pub fn binomial_at_most(p: f64, successes: u64, trials: u64) -> Outcome {
        let (lo, hi, measured) = interval(successes, trials);
        Outcome {
            predicted: p,
            measured,
            tolerance: measured - lo,
            rule: format!(
                "bound: Clopper–Pearson {CONFIDENCE} interval [{lo:.6}, {hi:.6}] of \
                 {successes}/{trials} must not lie above it"
            ),
            pass: lo <= p,
            note: String::new(),
        }
    }

    /// A lower bound `p` on a probability against `successes` in `trials`
    /// independent trials, each succeeding with probability at least `p`:
    /// passes unless the data show the rate below `p`, i.e. unless `p` lies
    /// above the upper end of the Clopper–Pearson interval. The mirror of
    /// [`binomial_at_most`](Self::binomial_at_most): the count is then
    /// stochastically at least Binomial(`trials`, `p`), so a correct bound
    /// fails with probability at most (1 − [`CONFIDENCE`])/2.
    pub fn binomial_at_least(p: f64, successes: u64, trials: u64) -> Outcome {
        let (lo, hi, measured) = interval(successes, trials);
        Outcome {
            predicted: p,
            measured,
            tolerance: hi - measured,
            rule: format!(
                "lower bound: Clopper–Pearson {CONFIDENCE} interval [{lo:.6}, {hi:.6}] of \
                 {successes}/{trials} must not lie below it"
            ),
            pass: hi >= p,
            note: String::new(),
        }
    }

    /// A deterministic quantity against a guaranteed upper bound (a space
    /// target, a deadline): passes if `measured ≤ bound`. The reason says
    /// where the bound comes from.
    pub fn at_most(bound: f64, measured: f64, reason: &str) -> Outcome {
        Outcome {
            predicted: bound,
            measured,
            tolerance: 0.0,
            rule: format!("at most the bound: {reason}"),
            pass: measured <= bound,
            note: String::new(),
        }
    }

    /// An exact prediction (a count of errors that must be zero, a size).
    pub fn exact(predicted: f64, measured: f64) -> Outcome {
        Outcome {
            predicted,
            measured,
            tolerance: 0.0,
            rule: "exact".into(),
            pass: predicted == measured,
            note: String::new(),
        }
    }

    /// A prediction with a relative tolerance whose reason is written out.
    pub fn relative(predicted: f64, measured: f64, rel: f64, reason: &str) -> Outcome {
        let tolerance = rel * predicted.abs();
        Outcome {
            predicted,
            measured,
            tolerance,
            rule: format!("relative {rel}: {reason}"),
            pass: (measured - predicted).abs() <= tolerance,
            note: String::new(),
        }
    }

    /// Adds context to the report.
    pub fn note(mut self, note: impl Into<String>) -> Outcome {
        self.note = note.into();
        self
    }
}

/// The Clopper–Pearson interval at [`CONFIDENCE`] and the point estimate.
fn interval(successes: u64, trials: u64) -> (f64, f64, f64) {
    let (lo, hi) = clopper_pearson_interval(successes, trials, CONFIDENCE);
    (lo, hi, ratio(successes, trials))
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomial_accepts_truth_and_rejects_far_values() {
        assert!(Outcome::binomial(0.1, 1_000, 10_000).pass);
        assert!(!Outcome::binomial(0.12, 1_000, 10_000).pass);
    }

    #[test]
    fn bounds_pass_below_and_fail_clearly_above() {
        // 1,000 in 100,000 is 1% ± 0.03%: a 1.1% bound holds, 0.8% does not.
        assert!(Outcome::binomial_at_most(0.011, 1_000, 100_000).pass);
        assert!(Outcome::binomial_at_most(0.5, 0, 100).pass);
        assert!(!Outcome::binomial_at_most(0.008, 1_000, 100_000).pass);
        assert!(Outcome::binomial_at_least(0.009, 1_000, 100_000).pass);
        assert!(!Outcome::binomial_at_least(0.012, 1_000, 100_000).pass);
        assert!(Outcome::at_most(2.0, 2.0, "equal").pass);
        assert!(!Outcome::at_most(2.0, 2.5, "above").pass);
    }

    #[test]
    fn refutation_passes_only_far_from_the_claim() {
        let samples = [0.99, 1.01, 1.0, 1.0];
        assert!(Outcome::refutes(0.0, &samples).pass);
        assert!(!Outcome::refutes(1.0, &samples).pass);
        assert!(!Outcome::refutes(0.0, &[1.0]).pass);
    }

    #[test]
    fn runs_need_spread_and_agreement() {
        assert!(Outcome::runs(1.0, &[0.99, 1.01, 1.0, 1.0]).pass);
        assert!(!Outcome::runs(1.5, &[0.99, 1.01, 1.0, 1.0]).pass);
        assert!(!Outcome::runs(1.0, &[1.0]).pass);
        assert!(Outcome::runs_at_least(0.5, &[0.99, 1.01, 1.0, 1.0]).pass);
        assert!(!Outcome::runs_at_least(1.5, &[0.99, 1.01, 1.0, 1.0]).pass);
    }
}
