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
//! neither are independent. One refinement matters: an item that `active1`
//! already reports (a false positive, on a stream of distinct items) is not
//! inserted and does not count towards the capacity, but it would not have
//! set a new bit either. So a buffer holding `j` counted items is in the
//! state of a standard filter that took `N(j) ≥ j` items, with
//! `dN/dj = 1/(1 − fp(N))` ([`offered_items`]); at `n = 2000`, `k = 5` and
//! 5 % this is 1 % more items and a 4 % higher false-positive rate.

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

/// The number of items `N(j)` a standard filter of `m` bits with `k`
/// probes must take to reach the state of an A2 buffer holding `j` counted
/// items on a stream of distinct items: `dN/dj = 1/(1 − fp(N))`, `N(0) = 0`,
/// since a fraction `fp(N)` of the items offered are already reported and
/// skipped (they would set no new bit). Integrated by classical
/// Runge–Kutta in 256 steps.
///
/// ```
/// use ddf_theory::a2::offered_items;
/// let n = offered_items(2000.0, 12_452.0, 5.0);
/// assert!(n > 2020.0 && n < 2030.0);
/// assert_eq!(offered_items(0.0, 100.0, 3.0), 0.0);
/// ```
pub fn offered_items(j: f64, m: f64, k: f64) -> f64 {
    if j <= 0.0 {
        return 0.0;
    }
    let rate = |n: f64| 1.0 / (1.0 - standard_fp(n, m, k));
    let steps = 256;
    let h = j / f64::from(steps);
    let mut n = 0.0;
    for _ in 0..steps {
        let k1 = rate(n);
        let k2 = rate(n + 0.5 * h * k1);
        let k3 = rate(n + 0.5 * h * k2);
        let k4 = rate(n + h * k3);
        n += h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
    }
    n
}

/// The counted items of a buffer that has been offered `offered` distinct
/// items: `j(N) = N − ∫₀^N fp(x) dx`, the inverse of [`offered_items`]
/// (Simpson's rule in 256 intervals).
///
/// ```
/// use ddf_theory::a2::{counted_items, offered_items};
/// let n = offered_items(1500.0, 12_452.0, 5.0);
/// assert!((counted_items(n, 12_452.0, 5.0) - 1500.0).abs() < 1e-6);
/// ```
pub fn counted_items(offered: f64, m: f64, k: f64) -> f64 {
    if offered <= 0.0 {
        return 0.0;
    }
    let steps = 256;
    let h = offered / f64::from(steps);
    let fp = |x: f64| standard_fp(x, m, k);
    let mut integral = fp(0.0) + fp(offered);
    for i in 1..steps {
        let w = if i % 2 == 1 { 4.0 } else { 2.0 };
        integral += w * fp(f64::from(i) * h);
    }
    offered - integral * h / 3.0
}

/// The largest number of counted items a buffer of `m` bits with `k`
/// probes takes before its false-positive rate exceeds `p`, real-valued:
/// the standard filter reaches `p` after `N* = ln(1 − p^(1/k))/(k·ln(1 − 1/m))`
/// items, which a buffer counts as [`counted_items`]`(N*)`.
///
/// ```
/// use ddf_theory::a2::{buffer_capacity, offered_items};
/// use ddf_theory::bloom::standard_fp;
/// let n = buffer_capacity(1e5, 5.0, 0.03);
/// let state = offered_items(n, 1e5, 5.0);
/// assert!((standard_fp(state, 1e5, 5.0) - 0.03).abs() < 1e-9);
/// ```
pub fn buffer_capacity(m: f64, k: f64, p: f64) -> f64 {
    let fill = p.powf(1.0 / k);
    let offered = (-fill).ln_1p() / (k * (-1.0 / m).ln_1p());
    counted_items(offered, m, k)
}

