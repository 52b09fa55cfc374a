//! The age-partitioning shared by the plain and the blocked filter: `k + l`
//! segments in a circular buffer, generations by count or time, Algorithm 1.

use ddf_core::snapshot::{DecodeError, Decoder, Encoder};
use ddf_core::{Digest, ParamError, TimeClock};
use ddf_hash::IndexedProbes;

/// How the segments store items: a Bloom slice per segment (APBF) or a
/// blocked Bloom filter per segment (APBBF). Segment `p` (physical) always
/// uses probe `p` of an item's [`IndexedProbes`], whichever logical slice it
/// plays, so an item's bits stay findable as the segments age.
pub(crate) trait Segments: Clone + PartialEq + Eq {
    /// Whether physical segment `seg` holds the item with probes `h`.
    fn test(&self, seg: usize, h: IndexedProbes) -> bool;
    /// Records the item with probes `h` in physical segment `seg`.
    fn set(&mut self, seg: usize, h: IndexedProbes);
    /// Records the item in the `count` physical segments from `first` on,
    /// wrapping from segment `total − 1` to 0. Types override it to work out
    /// every position before touching memory, so that the cache misses of
    /// the segments overlap.
    #[inline]
    fn set_run(&mut self, first: usize, count: usize, total: usize, h: IndexedProbes) {
        let mut seg = first;
        for _ in 0..count {
            self.set(seg, h);
            seg += 1;
            if seg == total {
                seg = 0;
            }
        }
    }
    /// Prefetches the memory `test` and `set` of physical segment `seg`
    /// read for the item with probes `h` (a cache hint only).
    fn prefetch(&self, seg: usize, h: IndexedProbes);
    /// Empties physical segment `seg`.
    fn clear_segment(&mut self, seg: usize);
    /// Empties every segment.
    fn clear_all(&mut self);
    /// State bits of all segments, as the paper counts them.
    fn memory_bits(&self) -> u64;
}

/// The trait implementations an age-partitioned filter type (a struct with a
/// `core: AgeCore<_>` field) shares: `DuplicateFilter`, `TimedFilter` and
/// `Windowed`, all delegating to the core, and the batch path's
/// `Prefetch` with `$lookahead` items ahead.
macro_rules! age_filter_impls {
    ($filter:ty, $lookahead:expr) => {
        impl $filter {
            /// The same filter with time-based generations over a window of
            /// `span` time units (`t ≥ 1`): each generation lasts at most
            /// `τ = ⌈t/l⌉`, so the window is `l·τ ≥ t` while at most `g` items
            /// arrive per `τ` (see the type's documentation for what happens
            /// above that rate).
            pub fn timed(mut self, span: u64) -> Result<Self, ddf_core::ParamError> {
                self.core.set_time_span(span)?;
                Ok(self)
            }

            /// Segments per item and consecutive matches per query, `k`.
            pub fn k(&self) -> u32 {
                self.core.k
            }

            /// Extra segments, `l`: the window is `l` generations.
            pub fn l(&self) -> u32 {
                self.core.l
            }

            /// Insertions per generation, `g`.
            pub fn generation(&self) -> u64 {
                self.core.generation
            }

            /// Insertions in the current generation (a shift happens at the
            /// next insertion once it reaches `g`).
            pub fn generation_fill(&self) -> u64 {
                self.core.in_generation
            }

            /// The time per generation `τ`, if generations are also closed by time.
            pub fn period(&self) -> Option<u64> {
                self.core.clock.map(|c| c.period)
            }

            /// Algorithm 1 with its cost: the answer of `contains` and the
            /// number of segments it read (slices, or blocks of one cache line
            /// or word), the quantity of the APBF paper's access recursions.
            pub fn query_accesses(&self, digest: ddf_core::Digest) -> (bool, u32) {
                self.core.query(digest, self.core.now())
            }
        }

        impl ddf_core::DuplicateFilter for $filter {
            #[inline]
            fn contains(&self, digest: ddf_core::Digest) -> bool {
                self.core.query(digest, self.core.now()).0
            }

            #[inline]
            fn insert(&mut self, digest: ddf_core::Digest) {
                let now = self.core.now();
                self.core.insert(digest, now);
            }

            /// Prefetches each item's segments a few items ahead; same
            /// verdicts and state as one by one.
            fn observe_batch(
                &mut self,
                digests: &[ddf_core::Digest],
                verdicts: &mut Vec<ddf_core::Verdict>,
            ) {
                ddf_core::batch::observe_batch(self, digests, verdicts);
            }

            fn contains_batch(&self, digests: &[ddf_core::Digest], answers: &mut Vec<bool>) {
                ddf_core::batch::contains_batch(self, digests, answers);
            }

            /// `(k + l)` segments of state.
            fn memory_bits(&self) -> u64 {
                crate::core::Segments::memory_bits(&self.core.segs)
            }

            fn clear(&mut self) {
                self.core.clear();
            }
        }

        /// The segments of an unseen item's query and insertion.
        impl ddf_core::batch::Prefetch for $filter {
            const LOOKAHEAD: usize = $lookahead;
            /// 16 Mbit (2 MiB, a per-core L2 of the Intel Xeon measured): below it
            /// the hints' probe hashes cost more than they save (APBBF at
            /// 1 Mbit: 68 ns one by one, 78 ns with hints).
            const MIN_PREFETCH_BITS: u64 = 1 << 24;

            #[inline]
            fn prefetch(&self, digest: ddf_core::Digest) {
                self.core.prefetch(digest);
            }
        }

        impl ddf_core::TimedFilter for $filter {
            /// Without time-based generations the time is ignored.
            #[inline]
            fn contains_at(&self, digest: ddf_core::Digest, now: u64) -> bool {
                self.core.query(digest, now).0
            }

            #[inline]
            fn insert_at(&mut self, digest: ddf_core::Digest, now: u64) {
                self.core.insert(digest, now);
            }

            /// 0 without time-based generations, which ignore the time.
            fn clock_regressions(&self) -> u64 {
                self.core.clock_regressions()
            }

            /// Generations that reached `g` insertions before their `τ` had
            /// passed (0 without time-based generations).
            fn generations_closed_early(&self) -> u64 {
                self.core.closed_early()
            }
        }

        impl ddf_core::Windowed for $filter {
            /// `l·g` insertions, or `l·τ` time units with time-based generations.
            fn window(&self) -> ddf_core::Window {
                let l = u64::from(self.core.l);
                match self.core.clock {
                    Some(c) => ddf_core::Window::Time(l * c.period),
                    None => ddf_core::Window::Count(l * self.core.generation),
                }
            }

            /// `k·g` (or `k·τ`): the generations still partly present just before a shift.
            fn slack(&self) -> u64 {
                let k = u64::from(self.core.k);
                match self.core.clock {
                    Some(c) => k * c.period,
                    None => k * self.core.generation,
                }
            }
        }
    };
}

