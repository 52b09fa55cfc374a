//! The public age-partitioned filter, generic over its segment layout:
//! [`Apbf`](crate::Apbf) (a Bloom slice per segment) and
//! [`Apbbf`](crate::Apbbf) (a blocked Bloom filter per segment) share every
//! method and trait implementation here.

use crate::core::{AgeCore, CACHED_BITS, Segments};
use ddf_bits::isa::{self, Isa};
use ddf_core::{Digest, ParamError, Verdict, Window};

/// How the segments of an [`AgePartitioned`] filter store items:
/// [`Slices`](crate::Slices) (the APBF, §5) or [`Blocks`](crate::Blocks)
/// (the APBBF, §6). Implemented by those two only.
pub trait SegmentLayout: Segments {}

impl SegmentLayout for crate::Slices {}
impl SegmentLayout for crate::Blocks {}

/// An age-partitioned filter (Shtul, Baquero, Almeida, *Age-Partitioned
/// Bloom Filters*, §5.1): `k + l` segments in a circular buffer, an item
/// set in the `k` newest, generations closed by count (and by time, with
/// `with_time_span`), queries by Algorithm 1. The layout `S` says how a
/// segment stores items. Used through its two names, [`Apbf`](crate::Apbf)
/// (`AgePartitioned<Slices>`) and [`Apbbf`](crate::Apbbf)
/// (`AgePartitioned<Blocks>`), whose documentation teaches each.
#[derive(Clone, PartialEq, Eq)]
pub struct AgePartitioned<S: SegmentLayout> {
    pub(crate) core: AgeCore<S>,
    /// The instructions the hot paths run with when the layout asks for it
    /// ([`Segments::ISA_KERNELS`]; derived, so not in snapshots).
    pub(crate) isa: Isa,
}

impl<S: SegmentLayout> AgePartitioned<S> {
    /// The filter of `core`, given time-based generations over a window of
    /// `span` time units (`t ≥ 1`, parameter `time_span`): each generation
    /// lasts at most `τ = ⌈t/l⌉`.
    pub(crate) fn from_core_with_span(mut core: AgeCore<S>, span: u64) -> Result<Self, ParamError> {
        core.set_time_span(span)?;
        Ok(AgePartitioned::of(core))
    }

    /// The filter of `core`, its hot paths run with this machine's
    /// instructions ([`Isa::detect`]).
    pub(crate) fn of(core: AgeCore<S>) -> Self {
        AgePartitioned {
            core,
            isa: Isa::detect(),
        }
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

    /// Insertions in the current generation (a shift happens at the next
    /// insertion once it reaches `g`).
    pub fn generation_fill(&self) -> u64 {
        self.core.in_generation
    }

    /// The time per generation `τ`, if generations are also closed by time.
    pub fn period(&self) -> Option<u64> {
        self.core.clock.map(|c| c.period)
    }

    /// Algorithm 1 with its cost: the answer of `contains` and the number
    /// of segments it read (slices, or blocks of one cache line or word),
    /// the quantity of the APBF paper's access recursions.
    pub fn query_accesses(&self, digest: Digest) -> (bool, u32) {
        self.core.query(digest, self.core.now())
    }
}

impl<S: SegmentLayout> AgePartitioned<S> {
    /// `contains` at `now`, through an [`Isa`] kernel when the layout asks.
    #[inline]
    fn contains_then(&self, digest: Digest, now: u64) -> bool {
        if S::ISA_KERNELS {
            self.isa.run(Contains {
                core: &self.core,
                digest,
                now,
            })
        } else {
            self.core.contains(digest, now)
        }
    }

    /// `observe` at `now`, through an [`Isa`] kernel when the layout asks.
    #[inline]
    fn observe_then(&mut self, digest: Digest, now: u64) -> Verdict {
        if S::ISA_KERNELS {
            self.isa.run(Observe {
                core: &mut self.core,
                digest,
                now,
            })
        } else {
            self.core.observe(digest, now)
        }
    }
}

/// [`AgeCore::contains`] as a kernel, compiled for the baseline and for
/// the instructions found at run time ([`ddf_bits::isa`]).
struct Contains<'a, S: Segments> {
    core: &'a AgeCore<S>,
    digest: Digest,
    now: u64,
}

impl<S: Segments> isa::Kernel for Contains<'_, S> {
    type Output = bool;
    #[inline(always)]
    fn run(self) -> bool {
        self.core.contains(self.digest, self.now)
    }
}

/// [`AgeCore::observe`] as a kernel, as [`Contains`].
struct Observe<'a, S: Segments> {
    core: &'a mut AgeCore<S>,
    digest: Digest,
    now: u64,
}

impl<S: Segments> isa::Kernel for Observe<'_, S> {
    type Output = Verdict;
    #[inline(always)]
    fn run(self) -> Verdict {
        self.core.observe(self.digest, self.now)
    }
}

impl<S: SegmentLayout> ddf_core::DuplicateFilter for AgePartitioned<S> {
    #[inline]
    fn contains(&self, digest: Digest) -> bool {
        self.contains_then(digest, self.core.now())
    }

