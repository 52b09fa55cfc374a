//! Standard and partitioned Bloom filters: fill ratio, false-positive probability, sizing.
//!
//! Sources, as the papers cite them: Bloom, *Space/time trade-offs in hash
//! coding with allowable errors* (1970) for the filter itself, and Mullin,
//! *A second look at Bloom filters* (1983) for the partitioned variant, both
//! as summarised in Shtul, Baquero, Almeida, *Age-Partitioned Bloom Filters*,
//! §4 ("Background on Bloom filters", §4.1 and §4.2, Table 1), whose
//! notation this module follows. Several families build on these formulas:
//! the age-partitioned filter ages slices of a partitioned filter, A2 and the
//! queuing construction rotate whole filters.
//!
//! Symbols: a partitioned filter has `k` slices of `m` bits, each item sets
//! one bit per slice; `n` items have been inserted; `r` is a slice's fill
//! ratio (fraction of bits set) and `p` the false-positive probability of a
//! query for an item not inserted. A standard (unpartitioned) filter has one
//! array of `bits` bits and `k` probes per item. Counts are `f64` so that
//! sizes can be optimised continuously.

use std::f64::consts::LN_2;

use crate::numerics::one_minus_pow1m;

/// The expected fill ratio of one slice of `m` bits after `n` insertions,
/// `r = 1 − (1 − 1/m)^n ≈ 1 − e^(−n/m)` (APBF paper §4.1).
///
/// Each insertion sets one uniformly chosen bit of the slice, so a given
/// bit is still clear after `n` of them with probability `(1 − 1/m)^n`.
///
/// ```
/// use ddf_theory::bloom::slice_fill_ratio;
/// assert!((slice_fill_ratio(2.0, 4.0) - 0.4375).abs() < 1e-15);
/// ```
pub fn slice_fill_ratio(n: f64, m: f64) -> f64 {
    one_minus_pow1m(1.0 / m, n)
}

/// The false-positive probability of a partitioned Bloom filter of `k`
/// slices of `m` bits after `n` insertions, `p = r^k` with `r` the
/// [`slice_fill_ratio`] (APBF paper §4.1; partitioning after Mullin).
///
/// A query for an item never inserted probes one independent uniform bit per
/// slice, each set with probability `r`.
///
/// ```
/// use ddf_theory::bloom::partitioned_fp;
/// // Filled to r = 1/2, four slices give 1/16.
/// let m = 1e6;
/// let n = m * 2f64.ln();
/// assert!((partitioned_fp(n, m, 4.0) - 0.0625).abs() < 1e-6);
/// ```
pub fn partitioned_fp(n: f64, m: f64, k: f64) -> f64 {
    slice_fill_ratio(n, m).powf(k)
}

/// The expected fill ratio of a standard Bloom filter of `bits` bits with `k`
/// probes per item after `n` insertions, `1 − (1 − 1/bits)^(k·n)` (Bloom).
///
/// Probes land anywhere in the one array, so the `k·n` probes act as `k·n`
/// insertions into a single slice of `bits` bits.
///
/// ```
/// use ddf_theory::bloom::standard_fill_ratio;
/// assert!((standard_fill_ratio(1.0, 4.0, 2.0) - 0.4375).abs() < 1e-15);
/// ```
pub fn standard_fill_ratio(n: f64, bits: f64, k: f64) -> f64 {
    one_minus_pow1m(1.0 / bits, k * n)
}

/// The false-positive probability of a standard Bloom filter of `bits` bits
/// with `k` probes per item after `n` insertions,
/// `(1 − (1 − 1/bits)^(k·n))^k` (Bloom's classic estimate, which treats the
/// `k` probed bits as independent).
///
/// For comparison with [`partitioned_fp`] at equal memory, pass
/// `bits = k·m`: the unpartitioned filter is slightly better, by a margin
/// that vanishes as `m` grows (`(1 − 1/(k·m))^(k·n)` versus `(1 − 1/m)^n`).
///
/// ```
/// use ddf_theory::bloom::{partitioned_fp, standard_fp};
/// let (n, m, k) = (1000.0, 1443.0, 7.0);
/// let standard = standard_fp(n, k * m, k);
/// let partitioned = partitioned_fp(n, m, k);
/// assert!(standard < partitioned && partitioned / standard < 1.01);
/// ```
pub fn standard_fp(n: f64, bits: f64, k: f64) -> f64 {
    standard_fill_ratio(n, bits, k).powf(k)
}

