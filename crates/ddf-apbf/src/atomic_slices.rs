//! The lock-free APBF: `k + l` slices in atomic words.

use crate::Apbf;
use crate::atomic::{AtomicCore, AtomicSegments, Platform, Position, Std, thread_stripe};
use crate::core::Clock;
use crate::slices::Slices;
use ddf_bits::{AtomicBitArray, AtomicWord};
use ddf_core::snapshot::{self, DecodeError, Decoder, Encoder, Snapshot};
use ddf_core::{Digest, ParamError, TimeClock, Verdict, Window};
use std::fmt;

/// `k + l` slices of `m` bits in one atomic array, `Slices`' layout.
pub(crate) struct AtomicSlices<W> {
    pub(crate) bits: AtomicBitArray<W>,
    pub(crate) m: u64,
}

impl<W: AtomicWord> AtomicSlices<W> {
    #[inline(always)]
    fn position(&self, seg: usize, x: u64) -> u64 {
        seg as u64 * self.m + Digest::new(x).reduce(self.m)
    }
}

impl<W: AtomicWord> AtomicSegments for AtomicSlices<W> {
    const ALL_AT_ONCE: bool = true;

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
        let (mut mask, mut offset, mut linear) = (0u64, 0u64, h.linear(0));
        for (p, &t) in cubic.iter().enumerate() {
            let pos = offset + Digest::new(linear.wrapping_add(t)).reduce(m);
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
        let (n, m) = (cubic.len(), self.m);
        // The item's positions in the `k` segments from `first`, wrapping
        // (worked out twice: cheaper than a buffer to keep them in).
        let positions = || {
            let mut seg = first;
            (0..k).map(move |_| {
                let pos = seg as u64 * m + Digest::new(h.at(seg, cubic)).reduce(m);
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
    };
    let at = Position {
        base: c.base,
        in_generation: c.in_generation,
        clock: c
            .clock
            .filter(|k| k.started)
            .map(|k| (k.opened, k.time.latest(), k.time.regressions())),
        closed_early: c.clock.map_or(0, |k| k.closed_early),
    };
    AtomicCore::new(segs, c.k, c.l, c.generation, c.clock.map(|k| k.period), at)
}

/// An [`Apbf`] holding the atomic core's state (see [`AtomicApbf::to_apbf`]).
pub(crate) fn core_to_apbf<P: Platform>(core: &SlicesCore<P>) -> Apbf {
    let at = core.position();
    let m = core.segs.m;
    // The atomic filter was built from a valid `Apbf` of this shape, so the
    // checked constructor accepts it again.
    let mut f = Apbf::new(core.k, core.l, m).expect("the shape of a built filter");
    f.core.segs = Slices {
        bits: core.segs.bits.to_bit_array(),
        m,
    };
    f.core.base = at.base;
    f.core.in_generation = at.in_generation;
    f.core.clock = core.period.map(|period| match at.clock {
        Some((opened, latest, regressions)) => Clock {
            period,
            opened,
            time: TimeClock::from_parts(latest, regressions),
            started: true,
            closed_early: at.closed_early,
        },
        None => Clock {
            period,
            opened: 0,
            time: TimeClock::new(),
            started: false,
            closed_early: 0,
        },
    });
    if f.core.clock.is_some_and(|c| !c.started) {
        f.core.in_generation = 0;
    }
    f
}

/// A lock-free [`Apbf`]: `observe`, `insert` and `contains` take `&self`
/// and run from any number of threads at once with no lock. Insertions set
/// bits with atomic `fetch_or` (a bit already set is only read); one thread
/// performs a due generation shift while the others go on, unless they
/// would overfill the generation being closed (the waits, below).
///
/// Same parameters, layout and snapshot bytes as [`Apbf`]
/// ([`Snapshot::to_bytes`] writes the `Apbf` kind, and
/// [`from`](From::from) / [`into_inner`](Self::into_inner) convert).
///
/// # What holds under concurrency
///
/// Write `I` for an `observe` or `insert` of item `x`, and `C` for a later
/// `observe` or `contains` of `x` that `I` happens before (the same thread,
/// or any synchronisation between the two threads).
///
/// * **Count window** (`w = l·g`): `C` reports `x` unless at least `l·g`
///   insertions were *counted* between the start of `I` and the end of
///   `C`. Each thread counts its insertions in its own stripe and adds
///   them to the shared count `c` at a time ([`chunk`](Self::chunk), a
///   power of two up to 64 with `32·(c − 1) ≤ g/16`; 1 for `g < 512`), so
///   at least `l·g − c·T` insertions *completed* in that interval, `T` the
///   threads using the filter. With one thread and `c = 1` the verdicts of
///   `observe` are those of [`Apbf`], but for the first observe after a
///   generation fills: the shift happens right after the `g`-th insertion
///   (by the thread that counted it) where [`Apbf`] shifts just before the
///   next, so that observe may miss an item exactly `l·g` insertions old
///   that [`Apbf`] still reports (the window `l·g` holds either way).
/// * **Time window** ([`timed`](Self::timed), `τ = ⌈t/l⌉`): an insertion at
///   time `t` is reported by `C` unless some operation with a time of at
///   least `t + l·τ` began before `C` ended, or a generation closed early
///   by count since `I` began (then the count window holds).
/// * **False positives**: the single-threaded bound with generations of
///   up to `g + (c + 1)·T` items. An insertion whose flush finds the
///   generation full while another thread is shifting waits for that
///   shift, so a descheduled shifter cannot let a generation overfill.
///
/// A reader racing a shift may see the oldest slice half emptied: it holds
/// only items that this shift expires. The derivation is in the crate's
/// source (`src/atomic.rs`); `loom` models of the shift run in
/// `cargo test`, and `concurrent/apbf-*` in `cargo xtask verify` checks 8
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
pub struct AtomicApbf {
    core: SlicesCore<Std>,
}

impl AtomicApbf {
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
    /// a false-positive rate of at most `fp` (single-threaded; see the
    /// type's documentation for what concurrency adds).
    ///
    /// ```
    /// use ddf_apbf::AtomicApbf;
    /// let f = AtomicApbf::with_window(100_000, 0.01)?;
    /// assert_eq!((f.k(), f.l()), (10, 24));
    /// assert_eq!(AtomicApbf::with_window(100_000, 1.5).unwrap_err().param(), "fp");
    /// # Ok::<(), ddf_apbf::ParamError>(())
    /// ```
    pub fn with_window(window: u64, fp: f64) -> Result<Self, ParamError> {
        Apbf::with_window(window, fp).map(Self::from)
    }

    /// The same filter with generations closed by the caller's clock too,
    /// over a window of `span` time units, as [`Apbf::timed`]. Fails
    /// (parameter `time_span`) for 0 or a span too long for the shape.
    ///
    /// ```
    /// use ddf_apbf::{AtomicApbf, Digest};
    /// let f = AtomicApbf::with_window(10_000, 0.01)?.timed(60)?;
    /// f.insert_at(Digest::mixed(1), 100);
    /// assert!(f.contains_at(Digest::mixed(1), 159));
    /// assert!(!f.contains_at(Digest::mixed(1), 100 + 60 * 3));
    /// assert_eq!(AtomicApbf::new(3, 3, 100)?.timed(0).unwrap_err().param(), "time_span");
    /// # Ok::<(), ddf_apbf::ParamError>(())
    /// ```
    pub fn timed(self, span: u64) -> Result<Self, ParamError> {
        self.into_inner().timed(span).map(Self::from)
    }

    /// Whether `digest` is reported (at the current generation's time on a
    /// timed filter).
    #[inline]
    pub fn contains(&self, digest: Digest) -> bool {
        self.core.contains(digest, None)
    }

    /// Whether `digest` is reported at time `now` (ignored without a clock):
    /// generations whose period has passed at `now` count as emptied.
    #[inline]
    pub fn contains_at(&self, digest: Digest, now: u64) -> bool {
        self.core.contains(digest, Some(now))
    }

    /// The query then the insertion of `digest`; the verdict is the query's.
    #[inline]
    pub fn observe(&self, digest: Digest) -> Verdict {
        Verdict::from_seen(self.core.observe(digest, None, thread_stripe()))
    }

    /// As [`observe`](Self::observe) at time `now` (ignored without a clock).
    #[inline]
    pub fn observe_at(&self, digest: Digest, now: u64) -> Verdict {
        Verdict::from_seen(self.core.observe(digest, Some(now), thread_stripe()))
    }

    /// Records `digest`.
    #[inline]
    pub fn insert(&self, digest: Digest) {
        self.observe(digest);
    }

    /// Records `digest` at time `now`.
    #[inline]
    pub fn insert_at(&self, digest: Digest, now: u64) {
        self.observe_at(digest, now);
    }

    /// A copy as the single-threaded filter. Exact when no operation runs
    /// meanwhile (as with [`into_inner`](Self::into_inner)); while others
    /// insert, each word is a value it held during the copy, so the copy
    /// holds every item inserted before the call began and still in the
    /// window, and perhaps some inserted during it. A timed copy's latest
    /// time is the current generation's opening.
    #[must_use]
    pub fn to_apbf(&self) -> Apbf {
        core_to_apbf(&self.core)
    }

    /// The single-threaded filter with this state.
    #[must_use]
    pub fn into_inner(self) -> Apbf {
        self.to_apbf()
    }

    /// Segments per item and consecutive matches per query, `k`.
    pub fn k(&self) -> u32 {
        self.core.k
    }

    /// Extra segments, `l`: the window is `l` generations.
    pub fn l(&self) -> u32 {
        self.core.l
    }

    /// Counted insertions per generation, `g`.
    pub fn generation(&self) -> u64 {
        self.core.generation
    }

    /// Bits per slice, `m`.
    pub fn slice_bits(&self) -> u64 {
        self.core.segs.m
    }

    /// The time per generation `τ`, if generations are closed by time.
    pub fn period(&self) -> Option<u64> {
        self.core.period
    }

    /// Insertions a thread counts before adding them to the shared count,
    /// `c` (see the type's documentation).
    pub fn chunk(&self) -> u64 {
        self.core.chunk()
    }

    /// Generation shifts performed since construction.
    pub fn shifts(&self) -> u64 {
        self.core.shifts()
    }
}

impl From<Apbf> for AtomicApbf {
    fn from(f: Apbf) -> Self {
        AtomicApbf {
            core: core_from_apbf(&f),
        }
    }
}

impl From<AtomicApbf> for Apbf {
    fn from(f: AtomicApbf) -> Self {
        f.into_inner()
    }
}

impl fmt::Debug for AtomicApbf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AtomicApbf")
            .field("k", &self.core.k)
            .field("l", &self.core.l)
            .field("m", &self.core.segs.m)
            .field("generation", &self.core.generation)
            .field("period", &self.core.period)
            .field("chunk", &self.core.chunk())
            .finish_non_exhaustive()
    }
}

/// Through `&mut self`, for code written against the trait (the `&self`
/// methods are the concurrent interface).
impl ddf_core::DuplicateFilter for AtomicApbf {
    #[inline]
    fn contains(&self, digest: Digest) -> bool {
        AtomicApbf::contains(self, digest)
    }

