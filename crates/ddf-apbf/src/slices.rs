//! The Age-Partitioned Bloom filter: one Bloom slice per segment.

use crate::age::AgePartitioned;
use crate::core::{AgeCore, ItemProbes, Segments, StateFields};
use crate::placement::Placement;
use ddf_bits::BitArray;
use ddf_core::snapshot::{self, DecodeError, Decoder, Encoder, Snapshot};
use ddf_core::{MergeError, ParamError};
use ddf_param::{checked_mul, ensure_probability, ensure_range, state_words};
use std::f64::consts::LN_2;
use std::fmt;

/// The peak NPWS [`Apbf::with_window`] aims for: the APBF paper (§5.5)
/// points to `l ≈ 14`, peak NPWS `≈ 0.14`, as the modest-slack choice
/// ("no reason for l being much larger than k").
pub const DEFAULT_NPWS: f64 = 0.15;

/// The APBF's segment layout: `k + l` slices of `m` bits in one array;
/// slice `p` is bits `p·m ..`. The `S` of [`Apbf`] `= AgePartitioned<Slices>`.
#[derive(Clone, PartialEq, Eq)]
pub struct Slices {
    pub(crate) bits: BitArray,
    pub(crate) m: u64,
    pub(crate) placement: Placement,
}

impl fmt::Debug for Slices {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Slices")
            .field("m", &self.m)
            .finish_non_exhaustive()
    }
}

impl Slices {
    /// The bit of probe `x` in slice `seg`: `seg·m` plus its
    /// [`Placement`], a multiply-shift reduction (no division).
    #[inline(always)]
    fn position(&self, seg: usize, x: u64) -> u64 {
        seg as u64 * self.m + self.placement.place(x, self.m)
    }

    /// Records the item in physical slices `lo..hi`; as in
    /// [`Slices::scan`], the probe and the slice offset step from slice to
    /// slice, so a slice costs one multiplication (the reduction).
    /// Words are written through [`BitArray::with_words_mut`]: a position
    /// is below `(p + 1)·m`, inside the array, so the word's bounds check
    /// is the only one.
    #[inline(always)]
    fn set_run(
        words: &mut [u64],
        (m, placement): (u64, Placement),
        h: ItemProbes,
        cubic: &[u64],
        lo: usize,
        hi: usize,
    ) {
        let step = h.step();
        let (mut offset, mut linear) = (lo as u64 * m, h.linear(lo));
        for &t in &cubic[lo..hi] {
            let pos = offset + placement.place(linear.wrapping_add(t), m);
            words[(pos / 64) as usize] |= 1 << (pos % 64);
            offset += m;
            linear = linear.wrapping_add(step);
        }
    }

    /// The match mask of physical slices `lo..hi`, bit `at + p − lo` for
    /// slice `p`, and with `SET` the item recorded in them, each bit read before it is
    /// set. The slices are walked downwards so that the mask grows by a
    /// shift and an add; the probe and the slice offset step from slice to
    /// slice (no multiplication but the reduction). At `k = 10, l = 24`,
    /// 1 Mbit, an `observe` is 904 instructions against 931 with the mask
    /// built bit by bit at each slice's place, and 65 against 69 ns (CPU
    /// time, hashing excluded, `examples/profile`).
    #[inline(always)]
    fn scan<const SET: bool>(
        &mut self,
        h: ItemProbes,
        cubic: &[u64],
        lo: usize,
        hi: usize,
        at: usize,
    ) -> u64 {
        if lo >= hi {
            return 0;
        }
        let (m, step, placement) = (self.m, h.step(), self.placement);
        let (mut mask, mut offset, mut linear) = (0u64, hi as u64 * m, h.linear(hi));
        for &t in cubic[lo..hi].iter().rev() {
            offset -= m;
            linear = linear.wrapping_sub(step);
            let pos = offset + placement.place(linear.wrapping_add(t), m);
            let hit = if SET {
                self.bits.test_and_set(pos)
            } else {
                let words = self.bits.as_words();
                words[(pos / 64) as usize] >> (pos % 64) & 1 == 1
            };
            mask = mask << 1 | u64::from(hit);
        }
        mask << at
    }
}