pub(crate) use age_filter_impls;

/// Generations closed by time as well as by count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Clock {
    /// Time units per generation, `τ = ⌈t/l⌉`.
    pub(crate) period: u64,
    /// When the current generation opened (once `started`).
    pub(crate) opened: u64,
    /// The latest time seen and the steps back.
    pub(crate) time: TimeClock,
    /// Whether a generation has opened yet (the first insertion opens one).
    pub(crate) started: bool,
    /// Generations closed by count before their period had passed.
    pub(crate) closed_early: u64,
}

impl Clock {
    /// Whole periods elapsed at `now` since the current generation opened.
    #[inline]
    fn elapsed_periods(&self, now: u64) -> u64 {
        if self.started {
            self.time.peek(now).saturating_sub(self.opened) / self.period
        } else {
            0
        }
    }
}

/// The state of an age-partitioned filter (APBF paper §5.1): `k + l`
/// segments, the position of logical segment 0 in the circular buffer, the
/// count of the current generation, and the clock of time-based generations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AgeCore<S> {
    pub(crate) segs: S,
    /// `k`: segments per insertion and consecutive matches per query.
    pub(crate) k: u32,
    /// `l`: the extra segments that make the window.
    pub(crate) l: u32,
    /// `g`: insertions per generation.
    pub(crate) generation: u64,
    /// Physical index of logical segment 0.
    pub(crate) base: usize,
    /// Insertions in the current generation, `0..=g`.
    pub(crate) in_generation: u64,
    pub(crate) clock: Option<Clock>,
}

/// The most segments, `k + l`; well beyond the paper's largest (75).
pub const MAX_SEGMENTS: u32 = 4096;

/// The longest generation period for `k + l` segments: `(k + l)·τ` stays
/// below 2^62.
fn max_period(k: u32, l: u32) -> u64 {
    (1u64 << 62) / u64::from(k + l)
}

/// The generation period `τ = ⌈t/l⌉` of a time span `t`, checked so that
/// the window and slack, `(k + l)·τ`, stay far from overflow.
pub(crate) fn time_period(k: u32, l: u32, span: u64) -> Result<u64, ParamError> {
    let most = max_period(k, l) * u64::from(l);
    let span = ddf_param::ensure_range("time_span", span, 1..=most)?;
    Ok(span.div_ceil(u64::from(l)))
}

