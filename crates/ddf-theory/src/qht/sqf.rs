//! The streaming quotient filter (Dutta et al., as the QHT paper §2.4 and
//! §4.4 describe it): fingerprints, memory and the exact saturated FPR.

use super::*;

/// §4.4.1: the number of distinct SQF fingerprints,
/// `S_SQF = 2^r' · (r − r' + 1)`.
///
/// An SQF fingerprint is `r'` bits of the `r`-bit remainder followed by the
/// remainder's Hamming weight; given the `r'` bits, the weight can take only
/// `r − r' + 1` values (QHT paper §4.4.1). NaN unless `1 ≤ r' < r ≤ 64`.
///
/// ```
/// assert_eq!(ddf_theory::qht::sqf_fingerprints(2, 1), 4.0);
/// assert_eq!(ddf_theory::qht::sqf_fingerprints(8, 2), 28.0);
/// ```
pub fn sqf_fingerprints(r: u32, r_prime: u32) -> f64 {
    if !(1 <= r_prime && r_prime < r && r <= 64) {
        return f64::NAN;
    }
    2f64.powi(r_prime as i32) * f64::from(r - r_prime + 1)
}

/// `⌈log₂ x⌉` for `x ≥ 1`.
pub(super) fn ceil_log2(x: u64) -> u32 {
    if x <= 1 {
        0
    } else {
        64 - (x - 1).leading_zeros()
    }
}

/// §2.4: the width of an SQF cell, `σ = r' + ⌈log₂(r + 1)⌉` bits: `r'`
/// remainder bits and a Hamming weight in `0..=r` (QHT paper §2.4). 0 unless
/// `1 ≤ r' < r ≤ 64`.
///
/// ```
/// assert_eq!(ddf_theory::qht::sqf_signature_bits(2, 1), 3);
/// ```
pub fn sqf_signature_bits(r: u32, r_prime: u32) -> u32 {
    if !(1 <= r_prime && r_prime < r && r <= 64) {
        return 0;
    }
    r_prime + ceil_log2(u64::from(r) + 1)
}

/// §3 and §4.4.2: the memory of an SQF, `M = N·k·σ` bits (`N = 2^q` in the
/// original).
///
/// ```
/// assert_eq!(ddf_theory::qht::sqf_memory_bits(1024.0, 4.0, 2, 1), 1024.0 * 4.0 * 3.0);
/// ```
pub fn sqf_memory_bits(rows: f64, cells_per_row: f64, r: u32, r_prime: u32) -> f64 {
    rows * cells_per_row * f64::from(sqf_signature_bits(r, r_prime))
}

/// Theorem 4.3: the memory of a QHT relative to an SQF with the same `N`,
/// `k` and number of fingerprints `S`,
///
/// ```text
/// M_QHT / M_SQF = (r' + ⌈log₂(r − r' + 1)⌉) / (r' + ⌈log₂(r + 1)⌉)
/// ```
///
/// (QHT paper §4.4.2), 2/3 at the recommended `r = 2, r' = 1`. The QHT here
/// has `s = ⌈log₂ S⌉` bits and so `2^s ≥ S` values, which leaves no value
/// free for "empty" when `S` is a power of two; see
/// [`memory_ratio_reserved_empty`].
///
/// ```
/// assert_eq!(ddf_theory::qht::memory_ratio_thm43(2, 1), 2.0 / 3.0);
/// ```
pub fn memory_ratio_thm43(r: u32, r_prime: u32) -> f64 {
    let sigma = sqf_signature_bits(r, r_prime);
    if sigma == 0 {
        return f64::NAN;
    }
    f64::from(r_prime + ceil_log2(u64::from(r - r_prime) + 1)) / f64::from(sigma)
}

/// Theorem 4.3 for a QHT that keeps the value 0 for empty cells (options 2
/// and 3 of §3.2): matching SQF's `S` fingerprints then takes
/// `s = ⌈log₂(S + 1)⌉` bits, so
///
/// ```text
/// M_QHT / M_SQF = ⌈log₂(S_SQF + 1)⌉ / (r' + ⌈log₂(r + 1)⌉).
/// ```
///
/// Derived here. SQF gets its empty value for free (an unreachable code,
/// footnote 16), a QHT with all `2^s` codes in use does not; at
/// `r = 2, r' = 1` the ratio is 1, not 2/3. Where `S_SQF + 1` is not above a
/// power of two the two ratios agree.
///
/// ```
/// use ddf_theory::qht::{memory_ratio_reserved_empty, memory_ratio_thm43};
/// assert_eq!(memory_ratio_reserved_empty(2, 1), 1.0);
/// assert_eq!(memory_ratio_reserved_empty(8, 4), memory_ratio_thm43(8, 4));
/// ```
pub fn memory_ratio_reserved_empty(r: u32, r_prime: u32) -> f64 {
    let sigma = sqf_signature_bits(r, r_prime);
    if sigma == 0 {
        return f64::NAN;
    }
    let s = sqf_fingerprints(r, r_prime) as u64;
    f64::from(ceil_log2(s + 1)) / f64::from(sigma)
}

