//! Duplicates in a uniform random stream: what the ground truth should look like.
//!
//! Every paper evaluates its filters on streams whose items are drawn
//! independently and uniformly from an alphabet of `U = |Γ|` items
//! (Géraud-Stewart, Lombard-Platet, Naccache, *Approaching Optimal Duplicate
//! Detection in a Sliding Window*, §2 and §4.2; Géraud, Lombard-Platet,
//! Naccache, *Quotient Hash Tables*, §2.1). These functions give the
//! expected number of duplicates and distinct items of such a stream, so a
//! simulation's generator and ground truth can be checked before any filter
//! is, and so rates can be turned into counts.
//!
//! Notation: `q = 1 − 1/U` is the probability that one earlier item differs
//! from a given one. Item `i` (1-based) has `i − 1` predecessors, or
//! `min(i − 1, w)` inside a window of the last `w` items. Counts are `f64`.
//!
//! A check of the papers with these formulas: §4.2 of the sliding-window
//! paper reports "around 8%" duplicates among 1.5·10⁸ items drawn from
//! `|Γ| = 2^26`, but the expected fraction there is about 60%
//! ([`expected_duplicate_fraction`]`(1.5e8, 2^26) ≈ 0.600`); 8% matches a
//! stream about ten times shorter, or an alphabet about sixteen times larger.

use crate::numerics::{one_minus_pow1m, pow1m};

/// The probability that item `i` (1-based) of a uniform stream over `U`
/// items is a duplicate of an earlier one: `1 − (1 − 1/U)^(i − 1)`.
///
/// The first item is never a duplicate. Evaluated with
/// [`one_minus_pow1m`], so it stays accurate when `i ≪ U`.
///
/// ```
/// use ddf_theory::stream::duplicate_probability;
/// assert_eq!(duplicate_probability(1.0, 10.0), 0.0);
/// assert!((duplicate_probability(3.0, 10.0) - 0.19).abs() < 1e-15);
/// ```
pub fn duplicate_probability(i: f64, alphabet_size: f64) -> f64 {
    one_minus_pow1m(1.0 / alphabet_size, (i - 1.0).max(0.0))
}

/// The probability that item `i` (1-based) repeats one of the `w` items
/// before it: `1 − (1 − 1/U)^min(i − 1, w)`.
///
/// This is the duplicate notion of the windowed problem (sliding-window
/// paper, §2). `w = f64::INFINITY` gives [`duplicate_probability`].
///
/// ```
/// use ddf_theory::stream::windowed_duplicate_probability;
/// // Past the first w items the probability no longer grows.
/// let p = windowed_duplicate_probability(1e6, 1000.0, 10.0);
/// assert_eq!(p, windowed_duplicate_probability(11.0, 1000.0, 10.0));
/// ```
pub fn windowed_duplicate_probability(i: f64, alphabet_size: f64, w: f64) -> f64 {
    one_minus_pow1m(1.0 / alphabet_size, (i - 1.0).clamp(0.0, w))
}

/// The expected number of distinct items among `n` uniform draws from `U`:
/// `U·(1 − (1 − 1/U)^n)`.
///
/// Each of the `U` items is missed by all `n` draws with probability `q^n`
/// (linearity of expectation).
///
/// ```
/// use ddf_theory::stream::expected_distinct;
/// // Two draws from two items: 1 + 1/2 distinct on average.
/// assert!((expected_distinct(2.0, 2.0) - 1.5).abs() < 1e-15);
/// ```
pub fn expected_distinct(n: f64, alphabet_size: f64) -> f64 {
    alphabet_size * one_minus_pow1m(1.0 / alphabet_size, n)
}

/// The expected number of duplicates among the first `n` items of a uniform
/// stream over `U` items: `n − U·(1 − (1 − 1/U)^n)`.
///
/// Derivation: summing [`duplicate_probability`] over `i = 1..n`,
///
/// ```text
/// Σ_{i=1..n} (1 − q^(i−1)) = n − (1 − q^n)/(1 − q) = n − U·(1 − q^n),
/// ```
///
/// by the geometric sum with `1 − q = 1/U`; it is `n` minus
/// [`expected_distinct`], as it should be: every item is either the first
/// occurrence of a value or a duplicate.
///
/// Numerics: for `n ≪ U` the two terms nearly cancel (the result is about
/// `n²/(2U)`). With `λ = −ln(1 − 1/U)`, `y = −n·λ` and
/// `φ(y) = (e^y − 1 − y)/y²` (a series near 0), the same quantity is
/// `n·(U·n·λ²·φ(y) − (U·λ − 1))`, whose two terms differ in relative size by
/// about `n`, and `U·λ − 1 = 1/(2U) + 1/(3U²) + …` comes from its series
/// when `U` is large. The result keeps its relative precision for
/// `U = 2^64`. `U = 1` gives `n − 1`.
///
/// ```
/// use ddf_theory::stream::expected_duplicates;
/// // Birthday problem: about n²/(2U) duplicates while n ≪ U.
/// let u = 2f64.powi(64);
/// assert!((expected_duplicates(1e6, u) / (1e6 * (1e6 - 1.0) / (2.0 * u)) - 1.0).abs() < 1e-9);
/// ```
pub fn expected_duplicates(n: f64, alphabet_size: f64) -> f64 {
    if n <= 1.0 {
        return 0.0;
    }
    if alphabet_size == 1.0 {
        return n - 1.0;
    }
    let x = 1.0 / alphabet_size;
    let lambda = -(-x).ln_1p();
    let y = -n * lambda;
    let gap = if x < 1e-3 {
        // U·λ − 1 = Σ_{k≥1} x^k/(k + 1); six terms reach 1e-18 relative for x < 1e-3.
        x * (1.0 / 2.0
            + x * (1.0 / 3.0 + x * (1.0 / 4.0 + x * (1.0 / 5.0 + x * (1.0 / 6.0 + x / 7.0)))))
    } else {
        alphabet_size * lambda - 1.0
    };
    let duplicates = n * (alphabet_size * n * lambda * lambda * phi(y) - gap);
    duplicates.max(0.0)
}