impl<S: Segments> AgeCore<S> {
    /// Checks `k` and `l` (`1 ≤ k`, `1 ≤ l`, `k + l ≤ 4096`).
    pub(crate) fn check_kl(k: u32, l: u32) -> Result<(), ParamError> {
        ddf_param::ensure_range("k", k, 1..=MAX_SEGMENTS - 1)?;
        ddf_param::ensure_range("l", l, 1..=MAX_SEGMENTS - k)?;
        Ok(())
    }

    pub(crate) fn new(segs: S, k: u32, l: u32, generation: u64) -> Self {
        AgeCore {
            segs,
            k,
            l,
            generation,
            base: 0,
            in_generation: 0,
            clock: None,
        }
    }

    #[inline]
    fn n(&self) -> usize {
        (self.k + self.l) as usize
    }

    /// Makes generations also close after `span` time units divided over the
    /// `l` window generations: `τ = ⌈span/l⌉`, window `l·τ ≥ span`.
    pub(crate) fn set_time_span(&mut self, span: u64) -> Result<(), ParamError> {
        let period = time_period(self.k, self.l, span)?;
        self.clock = Some(Clock {
            period,
            opened: 0,
            time: TimeClock::new(),
            started: false,
            closed_early: 0,
        });
        Ok(())
    }

    /// The physical index of logical segment `i` after `virtual_shifts`
    /// shifts not yet applied; `None` for a segment those shifts emptied.
    #[inline]
    fn physical(&self, i: usize, virtual_shifts: usize) -> Option<usize> {
        let back = i.checked_sub(virtual_shifts)?;
        let p = self.base + back;
        Some(if p >= self.n() { p - self.n() } else { p })
    }

    /// The shift of §5.1: logical segment `k + l − 1` is emptied and becomes
    /// segment 0.
    fn shift(&mut self) {
        self.base = if self.base == 0 {
            self.n() - 1
        } else {
            self.base - 1
        };
        self.segs.clear_segment(self.base);
        self.in_generation = 0;
    }

    /// Shifts owed at `now` by generations whose time span has passed.
    #[inline]
    fn pending_shifts(&self, now: u64) -> usize {
        match &self.clock {
            Some(c) => c.elapsed_periods(now).min(self.n() as u64) as usize,
            None => 0,
        }
    }

    /// Algorithm 1 of the APBF paper (§5.4) at time `now`: start at logical
    /// segment `l`, count consecutive matches, and on a miss jump back `k`
    /// segments keeping the matches just found. Returns the answer and the
    /// number of segments tested.
    #[inline]
    pub(crate) fn query(&self, digest: Digest, now: u64) -> (bool, u32) {
        let h = digest.indexed_probes();
        let shifts = self.pending_shifts(now);
        let k = self.k as isize;
        let (mut i, mut p, mut c) = (self.l as isize, 0isize, 0isize);
        let mut accesses = 0u32;
        while i >= 0 {
            accesses += 1;
            let hit = match self.physical(i as usize, shifts) {
                Some(seg) => self.segs.test(seg, h),
                None => false,
            };
            if hit {
                c += 1;
                i += 1;
                if p + c == k {
                    return (true, accesses);
                }
            } else {
                i -= k;
                p = c;
                c = 0;
            }
        }
        (false, accesses)
    }

    /// Prefetches what observing `digest` reads, for the batch path: the
    /// segments a query visits while it misses (logical `l`, `l − k`, …,
    /// the path of an unseen item) and the `k` that insertion sets
    /// (logical `0..k`). A hit or a shift before the probe changes the path;
    /// the hints are then partly wasted, never wrong.
    #[inline]
    pub(crate) fn prefetch(&self, digest: Digest) {
        let h = digest.indexed_probes();
        let k = self.k as usize;
        let mut i = self.l as usize;
        // The query's last stop, `l mod k`, is among the insertion's segments.
        while i >= k {
            if let Some(seg) = self.physical(i, 0) {
                self.segs.prefetch(seg, h);
            }
            i -= k;
        }
        for i in 0..k {
            if let Some(seg) = self.physical(i, 0) {
                self.segs.prefetch(seg, h);
            }
        }
    }

