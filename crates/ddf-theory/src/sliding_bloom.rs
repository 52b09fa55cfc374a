//! The Naor–Yogev sliding Bloom filter: the space of its construction and the space lower bound.
//!
//! Source: Naor, Yogev, *Tight Bounds for Sliding Bloom Filters*: §1.1 (the
//! `(n, m, ε)` problem), §2.1 (approximate membership through an exact
//! dictionary of hashes), §2.2 (the dictionary bound `ℬ(M, n)`), §2.3 (the
//! space of the construction and the choice of `c`), §2.4–2.5 (the doubled
//! generation counter and the incremental scan), Theorem 1.1 and
//! Theorem 1.2 (§3).
//!
//! | symbol | here | meaning |
//! | --- | --- | --- |
//! | `n` | `n` | the window: the last `n` insertions are always reported |
//! | `m` | `m` | the slack: the `m` insertions before the window may be reported; `f64::INFINITY` for `m = ∞` |
//! | `ε` | `epsilon` | the bound on the false-positive probability of older or unseen items |
//! | `c` | `c` | generations per window; a generation is `n/c` insertions |
//! | `n'` | [`entries`] | `n(1 + 1/c)`: the entries the dictionary must hold |
//! | `M` | `universe` | the hash range `n'/ε` of §2.1, or any universe in `ℬ(M, n)` |
//! | `ℬ(M, n)` | [`dictionary_bits`] | bits to represent an `n`-subset of `M` values |
//!
//! Logarithms are base 2, as in the paper. Counts are `f64`.

use crate::numerics::{find_root, ln_beta, minimize, one_minus_pow1m};
use std::f64::consts::LN_2;

/// §2.2: `ℬ(M, n) = ⌈log₂ C(M, n)⌉`, the information-theoretic minimum number
/// of bits to represent a set of `n` values out of `M`.
///
/// The paper uses it with `M = n'/ε` and `n = n'` to price the dictionary of
/// hashes (§2.3); `ℬ(M, n) = n·log₂(M/n) + n·log₂ e − O(log n)` for `n ≪ M`.
/// Computed in log space through `ln B(n + 1, M − n + 1)`, so `M` may be far
/// beyond `u64`. `M` and `n` are rounded to integers first (the paper's `M` is
/// `⌈n'/ε⌉`); returns 0 for `n = 0` or `n = M` and NaN for `n > M`, negative or
/// non-finite arguments.
///
/// ```
/// use ddf_theory::sliding_bloom::dictionary_bits;
/// // C(10, 3) = 120 subsets: 7 bits.
/// assert_eq!(dictionary_bits(10.0, 3.0), 7.0);
/// assert_eq!(dictionary_bits(10.0, 0.0), 0.0);
/// ```
pub fn dictionary_bits(universe: f64, n: f64) -> f64 {
    let (big_m, n) = (universe.round(), n.round());
    if !big_m.is_finite() || !n.is_finite() || n < 0.0 || n > big_m {
        return f64::NAN;
    }
    if n == 0.0 || n == big_m {
        return 0.0;
    }
    // C(M, n) = 1 / ((M + 1)·B(n + 1, M − n + 1)).
    let log2_c = -((big_m + 1.0).ln() + ln_beta(n + 1.0, big_m - n + 1.0)) / LN_2;
    // Guard the ceiling against a result a rounding error above an integer.
    (log2_c - 1e-9 * log2_c.abs().max(1.0)).ceil()
}

/// §2.3: `n' = n·(1 + 1/c)`, the entries the dictionary holds: the last
/// `c + 1` generations of `n/c` insertions each.
///
/// ```
/// use ddf_theory::sliding_bloom::entries;
/// assert_eq!(entries(1000.0, 4.0), 1250.0);
/// ```
pub fn entries(n: f64, c: f64) -> f64 {
    n * (1.0 + 1.0 / c)
}

