//! The result of one check, and the statistical rules that decide it.

use ddf_theory::stats::{clopper_pearson_interval, mean_interval};
use serde::Serialize;

/// Two-sided confidence of every statistical tolerance. With about a hundred
/// checks, a correct theory and a correct filter fail one of them by chance
/// with probability about 1 %; the seeds are fixed, so a run is reproducible.
pub(crate) const CONFIDENCE: f64 = 0.9999;

/// Predicted against measured, with the tolerance and how it was derived.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Outcome {
    pub(crate) predicted: f64,
    pub(crate) measured: f64,
    /// The largest |measured − predicted| (or distance past a bound) accepted.
    pub(crate) tolerance: f64,
    /// Where the tolerance comes from.
    pub(crate) rule: String,
    pub(crate) pass: bool,
    /// Parameters and raw counts, for the reader of the report.
    pub(crate) note: String,
}

impl Outcome {
    /// A predicted probability `p` against `successes` in `trials` independent
    /// Bernoulli trials: passes if `p` lies in the Clopper–Pearson interval,
    /// whose coverage is at least [`CONFIDENCE`] for every `p` (and which is
    /// tighter than Wilson's near 0 at this level, where rare-event checks live).
    pub(crate) fn binomial(p: f64, successes: u64, trials: u64) -> Outcome {
        let (lo, hi) = clopper_pearson_interval(successes, trials, CONFIDENCE);
        let measured = ratio(successes, trials);
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
    pub(crate) fn runs(predicted: f64, samples: &[f64]) -> Outcome {
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
    pub(crate) fn refutes(claim: f64, samples: &[f64]) -> Outcome {
        let mut out = Outcome::runs(claim, samples);
        if out.rule != "needs at least two runs" {
            out.pass = !out.pass;
            out.rule = format!("claim refuted if outside the {}", out.rule);
        }
        out
    }

    /// An exact prediction (a count of errors that must be zero, a size).
    pub(crate) fn exact(predicted: f64, measured: f64) -> Outcome {
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
    pub(crate) fn relative(predicted: f64, measured: f64, rel: f64, reason: &str) -> Outcome {
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
    pub(crate) fn note(mut self, note: impl Into<String>) -> Outcome {
        self.note = note.into();
        self
    }
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
    }
}
