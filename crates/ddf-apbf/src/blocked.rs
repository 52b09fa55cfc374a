//! The Age-Partitioned Blocked Bloom filter: a blocked Bloom filter per segment.

use crate::age::AgePartitioned;
use crate::core::{AgeCore, ItemProbes, Segments, StateFields, algorithm_1};
use ddf_core::snapshot::{self, DecodeError, Decoder, Encoder, Snapshot};
use ddf_core::{Digest, Goal, MergeError, ParamError};
use ddf_param::{checked_mul, ensure_range, state_words};
use std::fmt;

/// One 64-byte cache line, aligned, so a 512-bit block is one line.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
#[repr(C, align(64))]
pub(crate) struct Line(pub(crate) [u64; 8]);

/// The APBBF's segment layout: `k + l` segments of `blocks` blocks of `B`
/// bits, each block `b` parts. The `S` of [`Apbbf`] `= AgePartitioned<Blocks>`.
#[derive(Clone, PartialEq, Eq)]
pub struct Blocks {
    pub(crate) lines: Vec<Line>,
    /// Words of state, `(k + l)·blocks·B/64`; the last line may have more.
    pub(crate) words: u64,
    /// Blocks per segment.
    pub(crate) blocks: u64,
    /// `B` in words: 1 (64-bit blocks) or 8 (512-bit blocks).
    pub(crate) block_words: u64,
    /// `b`, bits set per item in a block.
    pub(crate) b: u32,
    /// `log₂(B/b)`, the bits that pick a position within a part.
    pub(crate) part_shift: u32,
    /// `(B, b)` when the part loop has an unrolled form; derived, not state.
    shape: Shape,
}

impl fmt::Debug for Blocks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Blocks")
            .field("blocks", &self.blocks)
            .field("block_bits", &(self.block_words * 64))
            .field("bits_per_block", &self.b)
            .finish_non_exhaustive()
    }
}

impl Blocks {
    /// Word `w` of the whole state.
    #[inline]
    fn word(&self, w: u64) -> u64 {
        self.lines[(w / 8) as usize].0[(w % 8) as usize]
    }

    #[inline]
    fn word_mut(&mut self, w: u64) -> &mut u64 {
        &mut self.lines[(w / 8) as usize].0[(w % 8) as usize]
    }

    /// The item's block in segment `seg` (an index over the blocks of all
    /// segments, segment by segment) from the segment's raw probe value `x`,
    /// and the bits that pick its position in each part (from the top down):
    /// one multiplication gives both (`Digest::split`).
    #[inline(always)]
    fn locate(&self, seg: usize, x: u64) -> (u64, u64) {
        locate_block(self.blocks, seg, x)
    }

    /// Sets the item's bits in the block that `locate` found.
    #[inline(always)]
    fn set_located(&mut self, (block, bits): (u64, u64)) {
        match self.shape {
            Shape::Word4 => InWord::<4, 4>::set(&mut self.lines, block, bits),
            Shape::Word8 => InWord::<8, 3>::set(&mut self.lines, block, bits),
            Shape::Line4 => InLine::<4, 7>::set(&mut self.lines, block, bits),
            Shape::Line8 => InLine::<8, 6>::set(&mut self.lines, block, bits),
            Shape::Other => self.set_other(block, bits),
        }
    }

    /// `set_located` for a shape without an unrolled form: out of line, so
    /// that the common shapes' loops keep their registers.
    #[inline(never)]
    #[cold]
    fn set_other(&mut self, block: u64, bits: u64) {
        let first = block * self.block_words;
        if self.block_words == 1 {
            let mask = self.parts(bits).fold(0, |m, (_, bit)| m | bit);
            *self.word_mut(first) |= mask;
        } else {
            let parts = self.parts(bits);
            let line = &mut self.lines[(first / 8) as usize].0;
            for (w, bit) in parts {
                line[w] |= bit;
            }
        }
    }

    /// `test` for a shape without an unrolled form, out of line as
    /// [`set_other`](Self::set_other).
    #[inline(never)]
    #[cold]
    fn test_other(&self, block: u64, bits: u64) -> bool {
        let first = block * self.block_words;
        if self.block_words == 1 {
            let mask = self.parts(bits).fold(0, |m, (_, bit)| m | bit);
            self.word(first) & mask == mask
        } else {
            let line = &self.lines[(first / 8) as usize].0;
            self.parts(bits)
                .fold(0, |missing, (w, bit)| missing | (bit & !line[w]))
                == 0
        }
    }

    /// The item's bit in each of the `b` parts: (word within the block, mask).
    /// Computed on the fly, with no array of masks, so nothing waits on a
    /// store to memory.
    #[inline]
    fn parts(&self, bits: u64) -> impl Iterator<Item = (usize, u64)> + use<> {
        block_parts(bits, self.b, self.part_shift)
    }

