//! The table's storage: buckets of cells, aligned or packed.
//!
//! A bucket of `b` cells of `r + s` bits is read into a `u64` when four
//! cells fit in 64 bits, else into a `u128`, and the table's SWAR
//! operations work on that word. Cell `j` occupies bits `j·(r + s)` up to
//! `(j + 1)·(r + s)` of it. Two stores ([`Layout`](crate::plan::Layout)):
//!
//! - aligned: one machine word per bucket, aligned to its size, so a bucket
//!   is one load of one cache line and never straddles two; the word's bits
//!   above its last cell stay zero;
//! - packed: four cells per bucket, buckets end to end in a
//!   [`CellRows`], the least space; a bucket may straddle two words;
//! - lines: one 64-byte [`Line`] per bucket, 16-bit remainders (or their
//!   low halves, in wide lines) and bit planes ([`crate::lines`]), read by
//!   the table's line paths, not as a word.

use crate::lines::{Line, LineShape};
use ddf_bits::CellRows;
use ddf_bits::pages::filled_vec;
use ddf_bits::prefetch::prefetch_ref;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Store {
    /// Aligned `u64` buckets.
    Narrow(Vec<u64>),
    /// Aligned `u128` buckets.
    Wide(Vec<u128>),
    /// Packed rows of four cells.
    Packed(CellRows),
    /// One cache line per bucket.
    Lines(Vec<Line>, LineShape),
}

/// `B` buckets of `b` cells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Buckets {
    store: Store,
    /// Buckets `B`.
    buckets: u64,
    /// Cells per bucket `b`.
    cells: u32,
    /// Bits per cell `r + s`.
    width: u32,
    /// Whether a bucket is read into a `u64`.
    narrow: bool,
}

impl Buckets {
    /// `buckets` empty aligned buckets of `cells` cells of `width` bits:
    /// `u64` words when four cells fit in one, else `u128` (the plan
    /// checked that `cells` fit).
    pub(crate) fn aligned(buckets: u64, cells: u32, width: u32) -> Buckets {
        let len = usize::try_from(buckets).expect("the plan bounds the table");
        let narrow = 4 * width <= 64;
        Buckets {
            store: if narrow {
                Store::Narrow(filled_vec(len, 0u64))
            } else {
                Store::Wide(filled_vec(len, 0u128))
            },
            buckets,
            cells,
            width,
            narrow,
        }
    }

    /// Packed buckets of four cells, as `rows` holds them.
    pub(crate) fn packed(rows: CellRows) -> Buckets {
        let width = rows.cell_bits();
        Buckets {
            buckets: rows.rows(),
            cells: 4,
            width,
            narrow: 4 * width <= 64,
            store: Store::Packed(rows),
        }
    }

    /// `buckets` empty line buckets of `shape`.
    pub(crate) fn lines(buckets: u64, shape: LineShape) -> Buckets {
        let len = usize::try_from(buckets).expect("the plan bounds the table");
        Buckets {
            store: Store::Lines(filled_vec(len, Line::EMPTY), shape),
            buckets,
            cells: shape.cells(),
            width: shape.remainder_bits() + shape.tag_bits(),
            narrow: false,
        }
    }

    /// The lines and their shape, when buckets are lines.
    #[inline(always)]
    pub(crate) fn as_lines(&self) -> Option<(&[Line], LineShape)> {
        match &self.store {
            Store::Lines(v, shape) => Some((v, *shape)),
            _ => None,
        }
    }

    /// [`as_lines`](Self::as_lines), to write.
    #[inline(always)]
    pub(crate) fn as_lines_mut(&mut self) -> Option<(&mut [Line], LineShape)> {
        match &mut self.store {
            Store::Lines(v, shape) => Some((v, *shape)),
            _ => None,
        }
    }

    /// Whether a bucket is read into a `u64`.
    #[inline]
    pub(crate) fn is_narrow(&self) -> bool {
        self.narrow
    }

