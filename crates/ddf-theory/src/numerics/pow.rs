//! Stable `(1 − x)^n` and `1 − (1 − x)^n` for small `x` and large real `n`.

use num_traits::Float;

/// `(1 − x)^n`, computed as `exp(n · ln_1p(−x))`.
///
/// The naive `(1.0 - x).powf(n)` rounds `1 − x` first: for `x = 2^-60` it
/// returns exactly 1 whatever `n` is. Going through `ln_1p` keeps the full
/// relative precision of `x`.
///
/// Domain: `x ∈ [0, 1]`, `n ≥ 0` (real). The edge cases are exact:
/// `n = 0` or `x = 0` gives 1, and `x = 1` with `n > 0` gives 0.
/// Outside the domain the formula is evaluated as written (NaN for `x > 1`).
///
/// ```
/// use ddf_theory::numerics::pow1m;
/// let u = 2f64.powi(60);
/// // (1 - 1/U)^U tends to 1/e; the naive form would return 1.
/// assert!((pow1m(1.0 / u, u) - (-1f64).exp()).abs() < 1e-12);
/// assert_eq!(pow1m(0.3_f64, 0.0), 1.0);
/// assert_eq!(pow1m(1.0_f64, 5.0), 0.0);
/// ```
pub fn pow1m<T: Float>(x: T, n: T) -> T {
    if n == T::zero() || x == T::zero() {
        return T::one();
    }
    if x == T::one() {
        // 0^n: 0 for n > 0, +inf for n < 0.
        return if n > T::zero() {
            T::zero()
        } else {
            T::infinity()
        };
    }
    (n * (-x).ln_1p()).exp()
}

/// `1 − (1 − x)^n`, computed as `−exp_m1(n · ln_1p(−x))`.
///
/// This is the probability that at least one of `n` independent trials of
/// probability `x` succeeds. When it is small (`n·x ≪ 1`) the naive
/// `1 − (1 − x)^n` loses all its digits to cancellation; this form keeps full
/// relative precision.
///
/// Domain and exact edge cases as [`pow1m`]: `n = 0` or `x = 0` gives 0,
/// `x = 1` with `n > 0` gives 1.
///
/// ```
/// use ddf_theory::numerics::one_minus_pow1m;
/// // Probability that one of 1000 items collides with a given 64-bit hash.
/// let p = one_minus_pow1m(2f64.powi(-64), 1000.0);
/// assert!((p / (1000.0 * 2f64.powi(-64)) - 1.0).abs() < 1e-12);
/// ```
pub fn one_minus_pow1m<T: Float>(x: T, n: T) -> T {
    if n == T::zero() || x == T::zero() {
        return T::zero();
    }
    if x == T::one() {
        return if n > T::zero() {
            T::one()
        } else {
            T::neg_infinity()
        };
    }
    -(n * (-x).ln_1p()).exp_m1()
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn edge_cases_are_exact() {
        assert_eq!(pow1m(0.0_f64, 7.5), 1.0);
        assert_eq!(pow1m(0.25_f64, 0.0), 1.0);
        assert_eq!(pow1m(1.0_f64, 3.0), 0.0);
        assert_eq!(pow1m(1.0_f64, 0.0), 1.0);
        assert_eq!(one_minus_pow1m(0.0_f64, 7.5), 0.0);
        assert_eq!(one_minus_pow1m(0.25_f64, 0.0), 0.0);
        assert_eq!(one_minus_pow1m(1.0_f64, 3.0), 1.0);
        assert_eq!(one_minus_pow1m(1.0_f64, 0.0), 0.0);
    }

    #[test]
    fn matches_hand_computed_values() {
        // (1 - 0.5)^3 = 0.125 and 1 - 0.125 = 0.875.
        assert_relative_eq!(pow1m(0.5_f64, 3.0), 0.125, max_relative = 1e-15);
        assert_relative_eq!(one_minus_pow1m(0.5_f64, 3.0), 0.875, max_relative = 1e-15);
        // Real exponent: (1 - 0.19)^0.5 = 0.9.
        assert_relative_eq!(pow1m(0.19_f64, 0.5), 0.9, max_relative = 1e-15);
        // f32 works through the same code.
        assert_relative_eq!(pow1m(0.5_f32, 2.0), 0.25, max_relative = 1e-6);
    }

    #[test]
    fn keeps_precision_for_tiny_x() {
        // 1 - (1 - x)^n = n x - C(n,2) x^2 + ...: with x = 1e-20 the first term is exact.
        let p = one_minus_pow1m(1e-20_f64, 1e6);
        assert_relative_eq!(p, 1e-14, max_relative = 1e-12);
        // The naive form loses everything here.
        assert_eq!(1.0 - (1.0 - 1e-20_f64).powf(1e6), 0.0);
    }
}
