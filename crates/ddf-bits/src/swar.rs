//! SWAR ("SIMD within a register") search over packed fixed-width fields.

use crate::bit_array::{BitArray, low_mask};
use ddf_param::{ParamError, ensure_range};

/// The constants SWAR needs for a chunk of `n` lanes of `width` bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Lanes {
    /// `n · width`, the chunk length in bits.
    pub(crate) bits: u32,
    /// The low `bits` bits.
    pub(crate) mask: u64,
    /// Bit 0 of every lane.
    pub(crate) lows: u64,
    /// The top bit of every lane.
    pub(crate) highs: u64,
}

impl Lanes {
    pub(crate) fn new(n: usize, width: u32) -> Self {
        let bits = n as u32 * width;
        let lows = (0..n as u32).fold(0u64, |acc, i| acc | 1 << (i * width));
        Lanes {
            bits,
            mask: low_mask(bits),
            lows,
            highs: lows << (width - 1),
        }
    }

    /// The lanes of `y` that are zero, flagged at their top bit. The lowest
    /// flag is exact; flags above a zero lane may be false, because the
    /// subtraction borrows out of it. Lanes beyond the chunk are never flagged.
    /// At width 1 this isolates the lowest zero bit of `y`, so it needs no
    /// special case either.
    #[inline]
    pub(crate) fn zero_lanes(&self, y: u64) -> u64 {
        y.wrapping_sub(self.lows) & !y & self.highs
    }

    /// The lanes of `x` that are non-zero, flagged exactly at their top bit:
    /// adding all-ones to a lane's low bits carries into its top bit iff they
    /// are non-zero, and never into the next lane.
    #[inline]
    pub(crate) fn nonzero_lanes(&self, x: u64) -> u64 {
        let low_bits = self.mask & !self.highs;
        (((x & low_bits) + low_bits) | x) & self.highs
    }
}

/// Finds a value among consecutive `width`-bit fields of a [`BitArray`],
/// comparing every field of a 64-bit chunk at once.
///
/// This is the linear scan of ring-buffer filters such as the Compact Short
/// Hash Filter: the fields are read 64 bits at a time, XORed with the value
/// broadcast into every lane, and a zero lane is detected with one
/// subtraction and two masks. Widths up to 64 bits are accepted; above 32 a
/// chunk holds a single field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FieldScan {
    width: u32,
    /// Fields per full chunk: `64 / width`.
    lanes: u64,
    chunk: Lanes,
}

impl FieldScan {
    /// A scanner for fields of `width` bits (`field_bits`, 1..=64).
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_bits::{BitArray, FieldScan};
    ///
    /// // Five 12-bit fields; find the first equal to 0xABC.
    /// let mut bits = BitArray::new(60)?;
    /// bits.write_bits(36, 12, 0xABC);
    /// let scan = FieldScan::new(12)?;
    /// assert_eq!(scan.find(&bits, 0, 5, 0xABC), Some(3));
    /// assert!(FieldScan::new(65).is_err());
    /// # Ok::<(), ddf_bits::ParamError>(())
    /// ```
    pub fn new(width: u32) -> Result<Self, ParamError> {
        ensure_range("field_bits", width, 1..=64)?;
        let lanes = 64 / width;
        Ok(FieldScan {
            width,
            lanes: u64::from(lanes),
            chunk: Lanes::new(lanes as usize, width),
        })
    }

    /// The field width in bits.
    #[inline]
    #[must_use]
    pub const fn width(&self) -> u32 {
        self.width
    }