impl Segments for Slices {
    /// A test is one bit: at `k = 10, l = 24`, 1 Mbit, 34 tests at once
    /// took 63 ns for an unseen item and 62 ns for a present one, against
    /// 73 and 124 ns for Algorithm 1's chain (CPU time, `examples/profile`).
    const ALL_AT_ONCE: bool = true;
    /// One line per segment, `l/k + k` per item (12 at k = 10, l = 24).
    const LOOKAHEAD: usize = 2;
    /// A slice in steady state is about half full, so a query walks on
    /// from a stop with probability ½, and two segments further with ¼.
    /// At a window of 2^25 (`k = 13`, `l = 22`, 2·10^6 fresh digests in
    /// batches after `2w`, AMD EPYC) prefetching 0, 1, 2 and 3 segments
    /// ahead gave 257–292, 226–262, 224–303 and 231–251 ns an item (three
    /// alternating rounds each): a read behind a match cost more than the
    /// line two more hints fetch.
    const CHAIN_AHEAD: usize = 2;
    /// A test is one bit: x86-64-v3 saves 3 % of an observe's
    /// instructions, not worth a second copy.
    const ISA_KERNELS: bool = false;

    /// One bounds check (the word's): a position is below
    /// `(seg + 1)·m ≤ (k + l)·m`, the array's length, by construction.
    #[inline(always)]
    fn test(&self, seg: usize, x: u64) -> bool {
        let pos = self.position(seg, x);
        self.bits.as_words()[(pos / 64) as usize] >> (pos % 64) & 1 == 1
    }

    #[inline(always)]
    fn set(&mut self, seg: usize, x: u64) {
        self.bits.set(self.position(seg, x));
    }

    /// As [`Slices::scan`] without setting, but each bit goes to its place
    /// in the mask on its own: no chain of dependent shifts, which a short
    /// query feels (at `k = l = 3`, 22.5–23.6 against 24.7–24.8 ns per
    /// present item, SipHash included: minima of two sets of five
    /// alternating runs).
    #[inline]
    fn match_mask(&self, h: ItemProbes, cubic: &[u64]) -> u64 {
        let (words, m, step) = (self.bits.as_words(), self.m, h.step());
        let placement = self.placement;
        let (mut mask, mut offset, mut linear) = (0u64, 0u64, h.linear(0));
        for (p, &t) in cubic.iter().enumerate() {
            let pos = offset + placement.place(linear.wrapping_add(t), m);
            mask |= (words[(pos / 64) as usize] >> (pos % 64) & 1) << p;
            offset += m;
            linear = linear.wrapping_add(step);
        }
        mask
    }

    /// Three counted loops over the physical slices (tested; tested and
    /// set; tested), or (set; tested; set) when the insertion wraps: no
    /// per-slice branch, and a slice's word is read once for both.
    #[inline]
    fn match_mask_and_set(&mut self, h: ItemProbes, cubic: &[u64], first: usize, k: usize) -> u64 {
        // Written through `BitArray::test_and_set`: with the words lent by
        // `with_words_mut` instead (one bounds check less per slice, as
        // `set_run` does), the loops spilled two more registers, 905
        // against 873 instructions at `k = 10, l = 24`, 1 Mbit.
        // Each run's mask goes straight to its logical place, `p − first`
        // (mod n) for physical slice `p`: no rotation afterwards.
        let (n, end) = (cubic.len(), first + k);
        if end <= n {
            self.scan::<false>(h, cubic, 0, first, n - first)
                | self.scan::<true>(h, cubic, first, end, 0)
                | self.scan::<false>(h, cubic, end, n, k)
        } else {
            self.scan::<true>(h, cubic, 0, end - n, n - first)
                | self.scan::<false>(h, cubic, end - n, first, end - first)
                | self.scan::<true>(h, cubic, first, n, 0)
        }
    }

    /// At most two counted runs (the second when the insertion wraps).
    #[inline]
    fn set_item(&mut self, h: ItemProbes, cubic: &[u64], first: usize, k: usize) {
        let (n, end, place) = (cubic.len(), first + k, (self.m, self.placement));
        self.bits.with_words_mut(|words| {
            if end <= n {
                Self::set_run(words, place, h, cubic, first, end);
            } else {
                Self::set_run(words, place, h, cubic, first, n);
                Self::set_run(words, place, h, cubic, 0, end - n);
            }
        });
    }

