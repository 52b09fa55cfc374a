//! The age-partitioning shared by the plain and the blocked filter: `k + l`
//! segments in a circular buffer, generations by count or time, Algorithm 1.

pub(crate) use crate::query::{algorithm_1, algorithm_1_from, query_stops, rotate_within};
use ddf_core::snapshot::{DecodeError, Decoder, Encoder};
use ddf_core::{Digest, MergeError, ParamError, TimeClock};

/// How the segments store items: a Bloom slice per segment (APBF) or a
/// blocked Bloom filter per segment (APBBF). Segment `p` (physical) always
/// uses probe `p` of an item's probe sequence ([`Digest::indexed_probes`]),
/// whichever logical slice it plays, so an item's bits stay findable as the
/// segments age. The core works out that probe's raw 64-bit value `x`
/// ([`ItemProbes::at`]) and the segment derives its position from it.
///
/// Public only as the sealed supertrait of
/// [`SegmentLayout`](crate::SegmentLayout), in a private module.
pub trait Segments: Clone + PartialEq + Eq {
    /// Items the batch path prefetches ahead
    /// ([`Prefetch::LOOKAHEAD`](ddf_core::batch::Prefetch::LOOKAHEAD)).
    const LOOKAHEAD: usize;
    /// Whether the hot paths run as [`ddf_bits::isa`] kernels, compiled
    /// for the baseline and for the instructions found at run time.
    const ISA_KERNELS: bool;
    /// Segments after each stop of an unseen item's query that the batch
    /// path prefetches too: a test matches with about the segment's fill
    /// probability, and each match moves the query on to the next
    /// segment, which it reads only once the match is known (a miss the
    /// processor waits for).
    const CHAIN_AHEAD: usize;
    /// Whether a cached state's queries test every segment at once (see
    /// [`CACHED_BITS`]): worth it where a test is a few instructions.
    const ALL_AT_ONCE: bool;
    /// Whether physical segment `seg` holds the item whose probe there is `x`.
    fn test(&self, seg: usize, x: u64) -> bool;
    /// Records the item whose probe in physical segment `seg` is `x`.
    fn set(&mut self, seg: usize, x: u64);
    /// Bit `p` set when physical segment `p` holds the item, for every
    /// segment (`cubic` has one term per segment, at most 64).
    #[inline]
    fn match_mask(&self, h: ItemProbes, cubic: &[u64]) -> u64 {
        let mut mask = 0;
        for (p, &t) in cubic.iter().enumerate() {
            mask |= u64::from(self.test(p, h.with_cubic(p, t))) << p;
        }
        mask
    }
    /// [`match_mask`](Self::match_mask) as it was before recording the item
    /// in the `k` physical segments from `first` (wrapping at `k + l`),
    /// rotated so that bit `j` is physical segment `(first + j) mod (k + l)`
    /// (logical segment `j` when `first` is the base): one probe per
    /// segment serves the query and the insertion of `observe`.
    #[inline]
    fn match_mask_and_set(&mut self, h: ItemProbes, cubic: &[u64], first: usize, k: usize) -> u64 {
        let n = cubic.len();
        let mask = rotate_within(self.match_mask(h, cubic), first, n);
        self.set_item(h, cubic, first, k);
        mask
    }
    /// Records the item in the `k` physical segments from `first`
    /// (wrapping at `k + l`), the insertion of §5.1.
    #[inline]
    fn set_item(&mut self, h: ItemProbes, cubic: &[u64], first: usize, k: usize) {
        let (n, end) = (cubic.len(), first + k);
        set_range(self, cubic, h, first, end.min(n));
        if end > n {
            set_range(self, cubic, h, 0, end - n);
        }
    }
    /// Algorithm 1 with no shift pending (logical segment `i` is physical
    /// `(base + i) mod n`, `n = cubic.len()`), then the insertion into
    /// logical `0..k`, in one pass that shares what the two read: the answer
    /// and state of `query_probes` then `insert_probes` with no shift
    /// between them. `None` where the segments have no such pass; the core
    /// then runs the two.
    #[inline]
    fn observe_unshifted(
        &mut self,
        _h: ItemProbes,
        _cubic: &[u64],
        _base: usize,
        _k: usize,
    ) -> Option<bool> {
        None
    }
    /// Algorithm 1 with no shift pending, as in
    /// [`observe_unshifted`](Self::observe_unshifted), without the
    /// insertion: `None` where the segments have no such pass.
    #[inline]
    fn query_unshifted(
        &self,
        _h: ItemProbes,
        _cubic: &[u64],
        _base: usize,
        _k: usize,
    ) -> Option<bool> {
        None
    }
    /// Prefetches the memory `test` and `set` of physical segment `seg`
    /// read for probe `x` (a cache hint only).
    fn prefetch(&self, seg: usize, x: u64);
    /// Prefetches what [`set_item`](Self::set_item) writes in physical
    /// segments `lo..hi` (`hi ≤ k + l`), for the batch path.
    #[inline]
    fn prefetch_range(&self, h: ItemProbes, cubic: &[u64], lo: usize, hi: usize) {
        for (seg, &t) in (lo..hi).zip(&cubic[lo..hi]) {
            self.prefetch(seg, h.with_cubic(seg, t));
        }
    }
    /// Empties physical segment `seg`.
    fn clear_segment(&mut self, seg: usize);
    /// Empties every segment.
    fn clear_all(&mut self);
    /// State bits of all segments, as the paper counts them.
    fn memory_bits(&self) -> u64;
    /// The family's name, for merge refusals.
    const NAME: &'static str;
    /// `Ok` when `other` has this layout's shape (so physical segment `p`
    /// of both holds the same positions), else the parameter that differs.
    fn same_shape(&self, other: &Self) -> Result<(), MergeError>;
    /// Sets in every segment what `other`'s same segment holds (a shape
    /// [`same_shape`](Self::same_shape) accepted): the union of two
    /// streams' items, each kept in the segment of its generation.
    fn union(&mut self, other: &Self);
}