    /// [`Segments::observe_unshifted`] for a shape with an unrolled form:
    /// Algorithm 1 (APBF paper §5.4) as `AgeCore::query_probes` runs it with
    /// no segment empty, then the `k` insertions. The query of an unseen item
    /// ends in a segment the insertion sets (logical `l mod k`): that block
    /// is located, read and set once for both.
    ///
    /// The tests stay a chain of branches, not loads made up front: which
    /// block comes next depends on the last test's answer only through
    /// control flow (every block's address is known from the digest), so the
    /// core predicts the path, a miss at each step for an unseen item, and
    /// issues those loads together. Testing every segment at once costs more
    /// instructions than the mispredictions it saves (`ALL_AT_ONCE`).
    #[inline(always)]
    fn observe_with<K: Kernel>(
        &mut self,
        h: ItemProbes,
        cubic: &[u64],
        base: usize,
        k: usize,
    ) -> bool {
        let (n, blocks) = (cubic.len(), self.blocks);
        let lines = &mut self.lines[..];
        // The last of the insertion's segments (logical below `k`) that the
        // query tested and set: logical `l mod k` for an unseen item. Setting
        // it early changes no answer, since Algorithm 1 tests no segment twice.
        let mut done = usize::MAX;
        let (seen, _) = algorithm_1(
            k,
            n,
            #[inline(always)]
            |i| {
                let (block, bits) = locate_logical(h, cubic, base, blocks, i);
                if i < k {
                    done = i;
                    K::test_and_set(lines, block, bits)
                } else {
                    K::test(lines, block, bits)
                }
            },
        );
        for j in (0..k).filter(|&j| j != done) {
            let (block, bits) = locate_logical(h, cubic, base, blocks, j);
            K::set(lines, block, bits);
        }
        seen
    }

    /// [`Segments::query_unshifted`] for a shape with an unrolled form:
    /// Algorithm 1 with the shape's test, chosen once per query.
    #[inline(always)]
    fn query_with<K: Kernel>(&self, h: ItemProbes, cubic: &[u64], base: usize, k: usize) -> bool {
        let blocks = self.blocks;
        algorithm_1(
            k,
            cubic.len(),
            #[inline(always)]
            |i| {
                let (block, bits) = locate_logical(h, cubic, base, blocks, i);
                K::test(&self.lines, block, bits)
            },
        )
        .0
    }
}

/// [`Blocks::locate`] for segments of `blocks` blocks.
#[inline(always)]
pub(crate) fn locate_block(blocks: u64, seg: usize, x: u64) -> (u64, u64) {
    let (block, rest) = Digest::new(x).split(blocks);
    (seg as u64 * blocks + block, rest.get())
}

/// The item's bit in each of the `b` parts of `2^s` bits of a block, from
/// `bits` (the probe's rest, read from the top down): (word within the
/// block, mask).
#[inline(always)]
pub(crate) fn block_parts(mut bits: u64, b: u32, s: u32) -> impl Iterator<Item = (usize, u64)> {
    (0..u64::from(b)).map(move |q| {
        let pos = (q << s) + (bits >> (64 - s));
        bits <<= s;
        ((pos / 64) as usize, 1u64 << (pos % 64))
    })
}

/// The item's block and part bits (as [`Blocks::locate`]) in logical segment
/// `i < n` when logical segment 0 is physical `base` (`n = cubic.len()`).
#[inline(always)]
fn locate_logical(h: ItemProbes, cubic: &[u64], base: usize, blocks: u64, i: usize) -> (u64, u64) {
    let n = cubic.len();
    let p = if base + i >= n {
        base + i - n
    } else {
        base + i
    };
    let (block, rest) = Digest::new(h.at(p, cubic)).split(blocks);
    (p as u64 * blocks + block, rest.get())
}

/// The common block shapes, whose part loops are unrolled with `b` and
/// `log₂(B/b)` known at compile time; `Other` runs the general loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// `B = 64, b = 4`.
    Word4,
    /// `B = 64, b = 8`.
    Word8,
    /// `B = 512, b = 4`.
    Line4,
    /// `B = 512, b = 8`.
    Line8,
    Other,
}

impl Shape {
    pub(crate) fn of(block_bits: u32, b: u32) -> Self {
        match (block_bits, b) {
            (64, 4) => Shape::Word4,
            (64, 8) => Shape::Word8,
            (512, 4) => Shape::Line4,
            (512, 8) => Shape::Line8,
            _ => Shape::Other,
        }
    }
}

