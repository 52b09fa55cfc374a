//! Line buckets: a bucket that is one whole cache line, probed with the
//! same instructions whatever it holds.
//!
//! A line is 32 `u16` words. The first `b = 32 − 2s` hold the cells'
//! remainders (`r = 16` bits; 0 marks an empty cell). The last `2s` hold
//! the cells' `s`-bit generation tags as `s` bit planes of a `u32` each:
//! bit `j` of plane `k` is bit `k` of cell `j`'s tag. So a probe compares
//! the item's remainder with every cell at once
//! ([`ddf_bits::lanes16::equal_and_zero`]) and computes every cell's age
//! at once on the planes (a subtraction and a comparison done bit by bit
//! across all cells, `s` steps each), and its cost does not depend on where
//! the entries sit.
//!
//! A query compares about `2·b·α` active entries (two lines at load `α`),
//! so its false-positive rate is about `2·b·α / 2^16`, 7·10^-4 for `s = 3`
//! (`b = 26`) at `α = 0.9`. The cells are the same entries as in the other
//! layouts, `remainder << s | tag`, through [`LineShape::cell`] and
//! [`LineShape::replace`], so code that walks entries one by one needs no
//! second version.

use ddf_bits::lanes16::{self, LANES};

/// One bucket: 64 bytes, aligned to a cache line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C, align(64))]
pub(crate) struct Line {
    words: [u16; LANES],
}

impl Line {
    pub(crate) const EMPTY: Line = Line { words: [0; LANES] };
}

/// What a probe of one line finds, as cell masks (bit `j` for cell `j`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Probe {
    /// Cells holding an active entry: not empty, age at most `c`.
    pub(crate) active: u32,
    /// Active cells holding the probed remainder.
    pub(crate) hits: u32,
    /// Non-empty cells holding the probed remainder, active or stale.
    pub(crate) matches: u32,
    /// Non-empty cells.
    pub(crate) full: u32,
}

/// The generation clock as line probes use it, computed when the
/// generation changes (it lives in the table's `Ages`).
///
/// The stale tags are the `K = 2^s − 1 − c` values just above the current
/// one. When `K ≤ 4` (`c = 5, s = 3` has 2; `c = 11, s = 4` has 4) a probe
/// tests each for equality on the planes, `2s + 1` operations a tag;
/// otherwise it computes every cell's age by a subtraction bit by bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineClock {
    /// `K`, the number of stale tag values.
    stale_tags: u32,
    /// The first four stale tags (the last repeated when `K < 4`), bit
    /// `k` of each broadcast to all ones or zero.
    stale: [[u32; LineShape::MAX_TAG_BITS as usize]; 4],
    /// The current tag's bits, broadcast.
    current: [u32; LineShape::MAX_TAG_BITS as usize],
    /// `c`'s bits, broadcast.
    limit: [u32; LineShape::MAX_TAG_BITS as usize],
}

impl LineClock {
    /// The clock at tag `current` of `2^tag_bits`, where entries of age at
    /// most `max_age` are active.
    pub(crate) fn new(current: u32, max_age: u32, tag_bits: u32) -> LineClock {
        let bits = tag_bits.min(LineShape::MAX_TAG_BITS);
        let mask = (1u32 << bits) - 1;
        let stale_tags = mask - max_age.min(mask);
        let tag = |d: u32| (current + d.min(stale_tags).max(1)) & mask;
        let broadcast = |x: u32| -> [u32; LineShape::MAX_TAG_BITS as usize] {
            core::array::from_fn(|k| 0u32.wrapping_sub(x >> k & 1))
        };
        LineClock {
            stale_tags,
            stale: [
                broadcast(tag(1)),
                broadcast(tag(2)),
                broadcast(tag(3)),
                broadcast(tag(4)),
            ],
            current: broadcast(current),
            limit: broadcast(max_age),
        }
    }
}

/// How the lines of one table are divided: `s` tag bits, so `32 − 2s`
/// cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineShape {
    tag_bits: u32,
    cells: u32,
    /// The low `cells` bits.
    cell_mask: u32,
}

impl LineShape {
    /// Remainder bits of every cell.
    pub(crate) const REMAINDER_BITS: u32 = 16;

    /// The most tag bits a line holds: 8 leave 16 cells.
    pub(crate) const MAX_TAG_BITS: u32 = 8;

