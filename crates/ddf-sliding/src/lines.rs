//! Line buckets: a bucket that is one whole cache line, probed with the
//! same instructions whatever it holds.
//!
//! A line is 32 `u16` words, in one of two shapes.
//!
//! - **Narrow** (`r = 16`): the first `b = 32 − 2s` words hold the cells'
//!   remainders (0 marks an empty cell); the last `2s` hold the cells'
//!   `s`-bit generation tags as `s` bit planes of a `u32` each: bit `j` of
//!   plane `k` is bit `k` of cell `j`'s tag.
//! - **Wide** (`r = 32 − s`): 16 cells. The first 16 words hold the low 16
//!   bits of each remainder (never 0 in a full cell: 0 marks an empty one),
//!   the next `s` words the tag planes and the last `16 − s` the remainder's
//!   high bits as planes, a `u16` each. A cell is then 32 bits, as wide as
//!   the word layout's widest; this is the shape for rates 16-bit
//!   remainders cannot meet.
//!
//! So a probe compares the item's remainder (its low 16 bits) with every
//! cell at once ([`ddf_bits::lanes16::equal_and_zero`]), checks the high
//! planes only when some low half matched, and computes every cell's age
//! at once on the planes (a subtraction and a comparison done bit by bit
//! across all cells, `s` steps each); its cost hardly depends on where the
//! entries sit.
//!
//! A query compares about `2·b·α` active entries (two lines at load `α`)
//! over `(2^16 − 1)·2^(r − 16)` remainders, so its false-positive rate is
//! about `2·b·α / 2^r`: 7·10^-4 for narrow lines of `s = 3` (`b = 26`) at
//! `α = 0.9`, 8.6·10^-7 for wide lines of `s = 7` (`r = 25`). The cells are
//! the same entries as in the other layouts, `remainder << s | tag`,
//! through [`LineShape::cell`] and [`LineShape::replace`], so code that
//! walks entries one by one needs no second version.
//!
//! A plane stays a whole `u32` even where planes packed end to end would
//! leave room for more cells (22 instead of 18 at `s = 7`): each write of
//! a tag bit would then cost about ten instructions at an address that
//! depends on the cell, and a branch that packed them observed about 1.6×
//! slower one by one at 2^22 (`docs/performance.md`, "Packed tag
//! planes").

use ddf_bits::lanes16::{self, LANES};
use ddf_hash::{Digest, Fingerprinter, ParamError, ZeroPolicy};

/// How an item's remainder comes from the digest left after its bucket
/// ([`Digest::split`]): `r` bits, never 0, uniform over the values a table
/// stores. For wide lines that means a non-zero low half (0 marks an empty
/// cell there), so the low 16 bits and the high `r − 16` are drawn apart:
/// `(2^16 − 1)·2^(r − 16)` values, the lines' key space. Every other table
/// draws all `r` bits at once, `2^r − 1` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Remainders {
    /// The low part (all of it when `high_bits` is 0), non-zero.
    low: Fingerprinter,
    /// Bits above the low 16 (wide lines), taken below the low part's.
    high_bits: u32,
}

impl Remainders {
    /// `remainder_bits` drawn at once, or split at 16 bits for wide lines.
    pub(crate) fn new(remainder_bits: u32, wide_lines: bool) -> Result<Self, ParamError> {
        let low_bits = if wide_lines {
            LineShape::LOW_BITS
        } else {
            remainder_bits
        };
        Ok(Remainders {
            low: Fingerprinter::new(low_bits, ZeroPolicy::Rehash)?,
            high_bits: remainder_bits.saturating_sub(low_bits),
        })
    }

    /// The remainder of an item whose digest left `rest` after its bucket.
    #[inline(always)]
    pub(crate) fn remainder(&self, rest: Digest) -> u32 {
        let low = self.low.fingerprint(rest);
        if self.high_bits == 0 {
            return low;
        }
        // The bits just below the low part's, which the rehash of a zero
        // low part does not read.
        let high = (rest.get() << LineShape::LOW_BITS) >> (64 - self.high_bits);
        (high as u32) << LineShape::LOW_BITS | low
    }
}

