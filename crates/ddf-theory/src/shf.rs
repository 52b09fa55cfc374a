//! The Short Hash Filter and the Compact Short Hash Filter.
//!
//! Source: Géraud-Stewart, Lombard-Platet, Naccache, *Approaching Optimal
//! Duplicate Detection in a Sliding Window*, §3.2 (Algorithm 1, Theorem 3,
//! the saturation threshold `w_max` and its linear fits).
//!
//! Symbols: `M` the memory in bits (`memory_bits`), `w` the window, `h` the
//! stored hash width in bits. An SHF keeps the last `w` hashes in a ring plus
//! a dictionary hash → count, `M = w·h + w·(h + log₂ w)`, hence
//! `h = M/(2w) − ½·log₂ w`; a CSHF keeps the ring alone, `h = M/w`.
//!
//! Reading the extraction: Theorem 3 prints `1 (1 √(w2^(−M/w)))^w`; the
//! minus signs were lost. With `h` as above, `2^(−h) = √(w·2^(−M/w))`, and a
//! new item collides with one of `w` stored uniform `h`-bit hashes with
//! probability `1 − (1 − 2^(−h))^w`, which gives
//! `FP_SHF = 1 − (1 − √(w·2^(−M/w)))^w` and `FP_CSHF = 1 − (1 − 2^(−M/w))^w`.

use crate::numerics::{find_root, one_minus_pow1m};
use crate::stats::{LineFit, linear_fit};

/// The SHF hash width before rounding, `h = M/(2w) − ½·log₂ w` (Algorithm 1, SETUP).
pub fn shf_hash_bits(memory_bits: f64, w: f64) -> f64 {
    memory_bits / (2.0 * w) - 0.5 * w.log2()
}

/// The CSHF hash width before rounding, `h' = M/w` (§3.2).
pub fn cshf_hash_bits(memory_bits: f64, w: f64) -> f64 {
    memory_bits / w
}

/// The SHF memory for a hash width `h`, as Algorithm 1 counts it:
/// `M = 2·w·h + w·log₂ w` (ring, dictionary keys and counters).
pub fn shf_memory_bits(hash_bits: f64, w: f64) -> f64 {
    2.0 * w * hash_bits + w * w.log2()
}

/// The false-positive probability of any filter that stores the hashes of
/// the `w` window items, `h` bits each, and reports a duplicate when the new
/// item's hash is among them: `1 − (1 − 2^(−h))^w`.
///
/// The window items are assumed distinct (a long uniform stream over an
/// alphabet much larger than `w`); with `d < w` distinct items in the window,
/// put `d` for `w`. This is the formula behind Theorems 2 and 3 with the
/// filter's actual (integer) `h`.
pub fn stored_hashes_fp(hash_bits: f64, w: f64) -> f64 {
    one_minus_pow1m(2f64.powf(-hash_bits), w)
}

/// Theorem 3, SHF: `FP = 1 − (1 − √(w·2^(−M/w)))^w`, with the real-valued
/// `h` of [`shf_hash_bits`]; 1 when `√(w·2^(−M/w)) ≥ 1` (no hash bits left).
/// `FN = 0`.
///
/// ```
/// use ddf_theory::shf::{fp_shf, stored_hashes_fp, shf_hash_bits};
/// let (m, w) = (1e5, 2000.0);
/// let h = shf_hash_bits(m, w);
/// assert!((fp_shf(m, w) - stored_hashes_fp(h, w)).abs() < 1e-12);
/// ```
pub fn fp_shf(memory_bits: f64, w: f64) -> f64 {
    let collision = (w * 2f64.powf(-memory_bits / w)).sqrt();
    if collision >= 1.0 {
        1.0
    } else {
        one_minus_pow1m(collision, w)
    }
}

/// Theorem 3, CSHF: `FP = 1 − (1 − 2^(−M/w))^w`. `FN = 0`.
pub fn fp_cshf(memory_bits: f64, w: f64) -> f64 {
    one_minus_pow1m(2f64.powf(-memory_bits / w), w)
}

