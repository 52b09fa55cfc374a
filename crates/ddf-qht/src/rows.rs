//! Mechanics every quotient filter shares: Algorithm 1's placement and the
//! checks a decoded table must pass.

use ddf_bits::{CellRows, RowRules, RowWrite};
use ddf_core::DecodeError;
use ddf_hash::SplitMix64;

/// The seed of a filter's generator unless the caller picks one.
pub(crate) const DEFAULT_SEED: u64 = 0x0051_f0c5_eed5_0001;

/// Algorithm 1, lines 5–8: where a fingerprint goes in a row of `k` cells
/// whose first empty cell is `empty` (from the same [`CellRows::probe`] that
/// looked it up): that cell, else one chosen uniformly by `rng` (one draw,
/// skipped when the row has a single cell, whose choice is forced).
#[inline(always)]
pub(crate) fn place(k: usize, rng: &mut SplitMix64, empty: Option<usize>) -> RowWrite {
    RowWrite::Cell(match empty {
        _ if k == 1 => 0,
        Some(j) => j,
        None => rng.below(k as u64) as usize,
    })
}

/// Checks a decoded table against `rules` and `valid`, as a decode error.
pub(crate) fn check_rows(
    cells: &CellRows,
    rules: RowRules,
    valid: impl Fn(u32) -> bool,
) -> Result<(), DecodeError> {
    cells
        .check_rows(rules, valid)
        .map_err(|v| DecodeError::invalid("cells", v.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placement_prefers_empty_cells() {
        let mut cells = CellRows::new(2, 3, 4).unwrap();
        let mut rng = SplitMix64::new(1);
        for fp in [5, 6, 7] {
            cells.probe_then(1, fp, |p| place(3, &mut rng, p.empty));
        }
        assert_eq!(cells.row_iter(1).collect::<Vec<_>>(), [5, 6, 7]);
        cells.probe_then(1, 9, |p| place(3, &mut rng, p.empty));
        assert_eq!(cells.count_occupied(1), 3);
        assert!(cells.find(1, 9).is_some());
    }
}
