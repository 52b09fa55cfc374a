//! Sizing without building (QHT paper §4): what a QHT of `N` rows of `k`
//! cells of `s` bits costs and gets wrong on a uniform stream, and the
//! `(N, k, s)` a budget asks for.

use crate::Qht;
use crate::quotient::check_params;
use ddf_core::{ParamError, Prediction};
use ddf_theory::qht::{fnr_inf, fpr_inf};

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
    /// `FPR_∞` is at most `max_fpr` (when given).
    pub fn parameters_for(
        memory_bits: u64,
        distinct_items: f64,
        max_fpr: Option<f64>,
    ) -> Result<(u64, usize, u32), ParamError> {
        let mut best: Option<(f64, u64, usize, u32)> = None;
        for k in 1..=SEARCH_MAX_K {
            for s in 1..=SEARCH_MAX_S {
                let rows = memory_bits / (k as u64 * u64::from(s));
                let Ok(p) = Self::sizing(rows, k, s, distinct_items) else {
                    continue;
                };
                if max_fpr.is_some_and(|t| p.fpr > t) || !(p.fpr + p.fnr).is_finite() {
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
                match max_fpr {
                    Some(t) => format!("a budget some k ≤ {SEARCH_MAX_K}, s ≤ {SEARCH_MAX_S} fill with FPR_∞ ≤ {t}"),
                    None => format!("a budget of at least one row of some k ≤ {SEARCH_MAX_K}, s ≤ {SEARCH_MAX_S}"),
                },
            )
        })?;
        Ok((rows, k, s))
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
    fn parameters_meet_the_target() {
        let (n, k, s) = Qht::parameters_for(1 << 20, 1e6, Some(0.01)).unwrap();
        let p = Qht::sizing(n, k, s, 1e6).unwrap();
        assert!(p.fpr <= 0.01 && p.memory_bits <= 1 << 20);
        assert!(Qht::parameters_for(0, 1e6, None).is_err());
        assert!(Qht::parameters_for(1 << 20, 1e6, Some(1e-12)).is_err());
    }
}