/// `φ(y) = (e^y − 1 − y)/y²`, by its Taylor series near 0 where the direct form cancels.
fn phi(y: f64) -> f64 {
    if y.abs() < 0.1 {
        // Σ_{k≥0} y^k/(k + 2)!; nine terms leave under 1e-17 for |y| < 0.1.
        let mut term = 0.5;
        let mut sum = term;
        for k in 1..9 {
            term *= y / f64::from(k + 2);
            sum += term;
        }
        sum
    } else {
        (y.exp_m1() - y) / (y * y)
    }
}

/// The expected fraction of duplicates among the first `n` items of a
/// uniform stream over `U` items: `1 − U·(1 − (1 − 1/U)^n)/n`.
///
/// This is [`expected_duplicates`] divided by `n` (derivation there). It is
/// the average of [`duplicate_probability`] over the stream, and what a
/// generator's measured duplicate ratio should match. 0 for `n ≤ 1`.
///
/// ```
/// use ddf_theory::stream::expected_duplicate_fraction;
/// // With n = U the fraction is exactly (1 − 1/U)^U, close to 1/e.
/// let f = expected_duplicate_fraction(1e6, 1e6);
/// assert!((f - (-1f64).exp()).abs() < 1e-6);
/// ```
pub fn expected_duplicate_fraction(n: f64, alphabet_size: f64) -> f64 {
    if n <= 1.0 {
        return 0.0;
    }
    expected_duplicates(n, alphabet_size) / n
}

/// The expected number of windowed duplicates among the first `n` items:
/// items that repeat one of the `w` items before them.
///
/// Derivation: summing [`windowed_duplicate_probability`] over `i = 1..n`.
/// The first `min(n, w)` items see all their predecessors, which gives
/// [`expected_duplicates`]`(min(n, w))`; each of the remaining `n − w` items
/// sees exactly `w` of them, so
///
/// ```text
/// Σ_{i=1..n} (1 − q^min(i−1, w)) = dup(w) + (n − w)·(1 − q^w),   n > w,
/// ```
///
/// with `dup(w) = w − U·(1 − q^w)`. Both terms are non-negative, so the sum
/// has no cancellation beyond that handled in [`expected_duplicates`].
/// `w = f64::INFINITY` gives the unwindowed count.
///
/// ```
/// use ddf_theory::stream::{expected_duplicates, expected_windowed_duplicates};
/// assert_eq!(expected_windowed_duplicates(50.0, 100.0, 80.0), expected_duplicates(50.0, 100.0));
/// assert!(expected_windowed_duplicates(500.0, 100.0, 80.0) < expected_duplicates(500.0, 100.0));
/// ```
pub fn expected_windowed_duplicates(n: f64, alphabet_size: f64, w: f64) -> f64 {
    if n <= w {
        return expected_duplicates(n, alphabet_size);
    }
    let steady = one_minus_pow1m(1.0 / alphabet_size, w);
    expected_duplicates(w, alphabet_size) + (n - w) * steady
}

/// The expected fraction of windowed duplicates among the first `n` items:
/// [`expected_windowed_duplicates`] divided by `n`.
///
/// For `n ≫ w` it tends to `1 − (1 − 1/U)^w`, the steady-state duplicate
/// rate the windowed experiments of the papers run at. 0 for `n ≤ 1`.
///
/// ```
/// use ddf_theory::stream::expected_windowed_duplicate_fraction;
/// let f = expected_windowed_duplicate_fraction(1e12, 2f64.powi(16), 1000.0);
/// assert!((f - (1.0 - (1.0 - 2f64.powi(-16)).powi(1000))).abs() < 1e-9);
/// ```
pub fn expected_windowed_duplicate_fraction(n: f64, alphabet_size: f64, w: f64) -> f64 {
    if n <= 1.0 {
        return 0.0;
    }
    expected_windowed_duplicates(n, alphabet_size, w) / n
}

