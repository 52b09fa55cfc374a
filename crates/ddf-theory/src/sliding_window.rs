//! Exact and near-exact windowed filters and the saturation lower bound.
//!
//! Source: Géraud-Stewart, Lombard-Platet, Naccache, *Approaching Optimal
//! Duplicate Detection in a Sliding Window*: §3.1 (Theorems 1 and 2) and
//! §4.1 (Theorem 4). The Short Hash Filter of §3.2 and the queuing
//! construction of §5 come from the same paper but get modules of their own.
//!
//! Symbols, as in the paper: `w` the window (the last `w` items), `|Γ|` the
//! alphabet size (`alphabet_size` here), `M` the memory in bits, `n` the
//! stream length, `FP`, `FN` and `EP = FP + FN` the false-positive,
//! false-negative and error probabilities of the next item. Counts are `f64`
//! so they can exceed `u64` (`|Γ| = 2^64`) and be optimised continuously.
//!
//! Reading the extraction: some minus signs were lost elsewhere in the paper
//! (Theorem 3's SHF false-positive probability reads `1 (1 √(w 2^(−M/w)))^w`
//! for `1 − (1 − √(w·2^(−M/w)))^w`). The formulas here were each derived
//! again; see each function for what was checked.

use crate::numerics::{one_minus_pow1m, pow1m};

/// Theorem 1: the memory, in bits, of the exact windowed filter,
/// `M = w·(log₂ w + 2·log₂ |Γ|)`.
///
/// The filter keeps the window as a FIFO queue of items (`w·log₂ |Γ|` bits)
/// and a dictionary from item to its count in the window (at most `w` keys of
/// `log₂ |Γ|` bits plus a counter of `log₂ w` bits), and answers with no
/// error in constant time (§3.1, Theorem 1).
///
/// The count is the paper's: a counter that must reach `w` needs
/// `⌈log₂(w + 1)⌉` bits, not `log₂ w`, and a real dictionary has slack on
/// top, so this is the information content of the state rather than the size
/// of an implementation.
///
/// ```
/// use ddf_theory::sliding_window::exact_memory_bits;
/// // w = 1024 items from a 2^32 alphabet: 1024·(10 + 64) bits.
/// assert_eq!(exact_memory_bits(1024.0, 2f64.powi(32)), 75_776.0);
/// ```
pub fn exact_memory_bits(w: f64, alphabet_size: f64) -> f64 {
    w * (w.log2() + 2.0 * alphabet_size.log2())
}

/// Theorem 2, linear-time filter: `M = 2w·log₂ w` bits.
///
/// A queue of the last `w` hashes of `2·log₂ w` bits each; a lookup scans the
/// queue, so it takes `O(w)` time (§3.1, Theorem 2 and its proof). Its error
/// is [`near_exact_fp`].
///
/// ```
/// use ddf_theory::sliding_window::near_exact_linear_memory_bits;
/// assert_eq!(near_exact_linear_memory_bits(1024.0), 20_480.0);
/// ```
pub fn near_exact_linear_memory_bits(w: f64) -> f64 {
    2.0 * w * w.log2()
}

/// Theorem 2, constant-time filter: `M = 5w·log₂ w` bits.
///
/// The queue of `2·log₂ w`-bit hashes plus a dictionary from hash to count
/// (`w` keys of `2·log₂ w` bits and counters of `log₂ w` bits):
/// `2w·log₂ w + w·(2·log₂ w + log₂ w) = 5w·log₂ w` (§3.1, proof of Theorem 2).
/// Same error as the linear-time filter, [`near_exact_fp`].
///
/// ```
/// use ddf_theory::sliding_window::near_exact_constant_memory_bits;
/// assert_eq!(near_exact_constant_memory_bits(1024.0), 51_200.0);
/// ```
pub fn near_exact_constant_memory_bits(w: f64) -> f64 {
    5.0 * w * w.log2()
}