/// The test and the setting of an item's `b` bits in a block of one common
/// shape, with the part loop unrolled. `block` indexes the blocks of all
/// segments; `bits` picks a position in each part from the top down.
trait Kernel {
    /// Whether every bit of the item is set in `block`.
    fn test(lines: &[Line], block: u64, bits: u64) -> bool;
    /// Sets the item's bits in `block`.
    fn set(lines: &mut [Line], block: u64, bits: u64);
    /// `test` then `set` with one read of each word.
    fn test_and_set(lines: &mut [Line], block: u64, bits: u64) -> bool;
}

/// One-word blocks (`B = 64`) of `P` parts of `2^S` bits: the item is one
/// mask of `P` bits.
pub(crate) struct InWord<const P: u32, const S: u32>;

/// One-line blocks (`B = 512`) of `P` parts of `2^S ≥ 64` bits: each part
/// is `2^(S−6)` whole words, so the item has one bit in one word of each.
struct InLine<const P: u32, const S: u32>;

/// Part `q` of `2^S` bits: the bit the top `S` bits of `bits << q·S` pick,
/// as (word of the block, mask).
#[inline(always)]
fn part<const S: u32>(bits: u64, q: u32) -> (usize, u64) {
    let pos = (u64::from(q) << S) + ((bits << (q * S)) >> (64 - S));
    ((pos / 64) as usize, 1u64 << (pos % 64))
}

/// Part `q` of `2^S ≥ 64` bits, as [`part`] picks it: (word of the line,
/// bit of the word). The part's `S` bits end `(q + 1)·S` bits below the top;
/// their top `S − 6` pick the word within the part and the low 6 the bit,
/// which a shift by the unmasked value takes mod 64.
#[inline(always)]
pub(crate) fn line_part<const S: u32>(bits: u64, q: u32) -> (usize, u64) {
    let r = bits >> (64 - S * (q + 1));
    let word = ((q as usize) << (S - 6)) + ((r >> 6) as usize & ((1 << (S - 6)) - 1));
    (word, r & 63)
}

impl<const P: u32, const S: u32> InWord<P, S> {
    /// The item's mask in its word.
    #[inline(always)]
    pub(crate) fn mask(bits: u64) -> u64 {
        (0..P).fold(0, |m, q| m | part::<S>(bits, q).1)
    }
}

impl<const P: u32, const S: u32> Kernel for InWord<P, S> {
    #[inline(always)]
    fn test(lines: &[Line], block: u64, bits: u64) -> bool {
        let mask = Self::mask(bits);
        lines[(block / 8) as usize].0[(block % 8) as usize] & mask == mask
    }

    #[inline(always)]
    fn set(lines: &mut [Line], block: u64, bits: u64) {
        lines[(block / 8) as usize].0[(block % 8) as usize] |= Self::mask(bits);
    }

    #[inline(always)]
    fn test_and_set(lines: &mut [Line], block: u64, bits: u64) -> bool {
        let mask = Self::mask(bits);
        let word = &mut lines[(block / 8) as usize].0[(block % 8) as usize];
        let old = *word;
        *word = old | mask;
        old & mask == mask
    }
}

impl<const P: u32, const S: u32> Kernel for InLine<P, S> {
    #[inline(always)]
    fn test(lines: &[Line], block: u64, bits: u64) -> bool {
        let line = &lines[block as usize].0;
        // Branch-free: bit 0 stays set while each part's bit is.
        (0..P).fold(1, |all, q| {
            let (w, r) = line_part::<S>(bits, q);
            all & (line[w] >> r)
        }) & 1
            != 0
    }

    #[inline(always)]
    fn set(lines: &mut [Line], block: u64, bits: u64) {
        let line = &mut lines[block as usize].0;
        for q in 0..P {
            let (w, r) = line_part::<S>(bits, q);
            line[w] |= 1 << r;
        }
    }

    #[inline(always)]
    fn test_and_set(lines: &mut [Line], block: u64, bits: u64) -> bool {
        let line = &mut lines[block as usize].0;
        // The parts' words are disjoint: each is read before it is set.
        (0..P).fold(1, |all, q| {
            let (w, r) = line_part::<S>(bits, q);
            let old = line[w];
            line[w] = old | 1 << r;
            all & (old >> r)
        }) & 1
            != 0
    }
}

