//! The lock-free APBBF: `k + l` segments of blocks in atomic words, the
//! layout of [`Apbbf`]'s blocks.

use crate::Apbbf;
use crate::atomic::{AtomicCore, AtomicSegments, Platform, Std};
use crate::atomic_filter::sealed::Sealed;
use crate::atomic_filter::{Atomic, position_of, restore_position};
use crate::blocked::{Blocks, InWord, Shape, block_parts, line_part, locate_block};
use crate::core::Segments;
use ddf_bits::AtomicWord;
use ddf_core::ParamError;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// Eight words aligned to a cache line, as `Blocks`' lines: a 512-bit block
/// is one line.
#[repr(C, align(64))]
pub(crate) struct AtomicLine<W>(pub(crate) [W; 8]);

/// `k + l` segments of `blocks` blocks of `B` bits, `Blocks`' layout: word
/// `w` of the state is word `w mod 8` of line `w / 8`, segment by segment.
pub struct AtomicBlocks<W> {
    lines: Box<[AtomicLine<W>]>,
    /// Words of state, `(k + l)·blocks·B/64`; the last line may have more.
    words: u64,
    /// Blocks per segment.
    blocks: u64,
    /// `B` in words: 1 or 8.
    block_words: u64,
    /// `b`, bits set per item in a block.
    b: u32,
    /// `log₂(B/b)`, the bits that pick a position within a part.
    part_shift: u32,
    /// `(B, b)` when the part loop has an unrolled form, as in `Blocks`.
    shape: Shape,
}

impl<W> fmt::Debug for AtomicBlocks<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AtomicBlocks")
            .field("blocks", &self.blocks)
            .field("block_words", &self.block_words)
            .field("b", &self.b)
            .finish_non_exhaustive()
    }
}

impl<W: AtomicWord> AtomicBlocks<W> {
    /// The same blocks as `segs`, in atomic words.
    pub(crate) fn from_blocks(segs: &crate::blocked::Blocks) -> Self {
        let mut next = segs.lines.iter();
        let lines = ddf_bits::pages::vec_from_fn(segs.lines.len(), || {
            let line = next.next().map_or([0; 8], |l| l.0);
            AtomicLine(std::array::from_fn(|i| W::new(line[i])))
        });
        AtomicBlocks {
            lines: lines.into_boxed_slice(),
            words: segs.words,
            blocks: segs.blocks,
            block_words: segs.block_words,
            b: segs.b,
            part_shift: segs.part_shift,
            shape: Shape::of((segs.block_words * 64) as u32, segs.b),
        }
    }

    /// Copies the words into `segs`, a `Blocks` of the same shape; each
    /// word is read once (`Relaxed`, as `AtomicBitArray::to_bit_array`).
    pub(crate) fn copy_to(&self, segs: &mut crate::blocked::Blocks) {
        for (to, from) in segs.lines.iter_mut().zip(self.lines.iter()) {
            for (t, f) in to.0.iter_mut().zip(&from.0) {
                *t = f.load(Ordering::Relaxed);
            }
        }
    }

    /// Word `w` of the whole state.
    #[inline(always)]
    fn word(&self, w: u64) -> &W {
        &self.lines[(w / 8) as usize].0[(w % 8) as usize]
    }

    /// The item's mask in a one-word block.
    #[inline(always)]
    fn word_mask(&self, bits: u64) -> u64 {
        block_parts(bits, self.b, self.part_shift).fold(0, |m, (_, bit)| m | bit)
    }

    /// Whether every bit of `mask` is set in one-word block `block`.
    #[inline(always)]
    fn word_test(&self, block: u64, mask: u64) -> bool {
        // Relaxed (every load here): see `ddf_bits::AtomicBitArray`; the
        // epoch word orders clears against sets.
        self.word(block).load(Ordering::Relaxed) & mask == mask
    }

    /// The test of a one-line block of `P` parts of `2^S ≥ 64` bits (a
    /// word of the line per part), branch-free as `Blocks`' kernel: a
    /// branch per part would be mispredicted on a filling block.
    #[inline(always)]
    fn line_test<const P: u32, const S: u32>(&self, block: u64, bits: u64) -> bool {
        let line = &self.lines[block as usize].0;
        (0..P).fold(1, |all, q| {
            let (w, r) = line_part::<S>(bits, q);
            all & (line[w].load(Ordering::Relaxed) >> r)
        }) & 1
            != 0
    }