/// A count of Poisson arrivals of mean `λ` that is exceeded with probability
/// at most `tail`: `λ + a` with `a = L/3 + √(L²/9 + 2Lλ)`, `L = ln(1/tail)`.
///
/// Derivation: the Chernoff (Bernstein) bound for a Poisson count,
/// `P(X ≥ λ + a) ≤ exp(−a²/(2(λ + a/3)))`, set equal to `tail` and solved
/// for `a`. Used to size a time-windowed filter for an expected arrival rate
/// (the capacity per time slice that a Poisson stream almost never
/// overruns). NaN unless `λ ≥ 0` and `0 < tail < 1`.
///
/// ```
/// use ddf_theory::stream::poisson_arrival_bound;
/// let b = poisson_arrival_bound(10_000.0, 1e-9);
/// // About mean + 6.5 standard deviations.
/// assert!(b > 10_000.0 + 6.0 * 100.0 && b < 10_000.0 + 7.0 * 100.0);
/// ```
pub fn poisson_arrival_bound(mean: f64, tail: f64) -> f64 {
    if !(mean >= 0.0 && tail > 0.0 && tail < 1.0) {
        return f64::NAN;
    }
    let l = -tail.ln();
    mean + l / 3.0 + (l * l / 9.0 + 2.0 * l * mean).sqrt()
}

/// The probability that an item is unseen over a window `w` once the stream
/// is past its first `w` items: `(1 − 1/U)^w`.
///
/// The complement of the steady-state [`windowed_duplicate_probability`];
/// it converts a false-positive count among all items into one among unseen
/// items.
///
/// ```
/// use ddf_theory::stream::steady_unseen_probability;
/// assert!((steady_unseen_probability(10.0, 2.0) - 0.81).abs() < 1e-15);
/// ```
pub fn steady_unseen_probability(alphabet_size: f64, w: f64) -> f64 {
    pow1m(1.0 / alphabet_size, w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    /// Σ_{i=1..n} P(item i is a duplicate), term by term.
    fn brute_force(n: u32, u: f64, w: f64) -> f64 {
        (1..=n)
            .map(|i| windowed_duplicate_probability(f64::from(i), u, w))
            .sum()
    }

    #[test]
    fn closed_forms_match_the_sums() {
        for &u in &[1.0, 2.0, 7.0, 1000.0, 1e9] {
            for &n in &[1_u32, 2, 3, 10, 500] {
                let nf = f64::from(n);
                assert_relative_eq!(
                    expected_duplicates(nf, u),
                    brute_force(n, u, f64::INFINITY),
                    max_relative = 1e-11,
                    epsilon = 1e-300
                );
                for &w in &[1.0, 5.0, 100.0] {
                    assert_relative_eq!(
                        expected_windowed_duplicates(nf, u, w),
                        brute_force(n, u, w),
                        max_relative = 1e-11,
                        epsilon = 1e-300
                    );
                }
            }
        }
    }

    #[test]
    fn hand_computed_values() {
        // U = 2, n = 3: P = 0, 1/2, 3/4, total 5/4.
        assert_relative_eq!(expected_duplicates(3.0, 2.0), 1.25, max_relative = 1e-15);
        assert_relative_eq!(
            expected_duplicate_fraction(3.0, 2.0),
            5.0 / 12.0,
            max_relative = 1e-15
        );
        // Same with w = 1: P = 0, 1/2, 1/2.
        assert_relative_eq!(
            expected_windowed_duplicates(3.0, 2.0, 1.0),
            1.0,
            max_relative = 1e-15
        );
        assert_relative_eq!(
            expected_windowed_duplicate_fraction(3.0, 2.0, 1.0),
            1.0 / 3.0,
            max_relative = 1e-15
        );
        // n = 2: exactly 1/U.
        assert_relative_eq!(
            expected_duplicates(2.0, 2f64.powi(64)),
            2f64.powi(-64),
            max_relative = 1e-14
        );
        assert_eq!(expected_duplicates(1.0, 10.0), 0.0);
        assert_eq!(expected_duplicates(5.0, 1.0), 4.0);
        assert_relative_eq!(expected_distinct(3.0, 2.0), 1.75, max_relative = 1e-15);
        assert_eq!(expected_duplicate_fraction(0.0, 10.0), 0.0);
    }

    #[test]
    fn both_numeric_branches_agree() {
        // At x = 1e-3 the series and the direct form of U·λ − 1 meet.
        for &u in &[999.0_f64, 1000.0, 1001.0] {
            // Here the naive form is accurate: most items are duplicates, nothing cancels.
            let n = 5000.0_f64;
            let naive = n - u * (1.0 - (1.0 - 1.0 / u).powf(n));
            assert_relative_eq!(expected_duplicates(n, u), naive, max_relative = 1e-12);
        }
        // phi across |y| = 0.1.
        for &y in &[-0.1000001, -0.0999999] {
            assert_relative_eq!(phi(y), (y.exp_m1() - y) / (y * y), max_relative = 1e-9);
        }
    }

    #[test]
    fn section_4_2_stream_has_sixty_percent_duplicates() {
        // Sliding-window paper §4.2: 1.5e8 items over 2^26.
        let f = expected_duplicate_fraction(1.5e8, 2f64.powi(26));
        assert!((f - 0.600).abs() < 1e-3, "fraction {f}");
    }
}
