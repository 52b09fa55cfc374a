//! Quotient hash tables: QHT, QHTD, QQHTD and the streaming quotient filter (SQF).
//!
//! Source: Géraud, Lombard-Platet, Naccache, *Quotient Hash Tables:
//! Efficiently Detecting Duplicates in Streaming Data* ("QHT paper"):
//! §2.4 and §3 (SQF and its corrected asymptotics), §4.1 (Theorem 4.1, `FP_m`
//! and `FPR_n`), §4.1.1 (SQF), §4.2 and Appendix B (Theorem 4.2, `FN_{i,m}`,
//! `FN_m`, `FNR_n`, `FNR_∞`), §4.3 (Claim 4.1, saturation), §4.4 (Theorem 4.3,
//! memory of QHT against SQF), §4.5 (parameter tuning) and §5 (QHTD, QQHTD).
//!
//! | symbol | argument | meaning |
//! | --- | --- | --- |
//! | `N` | `rows` | rows of the table |
//! | `k` | `cells_per_row` | cells per row |
//! | `S` | `fingerprints` | distinct fingerprint values (`2^s − 1` for `s`-bit fingerprints with 0 kept for "empty", §3.2 and footnote 16) |
//! | `U` | `alphabet_size` | items the uniform stream draws from (`U = \|Γ\|`) |
//! | `m` | `m` | elements before the one judged (the judged one is the `(m+1)`-th) |
//! | `t` | `t` | elements between an item's last occurrence and its repeat (`m − i` in `FN_{i,m}`) |
//! | `a, b, c` | — | §4.2: `a = (S − k)/(k(NS − 1))`, `b = k/S`, `c = 1 − 1/(Nk)` |
//!
//! The stream model is the paper's: every element is drawn uniformly from `U`
//! items, fingerprints are uniform over `S` values and rows over `N`. The
//! §4.2 formulas divide by `1 − a − c`, which vanishes for a table of a
//! single cell; they return NaN unless `N·k ≥ 2`.
//!
//! # What is the paper's and what is derived here
//!
//! The functions without a prefix and the `qhtd_*_limit`, `sqf_*` memory and
//! `sqf_fpr_inf_approx` functions state the paper's results. The others fill
//! gaps the paper leaves and say so in their documentation:
//! [`fp_m_first_empty`] (Theorem 4.1 assumes full rows; Algorithm 1 fills
//! empty cells first, which makes the young filter's `FP_m` larger when
//! `k > 1`), the QHTD and QQHTD transients and finite-`U` false-negative
//! rates (the paper gives only the `U → ∞` limits, and leaves QQHTD's
//! saturation to future work), and the exact asymptotic FPR of SQF, whose
//! fingerprints are not equiprobable ([`sqf_fpr_inf`]). `docs/errata.md`
//! records where the paper's formulas and our measurements disagree.

use crate::numerics::{ln_binomial, one_minus_pow1m, pow1m};
use crate::stats::{binomial_pmf, binomial_sf};
use crate::stream::expected_duplicates;
use smallvec::SmallVec;

mod queued;
mod sqf;
mod variants;

pub use queued::*;
pub use sqf::*;
pub use variants::*;

/// Scratch vectors up to this many entries live on the stack.
type Scratch = SmallVec<[f64; 64]>;

/// `k` as a whole number of cells, if it is one (`1 ≤ k ≤ 2^20`).
fn whole_cells(k: f64) -> Option<usize> {
    (k >= 1.0 && k <= (1u64 << 20) as f64 && k.fract() == 0.0).then_some(k as usize)
}

/// Theorem 4.1: the probability that an unseen element arriving after `m`
/// others is a false positive,
///
/// ```text
/// FP_m = (k/S) · (1 − (1 − 1/(N·k))^m)
/// ```
///
/// (QHT paper §4.1, Theorem 4.1). The proof assumes every row is already
/// full ("no bucket is empty") and follows the last element whose row and
/// fingerprint collide with the judged one: it survives each later insertion
/// with probability `1 − (S − k)/(k(NS − 1))`, and summing over its position
/// gives the closed form. As `m → ∞` it tends to [`fpr_inf`]` = k/S`.
///
/// For `k = 1` the formula is exact for Algorithm 1 from an empty table: the
/// single cell of a row is filled by the row's first arrival, so
/// `FP_m = P(row hit at least once)/S`. For `k > 1` Algorithm 1 fills empty
/// cells first, which the full-row model does not see, and the young
/// filter's false positives are underestimated; [`fp_m_first_empty`] is the
/// exact value.
///
/// ```
/// use ddf_theory::qht::{fp_m, fpr_inf};
/// // After N·k insertions the full-row model is 1 − 1/e of the way to k/S.
/// let (n, k, s) = (1024.0, 4.0, 15.0);
/// let expected = fpr_inf(k, s) * (1.0 - (-1f64).exp());
/// assert!((fp_m(n * k, n, k, s) - expected).abs() < 1e-4);
/// ```
pub fn fp_m(m: f64, rows: f64, cells_per_row: f64, fingerprints: f64) -> f64 {
    let cells = rows * cells_per_row;
    fpr_inf(cells_per_row, fingerprints) * one_minus_pow1m(1.0 / cells, m)
}