/// §2.3 (memory consumption): the space of the construction with `c`
/// generations, `n·(1 + 1/c)·(log₂(1/ε) + log₂ c + 1)` bits, leaving out the
/// `(1 + o(1))` factor of the succinct dictionary.
///
/// It prices `n'` entries of `log₂(1/ε)` bits of hash (the quotienting of a
/// succinct dictionary saves the rest of `log₂(n'/ε)`) plus a generation tag
/// of about `log₂ c + 1` bits (the doubled counter of §2.4). For the exact
/// count of an ideal succinct dictionary see [`succinct_construction_bits`].
///
/// ```
/// use ddf_theory::sliding_bloom::construction_bits;
/// // n = 1000, c = 8, ε = 2^-8: 1125·(8 + 3 + 1).
/// assert_eq!(construction_bits(1000.0, 8.0, 2f64.powi(-8)), 13_500.0);
/// ```
pub fn construction_bits(n: f64, c: f64, epsilon: f64) -> f64 {
    entries(n, c) * ((1.0 / epsilon).log2() + c.log2() + 1.0)
}

/// §2.3–2.4, counted exactly: `ℬ(⌈n'/ε⌉, ⌈n'⌉) + ⌈n'⌉·⌈log₂(2c + 3)⌉`, the
/// bits of an ideal succinct dictionary holding the `n'` hashes of range
/// `n'/ε` with a tag of `⌈log₂(2c + 3)⌉` bits each (the counter of §2.4 runs
/// over `0..=2c + 2`).
///
/// This is what the construction costs with a dictionary at the
/// information-theoretic minimum; a real table adds its load factor and
/// per-cell overhead on top. `c` is rounded up to an integer.
///
/// ```
/// use ddf_theory::sliding_bloom::{dictionary_bits, succinct_construction_bits};
/// let (n, c, eps) = (1000.0, 8.0, 2f64.powi(-8));
/// // 1125 hashes out of 288,000, plus 1125 tags of 5 bits (2c + 3 = 19).
/// let expected = dictionary_bits(288_000.0, 1125.0) + 1125.0 * 5.0;
/// assert_eq!(succinct_construction_bits(n, c, eps), expected);
/// ```
pub fn succinct_construction_bits(n: f64, c: f64, epsilon: f64) -> f64 {
    let c = c.ceil();
    let stored = entries(n, c).ceil();
    let tag_bits = (2.0 * c + 3.0).log2().ceil();
    dictionary_bits((stored / epsilon).ceil(), stored) + stored * tag_bits
}

/// §2.3: the number of generations that minimises
/// [`construction_bits`] for a given `ε`, over real `c ≥ 1`.
///
/// Setting the derivative of `(1 + 1/c)·(log₂(1/ε) + log₂ c + 1)` to zero
/// gives `(c + 1)/ln 2 = log₂(1/ε) + log₂ c + 1`; the paper prints the
/// condition as `c − log c = log(1/ε) − 1` and uses the approximation
/// `c ≈ log(1/ε)` (see `docs/errata.md`). The two agree in order of growth,
/// which is all Theorem 1.1 needs; this function returns the exact minimiser.
/// For `ε ≥ 1/4` the minimum is at the boundary `c = 1`. Returns NaN unless
/// `0 < ε < 1`.
///
/// ```
/// use ddf_theory::sliding_bloom::{construction_bits, optimal_generations};
/// let eps = 2f64.powi(-8);
/// let c = optimal_generations(eps);
/// assert!((c - 7.21).abs() < 0.01);
/// // It beats the paper's approximation c = log2(1/ε) = 8, if only slightly.
/// assert!(construction_bits(1.0, c, eps) < construction_bits(1.0, 8.0, eps));
/// ```
pub fn optimal_generations(epsilon: f64) -> f64 {
    if !(epsilon > 0.0 && epsilon < 1.0) {
        return f64::NAN;
    }
    let big_l = (1.0 / epsilon).log2();
    // The stationarity condition, increasing in c; its root is the minimiser.
    let condition = |c: f64| (c + 1.0) / LN_2 - big_l - c.log2() - 1.0;
    if condition(1.0) >= 0.0 {
        return 1.0;
    }
    let hi = 2.0 * big_l + 4.0;
    match find_root(condition, 1.0, hi, 1e-12) {
        Ok(c) => c,
        // The bracket always holds the root; fall back to a direct search.
        Err(_) => minimize(|c| construction_bits(1.0, c, epsilon), 1.0, hi, 1e-9)
            .map_or(f64::NAN, |m| m.arg),
    }
}