/// Theorem 2: the false-positive probability of the near-exact filters once
/// full, `FP = 1 − (1 − 1/w²)^w ≈ 1/w`; their `FN` is 0.
///
/// An unseen item is a false positive when its hash, uniform over `w²`
/// values (`2·log₂ w` bits), equals one of the `w` hashes in the window
/// (§3.1, Theorem 2). Computed with [`one_minus_pow1m`], so it keeps its
/// precision for large `w` where the naive form rounds to 0.
///
/// ```
/// use ddf_theory::sliding_window::near_exact_fp;
/// let w = 1e6;
/// assert!((near_exact_fp(w) * w - 1.0).abs() < 1e-6);
/// ```
pub fn near_exact_fp(w: f64) -> f64 {
    one_minus_pow1m(1.0 / (w * w), w)
}

/// Theorem 4, corrected: the lower bound on the error probability
/// `EP_n = FP_n + FN_n` of a filter that holds at most `M` items (the proof's
/// model of `M` bits) on a uniform stream,
///
/// ```text
/// EP_n ≥ max(0, 1 − M / (|Γ|·(1 − (1 − 1/|Γ|)^n)))
/// ```
///
/// where `n` is the number of items before the one being judged (§4.1,
/// Theorem 4 and its proof; the printed form is [`ep_n_paper_form`], which is
/// not a bound: see `docs/errata.md`).
///
/// Derivation, in the proof's own model: the filter's memory is a set `S` of
/// at most `M` items, it answers DUPLICATE for items in `S` and with
/// probability `p` for the others. Let `T` be the set of distinct items among
/// the `n` predecessors and `x` the next item, uniform and independent of
/// both. An item of `S` outside `T` only adds false positives, so
///
/// ```text
/// FN_n = P[x ∉ S | x ∈ T]·(1 − p) = (1 − P[x ∈ S ∩ T] / P[x ∈ T])·(1 − p),   FP_n ≥ p
/// P[x ∈ S ∩ T] = E|S ∩ T| / |Γ| ≤ E[min(M, |T|)] / |Γ| ≤ min(M, E|T|) / |Γ|
/// E|T| = |Γ|·P[x ∈ T] = |Γ|·(1 − (1 − 1/|Γ|)^n)
/// ```
///
/// (the last inequality is Jensen's, `min` being concave). Writing
/// `q = min(M / E|T|, 1)`, `EP_n ≥ p + (1 − q)(1 − p) = 1 − q(1 − p)`, least
/// at `p = 0`: `EP_n ≥ 1 − q`, the formula above. It is tight: a filter that
/// keeps the first `M` distinct items it meets and never evicts has
/// `FP = 0` and, once full, `FN_n = 1 − M/E|T|` exactly (`bounds/thm4-ideal`
/// in `cargo xtask verify` measures it).
///
/// The paper's proof instead stores "the `M` last elements of the stream",
/// which hold only `|Γ|·(1 − (1 − 1/|Γ|)^M) < M` distinct items on average
/// (repeats take slots); that strategy is not optimal, so its error is not a
/// lower bound. The two forms differ by `O(M²/|Γ|²)`, which is why the paper's
/// settings (`M ≪ |Γ|`) hide it.
///
/// The bound is 0 once `M ≥ E|T|` (in particular for `n ≤ M`). It grows with
/// `n`, falls as `M` grows, and tends to [`ep_inf_lower_bound`].
///
/// ```
/// use ddf_theory::sliding_window::{ep_n_lower_bound, ep_n_paper_form};
/// // 1 Mbit against a 2^26 alphabet after 10^8 items.
/// let bound = ep_n_lower_bound(1e6, 1e8, 2f64.powi(26));
/// assert!(bound > 0.98 && bound < 1.0);
/// // The printed form sits above the bound: an ideal filter beats it.
/// assert!(ep_n_paper_form(1e6, 1e8, 2f64.powi(26)) > bound);
/// ```
pub fn ep_n_lower_bound(memory_bits: f64, n: f64, alphabet_size: f64) -> f64 {
    // E|T| = |Γ|·(1 − (1 − 1/|Γ|)^n), the expected number of distinct items seen.
    let distinct = alphabet_size * one_minus_pow1m(1.0 / alphabet_size, n);
    // `max(0, …)` also covers a NaN from a NaN argument.
    (1.0 - memory_bits / distinct).clamp(0.0, 1.0).max(0.0)
}