impl Segments for Blocks {
    /// A test is `b` bits of a block: at `k = 3, l = 8, B = 512, b = 4`,
    /// 1 Mbit, 11 tests at once took 87 ns for an item, present or not,
    /// against 50 (unseen) and 73 (present) for Algorithm 1 (CPU time,
    /// `examples/profile`).
    const ALL_AT_ONCE: bool = false;
    /// About `l/k + k` lines per item (5 at k = 3, l = 8): four items
    /// ahead keep the line-fill buffers busy.
    const LOOKAHEAD: usize = 4;
    /// A block matches an unseen item with about its segment's rate, a
    /// few per cent at the planner's shapes: the query seldom walks on
    /// from a stop, and a hint there would mostly fetch a line for nothing.
    const CHAIN_AHEAD: usize = 0;
    /// A test is `b` shifts and masks of a block's words: at x86-64-v3
    /// (three-operand shifts) an observe of the planner's shape at
    /// `fpr(1e-3)` takes 29 % fewer instructions.
    const ISA_KERNELS: bool = true;

    #[inline(always)]
    fn test(&self, seg: usize, x: u64) -> bool {
        let (block, bits) = self.locate(seg, x);
        match self.shape {
            Shape::Word4 => InWord::<4, 4>::test(&self.lines, block, bits),
            Shape::Word8 => InWord::<8, 3>::test(&self.lines, block, bits),
            Shape::Line4 => InLine::<4, 7>::test(&self.lines, block, bits),
            Shape::Line8 => InLine::<8, 6>::test(&self.lines, block, bits),
            Shape::Other => self.test_other(block, bits),
        }
    }

    #[inline(always)]
    fn set(&mut self, seg: usize, x: u64) {
        let located = self.locate(seg, x);
        self.set_located(located);
    }

    #[inline(always)]
    fn observe_unshifted(
        &mut self,
        h: ItemProbes,
        cubic: &[u64],
        base: usize,
        k: usize,
    ) -> Option<bool> {
        Some(match self.shape {
            Shape::Word4 => self.observe_with::<InWord<4, 4>>(h, cubic, base, k),
            Shape::Word8 => self.observe_with::<InWord<8, 3>>(h, cubic, base, k),
            Shape::Line4 => self.observe_with::<InLine<4, 7>>(h, cubic, base, k),
            Shape::Line8 => self.observe_with::<InLine<8, 6>>(h, cubic, base, k),
            Shape::Other => return None,
        })
    }

    #[inline(always)]
    fn query_unshifted(&self, h: ItemProbes, cubic: &[u64], base: usize, k: usize) -> Option<bool> {
        Some(match self.shape {
            Shape::Word4 => self.query_with::<InWord<4, 4>>(h, cubic, base, k),
            Shape::Word8 => self.query_with::<InWord<8, 3>>(h, cubic, base, k),
            Shape::Line4 => self.query_with::<InLine<4, 7>>(h, cubic, base, k),
            Shape::Line8 => self.query_with::<InLine<8, 6>>(h, cubic, base, k),
            Shape::Other => return None,
        })
    }

    #[inline]
    fn prefetch(&self, seg: usize, x: u64) {
        let (block, _) = self.locate(seg, x);
        let line = block * self.block_words / 8;
        ddf_bits::prefetch::prefetch_write(&self.lines, line as usize);
    }

    fn clear_segment(&mut self, seg: usize) {
        let words = self.blocks * self.block_words;
        let start = seg as u64 * words;
        for w in start..start + words {
            *self.word_mut(w) = 0;
        }
    }

    fn clear_all(&mut self) {
        self.lines.fill(Line::default());
    }

    /// Whole blocks only: the padding of the last line is not state.
    fn memory_bits(&self) -> u64 {
        self.words * 64
    }

    const NAME: &'static str = "APBBF";

    fn same_shape(&self, other: &Self) -> Result<(), MergeError> {
        MergeError::check("blocks", self.blocks, other.blocks)?;
        MergeError::check("block_bits", self.block_words * 64, other.block_words * 64)?;
        MergeError::check("bits_per_block", self.b, other.b)
    }

    fn union(&mut self, other: &Self) {
        for (line, theirs) in self.lines.iter_mut().zip(&other.lines) {
            for (w, o) in line.0.iter_mut().zip(theirs.0) {
                *w |= o;
            }
        }
    }
}

/// Checks a block shape and returns `log₂(B/b)`, the bits per part position.
fn check_shape(block_bits: u32, bits_per_block: u32) -> Result<u32, ParamError> {
    if block_bits != 64 && block_bits != 512 {
        return Err(ParamError::new(
            "block_bits",
            block_bits,
            "64 (a word) or 512 (a cache line)",
        ));
    }
    let b = bits_per_block;
    let part = block_bits.checked_div(b).unwrap_or(0);
    let s = part.checked_ilog2().unwrap_or(0);
    if !(b.is_power_of_two() && part >= 2 && b * s <= 64) {
        return Err(ParamError::new(
            "bits_per_block",
            b,
            format!("a power of two with 2·b ≤ {block_bits} and b·log2({block_bits}/b) ≤ 64"),
        ));
    }
    Ok(s)
}