/// Theorem 1.1 and §2.3: the generations the construction uses,
/// `c = max(log₂(1/ε), n/m)`.
///
/// `n/c ≤ m` makes a generation no longer than the slack, so an element
/// forgotten one generation after the window is still within `n + m`. The
/// extraction prints the second term as `m/n`, which would not give
/// `n/c ≤ m`; `n/m` is meant (see `docs/errata.md`). `m = ∞` gives
/// `log₂(1/ε)`.
///
/// ```
/// use ddf_theory::sliding_bloom::theorem_1_1_generations;
/// let eps = 2f64.powi(-8);
/// assert_eq!(theorem_1_1_generations(1e6, f64::INFINITY, eps), 8.0);
/// assert_eq!(theorem_1_1_generations(1e6, 1e6 / 64.0, eps), 64.0);
/// ```
pub fn theorem_1_1_generations(n: f64, m: f64, epsilon: f64) -> f64 {
    (1.0 / epsilon).log2().max(n / m)
}

/// Theorem 1.1: the space of the construction, [`construction_bits`] at
/// `c =` [`theorem_1_1_generations`]`(n, m, ε)`; asymptotically
/// `n·log₂(1/ε) + n·max(log₂(n/m), log₂ log₂(1/ε)) + O(n)` bits.
///
/// ```
/// use ddf_theory::sliding_bloom::theorem_1_1_bits;
/// // n = 2^20, m = ∞, ε = 2^-8: c = 8, 2^20·(9/8)·(8 + 3 + 1) bits.
/// let n = 2f64.powi(20);
/// assert_eq!(theorem_1_1_bits(n, f64::INFINITY, 2f64.powi(-8)), n * 13.5);
/// ```
pub fn theorem_1_1_bits(n: f64, m: f64, epsilon: f64) -> f64 {
    construction_bits(n, theorem_1_1_generations(n, m, epsilon), epsilon)
}

/// Theorem 1.2: the space every `(n, m, ε)`-sliding Bloom filter needs, up to
/// its `−O(n)` term: for `m > 0`,
/// `n·log₂(1/ε) + n·max(log₂(n/m), log₂ log₂(1/ε))` bits, and for `m = ∞`
/// (pass `f64::INFINITY`), `n·log₂(1/ε) + n·log₂ log₂(1/ε)`.
///
/// The `−O(n)` term is dropped, so this is the leading part of the bound,
/// which is how the paper compares it with Theorem 1.1; measured filters are
/// reported against it as a ratio. The bound says nothing for `m = 0` (the
/// exact-window case) and returns `+∞` there; it is meant for small `ε`
/// (for `ε > 1/2` the `log log` term is negative). NaN unless `0 < ε < 1`.
///
/// ```
/// use ddf_theory::sliding_bloom::lower_bound_bits;
/// let eps = 2f64.powi(-8);
/// // m = ∞: 8 + log2 8 = 11 bits per element.
/// assert_eq!(lower_bound_bits(1e6, f64::INFINITY, eps), 11e6);
/// // A slack of n/64 costs log2 64 = 6 bits instead of 3.
/// assert_eq!(lower_bound_bits(1e6, 1e6 / 64.0, eps), 14e6);
/// ```
pub fn lower_bound_bits(n: f64, m: f64, epsilon: f64) -> f64 {
    if !(epsilon > 0.0 && epsilon < 1.0) {
        return f64::NAN;
    }
    let big_l = (1.0 / epsilon).log2();
    // n/m = 0 for m = ∞, whose logarithm −∞ loses the max, as case 2 says.
    n * big_l + n * (n / m).log2().max(big_l.log2())
}