/// Theorem 4 as printed (§4.1):
/// `1 − (1 − (1 − 1/|Γ|)^M) / (1 − (1 − 1/|Γ|)^n)` for `n > M`.
///
/// This is **not** a lower bound on the error of a filter that holds `M`
/// items: it is the false-negative rate of the filter that keeps the last `M`
/// stream items, and keeping `M` distinct items does better (see
/// [`ep_n_lower_bound`], which is the bound the proof supports, and
/// `docs/errata.md`). Kept to compare with the paper's Figure 2.
///
/// Evaluated as `(1 − 1/|Γ|)^M · (1 − (1 − 1/|Γ|)^(n − M)) / (1 − (1 − 1/|Γ|)^n)`,
/// the same quantity without the subtraction of two numbers close to 1.
/// For `n ≤ M` it returns 0, as the theorem says nothing there.
///
/// ```
/// use ddf_theory::sliding_window::ep_n_paper_form;
/// // |Γ| = 2, M = 1, n = 2: 1 − (1 − ½)/(1 − ¼) = 1/3.
/// assert!((ep_n_paper_form(1.0, 2.0, 2.0) - 1.0 / 3.0).abs() < 1e-15);
/// ```
pub fn ep_n_paper_form(memory_bits: f64, n: f64, alphabet_size: f64) -> f64 {
    if n <= memory_bits {
        return 0.0;
    }
    let x = 1.0 / alphabet_size;
    let kept = pow1m(x, memory_bits) * one_minus_pow1m(x, n - memory_bits);
    (kept / one_minus_pow1m(x, n)).clamp(0.0, 1.0)
}

/// Theorem 4, asymptotic form, corrected: `EP_∞ ≥ max(0, 1 − M/|Γ|)`.
///
/// The limit of [`ep_n_lower_bound`] as `n → ∞`, when every item of the
/// alphabet has been seen (§4.1): with `M ≪ |Γ|` items of memory no filter
/// does much better than a coin toss on a long enough uniform stream. The
/// paper prints `(1 − 1/|Γ|)^M ≈ 1 − M/|Γ|` ([`ep_inf_paper_form`]); the
/// approximation is the bound, the exact power is not (it is larger by
/// about `M²/(2|Γ|²)`).
///
/// ```
/// use ddf_theory::sliding_window::ep_inf_lower_bound;
/// let gamma = 2f64.powi(26);
/// assert_eq!(ep_inf_lower_bound(1e6, gamma), 1.0 - 1e6 / gamma);
/// ```
pub fn ep_inf_lower_bound(memory_bits: f64, alphabet_size: f64) -> f64 {
    (1.0 - memory_bits / alphabet_size).clamp(0.0, 1.0)
}

