//! The lock-free APBF: `k + l` slices in atomic words.

use crate::Apbf;
use crate::atomic::{AtomicCore, AtomicSegments, Platform, Std};
use crate::atomic_filter::sealed::Sealed;
use crate::atomic_filter::{Atomic, position_of, restore_position};
use crate::core::Segments;
use crate::placement::Placement;
use crate::slices::Slices;
use ddf_bits::{AtomicBitArray, AtomicWord};
use ddf_core::ParamError;
use std::fmt;
use std::sync::atomic::AtomicU64;

/// `k + l` slices of `m` bits in one atomic array, `Slices`' layout.
pub struct AtomicSlices<W> {
    pub(crate) bits: AtomicBitArray<W>,
    pub(crate) m: u64,
    pub(crate) placement: Placement,
}

impl<W> fmt::Debug for AtomicSlices<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AtomicSlices")
            .field("m", &self.m)
            .finish_non_exhaustive()
    }
}

impl<W: AtomicWord> AtomicSlices<W> {
    #[inline(always)]
    fn position(&self, seg: usize, x: u64) -> u64 {
        seg as u64 * self.m + self.placement.place(x, self.m)
    }
}

impl<W: AtomicWord> AtomicSegments for AtomicSlices<W> {
    const ALL_AT_ONCE: bool = true;
    /// The single-threaded slices' (a test is the same bit).
    const CHAIN_AHEAD: usize = <Slices as Segments>::CHAIN_AHEAD;

    #[inline(always)]
    fn test(&self, seg: usize, x: u64) -> bool {
        let pos = self.position(seg, x);
        // Relaxed: see `ddf_bits::AtomicBitArray`.
        self.bits.words()[(pos / 64) as usize].load(std::sync::atomic::Ordering::Relaxed)
            >> (pos % 64)
            & 1
            == 1
    }

    #[inline(always)]
    fn set(&self, seg: usize, x: u64) {
        let pos = self.position(seg, x);
        ddf_bits::set_bit(&self.bits.words()[(pos / 64) as usize], (pos % 64) as u32);
    }

    /// The probe and slice offset step from slice to slice, as in the
    /// single-threaded `Slices::match_mask`.
    #[inline]
    fn match_mask(&self, h: crate::core::ItemProbes, cubic: &[u64]) -> u64 {
        let (words, m, step) = (self.bits.words(), self.m, h.step());
        let placement = self.placement;
        let (mut mask, mut offset, mut linear) = (0u64, 0u64, h.linear(0));
        for (p, &t) in cubic.iter().enumerate() {
            let pos = offset + placement.place(linear.wrapping_add(t), m);
            // Relaxed: see `ddf_bits::AtomicBitArray`.
            let word = words[(pos / 64) as usize].load(std::sync::atomic::Ordering::Relaxed);
            mask |= (word >> (pos % 64) & 1) << p;
            offset += m;
            linear = linear.wrapping_add(step);
        }
        mask
    }

    /// The `k` words are all read (their misses overlap, and the query's
    /// with them), then the query runs, then only the bits found clear are
    /// set: a `fetch_or` lets no later read start before it completes, so
    /// a read and a write per slice in turn waited for each miss alone
    /// (`perf`: at window 2^26 the time was on those reads and the `lock
    /// or` after each). A bit read as set is not written, as in
    /// `AtomicBitArray::set`: the read comes after the epoch's Acquire
    /// load, as that one's did.
    #[inline]
    fn insert_around(
        &self,
        h: crate::core::ItemProbes,
        cubic: &[u64],
        first: usize,
        k: usize,
        query: impl FnOnce() -> bool,
    ) -> bool {
        let (n, m, placement) = (cubic.len(), self.m, self.placement);
        // The item's positions in the `k` segments from `first`, wrapping
        // (worked out twice: cheaper than a buffer to keep them in).
        let positions = || {
            let mut seg = first;
            (0..k).map(move |_| {
                let pos = seg as u64 * m + placement.place(h.at(seg, cubic), m);
                seg += 1;
                if seg == n {
                    seg = 0;
                }
                pos
            })
        };
        let known = self.bits.get_mask(positions());
        let seen = query();
        self.bits.set_missing(positions(), known);
        seen
    }

    #[inline]
    fn prefetch(&self, seg: usize, x: u64) {
        self.bits.prefetch(self.position(seg, x));
    }

    fn clear_segment(&self, seg: usize) {
        self.bits.clear_range(seg as u64 * self.m, self.m);
    }

    fn clear_all(&self) {
        self.bits.clear();
    }

    fn memory_bits(&self) -> u64 {
        self.bits.len()
    }
}

/// The core over `P`'s words (`std` in the library, a model checker's in
/// tests), built from and copied back to an [`Apbf`].
pub(crate) type SlicesCore<P> = AtomicCore<AtomicSlices<<P as Platform>::Word>, P>;

/// The atomic core holding `f`'s state.
pub(crate) fn core_from_apbf<P: Platform>(f: &Apbf) -> SlicesCore<P> {
    let c = &f.core;
    let segs = AtomicSlices {
        bits: AtomicBitArray::from_bit_array(&c.segs.bits),
        m: c.segs.m,
        placement: c.segs.placement,
    };
    let period = c.clock.map(|k| k.period);
    AtomicCore::new(segs, c.k, c.l, c.generation, period, position_of(c))
}

impl Sealed for Apbf {
    type Segs = AtomicSlices<AtomicU64>;
    const NAME: &'static str = "AtomicApbf";
    const LOOKAHEAD: usize = <Slices as Segments>::LOOKAHEAD;