    #[inline]
    fn prefetch(&self, seg: usize, x: u64) {
        self.bits.prefetch(self.position(seg, x));
    }

    /// As [`Slices::set_run`], the probe and the slice offset step from
    /// slice to slice.
    #[inline]
    fn prefetch_range(&self, h: ItemProbes, cubic: &[u64], lo: usize, hi: usize) {
        let (m, step, placement) = (self.m, h.step(), self.placement);
        let (mut offset, mut linear) = (lo as u64 * m, h.linear(lo));
        for &t in &cubic[lo..hi] {
            self.bits
                .prefetch(offset + placement.place(linear.wrapping_add(t), m));
            offset += m;
            linear = linear.wrapping_add(step);
        }
    }

    /// Once per generation: at `k = l = 15, g = 10^5` the fill of whole
    /// words costs under one instruction per insertion, against 13 for a
    /// 64-bit field write per word (callgrind, `examples/profile`).
    fn clear_segment(&mut self, seg: usize) {
        self.bits.clear_range(seg as u64 * self.m, self.m);
    }

    fn clear_all(&mut self) {
        self.bits.clear();
    }

    fn memory_bits(&self) -> u64 {
        self.bits.len()
    }

    const NAME: &'static str = "APBF";

    /// The slices' bits and their [`Placement`]: a state written before
    /// layout 3 places small slices' probes linearly, a new one spreads them.
    fn same_shape(&self, other: &Self) -> Result<(), MergeError> {
        MergeError::check("m", self.m, other.m)?;
        MergeError::check("placement", self.placement, other.placement)
    }

    fn union(&mut self, other: &Self) {
        self.bits.union_with(&other.bits);
    }
}

/// An Age-Partitioned Bloom filter (Shtul, Baquero, Almeida,
/// *Age-Partitioned Bloom Filters*, §5): a sliding-window duplicate filter
/// with no false negatives in the window.
///
/// `k + l` slices of `m` bits form a circular buffer. An insertion sets one
/// bit in each of the first `k` logical slices; every generation of
/// `g = ⌊m·ln 2/k⌋` insertions the slices shift by one (the oldest is
/// emptied and becomes slice 0). A query reports a duplicate when `k`
/// consecutive slices hold the item's bit, found by Algorithm 1 (start at
/// slice `l`, jump back `k` slices on a miss). Physical slice `p` always
/// uses probe `p` of the item's digest ([`Digest::indexed_probes`](ddf_core::Digest::indexed_probes)).
///
/// Window `w = l·g`: items among the last `w` insertions are always
/// reported; up to `s = k·g` older ones may be, with a probability that
/// halves with each generation past the window (peak NPWS
/// [`ddf_theory::apbf::peak_npws`]). The false-positive rate peaks just
/// before a shift ([`ddf_theory::apbf::false_positive`]).
///
/// **Time-based generations** ([`with_time_span`](Apbf::with_time_span)):
/// a generation is also a period `[G·τ, (G + 1)·τ)` of the caller's clock
/// ([`TimedFilter`](ddf_core::TimedFilter)), `τ = ⌈t/l⌉`, the same grid on every
/// filter of that period, so filters kept on several nodes merge
/// ([`Merge`](ddf_core::Merge)); a query at a later
/// time sees the generations that time has closed, even before the next
/// insertion. While at most `g` items arrive per period `τ` (the filter's
/// capacity), every item inserted within the last `t` is reported and items
/// are forgotten after at most `(l + k)·τ`. Above capacity, a full
/// generation closes early, as in the count-based filter: the
/// false-positive rate stays at its design value, and the window shrinks to
/// the last `l` generations, which then last less than `τ`; each such close
/// is counted ([`generations_closed_early`](ddf_core::TimedFilter::generations_closed_early)),
/// and an item is missed within `t` only if a generation closed early since
/// its latest occurrence. Memory never changes. Pauses make
/// several periods pass at once: up to `k + l` shifts, all applied at the
/// next insertion.
///
/// # Examples
///
/// ```
/// use ddf_apbf::{Apbf, Deduper, Verdict};
///
/// // The last 100,000 events at 1 % false positives.
/// let mut seen = Deduper::new(Apbf::with_window(100_000, 0.01)?);
/// assert_eq!(seen.observe("order-1"), Verdict::Unseen);
/// assert_eq!(seen.observe("order-1"), Verdict::Duplicate);
/// # Ok::<(), ddf_apbf::ParamError>(())
/// ```
pub type Apbf = AgePartitioned<Slices>;

