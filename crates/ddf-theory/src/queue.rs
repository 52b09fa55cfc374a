//! The queuing construction: error rates of `L` subfilters of `c` insertions
//! each, the optimal `L`, and the adversarial bounds.
//!
//! Source: Géraud-Stewart, Lombard-Platet, Naccache, *Approaching Optimal
//! Duplicate Detection in a Sliding Window*, §5 (Theorems 5–8, §5.4) and §7
//! (Theorems 9–10).
//!
//! Symbols: `L` subfilters (`subfilters`), each allowed `c` insertions
//! (`capacity`), window `w = c·L`; `FP_η`, `FN_η` the subfilter's
//! false-positive and false-negative probabilities after `η` insertions, given
//! as a [`SubfilterModel`] so any family with a theory plugs in; `|Γ|` the
//! alphabet (`alphabet_size`) of the uniform stream; `p_η` the probability
//! that a duplicate's earlier occurrence lies in a given sub-window of `η`
//! items; `u_η = p_η·FN_η + (1 − p_η)·(1 − FP_η)` the probability that a
//! subfilter answers UNSEEN for a window duplicate.
//!
//! Theorem 6 (and with it Theorem 8) multiplies the *conditional*
//! probabilities `u_η` of the subfilters as if each held the item
//! independently of the others. Given that the item occurred in the window,
//! the events are not independent (at least one sub-window holds it), and the
//! product keeps a term for "no subfilter holds it" that cannot happen: a
//! queue of perfect subfilters gets `FN ≈ (1 − 1/L)^(L−1) ≈ e^(−1)` instead
//! of the true `(c − r)/w` (the share of the window already dropped with the
//! oldest subfilter). [`fn_queue`] and [`fnr_queue`] condition correctly;
//! [`fn_queue_as_printed`] and [`fnr_queue_as_printed`] keep the paper's
//! formulas for comparison (see `docs/errata.md`).

use crate::numerics::{Minimum, argmin_int, one_minus_pow1m, pow1m};

/// A subfilter's error probabilities as functions of its insertions `η`,
/// on a uniform stream.
pub trait SubfilterModel {
    /// `FP_η`: probability that an unseen item is reported as a duplicate
    /// after `η` insertions.
    fn false_positive(&self, eta: f64) -> f64;
    /// `FN_η`: probability that an item stored within the last `η`
    /// insertions is reported as unseen.
    fn false_negative(&self, eta: f64) -> f64;
}

/// A model from two closures `(FP_η, FN_η)`.
impl<F, G> SubfilterModel for (F, G)
where
    F: Fn(f64) -> f64,
    G: Fn(f64) -> f64,
{
    fn false_positive(&self, eta: f64) -> f64 {
        (self.0)(eta)
    }
    fn false_negative(&self, eta: f64) -> f64 {
        (self.1)(eta)
    }
}

/// `p_η = (1 − (1 − 1/|Γ|)^η) / (1 − (1 − 1/|Γ|)^w) ≈ η/w` (Theorem 6):
/// given that an item has an earlier occurrence among the last `w`, the
/// probability that it lies in a given sub-window of `η` items.
pub fn sub_window_probability(eta: f64, w: f64, alphabet_size: f64) -> f64 {
    let q = 1.0 / alphabet_size;
    one_minus_pow1m(q, eta) / one_minus_pow1m(q, w)
}

/// `u_η = p_η·FN_η + (1 − p_η)·(1 − FP_η)` (Theorem 6).
pub fn u_eta<M: SubfilterModel + ?Sized>(model: &M, eta: f64, w: f64, alphabet_size: f64) -> f64 {
    let p = sub_window_probability(eta, w, alphabet_size);
    p * model.false_negative(eta) + (1.0 - p) * (1.0 - model.false_positive(eta))
}

/// Theorem 5: `FP_{Q,m} = 1 − (1 − FP_c)^(L−1)·(1 − FP_{m mod c})`, the
/// false-positive probability after `m > w` insertions.
pub fn fp_queue<M: SubfilterModel + ?Sized>(
    model: &M,
    subfilters: u64,
    capacity: u64,
    m: u64,
) -> f64 {
    let full = 1.0 - model.false_positive(capacity as f64);
    1.0 - full.powf(subfilters as f64 - 1.0) * (1.0 - model.false_positive((m % capacity) as f64))
}

