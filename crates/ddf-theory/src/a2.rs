//! A2, the aging Bloom filter with two active buffers: sizing for a target
//! rate, the false-positive rate through a buffer period, and how fast it
//! forgets.
//!
//! Source: Yoon, *Aging Bloom filter with two active buffers for dynamic
//! sets* (IEEE TKDE 2010), as described in the APBF paper §3.2 and used by
//! the QHT paper §6 (target rate 0.1 on the sliding window) and the
//! sliding-window paper §4.3 (buffers switched every `w/2` insertions).
//!
//! Symbols: two Bloom filters `active1`, `active2` of `m` bits each with `k`
//! probes; `active1` takes up to `n` items (its capacity), then becomes
//! `active2` and a fresh `active1` starts. A query reports a duplicate if
//! either buffer holds the item. `j` is the number of items in `active1`.
//!
//! The formulas below are ours, derived from that description: a buffer is a
//! standard Bloom filter, and the two buffers' answers for an item in
//! neither are independent.

use crate::bloom::{standard_fill_ratio, standard_fp};

/// The per-buffer false-positive rate that makes the worst case (both
/// buffers full) reach `fpr`: `1 − √(1 − fpr)`, since a query fails only
/// if both buffers say no.
///
/// ```
/// use ddf_theory::a2::buffer_fp_for;
/// assert!((buffer_fp_for(0.1) - 0.051_316).abs() < 1e-6);
/// ```
pub fn buffer_fp_for(fpr: f64) -> f64 {
    1.0 - (1.0 - fpr).sqrt()
}

/// The largest number of items a buffer of `m` bits with `k` probes takes
/// before its false-positive rate exceeds `p`: the standard filter's
/// `(1 − (1 − 1/m)^(k·n))^k = p` solved for `n`, real-valued.
///
/// ```
/// use ddf_theory::a2::buffer_capacity;
/// use ddf_theory::bloom::standard_fp;
/// let n = buffer_capacity(1e5, 5.0, 0.03);
/// assert!((standard_fp(n, 1e5, 5.0) - 0.03).abs() < 1e-12);
/// ```
pub fn buffer_capacity(m: f64, k: f64, p: f64) -> f64 {
    let fill = p.powf(1.0 / k);
    (-fill).ln_1p() / (k * (-1.0 / m).ln_1p())
}

/// The false-positive rate of A2 for an item in neither buffer when
/// `active1` holds `j` items and `active2` holds `n`:
/// `1 − (1 − fp(j))·(1 − fp(n))` with `fp` the standard filter's rate.
///
/// ```
/// use ddf_theory::a2::phase_fp;
/// let alone = ddf_theory::bloom::standard_fp(100.0, 1000.0, 3.0);
/// assert!((phase_fp(0.0, 100.0, 1000.0, 3.0) - alone).abs() < 1e-15);
/// ```
pub fn phase_fp(j: f64, n: f64, m: f64, k: f64) -> f64 {
    1.0 - (1.0 - standard_fp(j, m, k)) * (1.0 - standard_fp(n, m, k))
}

/// The false-positive rate of A2 averaged over a buffer period of a stream
/// of distinct items: the mean of [`phase_fp`] over `j = 0..n`, `active2`
/// full.
///
/// ```
/// use ddf_theory::a2::{mean_fp, phase_fp};
/// let mean = mean_fp(1000.0, 14_427.0, 10.0);
/// assert!(mean < phase_fp(1000.0, 1000.0, 14_427.0, 10.0));
/// assert!(mean > phase_fp(0.0, 1000.0, 14_427.0, 10.0));
/// ```
pub fn mean_fp(n: f64, m: f64, k: f64) -> f64 {
    let count = n.floor().max(1.0) as u64;
    (0..count).map(|j| phase_fp(j as f64, n, m, k)).sum::<f64>() / count as f64
}

/// The probability that A2 still holds an item `d` insertions after it
/// entered `active1`, over a uniformly random position of the item in its
/// buffer: 1 for `d ≤ n`, `(2n − d)/n` up to `2n`, then 0.
///
/// An item in slot `j` of `active1` (0-based) survives the `n − 1 − j` later
/// items of its buffer and the `n` of the next one.
///
/// ```
/// use ddf_theory::a2::retention;
/// assert_eq!(retention(100.0, 50.0), 1.0);
/// assert_eq!(retention(100.0, 150.0), 0.5);
/// assert_eq!(retention(100.0, 250.0), 0.0);
/// ```
pub fn retention(n: f64, d: f64) -> f64 {
    ((2.0 * n - d) / n).clamp(0.0, 1.0)
}

/// The fill ratio of one buffer after `j` items, for reports.
///
/// ```
/// use ddf_theory::a2::buffer_fill;
/// assert!((buffer_fill(693.0, 1000.0, 1.0) - 0.5).abs() < 1e-3);
/// ```
pub fn buffer_fill(j: f64, m: f64, k: f64) -> f64 {
    standard_fill_ratio(j, m, k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn worst_case_meets_the_target() {
        let fpr = 0.1;
        let p = buffer_fp_for(fpr);
        let (m, k) = (50_000.0, 5.0);
        let n = buffer_capacity(m, k, p);
        assert_relative_eq!(phase_fp(n, n, m, k), fpr, max_relative = 1e-9);
        // Fill ratio ½ at capacity when k = log2(1/p) exactly.
        let k_half = -p.log2();
        let n_half = buffer_capacity(m, k_half, p);
        assert_relative_eq!(buffer_fill(n_half, m, k_half), 0.5, max_relative = 1e-9);
    }

    #[test]
    fn retention_is_linear_between_one_and_two_buffers() {
        let n = 64.0;
        let mean: f64 = (65..=128).map(|d| retention(n, f64::from(d))).sum::<f64>() / 64.0;
        assert_relative_eq!(mean, 63.0 / 128.0, max_relative = 1e-12);
    }
}
