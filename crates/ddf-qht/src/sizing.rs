//! Sizing without building (QHT paper §4): what a QHT of `N` rows of `k`
//! cells of `s` bits costs and gets wrong on a uniform stream, and the
//! `(N, k, s)` a budget asks for.

use crate::quotient::check_params;
use crate::{Qht, Qhtd, Qqhtd};
use ddf_core::{ParamError, Prediction};
use ddf_theory::qht::{
    fnr_inf, fnr_inf_limit, fpr_inf, qhtd_fnr_inf_limit, qhtd_fpr_inf, qqhtd_fpr_inf,
};

/// The cells per row a budget search tries (`k ≤ 8`: wider rows only trade
/// false positives for misses, QHT paper §6) and the fingerprint widths
/// (`s ≤ 32`, all the filter takes).
const SEARCH_MAX_K: usize = 8;
const SEARCH_MAX_S: u32 = 32;

impl Qht {
    /// The fingerprint values `S` of `s`-bit cells under the default zero
    /// policy, which keeps 0 for empty cells: `2^s − 1` (QHT paper §3.2).
    pub fn fingerprint_values(fingerprint_bits: u32) -> f64 {
        2f64.powi(fingerprint_bits as i32) - 1.0
    }

    /// What [`new`](Qht::new)`(rows, cells_per_row, fingerprint_bits)`
    /// predicts once it has seen a long uniform stream over
    /// `distinct_items` items (`U ≥ 1`), without building it: `N·k·s` bits,
    /// `FPR_∞ = k/S` (Theorem 4.1) and `FNR_∞` (Theorem 4.2, for `U`), with
    /// `S = 2^s − 1` (0 marks an empty cell); no slack, since it answers for
    /// the whole stream; one access (a row of at most 4096 cells, read and
    /// written in place). Fails as `new` does, or (parameter
    /// `distinct_items`) for `U` not finite and ≥ 1.
    pub fn sizing(
        rows: u64,
        cells_per_row: usize,
        fingerprint_bits: u32,
        distinct_items: f64,
    ) -> Result<Prediction, ParamError> {
        check_params(rows, cells_per_row, fingerprint_bits)?;
        let rows = ddf_param::ensure_positive("rows", rows)?;
        let cells = ddf_param::checked_mul("rows", rows, cells_per_row as u64)?;
        let bits = ddf_param::checked_mul("rows", cells, u64::from(fingerprint_bits))?;
        ddf_param::state_words("rows", bits)?;
        if !(distinct_items.is_finite() && distinct_items >= 1.0) {
            return Err(ParamError::new(
                "distinct_items",
                distinct_items,
                "a finite count ≥ 1",
            ));
        }
        let values = Self::fingerprint_values(fingerprint_bits);
        let k = cells_per_row as f64;
        Ok(
            Prediction::exact_window(bits, fpr_inf(k, values), 1.0).with_misses(fnr_inf(
                rows as f64,
                k,
                values,
                distinct_items,
            )),
        )
    }

    /// The `(N, k, s)` within `memory_bits` with the least `FPR_∞ + FNR_∞`
    /// on a uniform stream over `distinct_items`, among `k ≤ 8`, `s ≤ 32`,
    /// `N = ⌊M/(k·s)⌋` that [`sizing`](Self::sizing) accepts and whose
    /// `FPR_∞` is at most `fpr` (when given).
    pub fn parameters_within(
        memory_bits: u64,
        distinct_items: f64,
        fpr: Option<f64>,
    ) -> Result<(u64, usize, u32), ParamError> {
        let mut best: Option<(f64, u64, usize, u32)> = None;
        for k in 1..=SEARCH_MAX_K {
            for s in 1..=SEARCH_MAX_S {
                let rows = memory_bits / (k as u64 * u64::from(s));
                let Ok(p) = Self::sizing(rows, k, s, distinct_items) else {
                    continue;
                };
                if fpr.is_some_and(|t| p.fpr > t) || !(p.fpr + p.fnr).is_finite() {
                    continue;
                }
                if best.is_none_or(|b| p.fpr + p.fnr < b.0) {
                    best = Some((p.fpr + p.fnr, rows, k, s));
                }
            }
        }
        let (_, rows, k, s) = best.ok_or_else(|| {
            ParamError::new(
                "memory_bits",
                memory_bits,
                match fpr {
                    Some(t) => format!("a budget some k ≤ {SEARCH_MAX_K}, s ≤ {SEARCH_MAX_S} fill with FPR_∞ ≤ {t}"),
                    None => format!("a budget of at least one row of some k ≤ {SEARCH_MAX_K}, s ≤ {SEARCH_MAX_S}"),
                },
            )
        })?;
        Ok((rows, k, s))
    }
}

