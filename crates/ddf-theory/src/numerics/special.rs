//! Special functions in log space: gamma, beta, binomial coefficients, the incomplete beta.

use std::f64::consts::{LN_2, PI};

/// `ln √(2π)`, the constant of Stirling's formula.
const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_8;

/// Lanczos coefficients for `g = 7`, nine terms (relative error of `Γ` about 1e-15).
const LANCZOS: [f64; 9] = [
    0.999_999_999_999_809_9,
    676.520_368_121_885_1,
    -1_259.139_216_722_402_8,
    771.323_428_777_653_1,
    -176.615_029_162_140_6,
    12.507_343_278_686_905,
    -0.138_571_095_265_720_12,
    9.984_369_578_019_572e-6,
    1.505_632_735_149_311_6e-7,
];

/// Above this argument the Stirling series is used; its first omitted term is below 1e-16 there.
const STIRLING_FROM: f64 = 10.0;

/// Continued-fraction cap of [`regularized_beta`]; the fraction needs
/// O(√max(a, b)) terms, so this covers parameters up to about 1e9.
const BETA_CF_MAX_TERMS: usize = 200_000;

/// `ln Γ(x)` for `x > 0`.
///
/// Lanczos' approximation on `[0.5, 10)`, `ln Γ(x + 1) − ln x` below, and the
/// Stirling series with seven correction terms from 10 on. Absolute error
/// below about 1e-14 on `(0, 10)` and relative error below about 1e-15 from
/// 10 on. Returns NaN for `x ≤ 0` or NaN, `+∞` for `x = +∞`.
///
/// ```
/// use ddf_theory::numerics::ln_gamma;
/// assert!((ln_gamma(5.0) - 24f64.ln()).abs() < 1e-14);
/// assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-14);
/// ```
pub fn ln_gamma(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return f64::NAN;
    }
    if x == f64::INFINITY {
        return f64::INFINITY;
    }
    if x < 0.5 {
        return ln_gamma(x + 1.0) - x.ln();
    }
    if x < STIRLING_FROM {
        let z = x - 1.0;
        let t = z + 7.5;
        let mut sum = LANCZOS[0];
        for (i, &c) in LANCZOS.iter().enumerate().skip(1) {
            sum += c / (z + i as f64);
        }
        return LN_SQRT_2PI + (z + 0.5) * t.ln() - t + sum.ln();
    }
    (x - 0.5) * x.ln() - x + LN_SQRT_2PI + stirling_series(x)
}

/// The Stirling correction `δ(x) = ln Γ(x) − [(x − ½)·ln x − x + ln √(2π)]`
/// for `x ≥ 10`, from its asymptotic series (Bernoulli-number coefficients).
fn stirling_series(x: f64) -> f64 {
    let x2 = 1.0 / (x * x);
    // Horner in 1/x²: 1/12 − 1/(360x²) + 1/(1260x⁴) − 1/(1680x⁶) + 1/(1188x⁸) − 691/(360360x¹⁰) + 1/(156x¹²).
    let series = 1.0 / 12.0
        - x2 * (1.0 / 360.0
            - x2 * (1.0 / 1260.0
                - x2 * (1.0 / 1680.0
                    - x2 * (1.0 / 1188.0 - x2 * (691.0 / 360_360.0 - x2 / 156.0)))));
    series / x
}

/// The error of Stirling's formula for a factorial:
/// `ln Γ(x + 1) − [(x + ½)·ln x − x + ln √(2π)]`, for `x > 0`.
///
/// This is Loader's `stirlerr`; it equals the correction of `ln Γ(x)` itself,
/// which is what lets log-space binomial terms avoid cancelling two huge
/// `ln Γ` values. Small integers use the exact factorial.
pub(crate) fn ln_factorial_correction(x: f64) -> f64 {
    if x >= STIRLING_FROM {
        return stirling_series(x);
    }
    let ln_factorial = if x.fract() == 0.0 {
        // x! is exact in f64 for x < 10.
        (1..=x as u32).map(f64::from).product::<f64>().ln()
    } else {
        ln_gamma(x + 1.0)
    };
    ln_factorial - ((x + 0.5) * x.ln() - x + LN_SQRT_2PI)
}