/// The exact `FP_m` of Algorithm 1 (first empty cell, else a random one) from
/// an empty table, on a stream of distinct elements. Derived here; Theorem 4.1
/// ([`fp_m`]) is its full-row approximation.
///
/// A row's occupancy after `r` arrivals is `min(k, D_r)`, where `D_r` is the
/// number of distinct fingerprints among them: before the row is full, an
/// arrival whose fingerprint is present changes nothing and any other takes
/// an empty cell. So the occupancy is a pure-birth chain on `0..=k` that
/// moves from `j` to `j + 1` with probability `1 − j/S`, `k` absorbing. A
/// given row receives `R ~ Binomial(m, 1/N)` of the first `m` elements, and
/// the next element is a false positive when it lands in that row with one of
/// the `min(k, D_R)` stored fingerprints:
///
/// ```text
/// FP_m = E[min(k, D_R)] / S = (k − Σ_r P(R = r)·(k − E[min(k, D_r)])) / S.
/// ```
///
/// The sum is truncated once the chain is full to 1e-17, the binomial tail
/// is below 1e-17, or `r > m`; its cost is `O(k·r)` with `r` the smaller of
/// the number of row arrivals that fill a row (a coupon-collector time,
/// large only when `k` is close to `S`) and the bulk of `Binomial(m, 1/N)`.
/// NaN unless `k` is a whole number in `1..=2^20` and `S ≥ 1`.
///
/// ```
/// use ddf_theory::qht::{fp_m, fp_m_first_empty};
/// let (n, s) = (1024.0, 15.0);
/// // k = 1: Theorem 4.1 is exact.
/// let m = 3000.0;
/// assert!((fp_m_first_empty(m, n, 1.0, s) - fp_m(m, n, 1.0, s)).abs() < 1e-12);
/// // k = 4: filling empty cells first makes young filters err more.
/// assert!(fp_m_first_empty(4096.0, n, 4.0, s) > fp_m(4096.0, n, 4.0, s) + 0.02);
/// ```
pub fn fp_m_first_empty(m: f64, rows: f64, cells_per_row: f64, fingerprints: f64) -> f64 {
    let Some(k) = whole_cells(cells_per_row) else {
        return f64::NAN;
    };
    if !(fingerprints >= 1.0 && rows >= 1.0 && m >= 0.0) {
        return f64::NAN;
    }
    let m = m.floor();
    let p = 1.0 / rows;
    // Occupancy distribution of one row after r arrivals, states 0..=k.
    let mut dist: Scratch = SmallVec::from_elem(0.0, k + 1);
    dist[0] = 1.0;
    // ln P(R = r), updated as r grows; P(R = 0) = (1 − p)^m.
    let ln_odds = if p < 1.0 {
        (p / (1.0 - p)).ln()
    } else {
        f64::INFINITY
    };
    let mut ln_pmf = m * (-p).ln_1p();
    let mut deficit = 0.0;
    let mut r = 0.0;
    loop {
        let mean: f64 = dist.iter().enumerate().map(|(j, &q)| j as f64 * q).sum();
        let missing = k as f64 - mean;
        let pmf = if p >= 1.0 {
            if r == m { 1.0 } else { 0.0 }
        } else {
            ln_pmf.exp()
        };
        deficit += pmf * missing;
        if missing <= 1e-17 * k as f64 || r >= m {
            break;
        }
        // Past the mean, P(R = r) falls at least geometrically with ratio
        // ρ = (m − r)p / ((r + 1)(1 − p)); once the whole remaining tail,
        // at most P(R = r)·ρ/(1 − ρ) times k, is negligible, stop.
        let ratio = (m - r) * p / ((r + 1.0) * (1.0 - p));
        if ratio < 1.0 && pmf * ratio / (1.0 - ratio) * (k as f64) < 1e-17 * (k as f64) {
            break;
        }
        // One more arrival to the row: j → j + 1 with probability 1 − j/S.
        for j in (0..k).rev() {
            let up = dist[j] * (1.0 - j as f64 / fingerprints).max(0.0);
            dist[j] -= up;
            dist[j + 1] += up;
        }
        if p < 1.0 {
            ln_pmf += ((m - r) / (r + 1.0)).ln() + ln_odds;
        }
        r += 1.0;
    }
    (k as f64 - deficit) / fingerprints
}

/// The false-positive rate of a stream of `n` distinct elements, the average
/// of Theorem 4.1's `FP_m` over its elements,
///
/// ```text
/// FPR_n = (1/n)·Σ_{m=0}^{n−1} FP_m = (k/S)·(1 − N·k·(1 − c^n)/n),   c = 1 − 1/(N·k)
/// ```
///
/// (QHT paper §4.1, after Theorem 4.1's proof). The paper sums `m` from 1 to
/// `n`; here the first element is judged by the empty filter (`m = 0`), as
/// in a simulation. The difference vanishes as `n` grows. Tends to
/// [`fpr_inf`] by Cesàro. 0 for `n < 1`.
///
/// ```
/// use ddf_theory::qht::{fp_m, fpr_n};
/// let (n_rows, k, s) = (100.0, 2.0, 7.0);
/// let avg: f64 = (0..500).map(|m| fp_m(m as f64, n_rows, k, s)).sum::<f64>() / 500.0;
/// assert!((fpr_n(500.0, n_rows, k, s) - avg).abs() < 1e-12);
/// ```
pub fn fpr_n(n: f64, rows: f64, cells_per_row: f64, fingerprints: f64) -> f64 {
    if n < 1.0 {
        return 0.0;
    }
    let cells = rows * cells_per_row;
    // (1/n)·Σ_{m<n} c^m = N·k·(1 − c^n)/n.
    let mean_survival = cells * one_minus_pow1m(1.0 / cells, n) / n;
    fpr_inf(cells_per_row, fingerprints) * (1.0 - mean_survival)
}

/// Theorem 4.1: the asymptotic false-positive rate of a QHT, `FPR_∞ = k/S`.
///
/// Once every row holds `k` distinct fingerprints, a new element's
/// fingerprint is one of them with probability `k/S` (QHT paper §4.1).
///
/// ```
/// assert_eq!(ddf_theory::qht::fpr_inf(1.0, 4.0), 0.25);
/// ```
pub fn fpr_inf(cells_per_row: f64, fingerprints: f64) -> f64 {
    cells_per_row / fingerprints
}