    #[inline]
    fn insert(&mut self, digest: Digest) {
        AtomicApbf::insert(self, digest);
    }

    #[inline]
    fn observe(&mut self, digest: Digest) -> Verdict {
        AtomicApbf::observe(self, digest)
    }

    /// Prefetches each item's insertion lines a few items ahead, as
    /// [`Apbf`]'s batch path does; same verdicts as one by one.
    fn observe_batch(&mut self, digests: &[Digest], verdicts: &mut Vec<Verdict>) {
        ddf_core::batch::observe_batch(self, digests, verdicts);
    }

    fn contains_batch(&self, digests: &[Digest], answers: &mut Vec<bool>) {
        ddf_core::batch::contains_batch(self, digests, answers);
    }

    fn memory_bits(&self) -> u64 {
        self.core.segs.memory_bits()
    }

    fn clear(&mut self) {
        self.core.clear();
    }
}

/// The lines of an item's insertion, as [`Apbf`]'s.
impl ddf_core::batch::Prefetch for AtomicApbf {
    const LOOKAHEAD: usize = 2;
    const MIN_PREFETCH_BITS: u64 = crate::core::CACHED_BITS;

    #[inline]
    fn prefetch(&self, digest: Digest) {
        self.core.prefetch(digest);
    }
}

impl ddf_core::TimedFilter for AtomicApbf {
    #[inline]
    fn contains_at(&self, digest: Digest, now: u64) -> bool {
        AtomicApbf::contains_at(self, digest, now)
    }

