//! Stable Bloom filters: the stable point of the cell distribution, its
//! false-positive rate, and the number of decrements for a target rate.
//!
//! Source: Deng and Rafiei, *Approximately detecting duplicates for
//! streaming data using stable Bloom filters* (SIGMOD 2006), through the QHT
//! paper (Géraud, Lombard-Platet, Naccache, §4.1 footnote 12 and §6), which
//! quotes the stable-point bound and benchmarks the configuration
//! `d = 2` bits per cell, `K = 2` probes, target rate 0.02.
//!
//! Symbols: `m` cells of `d` bits, `Max = 2^d − 1`; each insertion first
//! decrements `P` cells (those above zero) and then sets its `K` cells to
//! `Max`; a query reports a duplicate when all its `K` cells are non-zero.
//!
//! Derivation (ours, it reproduces the quoted formula): one cell, one
//! insertion: it is decremented with probability `P/m` and set with
//! probability `q ≈ K/m`. Looking back from now, the events "decremented"
//! and "set" race, and the cell is zero when `Max` decrements come before
//! the last set: `P0 = (1/(1 + q/((1 − q)·P/m)))^Max`, which with
//! `q = K/m` is `(1/(1 + 1/(P·(1/K − 1/m))))^Max`.

use crate::numerics::pow1m;

/// The fraction of zero cells at the stable point (Deng and Rafiei, as
/// quoted by the QHT paper, footnote 12):
/// `P0 = (1/(1 + 1/(P·(1/K − 1/m))))^Max`.
///
/// ```
/// use ddf_theory::stable_bloom::stable_zero_fraction;
/// // The QHT benchmark's SBF: m = 5·10^5 cells of 2 bits, K = 2, P = 38.
/// let p0 = stable_zero_fraction(5e5, 2.0, 38.0, 3.0);
/// assert!((p0 - 0.857_375).abs() < 1e-5);
/// ```
pub fn stable_zero_fraction(m: f64, k: f64, p: f64, max: f64) -> f64 {
    (1.0 / (1.0 + 1.0 / (p * (1.0 / k - 1.0 / m)))).powf(max)
}

/// The false-positive rate at the stable point, `(1 − P0)^K`: the query's
/// `K` cells are all non-zero (Deng and Rafiei; QHT paper footnote 12).
///
/// ```
/// use ddf_theory::stable_bloom::stable_fp;
/// assert!((stable_fp(5e5, 2.0, 38.0, 3.0) - 0.020_342).abs() < 1e-5);
/// ```
pub fn stable_fp(m: f64, k: f64, p: f64, max: f64) -> f64 {
    (1.0 - stable_zero_fraction(m, k, p, max)).powf(k)
}

/// The rate of a lookup that reports a duplicate when *any* of the `K`
/// cells is non-zero, `1 − P0^K`: what the QHT paper's benchmark code
/// measures (see `docs/errata.md`), not the SBF's definition.
///
/// ```
/// use ddf_theory::stable_bloom::any_probe_rate;
/// // About 26.5 %: the QHT paper's Table 4 reports 26.4–26.5 % for SBF.
/// assert!((any_probe_rate(5e5, 2.0, 38.0, 3.0) - 0.2649).abs() < 1e-4);
/// ```
pub fn any_probe_rate(m: f64, k: f64, p: f64, max: f64) -> f64 {
    1.0 - pow1m(1.0 - stable_zero_fraction(m, k, p, max), k)
}

/// The number of decrements per insertion whose stable point has
/// false-positive rate `fpr` (the stable-point formula solved for `P`):
/// `P = 1/((1/(1 − fpr^(1/K))^(1/Max) − 1)·(1/K − 1/m))`, real-valued.
///
/// Rounding up gives a rate at or below `fpr`. Returns NaN outside
/// `0 < fpr < 1`, `K < m`.
///
/// ```
/// use ddf_theory::stable_bloom::{decrements_for_fp, stable_fp};
/// let p = decrements_for_fp(5e5, 2.0, 3.0, 0.02);
/// assert!((p - 38.36).abs() < 0.01);
/// assert!((stable_fp(5e5, 2.0, p, 3.0) - 0.02).abs() < 1e-12);
/// ```
pub fn decrements_for_fp(m: f64, k: f64, max: f64, fpr: f64) -> f64 {
    if !(fpr > 0.0 && fpr < 1.0 && k < m) {
        return f64::NAN;
    }
    let zero = 1.0 - fpr.powf(1.0 / k);
    1.0 / ((1.0 / zero.powf(1.0 / max) - 1.0) * (1.0 / k - 1.0 / m))
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn markov_chain_by_simulation_of_one_cell() {
        // The stable point is the stationary law of one cell; iterate the
        // exact distribution of the cell value for many steps.
        let (m, k, p, max) = (1000.0_f64, 3.0_f64, 7.0_f64, 3usize);
        let (pd, q) = (p / m, k / m);
        let mut dist = vec![0.0; max + 1];
        dist[0] = 1.0;
        for _ in 0..200_000 {
            let mut next = vec![0.0; max + 1];
            for (v, &mass) in dist.iter().enumerate() {
                let after_dec = [(v.saturating_sub(1), pd), (v, 1.0 - pd)];
                for (w, pw) in after_dec {
                    next[max] += mass * pw * q;
                    next[w] += mass * pw * (1.0 - q);
                }
            }
            dist = next;
        }
        assert_relative_eq!(
            dist[0],
            stable_zero_fraction(m, k, p, max as f64),
            max_relative = 1e-9
        );
    }

    #[test]
    fn decrements_invert_the_rate() {
        for (m, k, max, fp) in [
            (1e4, 2.0, 3.0, 0.02),
            (1e6, 4.0, 7.0, 0.001),
            (5e3, 1.0, 1.0, 0.3),
        ] {
            let p = decrements_for_fp(m, k, max, fp);
            assert_relative_eq!(stable_fp(m, k, p, max), fp, max_relative = 1e-9);
        }
        assert!(decrements_for_fp(10.0, 2.0, 3.0, 0.0).is_nan());
        assert!(any_probe_rate(1e4, 2.0, 10.0, 3.0) > stable_fp(1e4, 2.0, 10.0, 3.0));
    }
}
