//! Age-Partitioned Bloom filters: generations, window, slack, the false-positive
//! recursion `F`, the access recursions `A`, peak NPWS and space efficiency.
//!
//! Source: Shtul, Baquero, Almeida, *Age-Partitioned Bloom Filters* ("APBF
//! paper"), §5 (Table 2) and §6 (Tables 3 and 4).
//!
//! Symbols: an APBF has `k + l` slices of `m` bits; an item sets one bit in
//! each of the first `k` logical slices; after every generation of `g`
//! insertions the slices shift by one and the oldest is cleared. A query
//! succeeds when `k` consecutive slices match. `r` is the vector of the
//! `k + l` per-slice match probabilities of a query for an item not in the
//! slice: the fill ratios for the basic filter, the per-segment
//! false-positive rates for the blocked variant (§6), which is why the
//! recursions take `r` rather than `m`.
//!
//! [`false_positive`] needs `O(k)` memory and `O(k·(k + l))` work;
//! [`query_cost`] a table of `(l + 1)·k²` states, which it bounds by
//! [`QUERY_COST_MAX_STATES`].

use std::f64::consts::LN_2;

use crate::numerics::one_minus_pow1m;

/// The generation size `g = ⌊m·ln 2 / k⌋` (APBF paper §5.2): each slice takes
/// insertions for `k` generations and stops at fill ratio ½.
///
/// ```
/// use ddf_theory::apbf::generation_size;
/// assert_eq!(generation_size(1443.0, 1.0), 1000.0);
/// ```
pub fn generation_size(m: f64, k: f64) -> f64 {
    (m * LN_2 / k).floor()
}

/// The smallest slice size `m` whose generation is at least `g` insertions
/// for `k` slices per item, the inverse of [`generation_size`]: the least
/// integer `m` with `⌊m·ln 2 / k⌋ ≥ g` (APBF paper §5.2). NaN unless
/// `g ≥ 0`, `k > 0` and `g·k/ln 2 < 2^52` (where `m + 1` is still exact in
/// an `f64`, so the correction takes a few steps).
///
/// ```
/// use ddf_theory::apbf::{generation_size, slice_bits_for_generation};
/// let m = slice_bits_for_generation(1000.0, 1.0);
/// assert_eq!(m, 1443.0);
/// assert!(generation_size(m - 1.0, 1.0) < 1000.0);
/// ```
pub fn slice_bits_for_generation(g: f64, k: f64) -> f64 {
    if !(g >= 0.0 && k > 0.0 && g.is_finite() && k.is_finite() && g * k / LN_2 < 2f64.powi(52)) {
        return f64::NAN;
    }
    // The real root, then the integer correction the floor needs.
    let mut m = (g * k / LN_2).ceil().max(1.0);
    while generation_size(m, k) < g {
        m += 1.0;
    }
    while m > 1.0 && generation_size(m - 1.0, k) >= g {
        m -= 1.0;
    }
    m
}

/// The sliding window `w = l·g` (APBF paper §5.2): items among the last `w`
/// insertions are always reported.
pub fn window(l: f64, g: f64) -> f64 {
    l * g
}

/// The slack `s = k·g` (APBF paper §5.2): just before a shift, items up to
/// `s` insertions older than the window may still be reported.
pub fn slack(k: f64, g: f64) -> f64 {
    k * g
}

/// The paper's worst-case fill ratios just before a shift (APBF paper §5.3):
/// `[1/(2k), 2/(2k), …, k/(2k), ½, …, ½]`, a linear ramp over the `k`
/// slices being filled.
///
/// This is the vector behind Table 2. The expected fill of a slice that has
/// received `i` of the `k` generations is `1 − 2^(−i/k)`, not `i/(2k)`
/// ([`limit_fill_ratios`]); the ramp underestimates it, and with it the
/// false-positive rate (see `docs/errata.md`).
///
/// ```
/// use ddf_theory::apbf::worst_case_fill_ratios;
/// assert_eq!(worst_case_fill_ratios(2, 1), vec![0.25, 0.5, 0.5]);
/// ```
pub fn worst_case_fill_ratios(k: usize, l: usize) -> Vec<f64> {
    (0..k + l)
        .map(|i| {
            if i < k {
                (i + 1) as f64 / (2 * k) as f64
            } else {
                0.5
            }
        })
        .collect()
}

