//! A queue of one-cell-per-row QHTs (the queuing construction of the
//! sliding-window paper §5 over the QHT of the QHT paper §4): its shape for
//! a target within a budget ([`sized`]), its constructor from a shape
//! ([`build`]) and from a window and a rate ([`queued_qht`]).

use super::{MAX_SIZED_WINDOW, sized_window};
use crate::{Plan, Queue, check_shape};
use ddf_core::{ParamError, Prediction};
use ddf_qht::Qht;

/// The shape of a queue of one-cell-per-row QHTs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QhtQueueShape {
    /// Subfilters, `L`.
    pub subfilters: usize,
    /// Insertions per subfilter, `c`.
    pub capacity: u64,
    /// Rows `N` of each subfilter.
    pub rows: u64,
    /// Fingerprint bits `s` of each subfilter.
    pub fingerprint_bits: u32,
}

/// The seed of [`queued_qht`]'s subfilters (subfilter `i` gets `seed + i`).
const SEED: u64 = 0xddf0_5eed_0000_0001;

/// The most subfilters a queued QHT compares: the FPR grows with `L`, and
/// beyond 16 a budget of a few bits per item leaves rows too short.
const MAX_QUEUED_QHT_SUBFILTERS: u64 = 16;

/// `L` one-cell-per-row QHTs of `N` rows and `s`-bit fingerprints, `c`
/// insertions each, subfilter `i` seeded with `seed + i`.
///
/// ```
/// use ddf_queue::qht::{QhtQueueShape, build};
/// let shape = QhtQueueShape { subfilters: 4, capacity: 250, rows: 512, fingerprint_bits: 12 };
/// let queue = build(shape, 7)?;
/// assert_eq!(queue.subfilters(), 4);
/// # Ok::<(), ddf_queue::ParamError>(())
/// ```
pub fn build(shape: QhtQueueShape, seed: u64) -> Result<Queue<Qht>, ParamError> {
    Queue::new(shape.subfilters, shape.capacity, |i| {
        Ok(Qht::new(shape.rows, 1, shape.fingerprint_bits)?.with_seed(seed.wrapping_add(i as u64)))
    })
}

/// A queue of one-cell-per-row QHTs for a window of `window` insertions
/// (1..=2^20) whose predicted false-positive **and** false-negative rates
/// are both at most `fpr` (in `(0, 1)`), on a uniform stream of distinct
/// items.
///
/// A QHT forgets by overwriting, so the least memory that meets a
/// false-positive target alone is degenerate (one row per subfilter: every
/// item in the window forgotten); bounding the misses too is what makes the
/// size meaningful. The rule is [`sized`]'s, applied to the least budget,
/// found by doubling and then bisection to 1 %, at which its prediction also
/// has `FNR ≤ fpr`. The work is at most about 16 evaluations of that rule
/// (below 0.1 s at `window = 4000` in a test build).
///
/// Fails (parameter `window` or `fpr`) outside those ranges, or when no
/// budget below the exact window's state, `w·(log₂ w + 128)` bits
/// ([`exact_memory_bits`](ddf_theory::sliding_window::exact_memory_bits)
/// for 64-bit digests), gives both rates: an exact filter is then smaller
/// and makes no errors.
///
/// ```
/// use ddf_queue::{DuplicateFilter, qht::queued_qht};
/// let f = queued_qht(1000, 0.05)?;
/// assert!(f.memory_bits() > 0);
/// # Ok::<(), ddf_queue::ParamError>(())
/// ```
pub fn queued_qht(window: u64, fpr: f64) -> Result<Queue<Qht>, ParamError> {
    let w = ddf_param::ensure_range("window", window, 1..=MAX_SIZED_WINDOW)?;
    let fpr = ddf_param::ensure_probability("fpr", fpr)?;
    // The rule's shape at `budget`, when it meets both rates.
    let meets = |budget: u64| {
        let (shape, p) = sized(w, fpr, budget, None).ok()?;
        (p.fnr <= fpr && p.fpr <= fpr).then_some(shape)
    };
    // Beyond the exact window's state (Theorem 1 over 64-bit digests) an
    // exact filter, with no errors at all, is the smaller choice.
    let exact = ddf_theory::sliding_window::exact_memory_bits(w as f64, 2f64.powi(64)) as u64;
    // Doubling from one bit per window item: the least power of two that
    // meets both rates bounds the search.
    let mut hi = w;
    let mut best = loop {
        if let Some(shape) = meets(hi.min(exact)) {
            hi = hi.min(exact);
            break shape;
        }
        if hi >= exact {
            return Err(ParamError::new(
                "fpr",
                fpr,
                format!(
                    "a rate a queue of QHTs reaches for both false positives and false \
                     negatives in less than the {exact} bits of the exact window of {w} \
                     items (the exact window, which makes no errors)"
                ),
            ));
        }
        hi *= 2;
    };
    let mut lo = hi / 2;
    // To 1 %, or to one bit for small budgets (hi/100 = 0 would not end).
    while hi - lo > (hi / 100).max(1) {
        let mid = lo + (hi - lo) / 2;
        match meets(mid) {
            Some(shape) => {
                hi = mid;
                best = shape;
            }
            None => lo = mid,
        }
    }
    build(best, SEED)
}