/// The constants of §4.2: `a = (S − k)/(k(NS − 1))`, `b = k/S`,
/// `1 − c = 1/(N·k)`, and `δ = 1 − a − c = (N·k − 1)/(N·k·(N·S − 1))`,
/// computed without cancellation. All NaN for a table of fewer than two
/// cells, where the paper's `1 − a ≠ c` fails.
fn abc(rows: f64, k: f64, s: f64) -> (f64, f64, f64, f64) {
    let cells = rows * k;
    if cells.is_nan() || cells < 2.0 {
        return (f64::NAN, f64::NAN, f64::NAN, f64::NAN);
    }
    let ns1 = rows * s - 1.0;
    let a = (s - k) / (k * ns1);
    let b = k / s;
    let one_minus_c = 1.0 / cells;
    let delta = (cells - 1.0) / (cells * ns1);
    (a, b, one_minus_c, delta)
}

/// `((1 − a)^t − y^t)/δ` for `y = 1 − a − δ`, written as
/// `(1 − a)^t·(1 − (y/(1 − a))^t)/δ` so that it neither cancels when `δ` is
/// small nor overflows when `t` is large.
fn power_gap(a: f64, delta: f64, t: f64) -> f64 {
    if t <= 0.0 {
        return 0.0;
    }
    let y = 1.0 - a - delta;
    pow1m(a, t) * -(-t * (delta / y).ln_1p()).exp_m1() / delta
}

/// §4.2: `FN_{i,m}`, the probability that an element whose last occurrence
/// was `e_i` is a false negative when it arrives as the `(m+1)`-th element:
/// `e_i`'s fingerprint was evicted by one of the `t = m − i` elements in
/// between, and no colliding element put it back,
///
/// ```text
/// FN_{i,m} = (1 − b)·(1 − (1 − a)^t) + a·b·((1 − a)^t − c^t)/(1 − a − c)
/// ```
///
/// with `a`, `b`, `c` as in the [module table](self) (QHT paper §4.2, proof
/// of Theorem 4.2; full rows assumed). The paper's `a` conditions on the
/// last false duplicate; with `a = (S − k)/(N·S·k)` instead the expression
/// collapses to `(1 − b)·(1 − c^t)`, the exact solution of the two-state
/// chain "fingerprint present or not" (the two differ by a relative
/// `1/(N·S)`). Depends on `i` and `m` only through `m − i`.
///
/// ```
/// use ddf_theory::qht::fn_im;
/// let (n, k, s) = (1000.0, 2.0, 16.0);
/// assert_eq!(fn_im(5.0, 5.0, n, k, s), 0.0);
/// // Long after, the fingerprint is present only by chance: FN → 1 − k/S.
/// assert!((fn_im(0.0, 1e8, n, k, s) - (1.0 - k / s)).abs() < 1e-9);
/// ```
pub fn fn_im(i: f64, m: f64, rows: f64, cells_per_row: f64, fingerprints: f64) -> f64 {
    let t = (m - i).max(0.0);
    let (a, b, _, delta) = abc(rows, cells_per_row, fingerprints);
    (1.0 - b) * one_minus_pow1m(a, t) + a * b * power_gap(a, delta, t)
}

/// `Σ_{t=0}^{m−1} x^t = (1 − x^m)/(1 − x)`, given `1 − x`.
fn geometric_sum(one_minus_x: f64, m: f64) -> f64 {
    if one_minus_x == 0.0 {
        m
    } else {
        one_minus_pow1m(one_minus_x, m) / one_minus_x
    }
}

/// `1 − q·x` for `q = 1 − u`, `x = 1 − v`, as `u + v − u·v` (no cancellation).
fn one_minus_product(u: f64, v: f64) -> f64 {
    u + v - u * v
}

/// §4.2: `FN_m`, the probability that the `(m+1)`-th element of a uniform
/// stream is a duplicate **and** a false negative,
///
/// ```text
/// FN_m = Σ_{i=1}^{m} P_dup,i · FN_{i,m},   P_dup,i = ((U − 1)/U)^(m−i) · 1/U
/// ```
///
/// (QHT paper §4.2), summed in closed form with geometric series. `P_dup,i`
/// is the probability that the element's last occurrence is `e_i`; the
/// weights add up to `P(duplicate) = 1 − (1 − 1/U)^m`, so divide by that for
/// the false-negative probability of a duplicate. Full rows are assumed, as
/// in [`fn_im`].
///
/// ```
/// use ddf_theory::qht::{fn_im, fn_m};
/// let (n, k, s, u) = (50.0, 2.0, 8.0, 300.0);
/// let q: f64 = 1.0 - 1.0 / u;
/// let sum: f64 = (1..=40).map(|i| q.powi(40 - i) / u * fn_im(i as f64, 40.0, n, k, s)).sum();
/// assert!((fn_m(40.0, n, k, s, u) - sum).abs() < 1e-14);
/// ```
pub fn fn_m(m: f64, rows: f64, cells_per_row: f64, fingerprints: f64, alphabet_size: f64) -> f64 {
    let (a, b, one_minus_c, delta) = abc(rows, cells_per_row, fingerprints);
    let u = 1.0 / alphabet_size;
    let g_q = geometric_sum(u, m);
    let g_qa = geometric_sum(one_minus_product(u, a), m);
    let g_qc = geometric_sum(one_minus_product(u, one_minus_c), m);
    u * ((1.0 - b) * (g_q - g_qa) + a * b * (g_qa - g_qc) / delta)
}