/// Theorem 6 as printed: `FN_{Q,m} = u_c^(L−1)·u_{m mod c}`, with
/// `w = c·L`. Overestimates the false-negative probability; see the module
/// documentation and [`fn_queue`].
pub fn fn_queue_as_printed<M: SubfilterModel + ?Sized>(
    model: &M,
    subfilters: u64,
    capacity: u64,
    m: u64,
    alphabet_size: f64,
) -> f64 {
    let w = (capacity * subfilters) as f64;
    let uc = u_eta(model, capacity as f64, w, alphabet_size);
    uc.powf(subfilters as f64 - 1.0) * u_eta(model, (m % capacity) as f64, w, alphabet_size)
}

/// The false-negative probability of the queue after `m > w` insertions,
/// `w = c·L`, conditioned correctly (the corrected Theorem 6).
///
/// The newest subfilter holds `r = m mod c` items, the `L − 1` others `c`
/// each, and the oldest `c − r` items of the window were dropped with the
/// last rotation. Block `i` of `η_i` items holds an earlier occurrence of the
/// item with probability `q_i = 1 − (1 − 1/|Γ|)^(η_i)`, independently across
/// blocks on a uniform stream; a subfilter that holds it answers UNSEEN with
/// probability `FN_(η_i)`, one that does not with `1 − FP_(η_i)`. Conditioning
/// on at least one occurrence in the window (probability `q_w`):
///
/// `FN = [Π_i (q_i·FN_i + (1 − q_i)(1 − FP_i)) − (1 − q_drop)·Π_i (1 − q_i)(1 − FP_i)] / q_w`.
///
/// The difference is evaluated in log space (`ln_1p`, `exp_m1`): for
/// `|Γ| ≫ w` both products are within `w/|Γ|` of each other.
pub fn fn_queue<M: SubfilterModel + ?Sized>(
    model: &M,
    subfilters: u64,
    capacity: u64,
    m: u64,
    alphabet_size: f64,
) -> f64 {
    let queue = Phases::new(model, subfilters, capacity, alphabet_size);
    let r = m % capacity;
    queue.fn_at(&Block::new(model, r as f64, alphabet_size), r)
}

/// One sub-window's contribution: `a = 1 − FP_η`, `b = FN_η`, `q = 1 − (1 − 1/|Γ|)^η`.
#[derive(Debug, Clone, Copy)]
struct Block {
    a: f64,
    b: f64,
    q: f64,
}

impl Block {
    fn new<M: SubfilterModel + ?Sized>(model: &M, eta: f64, alphabet_size: f64) -> Block {
        Block {
            a: 1.0 - model.false_positive(eta),
            b: model.false_negative(eta),
            q: one_minus_pow1m(1.0 / alphabet_size, eta),
        }
    }

    /// `(ln(1 + q(b − a)/a), ln(1 − q))`, the block's terms of the log-space
    /// form of [`fn_queue`].
    fn logs(&self) -> (f64, f64) {
        (
            (self.q * (self.b - self.a) / self.a).ln_1p(),
            (-self.q).ln_1p(),
        )
    }

    /// `q·b + (1 − q)·a`: the block answers UNSEEN for an item.
    fn term(&self) -> f64 {
        self.q * self.b + (1.0 - self.q) * self.a
    }

    /// `(1 − q)·a`: the block holds no occurrence and answers UNSEEN.
    fn none(&self) -> f64 {
        (1.0 - self.q) * self.a
    }
}

/// What [`fn_queue`] computes once per queue and reuses at every phase `r`:
/// the `L − 1` full blocks' terms and the window's `q_w`. Planning sums the
/// phases of every candidate `L`, so this is its inner loop.
struct Phases {
    full: Block,
    capacity: u64,
    alphabet_size: f64,
    q_window: f64,
    /// `(Σ ln(1 + q(b − a)/a), Σ ln(1 − q), a^(L−1))` over the full blocks,
    /// when `a > 0`.
    logs: Option<(f64, f64, f64)>,
    /// `(term^(L−1), none^(L−1))` over the full blocks.
    products: (f64, f64),
}

impl Phases {
    fn new<M: SubfilterModel + ?Sized>(
        model: &M,
        subfilters: u64,
        capacity: u64,
        alphabet_size: f64,
    ) -> Phases {
        let full = Block::new(model, capacity as f64, alphabet_size);
        let older = subfilters as f64 - 1.0;
        let logs = (full.a > 0.0).then(|| {
            let (fa, fb) = full.logs();
            (older * fa, older * fb, full.a.powf(older))
        });
        Phases {
            full,
            capacity,
            alphabet_size,
            q_window: one_minus_pow1m(1.0 / alphabet_size, (capacity * subfilters) as f64),
            logs,
            products: (full.term().powf(older), full.none().powf(older)),
        }
    }

