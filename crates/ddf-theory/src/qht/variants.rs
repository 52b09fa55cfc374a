//! QHTD and QQHTD (QHT paper §5): the variants that store every element,
//! their transients and saturated rates.

use super::*;

/// §5.1: the asymptotic false-positive rate of a QHTD (a QHT that also stores
/// elements detected as duplicates), `FPR_∞ = 1 − (1 − 1/S)^k`.
///
/// Its `k` cells hold fingerprints that need not be distinct, each uniform,
/// so an unseen element matches one of them with this probability (QHT paper
/// §5.1). It is below QHT's `k/S`.
///
/// ```
/// use ddf_theory::qht::{fpr_inf, qhtd_fpr_inf};
/// assert!((qhtd_fpr_inf(2.0, 8.0) - (1.0 - 49.0 / 64.0)).abs() < 1e-15);
/// assert!(qhtd_fpr_inf(4.0, 15.0) < fpr_inf(4.0, 15.0));
/// ```
pub fn qhtd_fpr_inf(cells_per_row: f64, fingerprints: f64) -> f64 {
    one_minus_pow1m(1.0 / fingerprints, cells_per_row)
}

/// §5.1: the asymptotic false-negative rate of a QHTD when `U ≫ N`,
/// `FNR_∞ = (1 − 1/S)^k`, from Claim 4.1 (QHT paper §5.1).
///
/// ```
/// use ddf_theory::qht::{qhtd_fnr_inf_limit, qhtd_fpr_inf};
/// assert_eq!(qhtd_fnr_inf_limit(4.0, 15.0) + qhtd_fpr_inf(4.0, 15.0), 1.0);
/// ```
pub fn qhtd_fnr_inf_limit(cells_per_row: f64, fingerprints: f64) -> f64 {
    pow1m(1.0 / fingerprints, cells_per_row)
}

/// `E[1 − (1 − 1/S)^min(R, k)]` for `R ~ Binomial(m, 1/N)`: the false-positive
/// probability of a table whose row holds the `min(R, k)` latest of `R`
/// uniform fingerprints.
fn fill_limited_fp(m: f64, rows: f64, k: usize, fingerprints: f64) -> f64 {
    let x = 1.0 / fingerprints;
    let full = one_minus_pow1m(x, k as f64);
    let m = m.floor() as u64;
    let p = (1.0 / rows).min(1.0);
    let short: f64 = (1..k as u64)
        .map(|r| binomial_pmf(r, m, p) * one_minus_pow1m(x, r as f64))
        .sum();
    short + binomial_sf(k as u64 - 1, m, p) * full
}

/// The exact `FP_m` of a QHTD from an empty table on a stream of distinct
/// elements. Derived here; the paper gives only the limit [`qhtd_fpr_inf`].
///
/// A QHTD stores every element, so a row that received `r` of the first `m`
/// elements holds `min(r, k)` independent uniform fingerprints (first empty
/// cell, then a random one), and
///
/// ```text
/// FP_m = E[1 − (1 − 1/S)^min(R, k)],   R ~ Binomial(m, 1/N).
/// ```
///
/// NaN unless `k` is a whole number in `1..=2^20`. Cost `O(k)`.
///
/// ```
/// use ddf_theory::qht::{qhtd_fp_m, qhtd_fpr_inf};
/// assert_eq!(qhtd_fp_m(0.0, 100.0, 4.0, 15.0), 0.0);
/// assert!((qhtd_fp_m(1e6, 100.0, 4.0, 15.0) - qhtd_fpr_inf(4.0, 15.0)).abs() < 1e-12);
/// ```
pub fn qhtd_fp_m(m: f64, rows: f64, cells_per_row: f64, fingerprints: f64) -> f64 {
    match whole_cells(cells_per_row) {
        Some(k) if rows >= 1.0 && m >= 0.0 => fill_limited_fp(m, rows, k, fingerprints),
        _ => f64::NAN,
    }
}

/// The probability that a QHTD misses a duplicate whose last occurrence is
/// `t` elements back, rows full:
///
/// ```text
/// FN(t) = (1 − 1/S)^k · (1 − (1 − 1/(N·k))^t).
/// ```
///
/// Derived here (the paper gives only [`qhtd_fnr_inf_limit`]). The last
/// occurrence wrote the fingerprint into one cell; every later arrival to the
/// row overwrites a uniformly chosen cell with an independent uniform
/// fingerprint. The element is missed when its cell was overwritten (each
/// arrival picks it with probability `1/(N·k)`) and none of the `k` cells
/// holds its fingerprint by chance. The element's own earlier occurrences,
/// which could have left further copies, are neglected: they matter at order
/// `N·k/U`.
///
/// ```
/// use ddf_theory::qht::{qhtd_fn_after, qhtd_fnr_inf_limit};
/// assert_eq!(qhtd_fn_after(0.0, 100.0, 4.0, 15.0), 0.0);
/// assert!((qhtd_fn_after(1e7, 100.0, 4.0, 15.0) - qhtd_fnr_inf_limit(4.0, 15.0)).abs() < 1e-12);
/// ```
pub fn qhtd_fn_after(t: f64, rows: f64, cells_per_row: f64, fingerprints: f64) -> f64 {
    qhtd_fnr_inf_limit(cells_per_row, fingerprints)
        * one_minus_pow1m(1.0 / (rows * cells_per_row), t.max(0.0))
}