impl AgePartitioned<Slices> {
    /// An APBF with `k` (≥ 1) slices per item, `l` (≥ 1) extra slices for the
    /// window (`k + l ≤ 4096`), and `m` bits per slice, large enough for a
    /// generation of at least one item (`m·ln 2 ≥ k`).
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_apbf::{Apbf, Digest, DuplicateFilter, Window, Windowed, Verdict};
    ///
    /// // k = 4 slices per item, l = 10 more for the window, 57,708 bits each:
    /// // generations of g = ⌊57,708·ln 2/4⌋ items, window l·g.
    /// let mut f = Apbf::new(4, 10, 57_708)?;
    /// assert_eq!(f.window(), Window::Count(10 * f.generation()));
    /// assert_eq!(f.observe(Digest::mixed(7)), Verdict::Unseen);
    /// assert!(f.contains(Digest::mixed(7)));
    /// assert_eq!(Apbf::new(0, 10, 57_708).unwrap_err().param(), "k");
    /// # Ok::<(), ddf_apbf::ParamError>(())
    /// ```
    pub fn new(k: u32, l: u32, m: u64) -> Result<Self, ParamError> {
        let (g, total) = Self::check(k, l, m)?;
        let slices = Slices {
            // Huge pages from 8 MiB on (`ddf_bits::pages`): probes at random
            // over a large table miss the TLB in 4 KiB pages.
            bits: BitArray::new_huge(total)?,
            m,
            placement: Placement::for_slice_bits(m),
        };
        Ok(AgePartitioned::of(AgeCore::new(slices, k, l, g)))
    }

    /// As [`new`](Self::new)`(k, l, m)` with time-based generations over a
    /// window of `span` time units (`t ≥ 1`, parameter `time_span`): each
    /// generation lasts at most `τ = ⌈t/l⌉`, so the window is `l·τ ≥ t`
    /// while at most `g` items arrive per `τ` (see the type's documentation
    /// for what happens above that rate).
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_apbf::{Apbf, Digest, TimedFilter, Window, Windowed};
    ///
    /// // A minute in milliseconds over l = 10 generations of 6 s.
    /// let mut f = Apbf::with_time_span(60_000, 4, 10, 57_708)?;
    /// assert_eq!((f.period(), f.window()), (Some(6_000), Window::Time(60_000)));
    /// f.insert_at(Digest::mixed(1), 1_000);
    /// assert!(f.contains_at(Digest::mixed(1), 60_000));
    /// assert_eq!(Apbf::with_time_span(0, 4, 10, 57_708).unwrap_err().param(), "time_span");
    /// # Ok::<(), ddf_apbf::ParamError>(())
    /// ```
    pub fn with_time_span(span: u64, k: u32, l: u32, m: u64) -> Result<Self, ParamError> {
        Self::from_core_with_span(Self::new(k, l, m)?.core, span)
    }

    /// The parameter rule of [`new`](Self::new) and
    /// [`sizing`](Self::sizing): valid `(k, l)`, `m` with a generation of at
    /// least one item, `(k + l)·m` within the state limit. Returns `g` and
    /// the total bits.
    pub(crate) fn check(k: u32, l: u32, m: u64) -> Result<(u64, u64), ParamError> {
        AgeCore::<Slices>::check_kl(k, l)?;
        let m = ensure_range("m", m, 1..=ddf_param::MAX_STATE_BITS)?;
        let g = ddf_theory::apbf::generation_size(m as f64, f64::from(k));
        if g < 1.0 {
            return Err(ParamError::new(
                "m",
                m,
                format!(
                    "at least {} bits, one item per generation for k = {k}",
                    (f64::from(k) / LN_2).ceil()
                ),
            ));
        }
        let total = checked_mul("m", u64::from(k + l), m)?;
        state_words("m", total)?;
        Ok((g as u64, total))
    }