/// One bucket: 64 bytes, aligned to a cache line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C, align(64))]
pub(crate) struct Line {
    words: [u16; LANES],
}

impl Line {
    pub(crate) const EMPTY: Line = Line { words: [0; LANES] };
}

/// What a probe of one line finds, as cell masks (bit `j` for cell `j`):
/// every mask the hot paths compute piecemeal, for the tests.
#[cfg(test)]
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

/// How the lines of one table are divided: `s` tag bits, and narrow
/// (`32 − 2s` cells of 16-bit remainders) or wide (16 cells of `32 − s`
/// remainder bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineShape {
    tag_bits: u32,
    /// Remainder bits held in planes above the 16 of a cell's word: 0 for
    /// narrow lines, `16 − s` for wide ones.
    high_bits: u32,
    cells: u32,
    /// The low `cells` bits.
    cell_mask: u32,
}

impl LineShape {
    /// Remainder bits a cell's word holds: all of a narrow line's.
    pub(crate) const LOW_BITS: u32 = 16;

    /// The most tag bits a line holds: 8 leave 16 cells (narrow) or 24
    /// remainder bits (wide).
    pub(crate) const MAX_TAG_BITS: u32 = 8;

    /// Cells of a wide line.
    const WIDE_CELLS: u32 = 16;

    /// The shape for `s` tag bits, narrow or wide, if a line can hold them
    /// (`1..=8`).
    pub(crate) fn new(tag_bits: u32, wide: bool) -> Option<LineShape> {
        (1..=Self::MAX_TAG_BITS)
            .contains(&tag_bits)
            .then(|| Self::shape(tag_bits, wide))
    }

    /// The shape for `S` tag bits (`1..=8`) and width `WIDE`, as a
    /// constant: the hot paths are compiled once per shape, so that their
    /// loops over the planes unroll and the plane offsets are fixed.
    #[inline(always)]
    pub(crate) const fn fixed<const S: u32, const WIDE: bool>() -> LineShape {
        assert!(S >= 1 && S <= Self::MAX_TAG_BITS, "1 to 8 tag bits");
        Self::shape(S, WIDE)
    }

    #[inline(always)]
    const fn shape(tag_bits: u32, wide: bool) -> LineShape {
        let (cells, high_bits) = if wide {
            (Self::WIDE_CELLS, Self::WIDE_CELLS - tag_bits)
        } else {
            (LANES as u32 - 2 * tag_bits, 0)
        };
        LineShape {
            tag_bits,
            high_bits,
            cells,
            cell_mask: (1 << cells) - 1,
        }
    }

    /// Tag bits `s`.
    pub(crate) fn tag_bits(&self) -> u32 {
        self.tag_bits
    }

    /// Remainder bits `r`: 16 (narrow) or `32 − s` (wide).
    pub(crate) fn remainder_bits(&self) -> u32 {
        Self::LOW_BITS + self.high_bits
    }

    /// Whether the remainders go beyond a cell's 16-bit word.
    pub(crate) fn is_wide(&self) -> bool {
        self.high_bits > 0
    }

    /// Cells per line: `32 − 2s` (narrow) or 16 (wide).
    pub(crate) fn cells(&self) -> u32 {
        self.cells
    }

    /// The low `b` bits: every cell.
    pub(crate) fn cell_mask(&self) -> u32 {
        self.cell_mask
    }

    /// Plane `p`: bit `p` of every cell's tag for `p < s`, then bit
    /// `p − s` of every remainder's high part. A `u32` after the cells of
    /// a narrow line, a `u16` after those of a wide one.
    #[inline(always)]
    fn plane(&self, line: &Line, p: u32) -> u32 {
        if self.is_wide() {
            u32::from(line.words[(Self::WIDE_CELLS + p) as usize])
        } else {
            let at = (self.cells + 2 * p) as usize;
            u32::from(line.words[at]) | u32::from(line.words[at + 1]) << 16
        }
    }

