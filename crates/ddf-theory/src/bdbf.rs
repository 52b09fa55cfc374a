//! The block-decaying Bloom filter (b_DBF): sizing from a memory budget and
//! a window, and its false-positive rate on the window.
//!
//! Source: Shen and Zhang, *Improved approximate detection of duplicates for
//! data streams over sliding windows* (JCST 2008), as summarised in the APBF
//! paper §3.3 and benchmarked by the QHT paper §6 (window 6000). The sizing
//! rule is the one of the QHT authors' benchmark code (read for facts, see
//! `docs/errata.md`): counters of `d = ⌈√(M·ln 2/w)⌉` bits, `k = d` probes.
//!
//! Symbols: `m` counters of `d` bits, `k` probes, window `w`; insertions are
//! grouped into blocks of `T` (`block_size`); an item stays reported while
//! its block is the current one or one of the `L = ⌈w/T⌉` before it. With
//! `j` items in the current block (`1..=T`; a block opens with the first
//! insertion after the previous one filled) the filter reports the last
//! `L·T + j` items, and a query for an item outside them is a false
//! positive of a standard Bloom filter holding those items.

use std::f64::consts::LN_2;

use crate::bloom::standard_fp;

/// The counter width for a memory budget of `memory_bits` and a window `w`:
/// `d = ⌈√(M·ln 2/w)⌉`, which also serves as the number of probes.
///
/// With `m = M/d` counters and about `w` items a standard filter wants
/// `k = (m/w)·ln 2 = M·ln 2/(d·w)` probes; taking `k = d` gives the formula.
///
/// ```
/// use ddf_theory::bdbf::counter_bits;
/// assert_eq!(counter_bits(1e5, 6000.0), 4.0);
/// assert_eq!(counter_bits(1e6, 6000.0), 11.0);
/// ```
pub fn counter_bits(memory_bits: f64, w: f64) -> f64 {
    (memory_bits * LN_2 / w).sqrt().ceil()
}

/// The block size `T = ⌈w/(2^(d−1) − 1)⌉`: with `d`-bit counters, half the
/// range (`2^(d−1) − 1` blocks) covers the window, the other half lets the
/// decrement sweep wait `2^(d−1)` blocks (delayed decrementing).
///
/// ```
/// use ddf_theory::bdbf::block_size;
/// assert_eq!(block_size(6000.0, 4.0), 858.0);
/// ```
pub fn block_size(w: f64, d: f64) -> f64 {
    (w / (2f64.powf(d - 1.0) - 1.0)).ceil()
}

/// The number of full blocks kept, `L = ⌈w/T⌉`.
///
/// ```
/// use ddf_theory::bdbf::blocks_kept;
/// assert_eq!(blocks_kept(6000.0, 858.0), 7.0);
/// ```
pub fn blocks_kept(w: f64, t: f64) -> f64 {
    (w / t).ceil()
}

/// The slack: the last `(L + 1)·T` items may be reported when the current
/// block is full, `(L + 1)·T − w` beyond the window.
///
/// ```
/// use ddf_theory::bdbf::slack;
/// assert_eq!(slack(6000.0, 858.0), 8.0 * 858.0 - 6000.0);
/// ```
pub fn slack(w: f64, t: f64) -> f64 {
    (blocks_kept(w, t) + 1.0) * t - w
}

/// The false-positive rate for an item outside the live set, averaged over
/// the position in the current block, on a stream of distinct items:
/// the mean over `j = 1..=T` of the standard filter's rate with
/// `L·T + j` items in `m` counters and `k` probes.
///
/// ```
/// use ddf_theory::bdbf::window_fp;
/// use ddf_theory::bloom::standard_fp;
/// let fp = window_fp(25_000.0, 4.0, 6000.0, 858.0);
/// assert!(fp > standard_fp(6007.0, 25_000.0, 4.0) && fp < standard_fp(6864.0, 25_000.0, 4.0));
/// ```
pub fn window_fp(m: f64, k: f64, w: f64, t: f64) -> f64 {
    let live = blocks_kept(w, t) * t;
    let count = t.max(1.0) as u64;
    (1..=count)
        .map(|j| standard_fp(live + j as f64, m, k))
        .sum::<f64>()
        / count as f64
}

/// The most items a b_DBF reports at once, `(L + 1)·T`: a full current
/// block and the `L` before it, the worst point for the false-positive rate.
///
/// ```
/// use ddf_theory::bdbf::live_max;
/// assert_eq!(live_max(6000.0, 858.0), 8.0 * 858.0);
/// ```
pub fn live_max(w: f64, t: f64) -> f64 {
    (blocks_kept(w, t) + 1.0) * t
}

/// The fewest counters `m` for which a standard filter holding `n` items
/// with `k` probes answers an unseen item with rate at most `fpr`: the
/// inverse of [`standard_fp`] in `m`,
///
/// ```text
/// (1 − (1 − 1/m)^(k·n))^k ≤ fpr  ⇔  m ≥ 1 / (1 − (1 − fpr^(1/k))^(1/(k·n))),
/// ```
///
/// rounded up; the rate falls as `m` grows, so every larger `m` meets
/// `fpr` too. Computed with `ln_1p`/`exp_m1`, so tiny rates keep their
/// precision. NaN unless `0 < fpr < 1`, `n > 0` and `k ≥ 1`.
///
/// ```
/// use ddf_theory::bdbf::counters_for;
/// use ddf_theory::bloom::standard_fp;
/// let m = counters_for(1000.0, 7.0, 0.01);
/// assert!(standard_fp(1000.0, m, 7.0) <= 0.01);
/// assert!(standard_fp(1000.0, m - 1.0, 7.0) > 0.01);
/// ```
pub fn counters_for(n: f64, k: f64, fpr: f64) -> f64 {
    if !(fpr > 0.0 && fpr < 1.0 && n > 0.0 && k >= 1.0) {
        return f64::NAN;
    }
    // 1 − (1 − fpr^(1/k))^(1/(k·n)), without cancellation.
    let step = -(((-fpr.powf(1.0 / k)).ln_1p()) / (k * n)).exp_m1();
    (1.0 / step).ceil()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qht_benchmark_configurations() {
        // Memory 10^4 .. 8·10^6 bits, window 6000, as in the QHT paper §6.
        let w = 6000.0;
        let rows = [
            (1e4, 2.0, 6000.0),
            (1e5, 4.0, 858.0),
            (1e6, 11.0, 6.0),
            (8e6, 31.0, 1.0),
        ];
        for (mem, d, t) in rows {
            assert_eq!(counter_bits(mem, w), d);
            assert_eq!(block_size(w, d), t);
            // Counter values reach at most (2^(d−1) − 1) + L + 1 ≤ 2^d − 1.
            assert!(2f64.powf(d - 1.0) + blocks_kept(w, t) <= 2f64.powf(d) - 1.0);
            assert!(blocks_kept(w, t) * t >= w);
        }
    }
}
