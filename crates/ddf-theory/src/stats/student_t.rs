//! Student's t distribution and the `mean ± t·s/√n` interval for per-run averages.

use std::f64::consts::PI;

use super::{half_alpha, normal_quantile};
use crate::numerics::{find_root, regularized_beta_with_complement};

/// From this many degrees of freedom on, the quantile comes from the
/// Cornish–Fisher expansion, whose first omitted term is O(z¹¹/ν⁵) < 1e-14 there.
const CORNISH_FISHER_FROM: f64 = 1e5;

/// `P(T > t)` for Student's t with `df > 0` degrees of freedom (real `df` allowed).
///
/// Computed as `½·I_{ν/(ν + t²)}(ν/2, ½)` ([`crate::numerics::regularized_beta`])
/// with the complement `t²/(ν + t²)` formed directly, so both tails keep their
/// relative precision. Relative error about 1e-12 for `df` up to 10⁵
/// (checked against arbitrary-precision values), slowly degrading beyond.
/// Returns NaN for `df ≤ 0` or a NaN argument.
///
/// ```
/// use ddf_theory::stats::student_t_sf;
/// // One degree of freedom is the Cauchy distribution: P(T > 1) = 1/4.
/// assert!((student_t_sf(1.0, 1.0) - 0.25).abs() < 1e-15);
/// assert_eq!(student_t_sf(0.0, 7.0), 0.5);
/// ```
pub fn student_t_sf(t: f64, df: f64) -> f64 {
    if t.is_nan() || df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    if t == 0.0 {
        return 0.5;
    }
    let r = t * t / df;
    // x = ν/(ν + t²) and 1 − x = t²/(ν + t²), each without subtracting.
    let x = 1.0 / (1.0 + r);
    let y = 1.0 / (1.0 + 1.0 / r);
    let upper = 0.5 * regularized_beta_with_complement(0.5 * df, 0.5, x, y);
    if t > 0.0 { upper } else { 1.0 - upper }
}

/// The Student-t quantile: the `t` with `P(T ≤ t) = p` for `df > 0` degrees of freedom.
///
/// Exact closed forms for `df = 1` (Cauchy) and `df = 2`; the Cornish–Fisher
/// expansion to fourth order in `1/ν` from `df = 10⁵` on; in between, Brent's
/// method on [`student_t_sf`], bracketed by the normal and Cauchy quantiles.
/// Relative error about 1e-12 or better for every `df` (checked against
/// arbitrary-precision values for `df` from 1 to 10⁷ and tail masses down to
/// 1e-12). Tails are computed from `min(p, 1 − p)`. Returns `∓∞` at `p = 0, 1`
/// and NaN outside `[0, 1]` or for `df ≤ 0`.
///
/// ```
/// use ddf_theory::stats::student_t_quantile;
/// // The familiar 95% two-sided value with 10 degrees of freedom.
/// assert!((student_t_quantile(0.975, 10.0) - 2.228_138_851_986_274).abs() < 1e-12);
/// ```
pub fn student_t_quantile(p: f64, df: f64) -> f64 {
    if !(0.0..=1.0).contains(&p) || df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    if p == 0.5 {
        return 0.0;
    }
    // 1 − p is exact for p ≥ ½, so the upper tail mass loses nothing.
    let (tail, sign) = if p < 0.5 { (p, -1.0) } else { (1.0 - p, 1.0) };
    sign * upper_quantile(tail, df)
}

