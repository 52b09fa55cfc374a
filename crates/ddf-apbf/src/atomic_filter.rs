//! The public lock-free filter, generic over the single-threaded filter whose
//! layout it keeps: [`AtomicApbf`](crate::AtomicApbf) and
//! [`AtomicApbbf`](crate::AtomicApbbf) share every method here.

use crate::atomic::{AtomicCore, AtomicSegments, Platform, Position, Std, thread_stripe};
use crate::core::{AgeCore, Clock};
use ddf_core::snapshot::{DecodeError, Decoder, Encoder, Snapshot};
use ddf_core::{Digest, TimeClock, Verdict, Window};
use std::fmt;

pub(crate) mod sealed {
    use super::{AtomicCore, AtomicSegments, Std};
    use ddf_core::snapshot::Snapshot;
    use std::fmt;

    /// What [`Atomic`](super::Atomic) needs from a single-threaded filter:
    /// its atomic segment layout and the conversions both ways. Implemented
    /// in this crate only.
    pub trait Sealed: Sized + Snapshot {
        /// The segments in atomic words, the same bit layout.
        type Segs: AtomicSegments;
        /// The type's name in `Debug` output.
        const NAME: &'static str;
        /// Items prefetched ahead by the batch path, as the filter's own.
        const LOOKAHEAD: usize;
        /// The atomic core holding this filter's state.
        fn to_atomic(&self) -> AtomicCore<Self::Segs, Std>;
        /// A filter holding the atomic core's state (exact when no
        /// operation runs meanwhile).
        fn from_atomic(core: &AtomicCore<Self::Segs, Std>) -> Self;
        /// The shape fields of `Debug` output besides `k`, `l` and the
        /// generation.
        fn shape_fields(segs: &Self::Segs, out: &mut fmt::DebugStruct<'_, '_>);
    }
}

/// A single-threaded age-partitioned filter with a lock-free form,
/// [`Atomic<Self>`](Atomic): [`Apbf`](crate::Apbf) and
/// [`Apbbf`](crate::Apbbf). Implemented by those two only.
pub trait AtomicForm: sealed::Sealed {}

impl AtomicForm for crate::Apbf {}
impl AtomicForm for crate::Apbbf {}

/// The lock-free form of the age-partitioned filter `F`: every operation
/// takes `&self`. Used through its two names, [`AtomicApbf`](crate::AtomicApbf)
/// (`Atomic<Apbf>`) and [`AtomicApbbf`](crate::AtomicApbbf)
/// (`Atomic<Apbbf>`), whose documentation says what holds while threads race
/// and which lines an operation writes; the protocol is the same for both
/// and only the segments differ.
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
///   `observe` are those of `F`, but for the first observe after a
///   generation fills: the shift happens right after the `g`-th insertion
///   (by the thread that counted it) where `F` shifts just before the
///   next, so that observe may miss an item exactly `l·g` insertions old
///   that `F` still reports (the window `l·g` holds either way).
/// * **Time window** ([`AtomicApbf::with_time_span`](crate::AtomicApbf::with_time_span),
///   `τ = ⌈t/l⌉`): an insertion at
///   time `t` is reported by `C` unless some operation with a time of at
///   least `t + l·τ` began before `C` ended, or a generation closed early
///   by count since `I` began (then the count window holds).
/// * **False positives**: the single-threaded bound with generations of
///   up to `g + (c + 1)·T` items. An insertion whose flush finds the
///   generation full while another thread is shifting waits for that
///   shift, so a descheduled shifter cannot let a generation overfill.
///
/// A reader racing a shift may see the oldest segment half emptied: it
/// holds only items that this shift expires. The derivation is in the
/// crate's source (`src/atomic/mod.rs`); `loom` models of the shift run in
/// `cargo test`, and `concurrent/apbf-*` and `concurrent/apbbf-*` in
/// `cargo xtask verify` check 8 threads against a brute-force truth.
///
pub struct Atomic<F: AtomicForm> {
    pub(crate) core: AtomicCore<F::Segs, Std>,
}

/// The position of a single-threaded core, for an atomic core built from it.
pub(crate) fn position_of<S>(c: &AgeCore<S>) -> Position {
    Position {
        base: c.base,
        in_generation: c.in_generation,
        clock: c
            .clock
            .filter(|k| k.started)
            .map(|k| (k.opened, k.time.latest(), k.time.regressions())),
        closed_early: c.clock.map_or(0, |k| k.closed_early),
    }
}