/// The fewest blocks per segment whose generation `⌊blocks·c/k⌋` holds
/// `g` items, `c` the items per block at capacity (at least 1, a part of 2
/// bits, so the search ends). Saturates at `u64::MAX`; `check` refuses it.
pub(crate) fn blocks_for_generation(g: u64, k: u32, block_bits: u32, bits_per_block: u32) -> u64 {
    let c = ddf_theory::blocked_bloom::block_capacity(block_bits, bits_per_block);
    let mut blocks = ((g as f64 * f64::from(k)) / c).ceil().max(1.0) as u64;
    while ((blocks as f64 * c / f64::from(k)).floor() as u64) < g && blocks < u64::MAX {
        blocks += 1;
    }
    blocks
}

/// An Age-Partitioned Blocked Bloom filter (APBF paper §6): the
/// age-partitioning of [`Apbf`](crate::Apbf) with a blocked Bloom filter in
/// each segment, so that an insertion touches `k` cache lines (or words)
/// and a query about 2–5.
///
/// Each of the `k + l` segments is `blocks` blocks of `B` bits (`B = 64`, a
/// word, or `B = 512`, a cache line). An item's probe for a segment picks
/// one block and, from the same 64-bit probe, one bit in each of the
/// block's `b` parts of `B/b` bits. A segment's match probability is the
/// blocked filter's false-positive rate, so the APBF theory applies with it
/// in place of the fill ratio ([`ddf_theory::apbf::apbbf_segment_rates`]).
///
/// A generation is `g = ⌊blocks·c/k⌋` items, where `c` is the number of
/// items that fill a part of `B/b` bits to ½; the window is `l·g`, the
/// slack `k·g`, and time-based generations
/// ([`with_time_span`](Apbbf::with_time_span)) work as for
/// [`Apbf`](crate::Apbf::with_time_span).
///
/// # Examples
///
/// ```
/// use ddf_apbf::{Apbbf, Deduper, Verdict};
///
/// let mut seen = Deduper::new(Apbbf::with_window(100_000, 0.001)?);
/// assert_eq!(seen.observe("order-1"), Verdict::Unseen);
/// assert_eq!(seen.observe("order-1"), Verdict::Duplicate);
/// # Ok::<(), ddf_apbf::ParamError>(())
/// ```
pub type Apbbf = AgePartitioned<Blocks>;

impl AgePartitioned<Blocks> {
    /// An APBBF with `k` segments per item, `l` extra segments (`k, l ≥ 1`,
    /// `k + l ≤ 4096`), `blocks` (≥ 1) blocks of `block_bits` (`B`, 64 or
    /// 512) bits per segment, and `bits_per_block` (`b`, a power of two with
    /// `2b ≤ B` and `b·log₂(B/b) ≤ 64`, e.g. 4 or 8) bits per item and block.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_apbf::{Apbbf, Digest, DuplicateFilter, Verdict};
    ///
    /// // The APBF paper's shape k = 3, l = 8, 512-bit blocks, 4 bits per item.
    /// let mut f = Apbbf::new(3, 8, 1024, 512, 4)?;
    /// assert_eq!(f.memory_bits(), (3 + 8) * 1024 * 512);
    /// assert_eq!(f.observe(Digest::mixed(1)), Verdict::Unseen);
    /// assert_eq!(f.observe(Digest::mixed(1)), Verdict::Duplicate);
    /// assert_eq!(Apbbf::new(3, 8, 1024, 100, 4).unwrap_err().param(), "block_bits");
    /// # Ok::<(), ddf_apbf::ParamError>(())
    /// ```
    pub fn new(
        k: u32,
        l: u32,
        blocks: u64,
        block_bits: u32,
        bits_per_block: u32,
    ) -> Result<Self, ParamError> {
        let (g, words, s) = Self::check(k, l, blocks, block_bits, bits_per_block)?;
        let segs = Blocks {
            // Huge pages from 8 MiB on (`ddf_bits::pages`): probes at
            // random over a large table miss the TLB in 4 KiB pages.
            lines: ddf_bits::pages::filled_vec(words.div_ceil(8), Line::default()),
            words: words as u64,
            blocks,
            block_words: u64::from(block_bits / 64),
            b: bits_per_block,
            part_shift: s,
            shape: Shape::of(block_bits, bits_per_block),
        };
        Ok(AgePartitioned::of(AgeCore::new(segs, k, l, g)))
    }