    /// Insertion at time `now` (ignored without a clock): close the
    /// generation if its time span has passed or it is full, then set the
    /// item in logical segments `0..k`.
    #[inline]
    pub(crate) fn insert(&mut self, digest: Digest, now: u64) {
        if let Some(mut c) = self.clock {
            let now = c.time.advance(now);
            if c.started {
                let periods = c.elapsed_periods(now);
                if periods > 0 {
                    for _ in 0..periods.min(self.n() as u64) {
                        self.shift();
                    }
                    // Generations stay on the grid of periods from the first.
                    c.opened = c.opened.saturating_add(periods.saturating_mul(c.period));
                }
            } else {
                c.started = true;
                c.opened = now;
            }
            if self.in_generation == self.generation {
                // Full before its period has passed (a period that passed
                // shifted above): closed early by count, and the next
                // generation opens now.
                self.shift();
                c.opened = now;
                c.closed_early = c.closed_early.saturating_add(1);
            }
            self.clock = Some(c);
        } else if self.in_generation == self.generation {
            self.shift();
        }
        let h = digest.indexed_probes();
        self.segs.set_run(self.base, self.k as usize, self.n(), h);
        self.in_generation += 1;
    }

    /// The latest time seen (0 without a clock).
    pub(crate) fn now(&self) -> u64 {
        self.clock.map_or(0, |c| c.time.latest())
    }

    /// Insertions whose time was behind the latest (0 without a clock).
    pub(crate) fn clock_regressions(&self) -> u64 {
        self.clock.map_or(0, |c| c.time.regressions())
    }

    /// Generations closed by count before their period passed (0 without a clock).
    pub(crate) fn closed_early(&self) -> u64 {
        self.clock.map_or(0, |c| c.closed_early)
    }

    pub(crate) fn clear(&mut self) {
        self.segs.clear_all();
        self.base = 0;
        self.in_generation = 0;
        if let Some(c) = &mut self.clock {
            c.opened = 0;
            c.time = TimeClock::new();
            c.started = false;
            c.closed_early = 0;
        }
    }

    /// Writes `k`, `l`, the clock and the position; the caller writes the
    /// segment parameters before and the payload after.
    pub(crate) fn encode_state(&self, out: &mut Encoder) {
        out.put_u32(self.k);
        out.put_u32(self.l);
        match &self.clock {
            None => out.put_bool(false),
            Some(c) => {
                out.put_bool(true);
                out.put_u64(c.period);
                out.put_u64(c.opened);
                c.time.encode(out);
                out.put_bool(c.started);
                out.put_u64(c.closed_early);
            }
        }
        out.put_u64(self.base as u64);
        out.put_u64(self.in_generation);
    }
}

/// The fields [`AgeCore::encode_state`] writes, read back unvalidated.
#[derive(Debug)]
pub(crate) struct StateFields {
    pub(crate) k: u32,
    pub(crate) l: u32,
    pub(crate) clock: Option<Clock>,
    pub(crate) base: u64,
    pub(crate) in_generation: u64,
}

impl StateFields {
    pub(crate) fn decode(input: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        let k = input.u32("k")?;
        let l = input.u32("l")?;
        let clock = if input.bool("timed")? {
            Some(Clock {
                period: input.u64("period")?,
                opened: input.u64("opened")?,
                time: TimeClock::decode(input)?,
                started: input.bool("started")?,
                closed_early: input.u64("generations closed early")?,
            })
        } else {
            None
        };
        Ok(StateFields {
            k,
            l,
            clock,
            base: input.u64("base")?,
            in_generation: input.u64("in_generation")?,
        })
    }

    /// Moves the fields into `core` (built from the same `k`, `l` through
    /// the checked constructor), checking them against it.
    pub(crate) fn apply<S: Segments>(self, core: &mut AgeCore<S>) -> Result<(), DecodeError> {
        if self.base >= u64::from(core.k + core.l) {
            return Err(DecodeError::invalid("base", "beyond the k + l segments"));
        }
        if self.in_generation > core.generation {
            return Err(DecodeError::invalid(
                "in_generation",
                "more than a generation holds",
            ));
        }
        if let Some(c) = &self.clock {
            if c.period == 0 || c.period > max_period(core.k, core.l) {
                return Err(DecodeError::invalid(
                    "period",
                    "0, or (k + l)·period above 2^62",
                ));
            }
            if c.started && c.opened > c.time.latest() {
                return Err(DecodeError::invalid("opened", "after the latest time seen"));
            }
            if !c.started
                && (c.opened != 0
                    || c.time != TimeClock::new()
                    || c.closed_early != 0
                    || self.in_generation != 0)
            {
                return Err(DecodeError::invalid(
                    "started",
                    "a clock that never started has no time",
                ));
            }
        }
        core.base = self.base as usize;
        core.in_generation = self.in_generation;
        core.clock = self.clock;
        Ok(())
    }
}