/// §2.1: the union bound on the false-positive probability of a dictionary of
/// hashes, `Pr[h(x) ∈ h(S)] ≤ |S|/M`, for `stored = |S|` hashes of range
/// `universe = M` (clamped to 1).
///
/// ```
/// use ddf_theory::sliding_bloom::false_positive_bound;
/// assert_eq!(false_positive_bound(1000.0, 256_000.0), 1.0 / 256.0);
/// ```
pub fn false_positive_bound(stored: f64, universe: f64) -> f64 {
    (stored / universe).min(1.0)
}

/// §2.1 without the union bound: `1 − (1 − 1/M)^|S|`, the probability that
/// an item's hash, uniform over `M` values and independent of the `|S|`
/// stored ones (themselves independent and uniform), equals one of them.
///
/// This is the false-positive rate to expect from a table holding `stored`
/// independent hashes; [`false_positive_bound`] is its guarantee.
///
/// ```
/// use ddf_theory::sliding_bloom::{false_positive_bound, false_positive_probability};
/// let p = false_positive_probability(1000.0, 256_000.0);
/// assert!(p < false_positive_bound(1000.0, 256_000.0) && p > 0.0038);
/// ```
pub fn false_positive_probability(stored: f64, universe: f64) -> f64 {
    one_minus_pow1m(1.0 / universe, stored)
}

/// §2.3 (correctness): the oldest age at which an element is still reported
/// when the window `n` is cut into `c` generations of `g = ⌈n/c⌉` insertions,
/// `(c + 1)·g − 1`: an element inserted first in its generation stays while
/// its generation is among the last `c + 1`. Ages count insertions: an item
/// among the last `k` insertions has age at most `k`.
///
/// The window is covered (`c·g ≥ n`), and the effective slack is this minus
/// `n`, at most `m` when `g ≤ m + 1` and `g` divides `n` (the paper's
/// `n/c ≤ m` with integer generations). Integer arguments as `f64`.
///
/// ```
/// use ddf_theory::sliding_bloom::retention;
/// // n = 1000, c = 8: generations of 125, remembered up to age 1124.
/// assert_eq!(retention(1000.0, 8.0), 1124.0);
/// // c = n: one insertion per generation, no slack at all.
/// assert_eq!(retention(1000.0, 1000.0), 1000.0);
/// ```
pub fn retention(n: f64, c: f64) -> f64 {
    (c + 1.0) * (n / c).ceil() - 1.0
}