    #[inline(always)]
    fn set_plane(&self, line: &mut Line, p: u32, plane: u32) {
        if self.is_wide() {
            line.words[(Self::WIDE_CELLS + p) as usize] = plane as u16;
        } else {
            let at = (self.cells + 2 * p) as usize;
            line.words[at] = plane as u16;
            line.words[at + 1] = (plane >> 16) as u16;
        }
    }

    /// Every plane, tags and high remainder bits.
    #[inline(always)]
    fn planes(&self) -> u32 {
        self.tag_bits + self.high_bits
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

    /// Of the cells `low` (their low 16 bits hold `remainder`'s), those
    /// whose high bits hold its high part too. Planes are read only when
    /// some cell is left: the low halves differ for all but about one key
    /// in `2^16 / (2·b·α)`.
    #[inline(always)]
    fn high_matches(&self, line: &Line, low: u32, remainder: u32) -> u32 {
        let mut cells = low;
        if self.is_wide() && cells != 0 {
            for i in 0..self.high_bits {
                let want = 0u32.wrapping_sub(remainder >> (Self::LOW_BITS + i) & 1);
                cells &= !(self.plane(line, self.tag_bits + i) ^ want);
            }
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

    /// Non-empty cells holding `remainder` (its low 16 bits non-zero),
    /// whatever their age.
    #[inline(always)]
    pub(crate) fn matches(&self, line: &Line, remainder: u32) -> u32 {
        let low = lanes16::equal_and_zero(&line.words, remainder as u16).0 & self.cell_mask;
        self.high_matches(line, low, remainder)
    }

    /// Non-empty cells holding `remainder` (its low 16 bits non-zero), and
    /// non-empty cells: a probe without ages.
    #[inline(always)]
    pub(crate) fn cells_of(&self, line: &Line, remainder: u32) -> (u32, u32) {
        let (equal, zero) = lanes16::equal_and_zero(&line.words, remainder as u16);
        let full = !zero & self.cell_mask;
        (self.high_matches(line, equal & full, remainder), full)
    }

    /// Compares `remainder` (its low 16 bits non-zero) with every cell of
    /// `line` on `clock`.
    #[cfg(test)]
    fn probe(&self, line: &Line, remainder: u32, clock: &LineClock) -> Probe {
        let (equal, zero) = lanes16::equal_and_zero(&line.words, remainder as u16);
        let full = !zero & self.cell_mask;
        let active = full & !self.older_than(line, clock);
        let matches = self.high_matches(line, equal & full, remainder);
        Probe {
            active,
            hits: matches & active,
            matches,
            full,
        }
    }

    /// Non-empty cells.
    #[inline(always)]
    pub(crate) fn full(&self, line: &Line) -> u32 {
        !lanes16::equal_and_zero(&line.words, 0).1 & self.cell_mask
    }

    /// Cells of `line` holding an active entry (the tests' second view of
    /// [`probe`](Self::probe)).
    #[cfg(test)]
    fn active(&self, line: &Line, clock: &LineClock) -> u32 {
        self.full(line) & !self.older_than(line, clock)
    }

    /// Bits `first..first + count` of the planes at cell `j`, as a number.
    #[inline(always)]
    fn gather(&self, line: &Line, j: u32, first: u32, count: u32) -> u32 {
        (0..count).fold(0, |x, i| x | (self.plane(line, first + i) >> j & 1) << i)
    }

    /// Writes `value`'s low `count` bits into planes `first..first + count`
    /// at cell `j`.
    #[inline(always)]
    fn scatter(&self, line: &mut Line, j: u32, first: u32, count: u32, value: u32) {
        for i in 0..count {
            let plane = self.plane(line, first + i) & !(1 << j) | (value >> i & 1) << j;
            self.set_plane(line, first + i, plane);
        }
    }

    /// Cell `j`'s tag.
    #[inline(always)]
    pub(crate) fn tag(&self, line: &Line, j: u32) -> u32 {
        self.gather(line, j, 0, self.tag_bits)
    }

    /// Writes `tag` into cell `j`.
    #[inline(always)]
    pub(crate) fn set_tag(&self, line: &mut Line, j: u32, tag: u32) {
        self.scatter(line, j, 0, self.tag_bits, tag);
    }

    /// Cell `j` as the other layouts hold it: `remainder << s | tag`, or 0
    /// when empty.
    #[inline(always)]
    pub(crate) fn cell(&self, line: &Line, j: u32) -> u32 {
        match line.words[j as usize] {
            0 => 0,
            low => {
                let high = self.gather(line, j, self.tag_bits, self.high_bits);
                (high << Self::LOW_BITS | u32::from(low)) << self.tag_bits | self.tag(line, j)
            }
        }
    }

    /// Writes an entry (`remainder`, its low 16 bits non-zero, and `tag`)
    /// into cell `j`, whatever it held.
    #[inline(always)]
    pub(crate) fn put(&self, line: &mut Line, j: u32, remainder: u32, tag: u32) {
        debug_assert!(remainder as u16 != 0, "a non-zero low half");
        line.words[j as usize] = remainder as u16;
        let high = remainder >> Self::LOW_BITS;
        self.scatter(line, j, self.tag_bits, self.high_bits, high);
        self.set_tag(line, j, tag);
    }

    /// Replaces cell `j` with `value` (`remainder << s | tag`, 0 to empty
    /// it); returns the old cell. The remainder must fit in `r` bits, with
    /// a non-zero low half unless it is 0.
    #[inline(always)]
    pub(crate) fn replace(&self, line: &mut Line, j: u32, value: u32) -> u32 {
        let old = self.cell(line, j);
        let remainder = value >> self.tag_bits;
        debug_assert!(
            remainder >> Self::LOW_BITS >> self.high_bits == 0,
            "an r-bit remainder"
        );
        debug_assert!(
            remainder == 0 || remainder as u16 != 0,
            "a non-zero low half"
        );
        if remainder == 0 {
            line.words[j as usize] = 0;
            self.scatter(line, j, 0, self.planes(), 0);
        } else {
            self.put(line, j, remainder, value);
        }
        old
    }

    /// Empties every cell that is not active, remainder and planes;
    /// returns how many entries it removed.
    #[inline(always)]
    pub(crate) fn sweep(&self, line: &mut Line, clock: &LineClock) -> u32 {
        let stale = self.older_than(line, clock) & self.full(line);
        for p in 0..self.planes() {
            let plane = self.plane(line, p) & !stale;
            self.set_plane(line, p, plane);
        }
        // A select per cell, no branch: the compiler makes it vector code.
        for (j, word) in line.words.iter_mut().enumerate().take(self.cells as usize) {
            // All ones to keep the cell, zero to empty it.
            *word &= ((stale >> j & 1) as u16).wrapping_sub(1);
        }
        stale.count_ones()
    }

    /// Whether `line` is well formed: the plane bits of empty cells (and
    /// of a narrow line's padding) are zero. What a decoder checks, so
    /// that equal contents have equal bytes.
    pub(crate) fn is_canonical(&self, line: &Line) -> bool {
        let (_, zero) = lanes16::equal_and_zero(&line.words, 0);
        let empty = zero & self.cell_mask;
        let unused = empty | !self.cell_mask;
        (0..self.planes()).all(|p| self.plane(line, p) & unused == 0)
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
    /// `(remainder, tag)` cells, for every shape and many clocks.
    #[test]
    fn a_line_agrees_with_a_list_of_cells() {
        let mut rng = SplitMix64::new(17);
        for (tag_bits, wide) in (1..=LineShape::MAX_TAG_BITS).flat_map(|s| [(s, false), (s, true)])
        {
            let shape = LineShape::new(tag_bits, wide).unwrap();
            let cells = shape.cells() as usize;
            let modulus = 1u32 << tag_bits;
            let top = shape.remainder_bits() - LineShape::LOW_BITS;
            // Few distinct remainders, so that equal ones are common: low
            // halves in 0..5, high parts in 0..3 (placed at the top, to
            // reach the last plane).
            let remainder_of = |low: u32, high: u32| {
                if low == 0 {
                    0
                } else if top == 0 {
                    low
                } else {
                    ((high & 1) << (top - 1) | high >> 1) << LineShape::LOW_BITS | low
                }
            };
            for round in 0..3_000u32 {
                let current = rng.below(u64::from(modulus)) as u32;
                let max_age = rng.below(u64::from(modulus)) as u32;
                let mut line = Line::EMPTY;
                let mut model = vec![(0u32, 0u32); cells];
                for _ in 0..rng.below(3 * cells as u64) {
                    let j = rng.below(cells as u64) as u32;
                    let remainder = remainder_of(rng.below(5) as u32, rng.below(3) as u32);
                    let tag = rng.below(u64::from(modulus)) as u32;
                    let value = remainder << tag_bits | tag;
                    let old = shape.replace(&mut line, j, value);
                    let (r, t) = model[j as usize];
                    assert_eq!(old, if r == 0 { 0 } else { r << tag_bits | t });
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
                            *c = (0, 0);
                        }
                    }
                    let after = model.iter().filter(|c| c.0 != 0).count();
                    assert_eq!(removed as usize, before - after);
                }
                let clock = LineClock::new(current, max_age, tag_bits);
                let active = shape.active(&line, &clock);
                for probe in (1..5).flat_map(|low| (0..3).map(move |high| (low, high))) {
                    let probe = remainder_of(probe.0, probe.1);
                    let p = shape.probe(&line, probe, &clock);
                    assert_eq!(p.matches, shape.matches(&line, probe));
                    assert_eq!(p.matches, shape.cells_of(&line, probe).0);
                    assert_eq!(p.active, active);
                    for (j, &(r, t)) in model.iter().enumerate() {
                        let live = r != 0 && age(t) <= max_age;
                        let at = format!("s {tag_bits}, wide {wide}, cell {j}");
                        assert_eq!(p.active >> j & 1 == 1, live, "{at}");
                        assert_eq!(p.hits >> j & 1 == 1, live && r == probe, "{at}");
                        assert_eq!(p.matches >> j & 1 == 1, r != 0 && r == probe, "{at}");
                    }
                }
                for (j, &(r, t)) in model.iter().enumerate() {
                    let want = if r == 0 { 0 } else { r << tag_bits | t };
                    assert_eq!(shape.cell(&line, j as u32), want, "s {tag_bits}, cell {j}");
                }
                // `replace` and `sweep` clear an emptied cell's planes.
                assert!(shape.is_canonical(&line));
                assert_eq!(LineShape::from_words(&LineShape::words(&line)), line);
            }
        }
    }

    #[test]
    fn shapes_hold_sixteen_to_thirty_cells() {
        assert_eq!(LineShape::new(0, false), None);
        assert_eq!(LineShape::new(9, true), None);
        let narrow = LineShape::new(3, false).unwrap();
        assert_eq!((narrow.cells(), narrow.remainder_bits()), (26, 16));
        assert_eq!(LineShape::new(8, false).unwrap().cells(), 16);
        let wide = LineShape::new(7, true).unwrap();
        assert_eq!((wide.cells(), wide.remainder_bits()), (16, 25));
        assert_eq!(size_of::<Line>(), 64);
        assert_eq!(align_of::<Line>(), 64);
    }

    #[test]
    fn set_bits_in_a_wide_empty_cell_are_not_canonical() {
        let shape = LineShape::new(7, true).unwrap();
        let mut line = Line::EMPTY;
        // A high remainder bit left behind in an empty cell.
        shape.scatter(&mut line, 2, 7, 9, 1 << 8);
        assert!(!shape.is_canonical(&line));
        shape.replace(&mut line, 2, (1 << 24 | 5) << 7 | 3);
        assert!(shape.is_canonical(&line));
        assert_eq!(shape.cell(&line, 2), (1 << 24 | 5) << 7 | 3);
    }

    #[test]
    fn set_bits_in_the_padding_are_not_canonical() {
        let shape = LineShape::new(3, false).unwrap();
        let mut line = Line::EMPTY;
        assert!(shape.is_canonical(&line));
        shape.set_tag(&mut line, 4, 5);
        assert!(!shape.is_canonical(&line), "an empty cell with a tag");
        shape.replace(&mut line, 4, 9 << 3 | 5);
        assert!(shape.is_canonical(&line));
    }
}
