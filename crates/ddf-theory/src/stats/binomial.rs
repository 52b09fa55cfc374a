//! The binomial distribution and confidence intervals for a binomial proportion.

use std::f64::consts::PI;

use super::half_alpha;
use crate::numerics::{find_root, ln_factorial_correction};

/// Summation stops once a term is this small relative to the running tail sum.
const TAIL_TERM_CUTOFF: f64 = 1e-20;

/// `x·ln(x/μ) + μ − x`, the binomial deviance term, without cancellation when
/// `x ≈ μ` (Loader's `bd0`).
fn deviance(x: f64, mu: f64) -> f64 {
    if (x - mu).abs() < 0.1 * (x + mu) {
        // Series in v = (x − μ)/(x + μ): 2x·Σ v^(2j+1)/(2j + 1), minus the linear part.
        let v = (x - mu) / (x + mu);
        let v2 = v * v;
        let mut sum = (x - mu) * v;
        let mut term = 2.0 * x * v;
        for j in 1..200 {
            term *= v2;
            let next = sum + term / f64::from(2 * j + 1);
            if next == sum {
                break;
            }
            sum = next;
        }
        return sum;
    }
    x * (x / mu).ln() + mu - x
}

/// `ln P(X = k)` for `X ~ Binomial(n, p)` by Loader's saddle-point form,
/// accurate to about 1e-15 relative even for `n` in the billions.
fn ln_binomial_pmf(k: u64, n: u64, p: f64) -> f64 {
    let q = 1.0 - p;
    if k > n {
        return f64::NEG_INFINITY;
    }
    if p == 0.0 {
        return if k == 0 { 0.0 } else { f64::NEG_INFINITY };
    }
    if q == 0.0 {
        return if k == n { 0.0 } else { f64::NEG_INFINITY };
    }
    let nf = n as f64;
    if k == 0 {
        return nf * (-p).ln_1p();
    }
    if k == n {
        return nf * p.ln();
    }
    let kf = k as f64;
    let jf = (n - k) as f64;
    let lc = ln_factorial_correction(nf)
        - ln_factorial_correction(kf)
        - ln_factorial_correction(jf)
        - deviance(kf, nf * p)
        - deviance(jf, nf * q);
    lc - 0.5 * (2.0 * PI * kf * (jf / nf)).ln()
}

/// `P(X = k)` for `X ~ Binomial(n, p)`.
///
/// Loader's saddle-point evaluation ("Fast and accurate computation of
/// binomial probabilities", 2000): no factorials or huge powers, relative
/// error about 1e-15 even for `n = 10⁹` and `k` in the far tail.
///
/// # Panics
///
/// If `p` is not in `[0, 1]`.
///
/// ```
/// use ddf_theory::stats::binomial_pmf;
/// assert!((binomial_pmf(2, 4, 0.5) - 0.375).abs() < 1e-15);
/// ```
pub fn binomial_pmf(k: u64, n: u64, p: f64) -> f64 {
    check_probability(p);
    ln_binomial_pmf(k, n, p).exp()
}

/// `P(X ≤ k)` for `X ~ Binomial(n, p)`.
///
/// Sums the pmf outward from `k` over the smaller tail, so the result keeps
/// its relative precision when it is tiny; the larger tail comes out as one
/// minus the smaller. Cost is `O(√(n·p·(1 − p)))` terms at worst (a few
/// hundred thousand for `n = 10⁹`), far fewer in the tails.
///
/// # Panics
///
/// If `p` is not in `[0, 1]`.
///
/// ```
/// use ddf_theory::stats::binomial_cdf;
/// // P(X ≤ 1) for n = 3, p = 1/2 is (1 + 3)/8.
/// assert!((binomial_cdf(1, 3, 0.5) - 0.5).abs() < 1e-15);
/// ```
pub fn binomial_cdf(k: u64, n: u64, p: f64) -> f64 {
    check_probability(p);
    tails(k, n, p).0
}

/// `P(X > k)` for `X ~ Binomial(n, p)`, the survival function, computed as
/// precisely as [`binomial_cdf`] (not as `1 − cdf`).
///
/// # Panics
///
/// If `p` is not in `[0, 1]`.
///
/// ```
/// use ddf_theory::stats::binomial_sf;
/// // P(X > 1) for n = 3, p = 1/2 is (3 + 1)/8.
/// assert!((binomial_sf(1, 3, 0.5) - 0.5).abs() < 1e-15);
/// assert!(binomial_sf(50, 1_000_000_000, 1e-9) < 1e-60);
/// ```
pub fn binomial_sf(k: u64, n: u64, p: f64) -> f64 {
    check_probability(p);
    tails(k, n, p).1
}