/// The number of slices (hash functions) for a target false-positive
/// probability `p`, `k = ⌈log₂(1/p)⌉` (APBF paper §4.1).
///
/// Memory per item is smallest when the filter stops at fill ratio ½
/// (Broder and Mitzenmacher, as cited there), where `p = 2^(−k)`; rounding
/// up keeps the actual rate at or below the target. Returns `None` unless
/// `0 < p ≤ 1` (`p = 1` needs no slice at all).
///
/// ```
/// use ddf_theory::bloom::optimal_slices;
/// assert_eq!(optimal_slices(0.01), Some(7));
/// assert_eq!(optimal_slices(0.125), Some(3));
/// assert_eq!(optimal_slices(0.0), None);
/// ```
pub fn optimal_slices(p: f64) -> Option<u32> {
    if !(p > 0.0 && p <= 1.0) {
        return None;
    }
    // −log₂ p is exact for powers of two, so p = 2^(−k) maps to k itself.
    Some((-p.log2()).ceil() as u32)
}

/// Bits of memory per item for a partitioned filter of `k` slices dimensioned
/// to reach fill ratio ½ at capacity: `k/ln 2 ≈ 1.44·k` (APBF paper §4.1, Table 1).
///
/// ```
/// use ddf_theory::bloom::bits_per_item;
/// assert!((bits_per_item(4.0) - 5.770_780_163_555_854).abs() < 1e-12);
/// ```
pub fn bits_per_item(k: f64) -> f64 {
    k / LN_2
}

/// The slice size that reaches fill ratio ½ after `capacity` insertions,
/// `m = n/ln 2` (APBF paper §4.1), using the exponential approximation of
/// [`slice_fill_ratio`].
///
/// For the exact inverse of the fill-ratio formula use [`capacity_at_fill`].
///
/// ```
/// use ddf_theory::bloom::slice_bits;
/// assert!((slice_bits(1000.0) - 1442.695_040_888_963).abs() < 1e-9);
/// ```
pub fn slice_bits(capacity: f64) -> f64 {
    capacity / LN_2
}

/// The number of insertions after which a slice of `m` bits reaches fill
/// ratio `r`: the exact inverse of [`slice_fill_ratio`],
/// `n = ln(1 − r)/ln(1 − 1/m)`.
///
/// This is how a family sizes a generation to stop filling at `r = ½`.
/// Returns NaN for `r ∉ [0, 1)`.
///
/// ```
/// use ddf_theory::bloom::{capacity_at_fill, slice_fill_ratio};
/// let n = capacity_at_fill(4096.0, 0.5);
/// assert!((slice_fill_ratio(n, 4096.0) - 0.5).abs() < 1e-14);
/// ```
pub fn capacity_at_fill(m: f64, r: f64) -> f64 {
    if !(0.0..1.0).contains(&r) {
        return f64::NAN;
    }
    (-r).ln_1p() / (-1.0 / m).ln_1p()
}