/// An item's probe sequence by physical segment, from one digest: probe `p`
/// is `a + p·b + t_p` (mod 2^64), the value of
/// [`IndexedProbes::hash`](ddf_hash::IndexedProbes::hash), with the cubic
/// term `t_p`, the same for every item, read from the core's table instead of
/// worked out per access (two multiplications and a division by 6 saved on
/// each of the query's dependent steps).
#[derive(Debug, Clone, Copy)]
pub struct ItemProbes {
    a: u64,
    b: u64,
}

impl ItemProbes {
    /// `a` and `b` of `digest`'s sequence, read back through the public
    /// probe values (`a = x_0`, `b = x_1 − x_0`, since `t_0 = t_1 = 0`).
    #[inline]
    pub(crate) fn of(digest: Digest) -> Self {
        let h = digest.indexed_probes();
        let a = h.hash(0);
        ItemProbes {
            a,
            b: h.hash(1).wrapping_sub(a),
        }
    }

    /// The raw probe of physical segment `p`, given the table of cubic terms.
    #[inline]
    pub(crate) fn at(self, p: usize, cubic: &[u64]) -> u64 {
        self.with_cubic(p, cubic[p])
    }

    /// `a + p·b` (mod 2^64): probe `p` without its cubic term, for loops
    /// that step from segment to segment by [`step`](Self::step).
    #[inline]
    pub(crate) fn linear(self, p: usize) -> u64 {
        self.a.wrapping_add((p as u64).wrapping_mul(self.b))
    }

    /// `b`, the linear step from one segment's probe to the next.
    #[inline]
    pub(crate) fn step(self) -> u64 {
        self.b
    }

    /// The raw probe of physical segment `p` whose cubic term is `t`.
    #[inline]
    pub(crate) fn with_cubic(self, p: usize, t: u64) -> u64 {
        self.a
            .wrapping_add((p as u64).wrapping_mul(self.b))
            .wrapping_add(t)
    }
}

/// Records the item in physical segments `lo..hi` (`hi ≤ k + l`).
#[inline(always)]
fn set_range<S: Segments>(segs: &mut S, cubic: &[u64], h: ItemProbes, lo: usize, hi: usize) {
    for (seg, &t) in (lo..hi).zip(&cubic[lo..hi]) {
        segs.set(seg, h.with_cubic(seg, t));
    }
}

/// The cubic terms `t_p` of probes `0..n`, derived from any digest's public
/// probe values as `x_p − a − p·b`, so the formula lives in `ddf-hash` alone.
pub(crate) fn cubic_terms(n: usize) -> Box<[u64]> {
    let h = Digest::new(0).indexed_probes();
    let (a, b) = (h.hash(0), h.hash(1).wrapping_sub(h.hash(0)));
    (0..n)
        .map(|p| {
            h.hash(p as u32)
                .wrapping_sub(a)
                .wrapping_sub((p as u64).wrapping_mul(b))
        })
        .collect()
}

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