/// `ln B(a, b) = ln Γ(a) + ln Γ(b) − ln Γ(a + b)` for `a, b > 0`.
///
/// When an argument is large the two big `ln Γ` terms are cancelled
/// analytically (Stirling corrections plus `ln_1p`), so the result keeps its
/// relative precision even for `a = 10⁹, b = ½`. Returns NaN outside the domain.
///
/// ```
/// use ddf_theory::numerics::ln_beta;
/// // B(2, 3) = 1/12.
/// assert!((ln_beta(2.0, 3.0) - (1.0f64 / 12.0).ln()).abs() < 1e-14);
/// ```
pub fn ln_beta(a: f64, b: f64) -> f64 {
    let (p, q) = if a < b { (a, b) } else { (b, a) };
    if p.is_nan() || q.is_nan() || p <= 0.0 {
        return f64::NAN;
    }
    let s = p + q;
    if p >= STIRLING_FROM {
        let corr = stirling_series(p) + stirling_series(q) - stirling_series(s);
        -0.5 * q.ln() + LN_SQRT_2PI + corr + (p - 0.5) * (p / s).ln() + q * (-p / s).ln_1p()
    } else if q >= STIRLING_FROM {
        let corr = stirling_series(q) - stirling_series(s);
        ln_gamma(p) + corr + p - p * s.ln() + (q - 0.5) * (-p / s).ln_1p()
    } else {
        ln_gamma(p) + ln_gamma(q) - ln_gamma(s)
    }
}

/// `ln C(n, k)`, the natural log of the binomial coefficient; `−∞` when `k > n`.
///
/// Computed as `n·H(k/n)` (entropy in nats) minus `½·ln(2π·k·(n − k)/n)` plus
/// Stirling corrections, so no two large numbers are subtracted: relative
/// error about 1e-15 even for `n` near `2^64`.
///
/// ```
/// use ddf_theory::numerics::ln_binomial;
/// assert!((ln_binomial(10, 3) - 120f64.ln()).abs() < 1e-14);
/// assert_eq!(ln_binomial(7, 0), 0.0);
/// assert_eq!(ln_binomial(3, 4), f64::NEG_INFINITY);
/// ```
pub fn ln_binomial(n: u64, k: u64) -> f64 {
    if k > n {
        return f64::NEG_INFINITY;
    }
    // C(n, k) = C(n, n − k): work with the smaller side so ln_1p gets a small argument.
    let k = k.min(n - k);
    if k == 0 {
        return 0.0;
    }
    let (nf, kf) = (n as f64, k as f64);
    let jf = (n - k) as f64;
    let p = kf / nf;
    let entropy = -kf * p.ln() - jf * (-p).ln_1p();
    entropy - 0.5 * (2.0 * PI * kf * (jf / nf)).ln() + ln_factorial_correction(nf)
        - ln_factorial_correction(kf)
        - ln_factorial_correction(jf)
}

/// `log₂ C(n, k)`: the number of bits needed to index a `k`-subset of `n` items.
///
/// ```
/// use ddf_theory::numerics::log2_binomial;
/// assert!((log2_binomial(4, 2) - 6f64.log2()).abs() < 1e-14);
/// ```
pub fn log2_binomial(n: u64, k: u64) -> f64 {
    ln_binomial(n, k) / LN_2
}

/// `C(n, k)` as an `f64`: exact when it is below 2^53, otherwise
/// `exp(ln_binomial)` with relative error about `1e-16·ln C(n, k)`
/// (`+∞` past `f64::MAX`).
///
/// ```
/// use ddf_theory::numerics::binomial;
/// assert_eq!(binomial(52, 5), 2_598_960.0);
/// assert_eq!(binomial(3, 5), 0.0);
/// ```
pub fn binomial(n: u64, k: u64) -> f64 {
    if k > n {
        return 0.0;
    }
    let ln_c = ln_binomial(n, k);
    if ln_c < 52.0 * LN_2 {
        // C(n, k) >= 2^k for k <= n/2, so at most 52 exact steps; each partial
        // product c·(n − k + i) is divisible by i and fits in u128.
        let k = k.min(n - k);
        let mut c: u128 = 1;
        for i in 1..=u128::from(k) {
            c = c * (u128::from(n - k) + i) / i;
        }
        return c as f64;
    }
    ln_c.exp()
}