/// The expected fill ratios just before a shift for large slices: slice `i`
/// of the first `k` has received `i + 1` generations, `1 − 2^(−(i+1)/k)`;
/// the others `½` (the limit `m → ∞` of [`steady_fill_ratios`] with
/// `g = m·ln 2/k`).
///
/// ```
/// use ddf_theory::apbf::limit_fill_ratios;
/// let r = limit_fill_ratios(2, 1);
/// assert!((r[0] - (1.0 - 0.5f64.sqrt())).abs() < 1e-15);
/// assert_eq!(&r[1..], &[0.5, 0.5]);
/// ```
pub fn limit_fill_ratios(k: usize, l: usize) -> Vec<f64> {
    (0..k + l)
        .map(|i| {
            if i < k {
                -(-((i + 1) as f64) / k as f64 * LN_2).exp_m1()
            } else {
                0.5
            }
        })
        .collect()
}

/// The expected fill ratios of a filter in steady state (after at least
/// `k + l` generations of distinct items) whose current generation holds
/// `j` of its `g` items: slice `i < k` has received `i·g + j` insertions,
/// `1 − (1 − 1/m)^(i·g + j)`; the older slices `k·g`. `j = g` is the worst
/// point, just before a shift (APBF paper §5.3, Figure 6's sawtooth peak).
///
/// ```
/// use ddf_theory::apbf::steady_fill_ratios;
/// let r = steady_fill_ratios(3, 2, 1e6, 231_049.0, 231_049.0);
/// assert!((r[2] - 0.5).abs() < 1e-6 && r[0] < r[1] && r[1] < r[2]);
/// ```
pub fn steady_fill_ratios(k: usize, l: usize, m: f64, g: f64, j: f64) -> Vec<f64> {
    (0..k + l)
        .map(|i| {
            let items = if i < k {
                i as f64 * g + j
            } else {
                k as f64 * g
            };
            one_minus_pow1m(1.0 / m, items)
        })
        .collect()
}

/// The probability `F(k, l, 0, 0)` that a query finds `k` consecutive
/// matches among the `k + l` slices whose match probabilities are `r`
/// (APBF paper §5.3):
///
/// `F(a, i) = 1` if `a = k`; `0` if `i > l + a`;
/// `r_i·F(a + 1, i + 1) + (1 − r_i)·F(0, i + 1)` otherwise.
///
/// With `r` the fill ratios this is the false-positive rate; with the
/// per-segment false-positive rates it is the APBBF's (§6); with some
/// entries set to 1 it is the probability of reporting an item whose bits
/// are known to be in those slices. Returns NaN unless `1 ≤ k ≤ r.len()`.
///
/// ```
/// use ddf_theory::apbf::{false_positive, worst_case_fill_ratios};
/// // Table 2, first row: k = 4, l = 3 gives 0.100586.
/// let fp = false_positive(4, &worst_case_fill_ratios(4, 3));
/// assert!((fp - 0.100_586).abs() < 5e-7);
/// ```
pub fn false_positive(k: usize, r: &[f64]) -> f64 {
    let n = r.len();
    if k == 0 || k > n {
        return f64::NAN;
    }
    let l = n - k;
    // next[a] = F(a, i + 1) for a in 0..=k, iterating i downwards.
    let mut next = vec![0.0; k + 1];
    let mut cur = vec![0.0; k + 1];
    next[k] = 1.0;
    for i in (0..n).rev() {
        for a in 0..=k {
            cur[a] = if a == k {
                1.0
            } else if i > l + a {
                0.0
            } else {
                r[i] * next[a + 1] + (1.0 - r[i]) * next[0]
            };
        }
        std::mem::swap(&mut cur, &mut next);
    }
    next[0]
}

/// The outcome and cost of the query of Algorithm 1 (APBF paper §5.4) over
/// slices with match probabilities `r`: the probability of each answer and
/// the expected number of slice accesses given that answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QueryCost {
    /// Probability that the query returns true.
    pub p_true: f64,
    /// Expected accesses of a query that returns true (NaN if it never does).
    pub accesses_true: f64,
    /// Probability that the query returns false.
    pub p_false: f64,
    /// Expected accesses of a query that returns false (NaN if it never does).
    pub accesses_false: f64,
}