/// A queue of one-cell-per-row QHTs for a count window of `window`
/// insertions (1..=[`MAX_SIZED_WINDOW`]) within `memory_bits` and meeting
/// `fpr`: for every `L`, the narrowest fingerprint whose Theorem 7 rate on
/// distinct items ([`queue_fpr_one_cell`](ddf_theory::qht::queue_fpr_one_cell),
/// exact there) meets `fpr`; among those, the `L` with the least predicted
/// `FPR + FNR` (the FNR from the product of Theorems 5–8 with
/// [`QhtSubfilter`](ddf_theory::qht::QhtSubfilter)). The FNR predicted is
/// [`queue_rates_fixed_hash`](ddf_theory::qht::queue_rates_fixed_hash)'s
/// when the distinct items of the stream are known (`distinct_items`) and
/// its sum is small, the product's otherwise.
///
/// ```
/// use ddf_queue::qht::sized;
/// let (shape, p) = sized(10_000, 0.01, 400_000, None)?;
/// assert!(p.fpr <= 0.01 && p.memory_bits <= 400_000);
/// assert!(shape.subfilters as u64 * shape.capacity >= 10_000);
/// # Ok::<(), ddf_queue::ParamError>(())
/// ```
pub fn sized(
    window: u64,
    fpr: f64,
    memory_bits: u64,
    distinct_items: Option<f64>,
) -> Result<(QhtQueueShape, Prediction), ParamError> {
    use ddf_theory::qht::{QhtSubfilter, queue_fpr_one_cell, queue_rates_fixed_hash};
    use ddf_theory::queue::{capacity_for_window, fnr_queue};
    let w = sized_window(window)?;
    let alphabet = distinct_items.unwrap_or(2f64.powi(64));
    let values = Qht::fingerprint_values;
    // (ER, L, c, N, s, FPR, FNR) of the best L so far.
    let mut best: Option<(f64, u64, u64, u64, u32, f64, f64)> = None;
    for l in 2..=MAX_QUEUED_QHT_SUBFILTERS.min(w.max(2)) {
        let c = capacity_for_window(w, l);
        if check_shape(l as usize, c).is_err() {
            continue;
        }
        let fits = (1..=32u32).find_map(|s| {
            let rows = memory_bits / l / u64::from(s);
            Qht::sizing(rows, 1, s, alphabet).ok()?;
            let rate = queue_fpr_one_cell(rows as f64, values(s), l, c);
            (rate <= fpr).then_some((rows, s, rate))
        });
        let Some((rows, s, rate)) = fits else {
            continue;
        };
        let model = QhtSubfilter::new(rows as f64, 1, values(s), c, alphabet);
        let fnr = fnr_queue(&model, l, c, alphabet);
        if fnr.is_finite() && best.is_none_or(|b| rate + fnr < b.0) {
            best = Some((rate + fnr, l, c, rows, s, rate, fnr));
        }
    }
    let (_, l, c, rows, s, rate, mut fnr) = best.ok_or_else(|| {
        ParamError::new(
            "fpr",
            fpr,
            format!(
                "a rate some L ≤ {MAX_QUEUED_QHT_SUBFILTERS} and fingerprint ≤ 32 bits meet \
                 within {memory_bits} bits"
            ),
        )
    })?;
    if let Some(u) = distinct_items {
        // The fixed-hash mixture sums about (14√(U/N) + 15)·(14√(U/(N·S)) + 15)
        // terms of O(c) each; keep it below 2^26 model steps.
        let (n, sv) = (rows as f64, values(s));
        let terms = (14.0 * (u / n).sqrt() + 15.0) * (14.0 * (u / (n * sv)).sqrt() + 15.0);
        if terms * c as f64 <= f64::from(1u32 << 26) {
            fnr = queue_rates_fixed_hash(n, sv, l, c, u).1;
        }
    }
    let sub = Qht::sizing(rows, 1, s, alphabet)?;
    let plan = Plan {
        subfilters: l as usize,
        capacity: c,
        subfilter_bits: sub.memory_bits,
        predicted_fpr: rate,
        predicted_fnr: fnr,
    };
    // Every subfilter's row read, the newest's written: a QHT's accesses each.
    let p = plan.prediction(w, sub.memory_bits, sub.accesses, sub.accesses);
    let shape = QhtQueueShape {
        subfilters: l as usize,
        capacity: c,
        rows,
        fingerprint_bits: s,
    };
    Ok((shape, p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ddf_core::{Digest, DuplicateFilter, Window, Windowed};

    #[test]
    fn bad_input_is_named() {
        let param = |r: Result<Queue<Qht>, ParamError>| r.unwrap_err().param();
        assert_eq!(param(queued_qht(0, 0.01)), "window");
        assert_eq!(param(queued_qht(MAX_SIZED_WINDOW + 1, 0.01)), "window");
        assert_eq!(param(queued_qht(1000, 0.0)), "fpr");
        assert_eq!(param(queued_qht(1000, 1.5)), "fpr");
        assert_eq!(
            sized(MAX_SIZED_WINDOW + 1, 0.01, 1 << 20, None)
                .unwrap_err()
                .param(),
            "window"
        );
        assert_eq!(sized(1000, 0.01, 0, None).unwrap_err().param(), "fpr");
        // Small windows end (a budget search to one bit) with a queue or
        // a named error.
        for w in 1..=40 {
            if let Err(e) = queued_qht(w, 0.3) {
                assert_eq!(e.param(), "fpr", "w = {w}");
            }
        }
    }

    #[test]
    fn measured_rates_are_within_the_target() {
        // Distinct items; every step a fresh item is queried (a false
        // positive if reported) and, every 7th step, an item of the window
        // at an age spread evenly over 1..=w (a false negative if missed).
        // Both counts stay below the binomial's 10^-6 upper quantile at the
        // target.
        let (w, fpr) = (1_000u64, 0.05);
        let mut f = queued_qht(w, fpr).unwrap();
        // The queue's window is c·L ≥ w insertions (the sizing's model,
        // Theorems 7 and 8).
        assert!(matches!(f.window(), Window::Count(len) if len >= w));
        let steps = 40 * w;
        let (mut fp, mut fn_, mut repeats) = (0, 0, 0);
        for i in 0..steps {
            fp += u64::from(f.contains(Digest::mixed(i | 1 << 63)));
            if i % 7 == 0 && i >= w {
                repeats += 1;
                let age = 1 + (i * 7_919) % w;
                fn_ += u64::from(!f.contains(Digest::mixed(i - age)));
            }
            f.insert(Digest::mixed(i));
        }
        let q = ddf_theory::stats::binomial_upper_quantile;
        assert!(fp <= q(steps, fpr, 1e-6), "{fp} false positives in {steps}");
        assert!(fn_ <= q(repeats, fpr, 1e-6), "{fn_} misses in {repeats}");
    }
}