/// §3 and §4.1.1: the paper's corrected asymptotic FPR of an SQF,
/// `FPR_∞ ≈ k / (2^r' · √(π·r))`; its `FNR_∞` is one minus this.
///
/// Theorem 4.1's `k/S` with the fingerprint collision probability that the
/// original SQF analysis uses, `1/(2^r'·√(π·r))`, which comes from
/// `C(2r, r)/4^r ≈ 1/√(π·r)` (QHT paper §3 and §4.1.1, footnote 7). See
/// [`sqf_fpr_inf`] for the exact value, which this approximates poorly:
/// the Hamming weights of two remainders with equal `r'` bits agree with
/// the probability for `r − r'` bits, not `r`, and SQF fingerprints are not
/// equiprobable.
///
/// ```
/// let approx = ddf_theory::qht::sqf_fpr_inf_approx(1.0, 2, 1);
/// assert!((approx - 1.0 / (2.0 * (2.0 * std::f64::consts::PI).sqrt())).abs() < 1e-15);
/// ```
pub fn sqf_fpr_inf_approx(cells_per_row: f64, r: u32, r_prime: u32) -> f64 {
    cells_per_row / (2f64.powi(r_prime as i32) * (std::f64::consts::PI * f64::from(r)).sqrt())
}

/// `C(2n, n)/4^n`, the probability that two uniform `n`-bit words have the
/// same Hamming weight.
fn equal_weight_probability(n: u32) -> f64 {
    let n = u64::from(n);
    (ln_binomial(2 * n, n) - 2.0 * n as f64 * std::f64::consts::LN_2).exp()
}

/// The paper's asymptotic SQF FPR without the Catalan approximation:
/// `k · 2^−r' · C(2r, r)/4^r` (QHT paper §3, footnote 7, with
/// `C(2r, r)/4^r` in place of `1/√(π·r)`).
///
/// ```
/// use ddf_theory::qht::{sqf_fpr_inf_approx, sqf_fpr_inf_central_binomial};
/// // C(4, 2)/16 = 3/8.
/// assert!((sqf_fpr_inf_central_binomial(1.0, 2, 1) - 3.0 / 16.0).abs() < 1e-15);
/// assert!((sqf_fpr_inf_central_binomial(1.0, 200, 1) / sqf_fpr_inf_approx(1.0, 200, 1) - 1.0).abs() < 1e-3);
/// ```
pub fn sqf_fpr_inf_central_binomial(cells_per_row: f64, r: u32, r_prime: u32) -> f64 {
    cells_per_row * 2f64.powi(-(r_prime as i32)) * equal_weight_probability(r)
}

/// The probability that two elements have the same SQF fingerprint,
/// `Σ_f p_f² = 2^−r' · C(2(r − r'), r − r')/4^(r − r')`.
///
/// Derived here. Equal fingerprints need equal `r'` bits (probability
/// `2^−r'`); the weights then differ only through the other `r − r'` bits,
/// whose weights agree with probability `C(2d, d)/4^d`, `d = r − r'`. This is
/// the asymptotic FPR of an SQF with `k = 1`, whose single cell holds the
/// fingerprint of the row's latest arrival. NaN unless `1 ≤ r' < r ≤ 64`.
///
/// ```
/// use ddf_theory::qht::sqf_collision_probability;
/// // r − r' = 1: four equiprobable fingerprints.
/// assert!((sqf_collision_probability(2, 1) - 0.25).abs() < 1e-15);
/// ```
pub fn sqf_collision_probability(r: u32, r_prime: u32) -> f64 {
    if !(1 <= r_prime && r_prime < r && r <= 64) {
        return f64::NAN;
    }
    2f64.powi(-(r_prime as i32)) * equal_weight_probability(r - r_prime)
}

/// Coefficients `0..=k` of `(1 + p·x)^n`, each divided by `e^scale`, where
/// `scale` is the largest log-coefficient among this and `(1 + p·x)^(n−1)`.
fn binomial_powers(p: f64, n: u64, k: usize, out: &mut Scratch, prev: &mut Scratch) {
    let lnp = p.ln();
    let log = |n: u64, i: usize| ln_binomial(n, i as u64) + i as f64 * lnp;
    let mut scale = f64::NEG_INFINITY;
    for i in 0..=k {
        scale = scale.max(log(n, i));
        if n > 0 {
            scale = scale.max(log(n - 1, i));
        }
    }
    for i in 0..=k {
        out[i] = (log(n, i) - scale).exp();
        prev[i] = if n > 0 {
            (log(n - 1, i) - scale).exp()
        } else {
            0.0
        };
    }
}