    #[inline]
    fn insert_at(&mut self, digest: Digest, now: u64) {
        AtomicApbf::insert_at(self, digest, now);
    }

    #[inline]
    fn observe_at(&mut self, digest: Digest, now: u64) -> Verdict {
        AtomicApbf::observe_at(self, digest, now)
    }

    /// Timed insertions stamped before the current generation opened
    /// (clamped to it): with threads, only steps back past a generation's
    /// opening are counted, not every step behind another thread's time.
    fn clock_regressions(&self) -> u64 {
        self.core.clock_regressions()
    }

    fn generations_closed_early(&self) -> u64 {
        self.core.closed_early()
    }
}

impl ddf_core::Windowed for AtomicApbf {
    /// `l·g` counted insertions, or `l·τ` time units (see the type's
    /// documentation for the counting).
    fn window(&self) -> Window {
        let l = u64::from(self.core.l);
        match self.core.period {
            Some(tau) => Window::Time(l * tau),
            None => Window::Count(l * self.core.generation),
        }
    }

    /// `k·g` (or `k·τ`), as for [`Apbf`].
    fn slack(&self) -> u64 {
        let k = u64::from(self.core.k);
        k * self.core.period.unwrap_or(self.core.generation)
    }
}

/// The bytes of [`Apbf`]: the same kind, so either type loads the other's.
impl Snapshot for AtomicApbf {
    const KIND: u16 = snapshot::kind::APBF;
    const VERSION: u16 = <Apbf as Snapshot>::VERSION;
    const OLDEST_VERSION: u16 = <Apbf as Snapshot>::OLDEST_VERSION;

    fn encode_body(&self, out: &mut Encoder) {
        self.to_apbf().encode_body(out);
    }

    fn decode_body(input: &mut Decoder<'_>, version: u16) -> Result<Self, DecodeError> {
        Apbf::decode_body(input, version).map(Self::from)
    }
}