/// The `t ≥ 0` with `P(T > t) = tail`, for `0 < tail < ½`.
fn upper_quantile(tail: f64, df: f64) -> f64 {
    // Cauchy: t = cot(π·tail), the tangent form without cancellation.
    let cauchy = 1.0 / (PI * tail).tan();
    if df == 1.0 {
        return cauchy;
    }
    if df == 2.0 {
        // F(t) = ½ + t/(2√(2 + t²)) inverted.
        return (1.0 - 2.0 * tail) / (2.0 * tail * (1.0 - tail)).sqrt();
    }
    let z = -normal_quantile(tail);
    if df >= CORNISH_FISHER_FROM {
        return cornish_fisher(z, df);
    }
    // Quantiles fall as df grows: normal < t_df ≤ Cauchy for df ≥ 1. Below
    // one degree of freedom the tail is heavier than Cauchy's; widen until bracketed.
    let mut hi = cauchy;
    while df < 1.0 && hi.is_finite() && student_t_sf(hi, df) > tail {
        hi *= 2.0;
    }
    if !hi.is_finite() {
        return f64::INFINITY;
    }
    find_root(|t| student_t_sf(t, df) - tail, 0.0, hi, 0.0)
        .expect("the t tail minus its target changes sign on [0, upper bracket]")
}

/// The Cornish–Fisher expansion of the t quantile in powers of `1/ν` around
/// the normal quantile `z` (Abramowitz and Stegun 26.7.5).
fn cornish_fisher(z: f64, df: f64) -> f64 {
    let z2 = z * z;
    let g1 = z * (z2 + 1.0) / 4.0;
    let g2 = z * ((5.0 * z2 + 16.0) * z2 + 3.0) / 96.0;
    let g3 = z * (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) / 384.0;
    let g4 = z * ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) / 92_160.0;
    z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df
}

/// The two-sided Student-t critical value: `t` with `P(|T| ≤ t) = confidence`
/// for `df` degrees of freedom.
///
/// # Panics
///
/// If `confidence` is not strictly between 0 and 1.
///
/// ```
/// use ddf_theory::stats::t_for_confidence;
/// assert!((t_for_confidence(0.95, 10.0) - 2.228_138_851_986_274).abs() < 1e-12);
/// ```
pub fn t_for_confidence(confidence: f64, df: f64) -> f64 {
    -student_t_quantile(half_alpha(confidence), df)
}

/// A confidence interval `mean ± half_width` for the expectation of a
/// quantity measured once per independent run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeanInterval {
    /// The sample mean of the runs.
    pub mean: f64,
    /// The sample standard deviation (with the `n − 1` divisor).
    pub std_dev: f64,
    /// The number of runs `n`.
    pub runs: usize,
    /// `t_{n−1}·s/√n` at the requested confidence.
    pub half_width: f64,
}

impl MeanInterval {
    /// The lower end, `mean − half_width`.
    pub fn lo(&self) -> f64 {
        self.mean - self.half_width
    }

    /// The upper end, `mean + half_width`.
    pub fn hi(&self) -> f64 {
        self.mean + self.half_width
    }

    /// Whether `value` lies in `[lo, hi]`.
    pub fn contains(&self, value: f64) -> bool {
        self.lo() <= value && value <= self.hi()
    }
}