/// The most states [`query_cost`] solves, `(l + 1)·k² ≤ 2^20`.
pub const QUERY_COST_MAX_STATES: usize = 1 << 20;

/// The access recursion `A(k, l, p, c, a, i)` of the APBF paper (§5.4) and
/// its counterpart for queries that return true, over the states of
/// Algorithm 1: start at slice `l`, count consecutive matches `c` (plus `p`
/// carried over from before the last jump), on a miss jump back `k` slices.
///
/// The paper's "false" column is `accesses_false` with `r` the fill ratios,
/// its "fp" column `accesses_true` with the same `r`, and its "window"
/// column [`window_accesses`]. Returns NaN fields unless `1 ≤ k ≤ r.len()`.
///
/// **Bounded work.** The recursion has `(l + 1)·k²` states of 32 bytes,
/// each solved once: for more than [`QUERY_COST_MAX_STATES`] states (32 MiB,
/// about 10 ms) the fields are NaN instead, so no input makes it allocate or
/// run beyond that. Every configuration of the APBF paper (`k + l ≤ 75`) is
/// far below it.
///
/// ```
/// use ddf_theory::apbf::{query_cost, worst_case_fill_ratios};
/// // Table 2, k = 4, l = 3: 2.16 accesses for "false", 4.38 for false positives.
/// let q = query_cost(4, &worst_case_fill_ratios(4, 3));
/// assert!((q.accesses_false - 2.16).abs() < 0.005);
/// assert!((q.accesses_true - 4.38).abs() < 0.005);
/// ```
pub fn query_cost(k: usize, r: &[f64]) -> QueryCost {
    let n = r.len();
    let states = (n + 1)
        .saturating_sub(k)
        .saturating_mul(k)
        .saturating_mul(k);
    if k == 0 || k > n || states > QUERY_COST_MAX_STATES {
        return QueryCost {
            p_true: f64::NAN,
            accesses_true: f64::NAN,
            p_false: f64::NAN,
            accesses_false: f64::NAN,
        };
    }
    let l = n - k;
    // A state (p, c, s) of Algorithm 1 is about to test slice i = s + c,
    // having matched c slices since it (re)started at slice s, with p
    // matches remembered from before the jump. A hit keeps s and grows c; a
    // miss restarts at s' = s + c − k < s. So states are solved in order of
    // increasing s and, for one s, decreasing c. Values are
    // (P(true), E[accesses; true], P(false), E[accesses; false]) from here.
    type Acc = [f64; 4];
    const TRUE: Acc = [1.0, 0.0, 0.0, 0.0];
    const FALSE: Acc = [0.0, 0.0, 1.0, 0.0];
    let idx = |s: usize, p: usize, c: usize| (s * k + p) * k + c;
    let mut table: Vec<Acc> = vec![[0.0; 4]; (l + 1) * k * k];
    for s in 0..=l {
        for c in (0..k).rev() {
            for p in 0..k - c {
                let i = s + c;
                let hit = if p + c + 1 == k {
                    TRUE
                } else {
                    table[idx(s, p, c + 1)]
                };
                // The miss restarts at i − k with p' = c, c' = 0.
                let miss = match i.checked_sub(k) {
                    None => FALSE,
                    Some(s2) => table[idx(s2, c, 0)],
                };
                let ri = r[i];
                // Every path through this state pays one access here.
                table[idx(s, p, c)] = [
                    ri * hit[0] + (1.0 - ri) * miss[0],
                    ri * (hit[1] + hit[0]) + (1.0 - ri) * (miss[1] + miss[0]),
                    ri * hit[2] + (1.0 - ri) * miss[2],
                    ri * (hit[3] + hit[2]) + (1.0 - ri) * (miss[3] + miss[2]),
                ];
            }
        }
    }
    let [pt, at, pf, af] = table[idx(l, 0, 0)];
    QueryCost {
        p_true: pt,
        accesses_true: at / pt,
        p_false: pf,
        accesses_false: af / pf,
    }
}