    /// The setting of a one-line block of `P` parts of `2^S ≥ 64` bits: each
    /// part's bit is in a word of its own, so one `fetch_or` per part.
    #[inline(always)]
    fn line_set<const P: u32, const S: u32>(&self, block: u64, bits: u64) -> bool {
        let line = &self.lines[block as usize].0;
        (0..P).fold(true, |all, q| {
            let (w, r) = line_part::<S>(bits, q);
            ddf_bits::set_bits(&line[w], 1 << r) & all
        })
    }

    /// `test` for a shape without an unrolled form, out of line as in
    /// `Blocks`.
    #[inline(never)]
    #[cold]
    fn test_other(&self, block: u64, bits: u64) -> bool {
        if self.block_words == 1 {
            return self.word_test(block, self.word_mask(bits));
        }
        let line = &self.lines[block as usize].0;
        block_parts(bits, self.b, self.part_shift).fold(0, |missing, (w, bit)| {
            missing | (bit & !line[w].load(Ordering::Relaxed))
        }) == 0
    }

    /// `set` for a shape without an unrolled form: the item's bits merged
    /// per word of the block, one `fetch_or` per word.
    #[inline(never)]
    #[cold]
    fn set_other(&self, block: u64, bits: u64) -> bool {
        if self.block_words == 1 {
            return ddf_bits::set_bits(self.word(block), self.word_mask(bits));
        }
        let mut masks = [0u64; 8];
        for (w, bit) in block_parts(bits, self.b, self.part_shift) {
            masks[w] |= bit;
        }
        let line = &self.lines[block as usize].0;
        line.iter()
            .zip(&masks)
            .filter(|(_, m)| **m != 0)
            .fold(true, |all, (word, &mask)| {
                ddf_bits::set_bits(word, mask) & all
            })
    }
}

impl<W: AtomicWord> AtomicSegments for AtomicBlocks<W> {
    /// As `Blocks`: a test is `b` bits of a block, and Algorithm 1 reads
    /// fewer blocks than testing every segment.
    const ALL_AT_ONCE: bool = false;
    /// The single-threaded blocks' (a test is the same block's bits).
    const CHAIN_AHEAD: usize = <Blocks as Segments>::CHAIN_AHEAD;

    /// The shape's unrolled test, as `Blocks::test` chooses it.
    #[inline(always)]
    fn test(&self, seg: usize, x: u64) -> bool {
        let (block, bits) = locate_block(self.blocks, seg, x);
        match self.shape {
            Shape::Word4 => self.word_test(block, InWord::<4, 4>::mask(bits)),
            Shape::Word8 => self.word_test(block, InWord::<8, 3>::mask(bits)),
            Shape::Line4 => self.line_test::<4, 7>(block, bits),
            Shape::Line8 => self.line_test::<8, 6>(block, bits),
            Shape::Other => self.test_other(block, bits),
        }
    }

    /// One `fetch_or` per word the item touches, its bits merged, and none
    /// for a word whose bits are all set (`ddf_bits::set_bits`).
    #[inline(always)]
    fn set(&self, seg: usize, x: u64) {
        let (block, bits) = locate_block(self.blocks, seg, x);
        match self.shape {
            Shape::Word4 => ddf_bits::set_bits(self.word(block), InWord::<4, 4>::mask(bits)),
            Shape::Word8 => ddf_bits::set_bits(self.word(block), InWord::<8, 3>::mask(bits)),
            Shape::Line4 => self.line_set::<4, 7>(block, bits),
            Shape::Line8 => self.line_set::<8, 6>(block, bits),
            Shape::Other => self.set_other(block, bits),
        };
    }

    #[inline]
    fn prefetch(&self, seg: usize, x: u64) {
        let (block, _) = locate_block(self.blocks, seg, x);
        let line = block * self.block_words / 8;
        ddf_bits::prefetch::prefetch_write(&self.lines, line as usize);
    }

    /// A store of 0 per word: every word of a segment's blocks belongs to
    /// that segment alone, so no bit of another segment is lost.
    fn clear_segment(&self, seg: usize) {
        let words = self.blocks * self.block_words;
        let start = seg as u64 * words;
        for w in start..start + words {
            // Relaxed: the shifter publishes the clear through the epoch.
            self.word(w).store(0, Ordering::Relaxed);
        }
    }

    fn clear_all(&self) {
        for line in self.lines.iter() {
            for w in &line.0 {
                // Relaxed: `clear` holds `&mut`.
                w.store(0, Ordering::Relaxed);
            }
        }
    }