/// The physical segment of logical segment 0 while generation `g` (an
/// index on the clock's grid) is the newest: `(−g) mod n`.
pub(crate) fn aligned_base(g: u64, n: usize) -> usize {
    let r = (g % n as u64) as usize;
    if r == 0 { 0 } else { n - r }
}

impl Clock {
    /// Whether the generations sit on the grid `⌊t/τ⌋·τ` (a state saved
    /// before generations were aligned may open anywhere).
    fn on_grid(&self) -> bool {
        self.opened.is_multiple_of(self.period)
    }

    /// Where the generations start, in words.
    fn grid(&self) -> String {
        if self.on_grid() {
            format!(
                "generations on the grid of period {} from time 0",
                self.period
            )
        } else {
            format!(
                "a generation opened at {}, off the grid of period {}",
                self.opened, self.period
            )
        }
    }

    /// Whole periods elapsed at `now` since the current generation opened.
    #[inline]
    fn elapsed_periods(&self, now: u64) -> u64 {
        if self.started {
            // Most calls fall within the current period: no division then.
            let since = self.time.peek(now).saturating_sub(self.opened);
            if since < self.period {
                0
            } else {
                since / self.period
            }
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
    /// The cubic terms of the `k + l` probes (see [`ItemProbes`]); derived
    /// from `k + l`, not state.
    cubic: Box<[u64]>,
    /// Whether queries test every segment at once (see [`CACHED_BITS`]);
    /// derived from the shape, not state.
    all_at_once: bool,
    /// The shifts that turn a mask of matching segments into the starts of
    /// runs of `k`: a run of `len` and one of `s ≤ len` above it make one of
    /// `len + s`, so `len` doubles up to `k` (at most 6 steps for `k < 64`);
    /// the steps left over are shifts by 0, which change nothing, so the
    /// loop has a fixed length and unrolls (at `k = l = 3`, 237 → 227
    /// instructions per present query against a boxed slice of steps).
    /// Used only where `k + l ≤ 64`; derived from `k`, not state.
    run_steps: [u32; RUN_STEPS],
}

/// Steps of [`AgeCore::run_steps`]: `len` reaches 64 in six doublings.
pub(crate) const RUN_STEPS: usize = 6;

/// The shifts of [`AgeCore::run_steps`] for `k` (`k < 64`; larger `k`,
/// whose shapes never test all segments at once, get the first six).
pub(crate) fn run_steps(k: u32) -> [u32; RUN_STEPS] {
    let (mut steps, mut len) = ([0; RUN_STEPS], 1);
    for step in &mut steps {
        if len >= k {
            break;
        }
        *step = len.min(k - len);
        len += *step;
    }
    steps
}

/// 16 Mbit (2 MiB), the batch path's threshold too. Below it a state is
/// served from the caches (L2 and L3), and a query tests all `k + l ≤ 64`
/// segments at once:
/// independent loads that overlap, where Algorithm 1's tests are a chain,
/// each waiting for the last (at `k = 10, l = 24`, 34 overlapping tests
/// against about 6 for an unseen item and 12 for a present one in a
/// chain). Above it, where each test may miss the cache, Algorithm 1 reads
/// the fewest lines and the batch path prefetches them.
pub(crate) const CACHED_BITS: u64 = 1 << 24;

/// The most segments, `k + l`; well beyond the paper's largest (75).
pub const MAX_SEGMENTS: u32 = 4096;

/// The longest generation period for `k + l` segments: `(k + l)·τ` stays
/// below 2^62.
pub(crate) fn max_period(k: u32, l: u32) -> u64 {
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
        let all_at_once = S::ALL_AT_ONCE && k + l <= 64 && segs.memory_bits() < CACHED_BITS;
        AgeCore {
            all_at_once,
            segs,
            k,
            l,
            generation,
            base: 0,
            in_generation: 0,
            clock: None,
            cubic: cubic_terms((k + l) as usize),
            run_steps: run_steps(k),
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

    /// `periods` shifts: at most `k + l` are made (they empty every
    /// segment), and logical segment 0 ends where all of them would have
    /// put it, so generations keep their segments after a long pause.
    fn shift_by(&mut self, periods: u64) {
        let n = self.n() as u64;
        for _ in 0..periods.min(n) {
            self.shift();
        }
        if periods > n {
            self.base = self.base_after(periods - n);
        }
    }

    /// The physical index of logical segment 0 after `shifts` more shifts.
    fn base_after(&self, shifts: u64) -> usize {
        let n = self.n();
        let back = (shifts % n as u64) as usize;
        if self.base >= back {
            self.base - back
        } else {
            self.base + n - back
        }
    }

    /// The cubic terms of the probes, for tests.
    #[cfg(test)]
    pub(crate) fn cubic(&self) -> &[u64] {
        &self.cubic
    }

    /// Shifts owed at `now` by generations whose time span has passed.
    #[inline]
    pub(crate) fn pending_shifts(&self, now: u64) -> usize {
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
        self.query_probes(ItemProbes::of(digest), self.pending_shifts(now))
    }

    /// Whether the item is reported at time `now`: Algorithm 1, or for a
    /// cached state of at most 64 segments the same answer from every
    /// segment tested at once.
    ///
    /// Always inlined, as [`observe`](Self::observe) is.
    #[inline(always)]
    pub(crate) fn contains(&self, digest: Digest, now: u64) -> bool {
        self.detect(ItemProbes::of(digest), self.pending_shifts(now))
    }

    #[inline]
    fn detect(&self, h: ItemProbes, shifts: usize) -> bool {
        if self.all_at_once {
            return self.has_run(h, shifts);
        }
        if shifts == 0 {
            let unshifted = self
                .segs
                .query_unshifted(h, &self.cubic, self.base, self.k as usize);
            if let Some(seen) = unshifted {
                return seen;
            }
        }
        self.query_probes(h, shifts).0
    }

    /// The answer of Algorithm 1 from all `n ≤ 64` segments tested at once:
    /// whether `k` consecutive logical segments match.
    #[inline]
    fn has_run(&self, h: ItemProbes, shifts: usize) -> bool {
        // Bit `p`: physical segment `p` matches. No test waits for another.
        self.run_in(self.segs.match_mask(h, &self.cubic), shifts)
    }

    /// Whether `k` consecutive logical segments match, given the mask of
    /// matching physical segments (`n ≤ 64`) and `shifts ≤ n` shifts not yet
    /// applied.
    #[inline]
    fn run_in(&self, phys: u64, shifts: usize) -> bool {
        // Logical segment `j` is physical `(start + j) mod n`.
        let logical = rotate_within(phys, self.physical_start(shifts), self.n());
        // Logical segments below `shifts` are empty.
        self.has_run_of_k(logical & u64::MAX.checked_shl(shifts as u32).unwrap_or(0))
    }

    /// Whether `k` consecutive bits of `logical` are set.
    #[inline]
    fn has_run_of_k(&self, logical: u64) -> bool {
        let mut runs = logical;
        // Bit `j` of `runs` after each step: segments `j..j + len` all match
        // (see `run_steps`).
        for &s in &self.run_steps {
            runs &= runs >> s;
        }
        runs != 0
    }

    /// Physical index of logical segment 0 after `shifts ≤ n` shifts not
    /// yet applied.
    #[inline]
    fn physical_start(&self, shifts: usize) -> usize {
        if self.base >= shifts {
            self.base - shifts
        } else {
            self.base + self.n() - shifts
        }
    }

    /// Algorithm 1 over an item's probes, `shifts` shifts not yet applied.
    #[inline]
    fn query_probes(&self, h: ItemProbes, shifts: usize) -> (bool, u32) {
        let n = self.n();
        let start = self.physical_start(shifts);
        let (k, segs, cubic) = (self.k as usize, &self.segs, &self.cubic);
        algorithm_1_from(
            k,
            n,
            start,
            shifts,
            #[inline(always)]
            |s| segs.test(s, h.at(s, cubic)),
        )
    }

    /// Prefetches what observing `digest` reads, for the batch path: the
    /// segments a query visits while it misses (logical `l`, `l − k`, …,
    /// the path of an unseen item), [`Segments::CHAIN_AHEAD`] more after
    /// each, and the `k` that insertion sets (logical `0..k`). A hit or a
    /// shift before the probe changes the path; the hints are then partly
    /// wasted, never wrong.
    #[inline]
    pub(crate) fn prefetch(&self, digest: Digest) {
        let h = ItemProbes::of(digest);
        let (k, n, base, cubic) = (self.k as usize, self.n(), self.base, &*self.cubic);
        query_stops(k, self.l as usize, n, base, S::CHAIN_AHEAD, |seg| {
            self.segs.prefetch(seg, h.at(seg, cubic));
        });
        // The insertion's `k` physical segments from the base, in at most
        // two runs as `set_item` writes them: a segment's probe steps from
        // the previous one's. At k = 13, l = 22 an item's 14 hints took 419
        // instructions each worked out on its own, 337 so (callgrind).
        let end = base + k;
        self.segs.prefetch_range(h, cubic, base, end.min(n));
        if end > n {
            self.segs.prefetch_range(h, cubic, 0, end - n);
        }
    }

    /// Insertion at time `now` (ignored without a clock): close the
    /// generation if its time span has passed or it is full, then set the
    /// item in logical segments `0..k`.
    #[inline]
    pub(crate) fn insert(&mut self, digest: Digest, now: u64) {
        self.insert_probes(ItemProbes::of(digest), now);
    }

    /// `contains_at` then `insert_at` with one derivation of the probes:
    /// the verdict and state of the two calls.
    ///
    /// With no shift due, a cached state (all segments tested at once), or
    /// segments with their own pass ([`Segments::observe_unshifted`]), test
    /// and set in one pass: the insertion's `k` segments are among the
    /// query's, and a shift is the one thing that could come between them.
    ///
    /// Always inlined, with the closures it hands [`algorithm_1`]: the
    /// [`ddf_bits::isa`] kernels in `age.rs` compile it for the
    /// instructions they run with only if it is inside them. Left to the
    /// inliner, the kernel the batch path calls kept it and the closures
    /// out of line, compiled for the baseline: APBBF batches took 2.1–2.4×
    /// the time of one by one in the caches (`cargo xtask bench-growth`).
    #[inline(always)]
    pub(crate) fn observe(&mut self, digest: Digest, now: u64) -> ddf_core::Verdict {
        let h = ItemProbes::of(digest);
        let shifts = self.pending_shifts(now);
        // The first timed insertion places logical segment 0 on the grid
        // before it sets a bit: the two calls below do that in order.
        if shifts == 0
            && self.in_generation < self.generation
            && self.clock.is_none_or(|c| c.started)
        {
            let (base, k) = (self.base, self.k as usize);
            let seen = if self.all_at_once {
                // In logical order already, with no shift due.
                let logical = self.segs.match_mask_and_set(h, &self.cubic, base, k);
                Some(self.has_run_of_k(logical))
            } else {
                self.segs.observe_unshifted(h, &self.cubic, base, k)
            };
            if let Some(seen) = seen {
                self.advance_clock(now);
                self.in_generation += 1;
                return ddf_core::Verdict::from_seen(seen);
            }
        }
        let seen = self.detect(h, shifts);
        self.insert_probes(h, now);
        ddf_core::Verdict::from_seen(seen)
    }

    /// The clock's part of an insertion that no shift precedes (no period
    /// has passed, the generation is not full, and the first generation
    /// has opened): the time advances.
    #[inline]
    fn advance_clock(&mut self, now: u64) {
        if let Some(c) = &mut self.clock {
            c.time.advance(now);
        }
    }

    #[inline]
    fn insert_probes(&mut self, h: ItemProbes, now: u64) {
        if self.clock.is_some() || self.in_generation == self.generation {
            self.close_generations(now);
        }
        // Physical segments `base..base + k`, wrapping at `n`: at most two
        // runs, each a counted loop with no wrap test, whose `k` positions do
        // not depend on each other (their cache misses overlap).
        self.segs
            .set_item(h, &self.cubic, self.base, self.k as usize);
        self.in_generation += 1;
    }

    /// The generation bookkeeping before an insertion, off the per-item path
    /// of count-based filters (called once per generation there): shifts
    /// owed by time, then a shift if the generation is full.
    #[inline(never)]
    fn close_generations(&mut self, now: u64) {
        if let Some(mut c) = self.clock {
            let now = c.time.advance(now);
            if c.started {
                let periods = c.elapsed_periods(now);
                if periods > 0 {
                    self.shift_by(periods);
                    // Generations stay on the grid of periods from the first.
                    c.opened = c.opened.saturating_add(periods.saturating_mul(c.period));
                }
            } else {
                // Generations sit on the grid `⌊t/τ⌋·τ` of the caller's
                // clock, and generation `G` starts at physical segment
                // `(−G) mod (k + l)`: filters of one shape on one clock then
                // keep each generation in the same segments, so they merge
                // segment by segment. The segments are all empty here.
                c.started = true;
                c.opened = now - now % c.period;
                self.base = aligned_base(now / c.period, self.n());
            }
            if self.in_generation == self.generation {
                // Full before its period has passed (a period that passed
                // shifted above): closed early by count; the next
                // generation ends where the period would have.
                self.shift();
                c.closed_early = c.closed_early.saturating_add(1);
            }
            self.clock = Some(c);
        } else if self.in_generation == self.generation {
            self.shift();
        }
    }

    /// Merges `other` (a filter of this shape) into this one: both are
    /// brought to the later of their latest times (the shifts time owes
    /// them), then every segment takes the union of the two, which keeps
    /// each item in the segment of its own generation. Refused for count
    /// windows, other shapes or periods, and generations off the clock's
    /// grid or out of step (a generation closed early on one side).
    pub(crate) fn merge(&mut self, other: &Self) -> Result<(), MergeError> {
        let family = S::NAME;
        let (mine, theirs) = match (self.clock, other.clock) {
            (None, None) => return Err(MergeError::CountWindow { family }),
            (Some(a), Some(b)) => (a, b),
            (a, b) => {
                let window = |c: Option<Clock>| if c.is_some() { "time" } else { "count" };
                return Err(MergeError::parameter("window", window(a), window(b)));
            }
        };
        MergeError::check("k", self.k, other.k)?;
        MergeError::check("l", self.l, other.l)?;
        self.segs.same_shape(&other.segs)?;
        MergeError::check("generation", self.generation, other.generation)?;
        MergeError::check("period", mine.period, theirs.period)?;
        if !theirs.started {
            return Ok(());
        }
        if !mine.started {
            *self = other.clone();
            return Ok(());
        }
        if !mine.on_grid() || !theirs.on_grid() {
            return Err(MergeError::Epoch {
                this: mine.grid(),
                other: theirs.grid(),
            });
        }
        let now = mine.time.latest().max(theirs.time.latest());
        // Where logical segment 0 is once time has owed its shifts.
        let base_at = |c: &Self, clock: &Clock| {
            let periods = if now.saturating_sub(clock.opened) < clock.period {
                0
            } else {
                (now - clock.opened) / clock.period
            };
            c.base_after(periods)
        };
        let (here, there) = (base_at(self, &mine), base_at(other, &theirs));
        if here != there {
            let at = |base: usize, c: &Self| {
                format!(
                    "generation {} at segment {base} ({} closed early)",
                    now / mine.period,
                    c.closed_early()
                )
            };
            return Err(MergeError::Epoch {
                this: at(here, self),
                other: at(there, other),
            });
        }
        let mut other = other.clone();
        self.catch_up(now);
        other.catch_up(now);
        self.segs.union(&other.segs);
        // Both at one generation: its insertions add up, at most `g` (a
        // fuller one would have closed early).
        self.in_generation = (self.in_generation + other.in_generation).min(self.generation);
        if let (Some(c), Some(o)) = (&mut self.clock, &other.clock) {
            let regressions = c.time.regressions().saturating_add(o.time.regressions());
            c.time = TimeClock::from_parts(now, regressions);
            c.closed_early = c.closed_early.saturating_add(o.closed_early);
        }
        Ok(())
    }

    /// The shifts time owes at `now` (not before the latest time), applied:
    /// the clock's part of an insertion, without the insertion.
    fn catch_up(&mut self, now: u64) {
        if let Some(mut c) = self.clock {
            let now = c.time.advance(now);
            let periods = c.elapsed_periods(now);
            if c.started && periods > 0 {
                self.shift_by(periods);
                c.opened = c.opened.saturating_add(periods.saturating_mul(c.period));
            }
            // `advance` counted no step back: `now` is the latest time.
            self.clock = Some(c);
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// For every `k` of a shape tested all at once, the steps build runs of
    /// exactly `k`: each step at most the run so far (so it joins two runs
    /// without a gap), and the zero steps left over change nothing.
    #[test]
    fn run_steps_reach_k() {
        for k in 1..64u32 {
            let mut len = 1;
            for s in run_steps(k) {
                assert!(s <= len, "k {k}: step {s} after {len}");
                len += s;
            }
            assert_eq!(len, k, "k {k}");
            // A run of exactly `k` ones is found, one of `k − 1` is not.
            let run = |ones: u32| (u64::MAX >> (64 - ones)) << 1;
            let found = |mask: u64| run_steps(k).iter().fold(mask, |r, &s| r & r >> s) != 0;
            assert!(found(run(k)), "k {k}");
            assert!(k == 1 || !found(run(k - 1)), "k {k}");
        }
    }
}
