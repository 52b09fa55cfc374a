//! The streaming cuckoo filter at saturation: a model of its false-positive
//! rate, and what its full-table policy does to false negatives.
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

/// The probability that a fingerprint stored in a full streaming cuckoo
/// filter of `n = m·b` cells is still there after `E` further evictions
/// under the evicting full-table policy (`ddf_cuckoo::FullTable::Evict`):
///
/// ```text
/// S(E) = (1 − 1/n)^E.
/// ```
///
/// Derived here. In a full table every stored insertion drops exactly one
/// fingerprint (nothing can move into an empty cell, and nothing leaves
/// otherwise), and the evicting policy overwrites a cell chosen as follows:
/// bucket `i₁` or `i₂` by a fair coin, then a uniform cell of it. The
/// digest makes `i₁` uniform over the `m` buckets and independent of the
/// fingerprint `φ`, so `i₂ = (H(φ) − i₁) mod m` is uniform too, and each
/// bucket is chosen with probability `½·1/m + ½·1/m = 1/m` (also when
/// `i₁ = i₂`); each cell is the victim with probability `1/(m·b)`,
/// independently of earlier evictions (fresh digest, fresh draws). A given
/// cell escapes `E` of them with probability `(1 − 1/n)^E`. The policy
/// changes no false-positive rate: before the table is full it acts as the
/// walk does, after it the table is full either way, so [`fpr_inf`] holds
/// for both. The walk (`FullTable::Walk`) drops the fingerprint in hand
/// after `max_kicks` relocations instead, close to but not exactly a
/// uniform cell; this formula is exact only for eviction.
///
/// Under the lookup-first stream rule only items answered UNSEEN are
/// stored, so `E` counts them (the filter's `dropped()` counter advances by
/// one per eviction). The false-negative rate of a repeat after `E`
/// evictions is then [`missed_after`].
///
/// ```
/// use ddf_theory::cuckoo::survival_full;
/// // About half the cells are overwritten after n·ln 2 evictions.
/// let n = 1024.0;
/// assert!((survival_full(n, n * std::f64::consts::LN_2) - 0.5).abs() < 1e-3);
/// ```
pub fn survival_full(cells: f64, evictions: f64) -> f64 {
    crate::numerics::pow1m(1.0 / cells, evictions)
}

/// The probability that a repeat, stored `E` evictions ago in a full table
/// of `n` cells under the evicting policy, is answered UNSEEN: its
/// fingerprint was overwritten ([`survival_full`]) and none of the `2b`
/// cells of its two buckets holds an equal value by chance, each an
/// independent draw among `values` equiprobable fingerprints (the model of
/// [`fpr_inf`]):
///
/// ```text
/// FNR(E) = (1 − S(E)) · (1 − 1/values)^(2b).
/// ```
///
/// ```
/// use ddf_theory::cuckoo::{missed_after, survival_full};
/// let (n, e) = (1024.0, 700.0);
/// let fnr = missed_after(n, 4.0, 255.0, e);
/// assert!(fnr < 1.0 - survival_full(n, e) && fnr > 0.9 * (1.0 - survival_full(n, e)));
/// ```
pub fn missed_after(cells: f64, cells_per_bucket: f64, values: f64, evictions: f64) -> f64 {
    let overwritten = 1.0 - survival_full(cells, evictions);
    overwritten * crate::numerics::pow1m(1.0 / values, 2.0 * cells_per_bucket)
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