    /// Whole blocks only: the padding of the last line is not state.
    fn memory_bits(&self) -> u64 {
        self.words * 64
    }
}

/// The core over `P`'s words, built from and copied back to an [`Apbbf`].
pub(crate) type BlocksCore<P> = AtomicCore<AtomicBlocks<<P as Platform>::Word>, P>;

/// The atomic core holding `f`'s state.
pub(crate) fn core_from_apbbf<P: Platform>(f: &Apbbf) -> BlocksCore<P> {
    let c = &f.core;
    let period = c.clock.map(|k| k.period);
    let segs = AtomicBlocks::from_blocks(&c.segs);
    AtomicCore::new(segs, c.k, c.l, c.generation, period, position_of(c))
}

/// An [`Apbbf`] holding the atomic core's state.
pub(crate) fn core_to_apbbf<P: Platform>(core: &BlocksCore<P>) -> Apbbf {
    let s = &core.segs;
    // The atomic filter was built from a valid `Apbbf` of this shape, so
    // the checked constructor accepts it again.
    let mut f = Apbbf::new(core.k, core.l, s.blocks, (s.block_words * 64) as u32, s.b)
        .expect("the shape of a built filter");
    s.copy_to(&mut f.core.segs);
    restore_position(&mut f.core, core);
    f
}

impl Sealed for Apbbf {
    type Segs = AtomicBlocks<AtomicU64>;
    const NAME: &'static str = "AtomicApbbf";
    // As `Apbbf`'s batch path: about `l/k + k` lines per item.
    const LOOKAHEAD: usize = <Blocks as Segments>::LOOKAHEAD;

    fn to_atomic(&self) -> BlocksCore<Std> {
        core_from_apbbf(self)
    }

    fn from_atomic(core: &BlocksCore<Std>) -> Self {
        core_to_apbbf(core)
    }

    fn shape_fields(segs: &Self::Segs, out: &mut fmt::DebugStruct<'_, '_>) {
        out.field("blocks", &segs.blocks)
            .field("block_bits", &(segs.block_words * 64))
            .field("bits_per_block", &segs.b);
    }
}

/// A lock-free [`Apbbf`]: `observe`, `insert` and `contains` take `&self`
/// and run from any number of threads at once with no lock. An insertion
/// sets its `b` bits in each of `k` blocks with one atomic `fetch_or` per
/// word touched (none for a word whose bits are all set already); one
/// thread performs a due generation shift while the others go on, unless
/// they would overfill the generation being closed (the waits, below).
///
/// Same parameters, layout and snapshot bytes as [`Apbbf`]
/// ([`Snapshot::to_bytes`](ddf_core::Snapshot::to_bytes) writes the `Apbbf`
/// kind, and [`from`](From::from) / [`into_inner`](Atomic::into_inner)
/// convert). The protocol is [`AtomicApbf`](crate::AtomicApbf)'s; only the
/// segments differ.
///
/// # What holds under concurrency
///
/// As stated for [`Atomic`] (the shared protocol): an item whose insertion
/// happened before a later query of it is reported unless `l·g`
/// insertions were counted in between (at least `l·g − c·T` completed, `c`
/// the [`chunk`](Atomic::chunk), `T` the threads) or, timed, unless an
/// operation at a time `≥ t + l·τ` began first; false positives are the
/// single-threaded bound with generations of up to `g + (c + 1)·T` items.
/// With one thread and `c = 1` the verdicts of `observe` are those of
/// [`Apbbf`] but for the first observe after a generation fills (see
/// [`Atomic`]). `concurrent/apbbf-*` in `cargo xtask verify` checks 8
/// threads against a brute-force truth.
///
/// # What an operation writes
///
/// A `contains` writes nothing. An `observe` of an unseen item writes, in
/// each of its `k` blocks, the words holding a bit of it not yet set (one
/// word for 64-bit blocks, up to `b` words of one cache line for 512-bit
/// blocks), and its thread's stripe counter, a line no other thread writes
/// while at most 32 threads use the filter; once per `c` insertions it adds
/// to the shared count, and once per generation one thread empties a
/// segment and writes the epoch word. No line is written by every
/// operation of every thread. A timed insertion that finds a period passed
/// while another thread shifts waits for that shift, and so does a flush
/// that finds the generation full while another thread shifts (the two
/// waits).
///
/// # Examples
///
/// ```
/// use ddf_apbf::{AtomicApbbf, Digest, Verdict};
///
/// let f = AtomicApbbf::with_window(100_000, 0.001)?;
/// std::thread::scope(|s| {
///     for t in 0..4u64 {
///         let f = &f;
///         s.spawn(move || {
///             for i in 0..1_000 {
///                 f.insert(Digest::mixed(t << 32 | i));
///             }
///         });
///     }
/// });
/// assert!(f.contains(Digest::mixed(3 << 32 | 999)));
/// assert_eq!(f.observe(Digest::mixed(7 << 32)), Verdict::Unseen);
/// // Back to the single-threaded filter, same state.
/// let plain = f.into_inner();
/// assert!(ddf_apbf::DuplicateFilter::contains(&plain, Digest::mixed(1 << 32)));
/// # Ok::<(), ddf_apbf::ParamError>(())
/// ```
pub type AtomicApbbf = Atomic<Apbbf>;