    /// The shape for `s` tag bits, if a line can hold them (`1..=8`).
    pub(crate) fn new(tag_bits: u32) -> Option<LineShape> {
        if !(1..=Self::MAX_TAG_BITS).contains(&tag_bits) {
            return None;
        }
        let cells = LANES as u32 - 2 * tag_bits;
        Some(LineShape {
            tag_bits,
            cells,
            cell_mask: (1 << cells) - 1,
        })
    }

    /// The shape for `S` tag bits (`1..=8`), as a constant: the hot paths
    /// are compiled once per width, so that their loops over the tag bits
    /// unroll and the plane offsets are fixed.
    #[inline(always)]
    pub(crate) const fn fixed<const S: u32>() -> LineShape {
        assert!(S >= 1 && S <= Self::MAX_TAG_BITS, "1 to 8 tag bits");
        let cells = LANES as u32 - 2 * S;
        LineShape {
            tag_bits: S,
            cells,
            cell_mask: (1 << cells) - 1,
        }
    }

    /// Tag bits `s`.
    pub(crate) fn tag_bits(&self) -> u32 {
        self.tag_bits
    }

    /// Cells per line, `b = 32 − 2s`.
    pub(crate) fn cells(&self) -> u32 {
        self.cells
    }

    /// The low `b` bits: every cell.
    pub(crate) fn cell_mask(&self) -> u32 {
        self.cell_mask
    }

    /// Plane `k`: bit `k` of every cell's tag.
    #[inline(always)]
    fn plane(&self, line: &Line, k: u32) -> u32 {
        let at = (self.cells + 2 * k) as usize;
        u32::from(line.words[at]) | u32::from(line.words[at + 1]) << 16
    }

    #[inline(always)]
    fn set_plane(&self, line: &mut Line, k: u32, plane: u32) {
        let at = (self.cells + 2 * k) as usize;
        line.words[at] = plane as u16;
        line.words[at + 1] = (plane >> 16) as u16;
    }

    /// Cells whose tag equals the tag broadcast in `bits`.
    #[inline(always)]
    fn tagged(&self, line: &Line, bits: &[u32; Self::MAX_TAG_BITS as usize]) -> u32 {
        let mut cells = u32::MAX;
        for k in 0..self.tag_bits {
            cells &= !(self.plane(line, k) ^ bits[k as usize]);
        }
        cells
    }

    /// Cells whose tag is stale on `clock` (empty cells included, whatever
    /// their tag bits say).
    #[inline(always)]
    pub(crate) fn older_than(&self, line: &Line, clock: &LineClock) -> u32 {
        if clock.stale_tags <= 4 {
            if clock.stale_tags == 0 {
                return 0;
            }
            let [a, b, c, d] = &clock.stale;
            return self.tagged(line, a)
                | self.tagged(line, b)
                | self.tagged(line, c)
                | self.tagged(line, d);
        }
        // The age `(current − tag) mod 2^s`, then its comparison with `c`,
        // one tag bit at a time for every cell at once.
        let mut age = [0u32; Self::MAX_TAG_BITS as usize];
        let mut borrow = 0u32;
        for (k, bit) in age.iter_mut().enumerate().take(self.tag_bits as usize) {
            let (a, b) = (clock.current[k], self.plane(line, k as u32));
            *bit = a ^ b ^ borrow;
            borrow = (!a & b) | (!(a ^ b) & borrow);
        }
        // From the top bit down: greater once a bit of the age is set where
        // `c` has none and every higher bit was equal.
        let (mut greater, mut equal) = (0u32, u32::MAX);
        for k in (0..self.tag_bits as usize).rev() {
            let (bit, limit) = (age[k], clock.limit[k]);
            greater |= equal & bit & !limit;
            equal &= !(bit ^ limit);
        }
        greater
    }

    /// Non-empty cells holding `remainder` (non-zero), whatever their age.
    #[inline(always)]
    pub(crate) fn matches(&self, line: &Line, remainder: u16) -> u32 {
        lanes16::equal_and_zero(&line.words, remainder).0 & self.cell_mask
    }

    /// Non-empty cells holding `remainder` (non-zero), and non-empty
    /// cells: a probe without ages.
    #[inline(always)]
    pub(crate) fn cells_of(&self, line: &Line, remainder: u16) -> (u32, u32) {
        let (equal, zero) = lanes16::equal_and_zero(&line.words, remainder);
        let full = !zero & self.cell_mask;
        (equal & full, full)
    }