/// `r` with the slices `age..age + k` (those an item of that age set, cut
/// at the end of the filter) matching with certainty.
fn with_item_at(k: usize, r: &[f64], age: usize) -> Vec<f64> {
    let mut out = r.to_vec();
    for x in out.iter_mut().skip(age).take(k) {
        *x = 1.0;
    }
    out
}

/// The probability that an item inserted `age` generations ago (its bits in
/// logical slices `age..age + k`, those past the last slice lost) is
/// reported, the others matching with probabilities `r`: [`false_positive`]
/// with those slices certain. 1 for `age ≤ l`; the decay of Figure 4 beyond.
///
/// ```
/// use ddf_theory::apbf::{limit_fill_ratios, report_probability};
/// let r = limit_fill_ratios(4, 6);
/// assert_eq!(report_probability(4, &r, 6), 1.0);
/// let p = report_probability(4, &r, 7);
/// assert!(p > 0.5 && p < 0.6);
/// ```
pub fn report_probability(k: usize, r: &[f64], age: usize) -> f64 {
    false_positive(k, &with_item_at(k, r, age))
}

/// The expected accesses of a query for an item in the window (the paper's
/// "window" column): the mean over the `l` ages `0..l` of a window item
/// (all generations hold `g` items at the worst point) of the accesses of
/// a query whose item's slices match with certainty (APBF paper §5.4).
/// Costs `l` runs of [`query_cost`], each within its bound (NaN beyond it).
///
/// ```
/// use ddf_theory::apbf::{window_accesses, worst_case_fill_ratios};
/// let a = window_accesses(4, &worst_case_fill_ratios(4, 3));
/// assert!((a - 4.71).abs() < 0.005);
/// ```
pub fn window_accesses(k: usize, r: &[f64]) -> f64 {
    if k == 0 || k >= r.len() {
        return f64::NAN;
    }
    let l = r.len() - k;
    (0..l)
        .map(|age| query_cost(k, &with_item_at(k, r, age)).accesses_true)
        .sum::<f64>()
        / l as f64
}

/// The paper's peak NPWS, `Σ_{i=0}^{k−1} r_full^i / l` (APBF paper §5.2 with
/// `r_full = ½`, giving `≲ 2/l`; §6 Table 3 with the per-segment rate of a
/// full blocked segment).
///
/// Just before a shift the generation of age `l` is still whole, the next
/// has lost one slice and is reported if the slice before its remaining
/// ones matches (probability `r_full`), and so on. It ignores the other
/// windows such an item can complete and the lower fill of slices still
/// being filled; [`peak_npws_exact`] does not.
///
/// ```
/// use ddf_theory::apbf::peak_npws;
/// assert!((peak_npws(6, 14, 0.5) - 0.140_625).abs() < 1e-12);
/// ```
pub fn peak_npws(k: u32, l: u32, r_full: f64) -> f64 {
    (0..k).map(|i| r_full.powi(i as i32)).sum::<f64>() / f64::from(l)
}

/// The peak NPWS by the recursion: just before a shift, the expected
/// number of the `k·g` items older than the window that are reported,
/// over `l·g`: `Σ_{age=l}^{l+k−1} report_probability(age) / l`.
///
/// ```
/// use ddf_theory::apbf::{limit_fill_ratios, peak_npws, peak_npws_exact};
/// let exact = peak_npws_exact(6, &limit_fill_ratios(6, 14));
/// assert!(exact > peak_npws(6, 14, 0.5) && exact < 0.17);
/// ```
pub fn peak_npws_exact(k: usize, r: &[f64]) -> f64 {
    if k == 0 || k >= r.len() {
        return f64::NAN;
    }
    let l = r.len() - k;
    (l..l + k)
        .map(|age| report_probability(k, r, age))
        .sum::<f64>()
        / l as f64
}

/// The space efficiency of an APBF relative to a Bloom filter with the same
/// false-positive rate `fp` and a capacity equal to the window (APBF paper
/// §5.5): `eff = k_b/k_a · l/(k_a + l)` with `k_b = log₂(1/fp)`, the
/// (fractional) number of slices of the equivalent Bloom filter.
///
/// ```
/// use ddf_theory::apbf::efficiency;
/// assert!((efficiency(0.100_586, 4, 3) - 0.355).abs() < 5e-4);
/// ```
pub fn efficiency(fp: f64, k: u32, l: u32) -> f64 {
    let (k, l) = (f64::from(k), f64::from(l));
    -fp.log2() / k * l / (k + l)
}

