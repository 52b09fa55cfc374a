//! A QHT as a subfilter of the sliding-window paper's queue (§5): its fill
//! transient, collisions, and the queue's exact one-hash rates.

use super::*;

/// A QHT as a subfilter of the sliding-window paper's queue (§5): its
/// `FP_η` and `FN_η` after `η` insertions from empty, on a uniform stream
/// over `U` items, for [`crate::queue`]'s Theorems 5–8. Derived here: the
/// QHT paper's [`fp_m`] and [`fn_im`] assume full rows, while a queued
/// subfilter takes only `η ≤ c` insertions and spends its life filling up.
///
/// # Derivation
///
/// Let `p = 1/N`. An insertion carries a new item (not yet in the block)
/// with probability `ν_j = (1 − 1/U)^(j−1)` at the `j`-th insertion; a
/// repeat finds its fingerprint still in its row and changes nothing (it
/// would re-store a lost fingerprint, a correction of order
/// `η/U × FN`, below 2 % of `FN` for `η ≤ 10^4`, `U = 2^18`). So a given
/// row receives a new uniform fingerprint at step `j` with probability
/// `π_j = p·ν_j`, independently of the other steps.
///
/// *Occupancy.* Before the row is full, a fingerprint already in it changes
/// nothing and any other takes an empty cell, so the row's occupancy is the
/// pure-birth chain of [`fp_m_first_empty`]: `o → o + 1` with probability
/// `π_j·(1 − o/S)` for `o < k`. Its law `A_j` gives
/// `FP_η = E[o after η steps]/S` (an item outside the block has its
/// fingerprint, uniform and independent of the row, among the `o` stored).
///
/// *Loss.* Follow an element `e` of fingerprint `f`. Right after its
/// insertion `f` is in its row whatever the row held (found, or stored in
/// the first empty cell, or over a random cell of a full row): the row is in
/// state "present, occupancy `o`" with `o = o'` if `f` was already among the
/// `o' < k` stored (probability `o'/S`), `o = o' + 1` otherwise, and `o = k`
/// from a full row. Each later step brings a new fingerprint `g` to the row
/// with probability `π_j`:
///
/// - present, `o < k`: `g` stored already (`o/S`) changes nothing, else it
///   fills a cell: present, `o + 1`. **No loss while the row has room.**
/// - present, `o = k`: a `g` not stored (`1 − k/S`) overwrites a random
///   cell, `f`'s with probability `1/k`: absent.
/// - absent (the row is full): `g = f` (`1/S`) stores `f` again: present,
///   `k`; anything else keeps `f` out.
///
/// *Weighting.* The queue asks for `FN_η` given that the block of `η`
/// insertions holds the item; its latest occurrence is `t` steps before the
/// end with probability `∝ (1 − 1/U)^t`. With `V_η` the weighted sum over
/// the block's elements of their states,
///
/// ```text
/// V_j = (1 − 1/U)·T_j·V_(j−1) + I(A_j),   FN_η = V_η[absent] / Σ_(t<η) (1 − 1/U)^t,
/// ```
///
/// with `T_j` the step above and `I(A_j)` the state of the element inserted
/// at step `j`. One pass over `j = 1..=η_max` gives every `FP_η` and `FN_η`
/// in `O(η_max·k)`.
///
/// For `k = 1` a row is full as soon as `e` is stored, the fill transient
/// plays no part, and `FN_η` is the two-state chain of [`fn_im`] (which
/// differs only in the paper's `a` by a relative `1/(N·S)`). For `k > 1`
/// the full-row form overestimates the young filter's losses, just as
/// [`fp_m`] underestimates its false positives.
///
/// ```
/// use ddf_theory::qht::{QhtSubfilter, fn_im, fp_m_first_empty};
/// use ddf_theory::queue::SubfilterModel;
/// let (n, s) = (3333.0, 7.0);
/// let m = QhtSubfilter::new(n, 1, s, 2_000, f64::INFINITY);
/// assert!((m.false_positive(1500.0) - fp_m_first_empty(1500.0, n, 1.0, s)).abs() < 1e-12);
/// // k = 1: the uniform average of the full-row FN_{i,m} over the block.
/// let avg = (0..1000).map(|t| fn_im(0.0, t as f64, n, 1.0, s)).sum::<f64>() / 1000.0;
/// assert!((m.false_negative(1000.0) - avg).abs() < 1e-5);
/// // k = 4: nothing is lost while rows have room.
/// let roomy = QhtSubfilter::new(1000.0, 4, 15.0, 500, f64::INFINITY);
/// assert!(roomy.false_negative(500.0) < 0.2 * fn_im(0.0, 250.0, 1000.0, 4.0, 15.0));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct QhtSubfilter {
    fp: Vec<f64>,
    fn_: Vec<f64>,
}