    /// Compares `remainder` (non-zero) with every cell of `line` on
    /// `clock`.
    #[inline(always)]
    pub(crate) fn probe(&self, line: &Line, remainder: u16, clock: &LineClock) -> Probe {
        let (equal, zero) = lanes16::equal_and_zero(&line.words, remainder);
        let full = !zero & self.cell_mask;
        let active = full & !self.older_than(line, clock);
        Probe {
            active,
            hits: equal & active,
            matches: equal & full,
            full,
        }
    }

    /// Cells of `line` holding an active entry (the tests' second view of
    /// [`probe`](Self::probe)).
    #[cfg(test)]
    fn active(&self, line: &Line, clock: &LineClock) -> u32 {
        let (_, zero) = lanes16::equal_and_zero(&line.words, 0);
        !zero & self.cell_mask & !self.older_than(line, clock)
    }

    /// Cell `j`'s tag.
    #[inline(always)]
    pub(crate) fn tag(&self, line: &Line, j: u32) -> u32 {
        (0..self.tag_bits).fold(0, |tag, k| tag | (self.plane(line, k) >> j & 1) << k)
    }

    /// Writes `tag` into cell `j`.
    #[inline(always)]
    pub(crate) fn set_tag(&self, line: &mut Line, j: u32, tag: u32) {
        for k in 0..self.tag_bits {
            let plane = self.plane(line, k) & !(1 << j) | (tag >> k & 1) << j;
            self.set_plane(line, k, plane);
        }
    }

    /// Cell `j` as the other layouts hold it: `remainder << s | tag`, or 0
    /// when empty.
    #[inline(always)]
    pub(crate) fn cell(&self, line: &Line, j: u32) -> u32 {
        match line.words[j as usize] {
            0 => 0,
            remainder => u32::from(remainder) << self.tag_bits | self.tag(line, j),
        }
    }

    /// Writes an entry (`remainder` non-zero, `tag`) into cell `j`,
    /// whatever it held.
    #[inline(always)]
    pub(crate) fn put(&self, line: &mut Line, j: u32, remainder: u16, tag: u32) {
        line.words[j as usize] = remainder;
        self.set_tag(line, j, tag);
    }

    /// Replaces cell `j` with `value` (`remainder << s | tag`, 0 to empty
    /// it); returns the old cell. The remainder must fit in 16 bits.
    #[inline(always)]
    pub(crate) fn replace(&self, line: &mut Line, j: u32, value: u32) -> u32 {
        let old = self.cell(line, j);
        let remainder = value >> self.tag_bits;
        debug_assert!(remainder <= u32::from(u16::MAX), "a 16-bit remainder");
        line.words[j as usize] = remainder as u16;
        self.set_tag(line, j, if remainder == 0 { 0 } else { value });
        old
    }

    /// Empties every cell that is not active, tag and remainder; returns
    /// how many entries it removed.
    #[inline(always)]
    pub(crate) fn sweep(&self, line: &mut Line, clock: &LineClock) -> u32 {
        let (_, zero) = lanes16::equal_and_zero(&line.words, 0);
        let stale = self.older_than(line, clock) & !zero & self.cell_mask;
        for k in 0..self.tag_bits {
            let plane = self.plane(line, k) & !stale;
            self.set_plane(line, k, plane);
        }
        // A select per cell, no branch: the compiler makes it vector code.
        for (j, word) in line.words.iter_mut().enumerate().take(self.cells as usize) {
            // All ones to keep the cell, zero to empty it.
            *word &= ((stale >> j & 1) as u16).wrapping_sub(1);
        }
        stale.count_ones()
    }

    /// Whether `line` is well formed: the tag bits of empty cells are zero.
    /// What a decoder checks, so that equal contents have equal bytes.
    pub(crate) fn is_canonical(&self, line: &Line) -> bool {
        let (_, zero) = lanes16::equal_and_zero(&line.words, 0);
        let empty = zero & self.cell_mask;
        (0..self.tag_bits).all(|k| self.plane(line, k) & (empty | !self.cell_mask) == 0)
    }

    /// The line's 64 bytes as eight little-endian words, a snapshot's cells.
    pub(crate) fn words(line: &Line) -> [u64; 8] {
        core::array::from_fn(|i| {
            (0..4).fold(0, |w, q| w | u64::from(line.words[4 * i + q]) << (16 * q))
        })
    }

