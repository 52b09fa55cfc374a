//! Bucket geometries: how many buckets of how many cells, and the
//! remainder width that meets the rate over them, for each layout and
//! [`Fit`].

use super::{CELLS_PER_BUCKET, Fit, Layout, MAX_CELL_BITS, Request, SMALL_TABLE_MARGIN};
use crate::lines::LineShape;
use ddf_param::MAX_STATE_BITS;

/// A bucket geometry: how many buckets of how many cells in which word,
/// and the remainder width that meets the rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct BucketShape {
    pub(super) buckets: u64,
    pub(super) cells: u32,
    pub(super) word: u32,
    pub(super) remainder_bits: u32,
}

/// Why no bucket geometry exists.
pub(super) enum ShapeError {
    /// The table would exceed the state ceiling.
    Capacity,
    /// The cell would exceed 32 bits (the remainder width it needs).
    Cell(u32),
    /// No line's remainders meet the rate (the width it needs).
    Line(u32),
    /// The tags do not fit a line.
    LineTags,
}

/// The geometry of line buckets: `B` lines hold the most active entries
/// at the design load (plus the small-table margin). Narrow lines of
/// `32 − 2s` cells if their 16-bit remainders meet the rate over `B`
/// lines, else wide lines of 16 cells and `32 − s` remainder bits if those
/// do ([`LineShape`]).
pub(super) fn line_shape(
    request: &Request,
    max_active: u64,
    tag_bits: u32,
) -> Result<BucketShape, ShapeError> {
    let mut needed = 0;
    for wide in [false, true] {
        let shape = LineShape::new(tag_bits, wide).ok_or(ShapeError::LineTags)?;
        let cells = shape.cells();
        let buckets = bucket_count(request, max_active, cells, 512)?;
        let bits = shape.remainder_bits();
        if line_key_space(buckets, bits) * request.fpr >= max_active as f64 {
            return Ok(BucketShape {
                buckets,
                cells,
                word: 512,
                remainder_bits: bits,
            });
        }
        needed = remainder_bits(max_active, buckets, request.fpr);
    }
    Err(ShapeError::Line(needed))
}

/// The number of distinct keys `(line pair, remainder)` of `B` lines with
/// `r`-bit remainders whose low 16 bits are not zero (0 marks an empty
/// cell): `B·(2^16 − 1)·2^(r − 16)/2`.
pub(super) fn line_key_space(buckets: u64, remainder_bits: u32) -> f64 {
    let high = (remainder_bits - LineShape::LOW_BITS) as i32;
    buckets as f64 * (2f64.powi(LineShape::LOW_BITS as i32) - 1.0) * 2f64.powi(high) / 2.0
}

/// The geometry with `cells` cells per bucket in `layout` (packed or
/// aligned): `B` buckets hold the most active entries at the design load
/// (plus the small-table margin), the remainder meets the rate over `B`
/// buckets, and the word is the narrower of 64 and 128 bits that holds the
/// cells; `Ok` only if it does. With [`Fit::Bits`], of the remainders up to
/// two bits narrower, over the buckets their rate needs, the one of fewest
/// table bits.
pub(super) fn bucket_shape(
    request: &Request,
    max_active: u64,
    tag_bits: u32,
    cells: u32,
    layout: Layout,
) -> Result<BucketShape, ShapeError> {
    let least = bucket_count(request, max_active, cells, 64)?;
    let widest = remainder_bits(max_active, least, request.fpr);
    let fitted =
        |remainder_bits: u32, buckets: u64| cell_shape(tag_bits, cells, remainder_bits, buckets);
    match request.fit {
        Fit::Load => fitted(widest, least),
        Fit::Bits => {
            // Each bit less doubles the buckets the rate needs, so a
            // narrower remainder can only pay within a bit or two.
            let table_bits = |s: &BucketShape| {
                let bucket = match layout {
                    Layout::Packed => u64::from(s.cells * (s.remainder_bits + tag_bits)),
                    Layout::Aligned | Layout::Line => u64::from(s.word),
                };
                s.buckets.saturating_mul(bucket)
            };
            (widest.saturating_sub(2).max(1)..widest)
                .filter_map(|r| {
                    let buckets = buckets_for_rate(max_active, r, request.fpr)?.max(least);
                    fitted(r, buckets).ok()
                })
                .chain(fitted(widest, least).ok())
                // Fewest bits; of equal bits, the lower load.
                .min_by_key(|s| (table_bits(s), s.remainder_bits))
                .map_or_else(|| fitted(widest, least), Ok)
        }
    }
}