/// §2.4–2.5: the oldest age at which a stale entry may still occupy a cell,
/// `(c + 1)·⌈n/c⌉ − 1 + P`, when a scan deletes stale entries and, from any
/// generation boundary on, visits every cell within `P` insertions.
///
/// An entry turns stale at the generation boundary one [`retention`] after
/// its generation began; the scan reaches its cell within the next `P`
/// insertions, and an insertion that moves it first deletes it instead
/// (§2.6). The tags of §2.4 count generations modulo `2c + 3`, so the entry
/// must be gone within `c + 2` generations of turning stale for its tag never
/// to read as fresh: `P ≤ (c + 2)·⌈n/c⌉` suffices. In general tags modulo
/// `q` allow `P ≤ (q − c − 1)·⌈n/c⌉`: a faster scan buys narrower tags. The paper's scan takes two
/// cells per insertion over `n'` cells, `P = n'/2`; a scan paying
/// `⌈cells/(c + 1)⌉` per generation has `P = (c + 1)·⌈n/c⌉`.
///
/// ```
/// use ddf_theory::sliding_bloom::physical_lifetime;
/// // n = 1000, c = 8, a scan period of 300 insertions.
/// assert_eq!(physical_lifetime(1000.0, 8.0, 300.0), 1424.0);
/// ```
pub fn physical_lifetime(n: f64, c: f64, scan_period: f64) -> f64 {
    retention(n, c) + scan_period
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numerics::log2_binomial;

    #[test]
    fn dictionary_bits_matches_exact_binomials() {
        for (m, n) in [
            (10u64, 3u64),
            (64, 32),
            (1000, 10),
            (100_000, 777),
            (1 << 40, 1000),
        ] {
            let exact = log2_binomial(m, n).ceil();
            assert_eq!(
                dictionary_bits(m as f64, n as f64),
                exact,
                "M = {m}, n = {n}"
            );
        }
        assert_eq!(dictionary_bits(5.0, 5.0), 0.0);
        assert!(dictionary_bits(5.0, 6.0).is_nan());
        assert!(dictionary_bits(f64::INFINITY, 6.0).is_nan());
        // n log2(M/n) + n log2 e for n ≪ M.
        let (m, n) = (1e12_f64, 1e4_f64);
        let approx = n * (m / n).log2() + n * std::f64::consts::LOG2_E;
        assert!((dictionary_bits(m, n) - approx).abs() / approx < 1e-3);
    }

    #[test]
    fn optimal_generations_solves_the_stationarity_condition() {
        for k in [2, 4, 8, 12, 16, 24] {
            let eps = 2f64.powi(-k);
            let c = optimal_generations(eps);
            let lhs = (c + 1.0) / LN_2;
            let rhs = f64::from(k) + c.log2() + 1.0;
            assert!((lhs - rhs).abs() < 1e-9, "k = {k}: c = {c}");
            for dc in [-0.05, 0.05] {
                assert!(construction_bits(1.0, c, eps) <= construction_bits(1.0, c + dc, eps));
            }
        }
        assert_eq!(optimal_generations(0.3), 1.0);
        assert!(optimal_generations(0.0).is_nan() && optimal_generations(1.0).is_nan());
    }

    #[test]
    fn lower_bound_cases() {
        let eps = 2f64.powi(-12);
        // log2 log2 2^12 = log2 12.
        let loglog = 12f64.log2();
        assert!((lower_bound_bits(1.0, f64::INFINITY, eps) - (12.0 + loglog)).abs() < 1e-12);
        // Large m: the log log term wins; small m: log(n/m) wins.
        assert_eq!(
            lower_bound_bits(1.0, 1.0, eps),
            lower_bound_bits(1.0, 1e9, eps)
        );
        assert_eq!(lower_bound_bits(1024.0, 1.0, eps), 1024.0 * 22.0);
        assert_eq!(lower_bound_bits(1.0, 0.0, eps), f64::INFINITY);
        assert!(lower_bound_bits(1.0, 1.0, 1.0).is_nan());
    }

    #[test]
    fn construction_stays_above_the_lower_bound() {
        for k in [4, 8, 12, 20] {
            let eps = 2f64.powi(-k);
            for m in [f64::INFINITY, 1e6 / 4.0, 1e6 / 64.0, 1e6 / 1024.0] {
                let upper = theorem_1_1_bits(1e6, m, eps);
                let lower = lower_bound_bits(1e6, m, eps);
                assert!(upper >= lower, "k = {k}, m = {m}");
                // Same leading terms: the gap is O(n).
                assert!(upper - lower <= 1e6 * (2.0 + (k as f64 + 7.0) / 4.0));
            }
        }
    }

    #[test]
    fn retention_and_lifetime() {
        // c divides n: slack n/c − 1.
        assert_eq!(retention(1200.0, 12.0) - 1200.0, 99.0);
        // c does not divide n: generations of ⌈n/c⌉ cover a little more.
        assert_eq!(retention(1000.0, 7.0), 8.0 * 143.0 - 1.0);
        assert_eq!(physical_lifetime(1000.0, 7.0, 1.0), 8.0 * 143.0);
    }

    #[test]
    fn fp_bound_and_probability() {
        assert_eq!(false_positive_bound(10.0, 5.0), 1.0);
        assert_eq!(false_positive_probability(0.0, 5.0), 0.0);
        let p = false_positive_probability(1e6, 2.56e8);
        // (1 − x)^S = exp(−Sx − Sx²/2 − …): within S·x²/2 ≈ 8e-12 of exp(−Sx).
        assert!((p - (1.0 - (-1.0f64 / 256.0).exp())).abs() < 1e-11);
    }
}