/// Sets a fresh single-threaded core (`AgeCore::new` of the same shape) to
/// the atomic core's position and clock.
pub(crate) fn restore_position<S, T: AtomicSegments, P: Platform>(
    c: &mut AgeCore<S>,
    core: &AtomicCore<T, P>,
) {
    let at = core.position();
    c.base = at.base;
    c.in_generation = at.in_generation;
    c.clock = core.period.map(|period| match at.clock {
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
    if c.clock.is_some_and(|k| !k.started) {
        c.in_generation = 0;
    }
}

impl<F: AtomicForm> Atomic<F> {
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

    /// [`observe`](Self::observe) of every digest in order, the verdicts
    /// appended to `verdicts`: the batch path, which hints the lines of
    /// items a few ahead (beyond the caches, about half the time a digest
    /// of one call each, or less; see the crate documentation). Each digest is one
    /// operation of the concurrency promise, so threads may run batches
    /// and single operations side by side.
    pub fn observe_digests(&self, digests: &[Digest], verdicts: &mut Vec<Verdict>) {
        verdicts.reserve(digests.len());
        let stripe = thread_stripe();
        ddf_core::batch::hinted(self, digests, |d| {
            verdicts.push(Verdict::from_seen(self.core.observe(d, None, stripe)));
        });
    }

    /// [`observe_at`](Self::observe_at) of every digest in order at time
    /// `now`, as [`observe_digests`](Self::observe_digests).
    pub fn observe_digests_at(&self, digests: &[Digest], now: u64, verdicts: &mut Vec<Verdict>) {
        verdicts.reserve(digests.len());
        let stripe = thread_stripe();
        ddf_core::batch::hinted(self, digests, |d| {
            verdicts.push(Verdict::from_seen(self.core.observe(d, Some(now), stripe)));
        });
    }

    /// [`contains`](Self::contains) of every digest in order, the answers
    /// appended to `answers`, with the batch path's hints.
    pub fn contains_digests(&self, digests: &[Digest], answers: &mut Vec<bool>) {
        ddf_core::batch::contains_batch(self, digests, answers);
    }

    /// [`contains_at`](Self::contains_at) of every digest in order at time
    /// `now`, with the batch path's hints.
    pub fn contains_digests_at(&self, digests: &[Digest], now: u64, answers: &mut Vec<bool>) {
        ddf_core::batch::contains_batch_at(self, digests, now, answers);
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
    pub fn to_inner(&self) -> F {
        F::from_atomic(&self.core)
    }

    /// The single-threaded filter with this state.
    #[must_use]
    pub fn into_inner(self) -> F {
        self.to_inner()
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

impl<F: AtomicForm> From<F> for Atomic<F> {
    fn from(f: F) -> Self {
        Atomic {
            core: f.to_atomic(),
        }
    }
}

impl<F: AtomicForm> fmt::Debug for Atomic<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = f.debug_struct(F::NAME);
        out.field("k", &self.core.k).field("l", &self.core.l);
        F::shape_fields(&self.core.segs, &mut out);
        out.field("generation", &self.core.generation)
            .field("period", &self.core.period)
            .field("chunk", &self.core.chunk())
            .finish_non_exhaustive()
    }
}

/// Through `&mut self`, for code written against the trait (the `&self`
/// methods are the concurrent interface).
impl<F: AtomicForm> ddf_core::DuplicateFilter for Atomic<F> {
    #[inline]
    fn contains(&self, digest: Digest) -> bool {
        Atomic::contains(self, digest)
    }

    #[inline]
    fn insert(&mut self, digest: Digest) {
        Atomic::insert(self, digest);
    }

    #[inline]
    fn observe(&mut self, digest: Digest) -> Verdict {
        Atomic::observe(self, digest)
    }

    /// [`Atomic::observe_digests`]: same verdicts as one by one.
    fn observe_batch(&mut self, digests: &[Digest], verdicts: &mut Vec<Verdict>) {
        self.observe_digests(digests, verdicts);
    }

    fn contains_batch(&self, digests: &[Digest], answers: &mut Vec<bool>) {
        self.contains_digests(digests, answers);
    }

    fn memory_bits(&self) -> u64 {
        self.core.segs.memory_bits()
    }

    fn clear(&mut self) {
        self.core.clear();
    }
}

/// The lines an unseen item's observe reads, as the single-threaded
/// filter's.
impl<F: AtomicForm> ddf_core::batch::Prefetch for Atomic<F> {
    const LOOKAHEAD: usize = F::LOOKAHEAD;
    const MIN_PREFETCH_BITS: u64 = crate::core::CACHED_BITS;

    #[inline]
    fn prefetch(&self, digest: Digest) {
        self.core.prefetch(digest);
    }
}

impl<F: AtomicForm> ddf_core::TimedFilter for Atomic<F> {
    #[inline]
    fn contains_at(&self, digest: Digest, now: u64) -> bool {
        Atomic::contains_at(self, digest, now)
    }

    #[inline]
    fn insert_at(&mut self, digest: Digest, now: u64) {
        Atomic::insert_at(self, digest, now);
    }

    #[inline]
    fn observe_at(&mut self, digest: Digest, now: u64) -> Verdict {
        Atomic::observe_at(self, digest, now)
    }

    /// [`Atomic::observe_digests_at`].
    fn observe_batch_at(&mut self, digests: &[Digest], now: u64, verdicts: &mut Vec<Verdict>) {
        self.observe_digests_at(digests, now, verdicts);
    }

    /// [`Atomic::contains_digests_at`].
    fn contains_batch_at(&self, digests: &[Digest], now: u64, answers: &mut Vec<bool>) {
        self.contains_digests_at(digests, now, answers);
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

impl<F: AtomicForm> ddf_core::Windowed for Atomic<F> {
    /// `l·g` counted insertions, or `l·τ` time units (see the type's
    /// documentation for the counting).
    fn window(&self) -> Window {
        let l = u64::from(self.core.l);
        match self.core.period {
            Some(tau) => Window::Time(l * tau),
            None => Window::Count(l * self.core.generation),
        }
    }

    /// `k·g` (or `k·τ`), as for the single-threaded filter.
    fn slack(&self) -> u64 {
        let k = u64::from(self.core.k);
        k * self.core.period.unwrap_or(self.core.generation)
    }
}

/// The bytes of `F`: the same kind, so either type loads the other's.
impl<F: AtomicForm> Snapshot for Atomic<F> {
    const KIND: u16 = F::KIND;
    const VERSION: u16 = F::VERSION;
    const OLDEST_VERSION: u16 = F::OLDEST_VERSION;

    fn encode_body(&self, out: &mut Encoder) {
        self.to_inner().encode_body(out);
    }

    fn decode_body(input: &mut Decoder<'_>, version: u16) -> Result<Self, DecodeError> {
        F::decode_body(input, version).map(Self::from)
    }
}