/// The smallest `k` with `P(X > k) ≤ tail` for `X ~ Binomial(n, p)`: the
/// upper `(1 − tail)` quantile.
///
/// A binary search over `k` in `0..=n` with [`binomial_sf`] (non-increasing
/// in `k`): at most 64 evaluations, each bounded as there.
///
/// # Panics
///
/// If `p` is not in `[0, 1]` or `tail` not in `[0, 1]`.
///
/// ```
/// use ddf_theory::stats::{binomial_sf, binomial_upper_quantile};
/// let k = binomial_upper_quantile(1000, 0.25, 1e-6);
/// assert!(binomial_sf(k, 1000, 0.25) <= 1e-6 && binomial_sf(k - 1, 1000, 0.25) > 1e-6);
/// ```
pub fn binomial_upper_quantile(n: u64, p: f64, tail: f64) -> u64 {
    check_probability(p);
    check_probability(tail);
    // `P(X > n) = 0 ≤ tail`, so the answer lies in `lo..=hi`.
    let (mut lo, mut hi) = (0u64, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if tails(mid, n, p).1 <= tail {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

fn check_probability(p: f64) {
    assert!(
        (0.0..=1.0).contains(&p),
        "probability must lie in [0, 1], got {p}"
    );
}

/// `(P(X ≤ k), P(X > k))`, the smaller of the two summed directly.
fn tails(k: u64, n: u64, p: f64) -> (f64, f64) {
    if k >= n || p == 0.0 {
        return (1.0, 0.0);
    }
    if p == 1.0 {
        return (0.0, 1.0);
    }
    let q = 1.0 - p;
    let nf = n as f64;
    if (k as f64) < nf * p {
        // k is below the mean: terms fall from k down to 0.
        let mut term = ln_binomial_pmf(k, n, p).exp();
        let mut sum = term;
        let mut j = k;
        while j > 0 && term > sum * TAIL_TERM_CUTOFF {
            // P(j − 1)/P(j) = j·q / ((n − j + 1)·p) < 1 below the mean.
            term *= (j as f64 * q) / ((n - j + 1) as f64 * p);
            sum += term;
            j -= 1;
        }
        let lower = sum.min(1.0);
        (lower, 1.0 - lower)
    } else {
        // k is at or above the mean: terms fall from k + 1 up to n.
        let mut j = k + 1;
        let mut term = ln_binomial_pmf(j, n, p).exp();
        let mut sum = term;
        while j < n && term > sum * TAIL_TERM_CUTOFF {
            // P(j + 1)/P(j) = (n − j)·p / ((j + 1)·q) < 1 above the mean.
            term *= ((n - j) as f64 * p) / ((j + 1) as f64 * q);
            sum += term;
            j += 1;
        }
        let upper = sum.min(1.0);
        (1.0 - upper, upper)
    }
}

/// The Wilson score interval `(lo, hi)` for a binomial proportion after
/// `successes` in `trials`, at the two-sided normal critical value `z`
/// (see [`super::z_for_confidence`]).
///
/// The interval is the set of `p` with `|p̂ − p| ≤ z·√(p(1 − p)/n)`, the roots of
/// a quadratic; it stays inside `[0, 1]`, is never empty, and covers close
/// to the nominal level even for small counts, unlike the Wald interval
/// `p̂ ± z·√(p̂(1 − p̂)/n)`. The lower root is taken as the product of roots
/// over the upper one, so it keeps its relative precision for rare events
/// (`successes = 1` of `10⁹`). `successes = 0` gives `lo = 0` and
/// `successes = trials` gives `hi = 1` exactly; `trials = 0` gives `(0, 1)`.
///
/// # Panics
///
/// If `successes > trials`, or `z` is negative or not finite.
///
/// ```
/// use ddf_theory::stats::wilson_interval;
/// let (lo, hi) = wilson_interval(50, 100, 1.96);
/// assert!((lo - 0.403_829_828_590).abs() < 1e-12 && (hi - 0.596_170_171_410).abs() < 1e-12);
/// ```
pub fn wilson_interval(successes: u64, trials: u64, z: f64) -> (f64, f64) {
    assert!(
        successes <= trials,
        "successes ({successes}) exceed trials ({trials})"
    );
    assert!(
        z.is_finite() && z >= 0.0,
        "z must be finite and non-negative, got {z}"
    );
    if trials == 0 {
        return (0.0, 1.0);
    }
    // The interval for the failure proportion mirrors the one for successes.
    let lo = wilson_lower(successes, trials, z);
    let hi = 1.0 - wilson_lower(trials - successes, trials, z);
    (lo, hi)
}

/// The lower Wilson bound, as `p̂² / ((1 + z²/n)·upper)` from the product of the quadratic's roots.
fn wilson_lower(successes: u64, trials: u64, z: f64) -> f64 {
    if successes == 0 {
        return 0.0;
    }
    let n = trials as f64;
    let p_hat = successes as f64 / n;
    let q_hat = (trials - successes) as f64 / n;
    let z2 = z * z;
    let denominator = 1.0 + z2 / n;
    let center = (p_hat + z2 / (2.0 * n)) / denominator;
    let half_width = z / denominator * (p_hat * q_hat / n + z2 / (4.0 * n * n)).sqrt();
    let upper = center + half_width;
    (p_hat * p_hat / (denominator * upper)).clamp(0.0, 1.0)
}

/// The Clopper–Pearson ("exact") interval `(lo, hi)` for a binomial
/// proportion after `successes` in `trials`, at the two-sided `confidence` level.
///
/// `lo` solves `P(X ≥ successes | lo) = α/2` and `hi` solves
/// `P(X ≤ successes | hi) = α/2` with `α = 1 − confidence`, by Brent's method
/// on the binomial tails of [`binomial_cdf`] / [`binomial_sf`]. Its coverage
/// is never below the nominal level, so it is wider than the Wilson interval
/// for most counts. The ends have closed forms that are used directly:
/// `successes = 0` gives `lo = 0` and `hi = 1 − (α/2)^(1/n)`,
/// `successes = trials` gives `hi = 1` and `lo = (α/2)^(1/n)`. Robust for
/// `trials` up to 10⁹ and beyond (each tail evaluation costs at most
/// `O(√trials)`); `trials = 0` gives `(0, 1)`.
///
/// # Panics
///
/// If `successes > trials`, or `confidence` is not strictly between 0 and 1.
///
/// ```
/// use ddf_theory::stats::clopper_pearson_interval;
/// // The "rule of three": zero events in n trials, 95% upper bound about 3.69/n.
/// let (lo, hi) = clopper_pearson_interval(0, 1000, 0.95);
/// assert_eq!(lo, 0.0);
/// assert!((hi - 0.003_682_083).abs() < 1e-9);
/// ```
pub fn clopper_pearson_interval(successes: u64, trials: u64, confidence: f64) -> (f64, f64) {
    assert!(
        successes <= trials,
        "successes ({successes}) exceed trials ({trials})"
    );
    let tail = half_alpha(confidence);
    if trials == 0 {
        return (0.0, 1.0);
    }
    let n = trials as f64;
    // (α/2)^(1/n) and its complement, for the closed-form ends.
    let ln_root = tail.ln() / n;
    let lo = if successes == 0 {
        0.0
    } else if successes == trials {
        ln_root.exp()
    } else {
        // P(X ≥ s | p) = P(X > s − 1 | p) increases with p.
        solve_probability(|p| binomial_sf(successes - 1, trials, p) - tail)
    };
    let hi = if successes == trials {
        1.0
    } else if successes == 0 {
        -ln_root.exp_m1()
    } else {
        // P(X ≤ s | p) decreases with p.
        solve_probability(|p| binomial_cdf(successes, trials, p) - tail)
    };
    (lo, hi)
}

/// The root in `[0, 1]` of a monotone function of a probability that changes
/// sign there (guaranteed for the two Clopper–Pearson equations).
fn solve_probability(f: impl FnMut(f64) -> f64) -> f64 {
    find_root(f, 0.0, 1.0, 0.0).expect("a binomial tail minus α/2 changes sign on [0, 1]")
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn pmf_matches_direct_products() {
        // C(10, 3)·0.3^3·0.7^7
        let direct = 120.0 * 0.3f64.powi(3) * 0.7f64.powi(7);
        assert_relative_eq!(binomial_pmf(3, 10, 0.3), direct, max_relative = 1e-14);
        assert_relative_eq!(
            binomial_pmf(0, 10, 0.3),
            0.7f64.powi(10),
            max_relative = 1e-14
        );
        assert_relative_eq!(
            binomial_pmf(10, 10, 0.3),
            0.3f64.powi(10),
            max_relative = 1e-14
        );
        assert_eq!(binomial_pmf(11, 10, 0.3), 0.0);
        assert_eq!(binomial_pmf(0, 10, 0.0), 1.0);
        assert_eq!(binomial_pmf(10, 10, 1.0), 1.0);
        assert_eq!(binomial_pmf(3, 10, 1.0), 0.0);
    }

    #[test]
    fn pmf_sums_to_one_and_tails_complement() {
        let (n, p) = (200, 0.37);
        let total: f64 = (0..=n).map(|k| binomial_pmf(k, n, p)).sum();
        assert_relative_eq!(total, 1.0, max_relative = 1e-13);
        for k in [0, 10, 60, 74, 75, 120, 199, 200] {
            let direct: f64 = (0..=k).map(|j| binomial_pmf(j, n, p)).sum();
            assert_relative_eq!(
                binomial_cdf(k, n, p),
                direct,
                max_relative = 1e-12,
                epsilon = 1e-300
            );
            assert_relative_eq!(
                binomial_cdf(k, n, p) + binomial_sf(k, n, p),
                1.0,
                max_relative = 1e-14
            );
        }
    }

    #[test]
    fn poisson_limit_for_huge_n() {
        // n = 1e9, p = 3e-9: close to Poisson(3), P(X ≤ 2) = e^-3 (1 + 3 + 4.5).
        let poisson = (-3f64).exp() * 8.5;
        assert_relative_eq!(
            binomial_cdf(2, 1_000_000_000, 3e-9),
            poisson,
            max_relative = 1e-8
        );
    }

    #[test]
    fn wilson_hand_computed() {
        // n = 10, 2 successes, z = 2: center = (0.2 + 0.2)/1.4, half = (2/1.4)·√(0.016 + 0.01).
        let (lo, hi) = wilson_interval(2, 10, 2.0);
        let center = 0.4 / 1.4;
        let half = 2.0 / 1.4 * 0.026f64.sqrt();
        assert_relative_eq!(lo, center - half, max_relative = 1e-13);
        assert_relative_eq!(hi, center + half, max_relative = 1e-13);
        assert_eq!(wilson_interval(0, 0, 2.0), (0.0, 1.0));
        let (lo, hi) = wilson_interval(0, 10, 2.0);
        assert_eq!(lo, 0.0);
        assert_relative_eq!(hi, 4.0 / 14.0, max_relative = 1e-14);
        let (lo, hi) = wilson_interval(10, 10, 2.0);
        assert_relative_eq!(lo, 10.0 / 14.0, max_relative = 1e-14);
        assert_eq!(hi, 1.0);
    }

    #[test]
    fn wilson_lower_bound_keeps_precision_for_rare_events() {
        // One success in 1e12 trials: the lower root is tiny but positive and
        // equals p̂²/((1 + z²/n)·hi) by Vieta.
        let (lo, hi) = wilson_interval(1, 1_000_000_000_000, 1.96);
        assert!(lo > 0.0 && lo < 1e-12 && hi > 1e-12);
        let n = 1e12;
        let denominator = 1.0 + 1.96 * 1.96 / n;
        assert_relative_eq!(lo * denominator * hi, 1.0 / (n * n), max_relative = 1e-12);
    }

    #[test]
    fn clopper_pearson_reference_values() {
        // Beta quantiles in 50-digit arithmetic (mpmath).
        let cases = [
            (
                5,
                20,
                0.95,
                0.086_571_469_101_434_56,
                0.491_045_871_707_957_5,
            ),
            (
                1,
                100,
                0.95,
                0.000_253_146_032_977_420_9,
                0.054_459_385_392_080_65,
            ),
            (
                3,
                10,
                0.99,
                0.037_007_221_096_232_1,
                0.735_113_985_287_130_7,
            ),
            (0, 1000, 0.95, 0.0, 0.003_682_083_896_865_671),
        ];
        for (s, n, c, lo_ref, hi_ref) in cases {
            let (lo, hi) = clopper_pearson_interval(s, n, c);
            assert_relative_eq!(lo, lo_ref, max_relative = 1e-12);
            assert_relative_eq!(hi, hi_ref, max_relative = 1e-12);
        }
        let (lo, hi) = clopper_pearson_interval(20, 20, 0.95);
        assert_relative_eq!(lo, 0.025f64.powf(1.0 / 20.0), max_relative = 1e-14);
        assert_eq!(hi, 1.0);
        assert_eq!(clopper_pearson_interval(0, 0, 0.95), (0.0, 1.0));
    }

    #[test]
    #[should_panic(expected = "exceed trials")]
    fn rejects_more_successes_than_trials() {
        wilson_interval(3, 2, 1.0);
    }
}