    /// As [`new`](Self::new)`(k, l, blocks, block_bits, bits_per_block)`
    /// with time-based generations over a window of `span` time units
    /// (`t ≥ 1`, parameter `time_span`), as for
    /// [`Apbf::with_time_span`](crate::Apbf::with_time_span): each
    /// generation lasts at most `τ = ⌈t/l⌉`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_apbf::{Apbbf, Window, Windowed};
    ///
    /// let f = Apbbf::with_time_span(800, 3, 8, 1024, 512, 4)?;
    /// assert_eq!((f.period(), f.window()), (Some(100), Window::Time(800)));
    /// assert_eq!(Apbbf::with_time_span(0, 3, 8, 1024, 512, 4).unwrap_err().param(), "time_span");
    /// # Ok::<(), ddf_apbf::ParamError>(())
    /// ```
    pub fn with_time_span(
        span: u64,
        k: u32,
        l: u32,
        blocks: u64,
        block_bits: u32,
        bits_per_block: u32,
    ) -> Result<Self, ParamError> {
        let f = Self::new(k, l, blocks, block_bits, bits_per_block)?;
        Self::from_core_with_span(f.core, span)
    }

    /// The parameter rule of [`new`](Self::new) and
    /// [`sizing`](Self::sizing), without allocating: valid `(k, l)` and
    /// shape, blocks whose generation holds an item, state within the limit.
    /// Returns the generation `g`, the state words and `log₂(B/b)`.
    pub(crate) fn check(
        k: u32,
        l: u32,
        blocks: u64,
        block_bits: u32,
        bits_per_block: u32,
    ) -> Result<(u64, usize, u32), ParamError> {
        AgeCore::<Blocks>::check_kl(k, l)?;
        let (b, s) = (bits_per_block, check_shape(block_bits, bits_per_block)?);
        let blocks = ensure_range("blocks", blocks, 1..=ddf_param::MAX_STATE_BITS / 64)?;
        let c = ddf_theory::blocked_bloom::block_capacity(block_bits, b);
        let g = (blocks as f64 * c / f64::from(k)).floor();
        if g < 1.0 {
            return Err(ParamError::new(
                "blocks",
                blocks,
                format!(
                    "enough blocks for one item per generation ({c:.1} items per block, k = {k})"
                ),
            ));
        }
        let bits = checked_mul(
            "blocks",
            checked_mul("blocks", u64::from(k + l), blocks)?,
            u64::from(block_bits),
        )?;
        let words = state_words("blocks", bits)?;
        Ok((g as u64, words, s))
    }

    /// An APBBF for a window of at least `window` insertions whose
    /// false-positive rate at its worst point is at most `fpr` (in `(0, 1)`),
    /// with peak NPWS at most [`DEFAULT_NPWS`](crate::DEFAULT_NPWS): the
    /// shape `(k, l, B, b)` of
    /// [`parameters_for`](Self::parameters_for)`(Goal::Fpr(fpr), …)` (the
    /// fewest bits per window item among the shapes of the APBF paper's
    /// §6, rated as its Table 3 by
    /// [`apbbf_segment_rates`](ddf_theory::apbf::apbbf_segment_rates), then
    /// the fewest segments within
    /// [`APBBF_SEGMENT_TOLERANCE`](crate::APBBF_SEGMENT_TOLERANCE) of those
    /// bits, whatever the slack), then the fewest blocks whose generation
    /// makes `l·g ≥ window`.
    ///
    /// ```
    /// use ddf_apbf::{Apbbf, Window, Windowed};
    /// let f = Apbbf::with_window(100_000, 0.001)?;
    /// assert!(matches!(f.window(), Window::Count(w) if w >= 100_000));
    /// assert_eq!(f.block_bits(), 512);
    /// # Ok::<(), ddf_apbf::ParamError>(())
    /// ```
    pub fn with_window(window: u64, fpr: f64) -> Result<Self, ParamError> {
        let window = ddf_param::ensure_window(window, ddf_param::MAX_STATE_BITS)?;
        let shape =
            Self::parameters_for(Goal::Fpr(fpr), |l| window.div_ceil(u64::from(l)), |_| true)?;
        Self::new(
            shape.k,
            shape.l,
            shape.blocks,
            shape.block_bits,
            shape.bits_per_block,
        )
    }