/// `a · b` truncated to degree `k`, into `out`.
fn convolve(a: &[f64], b: &[f64], out: &mut [f64]) {
    for (i, o) in out.iter_mut().enumerate() {
        *o = (0..=i).map(|j| a[j] * b[i - j]).sum();
    }
}

/// The exact asymptotic false-positive rate of an SQF (QHT insertion rule
/// with SQF's non-uniform fingerprints), derived here.
///
/// A full row holds `k` distinct fingerprints; an arrival whose fingerprint
/// `f` is absent replaces a uniformly chosen one. This chain satisfies
/// detailed balance with the stationary law `π(A) ∝ Π_{f∈A} p_f` over
/// `k`-sets `A` (the move `A → A − g + f` has rate `p_f/k`, its reverse
/// `p_g/k`), so
///
/// ```text
/// FPR_∞ = E_π[Σ_{f∈A} p_f] = Σ_f p_f² · e_{k−1}(p without f) / e_k(p),
/// ```
///
/// with `e_j` the elementary symmetric polynomials. SQF's probabilities come
/// in `r − r' + 1` classes: `2^r'` fingerprints of probability
/// `C(r − r', j)/2^r` for each weight offset `j`. The polynomials are
/// multiplied class by class in `O((r − r' + 1)·k²)` with a running scale, so
/// nothing overflows. For `k = 1` this is [`sqf_collision_probability`], for
/// equiprobable fingerprints (`r − r' = 1`) it is `k/S`, and it is 1 when
/// `k ≥ S`. The asymptotic FNR is one minus it (Claim 4.1). NaN unless
/// `1 ≤ r' < r ≤ 64` and `k` is a whole number in `1..=2^20`.
///
/// ```
/// use ddf_theory::qht::{sqf_collision_probability, sqf_fingerprints, sqf_fpr_inf};
/// assert!((sqf_fpr_inf(1.0, 8, 2) - sqf_collision_probability(8, 2)).abs() < 1e-14);
/// assert!((sqf_fpr_inf(3.0, 2, 1) - 3.0 / sqf_fingerprints(2, 1)).abs() < 1e-14);
/// assert_eq!(sqf_fpr_inf(4.0, 2, 1), 1.0);
/// ```
pub fn sqf_fpr_inf(cells_per_row: f64, r: u32, r_prime: u32) -> f64 {
    let values = sqf_fingerprints(r, r_prime);
    let Some(k) = whole_cells(cells_per_row) else {
        return f64::NAN;
    };
    if values.is_nan() {
        return f64::NAN;
    }
    if k as f64 >= values {
        return 1.0;
    }
    let d = r - r_prime;
    let copies = 1u64 << r_prime;
    // P = Π (1 + λp_f x) and R = Σ_f (λp_f)² x Π_{g≠f} (1 + λp_g x), both to
    // degree k, so that [x^k]R / [x^k]P = λ·FPR_∞. The scale λ makes degree k
    // the largest coefficient (for uniform p, e_{i+1}/e_i ≈ (S − i)/((i + 1)S)),
    // so the coefficients that matter stay within range of each other.
    let lambda = k as f64 * values / (values - k as f64 + 1.0);
    let zeros = || -> Scratch { SmallVec::from_elem(0.0, k + 1) };
    let (mut big_p, mut big_r) = (zeros(), zeros());
    big_p[0] = 1.0;
    let (mut pow, mut pow_prev, mut t1, mut t2) = (zeros(), zeros(), zeros(), zeros());
    for j in 0..=d {
        let p = lambda
            * (ln_binomial(u64::from(d), u64::from(j)) - f64::from(r) * std::f64::consts::LN_2)
                .exp();
        binomial_powers(p, copies, k, &mut pow, &mut pow_prev);
        // R ← R·(1 + px)^n + n·p²·x·P·(1 + px)^(n−1);  P ← P·(1 + px)^n.
        convolve(&big_r, &pow, &mut t1);
        convolve(&big_p, &pow_prev, &mut t2);
        let weight = copies as f64 * p * p;
        for i in (0..=k).rev() {
            t1[i] += if i > 0 { weight * t2[i - 1] } else { 0.0 };
        }
        convolve(&big_p, &pow, &mut t2);
        let norm = t2.iter().fold(0.0f64, |acc, &v| acc.max(v));
        for i in 0..=k {
            big_p[i] = t2[i] / norm;
            big_r[i] = t1[i] / norm;
        }
    }
    big_r[k] / big_p[k] / lambda
}