/// The bits of `N` rows of `k` cells of `s` bits, through the
/// constructor's own checks.
fn table_bits(rows: u64, cells_per_row: usize, fingerprint_bits: u32) -> Result<u64, ParamError> {
    check_params(rows, cells_per_row, fingerprint_bits)?;
    let rows = ddf_param::ensure_positive("rows", rows)?;
    let cells = ddf_param::checked_mul("rows", rows, cells_per_row as u64)?;
    let bits = ddf_param::checked_mul("rows", cells, u64::from(fingerprint_bits))?;
    ddf_param::state_words("rows", bits)?;
    Ok(bits)
}

/// The saturated prediction of a quotient filter whose rates at saturation
/// are `rates(k, S)`: one access (a row read and written in place).
fn saturated(
    rows: u64,
    cells_per_row: usize,
    fingerprint_bits: u32,
    rates: fn(f64, f64) -> (f64, f64),
) -> Result<Prediction, ParamError> {
    let bits = table_bits(rows, cells_per_row, fingerprint_bits)?;
    let (fpr, fnr) = rates(
        cells_per_row as f64,
        Qht::fingerprint_values(fingerprint_bits),
    );
    Ok(Prediction::exact_window(bits, fpr, 1.0).with_misses(fnr))
}

/// The `(N, k, s)` within `memory_bits` whose saturated FPR `fpr_at(k, S)` is at
/// most `fpr` and whose table holds the most fingerprints `N·k` (ties:
/// the lower FPR), among `k ≤ 8`, `s ≤ 32`, `N = ⌊M/(k·s)⌋`.
///
/// At saturation `FPR + FNR = 1` whatever the shape (Claim 4.1), so the
/// shape sets the split and the cells set how long an item is remembered:
/// on a stream with repeats, `FNR_∞` falls as `N·k/U` grows (§4.2).
fn saturated_shape(
    memory_bits: u64,
    fpr: f64,
    fpr_at: fn(f64, f64) -> f64,
) -> Result<(u64, usize, u32), ParamError> {
    let fpr = ddf_param::ensure_probability("fpr", fpr)?;
    let mut best: Option<(u64, f64, u64, usize, u32)> = None;
    for k in 1..=SEARCH_MAX_K {
        for s in 1..=SEARCH_MAX_S {
            let rows = memory_bits / (k as u64 * u64::from(s));
            if table_bits(rows, k, s).is_err() {
                continue;
            }
            let f = fpr_at(k as f64, Qht::fingerprint_values(s));
            if f > fpr {
                continue;
            }
            let cells = rows * k as u64;
            if best.is_none_or(|b| cells > b.0 || (cells == b.0 && f < b.1)) {
                best = Some((cells, f, rows, k, s));
            }
        }
    }
    let (.., rows, k, s) = best.ok_or_else(|| {
        ParamError::new(
            "memory_bits",
            memory_bits,
            format!("a budget some k ≤ {SEARCH_MAX_K}, s ≤ {SEARCH_MAX_S} fill with a saturated FPR ≤ {fpr}"),
        )
    })?;
    Ok((rows, k, s))
}

impl Qht {
    /// What [`new`](Qht::new)`(rows, cells_per_row, fingerprint_bits)`
    /// predicts at saturation on a stream of ever-new items, when the
    /// number of distinct items is unknown: `FPR_∞ = k/S` (Theorem 4.1) and
    /// the worst-case `FNR_∞ = 1 − k/S` (Theorem 4.2 as `U/N → ∞`), with
    /// `S = 2^s − 1`. Fails as `new` does.
    pub fn saturated_sizing(
        rows: u64,
        cells_per_row: usize,
        fingerprint_bits: u32,
    ) -> Result<Prediction, ParamError> {
        saturated(rows, cells_per_row, fingerprint_bits, |k, v| {
            (fpr_inf(k, v), fnr_inf_limit(k, v))
        })
    }

    /// The `(N, k, s)` within `memory_bits` whose saturated FPR is at most
    /// `fpr` and whose table holds the most fingerprints (ties: the
    /// lower FPR): the shape for [`saturated_sizing`](Self::saturated_sizing).
    pub fn saturated_parameters_for(
        memory_bits: u64,
        fpr: f64,
    ) -> Result<(u64, usize, u32), ParamError> {
        saturated_shape(memory_bits, fpr, fpr_inf)
    }
}

impl Qhtd {
    /// What [`new`](Qhtd::new)`(rows, cells_per_row, fingerprint_bits)`
    /// predicts at saturation on a stream of ever-new items:
    /// `FPR_∞ = 1 − (1 − 1/S)^k` and the worst-case `FNR_∞ = (1 − 1/S)^k`
    /// (QHT paper §5.1). Fails as `new` does.
    pub fn saturated_sizing(
        rows: u64,
        cells_per_row: usize,
        fingerprint_bits: u32,
    ) -> Result<Prediction, ParamError> {
        saturated(rows, cells_per_row, fingerprint_bits, |k, v| {
            (qhtd_fpr_inf(k, v), qhtd_fnr_inf_limit(k, v))
        })
    }