/// The regularised incomplete beta function `I_x(a, b)` for `a, b > 0`, `x ∈ [0, 1]`.
///
/// Lentz's continued fraction on whichever of `I_x(a, b)` and
/// `1 − I_{1−x}(b, a)` converges fast, with the prefactor
/// `x^a·(1 − x)^b / B(a, b)` taken in log space ([`ln_beta`]). Relative error
/// about 1e-13 for moderate parameters (checked against arbitrary-precision
/// values for `a, b` up to 10⁵); the fraction needs O(√max(a, b)) terms.
/// Returns NaN outside the domain.
///
/// It gives the Student-t tail used by [`crate::stats::student_t_quantile`]
/// and the binomial cdf: `P(X ≤ k) = I_{1−p}(n − k, k + 1)`.
///
/// ```
/// use ddf_theory::numerics::regularized_beta;
/// // I_x(1, 1) = x and I_x(2, 1) = x².
/// assert!((regularized_beta(1.0, 1.0, 0.3) - 0.3).abs() < 1e-15);
/// assert!((regularized_beta(2.0, 1.0, 0.3) - 0.09).abs() < 1e-15);
/// ```
pub fn regularized_beta(a: f64, b: f64, x: f64) -> f64 {
    regularized_beta_with_complement(a, b, x, 1.0 - x)
}

/// [`regularized_beta`] with `y = 1 − x` supplied by the caller, who can often
/// compute it without the rounding of `1 − x` (for example `t²/(ν + t²)`).
pub(crate) fn regularized_beta_with_complement(a: f64, b: f64, x: f64, y: f64) -> f64 {
    let in_domain = a > 0.0 && b > 0.0 && (0.0..=1.0).contains(&x) && (0.0..=1.0).contains(&y);
    if !in_domain {
        return f64::NAN;
    }
    if x == 0.0 {
        return 0.0;
    }
    if y == 0.0 {
        return 1.0;
    }
    // ln x and ln(1 − x) from whichever of x, y is small, to keep their precision.
    let ln_x = if x > 0.5 { (-y).ln_1p() } else { x.ln() };
    let ln_y = if y > 0.5 { (-x).ln_1p() } else { y.ln() };
    let ln_front = a * ln_x + b * ln_y - ln_beta(a, b);
    if x < (a + 1.0) / (a + b + 2.0) {
        ln_front.exp() * beta_continued_fraction(a, b, x) / a
    } else {
        1.0 - ln_front.exp() * beta_continued_fraction(b, a, y) / b
    }
}