    /// An APBF for a window of at least `window` insertions and a
    /// false-positive rate of at most `fpr` at its worst point, with peak
    /// NPWS at most [`DEFAULT_NPWS`]: `(k, l)` from
    /// [`ddf_theory::apbf::choose_parameters`], then the smallest `m` whose
    /// generation `g` makes `l·g ≥ window`.
    ///
    /// For example `fpr = 0.01` gives `k = 10, l = 24` (about 20.4 bits per
    /// window item); `fpr = 0.001` gives `k = 13, l = 22`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_apbf::Apbf;
    ///
    /// let f = Apbf::with_window(100_000, 0.01)?;
    /// assert_eq!((f.k(), f.l()), (10, 24));
    /// assert!(Apbf::with_window(100_000, 1.5).is_err());
    /// # Ok::<(), ddf_apbf::ParamError>(())
    /// ```
    pub fn with_window(window: u64, fpr: f64) -> Result<Self, ParamError> {
        Self::with_window_and_npws(window, fpr, DEFAULT_NPWS)
    }

    /// As [`with_window`](Self::with_window) with a chosen bound on the peak
    /// NPWS (in `(0, 2]`): lower bounds need more slices, higher ones less
    /// memory per item down to a point (APBF paper Table 2).
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_apbf::{Apbf, Window, Windowed};
    ///
    /// // A looser bound on the peak NPWS than the default.
    /// let f = Apbf::with_window_and_npws(100_000, 0.01, 0.5)?;
    /// assert!(matches!(f.window(), Window::Count(w) if w >= 100_000));
    /// assert_eq!(Apbf::with_window_and_npws(100_000, 0.01, 0.0).unwrap_err().param(), "npws");
    /// # Ok::<(), ddf_apbf::ParamError>(())
    /// ```
    pub fn with_window_and_npws(window: u64, fpr: f64, npws: f64) -> Result<Self, ParamError> {
        let fpr = ensure_probability("fpr", fpr)?;
        let window = ddf_param::ensure_window(window, ddf_param::MAX_STATE_BITS)?;
        if !(npws > 0.0 && npws <= 2.0) {
            return Err(ParamError::new("npws", npws, "a peak NPWS in (0, 2]"));
        }
        let (k, l) = ddf_theory::apbf::choose_parameters(fpr, npws).ok_or_else(|| {
            ParamError::new("fpr", fpr, "a rate some (k, l) with k + l ≤ 4096 reaches")
        })?;
        let g = window.div_ceil(u64::from(l));
        let m = ddf_theory::apbf::slice_bits_for_generation(g as f64, f64::from(k));
        Self::new(k, l, m as u64)
    }

    /// Bits per slice, `m`.
    pub fn slice_bits(&self) -> u64 {
        self.core.segs.m
    }

    /// The fill ratio of each logical slice, `0..k + l` (slice 0 is the
    /// newest), for comparison with [`ddf_theory::apbf::steady_fill_ratios`].
    pub fn fill_ratios(&self) -> Vec<f64> {
        let m = self.core.segs.m;
        let n = (self.core.k + self.core.l) as u64;
        (0..n)
            .map(|i| {
                let p = (self.core.base as u64 + i) % n;
                let ones: u64 = (0..m)
                    .step_by(64)
                    .map(|j| {
                        let len = (m - j).min(64) as u32;
                        u64::from(self.core.segs.bits.read_bits(p * m + j, len).count_ones())
                    })
                    .sum();
                ones as f64 / m as f64
            })
            .collect()
    }
}

impl fmt::Debug for Apbf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Apbf")
            .field("k", &self.core.k)
            .field("l", &self.core.l)
            .field("m", &self.core.segs.m)
            .field("generation", &self.core.generation)
            .field("generation_fill", &self.core.in_generation)
            .field("period", &self.period())
            .finish_non_exhaustive()
    }
}