/// Bits of state per window item, `(k + l)·m/(l·g) = (k + l)·k/(l·ln 2)`
/// with `g = m·ln 2/k` (APBF paper §5.5).
///
/// ```
/// use ddf_theory::apbf::bits_per_window_item;
/// assert!((bits_per_window_item(6, 14) - 12.366).abs() < 1e-3);
/// ```
pub fn bits_per_window_item(k: u32, l: u32) -> f64 {
    let (k, l) = (f64::from(k), f64::from(l));
    (k + l) * k / (l * LN_2)
}

/// Chooses `(k, l)` for a target false-positive rate `fpr` and a bound on the
/// peak NPWS, following the reasoning of the APBF paper's Table 2 (§5.5):
/// start from the Bloom filter's `k_b = ⌈log₂(1/fpr)⌉` and take the smallest
/// `k ≥ k_b` for which some `l` meets both bounds, then the largest such `l`
/// (the least memory per window item for that `k`).
///
/// The NPWS bound sets a least `l` ([`peak_npws`] with `r_full = ½`); the
/// false-positive bound a largest one, predicted by [`false_positive`] at the
/// worst point with the [`limit_fill_ratios`] (not the paper's ramp, which
/// would let the real rate exceed `fpr`). The smallest `k` keeps insertions
/// as cheap as a Bloom filter's. Returns `None` for `fpr ∉ (0, 1)` or
/// `max_npws ∉ (0, 2]`, or when no `k ≤ k_b + 32` works.
///
/// **Bounded work:** `k_b ≤ 1075` for every positive `f64`, `l ≤ 2^16`;
/// each `k` tried costs one [`false_positive`] unless it is the one
/// returned, whose search costs at most 34 more, so at most 67 evaluations
/// of `O(k·(k + l))` work and `O(k + l)` memory (under a second at
/// `fpr = 1e-300`).
///
/// ```
/// use ddf_theory::apbf::choose_parameters;
/// assert_eq!(choose_parameters(0.001, 0.15), Some((13, 22)));
/// ```
pub fn choose_parameters(fpr: f64, max_npws: f64) -> Option<(u32, u32)> {
    if !(fpr > 0.0 && fpr < 1.0 && max_npws > 0.0 && max_npws <= 2.0) {
        return None;
    }
    let k_b = crate::bloom::optimal_slices(fpr)?.max(1);
    let fp_at =
        |k: u32, l: u32| false_positive(k as usize, &limit_fill_ratios(k as usize, l as usize));
    for k in k_b..=k_b + 32 {
        let sum = peak_npws(k, 1, 0.5);
        let l_min = (sum / max_npws - 1e-12).ceil().max(1.0);
        // The search below stops at 2^16 slices; a tiny NPWS bound asks for
        // more (and the fill-ratio table would be sized by it).
        if l_min > f64::from(1u32 << 16) {
            continue;
        }
        let l_min = l_min as u32;
        if fp_at(k, l_min) > fpr {
            continue;
        }
        // F grows with l (more windows to match): search the largest l.
        let (mut lo, mut hi) = (l_min, l_min);
        while fp_at(k, hi) <= fpr {
            lo = hi;
            hi = hi.saturating_mul(2);
            if hi > 1 << 16 {
                return Some((k, lo));
            }
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if fp_at(k, mid) <= fpr {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return Some((k, lo));
    }
    None
}

/// The per-segment false-positive rates of an APBBF just before a shift
/// (APBF paper §6): segment `i` holds `min(i + 1, k)` generations, a mean of
/// `λ_i = min(i + 1, k)·c/k` items per block with `c` items per block at
/// capacity, each a [`blocked_fp`](crate::blocked_bloom::blocked_fp).
///
/// ```
/// use ddf_theory::apbf::{apbbf_segment_rates, false_positive};
/// // Table 3, first row: k = 2, l = 3, B = 64, b = 4 gives 0.0159865.
/// let r = apbbf_segment_rates(2, 3, 64, 4);
/// assert!((false_positive(2, &r) - 0.015_986_5).abs() < 5e-8);
/// ```
pub fn apbbf_segment_rates(k: usize, l: usize, block_bits: u32, bits_per_block: u32) -> Vec<f64> {
    let c = crate::blocked_bloom::block_capacity(block_bits, bits_per_block);
    let rate = |generations: usize| {
        crate::blocked_bloom::blocked_fp(
            generations as f64 * c / k as f64,
            block_bits,
            bits_per_block,
        )
    };
    // Segments from k − 1 on are all full: one Poisson sum for all of them.
    let full = rate(k);
    (0..k + l)
        .map(|i| if i + 1 >= k { full } else { rate(i + 1) })
        .collect()
}

/// The capacity of an APBBF relative to the APBF with `(k·b, l·b)` slices in
/// the same memory (APBF paper §6, Table 3's "cap."): a block part of `B/b`
/// bits reaches fill ½ after `ln ½ / ln(1 − b/B)` items, where the APBF's
/// large slices take `(B/b)·ln 2`.
///
/// ```
/// use ddf_theory::apbf::apbbf_relative_capacity;
/// assert!((apbbf_relative_capacity(64, 4) - 0.968).abs() < 5e-4);
/// ```
pub fn apbbf_relative_capacity(block_bits: u32, bits_per_block: u32) -> f64 {
    let part = f64::from(block_bits) / f64::from(bits_per_block);
    crate::blocked_bloom::block_capacity(block_bits, bits_per_block) / (part * LN_2)
}

/// Bits of state per window item of an APBBF (APBF paper §6, Table 4):
/// `(k + l)` segments of `B` bits per block, `c/k` items per block and
/// generation, `l` generations in the window: `(k + l)·k·B/(l·c)`.
///
/// ```
/// use ddf_theory::apbf::apbbf_bits_per_item;
/// assert!((apbbf_bits_per_item(2, 5, 512, 4) - 16.2).abs() < 0.05);
/// ```
pub fn apbbf_bits_per_item(k: u32, l: u32, block_bits: u32, bits_per_block: u32) -> f64 {
    let c = crate::blocked_bloom::block_capacity(block_bits, bits_per_block);
    let (k, l) = (f64::from(k), f64::from(l));
    (k + l) * k * f64::from(block_bits) / (l * c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    /// APBF paper, Table 2: (k, l, actual fp, window, fp, false accesses).
    /// Rows the paper prints differently are tested in `errata_rows`.
    const TABLE2: [(usize, usize, f64, f64, f64, f64); 25] = [
        (4, 3, 0.100_586, 4.71, 4.38, 2.16),
        (5, 7, 0.101_603, 6.17, 5.76, 3.42),
        (6, 14, 0.098_623, 8.04, 7.58, 5.42),
        (7, 28, 0.099_033, 10.73, 10.25, 9.10),
        (8, 56, 0.100_234, 14.87, 14.39, 15.60),
        (7, 5, 0.011_232, 7.81, 7.40, 2.02),
        (8, 8, 0.010_244, 8.88, 8.62, 3.09),
        (9, 14, 0.010_212, 10.50, 9.89, 3.79),
        (10, 25, 0.010_076, 12.46, 11.80, 5.85),
        (11, 46, 0.009_948, 15.24, 14.56, 9.55),
        (10, 7, 0.001_211, 10.86, 10.42, 1.85),
        (11, 9, 0.000_918, 11.89, 11.52, 2.15),
        (12, 14, 0.000_981, 13.11, 12.75, 3.21),
        (13, 23, 0.000_928, 14.74, 14.06, 4.20),
        (14, 40, 0.000_988, 16.85, 16.16, 6.75),
        (14, 11, 0.000_099, 14.91, 14.51, 1.93),
        (15, 15, 0.000_100, 15.93, 15.69, 3.08),
        (16, 22, 0.000_097, 17.41, 16.84, 3.36),
        (17, 36, 0.000_099, 19.09, 18.46, 5.19),
        (18, 63, 0.000_099, 21.56, 20.79, 7.68),
        (17, 13, 0.000_011, 17.92, 17.51, 1.81),
        (18, 16, 0.000_009, 18.93, 18.62, 2.20),
        (19, 22, 0.000_010, 20.15, 19.80, 3.16),
        (20, 33, 0.000_010, 21.70, 20.94, 3.68),
        (21, 54, 0.000_010, 23.61, 22.83, 5.63),
    ];

    #[test]
    fn table2_reproduced_to_printed_precision() {
        for &(k, l, fp, win, acc_fp, acc_false) in &TABLE2 {
            let r = worst_case_fill_ratios(k, l);
            let f = false_positive(k, &r);
            if (k, l) != (13, 23) {
                assert!(
                    (f - fp).abs() <= 5e-7 + 1e-12,
                    "F({k},{l}) = {f}, paper {fp}"
                );
            }
            let q = query_cost(k, &r);
            assert_relative_eq!(q.p_true, f, max_relative = 1e-12);
            assert_relative_eq!(q.p_true + q.p_false, 1.0, max_relative = 1e-12);
            // Printed with two decimals; four cells differ by one unit of
            // the last digit (docs/errata.md), none by more.
            let near = |x: f64, y: f64| (x - y).abs() < 0.0101;
            assert!(near(window_accesses(k, &r), win), "window ({k},{l})");
            assert!(near(q.accesses_true, acc_fp), "fp ({k},{l})");
            assert!(near(q.accesses_false, acc_false), "false ({k},{l})");
        }
    }

    #[test]
    fn errata_rows() {
        // (13, 23): the recursion gives 0.000990 where the paper prints 0.000928.
        let f = false_positive(13, &worst_case_fill_ratios(13, 23));
        assert!((f - 0.000_990).abs() < 5e-7);
        // The last three efficiencies of Table 2 use k_b = log2(10^6).
        assert!((efficiency(1e-6, 19, 22) - 0.56).abs() < 0.005);
        assert!((efficiency(1e-6, 21, 54) - 0.68).abs() < 0.005);
        assert!(
            (efficiency(false_positive(19, &worst_case_fill_ratios(19, 22)), 19, 22) - 0.47).abs()
                < 0.005
        );
    }

    #[test]
    fn recursion_matches_brute_force() {
        // Enumerate all 2^(k+l) match patterns for a small filter.
        let (k, l) = (3usize, 4usize);
        let r: Vec<f64> = (0..k + l).map(|i| 0.1 + 0.11 * i as f64).collect();
        let mut fp = 0.0;
        let mut acc = [0.0; 2];
        for mask in 0u32..1 << (k + l) {
            let prob: f64 = (0..k + l)
                .map(|i| if mask >> i & 1 == 1 { r[i] } else { 1.0 - r[i] })
                .product();
            // Algorithm 1 on this pattern.
            let (mut i, mut p, mut c, mut a) = (l as i64, 0, 0, 0);
            let mut found = false;
            while i >= 0 {
                a += 1;
                if mask >> i & 1 == 1 {
                    c += 1;
                    i += 1;
                    if p + c == k {
                        found = true;
                        break;
                    }
                } else {
                    i -= k as i64;
                    p = c;
                    c = 0;
                }
            }
            let any_run = (0..=l).any(|s| (s..s + k).all(|j| mask >> j & 1 == 1));
            assert_eq!(found, any_run, "Algorithm 1 is complete and sound");
            if found {
                fp += prob;
                acc[0] += prob * a as f64;
            } else {
                acc[1] += prob * a as f64;
            }
        }
        assert_relative_eq!(false_positive(k, &r), fp, max_relative = 1e-12);
        let q = query_cost(k, &r);
        assert_relative_eq!(q.accesses_true, acc[0] / fp, max_relative = 1e-12);
        assert_relative_eq!(q.accesses_false, acc[1] / (1.0 - fp), max_relative = 1e-12);
    }

    #[test]
    fn table3_reproduced() {
        // (k, l, B, b, fp APBBF, fp APBF (k·b, l·b), cap, window, fp, false, NPWS).
        let rows = [
            (
                2,
                3,
                64,
                4,
                0.015_986_5,
                0.018_053_9,
                0.968,
                3.30,
                2.72,
                2.25,
                0.36,
            ),
            (
                2,
                3,
                512,
                4,
                0.012_182_5,
                0.018_053_9,
                0.996,
                3.31,
                2.71,
                2.23,
                0.35,
            ),
            (
                2,
                5,
                64,
                4,
                0.025_753_2,
                0.033_535_9,
                0.968,
                3.80,
                3.28,
                3.37,
                0.21,
            ),
            (
                3,
                8,
                512,
                4,
                0.001_799_3,
                0.003_176_9,
                0.996,
                4.92,
                4.39,
                3.38,
                0.13,
            ),
            (
                2,
                3,
                64,
                8,
                0.000_560_8,
                0.000_112_2,
                0.936,
                3.33,
                2.70,
                2.05,
                0.34,
            ),
            (
                3,
                8,
                512,
                8,
                0.000_000_9,
                0.000_001_4,
                0.992,
                4.88,
                4.32,
                3.03,
                0.13,
            ),
        ];
        for (k, l, bb, b, fp, fp_apbf, cap, win, acc_fp, acc_false, npws) in rows {
            let r = apbbf_segment_rates(k, l, bb, b);
            assert!(
                (false_positive(k, &r) - fp).abs() < 5e-8,
                "({k},{l},{bb},{b})"
            );
            let kb = k * b as usize;
            let lb = l * b as usize;
            assert!((false_positive(kb, &worst_case_fill_ratios(kb, lb)) - fp_apbf).abs() < 5e-8);
            assert!((apbbf_relative_capacity(bb, b) - cap).abs() < 5e-4);
            let q = query_cost(k, &r);
            assert!((window_accesses(k, &r) - win).abs() < 0.0051);
            assert!((q.accesses_true - acc_fp).abs() < 0.0051);
            assert!((q.accesses_false - acc_false).abs() < 0.0051);
            assert!((peak_npws(k as u32, l as u32, r[k + l - 1]) - npws).abs() < 0.0051);
        }
    }

    #[test]
    fn table4_bits_per_element() {
        for (k, l, bb, b, bits) in [
            (2, 5, 512, 4, 16.2),
            (3, 8, 512, 4, 23.9),
            (2, 5, 512, 8, 32.6),
            (3, 8, 512, 8, 48.0),
        ] {
            assert!((apbbf_bits_per_item(k, l, bb, b) - bits).abs() < 0.05);
        }
    }

    #[test]
    fn npws_and_choices() {
        // Table 2 prints Σ 2^-i / l for every row but (4, 3).
        assert!((peak_npws(5, 7, 0.5) - 0.28).abs() < 0.005);
        assert!((peak_npws(4, 3, 0.5) - 0.625).abs() < 1e-12);
        let r = limit_fill_ratios(5, 7);
        assert!(peak_npws_exact(5, &r) > peak_npws(5, 7, 0.5));
        for (fp, npws) in [(0.1, 0.15), (0.01, 0.15), (1e-4, 0.3), (1e-5, 0.05)] {
            let (k, l) = choose_parameters(fp, npws).unwrap();
            let f = |l: u32| false_positive(k as usize, &limit_fill_ratios(k as usize, l as usize));
            assert!(f(l) <= fp && f(l + 1) > fp, "fp {fp}");
            assert!(peak_npws(k, l, 0.5) <= npws);
        }
        assert_eq!(choose_parameters(0.1, 0.15), Some((7, 27)));
        assert_eq!(choose_parameters(1.0, 0.15), None);
        assert_eq!(choose_parameters(0.1, 0.0), None);
    }

    #[test]
    fn steady_fills_tend_to_the_limit() {
        let (k, l, m) = (5usize, 4usize, 1e7);
        let g = generation_size(m, k as f64);
        let steady = steady_fill_ratios(k, l, m, g, g);
        for (a, b) in steady.iter().zip(limit_fill_ratios(k, l)) {
            assert!((a - b).abs() < 1e-6);
        }
        assert_eq!(window(3.0, 1000.0), 3000.0);
        assert_eq!(slack(4.0, 1000.0), 4000.0);
        assert!(false_positive(0, &[0.5]).is_nan());
        assert!(query_cost(3, &[0.5, 0.5]).p_true.is_nan());
    }
}