/// The expected number of slices a query probes when it returns "absent",
/// for `k` slices of fill ratio `r`:
/// `Σ_{i=1..k} i·r^(i−1)·(1 − r) / (1 − r^k) = 1/(1 − r) − k·r^k/(1 − r^k)`
/// (APBF paper §4.2 gives the `r = ½` case, `2^k/(2^k − 1)·Σ i/2^i`, which
/// tends to 2).
///
/// The query stops at the first clear bit; conditioning on the query
/// failing divides by `1 − r^k`. `k` is a count of slices, hence an integer.
/// At `r = 1` (no query fails) the limit `(k + 1)/2` is returned; `k = 0`
/// gives 0.
///
/// ```
/// use ddf_theory::bloom::negative_query_accesses;
/// // Table 1 of the APBF paper: k = 4 at fill 1/2 gives 1.73 accesses.
/// assert!((negative_query_accesses(4, 0.5) - 26.0 / 15.0).abs() < 1e-15);
/// ```
pub fn negative_query_accesses(k: u32, r: f64) -> f64 {
    if k == 0 {
        return 0.0;
    }
    let kf = f64::from(k);
    if r >= 1.0 {
        return 0.5 * (kf + 1.0);
    }
    // The closed form cancels as r → 1; the sum has no cancellation and k is small.
    let scale = (1.0 - r) / one_minus_pow1m(1.0 - r, kf);
    let mut power = 1.0;
    let mut sum = 0.0;
    for i in 1..=k {
        sum += f64::from(i) * power;
        power *= r;
    }
    sum * scale
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn fill_and_fp_hand_computed() {
        // m = 4, n = 2: 1 − (3/4)² = 7/16.
        assert_relative_eq!(slice_fill_ratio(2.0, 4.0), 7.0 / 16.0, max_relative = 1e-15);
        assert_relative_eq!(
            partitioned_fp(2.0, 4.0, 2.0),
            49.0 / 256.0,
            max_relative = 1e-14
        );
        // bits = 8, k = 2, n = 1: 1 − (7/8)² = 15/64, squared.
        assert_relative_eq!(
            standard_fill_ratio(1.0, 8.0, 2.0),
            15.0 / 64.0,
            max_relative = 1e-15
        );
        assert_relative_eq!(
            standard_fp(1.0, 8.0, 2.0),
            225.0 / 4096.0,
            max_relative = 1e-14
        );
        assert_eq!(slice_fill_ratio(0.0, 10.0), 0.0);
        assert_eq!(partitioned_fp(0.0, 10.0, 3.0), 0.0);
    }

    #[test]
    fn apbf_table_1() {
        // APBF paper, Table 1: aimed fp -> (k, bits/item to two decimals, actual fp, query-false accesses).
        let rows = [
            (0.1, 4, 5.77, 0.0625, 1.73),
            (0.01, 7, 10.09, 0.007_812_5, 1.94),
            (0.001, 10, 14.42, 0.000_976_562_5, 1.99),
            (0.0001, 14, 20.19, 0.000_061_035_1, 2.00),
            (0.00001, 17, 24.52, 0.000_007_629_3, 2.00),
        ];
        for (aimed, k, bits, actual, accesses) in rows {
            assert_eq!(optimal_slices(aimed), Some(k));
            let kf = f64::from(k);
            // The table truncates bits per item to two decimals.
            assert!((bits_per_item(kf) - bits).abs() < 0.01, "k = {k}");
            // The table truncates the actual rate too.
            assert_relative_eq!(2f64.powi(-(k as i32)), actual, max_relative = 1e-4);
            assert!(
                (negative_query_accesses(k, 0.5) - accesses).abs() < 0.005 + 1e-12,
                "k = {k}"
            );
        }
    }

    #[test]
    fn optimal_slices_edges() {
        assert_eq!(optimal_slices(1.0), Some(0));
        assert_eq!(optimal_slices(0.5), Some(1));
        assert_eq!(optimal_slices(0.49), Some(2));
        assert_eq!(optimal_slices(2f64.powi(-20)), Some(20));
        assert_eq!(optimal_slices(1.5), None);
        assert_eq!(optimal_slices(f64::NAN), None);
    }

    #[test]
    fn sizing_round_trips() {
        // m = n/ln 2 reaches r ≈ ½ (exactly in the exponential approximation).
        let n = 1e6;
        assert!((slice_fill_ratio(n, slice_bits(n)) - 0.5).abs() < 1e-6);
        assert_relative_eq!(capacity_at_fill(1e6, 0.5), 1e6 * LN_2, max_relative = 1e-6);
        assert_eq!(capacity_at_fill(100.0, 0.0), 0.0);
        assert!(capacity_at_fill(100.0, 1.0).is_nan());
    }

    #[test]
    fn accesses_limits() {
        assert_eq!(negative_query_accesses(0, 0.5), 0.0);
        assert_eq!(negative_query_accesses(5, 0.0), 1.0);
        assert_eq!(negative_query_accesses(5, 1.0), 3.0);
        assert_relative_eq!(
            negative_query_accesses(5, 1.0 - 1e-12),
            3.0,
            max_relative = 1e-9
        );
        // The closed form where it is well conditioned.
        let (k, r) = (6, 0.3_f64);
        let closed = 1.0 / (1.0 - r) - 6.0 * r.powi(6) / (1.0 - r.powi(6));
        assert_relative_eq!(negative_query_accesses(k, r), closed, max_relative = 1e-14);
    }
}