    /// The index (0-based, relative to `offset`) of the first of the `count`
    /// fields starting at bit `offset` of `bits` that equals `value`. A value
    /// wider than `width` bits is never found.
    ///
    /// # Panics
    /// If the fields extend past the end of `bits`.
    #[must_use]
    pub fn find(&self, bits: &BitArray, offset: u64, count: u64, value: u64) -> Option<u64> {
        let span = count.checked_mul(u64::from(self.width));
        if span.is_none_or(|s| offset > bits.len() || s > bits.len() - offset) {
            crate::out_of_range(
                "field scan end",
                offset.saturating_add(span.unwrap_or(u64::MAX)),
                bits.len(),
                "bits",
            );
        }
        if value > low_mask(self.width) {
            return None;
        }
        let broadcast = value.wrapping_mul(self.chunk.lows);
        if offset.is_multiple_of(64) && 64 % self.width == 0 {
            return self.find_aligned(&bits.as_words()[(offset / 64) as usize..], count, broadcast);
        }
        let full = count / self.lanes;
        let mut at = offset;
        for c in 0..full {
            let y = bits.read_masked(at, self.chunk.mask) ^ broadcast;
            let hits = self.chunk.zero_lanes(y);
            if hits != 0 {
                return Some(c * self.lanes + u64::from(hits.trailing_zeros() / self.width));
            }
            at += u64::from(self.chunk.bits);
        }
        let rest = (count - full * self.lanes) as u32;
        if rest == 0 {
            return None;
        }
        // The last, partial chunk: read only its fields, and keep only flags
        // inside it (the empty lanes above it would otherwise match 0).
        let mask = low_mask(rest * self.width);
        let y = bits.read_masked(at, mask) ^ (broadcast & mask);
        let hits = self.chunk.zero_lanes(y) & mask;
        (hits != 0).then(|| full * self.lanes + u64::from(hits.trailing_zeros() / self.width))
    }
}

impl FieldScan {
    /// [`find`](Self::find) when fields tile whole words (`width` divides 64
    /// and the scan starts on a word): no field straddles a word, so the scan
    /// walks the word slice directly, four words per step with one branch.
    fn find_aligned(&self, words: &[u64], count: u64, broadcast: u64) -> Option<u64> {
        let full_words = (count / self.lanes) as usize;
        let (body, _) = words.split_at(full_words);
        let mut quads = body.chunks_exact(4);
        let mut base = 0u64;
        for quad in &mut quads {
            let hits = quad.iter().map(|&w| self.chunk.zero_lanes(w ^ broadcast));
            if hits.clone().fold(0, |acc, h| acc | h) != 0 {
                return hits.enumerate().find(|&(_, h)| h != 0).map(|(i, h)| {
                    base + i as u64 * self.lanes + u64::from(h.trailing_zeros() / self.width)
                });
            }
            base += 4 * self.lanes;
        }
        for &w in quads.remainder() {
            let h = self.chunk.zero_lanes(w ^ broadcast);
            if h != 0 {
                return Some(base + u64::from(h.trailing_zeros() / self.width));
            }
            base += self.lanes;
        }
        let rest = (count - full_words as u64 * self.lanes) as u32;
        if rest == 0 {
            return None;
        }
        let mask = low_mask(rest * self.width);
        let h = self
            .chunk
            .zero_lanes((words[full_words] & mask) ^ (broadcast & mask))
            & mask;
        (h != 0).then(|| base + u64::from(h.trailing_zeros() / self.width))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(width: u32, values: &[u64]) -> BitArray {
        let mut bits = BitArray::new(values.len() as u64 * u64::from(width) + 7).unwrap();
        for (i, &v) in values.iter().enumerate() {
            bits.write_bits(i as u64 * u64::from(width), width, v);
        }
        bits
    }

    #[test]
    fn finds_first_match_for_every_width() {
        for width in 1..=64u32 {
            let scan = FieldScan::new(width).unwrap();
            let max = low_mask(width);
            let values: Vec<u64> = (0..150u64)
                .map(|i| (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 7) & max)
                .collect();
            let bits = filled(width, &values);
            for start in [0usize, 1, 13] {
                for count in [0usize, 1, 5, 64, 137] {
                    let slice = &values[start..start + count];
                    for &probe in values.iter().take(20).chain([0, max].iter()) {
                        let expected = slice.iter().position(|&v| v == probe).map(|p| p as u64);
                        let got =
                            scan.find(&bits, start as u64 * u64::from(width), count as u64, probe);
                        assert_eq!(
                            got, expected,
                            "width {width} start {start} count {count} probe {probe}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn too_wide_values_are_never_found_and_widths_are_checked() {
        let scan = FieldScan::new(4).unwrap();
        let bits = filled(4, &[0, 0, 0]);
        assert_eq!(scan.find(&bits, 0, 3, 0x10), None);
        assert_eq!(scan.find(&bits, 0, 3, 0), Some(0));
        assert_eq!(FieldScan::new(0).unwrap_err().param(), "field_bits");
        assert_eq!(FieldScan::new(65).unwrap_err().param(), "field_bits");
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn scanning_past_the_end_panics() {
        let bits = BitArray::new(64).unwrap();
        let _ = FieldScan::new(8).unwrap().find(&bits, 8, 8, 1);
    }
}