/// The shape of `buckets` buckets of `cells` cells of `remainder_bits +
/// tag_bits` bits, if such cells fit a 32-bit cell and the word.
pub(super) fn cell_shape(
    tag_bits: u32,
    cells: u32,
    remainder_bits: u32,
    buckets: u64,
) -> Result<BucketShape, ShapeError> {
    let width = remainder_bits + tag_bits;
    if width > MAX_CELL_BITS {
        return Err(ShapeError::Cell(remainder_bits));
    }
    let word = if CELLS_PER_BUCKET as u32 * width <= 64 {
        64
    } else {
        128
    };
    // The occupancy count sums the lanes in one: a lane must hold `b`.
    if cells * width > word || u64::from(cells) >= 1u64 << width {
        return Err(ShapeError::Cell(remainder_bits));
    }
    Ok(BucketShape {
        buckets,
        cells,
        word,
        remainder_bits,
    })
}

/// The fewest buckets over which `r`-bit remainders meet the rate:
/// `2·max_active/(B·(2^r − 1)) ≤ ε` ([`remainder_bits`] gives at most `r`
/// for them); `None` past the state ceiling.
pub(super) fn buckets_for_rate(max_active: u64, r: u32, fpr: f64) -> Option<u64> {
    let needed = (2.0 * max_active as f64 / (fpr * (2f64.powi(r as i32) - 1.0))).ceil();
    if !(needed.is_finite() && needed <= (MAX_STATE_BITS / 64) as f64) {
        return None;
    }
    let mut buckets = (needed as u64).max(1);
    // Correct a rounding of the division.
    while remainder_bits(max_active, buckets, fpr) > r {
        buckets += 1;
    }
    Some(buckets)
}

/// Buckets of `cells` cells enough for `max_active` entries at the design
/// load, plus the small-table margin; a capacity error when buckets of at
/// least `min_word` bits would exceed the state ceiling.
pub(super) fn bucket_count(
    request: &Request,
    max_active: u64,
    cells: u32,
    min_word: u64,
) -> Result<u64, ShapeError> {
    let base = max_active as f64 / request.load / f64::from(cells);
    let buckets = (base + SMALL_TABLE_MARGIN * base.sqrt()).ceil().max(1.0);
    if buckets > (MAX_STATE_BITS / min_word) as f64 {
        return Err(ShapeError::Capacity);
    }
    Ok(buckets as u64)
}

/// The smallest `r ≥ 1` with `2·max_active / (B·(2^r − 1)) ≤ ε`: the union
/// bound of §2.1 over the active entries, each matching a query's bucket pair
/// with probability at most `2/B` and its remainder with `1/(2^r − 1)`.
pub(super) fn remainder_bits(max_active: u64, buckets: u64, fpr: f64) -> u32 {
    let needed = 2.0 * max_active as f64 / (buckets as f64 * fpr);
    // Clamped so that a denormal rate (an infinite `needed`) stays a
    // too-wide cell for the caller to reject, not an overflowing width.
    let mut r = (needed + 1.0).log2().ceil().clamp(1.0, 40.0) as u32;
    // Correct a rounding of the logarithm either way; capped where it no
    // longer matters (the caller rejects widths above 32 bits).
    while r < 40 && 2f64.powi(r as i32) - 1.0 < needed {
        r += 1;
    }
    while r > 1 && 2f64.powi(r as i32 - 1) - 1.0 >= needed {
        r -= 1;
    }
    r
}