/// Theorem 4's asymptote as printed, `(1 − 1/|Γ|)^M` (§4.1): the limit of
/// [`ep_n_paper_form`], not a lower bound (see [`ep_inf_lower_bound`]).
///
/// ```
/// use ddf_theory::sliding_window::{ep_inf_lower_bound, ep_inf_paper_form};
/// assert!((ep_inf_paper_form(2.0, 10.0) - 0.81).abs() < 1e-15);
/// assert!(ep_inf_paper_form(2.0, 10.0) > ep_inf_lower_bound(2.0, 10.0));
/// ```
pub fn ep_inf_paper_form(memory_bits: f64, alphabet_size: f64) -> f64 {
    pow1m(1.0 / alphabet_size, memory_bits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn memory_formulas_hand_computed() {
        // w = 8, |Γ| = 16: 8·(3 + 8) = 88 bits.
        assert_eq!(exact_memory_bits(8.0, 16.0), 88.0);
        assert_eq!(near_exact_linear_memory_bits(8.0), 48.0);
        assert_eq!(near_exact_constant_memory_bits(8.0), 120.0);
        // The constant-time filter is the linear one plus a (2 + 1)·w·log₂ w dictionary.
        let w = 12_345.0;
        assert_relative_eq!(
            near_exact_constant_memory_bits(w),
            near_exact_linear_memory_bits(w) + 3.0 * w * f64::log2(w),
            max_relative = 1e-15
        );
    }

    #[test]
    fn near_exact_fp_hand_computed() {
        // w = 2: 1 − (3/4)² = 7/16.
        assert_relative_eq!(near_exact_fp(2.0), 7.0 / 16.0, max_relative = 1e-15);
        // w = 10: 1 − 0.99^10.
        assert_relative_eq!(
            near_exact_fp(10.0),
            1.0 - 0.99f64.powi(10),
            max_relative = 1e-14
        );
        // Large w: 1/w − (w − 1)/(2w³) + ...
        let w = 1e9;
        assert_relative_eq!(
            near_exact_fp(w),
            1.0 / w - 0.5 / (w * w),
            max_relative = 1e-12
        );
    }

    #[test]
    fn theorem4_hand_computed() {
        // Printed form. |Γ| = 2, M = 1, n = 2: 1 − (1 − ½)/(1 − ¼) = 1/3.
        assert_relative_eq!(
            ep_n_paper_form(1.0, 2.0, 2.0),
            1.0 / 3.0,
            max_relative = 1e-15
        );
        // |Γ| = 10, M = 3, n = 5: 1 − (1 − 0.9³)/(1 − 0.9⁵).
        let expected = 1.0 - (1.0 - 0.9f64.powi(3)) / (1.0 - 0.9f64.powi(5));
        assert_relative_eq!(
            ep_n_paper_form(3.0, 5.0, 10.0),
            expected,
            max_relative = 1e-14
        );
        // Corrected bound. |Γ| = 10, M = 3, n = 5: E|T| = 10·(1 − 0.9⁵) = 4.0951.
        let distinct = 10.0 * (1.0 - 0.9f64.powi(5));
        assert_relative_eq!(
            ep_n_lower_bound(3.0, 5.0, 10.0),
            1.0 - 3.0 / distinct,
            max_relative = 1e-14
        );
        // |Γ| = 2, M = 1, n = 2: E|T| = 1.5, bound 1/3, equal to the printed
        // form because one slot cannot hold a repeat.
        assert_relative_eq!(
            ep_n_lower_bound(1.0, 2.0, 2.0),
            1.0 / 3.0,
            max_relative = 1e-15
        );
        // No memory: every duplicate is missed.
        assert_relative_eq!(
            ep_n_lower_bound(0.0, 100.0, 10.0),
            1.0,
            max_relative = 1e-15
        );
        assert_eq!(ep_n_paper_form(0.0, 100.0, 10.0), 1.0);
        // Memory for every item seen: no bound.
        assert_eq!(ep_n_lower_bound(10.0, 10.0, 100.0), 0.0);
        assert_eq!(ep_n_lower_bound(10.0, 1e9, 10.0), 0.0);
        assert_eq!(ep_n_paper_form(10.0, 10.0, 100.0), 0.0);
        assert_eq!(ep_inf_lower_bound(0.0, 100.0), 1.0);
        assert_relative_eq!(ep_inf_lower_bound(2.0, 10.0), 0.8, max_relative = 1e-15);
        assert_relative_eq!(ep_inf_paper_form(2.0, 10.0), 0.81, max_relative = 1e-15);
    }

    #[test]
    fn printed_form_exceeds_the_bound_once_repeats_are_possible() {
        // The verify setting: M = 100,000, |Γ| = 2^18, n = 3.6·10^6. The
        // printed form claims 0.6829; an ideal filter reaches 0.6185.
        let (m, n, gamma) = (1e5, 3.6e6, 2f64.powi(18));
        assert!((ep_n_paper_form(m, n, gamma) - 0.682_856).abs() < 1e-6);
        assert!((ep_n_lower_bound(m, n, gamma) - (1.0 - m / gamma)).abs() < 1e-5);
        for m in [2.0, 10.0, 1e3, 1e5] {
            assert!(ep_n_paper_form(m, 1e7, gamma) > ep_n_lower_bound(m, 1e7, gamma));
            assert!(ep_inf_paper_form(m, gamma) > ep_inf_lower_bound(m, gamma));
        }
    }

    #[test]
    fn theorem4_tends_to_its_asymptote() {
        let (m, gamma) = (1e6, 2f64.powi(26));
        let limit = ep_inf_lower_bound(m, gamma);
        assert_relative_eq!(
            ep_n_lower_bound(m, 1e12, gamma),
            limit,
            max_relative = 1e-12
        );
        // Figure 2's setting (1 Mbit, |Γ| = 2^26): the asymptote is about 0.985.
        assert!((limit - 0.985).abs() < 1e-3);
        assert_relative_eq!(
            ep_n_paper_form(m, 1e12, gamma),
            ep_inf_paper_form(m, gamma),
            max_relative = 1e-12
        );
    }
}