/// `Σ_{m=1}^{n} Σ_{t=0}^{m−1} x^t` given `1 − x`: `(1/(1−x))·Σ_{m=1}^{n} (1 − x^m)`,
/// which is [`expected_duplicates`]`(n + 1, 1/(1 − x))` scaled, computed stably.
fn double_geometric_sum(one_minus_x: f64, n: f64) -> f64 {
    if one_minus_x == 0.0 {
        return n * (n + 1.0) / 2.0;
    }
    expected_duplicates(n + 1.0, 1.0 / one_minus_x) / one_minus_x
}

/// §4.2: `FNR_n = (1/n)·Σ_{m=1}^{n} FN_m`, the paper's false-negative rate of
/// a stream of `n` elements, in closed form (Appendix B's first steps).
///
/// This divides the expected number of false negatives by `n`, not by the
/// expected number of duplicates, so for a finite stream it is the false
/// negatives per element. The two agree in the limit ([`fnr_inf`]), where
/// almost every element is a duplicate. For the false-negative rate among
/// duplicates over a span of a finite stream, use [`fnr_between`] with
/// [`fn_im`]. 0 for `n < 1`.
///
/// ```
/// use ddf_theory::qht::{fn_m, fnr_n};
/// let (n, k, s, u) = (20.0, 2.0, 8.0, 100.0);
/// let avg: f64 = (1..=300).map(|m| fn_m(m as f64, n, k, s, u)).sum::<f64>() / 300.0;
/// assert!((fnr_n(300.0, n, k, s, u) - avg).abs() < 1e-12);
/// ```
pub fn fnr_n(n: f64, rows: f64, cells_per_row: f64, fingerprints: f64, alphabet_size: f64) -> f64 {
    if n < 1.0 {
        return 0.0;
    }
    let (a, b, one_minus_c, delta) = abc(rows, cells_per_row, fingerprints);
    let u = 1.0 / alphabet_size;
    let h_q = double_geometric_sum(u, n);
    let h_qa = double_geometric_sum(one_minus_product(u, a), n);
    let h_qc = double_geometric_sum(one_minus_product(u, one_minus_c), n);
    u * ((1.0 - b) * (h_q - h_qa) + a * b * (h_qa - h_qc) / delta) / n
}

/// Appendix B: the asymptotic false-negative rate of a QHT on a uniform
/// stream over `U` items,
///
/// ```text
/// FNR_∞ = 1 − b − (1 − b)/(U − (U − 1)(1 − a))
///             + a·b/((1 − a − c)(U − (U − 1)(1 − a)))
///             − a·b/((1 − a − c)(U − (U − 1)·c))
/// ```
///
/// (QHT paper §4.2 and Appendix B). Evaluated in the equivalent form
/// `(1 − b)(1 − 1/D_a) + a·b·(U − 1)/(D_a·D_c)` with
/// `D_a = 1 + (U − 1)·a` and `D_c = 1 + (U − 1)(1 − c)`, in which the two
/// `1/(1 − a − c)` terms, large and nearly equal, have been combined. As
/// `U/(N·k) → ∞` it tends to [`fnr_inf_limit`]` = 1 − k/S`.
///
/// ```
/// use ddf_theory::qht::{fnr_inf, fnr_inf_limit};
/// let (n, k, s) = (1024.0, 4.0, 15.0);
/// let near = fnr_inf(n, k, s, 2f64.powi(40));
/// assert!((near - fnr_inf_limit(k, s)).abs() < 1e-8);
/// // A small alphabet is remembered better: fewer false negatives.
/// assert!(fnr_inf(n, k, s, 5000.0) < fnr_inf(n, k, s, 1e7) - 0.3);
/// ```
pub fn fnr_inf(rows: f64, cells_per_row: f64, fingerprints: f64, alphabet_size: f64) -> f64 {
    let (a, b, one_minus_c, _) = abc(rows, cells_per_row, fingerprints);
    let v = alphabet_size - 1.0;
    let d_a = 1.0 + v * a;
    let d_c = 1.0 + v * one_minus_c;
    (1.0 - b) * (1.0 - 1.0 / d_a) + a * b * v / (d_a * d_c)
}

/// Theorem 4.2: `FNR_∞ = 1 − k/S` when `U ≫ N` (QHT paper §4.2).
///
/// ```
/// assert_eq!(ddf_theory::qht::fnr_inf_limit(1.0, 4.0), 0.75);
/// ```
pub fn fnr_inf_limit(cells_per_row: f64, fingerprints: f64) -> f64 {
    1.0 - fpr_inf(cells_per_row, fingerprints)
}

/// Claim 4.1: the asymptotic error rate `ER_∞ = FPR_∞ + FNR_∞` of a QHT,
/// which tends to 1, the error rate of a filter answering at random, as
/// `U/(N·k) → ∞` (QHT paper §4.3).
///
/// Here `FNR_∞` is [`fnr_inf`] for the finite alphabet, so the value shows
/// how far from saturation a filter of `N·k` cells is on `U` items:
/// `1 − ER_∞ ≈ (1 − k/S)·N·k/U`.
///
/// ```
/// use ddf_theory::qht::er_inf;
/// assert!((er_inf(1000.0, 1.0, 7.0, 2f64.powi(40)) - 1.0).abs() < 1e-8);
/// ```
pub fn er_inf(rows: f64, cells_per_row: f64, fingerprints: f64, alphabet_size: f64) -> f64 {
    fpr_inf(cells_per_row, fingerprints) + fnr_inf(rows, cells_per_row, fingerprints, alphabet_size)
}