    /// An APBBF with the given shape whose window is at least `window`
    /// insertions: the fewest blocks per segment whose generation `g`
    /// makes `l·g ≥ window`. The APBF paper's Table 3 lists shapes and their
    /// false-positive rates ([`ddf_theory::apbf::apbbf_segment_rates`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_apbf::{Apbbf, Window, Windowed};
    ///
    /// let f = Apbbf::with_window_shape(100_000, 3, 8, 512, 4)?;
    /// assert!(matches!(f.window(), Window::Count(w) if w >= 100_000));
    /// # Ok::<(), ddf_apbf::ParamError>(())
    /// ```
    pub fn with_window_shape(
        window: u64,
        k: u32,
        l: u32,
        block_bits: u32,
        bits_per_block: u32,
    ) -> Result<Self, ParamError> {
        AgeCore::<Blocks>::check_kl(k, l)?;
        check_shape(block_bits, bits_per_block)?;
        let window = ddf_param::ensure_window(window, ddf_param::MAX_STATE_BITS)?;
        let blocks =
            blocks_for_generation(window.div_ceil(u64::from(l)), k, block_bits, bits_per_block);
        Self::new(k, l, blocks, block_bits, bits_per_block)
    }

    /// Blocks per segment.
    pub fn blocks(&self) -> u64 {
        self.core.segs.blocks
    }

    /// Bits per block, `B`.
    pub fn block_bits(&self) -> u32 {
        (self.core.segs.block_words * 64) as u32
    }

    /// Bits set per item in a block, `b`.
    pub fn bits_per_block(&self) -> u32 {
        self.core.segs.b
    }
}

impl fmt::Debug for Apbbf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Apbbf")
            .field("k", &self.core.k)
            .field("l", &self.core.l)
            .field("blocks", &self.core.segs.blocks)
            .field("block_bits", &self.block_bits())
            .field("bits_per_block", &self.core.segs.b)
            .field("generation", &self.core.generation)
            .field("period", &self.period())
            .finish_non_exhaustive()
    }
}

/// Body: blocks (u64), block bits (u32), bits per block (u32); `k`, `l`,
/// clock and position; the state as words (whole cache lines).
impl Snapshot for Apbbf {
    const KIND: u16 = snapshot::kind::APBBF;
    // Layout 2 added the clock and overload counters; layout 1 is not read.
    const VERSION: u16 = 2;
    const OLDEST_VERSION: u16 = 2;

    fn encode_body(&self, out: &mut Encoder) {
        out.put_u64(self.core.segs.blocks);
        out.put_u32(self.block_bits());
        out.put_u32(self.core.segs.b);
        self.core.encode_state(out);
        let words: Vec<u64> = self.core.segs.lines.iter().flat_map(|l| l.0).collect();
        out.put_words(&words);
    }

