//! The streaming cuckoo filter at saturation: a model of its false-positive rate.
//!
//! Source: Fan, Andersen, Kaminsky, Mitzenmacher, *Cuckoo Filter:
//! Practically Better Than Bloom* (CoNEXT 2014), adapted to unbounded
//! streams as footnote 4 of Géraud, Lombard-Platet, Naccache, *Quotient Hash
//! Tables* says (a failed relocation drops a fingerprint). That paper leaves
//! the adapted filter unanalysed; the model here is derived by us.
//!
//! Symbols: `b` cells per bucket (`cells_per_bucket`), `f` fingerprint bits,
//! `p_φ` the probability of fingerprint value `φ`.

/// The asymptotic false-positive rate of a saturated streaming cuckoo
/// filter that inserts every item, found or not (`StreamRule::InsertAlways`,
/// the QHT paper's benchmark), whose fingerprints follow the law `p`:
///
/// ```text
/// FPR_∞ = Σ_φ p_φ · (1 − (1 − p_φ)^(2b)).
/// ```
///
/// Derived here. Once the table is full every cell holds a fingerprint, and
/// the model takes the `2b` cells of an unseen element's two buckets to hold
/// independent draws from `p` (the fingerprints of earlier elements: every
/// item is inserted and a full table drops a random cell's value), so the
/// element's fingerprint `φ` is absent from all of them with probability
/// `(1 − p_φ)^(2b)`. It ignores the rare case of two equal candidate buckets.
/// `probabilities` must sum to 1; the cost is one term per value.
///
/// ```
/// use ddf_theory::cuckoo::fpr_inf;
/// // Seven equiprobable 3-bit values, one cell per bucket: 1 − (6/7)².
/// let uniform = [1.0 / 7.0; 7];
/// assert!((fpr_inf(1.0, &uniform) - (1.0 - 36.0 / 49.0)).abs() < 1e-15);
/// ```
pub fn fpr_inf(cells_per_bucket: f64, probabilities: &[f64]) -> f64 {
    probabilities
        .iter()
        .map(|&p| p * crate::numerics::one_minus_pow1m(p, 2.0 * cells_per_bucket))
        .sum()
}

/// The law of `f`-bit fingerprints when a zero is mapped to 1 (Fan et al.'s
/// implementation, the QHT paper's footnote 11): value 1 has probability
/// `2/2^f`, values `2..2^f` have `1/2^f` each. `None` above 20 bits (the
/// law has `2^f − 1` entries).
///
/// ```
/// use ddf_theory::cuckoo::{fpr_inf, zero_to_one_law};
/// // One 3-bit cell per bucket: 2Σp² − Σp³ = 0.285…, the 28.5 % of the
/// // QHT paper's Table 4.
/// let law = zero_to_one_law(3).unwrap();
/// assert!((fpr_inf(1.0, &law) - 0.28515625).abs() < 1e-12);
/// ```
pub fn zero_to_one_law(fingerprint_bits: u32) -> Option<Vec<f64>> {
    if !(1..=20).contains(&fingerprint_bits) {
        return None;
    }
    let n = 1usize << fingerprint_bits;
    let unit = 1.0 / n as f64;
    Some(
        (1..n)
            .map(|v| if v == 1 { 2.0 * unit } else { unit })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn laws_sum_to_one_and_rates_are_probabilities() {
        for bits in 1..=12 {
            let law = zero_to_one_law(bits).unwrap();
            assert!((law.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            for b in [1.0, 2.0, 4.0] {
                let p = fpr_inf(b, &law);
                assert!(p > 0.0 && p <= 1.0);
            }
        }
        assert!(zero_to_one_law(0).is_none());
        // One bit: the only value is 1, always present.
        assert_eq!(fpr_inf(1.0, &zero_to_one_law(1).unwrap()), 1.0);
    }
}