/// §4.5: Theorem 4.1's `FP_m` for a memory budget `M`, with `N = M/(k·log₂ S)`:
///
/// ```text
/// FPR_m = (k/S)·(1 − (1 − log₂(S)/M)^m)
/// ```
///
/// (QHT paper §4.5). For a fixed memory and a fixed asymptotic rate `k/S`,
/// the smaller `log₂ S`, the slower the filter saturates; this is the
/// tuning rule of [`smallest_fingerprint_bits`].
///
/// ```
/// use ddf_theory::qht::fp_m_for_memory;
/// let (m, bits) = (100_000.0, 65_536.0);
/// // Same k/S = 1/4: (k, S) = (1, 4) beats (4, 16).
/// assert!(fp_m_for_memory(m, bits, 1.0, 4.0) < fp_m_for_memory(m, bits, 4.0, 16.0));
/// ```
pub fn fp_m_for_memory(m: f64, memory_bits: f64, cells_per_row: f64, fingerprints: f64) -> f64 {
    fpr_inf(cells_per_row, fingerprints) * one_minus_pow1m(fingerprints.log2() / memory_bits, m)
}

/// §4.5's tuning rule: for a target asymptotic false-positive rate `k/S`,
/// the smallest fingerprint width `s` (with `k = target·S` a whole number of
/// buckets) delays saturation the most. Returns `(k, s)`, or `None` if no
/// width up to `max_fingerprint_bits` gives the ratio exactly.
///
/// `reserve_empty` chooses `S`: `2^s − 1` when the value 0 is kept for empty
/// cells (§3.2, options 2 and 3, and footnote 16), `2^s` when it is not
/// (option 1, or a table with a separate empty marker). The paper's example,
/// a target of 1/4 giving `(k, S) = (1, 4), (2, 8), (4, 16), …` and hence
/// `k = 1, s = 2`, uses `S = 2^s`; with a reserved empty value no width gives
/// exactly 1/4.
///
/// ```
/// use ddf_theory::qht::smallest_fingerprint_bits;
/// assert_eq!(smallest_fingerprint_bits(0.25, false, 16), Some((1, 2)));
/// assert_eq!(smallest_fingerprint_bits(0.25, true, 16), None);
/// assert_eq!(smallest_fingerprint_bits(1.0 / 7.0, true, 16), Some((1, 3)));
/// ```
pub fn smallest_fingerprint_bits(
    fpr_inf_target: f64,
    reserve_empty: bool,
    max_fingerprint_bits: u32,
) -> Option<(u64, u32)> {
    if !(fpr_inf_target > 0.0 && fpr_inf_target <= 1.0) {
        return None;
    }
    (1..=max_fingerprint_bits.min(52)).find_map(|s| {
        let values = (1u64 << s) - u64::from(reserve_empty);
        let k = fpr_inf_target * values as f64;
        let whole = k.round();
        (whole >= 1.0 && (k - whole).abs() <= 1e-9 * k).then_some((whole as u64, s))
    })
}

/// The false-positive rate measured over the elements at positions
/// `m0..m1` (0-based, so position `m` has `m` predecessors) of a uniform
/// stream over `U` items, when the element at position `m` is a false
/// positive with probability `fp(m)` if it is unseen:
///
/// ```text
/// Σ_m (1 − 1/U)^m · fp(m) / Σ_m (1 − 1/U)^m
/// ```
///
/// A position is unseen with probability `(1 − 1/U)^m`, so this is the
/// expected false positives over the expected unseen elements. Pass
/// `U = f64::INFINITY` for a stream of distinct elements. Cost `O(m1 − m0)`
/// evaluations of `fp`. NaN for an empty span.
///
/// ```
/// use ddf_theory::qht::{fp_m, fpr_between, fpr_n};
/// let (n, k, s) = (100.0, 2.0, 7.0);
/// let avg = fpr_between(0.0, 500.0, f64::INFINITY, |m| fp_m(m, n, k, s));
/// assert!((avg - fpr_n(500.0, n, k, s)).abs() < 1e-12);
/// ```
pub fn fpr_between(m0: f64, m1: f64, alphabet_size: f64, fp: impl Fn(f64) -> f64) -> f64 {
    let u = 1.0 / alphabet_size;
    let (mut num, mut den) = (0.0, 0.0);
    let mut m = m0.max(0.0).floor();
    while m < m1 {
        let unseen = pow1m(u, m);
        num += unseen * fp(m);
        den += unseen;
        m += 1.0;
    }
    num / den
}

/// The false-negative rate measured over the elements at positions `m0..m1`
/// of a uniform stream over `U` items, for a filter in which a duplicate
/// whose last occurrence is `t` elements back is a false negative with
/// probability `fn_after(t)`:
///
/// ```text
/// Σ_m FN_m / Σ_m P(duplicate at m),   FN_m = Σ_{t=0}^{m−1} (1 − 1/U)^t · (1/U) · fn_after(t)
/// ```
///
/// `FN_m` is the §4.2 sum for any filter (for a QHT, `fn_after(t)` is
/// [`fn_im`]`(0, t, …)` and `FN_m` is [`fn_m`]); the denominator is the
/// expected number of duplicates in the span, so the result is the expected
/// false negatives over the expected duplicates, which is what a simulation
/// measures. Cost `O(m1)` evaluations of `fn_after`. NaN for a span without
/// duplicates.
///
/// ```
/// use ddf_theory::qht::{fn_im, fn_m, fnr_between};
/// let (n, k, s, u) = (30.0, 2.0, 8.0, 500.0);
/// let rate = fnr_between(100.0, 400.0, u, |t| fn_im(0.0, t, n, k, s));
/// let num: f64 = (100..400).map(|m| fn_m(m as f64, n, k, s, u)).sum();
/// let den: f64 = (100..400).map(|m| 1.0 - (1.0 - 1.0 / u).powi(m)).sum();
/// assert!((rate - num / den).abs() < 1e-12);
/// ```
pub fn fnr_between(m0: f64, m1: f64, alphabet_size: f64, fn_after: impl Fn(f64) -> f64) -> f64 {
    let u = 1.0 / alphabet_size;
    let (m0, m1) = (m0.max(0.0).floor(), m1.floor());
    // Σ_{m=m0}^{m1−1} Σ_{t<m} w_t = Σ_t w_t · #{m in m0..m1 : m > t}.
    let mut num = 0.0;
    let mut t = 0.0;
    while t + 1.0 < m1 {
        let positions = m1 - m0.max(t + 1.0);
        num += pow1m(u, t) * u * fn_after(t) * positions;
        t += 1.0;
    }
    let den = expected_duplicates(m1, alphabet_size) - expected_duplicates(m0, alphabet_size);
    num / den
}