/// The fewest bits `m` per buffer for which a buffer with `n` counted items
/// and `k` probes answers with rate at most `p`: the smallest integer with
/// `fp(N(n)) ≤ p`, found by bisection from the standard filter's size;
/// infinite if no size below 2^52 reaches `p` (or an input is NaN).
///
/// ```
/// use ddf_theory::a2::{buffer_bits, phase_fp};
/// let m = buffer_bits(2000.0, 5.0, 0.05);
/// let worst = |m: f64| 1.0 - (1.0 - phase_fp(2000.0, 2000.0, m, 5.0)).sqrt();
/// assert!(worst(m) <= 0.05 && worst(m - 1.0) > 0.05);
/// // A one-item buffer at a loose rate (once an endless bisection).
/// assert_eq!(buffer_bits(1.0, 2.0, 0.335), 4.0);
/// ```
pub fn buffer_bits(n: f64, k: f64, p: f64) -> f64 {
    let ok = |m: f64| standard_fp(offered_items(n, m, k), m, k) <= p;
    // The standard filter's size for n items is a lower bound.
    let fill = p.powf(1.0 / k);
    let mut lo = (1.0 / -((-fill).ln_1p() / (k * n)).exp_m1())
        .floor()
        .max(1.0);
    if ok(lo) {
        return lo;
    }
    // Whole numbers only: with a fractional `hi` the bisection's floored
    // midpoint can equal `lo` forever (`lo = 2`, `hi = 3.5`).
    let mut hi = (lo * 1.25).ceil() + 1.0;
    while !ok(hi) {
        // A rate no exactly representable size reaches (p near 0): no answer.
        if hi.is_nan() || hi >= 2f64.powi(52) {
            return f64::INFINITY;
        }
        lo = hi;
        hi *= 2.0;
    }
    while hi - lo > 1.0 {
        let mid = ((lo + hi) / 2.0).floor();
        if ok(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// The false-positive rate of A2 for an item in neither buffer when
/// `active1` holds `j` counted items and `active2` holds `n`:
/// `1 − (1 − fp(N(j)))·(1 − fp(N(n)))` with `fp` the standard filter's rate
/// and `N` [`offered_items`].
///
/// ```
/// use ddf_theory::a2::{offered_items, phase_fp};
/// use ddf_theory::bloom::standard_fp;
/// let alone = standard_fp(offered_items(100.0, 1000.0, 3.0), 1000.0, 3.0);
/// assert!((phase_fp(0.0, 100.0, 1000.0, 3.0) - alone).abs() < 1e-15);
/// ```
pub fn phase_fp(j: f64, n: f64, m: f64, k: f64) -> f64 {
    let fp = |c: f64| standard_fp(offered_items(c, m, k), m, k);
    1.0 - (1.0 - fp(j)) * (1.0 - fp(n))
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
        assert_relative_eq!(phase_fp(n, n, m, k), fpr, max_relative = 1e-7);
        // Fill ratio ½ at capacity when k = log2(1/p) exactly.
        let k_half = -p.log2();
        let n_half = buffer_capacity(m, k_half, p);
        assert_relative_eq!(
            buffer_fill(offered_items(n_half, m, k_half), m, k_half),
            0.5,
            max_relative = 1e-7
        );
    }

    #[test]
    fn offered_and_counted_are_inverse() {
        let (m, k) = (12_452.0, 5.0);
        for j in [1.0, 10.0, 500.0, 2000.0, 4000.0] {
            assert_relative_eq!(
                counted_items(offered_items(j, m, k), m, k),
                j,
                max_relative = 1e-8
            );
        }
        // A nearly empty buffer skips nothing.
        assert_relative_eq!(offered_items(5.0, 1e9, 3.0), 5.0, max_relative = 1e-12);
    }

    #[test]
    fn retention_is_linear_between_one_and_two_buffers() {
        let n = 64.0;
        let mean: f64 = (65..=128).map(|d| retention(n, f64::from(d))).sum::<f64>() / 64.0;
        assert_relative_eq!(mean, 63.0 / 128.0, max_relative = 1e-12);
    }
}