/// Which of the two filters a `w_max` computation is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HashFilter {
    /// The Short Hash Filter (ring plus dictionary, constant time).
    Shf,
    /// The Compact Short Hash Filter (ring only, linear time).
    Cshf,
}

impl HashFilter {
    /// Theorem 3's false-positive probability of this filter.
    pub fn fp(self, memory_bits: f64, w: f64) -> f64 {
        match self {
            HashFilter::Shf => fp_shf(memory_bits, w),
            HashFilter::Cshf => fp_cshf(memory_bits, w),
        }
    }
}

/// `w_max`: the window at which the filter's false-positive probability
/// reaches 1/2 for `M` bits (§3.2, "Saturation"), by bracketed root finding
/// on `FP(w) = 1/2` over `w ∈ [1, M]`. `None` if `FP` does not cross 1/2
/// there (tiny `M`).
pub fn w_max(filter: HashFilter, memory_bits: f64) -> Option<f64> {
    let f = |w: f64| filter.fp(memory_bits, w) - 0.5;
    find_root(f, 1.0, memory_bits.max(2.0), 1e-9).ok()
}

/// The paper's experiment behind its linear fits: `w_max` at `points`
/// memory sizes log-spaced over `[m_lo, m_hi]`, then a least-squares line
/// `w_max ≈ slope·M + intercept`. The paper reports `0.0627·M + 443`
/// (r² = 0.9981) for CSHF and `0.0233·M + 186` (r² = 0.9977) for SHF over 200
/// points in `[10², 10⁶]`. Points where `w_max` does not exist are skipped.
pub fn w_max_fit(filter: HashFilter, m_lo: f64, m_hi: f64, points: usize) -> Option<LineFit> {
    let (lo, hi) = (m_lo.ln(), m_hi.ln());
    let steps = points.max(2) - 1;
    let (xs, ys): (Vec<f64>, Vec<f64>) = (0..points)
        .filter_map(|i| {
            let m = (lo + (hi - lo) * i as f64 / steps as f64).exp();
            w_max(filter, m).map(|w| (m, w))
        })
        .unzip();
    linear_fit(&xs, &ys)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn cshf_equals_shf_with_more_memory() {
        // The remark after Theorem 3: a CSHF of M bits errs like an SHF of
        // 2M + w·log2 w bits on the same window.
        for (m, w) in [(1e5, 1000.0), (3e4, 2500.0), (1e6, 50_000.0)] {
            let shf_m = 2.0 * m + w * f64::log2(w);
            assert_relative_eq!(fp_cshf(m, w), fp_shf(shf_m, w), max_relative = 1e-12);
        }
    }

    #[test]
    fn fp_rises_with_window_and_w_max_is_half() {
        let m = 1e5;
        let mut last = 0.0;
        for w in [100.0, 1000.0, 3000.0, 6000.0, 9000.0] {
            let fp = fp_cshf(m, w);
            assert!(fp >= last);
            last = fp;
        }
        for filter in [HashFilter::Shf, HashFilter::Cshf] {
            let w = w_max(filter, m).unwrap();
            assert_relative_eq!(filter.fp(m, w), 0.5, epsilon = 1e-6);
        }
        assert!(w_max(HashFilter::Shf, m).unwrap() < w_max(HashFilter::Cshf, m).unwrap());
    }

    #[test]
    fn memory_and_hash_width_are_inverse() {
        let (m, w) = (123_456.0, 789.0);
        assert_relative_eq!(
            shf_memory_bits(shf_hash_bits(m, w), w),
            m,
            max_relative = 1e-12
        );
        assert_relative_eq!(cshf_hash_bits(m, w), m / w);
    }

    #[test]
    fn shf_without_hash_bits_is_always_wrong() {
        assert_eq!(fp_shf(10.0, 100.0), 1.0);
    }
}