/// [`fpr_between`]`(0, n)` and [`fnr_between`]`(0, n)` for every `n` of
/// `ends` (ascending) in one pass of `O(max(ends))` evaluations instead of
/// one pass per length: the error rates a simulation measures over the
/// first `n` elements, as a curve over the stream length (the sliding-window
/// paper's Figure 2). Returns `(FPR, FNR)` per end; NaN where a span has no
/// unseen element or no duplicate.
///
/// ```
/// use ddf_theory::qht::{fn_im, fnr_between, fp_m, fpr_between, rates_over_prefixes};
/// let (n, k, s, u) = (30.0, 2.0, 8.0, 500.0);
/// let curve = rates_over_prefixes(&[100.0, 400.0], u, |m| fp_m(m, n, k, s), |t| fn_im(0.0, t, n, k, s));
/// let fpr = fpr_between(0.0, 400.0, u, |m| fp_m(m, n, k, s));
/// let fnr = fnr_between(0.0, 400.0, u, |t| fn_im(0.0, t, n, k, s));
/// assert!((curve[1].0 - fpr).abs() < 1e-12 && (curve[1].1 - fnr).abs() < 1e-12);
/// ```
pub fn rates_over_prefixes(
    ends: &[f64],
    alphabet_size: f64,
    fp: impl Fn(f64) -> f64,
    fn_after: impl Fn(f64) -> f64,
) -> Vec<(f64, f64)> {
    let u = 1.0 / alphabet_size;
    // FP: Σ_{m<n} q^m·FP_m over Σ_{m<n} q^m. FN: the numerator of
    // fnr_between with m0 = 0 is Σ_{t<n−1} w_t·(n − 1 − t) = n·A − B with
    // A = Σ w_t, B = Σ w_t·(t + 1), w_t = q^t·(1/U)·fn_after(t).
    let (mut fp_num, mut fp_den, mut a, mut b) = (0.0, 0.0, 0.0, 0.0);
    let mut m = 0.0;
    let mut out = Vec::with_capacity(ends.len());
    for &end in ends {
        let end = end.floor();
        while m < end {
            let unseen = pow1m(u, m);
            fp_num += unseen * fp(m);
            fp_den += unseen;
            m += 1.0;
        }
        out.push((fp_num / fp_den, f64::NAN));
    }
    // Second pass for FN (t runs one behind m, so it gets its own loop).
    let mut t = 0.0;
    for (slot, &end) in out.iter_mut().zip(ends) {
        let end = end.floor();
        while t + 1.0 < end {
            let w = pow1m(u, t) * u * fn_after(t);
            a += w;
            b += w * (t + 1.0);
            t += 1.0;
        }
        let den = expected_duplicates(end, alphabet_size);
        slot.1 = (end * a - b) / den;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    /// FP_m of Algorithm 1 by brute force: the full occupancy distribution of
    /// one row, stepped element by element (each hits the row with
    /// probability 1/N).
    fn fp_first_empty_brute(m: u32, rows: f64, k: usize, s: f64) -> f64 {
        let mut dist = vec![0.0; k + 1];
        dist[0] = 1.0;
        for _ in 0..m {
            let mut next = vec![0.0; k + 1];
            for j in 0..=k {
                let fill = if j < k { 1.0 - j as f64 / s } else { 0.0 };
                next[j] += dist[j] * (1.0 - fill / rows);
                if j < k {
                    next[j + 1] += dist[j] * fill / rows;
                }
            }
            dist = next;
        }
        dist.iter()
            .enumerate()
            .map(|(j, p)| j as f64 * p)
            .sum::<f64>()
            / s
    }

    #[test]
    fn first_empty_matches_brute_force() {
        for &(rows, k, s) in &[
            (7.0, 3usize, 5.0),
            (20.0, 4, 15.0),
            (3.0, 1, 3.0),
            (5.0, 4, 4.0),
        ] {
            for m in [0u32, 1, 5, 30, 200] {
                assert_relative_eq!(
                    fp_m_first_empty(f64::from(m), rows, k as f64, s),
                    fp_first_empty_brute(m, rows, k, s),
                    max_relative = 1e-10,
                    epsilon = 1e-15
                );
            }
        }
        assert!(fp_m_first_empty(10.0, 4.0, 2.5, 8.0).is_nan());
        // One row: every element reaches it.
        assert_relative_eq!(
            fp_m_first_empty(3.0, 1.0, 2.0, 4.0),
            fp_first_empty_brute(3, 1.0, 2, 4.0),
            max_relative = 1e-12
        );
    }

    #[test]
    fn theorem41_is_exact_for_one_bucket() {
        for m in [0.0, 1.0, 50.0, 1e4] {
            assert_relative_eq!(
                fp_m_first_empty(m, 300.0, 1.0, 7.0),
                fp_m(m, 300.0, 1.0, 7.0),
                max_relative = 1e-12,
                epsilon = 1e-300
            );
        }
    }

    #[test]
    fn fn_im_matches_its_sum_and_collapses() {
        // FN_{i,m} = Σ_{j=i+1}^{m} (1−a)^{j−i−1}·a·(1 − FP_{m−j}), FP_x = b(1 − c^x).
        let (rows, k, s) = (40.0, 2.0, 8.0);
        let (a, b, one_minus_c, _) = abc(rows, k, s);
        let c = 1.0 - one_minus_c;
        for t in [0i32, 1, 2, 10, 300] {
            let sum: f64 = (1..=t)
                .map(|j| (1.0 - a).powi(j - 1) * a * (1.0 - b * (1.0 - c.powi(t - j))))
                .sum();
            assert_relative_eq!(
                fn_im(0.0, f64::from(t), rows, k, s),
                sum,
                max_relative = 1e-11,
                epsilon = 1e-16
            );
        }
        // With the unconditioned a the expression is (1 − b)(1 − c^t); the
        // paper's a differs from it by a relative 1/(N·S).
        let t = 500.0;
        let simple = (1.0 - b) * (1.0 - c.powf(t));
        assert_relative_eq!(fn_im(0.0, t, rows, k, s), simple, max_relative = 1e-3);
    }

    #[test]
    fn appendix_b_limit() {
        // FNR_∞ = Σ_t q^t/U · FN(t), summed directly.
        let (rows, k, s, u) = (10.0, 2.0, 8.0, 50.0);
        let q: f64 = 1.0 - 1.0 / u;
        let direct: f64 = (0..20_000)
            .map(|t| q.powi(t) / u * fn_im(0.0, f64::from(t), rows, k, s))
            .sum();
        assert_relative_eq!(fnr_inf(rows, k, s, u), direct, max_relative = 1e-10);
        // The paper's printed form.
        let (a, b, one_minus_c, _) = abc(rows, k, s);
        let c = 1.0 - one_minus_c;
        let den_a = u - (u - 1.0) * (1.0 - a);
        let den_c = u - (u - 1.0) * c;
        let printed = 1.0 - b - (1.0 - b) / den_a + a * b / ((1.0 - a - c) * den_a)
            - a * b / ((1.0 - a - c) * den_c);
        assert_relative_eq!(fnr_inf(rows, k, s, u), printed, max_relative = 1e-9);
        // FN_m for large m tends to FNR_∞ (almost every element a duplicate).
        assert_relative_eq!(
            fn_m(1e6, rows, k, s, u),
            fnr_inf(rows, k, s, u),
            max_relative = 1e-9
        );
        assert_relative_eq!(
            fnr_n(1e7, rows, k, s, u),
            fnr_inf(rows, k, s, u),
            max_relative = 1e-4
        );
    }

    #[test]
    fn qhtd_and_qqhtd_limits() {
        let (rows, k, s, u) = (64.0, 4.0, 15.0, 1e4);
        // Closed-form FNR_∞ equals the geometric average of FN(t).
        let q: f64 = 1.0 - 1.0 / u;
        let direct = |f: &dyn Fn(f64) -> f64| -> f64 {
            (0..400_000).map(|t| q.powi(t) / u * f(f64::from(t))).sum()
        };
        assert_relative_eq!(
            qhtd_fnr_inf(rows, k, s, u),
            direct(&|t| qhtd_fn_after(t, rows, k, s)),
            max_relative = 1e-9
        );
        assert_relative_eq!(
            qqhtd_fnr_inf(rows, k, s, u),
            direct(&|t| qqhtd_fn_after(t, rows, k, s)),
            max_relative = 1e-9
        );
        // QHTD transient: FP_0 = 0, and one row receiving everything.
        assert_eq!(qhtd_fp_m(0.0, rows, k, s), 0.0);
        assert_relative_eq!(
            qhtd_fp_m(2.0, 1.0, 4.0, 10.0),
            1.0 - 0.81,
            max_relative = 1e-14
        );
    }

    #[test]
    fn sqf_exact_fpr_matches_enumeration() {
        // Enumerate fingerprint probabilities and all k-subsets directly.
        for &(r, rp, k) in &[
            (4u32, 1u32, 2usize),
            (5, 2, 3),
            (3, 1, 1),
            (5, 1, 2),
            (6, 2, 1),
        ] {
            let d = r - rp;
            let mut p = Vec::new();
            for _ in 0..(1u32 << rp) {
                for j in 0..=d {
                    p.push(ln_binomial(u64::from(d), u64::from(j)).exp() / 2f64.powi(r as i32));
                }
            }
            let n = p.len();
            let (mut num, mut den) = (0.0, 0.0);
            for mask in 0u32..(1 << n) {
                if mask.count_ones() as usize != k {
                    continue;
                }
                let members: Vec<usize> = (0..n).filter(|i| mask >> i & 1 == 1).collect();
                let weight: f64 = members.iter().map(|&i| p[i]).product();
                den += weight;
                num += weight * members.iter().map(|&i| p[i]).sum::<f64>();
            }
            assert_relative_eq!(
                sqf_fpr_inf(k as f64, r, rp),
                num / den,
                max_relative = 1e-12
            );
        }
    }

    #[test]
    fn sqf_sizes_and_ratios() {
        assert_eq!(sqf_signature_bits(2, 1), 3);
        assert_eq!(sqf_signature_bits(8, 2), 2 + 4);
        assert_eq!(sqf_signature_bits(7, 2), 2 + 3);
        assert_eq!(sqf_signature_bits(2, 2), 0);
        assert!(sqf_fingerprints(3, 0).is_nan());
        assert_relative_eq!(memory_ratio_thm43(2, 1), 2.0 / 3.0);
        assert_relative_eq!(memory_ratio_reserved_empty(2, 1), 1.0);
        // S = 2^r'·(r − r' + 1): 8·(4 + 1) = 40 → 6 bits either way.
        assert_relative_eq!(memory_ratio_thm43(7, 3), 6.0 / 6.0);
        assert_eq!(sqf::ceil_log2(1), 0);
        assert_eq!(sqf::ceil_log2(5), 3);
        assert_eq!(sqf::ceil_log2(8), 3);
    }

    /// Algorithm 1 on `rows` rows of `k` cells, simulated: a block of `eta`
    /// insertions of distinct items, then the fraction of them whose
    /// fingerprint is no longer in their row. Averaged over `reps` blocks.
    fn subfilter_fn_simulated(rows: usize, k: usize, s: u64, eta: usize, reps: u32) -> f64 {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |bound: u64| {
            // SplitMix64, reduced by multiply-shift.
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            ((u128::from(z ^ (z >> 31)) * u128::from(bound)) >> 64) as u64
        };
        let (mut lost, mut total) = (0u64, 0u64);
        for _ in 0..reps {
            let mut table = vec![0u64; rows * k];
            let mut items = Vec::with_capacity(eta);
            for _ in 0..eta {
                let (row, fp) = (next(rows as u64) as usize, 1 + next(s));
                let cells = &mut table[row * k..(row + 1) * k];
                if !cells.contains(&fp) {
                    let at = cells
                        .iter()
                        .position(|&c| c == 0)
                        .unwrap_or_else(|| next(k as u64) as usize);
                    cells[at] = fp;
                }
                items.push((row, fp));
            }
            for (row, fp) in items {
                lost += u64::from(!table[row * k..(row + 1) * k].contains(&fp));
                total += 1;
            }
        }
        lost as f64 / total as f64
    }

    #[test]
    fn subfilter_model_matches_a_simulated_block() {
        use crate::queue::SubfilterModel;
        // Rows from empty to past full: 0.5, 2 and 6 arrivals per row.
        for (rows, k, s, eta) in [(200, 2, 7, 100), (100, 4, 15, 200), (50, 3, 7, 300)] {
            let model = QhtSubfilter::new(rows as f64, k, s as f64, eta as u64, f64::INFINITY);
            let sim = subfilter_fn_simulated(rows, k, s, eta, 4_000);
            let predicted = model.false_negative(eta as f64);
            // 4000 blocks of `eta` items: standard error below 0.002.
            assert!(
                (sim - predicted).abs() < 0.006,
                "N = {rows}, k = {k}, S = {s}, η = {eta}: simulated {sim}, model {predicted}"
            );
        }
    }

    #[test]
    fn subfilter_model_limits() {
        use crate::queue::SubfilterModel;
        let (n, k, s) = (300.0, 3, 7.0);
        let model = QhtSubfilter::new(n, k, s, 5_000, f64::INFINITY);
        for eta in [0.0, 10.0, 700.0, 5_000.0] {
            assert_relative_eq!(
                model.false_positive(eta),
                fp_m_first_empty(eta, n, k as f64, s),
                max_relative = 1e-9
            );
        }
        // Young rows lose less than the full-row form says.
        let full_row = (0..900)
            .map(|t| fn_im(0.0, f64::from(t), n, 3.0, s))
            .sum::<f64>()
            / 900.0;
        assert!(model.false_negative(900.0) < full_row);
        // Interpolation, and NaN outside the table or for bad parameters.
        let mid = model.false_negative(10.5);
        assert_relative_eq!(
            mid,
            (model.false_negative(10.0) + model.false_negative(11.0)) / 2.0
        );
        assert!(model.false_negative(5_001.0).is_nan());
        assert!(model.false_positive(-1.0).is_nan());
        assert!(
            QhtSubfilter::new(0.5, 1, 7.0, 10, 1e6)
                .false_positive(1.0)
                .is_nan()
        );
        assert!(
            QhtSubfilter::new(10.0, 8, 7.0, 10, 1e6)
                .false_negative(1.0)
                .is_nan()
        );
        // A finite alphabet: repeats inside the block add no fingerprint.
        let small = QhtSubfilter::new(n, k, s, 5_000, 2_000.0);
        assert!(small.false_positive(5_000.0) < model.false_positive(5_000.0));
        // The model of Qht::with_memory(10^4, 1, 3): 3333 rows, S = 7.
        let sized = QhtSubfilter::for_memory(1e4, 1, 3, 100, f64::INFINITY);
        assert_relative_eq!(
            sized.false_positive(100.0),
            fp_m(100.0, 3333.0, 1.0, 7.0),
            max_relative = 1e-9
        );
    }

    #[test]
    fn fixed_hash_rates_reduce_to_one_subfilter() {
        use crate::queue::{fnr_queue, fpr_queue};
        // One subfilter: no correlation to speak of, so the mixture's FPR is
        // the mean of FP_r, which is linear in the collision counts.
        let (n, s, c, u) = (200.0, 7.0, 150u64, 2f64.powi(12));
        let (fpr, fnr) = queue_rates_fixed_hash(n, s, 1, c, u);
        let fresh = QhtSubfilter::new(n, 1, s, c, u);
        assert!((fpr - fpr_queue(&fresh, 1, c)).abs() < 2e-3, "{fpr}");
        assert!((fnr - fnr_queue(&fresh, 1, c, u)).abs() < 5e-3, "{fnr}");
        // Several subfilters: correlated, fewer false positives.
        let (fpr4, _) = queue_rates_fixed_hash(n, s, 4, c, u);
        assert!(fpr4 < fpr_queue(&fresh, 4, c) - 1e-3);
        assert!(queue_rates_fixed_hash(0.0, s, 1, c, u).0.is_nan());
        // The conditional model: no collider, no false positive.
        let empty = QhtCollisions::new(0.0, 5.0, u);
        assert_eq!(
            crate::queue::SubfilterModel::false_positive(&empty, 100.0),
            0.0
        );
    }
}
