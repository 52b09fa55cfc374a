//! Adversarial games against duplicate filters (QHT paper §7).

use crate::numerics::one_minus_pow1m;

/// Theorem 7.1 (QHT paper §7): an adversary who sends `h·M` fresh items to
/// a filter of `M` bits and then repeats a chosen element finds it
/// forgotten with probability at least
/// `P_forgot = 1 − (1 − 1/M)^(h·M) ≈ 1 − e^(−h)`, since no structure
/// remembers more than one element per bit (the proof's argument; it holds
/// for filters whose false-positive rate stays below 1, see
/// `docs/errata.md`).
///
/// ```
/// use ddf_theory::adversary::forgot_probability;
/// let p = forgot_probability(1e4, 1.0);
/// assert!((p - (1.0 - (-1f64).exp())).abs() < 1e-4);
/// ```
pub fn forgot_probability(memory_bits: f64, h: f64) -> f64 {
    one_minus_pow1m(1.0 / memory_bits, h * memory_bits)
}