/// The Student-t interval `x̄ ± t_{n−1}·s/√n` for the mean of per-run
/// measurements, at the two-sided `confidence` level.
///
/// Use it when one run yields one number (an error rate over a whole
/// stream) and the runs, not the items, are independent. The t quantile
/// makes the interval honest for a handful of runs; it assumes the run
/// values are roughly normal, which averages over long streams are.
/// Returns `None` for fewer than two samples (no spread to estimate).
/// Non-finite samples give a NaN interval.
///
/// # Panics
///
/// If `confidence` is not strictly between 0 and 1.
///
/// ```
/// use ddf_theory::stats::mean_interval;
/// let runs = [0.0101, 0.0098, 0.0103, 0.0099, 0.0100];
/// let ci = mean_interval(&runs, 0.999).unwrap();
/// assert!(ci.contains(0.01));
/// assert!(!ci.contains(0.0110));
/// ```
pub fn mean_interval(samples: &[f64], confidence: f64) -> Option<MeanInterval> {
    // Validate the level first, so a bad one panics whatever the sample count.
    let tail = half_alpha(confidence);
    let runs = samples.len();
    if runs < 2 {
        return None;
    }
    let n = runs as f64;
    let mean = samples.iter().sum::<f64>() / n;
    // Two passes: the centred sum of squares does not cancel like Σx² − n·x̄².
    let sum_sq: f64 = samples.iter().map(|x| (x - mean) * (x - mean)).sum();
    let std_dev = (sum_sq / (n - 1.0)).sqrt();
    let t = -student_t_quantile(tail, n - 1.0);
    Some(MeanInterval {
        mean,
        std_dev,
        runs,
        half_width: t * std_dev / n.sqrt(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn closed_form_degrees_of_freedom() {
        // df = 1: P(T > t) = ½ − atan(t)/π.
        for &t in &[0.1, 1.0, 10.0, 1e6] {
            let exact = 0.5 - f64::atan(t) / PI;
            assert_relative_eq!(student_t_sf(t, 1.0), exact, max_relative = 1e-12);
            assert_relative_eq!(student_t_quantile(1.0 - exact, 1.0), t, max_relative = 1e-9);
        }
        // df = 2: P(T > t) = ½ − t/(2√(2 + t²)).
        for &t in &[0.1_f64, 1.0, 10.0] {
            let exact = 0.5 - t / (2.0 * (2.0 + t * t).sqrt());
            assert_relative_eq!(student_t_sf(t, 2.0), exact, max_relative = 1e-12);
            assert_relative_eq!(student_t_quantile(exact, 2.0), -t, max_relative = 1e-12);
        }
    }

    #[test]
    fn quantile_inverts_the_tail_across_branches() {
        for &df in &[0.5, 3.0, 7.5, 30.0, 1e4] {
            for &p in &[1e-9, 0.01, 0.2, 0.7, 0.999] {
                let t = student_t_quantile(p, df);
                let cdf = 1.0 - student_t_sf(t, df);
                let back = if p < 0.5 { student_t_sf(-t, df) } else { cdf };
                assert_relative_eq!(back, p, max_relative = 1e-10);
            }
        }
    }

    #[test]
    fn cornish_fisher_meets_the_beta_route() {
        // Just below the switch the root-finding route runs; at it, the expansion.
        // 50-digit references (mpmath).
        let below = student_t_quantile(0.999_95, CORNISH_FISHER_FROM * 0.999_999);
        assert_relative_eq!(below, 3.890_748_845_542_748, max_relative = 1e-13);
        let above = student_t_quantile(0.999_95, CORNISH_FISHER_FROM);
        assert_relative_eq!(above, 3.890_748_845_385_783_3, max_relative = 1e-14);
        // And tends to the normal quantile.
        assert_relative_eq!(
            student_t_quantile(0.975, 1e15),
            1.959_963_984_540_054,
            max_relative = 1e-14
        );
    }

    #[test]
    fn mean_interval_hand_computed() {
        // Mean 2, s = 1 for [1, 2, 3]; t_{2, 0.975} = 4.302652729749464.
        let ci = mean_interval(&[1.0, 2.0, 3.0], 0.95).unwrap();
        assert_eq!(ci.mean, 2.0);
        assert_relative_eq!(ci.std_dev, 1.0, max_relative = 1e-15);
        assert_relative_eq!(
            ci.half_width,
            4.302_652_729_749_464 / 3f64.sqrt(),
            max_relative = 1e-12
        );
        assert_eq!(ci.runs, 3);
        assert!(ci.contains(ci.lo()) && ci.contains(ci.hi()) && !ci.contains(5.0));
        assert_eq!(mean_interval(&[1.0], 0.95), None);
        assert_eq!(mean_interval(&[], 0.95), None);
    }

    #[test]
    fn edge_arguments() {
        assert_eq!(student_t_quantile(0.0, 5.0), f64::NEG_INFINITY);
        assert_eq!(student_t_quantile(1.0, 5.0), f64::INFINITY);
        assert_eq!(student_t_quantile(0.5, 5.0), 0.0);
        assert!(student_t_quantile(0.3, 0.0).is_nan());
        assert!(student_t_quantile(1.3, 4.0).is_nan());
        assert!(student_t_sf(1.0, -1.0).is_nan());
        assert_eq!(student_t_sf(f64::INFINITY, 3.0), 0.0);
        assert_eq!(student_t_sf(f64::NEG_INFINITY, 3.0), 1.0);
    }
}