    /// `FN` at phase `r`, the newest block (`r` items) given.
    fn fn_at(&self, newest: &Block, r: u64) -> f64 {
        let q_drop = one_minus_pow1m(1.0 / self.alphabet_size, (self.capacity - r) as f64);
        match self.logs {
            Some((fa, fb, full_pow)) if newest.a > 0.0 => {
                // Π a_i · (e^A − e^B) with A = Σ ln(1 + q_i(b_i − a_i)/a_i) and
                // B = Σ ln(1 − q_i) + ln(1 − q_drop), as Π a_i · e^B · expm1(A − B).
                let (na, nb) = newest.logs();
                let a = fa + na;
                let b = fb + nb + (-q_drop).ln_1p();
                full_pow * newest.a * b.exp() * (a - b).exp_m1() / self.q_window
            }
            _ => {
                // Some subfilter always answers DUPLICATE: the "none" term vanishes.
                let (term, none) = self.products;
                (term * newest.term() - none * newest.none() * (1.0 - q_drop)) / self.q_window
            }
        }
    }
}

/// Theorem 7: `FPR = 1 − (1 − FP_c)^(L−1)/c · Σ_{ℓ=0}^{c−1} (1 − FP_ℓ)`,
/// the false-positive rate over a whole number of rotations.
pub fn fpr_queue<M: SubfilterModel + ?Sized>(model: &M, subfilters: u64, capacity: u64) -> f64 {
    let full = 1.0 - model.false_positive(capacity as f64);
    let mean: f64 = (0..capacity)
        .map(|l| 1.0 - model.false_positive(l as f64))
        .sum::<f64>()
        / capacity as f64;
    1.0 - full.powf(subfilters as f64 - 1.0) * mean
}

/// Theorem 8 as printed: `FNR = u_c^(L−1)/c · Σ_{ℓ=0}^{c−1} u_ℓ`, with
/// `w = c·L`. Inherits the overestimate of [`fn_queue_as_printed`].
pub fn fnr_queue_as_printed<M: SubfilterModel + ?Sized>(
    model: &M,
    subfilters: u64,
    capacity: u64,
    alphabet_size: f64,
) -> f64 {
    let w = (capacity * subfilters) as f64;
    let uc = u_eta(model, capacity as f64, w, alphabet_size);
    let mean: f64 = (0..capacity)
        .map(|l| u_eta(model, l as f64, w, alphabet_size))
        .sum::<f64>()
        / capacity as f64;
    uc.powf(subfilters as f64 - 1.0) * mean
}

/// The false-negative rate over a whole number of rotations: the mean of
/// [`fn_queue`] over the `c` phases `r = m mod c` (the corrected Theorem 8).
/// A duplicate is equally likely at every phase of a long uniform stream, so
/// the rate is the plain mean of the probabilities.
pub fn fnr_queue<M: SubfilterModel + ?Sized>(
    model: &M,
    subfilters: u64,
    capacity: u64,
    alphabet_size: f64,
) -> f64 {
    let queue = Phases::new(model, subfilters, capacity, alphabet_size);
    (0..capacity)
        .map(|r| queue.fn_at(&Block::new(model, r as f64, alphabet_size), r))
        .sum::<f64>()
        / capacity as f64
}

/// `ER = FPR + FNR` of Theorem 7 and the corrected Theorem 8 (§5.4), in one
/// pass over the phases: the newest block's `FP_r` serves both sums.
pub fn er_queue<M: SubfilterModel + ?Sized>(
    model: &M,
    subfilters: u64,
    capacity: u64,
    alphabet_size: f64,
) -> f64 {
    let queue = Phases::new(model, subfilters, capacity, alphabet_size);
    let (mut unseen, mut missed) = (0.0, 0.0);
    for r in 0..capacity {
        let newest = Block::new(model, r as f64, alphabet_size);
        unseen += newest.a;
        missed += queue.fn_at(&newest, r);
    }
    let c = capacity as f64;
    let fpr = 1.0 - queue.full.a.powf(subfilters as f64 - 1.0) * (unseen / c);
    fpr + missed / c
}