impl QhtSubfilter {
    /// The model of a QHT of `rows` rows (`N ≥ 1`), `cells_per_row` cells
    /// (`k`, 1..=2^20) and `fingerprints` values (`S ≥ k`, `2^s − 1` with the
    /// default zero policy), for `0..=max_insertions` insertions (at most
    /// 2^26), on a uniform stream over `alphabet_size` items
    /// (`f64::INFINITY` for distinct items). Outside those ranges every
    /// probability is NaN.
    pub fn new(
        rows: f64,
        cells_per_row: usize,
        fingerprints: f64,
        max_insertions: u64,
        alphabet_size: f64,
    ) -> QhtSubfilter {
        let k = cells_per_row;
        let valid = rows >= 1.0
            && (1..=1 << 20).contains(&k)
            && fingerprints >= k as f64
            && max_insertions <= 1 << 26
            && alphabet_size >= 1.0;
        if !valid {
            return QhtSubfilter {
                fp: Vec::new(),
                fn_: Vec::new(),
            };
        }
        let (p, s, keep) = (1.0 / rows, fingerprints, 1.0 - 1.0 / alphabet_size);
        let len = max_insertions as usize + 1;
        let (mut fp, mut fn_) = (Vec::with_capacity(len), Vec::with_capacity(len));
        // occ[o]: occupancy law of a row, o = 0..=k.
        let mut occ = vec![0.0; k + 1];
        occ[0] = 1.0;
        // v[o − 1]: weighted "present, occupancy o", o = 1..=k; v[k]: absent.
        let mut v = vec![0.0; k + 1];
        let mut next = vec![0.0; k + 1];
        let (mut weight, mut new_item) = (0.0, 1.0);
        fp.push(0.0);
        fn_.push(0.0);
        for _ in 1..len {
            let pi = p * new_item;
            // Older elements take this step, then age by one.
            next.fill(0.0);
            for o in 1..k {
                let up = v[o - 1] * pi * (1.0 - o as f64 / s);
                next[o - 1] += v[o - 1] - up;
                next[o] += up;
            }
            let lose = v[k - 1] * pi * (1.0 - k as f64 / s) / k as f64;
            let regain = v[k] * pi / s;
            next[k - 1] += v[k - 1] - lose + regain;
            next[k] += v[k] + lose - regain;
            for (x, y) in v.iter_mut().zip(&next) {
                *x = keep * y;
            }
            // The element of this step: present, occupancy o' or o' + 1.
            for o in 0..k {
                let found = o as f64 / s;
                if o > 0 {
                    v[o - 1] += occ[o] * found;
                }
                v[o] += occ[o] * (1.0 - found);
            }
            v[k - 1] += occ[k];
            weight = keep * weight + 1.0;
            // The row's occupancy after this step.
            for o in (0..k).rev() {
                let up = occ[o] * pi * (1.0 - o as f64 / s);
                occ[o] -= up;
                occ[o + 1] += up;
            }
            let mean: f64 = occ.iter().enumerate().map(|(o, q)| o as f64 * q).sum();
            fp.push(mean / s);
            fn_.push(v[k] / weight);
            new_item *= keep;
        }
        QhtSubfilter { fp, fn_ }
    }

    /// The model of [`Qht::with_memory`](https://docs.rs/ddf-qht)`(bits, k, s)`
    /// with 0 kept for empty cells: `N = ⌊bits/(k·s)⌋` rows, `S = 2^s − 1`.
    pub fn for_memory(
        bits: f64,
        cells_per_row: usize,
        fingerprint_bits: u32,
        max_insertions: u64,
        alphabet_size: f64,
    ) -> QhtSubfilter {
        let rows = (bits / (cells_per_row as f64 * f64::from(fingerprint_bits))).floor();
        let values = 2f64.powi(fingerprint_bits.min(52) as i32) - 1.0;
        QhtSubfilter::new(rows, cells_per_row, values, max_insertions, alphabet_size)
    }

    /// Linear interpolation in a table of whole `η`; NaN outside it.
    fn at(table: &[f64], eta: f64) -> f64 {
        if !(eta >= 0.0 && eta <= (table.len() as f64 - 1.0)) {
            return f64::NAN;
        }
        let lo = eta.floor() as usize;
        let frac = eta - lo as f64;
        match table.get(lo + 1) {
            Some(hi) if frac > 0.0 => table[lo] * (1.0 - frac) + hi * frac,
            _ => table[lo],
        }
    }
}

impl crate::queue::SubfilterModel for QhtSubfilter {
    fn false_positive(&self, eta: f64) -> f64 {
        Self::at(&self.fp, eta)
    }