    #[inline]
    fn insert(&mut self, digest: Digest) {
        let now = self.core.now();
        self.core.insert(digest, now);
    }

    /// The query and the insertion share the item's probes.
    #[inline]
    fn observe(&mut self, digest: Digest) -> Verdict {
        let now = self.core.now();
        self.observe_then(digest, now)
    }

    /// Prefetches each item's segments a few items ahead; same verdicts
    /// and state as one by one.
    fn observe_batch(&mut self, digests: &[Digest], verdicts: &mut Vec<Verdict>) {
        ddf_core::batch::observe_batch(self, digests, verdicts);
    }

    fn contains_batch(&self, digests: &[Digest], answers: &mut Vec<bool>) {
        ddf_core::batch::contains_batch(self, digests, answers);
    }

    /// `(k + l)` segments of state.
    fn memory_bits(&self) -> u64 {
        self.core.segs.memory_bits()
    }

    fn clear(&mut self) {
        self.core.clear();
    }
}

/// The segments of an unseen item's query and insertion, `S::LOOKAHEAD`
/// items ahead.
impl<S: SegmentLayout> ddf_core::batch::Prefetch for AgePartitioned<S> {
    const LOOKAHEAD: usize = S::LOOKAHEAD;
    /// 16 Mbit (2 MiB, a per-core L2 of the Intel Xeon measured): below it
    /// the hints' probe hashes cost more than they save (APBBF at 1 Mbit:
    /// 68 ns one by one, 78 ns with hints).
    const MIN_PREFETCH_BITS: u64 = CACHED_BITS;

    #[inline]
    fn prefetch(&self, digest: Digest) {
        self.core.prefetch(digest);
    }
}

impl<S: SegmentLayout> ddf_core::TimedFilter for AgePartitioned<S> {
    /// Without time-based generations the time is ignored.
    #[inline]
    fn contains_at(&self, digest: Digest, now: u64) -> bool {
        self.contains_then(digest, now)
    }

    #[inline]
    fn insert_at(&mut self, digest: Digest, now: u64) {
        self.core.insert(digest, now);
    }

    #[inline]
    fn observe_at(&mut self, digest: Digest, now: u64) -> Verdict {
        self.observe_then(digest, now)
    }

    /// Prefetches as [`observe_batch`](ddf_core::DuplicateFilter::observe_batch)
    /// does; same verdicts and state as one by one.
    fn observe_batch_at(&mut self, digests: &[Digest], now: u64, verdicts: &mut Vec<Verdict>) {
        ddf_core::batch::observe_batch_at(self, digests, now, verdicts);
    }

    fn contains_batch_at(&self, digests: &[Digest], now: u64, answers: &mut Vec<bool>) {
        ddf_core::batch::contains_batch_at(self, digests, now, answers);
    }

    /// 0 without time-based generations, which ignore the time.
    fn clock_regressions(&self) -> u64 {
        self.core.clock_regressions()
    }

    /// Generations that reached `g` insertions before their `τ` had passed
    /// (0 without time-based generations).
    fn generations_closed_early(&self) -> u64 {
        self.core.closed_early()
    }
}

/// Filters of one shape over a time window on one clock merge segment by
/// segment: generations sit on the grid `⌊t/τ⌋·τ` of the caller's clock and
/// generation `G` starts at physical segment `(−G) mod (k + l)`, so both
/// keep each generation's items in the same segment, and the union of the
/// two is the filter of the combined stream (bit for bit, when neither
/// closed a generation early). Count windows, other shapes or periods, and
/// generations out of step (a generation closed early on one side, or a
/// state saved before generations were aligned) are refused, naming the
/// difference.
///
/// # Examples
///
/// ```
/// use ddf_apbf::{Apbf, Digest, DuplicateFilter, Merge, TimedFilter};
///
/// // Two nodes, one window of 60 s on one millisecond clock.
/// let mut a = Apbf::with_time_span(60_000, 4, 10, 57_708)?;
/// let mut b = a.clone();
/// a.insert_at(Digest::mixed(1), 1_000);
/// b.insert_at(Digest::mixed(2), 7_500);
/// a.merge(&b)?;
/// assert!(a.contains(Digest::mixed(1)) && a.contains(Digest::mixed(2)));
/// // A count window is a property of one stream.
/// let mut c = Apbf::new(4, 10, 57_708)?;
/// assert!(c.merge(&c.clone()).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl<S: SegmentLayout> ddf_core::Merge for AgePartitioned<S> {
    fn merge(&mut self, other: &Self) -> Result<(), ddf_core::MergeError> {
        self.core.merge(&other.core)
    }
}

impl<S: SegmentLayout> ddf_core::Windowed for AgePartitioned<S> {
    /// `l·g` insertions, or `l·τ` time units with time-based generations.
    fn window(&self) -> Window {
        let l = u64::from(self.core.l);
        match self.core.clock {
            Some(c) => Window::Time(l * c.period),
            None => Window::Count(l * self.core.generation),
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