    /// The shape for [`saturated_sizing`](Self::saturated_sizing), chosen
    /// as [`Qht::saturated_parameters_for`] does.
    pub fn saturated_parameters_for(
        memory_bits: u64,
        fpr: f64,
    ) -> Result<(u64, usize, u32), ParamError> {
        saturated_shape(memory_bits, fpr, qhtd_fpr_inf)
    }
}

impl Qqhtd {
    /// What [`new`](Qqhtd::new)`(rows, cells_per_row, fingerprint_bits)`
    /// predicts at saturation on a stream of ever-new items: a QHTD's rates
    /// (its rows hold the `k` latest fingerprints, independent and uniform;
    /// QHT paper §5.2), `FPR_∞ = 1 − (1 − 1/S)^k`, worst-case
    /// `FNR_∞ = (1 − 1/S)^k`. Fails as `new` does.
    pub fn saturated_sizing(
        rows: u64,
        cells_per_row: usize,
        fingerprint_bits: u32,
    ) -> Result<Prediction, ParamError> {
        saturated(rows, cells_per_row, fingerprint_bits, |k, v| {
            (qqhtd_fpr_inf(k, v), qhtd_fnr_inf_limit(k, v))
        })
    }

    /// The shape for [`saturated_sizing`](Self::saturated_sizing), chosen
    /// as [`Qht::saturated_parameters_for`] does.
    pub fn saturated_parameters_for(
        memory_bits: u64,
        fpr: f64,
    ) -> Result<(u64, usize, u32), ParamError> {
        saturated_shape(memory_bits, fpr, qqhtd_fpr_inf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ddf_core::DuplicateFilter;

    #[test]
    fn sizing_agrees_with_new() {
        for (n, k, s) in [
            (0u64, 4usize, 8u32),
            (10, 0, 8),
            (10, 5, 2),
            (10, 4, 33),
            (1 << 40, 1, 8),
        ] {
            let new = Qht::new(n, k, s).unwrap_err().param();
            assert_eq!(Qht::sizing(n, k, s, 1e6).unwrap_err().param(), new);
        }
        let p = Qht::sizing(1000, 4, 8, 1e6).unwrap();
        assert_eq!(p.memory_bits, Qht::new(1000, 4, 8).unwrap().memory_bits());
        assert!((p.fpr - 4.0 / 255.0).abs() < 1e-15 && p.false_negatives);
        assert_eq!(
            Qht::sizing(10, 4, 8, 0.5).unwrap_err().param(),
            "distinct_items"
        );
    }

    #[test]
    fn saturated_sizing_agrees_with_new_and_sums_to_one() {
        for (rows, k, s) in [
            (0u64, 4usize, 8u32),
            (10, 0, 8),
            (10, 4, 33),
            (1 << 40, 1, 8),
        ] {
            let new = Qht::new(rows, k, s).unwrap_err().param();
            assert_eq!(Qht::saturated_sizing(rows, k, s).unwrap_err().param(), new);
        }
        for p in [
            Qht::saturated_sizing(1000, 4, 8).unwrap(),
            Qhtd::saturated_sizing(1000, 4, 8).unwrap(),
            Qqhtd::saturated_sizing(1000, 4, 8).unwrap(),
        ] {
            assert_eq!(p.memory_bits, Qht::new(1000, 4, 8).unwrap().memory_bits());
            // Claim 4.1: at saturation the filter answers at chance level.
            assert!((p.fpr + p.fnr - 1.0).abs() < 1e-12 && p.false_negatives);
        }
        let (n, k, s) = Qht::saturated_parameters_for(3_200_000, 0.01).unwrap();
        let p = Qht::saturated_sizing(n, k, s).unwrap();
        assert!(p.fpr <= 0.01 && p.memory_bits <= 3_200_000);
        // The most cells at that rate: one cell per row of 7 bits (1/127).
        assert_eq!((k, s), (1, 7));
        let (n, k, s) = Qhtd::saturated_parameters_for(3_200_000, 0.01).unwrap();
        assert!(Qhtd::saturated_sizing(n, k, s).unwrap().fpr <= 0.01);
        assert!(Qqhtd::saturated_parameters_for(3, 0.01).is_err());
        assert_eq!(
            Qht::saturated_parameters_for(1 << 20, 1.5)
                .unwrap_err()
                .param(),
            "fpr"
        );
    }

    #[test]
    fn parameters_meet_the_target() {
        let (n, k, s) = Qht::parameters_within(1 << 20, 1e6, Some(0.01)).unwrap();
        let p = Qht::sizing(n, k, s, 1e6).unwrap();
        assert!(p.fpr <= 0.01 && p.memory_bits <= 1 << 20);
        assert!(Qht::parameters_within(0, 1e6, None).is_err());
        assert!(Qht::parameters_within(1 << 20, 1e6, Some(1e-12)).is_err());
    }
}