    fn decode_body(input: &mut Decoder<'_>, _version: u16) -> Result<Self, DecodeError> {
        let blocks = input.u64("blocks")?;
        let block_bits = input.u32("block_bits")?;
        let b = input.u32("bits_per_block")?;
        let state = StateFields::decode(input)?;
        let words = input.words("blocks")?;
        let bits = checked_mul("blocks", u64::from(state.k) + u64::from(state.l), blocks)
            .and_then(|x| checked_mul("blocks", x, u64::from(block_bits)))?;
        let lines = state_words("blocks", bits)?.div_ceil(8);
        if words.len() != lines * 8 {
            return Err(DecodeError::invalid(
                "blocks",
                "word count does not match the shape",
            ));
        }
        let mut f = Apbbf::new(state.k, state.l, blocks, block_bits, b)?;
        // Blocks are whole words; the words past the last block (in the
        // last line) must stay zero.
        let used = (bits / 64) as usize;
        if words[used..].iter().any(|&w| w != 0) {
            return Err(DecodeError::invalid(
                "blocks",
                "bits set past the last block",
            ));
        }
        for (line, chunk) in f.core.segs.lines.iter_mut().zip(words.chunks_exact(8)) {
            line.0.copy_from_slice(chunk);
        }
        state.apply(&mut f.core)?;
        Ok(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ddf_core::{DuplicateFilter, Window, Windowed};

    #[test]
    fn parameters_are_checked() {
        assert_eq!(
            Apbbf::new(2, 3, 100, 128, 4).unwrap_err().param(),
            "block_bits"
        );
        assert_eq!(
            Apbbf::new(2, 3, 100, 64, 3).unwrap_err().param(),
            "bits_per_block"
        );
        assert_eq!(
            Apbbf::new(2, 3, 100, 64, 64).unwrap_err().param(),
            "bits_per_block"
        );
        assert_eq!(
            Apbbf::new(2, 3, 100, 512, 16).unwrap_err().param(),
            "bits_per_block"
        );
        assert_eq!(
            Apbbf::new(2, 3, 100, 64, 0).unwrap_err().param(),
            "bits_per_block"
        );
        assert_eq!(Apbbf::new(2, 3, 0, 64, 4).unwrap_err().param(), "blocks");
        assert_eq!(Apbbf::new(0, 3, 10, 64, 4).unwrap_err().param(), "k");
        assert!(Apbbf::new(2, 3, 1, 512, 8).is_ok());
        assert_eq!(
            Apbbf::with_window_shape(100, 2, 3, 64, 1024)
                .unwrap_err()
                .param(),
            "bits_per_block"
        );
        assert_eq!(
            Apbbf::with_window_shape(100, 2, 3, 100, 4)
                .unwrap_err()
                .param(),
            "block_bits"
        );
    }

    #[test]
    fn shape_and_window() {
        // B = 512, b = 4: c = 88.375 items per block, so 1000 blocks and
        // k = 2 give g = 44_187.
        let f = Apbbf::new(2, 5, 1000, 512, 4).unwrap();
        assert_eq!(f.generation(), 44_187);
        assert_eq!(f.window(), Window::Count(5 * 44_187));
        assert_eq!(f.memory_bits(), 7 * 1000 * 512);
        let w = Apbbf::with_window_shape(100_000, 3, 8, 64, 4).unwrap();
        let Window::Count(len) = w.window() else {
            unreachable!()
        };
        assert!((100_000..100_000 + 8 * 4).contains(&len));
    }

    #[test]
    fn items_in_the_window_are_found() {
        for (bb, b) in [(64, 4), (64, 8), (512, 4), (512, 8)] {
            let mut f = Apbbf::new(2, 3, 50, bb, b).unwrap();
            let w = 3 * f.generation();
            for i in 0..5 * w {
                f.insert(Digest::mixed(i));
                if i % 61 == 0 {
                    let from = (i + 1).saturating_sub(w);
                    assert!(
                        (from..=i).all(|j| f.contains(Digest::mixed(j))),
                        "B = {bb}, b = {b}"
                    );
                }
            }
        }
    }

    #[test]
    fn with_window_meets_its_rate_on_a_seeded_stream() {
        let param = |r: Result<Apbbf, ParamError>| r.unwrap_err().param();
        assert_eq!(param(Apbbf::with_window(0, 0.01)), "window");
        assert_eq!(param(Apbbf::with_window(1000, 0.0)), "fpr");
        assert_eq!(param(Apbbf::with_window(1000, 1e-300)), "fpr");
        // The target bounds the rate at every point of the stream; not
        // vacuous: the count is of the target's order (above a tenth).
        let (w, fp) = (2_000u64, 0.01);
        let mut f = Apbbf::with_window(w, fp).unwrap();
        let Window::Count(len) = f.window() else {
            unreachable!()
        };
        assert!(len >= w);
        ddf_core::testing::assert_fpr_on_distinct_stream(&mut f, fp, 40 * w, 0.1);
    }

    /// The blocked filter runs as kernels compiled twice
    /// ([`ddf_bits::isa`]): this machine's copy and the baseline's give the
    /// same verdicts, answers and state, for every block shape, count and
    /// time generations, one by one and in batches. (Without x86-64-v3
    /// both are the baseline.)
    #[test]
    fn every_instruction_set_gives_the_same_filter() {
        use ddf_bits::isa::Isa;
        use ddf_core::{Snapshot, TimedFilter};
        for (bb, b) in [(64, 4), (64, 8), (512, 4), (512, 8)] {
            for timed in [false, true] {
                let f = if timed {
                    Apbbf::with_time_span(4_000, 2, 6, 40, bb, b)
                } else {
                    Apbbf::new(2, 6, 40, bb, b)
                };
                let mut here = f.unwrap();
                here.isa = Isa::detect();
                let mut base = here.clone();
                base.isa = Isa::BASELINE;
                let mut rng = ddf_hash::SplitMix64::new(b.into());
                let mut now = 0;
                for round in 0..40u64 {
                    let keys: Vec<Digest> = (0..rng.below(400))
                        .map(|i| Digest::mixed(rng.below(round * 300 + i + 1)))
                        .collect();
                    now += rng.below(150);
                    let (mut x, mut y) = (Vec::new(), Vec::new());
                    if round % 2 == 0 {
                        x.extend(keys.iter().map(|&k| here.observe_at(k, now)));
                        y.extend(keys.iter().map(|&k| base.observe_at(k, now)));
                    } else {
                        here.observe_batch_at(&keys, now, &mut x);
                        base.observe_batch_at(&keys, now, &mut y);
                    }
                    assert_eq!(x, y, "B = {bb}, b = {b}, timed {timed}, round {round}");
                    let probe = |f: &Apbbf| -> Vec<bool> {
                        (0..60)
                            .map(|i| f.contains(Digest::mixed(i * 7_919)))
                            .collect()
                    };
                    assert_eq!(probe(&here), probe(&base));
                }
                assert_eq!(here.to_bytes(), base.to_bytes(), "B = {bb}, b = {b}");
            }
        }
    }
}