/// The subfilter capacity for a window `w` split over `L` subfilters:
/// `c = ⌈w/L⌉`, so the queue spans at least the window (`c·L ≥ w`); the
/// theorems assume `w = c·L`, and the paper's remarks after Theorems 5 and 6
/// show the difference for `c·L − w < L` is negligible when `|Γ| ≫ w`.
pub fn capacity_for_window(w: u64, subfilters: u64) -> u64 {
    w.div_ceil(subfilters.max(1)).max(1)
}

/// §5.4: the number of subfilters `L` in `1..=max_subfilters` that minimises
/// the predicted `ER` of a queue over window `w` with `memory_bits` in all,
/// each subfilter getting `memory_bits / L` bits and `c = ⌈w/L⌉` insertions.
///
/// `model_for(b, c)` gives the error model of a subfilter of `b` bits that
/// takes `c` insertions (filters sized by their window need `c`). The
/// paper solves the derivative of `ER(L)` numerically; since `L` is an
/// integer and `ER(L)` need not be unimodal, every `L` is evaluated (cost
/// `O(w·ln L)` in all).
pub fn optimal_subfilters<M, F>(
    w: u64,
    memory_bits: f64,
    max_subfilters: u64,
    alphabet_size: f64,
    model_for: F,
) -> Option<Minimum<u64, f64>>
where
    M: SubfilterModel,
    F: Fn(f64, u64) -> M,
{
    argmin_int(1..=max_subfilters.max(1), |l| {
        let c = capacity_for_window(w, l);
        er_queue(&model_for(memory_bits / l as f64, c), l, c, alphabet_size)
    })
}

/// Theorem 9: if each subfilter is `(p, c)`-resistant to adversarial false
/// positives and `c·L ≤ w`, the queue is `(1 − (1 − p)^L, w)`-resistant; if
/// `c·L > w`, an adversary succeeds with probability at least this value.
pub fn fp_attack_bound(p: f64, subfilters: u64) -> f64 {
    one_minus_pow1m(p, subfilters as f64)
}

/// Theorem 10, first part: an adversary wins the false-negative game against
/// a queue of `(p, c)`-resistant subfilters with probability at least `p^L`.
pub fn fn_attack_lower_bound(p: f64, subfilters: u64) -> f64 {
    p.powf(subfilters as f64)
}

/// Theorem 10, second part: the queue's resistance to false-negative attacks
/// on window `w`, with `p` the subfilter's false-negative resistance and `q`
/// a lower bound on its false-positive probability:
/// `max(1 − q, p)^(L−1)·p` if `w ≤ (L−1)·c`, else `max(1 − q, p)^L`.
///
/// The theorem as printed has `min` in the first case, but its proof bounds
/// every subfilter without the item by `max(p, 1 − q)` and the one holding
/// it by `p`; `min` would not be an upper bound on the adversary's success
/// (see `docs/errata.md`).
pub fn fn_attack_bound(p: f64, q: f64, subfilters: u64, capacity: u64, w: u64) -> f64 {
    let worst = (1.0 - q).max(p);
    if w <= (subfilters - 1) * capacity {
        worst.powf(subfilters as f64 - 1.0) * p
    } else {
        worst.powf(subfilters as f64)
    }
}