    /// Bucket `r` as a `u64` (narrow buckets).
    #[inline(always)]
    pub(crate) fn narrow(&self, r: u64) -> u64 {
        match &self.store {
            Store::Narrow(v) => v[r as usize],
            Store::Packed(rows) => rows.read_row_word(r),
            Store::Wide(v) => v[r as usize] as u64,
            Store::Lines(..) => unreachable!("line buckets are not read as words"),
        }
    }

    /// Bucket `r` as a `u128`.
    #[inline(always)]
    pub(crate) fn wide(&self, r: u64) -> u128 {
        match &self.store {
            Store::Wide(v) => v[r as usize],
            Store::Packed(rows) => rows.read_row(r),
            Store::Narrow(v) => u128::from(v[r as usize]),
            Store::Lines(..) => unreachable!("line buckets are not read as words"),
        }
    }

    /// Overwrites narrow bucket `r`.
    #[inline(always)]
    pub(crate) fn set_narrow(&mut self, r: u64, bucket: u64) {
        match &mut self.store {
            Store::Narrow(v) => v[r as usize] = bucket,
            Store::Packed(rows) => rows.write_row_word(r, bucket),
            Store::Wide(v) => v[r as usize] = u128::from(bucket),
            Store::Lines(..) => unreachable!("line buckets are not written as words"),
        }
    }

    /// Overwrites bucket `r`.
    #[inline(always)]
    pub(crate) fn set_wide(&mut self, r: u64, bucket: u128) {
        match &mut self.store {
            Store::Wide(v) => v[r as usize] = bucket,
            Store::Packed(rows) => rows.write_row(r, bucket),
            Store::Narrow(v) => v[r as usize] = bucket as u64,
            Store::Lines(..) => unreachable!("line buckets are not written as words"),
        }
    }

    /// The low `width` bits.
    #[inline]
    fn cell_mask(&self) -> u128 {
        (1u128 << self.width) - 1
    }

    /// Cell `j` of bucket `r`.
    #[inline]
    pub(crate) fn get(&self, r: u64, j: u32) -> u32 {
        if let Store::Lines(v, shape) = &self.store {
            return shape.cell(&v[r as usize], j);
        }
        ((self.wide(r) >> (j * self.width)) & self.cell_mask()) as u32
    }

    /// Replaces cell `j` of bucket `r` with `value`; returns the old cell.
    #[inline]
    pub(crate) fn replace(&mut self, r: u64, j: u32, value: u32) -> u32 {
        if let Store::Lines(v, shape) = &mut self.store {
            return shape.replace(&mut v[r as usize], j, value);
        }
        let at = j * self.width;
        let bucket = self.wide(r);
        let old = ((bucket >> at) & self.cell_mask()) as u32;
        self.set_wide(
            r,
            (bucket & !(self.cell_mask() << at)) | (u128::from(value) << at),
        );
        old
    }

    /// Prefetches bucket `r`'s line (a hint: out of range is ignored).
    #[inline(always)]
    pub(crate) fn prefetch(&self, r: u64) {
        match &self.store {
            Store::Narrow(v) => {
                if let Some(w) = v.get(r as usize) {
                    prefetch_ref(w);
                }
            }
            Store::Wide(v) => {
                if let Some(w) = v.get(r as usize) {
                    prefetch_ref(w);
                }
            }
            Store::Packed(rows) => rows.prefetch_row(r),
            Store::Lines(v, _) => {
                if let Some(line) = v.get(r as usize) {
                    prefetch_ref(line);
                }
            }
        }
    }

    /// Non-empty cells.
    pub(crate) fn occupied(&self) -> u64 {
        (0..self.buckets)
            .map(|r| (0..self.cells).filter(|&j| self.get(r, j) != 0).count() as u64)
            .sum()
    }

    /// Empties every bucket.
    pub(crate) fn clear(&mut self) {
        match &mut self.store {
            Store::Narrow(v) => v.fill(0),
            Store::Wide(v) => v.fill(0),
            Store::Packed(rows) => rows.clear(),
            Store::Lines(v, _) => v.fill(Line::EMPTY),
        }
    }