    /// A line from [`words`](Self::words).
    pub(crate) fn from_words(words: &[u64; 8]) -> Line {
        Line {
            words: core::array::from_fn(|i| (words[i / 4] >> (16 * (i % 4))) as u16),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ddf_hash::SplitMix64;

    /// Random writes, sweeps and probes of one line against a list of
    /// `(remainder, tag)` cells, for every tag width and many clocks.
    #[test]
    fn a_line_agrees_with_a_list_of_cells() {
        let mut rng = SplitMix64::new(17);
        for tag_bits in 1..=LineShape::MAX_TAG_BITS {
            let shape = LineShape::new(tag_bits).unwrap();
            let cells = shape.cells() as usize;
            let modulus = 1u32 << tag_bits;
            for round in 0..3_000u32 {
                let current = rng.below(u64::from(modulus)) as u32;
                let max_age = rng.below(u64::from(modulus)) as u32;
                let mut line = Line::EMPTY;
                let mut model = vec![(0u16, 0u32); cells];
                for _ in 0..rng.below(3 * cells as u64) {
                    let j = rng.below(cells as u64) as u32;
                    // Few distinct remainders, so that equal ones are common.
                    let remainder = rng.below(5) as u16;
                    let tag = rng.below(u64::from(modulus)) as u32;
                    let value = u32::from(remainder) << tag_bits | tag;
                    let old = shape.replace(&mut line, j, value);
                    let (r, t) = model[j as usize];
                    assert_eq!(
                        old,
                        if r == 0 {
                            0
                        } else {
                            u32::from(r) << tag_bits | t
                        }
                    );
                    model[j as usize] = if remainder == 0 {
                        (0, 0)
                    } else {
                        (remainder, tag)
                    };
                }
                let age = |t: u32| current.wrapping_sub(t) & (modulus - 1);
                if round % 4 == 0 {
                    let removed =
                        shape.sweep(&mut line, &LineClock::new(current, max_age, tag_bits));
                    let before = model.iter().filter(|c| c.0 != 0).count();
                    for c in &mut model {
                        if c.0 != 0 && age(c.1) > max_age {
                            c.0 = 0;
                        }
                    }
                    let after = model.iter().filter(|c| c.0 != 0).count();
                    assert_eq!(removed as usize, before - after);
                }
                let clock = LineClock::new(current, max_age, tag_bits);
                let active = shape.active(&line, &clock);
                for probe in 1..5u16 {
                    let p = shape.probe(&line, probe, &clock);
                    assert_eq!(p.matches, shape.matches(&line, probe));
                    assert_eq!(p.active, active);
                    for (j, &(r, t)) in model.iter().enumerate() {
                        let live = r != 0 && age(t) <= max_age;
                        assert_eq!(p.active >> j & 1 == 1, live, "s {tag_bits}, cell {j}");
                        assert_eq!(p.hits >> j & 1 == 1, live && r == probe);
                        assert_eq!(p.matches >> j & 1 == 1, r != 0 && r == probe);
                    }
                }
                for (j, &(r, t)) in model.iter().enumerate() {
                    let want = if r == 0 {
                        0
                    } else {
                        u32::from(r) << tag_bits | t
                    };
                    assert_eq!(shape.cell(&line, j as u32), want, "s {tag_bits}, cell {j}");
                }
                // `replace` and `sweep` clear an emptied cell's tag.
                assert!(shape.is_canonical(&line));
                assert_eq!(LineShape::from_words(&LineShape::words(&line)), line);
            }
        }
    }

    #[test]
    fn shapes_hold_sixteen_to_thirty_cells() {
        assert_eq!(LineShape::new(0), None);
        assert_eq!(LineShape::new(9), None);
        assert_eq!(LineShape::new(3).unwrap().cells(), 26);
        assert_eq!(LineShape::new(8).unwrap().cells(), 16);
        assert_eq!(size_of::<Line>(), 64);
        assert_eq!(align_of::<Line>(), 64);
    }

    #[test]
    fn set_bits_in_the_padding_are_not_canonical() {
        let shape = LineShape::new(3).unwrap();
        let mut line = Line::EMPTY;
        assert!(shape.is_canonical(&line));
        shape.set_tag(&mut line, 4, 5);
        assert!(!shape.is_canonical(&line), "an empty cell with a tag");
        shape.replace(&mut line, 4, 9 << 3 | 5);
        assert!(shape.is_canonical(&line));
    }
}