/// The continued fraction of the incomplete beta (modified Lentz), valid
/// and fast for `x < (a + 1)/(a + b + 2)`.
fn beta_continued_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let clamp = |v: f64| if v.abs() < TINY { TINY } else { v };
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / clamp(1.0 - qab * x / qap);
    let mut h = d;
    for m in 1..=BETA_CF_MAX_TERMS {
        let m = m as f64;
        let m2 = 2.0 * m;
        // Even step.
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 / clamp(1.0 + aa * d);
        c = clamp(1.0 + aa / c);
        h *= d * c;
        // Odd step.
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 / clamp(1.0 + aa * d);
        c = clamp(1.0 + aa / c);
        let delta = d * c;
        h *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn ln_gamma_matches_factorials_and_half_integers() {
        let mut factorial = 1.0_f64;
        for n in 1..=30_u32 {
            // Γ(n + 1) = n!
            factorial *= f64::from(n);
            assert_relative_eq!(
                ln_gamma(f64::from(n) + 1.0),
                factorial.ln(),
                max_relative = 1e-14
            );
        }
        assert_relative_eq!(ln_gamma(1.0), 0.0, epsilon = 1e-15);
        assert_relative_eq!(ln_gamma(2.0), 0.0, epsilon = 1e-15);
        // Γ(1/2) = √π, Γ(3/2) = √π/2.
        assert_relative_eq!(ln_gamma(0.5), PI.sqrt().ln(), max_relative = 1e-14);
        assert_relative_eq!(ln_gamma(1.5), (PI.sqrt() / 2.0).ln(), max_relative = 1e-13);
        // Tiny x: Γ(x) ~ 1/x.
        assert_relative_eq!(ln_gamma(1e-10), -(1e-10f64).ln(), max_relative = 1e-9);
        assert!(ln_gamma(0.0).is_nan() && ln_gamma(-1.0).is_nan());
    }

    #[test]
    fn factorial_correction_is_continuous_at_the_switch() {
        // Both branches at 10 agree with the definition.
        let exact = (1..=10_u32).map(f64::from).product::<f64>().ln()
            - (10.5 * 10f64.ln() - 10.0 + LN_SQRT_2PI);
        assert_relative_eq!(ln_factorial_correction(10.0), exact, max_relative = 1e-12);
        assert_relative_eq!(
            ln_factorial_correction(9.0),
            1.0 / 108.0,
            max_relative = 1e-3
        );
        assert_relative_eq!(
            ln_factorial_correction(1.0),
            1.0 - LN_SQRT_2PI,
            max_relative = 1e-14
        );
        // Non-integer below 10 goes through ln_gamma.
        assert_relative_eq!(
            ln_factorial_correction(9.5),
            1.0 / (12.0 * 9.5),
            max_relative = 2e-3
        );
    }

    #[test]
    fn ln_beta_agrees_across_branches() {
        // B(a, b) = Γ(a)Γ(b)/Γ(a + b) on all three branches.
        for &(a, b) in &[
            (0.5, 0.5),
            (2.0, 3.0),
            (3.0, 40.0),
            (12.0, 30.0),
            (0.5, 1e3),
        ] {
            let direct = ln_gamma(a) + ln_gamma(b) - ln_gamma(a + b);
            assert_relative_eq!(ln_beta(a, b), direct, max_relative = 1e-12, epsilon = 1e-13);
            assert_eq!(ln_beta(a, b), ln_beta(b, a));
        }
        // Where ln Γ(a) − ln Γ(a + b) would cancel: 50-digit reference values (mpmath).
        assert_relative_eq!(
            ln_beta(0.5, 1e6),
            -6.335_390_211_057_437,
            max_relative = 1e-14
        );
        assert_relative_eq!(
            ln_beta(12.0, 30.0),
            -25.274_864_968_419_81,
            max_relative = 1e-14
        );
        // B(1/2, 1/2) = π.
        assert_relative_eq!(ln_beta(0.5, 0.5), PI.ln(), max_relative = 1e-14);
        assert!(ln_beta(0.0, 1.0).is_nan());
    }

    #[test]
    fn binomials_are_exact_when_small() {
        assert_eq!(binomial(10, 3), 120.0);
        assert_eq!(binomial(10, 7), 120.0);
        assert_eq!(binomial(0, 0), 1.0);
        assert_eq!(binomial(50, 25), 126_410_606_437_752.0);
        // Past 2^53 the value comes from ln_binomial.
        assert_relative_eq!(
            binomial(60, 30),
            118_264_581_564_861_424.0,
            max_relative = 1e-14
        );
        assert_relative_eq!(binomial(u64::MAX, 1), u64::MAX as f64, max_relative = 1e-14);
        assert_relative_eq!(
            ln_binomial(60, 30),
            118_264_581_564_861_424f64.ln(),
            max_relative = 1e-15
        );
        // ln C(2n, n) ~ 2n ln 2 − ½ ln(πn) for large n.
        let n = 1e12_f64;
        let approx = 2.0 * n * LN_2 - 0.5 * (PI * n).ln() - 1.0 / (8.0 * n);
        assert_relative_eq!(
            ln_binomial(2_000_000_000_000, 1_000_000_000_000),
            approx,
            max_relative = 1e-15
        );
        assert_relative_eq!(log2_binomial(10, 5), 252f64.log2(), max_relative = 1e-15);
    }

    #[test]
    fn incomplete_beta_closed_forms() {
        // I_x(a, 1) = x^a and I_x(1, b) = 1 − (1 − x)^b.
        for &x in &[1e-6, 0.1, 0.5, 0.9, 0.999] {
            assert_relative_eq!(
                regularized_beta(3.5, 1.0, x),
                x.powf(3.5),
                max_relative = 1e-13
            );
            assert_relative_eq!(
                regularized_beta(1.0, 2.5, x),
                1.0 - (1.0 - x).powf(2.5),
                max_relative = 1e-13
            );
        }
        // Symmetry I_x(a, b) = 1 − I_{1−x}(b, a).
        let v = regularized_beta(4.0, 7.0, 0.3);
        assert_relative_eq!(
            v,
            1.0 - regularized_beta(7.0, 4.0, 0.7),
            max_relative = 1e-13
        );
        assert_eq!(regularized_beta(2.0, 2.0, 0.0), 0.0);
        assert_eq!(regularized_beta(2.0, 2.0, 1.0), 1.0);
        assert!(regularized_beta(-1.0, 2.0, 0.5).is_nan());
        assert!(regularized_beta(1.0, 2.0, 1.5).is_nan());
    }
}