    fn false_negative(&self, eta: f64) -> f64 {
        Self::at(&self.fn_, eta)
    }
}

/// A one-cell-per-row QHT (`k = 1`) as a queue subfilter, **given** how many
/// items of the alphabet share the judged item's row: `colliders` (`a`)
/// with its fingerprint too, `others` (`b`) with another fingerprint. Derived
/// here; see [`queue_rates_fixed_hash`] for why the queue needs it.
///
/// With `k = 1` the row's cell holds the fingerprint of the row's last
/// arrival in the block, repeat or not (a found fingerprint is the cell's
/// value already). Stream positions other than the judged item `x` are
/// uniform over the `U − 1` other items, so each reaches the row with
/// probability `ρ = (a + b)/(U − 1)` and is a collider with probability
/// `a/(a + b)` when it does:
///
/// ```text
/// FP_η = a/(a + b) · (1 − (1 − ρ)^η)
/// FN_η = b/(a + b) · (1 − G(κ(1 − ρ), η)/G(κ, η)),   κ = 1 − 1/U,  G(y, η) = Σ_(t<η) y^t
/// ```
///
/// `FN_η` averages "a non-collider arrived after `x`'s latest occurrence,
/// `t` steps before the end" over `t` with weights `∝ κ^t`, as
/// [`QhtSubfilter`] does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QhtCollisions {
    /// `a/(a + b)`, 0 for an empty row.
    collider_share: f64,
    /// `ρ`, the chance that a position reaches the row.
    reach: f64,
    /// `κ = 1 − 1/U`.
    keep: f64,
}

impl QhtCollisions {
    /// The model given `a` colliders and `b` other items in the row, on a
    /// uniform stream over `alphabet_size` (`U > a + b`) items.
    pub fn new(colliders: f64, others: f64, alphabet_size: f64) -> QhtCollisions {
        let in_row = colliders + others;
        QhtCollisions {
            collider_share: if in_row > 0.0 {
                colliders / in_row
            } else {
                0.0
            },
            reach: in_row / (alphabet_size - 1.0),
            keep: 1.0 - 1.0 / alphabet_size,
        }
    }
}

/// `Σ_(t<η) y^t` for `y = 1 − one_minus_y`.
fn partial_geometric(one_minus_y: f64, eta: f64) -> f64 {
    if one_minus_y <= 0.0 {
        eta
    } else {
        one_minus_pow1m(one_minus_y, eta) / one_minus_y
    }
}

impl crate::queue::SubfilterModel for QhtCollisions {
    fn false_positive(&self, eta: f64) -> f64 {
        self.collider_share * one_minus_pow1m(self.reach, eta)
    }

    fn false_negative(&self, eta: f64) -> f64 {
        if eta <= 0.0 {
            return 0.0;
        }
        let u = 1.0 - self.keep;
        let slower = one_minus_product(u, self.reach);
        let kept = partial_geometric(slower, eta) / partial_geometric(u, eta);
        (1.0 - self.collider_share) * (1.0 - kept)
    }
}

