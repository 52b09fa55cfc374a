//! Confidence intervals that turn "simulation agrees with theory" into a pass/fail test.
//!
//! `cargo xtask verify` and the family crates' statistical tests decide
//! pass/fail with these functions and nothing else: a measured rate passes
//! when the predicted probability lies inside the confidence interval of the
//! measurement, at a confidence level stated next to the check. No tolerance
//! is a tuned constant.
//!
//! - A rate counted over independent trials (false positives among unseen
//!   items of a uniform stream): [`wilson_interval`] with
//!   `z = z_for_confidence(level)`, or the never-anticonservative
//!   [`clopper_pearson_interval`] when counts are small or zero.
//! - A quantity averaged over independent runs (an error rate per seeded run,
//!   whose per-item outcomes are correlated within a run): [`mean_interval`],
//!   `mean ± t·s/√n` with the Student-t quantile of [`student_t_quantile`].
//!
//! With many checks in one run, the level should be high (0.9999 and up) so
//! that a correct implementation almost never fails by chance; a wrong
//! formula is off by far more than such an interval's width once the trial
//! count is in the millions.
//!
//! ```
//! use ddf_theory::stats::{clopper_pearson_interval, wilson_interval, z_for_confidence};
//!
//! // 5120 false positives among 1_000_000 unseen items; theory says p = 0.005.
//! let z = z_for_confidence(0.9999);
//! let (lo, hi) = wilson_interval(5120, 1_000_000, z);
//! assert!(lo <= 0.005 && 0.005 <= hi);
//! // Zero events in 10^9 trials still gives a useful upper bound.
//! let (lo, hi) = clopper_pearson_interval(0, 1_000_000_000, 0.9999);
//! assert_eq!(lo, 0.0);
//! assert!(hi < 1e-8);
//! ```

mod binomial;
mod fit;
mod normal;
mod student_t;

pub use binomial::{
    binomial_cdf, binomial_pmf, binomial_sf, binomial_upper_quantile, clopper_pearson_interval,
    wilson_interval,
};
pub use fit::{LineFit, linear_fit};
pub use normal::{normal_quantile, z_for_confidence};
pub use student_t::{
    MeanInterval, mean_interval, student_t_quantile, student_t_sf, t_for_confidence,
};

/// The two-sided tail mass `α/2 = (1 − confidence)/2`.
///
/// # Panics
///
/// If `confidence` is not strictly between 0 and 1.
fn half_alpha(confidence: f64) -> f64 {
    assert!(
        confidence > 0.0 && confidence < 1.0,
        "confidence level must lie strictly between 0 and 1, got {confidence}"
    );
    // 1 − c is exact for c ≥ 0.5 (Sterbenz), which keeps levels like 0.999999 precise.
    0.5 * (1.0 - confidence)
}