    /// The buckets as 64-bit words, the snapshot's cells: the packed rows'
    /// words, or a word per narrow bucket, two (low half first) per wide one.
    pub(crate) fn words(&self) -> Vec<u64> {
        match &self.store {
            Store::Narrow(v) => v.clone(),
            Store::Wide(v) => v
                .iter()
                .flat_map(|&w| [w as u64, (w >> 64) as u64])
                .collect(),
            Store::Packed(rows) => rows.as_words().to_vec(),
            Store::Lines(v, _) => v.iter().flat_map(LineShape::words).collect(),
        }
    }

    /// Line buckets from [`words`](Self::words) (eight per line), or the
    /// index of the first line that is not canonical (tag bits set for an
    /// empty cell or beyond the last cell). The caller checked the number
    /// of words.
    pub(crate) fn lines_from_words(
        words: &[u64],
        buckets: u64,
        shape: LineShape,
    ) -> Result<Buckets, u64> {
        let mut out = Buckets::lines(buckets, shape);
        let Store::Lines(v, _) = &mut out.store else {
            unreachable!("built as lines")
        };
        for (r, (line, chunk)) in v.iter_mut().zip(words.chunks_exact(8)).enumerate() {
            let chunk: &[u64; 8] = chunk.try_into().expect("chunks of eight");
            *line = LineShape::from_words(chunk);
            if !shape.is_canonical(line) {
                return Err(r as u64);
            }
        }
        Ok(out)
    }

    /// Aligned buckets from [`words`](Self::words), or the index of the
    /// first bucket with bits set above its last cell. The caller checked
    /// the number of words.
    pub(crate) fn aligned_from_words(
        words: &[u64],
        buckets: u64,
        cells: u32,
        width: u32,
    ) -> Result<Buckets, u64> {
        let mut out = Buckets::aligned(buckets, cells, width);
        let used = cells * width;
        for r in 0..buckets {
            let i = r as usize;
            let bucket = if out.narrow {
                u128::from(words[i])
            } else {
                u128::from(words[2 * i]) | u128::from(words[2 * i + 1]) << 64
            };
            if used < 128 && bucket >> used != 0 {
                return Err(r);
            }
            out.set_wide(r, bucket);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fill(b: &mut Buckets, rows: u64, cells: u32, width: u32) {
        for r in 0..rows {
            for j in 0..cells {
                let v = (r as u32 * 31 + j * 7 + 1) & ((1 << width) - 1);
                assert_eq!(b.replace(r, j, v), 0);
            }
        }
    }

    #[test]
    fn cells_round_trip_in_every_store() {
        for (cells, width) in [(4u32, 16u32), (7, 18), (4, 27), (8, 8)] {
            let mut b = Buckets::aligned(5, cells, width);
            fill(&mut b, 5, cells, width);
            for r in 0..5 {
                for j in 0..cells {
                    assert_eq!(
                        b.get(r, j),
                        (r as u32 * 31 + j * 7 + 1) & ((1 << width) - 1)
                    );
                }
            }
            let back = Buckets::aligned_from_words(&b.words(), 5, cells, width).unwrap();
            assert_eq!(back, b);
            assert_eq!(b.occupied(), 5 * u64::from(cells));
            b.clear();
            assert_eq!(b.occupied(), 0);
        }
        for width in [15u32, 17, 30] {
            let mut b = Buckets::packed(CellRows::new(5, 4, width).unwrap());
            fill(&mut b, 5, 4, width);
            let rows = CellRows::from_words(5, 4, width, b.words()).unwrap();
            assert_eq!(Buckets::packed(rows), b);
        }
    }

    #[test]
    fn padding_bits_are_refused() {
        let mut words = vec![0u64; 6];
        words[3] = 1 << 63;
        assert_eq!(Buckets::aligned_from_words(&words, 3, 7, 18), Err(1));
        assert!(Buckets::aligned_from_words(&[1 << 63, 0], 2, 4, 15).is_err());
    }
}