/// Theorem 7's FPR and the corrected Theorem 8's FNR of a queue of `L`
/// one-cell-per-row QHTs (`k = 1`, `N` rows, `S` fingerprints) of `c`
/// insertions, on a uniform stream over `U` items, when every subfilter uses
/// **the same hash** of the item (a digest computed once). Derived here.
///
/// Theorems 5–8 multiply the subfilters' probabilities as if each drew the
/// item's row and fingerprint afresh. With one hash the alphabet's items keep
/// their rows and fingerprints in every subfilter: if many items share the
/// judged item's row and fingerprint, every subfilter is likely to report it,
/// so the subfilters' answers are positively correlated and the product
/// overstates the false positives (and understates `1 − FP`, hence the false
/// negatives). Conditioning on the number of colliders `a` and of other
/// items `b` in the row makes the subfilters independent again (the stream
/// positions are independent), so
///
/// ```text
/// FPR = E_(a,b)[FPR_Q(model_(a,b))],   FNR = E_(a,b)[FNR_Q(model_(a,b))]
/// ```
///
/// with [`QhtCollisions`] as `model_(a,b)`, `a ~ Binomial(U − 1, 1/(N·S))`
/// and, given `a`, `b ~ Binomial(U − 1 − a, (S − 1)/(N·S − 1))`. The
/// occurrence of the item and the `U − 1` others' rows are independent, so
/// averaging the rates is exact. As `U/(N·S) → ∞` the mixture concentrates
/// and the product form returns. The sum skips terms of probability below
/// 1e-10; its cost is `O(c·√(U/N)·√(U/(N·S)))` model evaluations. Returns
/// `(FPR, FNR)`; NaN unless `N ≥ 1`, `S ≥ 1`, `U ≥ 2`, `L ≥ 1`, `c ≥ 1`.
///
/// ```
/// use ddf_theory::qht::{QhtSubfilter, queue_rates_fixed_hash};
/// use ddf_theory::queue::fpr_queue;
/// // Ten QHTs of 333 rows, c = 500, on a uniform stream over 2^14: the
/// // shared hash correlates the subfilters and lowers the FPR.
/// let u = 2f64.powi(14);
/// let (fpr, _) = queue_rates_fixed_hash(333.0, 7.0, 10, 500, u);
/// let fresh = QhtSubfilter::new(333.0, 1, 7.0, 500, u);
/// assert!(fpr < fpr_queue(&fresh, 10, 500) - 0.01);
/// ```
pub fn queue_rates_fixed_hash(
    rows: f64,
    fingerprints: f64,
    subfilters: u64,
    capacity: u64,
    alphabet_size: f64,
) -> (f64, f64) {
    use crate::queue::{fnr_queue, fpr_queue};
    if !(rows >= 1.0 && fingerprints >= 1.0 && alphabet_size >= 2.0)
        || subfilters == 0
        || capacity == 0
    {
        return (f64::NAN, f64::NAN);
    }
    let others = (alphabet_size - 1.0).round() as u64;
    let p_a = 1.0 / (rows * fingerprints);
    let p_b = (fingerprints - 1.0) / (rows * fingerprints - 1.0).max(1.0);
    let (mut fpr, mut fnr, mut mass) = (0.0, 0.0, 0.0);
    let terms = |n: u64, p: f64| {
        // The indices of Binomial(n, p) with probability at least 1e-10.
        let mean = n as f64 * p;
        let spread = 7.0 * (mean * (1.0 - p)).sqrt() + 7.0;
        let lo = (mean - spread).max(0.0) as u64;
        let hi = ((mean + spread) as u64).min(n);
        (lo..=hi).filter_map(move |x| {
            let w = binomial_pmf(x, n, p.min(1.0));
            (w >= 1e-10).then_some((x, w))
        })
    };
    for (a, wa) in terms(others, p_a) {
        for (b, wb) in terms(others - a, p_b) {
            let model = QhtCollisions::new(a as f64, b as f64, alphabet_size);
            let w = wa * wb;
            fpr += w * fpr_queue(&model, subfilters, capacity);
            fnr += w * fnr_queue(&model, subfilters, capacity, alphabet_size);
            mass += w;
        }
    }
    (fpr / mass, fnr / mass)
}

/// Theorem 7 in closed form for a queue of `L` one-cell-per-row QHTs
/// (`k = 1`, `N` rows, `S` fingerprints, `c` insertions each) on a stream
/// of distinct items. Derived here.
///
/// With `k = 1` a row's cell holds the fingerprint of its last arrival, so
/// after `η` distinct insertions `FP_η = (1 − (1 − 1/N)^η)/S` (Theorem 4.1
/// with the row occupied). Theorem 7's mean over the newest subfilter's
/// fill, `(1/c)·Σ_(ℓ<c) (1 − FP_ℓ)`, is a geometric sum:
///
/// ```text
/// FPR = 1 − (1 − FP_c)^(L−1) · (1 − (1 − N·(1 − (1 − 1/N)^c)/c)/S)
/// ```
///
/// On distinct items the subfilters hold independent items, so the product
/// of Theorem 7 is exact even with one hash shared by the subfilters (the
/// correlation [`queue_rates_fixed_hash`] corrects needs repeats). `O(1)`
/// work; NaN unless `N ≥ 1`, `S ≥ 1`, `L ≥ 1`, `c ≥ 1`.
///
/// ```
/// use ddf_theory::qht::{QhtSubfilter, queue_fpr_one_cell};
/// use ddf_theory::queue::fpr_queue;
/// let sum = fpr_queue(&QhtSubfilter::new(700.0, 1, 255.0, 1000, f64::INFINITY), 8, 1000);
/// assert!((queue_fpr_one_cell(700.0, 255.0, 8, 1000) - sum).abs() < 1e-9);
/// ```
pub fn queue_fpr_one_cell(rows: f64, fingerprints: f64, subfilters: u64, capacity: u64) -> f64 {
    if !(rows >= 1.0 && fingerprints >= 1.0) || subfilters == 0 || capacity == 0 {
        return f64::NAN;
    }
    let (c, p) = (capacity as f64, 1.0 / rows);
    let fp_full = one_minus_pow1m(p, c) / fingerprints;
    let mean_fill = 1.0 - rows * one_minus_pow1m(p, c) / c;
    let mean_kept = 1.0 - mean_fill / fingerprints;
    1.0 - pow1m(fp_full, (subfilters - 1) as f64) * mean_kept
}