impl Atomic<Apbbf> {
    /// As [`Apbbf::new`]: `k` segments per item, `l` more for the window,
    /// `blocks` blocks of `block_bits` (64 or 512) bits per segment,
    /// `bits_per_block` bits per item and block.
    ///
    /// ```
    /// use ddf_apbf::AtomicApbbf;
    /// let f = AtomicApbbf::new(3, 8, 1024, 512, 4)?;
    /// assert_eq!((f.k(), f.l(), f.blocks()), (3, 8, 1024));
    /// assert_eq!(AtomicApbbf::new(3, 8, 1024, 100, 4).unwrap_err().param(), "block_bits");
    /// # Ok::<(), ddf_apbf::ParamError>(())
    /// ```
    pub fn new(
        k: u32,
        l: u32,
        blocks: u64,
        block_bits: u32,
        bits_per_block: u32,
    ) -> Result<Self, ParamError> {
        Apbbf::new(k, l, blocks, block_bits, bits_per_block).map(Self::from)
    }

    /// As [`Apbbf::with_window`]: a window of at least `window` insertions
    /// at a false-positive rate of at most `fpr` (single-threaded; see the
    /// type's documentation for what concurrency adds).
    ///
    /// ```
    /// use ddf_apbf::AtomicApbbf;
    /// let f = AtomicApbbf::with_window(100_000, 0.001)?;
    /// assert_eq!(f.block_bits(), 512);
    /// assert_eq!(AtomicApbbf::with_window(100_000, 1.5).unwrap_err().param(), "fpr");
    /// # Ok::<(), ddf_apbf::ParamError>(())
    /// ```
    pub fn with_window(window: u64, fpr: f64) -> Result<Self, ParamError> {
        Apbbf::with_window(window, fpr).map(Self::from)
    }

    /// As [`Apbbf::with_time_span`]: the shape of [`new`](Self::new) with
    /// generations closed by the caller's clock too, over a window of `span`
    /// time units. Fails (parameter `time_span`) for 0 or a span too long
    /// for the shape.
    ///
    /// ```
    /// use ddf_apbf::{AtomicApbbf, Digest};
    /// let f = AtomicApbbf::with_time_span(80, 3, 8, 1024, 512, 4)?;
    /// f.insert_at(Digest::mixed(1), 100);
    /// assert!(f.contains_at(Digest::mixed(1), 179));
    /// assert!(!f.contains_at(Digest::mixed(1), 100 + 80 * 3));
    /// assert_eq!(AtomicApbbf::with_time_span(0, 3, 8, 1024, 512, 4).unwrap_err().param(), "time_span");
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
        Apbbf::with_time_span(span, k, l, blocks, block_bits, bits_per_block).map(Self::from)
    }

    /// As [`Apbbf::with_window_shape`]: the given shape with the fewest
    /// blocks whose window is at least `window` insertions.
    ///
    /// ```
    /// use ddf_apbf::{AtomicApbbf, Window, Windowed};
    /// let f = AtomicApbbf::with_window_shape(100_000, 3, 8, 512, 4)?;
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
        Apbbf::with_window_shape(window, k, l, block_bits, bits_per_block).map(Self::from)
    }

    /// A copy as an [`Apbbf`], as [`to_inner`](Atomic::to_inner).
    #[must_use]
    pub fn to_apbbf(&self) -> Apbbf {
        self.to_inner()
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

impl From<AtomicApbbf> for Apbbf {
    fn from(f: AtomicApbbf) -> Self {
        f.into_inner()
    }
}
