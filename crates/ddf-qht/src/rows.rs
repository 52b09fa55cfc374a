//! Mechanics every quotient filter shares: sizing, Algorithm 1's placement,
//! and the checks a decoded table must pass.

use ddf_bits::CellRows;
use ddf_core::DecodeError;
use ddf_core::ParamError;
use ddf_hash::SplitMix64;

/// The seed of a filter's generator unless the caller picks one.
pub(crate) const DEFAULT_SEED: u64 = 0x0051_f0c5_eed5_0001;

/// `N = floor(M / (k·σ))`, the rows a memory budget of `M` bits buys with
/// rows of `k` cells of `σ` bits (QHT paper, Algorithm 1 SETUP); an error
/// naming `memory_bits` if not even one row fits. `k` and `σ` must already
/// be validated (non-zero).
pub(crate) fn rows_for_memory(memory_bits: u64, k: usize, width: u32) -> Result<u64, ParamError> {
    let per_row = k as u64 * u64::from(width);
    match memory_bits / per_row {
        0 => Err(ParamError::new(
            "memory_bits",
            memory_bits,
            format!("at least one row of k·σ = {per_row} bits"),
        )),
        rows => Ok(rows),
    }
}

/// `⌈log₂ n⌉` for `n ≥ 1`.
fn ceil_log2(n: u64) -> u32 {
    if n <= 1 {
        0
    } else {
        64 - (n - 1).leading_zeros()
    }
}

/// The row index and the fingerprint both come from one 64-bit digest: the
/// index takes about `log₂ N` bits and the fingerprint `bits` of the rest,
/// so together they must fit in 64, or fingerprints would repeat
/// structurally instead of by chance.
pub(crate) fn check_digest_budget(rows: u64, bits: u32, what: &str) -> Result<(), ParamError> {
    let used = ceil_log2(rows) + bits;
    if used > 64 {
        return Err(ParamError::new(
            "rows",
            rows,
            format!("at most 2^{} rows with {bits}-bit {what}", 64 - bits),
        ));
    }
    Ok(())
}

/// Algorithm 1, lines 5–8: stores `fp` in the first empty cell of `row`,
/// else in a cell chosen uniformly by `rng` (one draw, skipped when the row
/// has a single cell, whose choice is forced).
#[inline]
pub(crate) fn store(cells: &mut CellRows, rng: &mut SplitMix64, row: u64, fp: u32) {
    let k = cells.buckets_per_row();
    let cell = match cells.first_empty(row) {
        Some(j) => j,
        None if k == 1 => 0,
        None => rng.below(k as u64) as usize,
    };
    cells.set(row, cell, fp);
}

/// What a decoded table must satisfy, row by row.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RowRules {
    /// No fingerprint appears twice in a row (QHT, SQF).
    pub(crate) distinct: bool,
    /// Occupied cells come first: cells are filled in order and never emptied
    /// (false when 0 is also a fingerprint, §3.2 option 1).
    pub(crate) prefix: bool,
}

/// Checks every row of `cells` against `rules` and every stored value with
/// `valid`, so a decoded filter is one the operations could have produced.
pub(crate) fn check_rows(
    cells: &CellRows,
    rules: RowRules,
    valid: impl Fn(u32) -> bool,
) -> Result<(), DecodeError> {
    let mut seen: Vec<u32> = Vec::with_capacity(cells.buckets_per_row());
    for r in 0..cells.rows() {
        seen.clear();
        let mut gap = false;
        for v in cells.row_iter(r) {
            if v == 0 {
                gap = true;
                continue;
            }
            if gap && rules.prefix {
                return Err(DecodeError::invalid(
                    "cells",
                    format!("row {r} has an occupied cell after an empty one"),
                ));
            }
            if !valid(v) {
                return Err(DecodeError::invalid(
                    "cells",
                    format!("row {r} holds {v:#x}, which no element maps to"),
                ));
            }
            seen.push(v);
        }
        if rules.distinct {
            seen.sort_unstable();
            if seen.windows(2).any(|w| w[0] == w[1]) {
                return Err(DecodeError::invalid(
                    "cells",
                    format!("row {r} holds a fingerprint twice"),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_budget_sizes_rows() {
        assert_eq!(rows_for_memory(65_536, 1, 3), Ok(21_845));
        assert_eq!(rows_for_memory(65_536, 16, 6), Ok(682));
        let err = rows_for_memory(11, 4, 3).unwrap_err();
        assert_eq!(err.param(), "memory_bits");
    }

    #[test]
    fn digest_budget() {
        assert!(check_digest_budget(1 << 32, 32, "fingerprints").is_ok());
        assert!(check_digest_budget((1 << 32) + 1, 32, "fingerprints").is_err());
        assert!(check_digest_budget(1, 64, "fingerprints").is_ok());
    }

    #[test]
    fn placement_prefers_empty_cells() {
        let mut cells = CellRows::new(2, 3, 4).unwrap();
        let mut rng = SplitMix64::new(1);
        for fp in [5, 6, 7] {
            store(&mut cells, &mut rng, 1, fp);
        }
        assert_eq!(cells.row_iter(1).collect::<Vec<_>>(), [5, 6, 7]);
        store(&mut cells, &mut rng, 1, 9);
        assert_eq!(cells.count_occupied(1), 3);
        assert!(cells.find(1, 9).is_some());
    }

    #[test]
    fn row_rules_catch_impossible_tables() {
        let rules = RowRules {
            distinct: true,
            prefix: true,
        };
        let mut cells = CellRows::new(2, 3, 4).unwrap();
        cells.set(0, 0, 3);
        cells.set(0, 1, 4);
        assert!(check_rows(&cells, rules, |_| true).is_ok());
        assert!(check_rows(&cells, rules, |v| v != 4).is_err());
        cells.set(1, 1, 2);
        assert!(check_rows(&cells, rules, |_| true).is_err());
        cells.set(1, 0, 2);
        assert!(check_rows(&cells, rules, |_| true).is_err());
        let loose = RowRules {
            distinct: false,
            prefix: true,
        };
        assert!(check_rows(&cells, loose, |_| true).is_ok());
    }
}
