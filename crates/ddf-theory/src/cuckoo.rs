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

/// The law of a cell's fingerprint in a saturated streaming cuckoo filter
/// that inserts only the items it does not find (`StreamRule::LookupFirst`),
/// when fingerprints follow the law `p`.
///
/// Derived here, in the independent-cells model of [`fpr_inf`]. Once the
/// table is full, an item with fingerprint `φ` is inserted only when `φ` is
/// in none of its `2b` cells, with probability `p_φ·(1 − q_φ)^(2b)` if cells
/// follow `q`; each insertion walks a relocation chain and drops one
/// fingerprint, a cell's value, which is `ψ` with probability `q_ψ`. Balance
/// of values in and out gives the fixed point
///
/// ```text
/// q_φ = p_φ·(1 − q_φ)^(2b) / Z,   Z = Σ_ψ p_ψ·(1 − q_ψ)^(2b)
/// ```
///
/// (inserting every item gives `q = p` instead). Frequent values are found
/// more often, so inserted less: `q` is flatter than `p`, and equal to it
/// when `p` is uniform. Solved by bisection on `Z`: for a fixed `Z` each
/// `q_φ` is the root of an increasing minus a decreasing function on
/// `[0, 1]`, and `Σ q_φ` falls as `Z` grows. `probabilities` must sum to 1.
///
/// ```
/// use ddf_theory::cuckoo::{lookup_first_cell_law, zero_to_one_law};
/// let law = zero_to_one_law(3).unwrap();
/// let q = lookup_first_cell_law(1.0, &law);
/// assert!((q.iter().sum::<f64>() - 1.0).abs() < 1e-12);
/// // Value 1 is twice as likely as the others, but held less than twice as often.
/// assert!(q[0] > q[1] && q[0] < 2.0 * q[1]);
/// ```
pub fn lookup_first_cell_law(cells_per_bucket: f64, probabilities: &[f64]) -> Vec<f64> {
    let e = 2.0 * cells_per_bucket;
    // The root in [0, 1] of q·Z = p·(1 − q)^e.
    let cell = |p: f64, z: f64| {
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            if mid * z < p * (1.0 - mid).powf(e) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    };
    let total = |z: f64| probabilities.iter().map(|&p| cell(p, z)).sum::<f64>();
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if total(mid) > 1.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let z = 0.5 * (lo + hi);
    let q: Vec<f64> = probabilities.iter().map(|&p| cell(p, z)).collect();
    // Bisection leaves the sum within rounding of 1; make it exact.
    let sum: f64 = q.iter().sum();
    q.into_iter().map(|x| x / sum).collect()
}

/// The asymptotic false-positive rate of a saturated streaming cuckoo filter
/// that inserts only the items it does not find (the default stream rule):
/// `FPR_∞ = Σ_φ p_φ·(1 − (1 − q_φ)^(2b))` with `q` the cell law of
/// [`lookup_first_cell_law`]. Equal to [`fpr_inf`] for uniform `p`.
///
/// ```
/// use ddf_theory::cuckoo::{fpr_inf, fpr_inf_lookup_first, zero_to_one_law};
/// // One 3-bit cell per bucket, 0 mapped to 1: 27.9 % instead of 28.5 %.
/// let law = zero_to_one_law(3).unwrap();
/// assert!((fpr_inf_lookup_first(1.0, &law) - 0.279212).abs() < 1e-6);
/// assert!(fpr_inf_lookup_first(1.0, &law) < fpr_inf(1.0, &law));
/// ```
pub fn fpr_inf_lookup_first(cells_per_bucket: f64, probabilities: &[f64]) -> f64 {
    let q = lookup_first_cell_law(cells_per_bucket, probabilities);
    probabilities
        .iter()
        .zip(&q)
        .map(|(&p, &q)| p * crate::numerics::one_minus_pow1m(q, 2.0 * cells_per_bucket))
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

    #[test]
    fn lookup_first_law_is_the_fixed_point() {
        for bits in [2, 3, 8] {
            for b in [1.0, 4.0] {
                let p = zero_to_one_law(bits).unwrap();
                let q = lookup_first_cell_law(b, &p);
                let z: f64 = p
                    .iter()
                    .zip(&q)
                    .map(|(p, q)| p * (1.0 - q).powf(2.0 * b))
                    .sum();
                for (p, q) in p.iter().zip(&q) {
                    let rhs = p * (1.0 - q).powf(2.0 * b) / z;
                    assert!((q - rhs).abs() < 1e-12 * rhs.max(1e-300), "{q} {rhs}");
                }
                let rate = fpr_inf_lookup_first(b, &p);
                assert!(rate > 0.0 && rate <= 1.0);
            }
        }
        // Uniform fingerprints: the same cells, the same rate.
        let uniform = [0.125; 8];
        let q = lookup_first_cell_law(2.0, &uniform);
        assert!(q.iter().all(|&x| (x - 0.125).abs() < 1e-12));
        assert!((fpr_inf_lookup_first(2.0, &uniform) - fpr_inf(2.0, &uniform)).abs() < 1e-12);
        // One value: always found.
        assert!((fpr_inf_lookup_first(1.0, &[1.0]) - 1.0).abs() < 1e-12);
    }
}