/// Body: `m` (u64); from layout 3, the placement (u8: 0 linear, 1 spread); `k`, `l`, clock
/// and position (see the crate's core); the `(k + l)·m` bits as words.
impl Snapshot for Apbf {
    const KIND: u16 = snapshot::kind::APBF;
    // Layout 2 added the clock and overload counters, layout 3 the
    // placement (layout 2 is linear); layout 1 is not read.
    const VERSION: u16 = 3;
    const OLDEST_VERSION: u16 = 2;

    fn encode_body(&self, out: &mut Encoder) {
        out.put_u64(self.core.segs.m);
        out.put_u8(self.core.segs.placement.byte());
        self.core.encode_state(out);
        out.put_words(self.core.segs.bits.as_words());
    }

    fn decode_body(input: &mut Decoder<'_>, version: u16) -> Result<Self, DecodeError> {
        let m = input.u64("m")?;
        let placement = if version >= 3 {
            Placement::from_byte(input.u8("placement")?)?
        } else {
            Placement::Linear
        };
        let state = StateFields::decode(input)?;
        let words = input.words("slices")?;
        let total = checked_mul("m", u64::from(state.k) + u64::from(state.l), m)?;
        if words.len() != state_words("m", total)? {
            return Err(DecodeError::invalid(
                "slices",
                "word count does not match k, l and m",
            ));
        }
        let mut f = Apbf::new(state.k, state.l, m)?;
        f.core.segs.bits = BitArray::from_words(total, words)?;
        f.core.segs.placement = placement;
        state.apply(&mut f.core)?;
        Ok(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ddf_core::{Digest, DuplicateFilter, Window, Windowed};

    #[test]
    fn overload_closes_generations_early_and_counts_them() {
        use ddf_core::{Digest, TimedFilter};
        let mut f = Apbf::with_time_span(50, 4, 5, 2_000).unwrap();
        let (g, tau) = (f.generation(), f.period().unwrap());
        assert_eq!(tau, 10);
        let bits = f.memory_bits();
        // Exactly g items per period: no early close.
        for i in 0..20 * g {
            f.insert_at(Digest::mixed(i), i * tau / g);
        }
        assert_eq!(
            (f.generations_closed_early(), f.clock_regressions()),
            (0, 0)
        );
        // Twice the rate over 20 periods: about one early close per period.
        let start = f.core.now() + 10 * tau;
        for i in 0..40 * g {
            f.insert_at(Digest::mixed(i + (1 << 40)), start + i * tau / (2 * g));
        }
        let closed = f.generations_closed_early();
        assert!((19..=40).contains(&closed), "{closed} early closes");
        assert_eq!(f.memory_bits(), bits);
        f.insert_at(Digest::mixed(1), 0);
        assert_eq!(f.clock_regressions(), 1);
        f.clear();
        assert_eq!(
            (f.generations_closed_early(), f.clock_regressions()),
            (0, 0)
        );
    }

    #[test]
    fn parameters_are_checked() {
        assert_eq!(Apbf::new(0, 3, 100).unwrap_err().param(), "k");
        assert_eq!(Apbf::new(3, 0, 100).unwrap_err().param(), "l");
        assert_eq!(Apbf::new(3, 4094, 100).unwrap_err().param(), "l");
        assert_eq!(Apbf::new(3, 3, 0).unwrap_err().param(), "m");
        assert_eq!(Apbf::new(10, 3, 14).unwrap_err().param(), "m");
        assert_eq!(Apbf::new(100, 100, 1 << 36).unwrap_err().param(), "m");
        assert_eq!(Apbf::with_window(0, 0.1).unwrap_err().param(), "window");
        assert_eq!(Apbf::with_window(10, 0.0).unwrap_err().param(), "fpr");
        assert_eq!(
            Apbf::with_window_and_npws(10, 0.1, 0.0)
                .unwrap_err()
                .param(),
            "npws"
        );
        assert_eq!(
            Apbf::with_time_span(0, 3, 3, 100).unwrap_err().param(),
            "time_span"
        );
    }

    #[test]
    fn generation_and_window() {
        // k = 4, l = 3, g = 1000 as in the paper's Figure 6 (w = 10^3 there
        // with l = 3 would need g = 334; the sizes are ours).
        let f = Apbf::new(4, 3, 5771).unwrap();
        assert_eq!(f.generation(), 1000);
        assert_eq!(f.window(), Window::Count(3000));
        assert_eq!(f.slack(), 4000);
        assert_eq!(f.memory_bits(), 7 * 5771);
        let w = Apbf::with_window(10_000, 0.01).unwrap();
        assert_eq!((w.k(), w.l()), (10, 24));
        let Window::Count(len) = w.window() else {
            unreachable!()
        };
        assert!((10_000..10_000 + 24).contains(&len));
    }

    #[test]
    fn shifts_follow_figure_3() {
        // k = 3, l = 2, g = 2 (m = 9), the filter of Figure 3.
        let mut f = Apbf::new(3, 2, 9).unwrap();
        assert_eq!(f.generation(), 2);
        let a = Digest::mixed(1);
        f.insert(a);
        f.insert(Digest::mixed(2));
        // Generation A shifts before insertions 3 and 5; until the third
        // shift (before insertion 7) its three slices are all there.
        for i in 0..5 {
            f.insert(Digest::mixed(100 + i));
            if i < 4 {
                assert!(f.contains(a), "after {} insertions", i + 3);
            }
        }
        // Insertion 7 opened a generation: A now sits in slices 3..5 of 0..5.
        assert_eq!(f.generation_fill(), 1);
    }

    #[test]
    fn probe_table_gives_the_indexed_probes() {
        let f = Apbf::new(7, 40, 1000).unwrap();
        for i in 0..200u64 {
            let d = Digest::mixed(i);
            let (h, p) = (d.indexed_probes(), crate::core::ItemProbes::of(d));
            for seg in 0..47 {
                assert_eq!(p.at(seg, f.core.cubic()), h.hash(seg as u32), "seg {seg}");
            }
        }
    }

    /// Algorithm 1 (branch-free, with jumps) and the all-at-once test of
    /// small states answer whether some `k` consecutive logical slices
    /// match, tested here slice by slice, with and without shifts owed by
    /// time.
    #[test]
    fn algorithm_1_finds_every_run_of_k() {
        use ddf_core::TimedFilter;
        for (k, l, m) in [(3u32, 2u32, 9u64), (4, 6, 60), (2, 9, 20), (5, 5, 40)] {
            let mut f = Apbf::with_time_span(u64::from(l) * 10, k, l, m).unwrap();
            let n = (k + l) as usize;
            let mut hits = 0;
            for i in 0..3000u64 {
                f.insert_at(Digest::mixed(i % 97), i / 8);
                let d = Digest::mixed(i * 7 % 131);
                for later in [0, 10, 25, 1000] {
                    let now = i / 8 + later;
                    let shifts = f.core.pending_shifts(now);
                    let h = crate::core::ItemProbes::of(d);
                    let matched: Vec<bool> = (0..n)
                        .map(|j| {
                            j >= shifts && {
                                let seg = (f.core.base + n + j - shifts) % n;
                                f.core.segs.test(seg, h.at(seg, f.core.cubic()))
                            }
                        })
                        .collect();
                    let brute = matched.windows(k as usize).any(|w| w.iter().all(|&b| b));
                    assert_eq!(f.contains_at(d, now), brute, "k {k} l {l} i {i} +{later}");
                    assert_eq!(f.core.query(d, now).0, brute, "Algorithm 1, i {i} +{later}");
                    hits += usize::from(brute);
                }
            }
            assert!(hits > 100, "k {k} l {l}: only {hits} hits");
        }
    }

    #[test]
    fn query_starts_at_slice_l() {
        let mut f = Apbf::new(3, 2, 9).unwrap();
        let a = Digest::mixed(1);
        for i in 0..6 {
            f.insert(if i == 0 { a } else { Digest::mixed(10 + i) });
        }
        // Two shifts: A in logical slices 2..5, exactly where Algorithm 1 starts.
        assert_eq!(f.query_accesses(a), (true, 3));
    }
}