/// Probability that an item absent from the last `w` insertions occurred in
/// the `δ = c·L − w` insertions before them (remark after Theorem 5):
/// `1 − (1 − 1/|Γ|)^δ`, the source of the small bias when `c·L > w`.
pub fn beyond_window_probability(
    capacity: u64,
    subfilters: u64,
    w: u64,
    alphabet_size: f64,
) -> f64 {
    let delta = (capacity * subfilters).saturating_sub(w) as f64;
    1.0 - pow1m(1.0 / alphabet_size, delta)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    /// A perfect subfilter: no FP, no FN.
    fn perfect() -> (impl Fn(f64) -> f64, impl Fn(f64) -> f64) {
        (|_| 0.0, |_| 0.0)
    }

    #[test]
    fn perfect_subfilters_miss_only_the_dropped_share() {
        let m = perfect();
        let (l, c) = (10u64, 100u64);
        assert_eq!(fpr_queue(&m, l, c), 0.0);
        // Only an occurrence in the c − r dropped items is missed:
        // FN = (c − r)/w, whose mean over r is (c + 1)/(2w).
        for r in [0u64, 1, 50, 99] {
            assert_relative_eq!(
                fn_queue(&m, l, c, 7 * c + r, 1e12),
                (c - r) as f64 / (c * l) as f64,
                max_relative = 1e-6
            );
        }
        assert_relative_eq!(
            fnr_queue(&m, l, c, 1e12),
            (c + 1) as f64 / (2 * c * l) as f64,
            max_relative = 1e-6
        );
        // The printed Theorem 8 gives about (1 − 1/L)^(L−1), near 1/e.
        let printed = fnr_queue_as_printed(&m, l, c, 1e12);
        assert!((0.35..0.40).contains(&printed), "{printed}");
    }

    #[test]
    fn corrected_and_direct_evaluations_agree() {
        // With FP = 1 somewhere the direct branch is used; compare both
        // branches on a model where FP is just below 1.
        let near = (|_: f64| 1.0 - 1e-9, |_: f64| 0.3);
        let at = (|_: f64| 1.0, |_: f64| 0.3);
        let (a, b) = (
            fn_queue(&near, 4, 50, 210, 1e4),
            fn_queue(&at, 4, 50, 210, 1e4),
        );
        assert!((a - b).abs() < 1e-6, "{a} {b}");
    }

    #[test]
    fn rates_are_averages_of_probabilities() {
        let model = (
            |eta: f64| 0.1 * (1.0 - (-eta / 500.0).exp()),
            |eta: f64| 0.2 * eta / (eta + 100.0),
        );
        let (l, c, u) = (5u64, 200u64, 1e6);
        let fpr: f64 = (0..c)
            .map(|m| fp_queue(&model, l, c, 10 * c + m))
            .sum::<f64>()
            / c as f64;
        assert_relative_eq!(fpr, fpr_queue(&model, l, c), max_relative = 1e-12);
        let fnr: f64 = (0..c)
            .map(|m| fn_queue(&model, l, c, 10 * c + m, u))
            .sum::<f64>()
            / c as f64;
        assert_relative_eq!(fnr, fnr_queue(&model, l, c, u), max_relative = 1e-12);
        // The one-pass sum of planning, on this model and on one whose
        // subfilters always answer DUPLICATE (the direct branch).
        assert_relative_eq!(er_queue(&model, l, c, u), fpr + fnr, max_relative = 1e-12);
        let saturated = (|_: f64| 1.0, |eta: f64| 0.2 * eta / (eta + 100.0));
        assert_relative_eq!(
            er_queue(&saturated, l, c, u),
            fpr_queue(&saturated, l, c) + fnr_queue(&saturated, l, c, u),
            max_relative = 1e-12
        );
        let printed: f64 = (0..c)
            .map(|m| fn_queue_as_printed(&model, l, c, 10 * c + m, u))
            .sum::<f64>()
            / c as f64;
        assert_relative_eq!(
            printed,
            fnr_queue_as_printed(&model, l, c, u),
            max_relative = 1e-12
        );
    }

    #[test]
    fn sub_window_probability_is_about_eta_over_w() {
        assert_relative_eq!(
            sub_window_probability(100.0, 1000.0, 1e12),
            0.1,
            max_relative = 1e-6
        );
        assert_relative_eq!(sub_window_probability(1000.0, 1000.0, 50.0), 1.0);
    }

    #[test]
    fn optimal_l_balances_fp_and_fn() {
        // A toy family: FP grows with load per bit, FN with it too.
        let for_bits = |bits: f64, _c: u64| {
            (
                move |eta: f64| (eta / bits).min(1.0) * 0.5,
                move |eta: f64| (eta / (4.0 * bits)).min(1.0),
            )
        };
        let best = optimal_subfilters(10_000, 1e5, 40, 1e9, for_bits).unwrap();
        assert!((1..=40).contains(&best.arg));
        let er = |l: u64| {
            let m = for_bits(1e5 / l as f64, 0);
            er_queue(&m, l, capacity_for_window(10_000, l), 1e9)
        };
        assert!((1..=40).all(|l| er(l) >= best.value - 1e-15));
    }

    #[test]
    fn adversarial_bounds() {
        assert_relative_eq!(fp_attack_bound(0.1, 3), 1.0 - 0.9f64.powi(3));
        assert_relative_eq!(fn_attack_lower_bound(0.5, 3), 0.125);
        // w ≤ (L−1)c: one subfilter holds the item.
        assert_relative_eq!(fn_attack_bound(0.2, 0.1, 4, 100, 300), 0.9f64.powi(3) * 0.2);
        assert_relative_eq!(fn_attack_bound(0.2, 0.1, 4, 100, 350), 0.9f64.powi(4));
        assert_eq!(capacity_for_window(1000, 3), 334);
        assert!(beyond_window_probability(334, 3, 1000, 1e6) < 3e-6);
    }
}