/// The asymptotic false-negative rate of a QHTD on a uniform stream over `U`
/// items: [`qhtd_fn_after`] averaged over the distance to the last
/// occurrence, geometric with `P(t) = (1 − 1/U)^t/U`,
///
/// ```text
/// FNR_∞ = (1 − 1/S)^k · (1 − 1/(1 + (U − 1)/(N·k))).
/// ```
///
/// Derived here, under the same approximation as [`qhtd_fn_after`]; tends to
/// [`qhtd_fnr_inf_limit`] as `U/(N·k) → ∞`.
///
/// ```
/// use ddf_theory::qht::{qhtd_fnr_inf, qhtd_fnr_inf_limit};
/// let limit = qhtd_fnr_inf_limit(4.0, 15.0);
/// assert!((qhtd_fnr_inf(1024.0, 4.0, 15.0, 2f64.powi(50)) - limit).abs() < 1e-9);
/// ```
pub fn qhtd_fnr_inf(rows: f64, cells_per_row: f64, fingerprints: f64, alphabet_size: f64) -> f64 {
    let cells = rows * cells_per_row;
    let remembered = 1.0 / (1.0 + (alphabet_size - 1.0) / cells);
    qhtd_fnr_inf_limit(cells_per_row, fingerprints) * (1.0 - remembered)
}

/// The exact `FP_m` of a QQHTD from an empty table on a stream of distinct
/// elements: the same as [`qhtd_fp_m`], since a QQHTD row also holds the
/// fingerprints of its `min(R, k)` latest arrivals (QHT paper §5.2,
/// Algorithm 2; derived here).
///
/// ```
/// use ddf_theory::qht::{qhtd_fp_m, qqhtd_fp_m};
/// assert_eq!(qqhtd_fp_m(500.0, 64.0, 4.0, 15.0), qhtd_fp_m(500.0, 64.0, 4.0, 15.0));
/// ```
pub fn qqhtd_fp_m(m: f64, rows: f64, cells_per_row: f64, fingerprints: f64) -> f64 {
    qhtd_fp_m(m, rows, cells_per_row, fingerprints)
}

/// The asymptotic false-positive rate of a QQHTD, `1 − (1 − 1/S)^k`: a full
/// row holds the fingerprints of the row's `k` latest arrivals, independent
/// and uniform, as a QHTD row does ([`qhtd_fpr_inf`]; QHT paper §5.2).
///
/// ```
/// use ddf_theory::qht::{qhtd_fpr_inf, qqhtd_fpr_inf};
/// assert_eq!(qqhtd_fpr_inf(4.0, 15.0), qhtd_fpr_inf(4.0, 15.0));
/// ```
pub fn qqhtd_fpr_inf(cells_per_row: f64, fingerprints: f64) -> f64 {
    qhtd_fpr_inf(cells_per_row, fingerprints)
}

/// The probability that a QQHTD misses a duplicate whose last occurrence is
/// `t` elements back:
///
/// ```text
/// FN(t) = (1 − 1/S)^k · P(Binomial(t, 1/N) ≥ k).
/// ```
///
/// Derived here; the paper leaves QQHTD's saturation to future work. The
/// last occurrence pushed the fingerprint into its row's queue; it leaves
/// once `k` more elements reach that row (each of the `t` does with
/// probability `1/N`), and then the row holds `k` independent uniform
/// fingerprints of other elements, none equal to it with probability
/// `(1 − 1/S)^k`. Exact up to other elements repeating within one row's
/// queue, an effect of order `k·N/U`.
///
/// ```
/// use ddf_theory::qht::qqhtd_fn_after;
/// // Fewer than k later arrivals can reach the row: never missed.
/// assert_eq!(qqhtd_fn_after(3.0, 10.0, 4.0, 15.0), 0.0);
/// assert!(qqhtd_fn_after(40.0, 10.0, 4.0, 15.0) > 0.0);
/// ```
pub fn qqhtd_fn_after(t: f64, rows: f64, cells_per_row: f64, fingerprints: f64) -> f64 {
    let Some(k) = whole_cells(cells_per_row) else {
        return f64::NAN;
    };
    let t = t.max(0.0).floor();
    let p = (1.0 / rows).min(1.0);
    let mean = t * p;
    // Far past k arrivals the tail is 1 to double precision; skip the sum.
    let pushed_out = if mean - k as f64 > 40.0 * mean.sqrt().max(1.0) {
        1.0
    } else {
        binomial_sf(k as u64 - 1, t as u64, p)
    };
    qhtd_fnr_inf_limit(cells_per_row, fingerprints) * pushed_out
}

/// The asymptotic false-negative rate of a QQHTD on a uniform stream over
/// `U` items: [`qqhtd_fn_after`] averaged over the geometric distance to the
/// last occurrence,
///
/// ```text
/// FNR_∞ = (1 − 1/S)^k · ((U − 1)/(U − 1 + N))^k.
/// ```
///
/// Derived here: with `t` geometric (`P(t) = (1 − 1/U)^t/U`), the number of
/// later arrivals to the row is itself geometric with ratio
/// `ρ = (U − 1)/(U − 1 + N)`, so `P(at least k) = ρ^k`.
///
/// ```
/// use ddf_theory::qht::{qhtd_fnr_inf, qqhtd_fnr_inf};
/// // The queue keeps recent elements longer than random eviction does.
/// let (n, k, s, u) = (1024.0, 4.0, 15.0, 1e5);
/// assert!(qqhtd_fnr_inf(n, k, s, u) < qhtd_fnr_inf(n, k, s, u));
/// ```
pub fn qqhtd_fnr_inf(rows: f64, cells_per_row: f64, fingerprints: f64, alphabet_size: f64) -> f64 {
    let rho = (alphabet_size - 1.0) / (alphabet_size - 1.0 + rows);
    qhtd_fnr_inf_limit(cells_per_row, fingerprints) * rho.powf(cells_per_row)
}