    fn to_atomic(&self) -> SlicesCore<Std> {
        core_from_apbf(self)
    }

    fn from_atomic(core: &SlicesCore<Std>) -> Self {
        let m = core.segs.m;
        // The atomic filter was built from a valid `Apbf` of this shape, so
        // the checked constructor accepts it again.
        let mut f = Apbf::new(core.k, core.l, m).expect("the shape of a built filter");
        f.core.segs = Slices {
            bits: core.segs.bits.to_bit_array(),
            m,
            placement: core.segs.placement,
        };
        restore_position(&mut f.core, core);
        f
    }

    fn shape_fields(segs: &Self::Segs, out: &mut fmt::DebugStruct<'_, '_>) {
        out.field("m", &segs.m);
    }
}

/// A lock-free [`Apbf`]: `observe`, `insert` and `contains` take `&self`
/// and run from any number of threads at once with no lock. Insertions set
/// bits with atomic `fetch_or` (a bit already set is only read); one thread
/// performs a due generation shift while the others go on, unless they
/// would overfill the generation being closed (the waits, below).
///
/// Same parameters, layout and snapshot bytes as [`Apbf`]
/// ([`Snapshot::to_bytes`](ddf_core::Snapshot::to_bytes) writes the `Apbf` kind, and
/// [`from`](From::from) / [`into_inner`](Atomic::into_inner) convert).
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
/// [`Apbf`] but for the first observe after a generation fills (see
/// [`Atomic`]). `concurrent/apbf-*` in `cargo xtask verify` checks 8
/// threads against a brute-force truth.
///
/// # What an operation writes
///
/// A `contains` writes nothing. An `observe` of an unseen item writes the
/// `k` words of its bits (a set bit is only read) and its thread's stripe
/// counter, a line no other thread writes while at most 32 threads use the
/// filter; once per `c` insertions it adds to the shared count, and once
/// per generation one thread empties a slice and writes the epoch word.
/// No line is written by every operation of every thread. A timed
/// insertion that finds a period passed while another thread shifts waits
/// for that shift, and so does a flush that finds the generation full
/// while another thread shifts (the two waits).
///
/// # Examples
///
/// ```
/// use ddf_apbf::{AtomicApbf, Digest, Verdict};
///
/// let f = AtomicApbf::with_window(100_000, 0.01)?;
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
pub type AtomicApbf = Atomic<Apbf>;

impl Atomic<Apbf> {
    /// As [`Apbf::new`]: `k` slices per item, `l` more for the window, `m`
    /// bits per slice.
    ///
    /// ```
    /// use ddf_apbf::AtomicApbf;
    /// let f = AtomicApbf::new(4, 10, 57_708)?;
    /// assert_eq!((f.k(), f.l()), (4, 10));
    /// assert_eq!(AtomicApbf::new(0, 10, 57_708).unwrap_err().param(), "k");
    /// # Ok::<(), ddf_apbf::ParamError>(())
    /// ```
    pub fn new(k: u32, l: u32, m: u64) -> Result<Self, ParamError> {
        Apbf::new(k, l, m).map(Self::from)
    }

    /// As [`Apbf::with_window`]: a window of at least `window` insertions at
    /// a false-positive rate of at most `fpr` (single-threaded; see the
    /// type's documentation for what concurrency adds).
    ///
    /// ```
    /// use ddf_apbf::AtomicApbf;
    /// let f = AtomicApbf::with_window(100_000, 0.01)?;
    /// assert_eq!((f.k(), f.l()), (10, 24));
    /// assert_eq!(AtomicApbf::with_window(100_000, 1.5).unwrap_err().param(), "fpr");
    /// # Ok::<(), ddf_apbf::ParamError>(())
    /// ```
    pub fn with_window(window: u64, fpr: f64) -> Result<Self, ParamError> {
        Apbf::with_window(window, fpr).map(Self::from)
    }

    /// As [`Apbf::with_time_span`]: the shape of [`new`](Self::new) with
    /// generations closed by the caller's clock too, over a window of `span`
    /// time units. Fails (parameter `time_span`) for 0 or a span too long
    /// for the shape.
    ///
    /// ```
    /// use ddf_apbf::{AtomicApbf, Digest};
    /// let f = AtomicApbf::with_time_span(60, 10, 24, 2_000)?;
    /// f.insert_at(Digest::mixed(1), 100);
    /// assert!(f.contains_at(Digest::mixed(1), 159));
    /// assert!(!f.contains_at(Digest::mixed(1), 100 + 60 * 3));
    /// assert_eq!(AtomicApbf::with_time_span(0, 3, 3, 100).unwrap_err().param(), "time_span");
    /// # Ok::<(), ddf_apbf::ParamError>(())
    /// ```
    pub fn with_time_span(span: u64, k: u32, l: u32, m: u64) -> Result<Self, ParamError> {
        Apbf::with_time_span(span, k, l, m).map(Self::from)
    }

    /// A copy as an [`Apbf`], as [`to_inner`](Atomic::to_inner).
    #[must_use]
    pub fn to_apbf(&self) -> Apbf {
        self.to_inner()
    }

    /// Bits per slice, `m`.
    pub fn slice_bits(&self) -> u64 {
        self.core.segs.m
    }
}

impl From<AtomicApbf> for Apbf {
    fn from(f: AtomicApbf) -> Self {
        f.into_inner()
    }
}
