//! `Queue<F>`: Algorithm 2 of the sliding-window paper over any filter, its
//! count and time rotation, batch paths, and the §5.4 planning of `L`.

use ddf_core::snapshot::{self, Decoder, Encoder};
use ddf_core::{
    DecodeError, Digest, DuplicateFilter, ParamError, Snapshot, TimedFilter, Verdict, Window,
    Windowed,
};
use ddf_core::{Prediction, TimeClock};
use ddf_param::{ensure_positive, ensure_range};
use ddf_theory::queue::{
    SubfilterModel, capacity_for_window, fnr_queue, fpr_queue, optimal_subfilters,
};

mod codec;

pub use codec::subfilter_kind;

/// The most subfilters a queue accepts. Every lookup asks all of them, so a
/// queue of thousands is almost surely a mistake; the paper's optima are
/// around ten.
pub const MAX_SUBFILTERS: usize = 4096;

/// The longest window [`Queue::for_window`] plans for (2^24 insertions).
pub const MAX_PLANNED_WINDOW: u64 = 1 << 24;

/// Time slicing of a queue with a time window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Slices {
    /// The time each subfilter covers, `s = ⌈t/(L − 1)⌉`.
    span: u64,
    /// When the newest subfilter started.
    started: u64,
    /// The latest time seen and the steps back.
    time: TimeClock,
    /// Rotations because the newest subfilter was full before its slice ended.
    closed_early: u64,
}

impl Slices {
    /// A slicing of `span` per subfilter, before any insertion.
    fn new(span: u64) -> Self {
        Slices {
            span,
            started: 0,
            time: TimeClock::new(),
            closed_early: 0,
        }
    }

    /// Rotations that reaching time `now` would cause, at most `limit`.
    #[inline]
    fn due(&self, now: u64, limit: usize) -> usize {
        let elapsed = self.time.peek(now) - self.started;
        if elapsed < self.span {
            // Within the newest slice, the common case: no division.
            return 0;
        }
        usize::try_from(elapsed / self.span)
            .unwrap_or(usize::MAX)
            .min(limit)
    }
}

/// The queuing construction of *Approaching Optimal Duplicate Detection in a
/// Sliding Window* (§5.1, Algorithm 2): `L` subfilters of any
/// [`DuplicateFilter`] type, each allowed `c` insertions.
///
/// An item is a duplicate if any subfilter says so; it is inserted into the
/// newest subfilter; after `c` insertions the oldest subfilter is emptied and
/// becomes the newest. The queue therefore remembers between `c·(L − 1)` and
/// `c·L` of the latest insertions (§5.2, the remark before Theorem 5), and
/// its [`window`](Windowed::window) is the paper's `w = c·L`, the window
/// Theorems 5 to 8 and [`plan_for_window`] size for (`c = ⌈w/L⌉`), with no
/// [`slack`](Windowed::slack): nothing older than `c·L` is reported. The
/// oldest part of the window is where a queue forgets: with subfilters that
/// have no false negatives, no item among the last `c·(L − 1)` insertions is
/// missed, and an item older than `c·(L − 1) + (m mod c)` always is (the
/// paper counts these as false negatives; [`fnr_queue`]).
///
/// Rotation reuses the oldest subfilter's memory through
/// [`DuplicateFilter::clear`]: no allocation after construction. The item is
/// hashed once; every subfilter sees the same digest.
///
/// With [`with_time_span`](Self::with_time_span) the queue rotates when the
/// newest subfilter has covered `s = ⌈t/(L − 1)⌉` time units, so every item
/// seen within the last `t` is remembered while at most `c` items arrive per
/// slice `s`. Above that rate a full subfilter rotates early, at the next
/// insertion, and the rotation is counted
/// ([`generations_closed_early`](TimedFilter::generations_closed_early)):
/// memory and each subfilter's load stay as sized (so its false-positive
/// rate stays that of a subfilter of `c` items), and the memory shortens to
/// the last `L − 1` subfilters of `c` items; an item is missed within `t`
/// only if a rotation was early since its latest occurrence.
///
/// # Examples
///
/// ```
/// use ddf_queue::{Deduper, Queue, Verdict};
/// use ddf_shf::CompactShf;
///
/// let queue = Queue::with_memory(1 << 20, 4, 10_000, |s| CompactShf::with_memory(s.bits, s.capacity))?;
/// let mut seen = Deduper::new(queue);
/// assert_eq!(seen.observe("tx-1"), Verdict::Unseen);
/// assert_eq!(seen.observe("tx-1"), Verdict::Duplicate);
/// # Ok::<(), ddf_queue::ParamError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Queue<F> {
    /// A ring: `newest`, then older ones at increasing indices (mod `L`).
    subfilters: Vec<F>,
    newest: usize,
    capacity: u64,
    /// Insertions into the newest subfilter, `m mod c`.
    filled: u64,
    slices: Option<Slices>,
    /// A buffer for [`DuplicateFilter::observe_in_group`], reused by every block.
    scratch: Scratch,
}

/// Items a batch hands every subfilter at once: the bound on
/// [`Queue::observe_batch`]'s scratch and on what
/// [`Queue::contains_batch`] appends beyond its answers.
const BLOCK: usize = 256;

/// The state, in bits, below which a batch is observed one by one: a queue
/// that fits in the core's L2 cache is served fast enough that handing each
/// subfilter a block costs more (every subfilter asked for every item, no
/// early exit) than prefetching saves; the same reasoning as
/// [`Prefetch::MIN_PREFETCH_BITS`](ddf_core::batch::Prefetch::MIN_PREFETCH_BITS).
const MIN_BLOCK_BITS: u64 = 1 << 22;

/// A buffer of at most [`BLOCK`] answers, reused by every batch; not part
/// of the queue's state (a clone starts with its own, empty).
#[derive(Default)]
struct Scratch(Vec<bool>);

impl Clone for Scratch {
    fn clone(&self) -> Self {
        Scratch::default()
    }
}

impl std::fmt::Debug for Scratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Scratch")
    }
}

/// What a subfilter factory is asked to build: subfilter `index` of a
/// queue, within `bits` bits, taking `capacity` insertions between clears.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubfilterSpec {
    /// The memory share, `⌊M/L⌋` bits.
    pub bits: u64,
    /// Insertions between rotations, `c`.
    pub capacity: u64,
    /// The subfilter's index, `0..L` (a seed for its generator).
    pub index: usize,
}

/// The configuration [`Queue::for_window`] chose, with the error the theory
/// predicts for it on a uniform stream.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    /// The number of subfilters `L`.
    pub subfilters: usize,
    /// Insertions per subfilter, `c = ⌈w/L⌉`.
    pub capacity: u64,
    /// Bits per subfilter, `⌊M/L⌋`.
    pub subfilter_bits: u64,
    /// Theorem 7's false-positive rate.
    pub predicted_fpr: f64,
    /// The (corrected) Theorem 8 false-negative rate.
    pub predicted_fnr: f64,
}

impl Plan {
    /// `FPR + FNR`.
    pub fn predicted_er(&self) -> f64 {
        self.predicted_fpr + self.predicted_fnr
    }

    /// The plan in the shape every family's sizing shares, for a queue over
    /// `window` whose subfilters take `subfilter_memory` bits each and
    /// `lookup_accesses` to answer an unseen item, `insert_accesses` to
    /// store one: every subfilter is asked, the newest written. Items up to
    /// `c·L − w` insertions beyond the window may still be reported.
    pub fn prediction(
        &self,
        window: u64,
        subfilter_memory: u64,
        lookup_accesses: f64,
        insert_accesses: f64,
    ) -> Prediction {
        let l = self.subfilters as u64;
        Prediction::exact_window(
            l.saturating_mul(subfilter_memory),
            self.predicted_fpr,
            l as f64 * lookup_accesses + insert_accesses,
        )
        .with_slack(self.capacity.saturating_mul(l).saturating_sub(window))
        .with_misses(self.predicted_fnr)
    }
}

/// The parameter rule of [`Queue::new`]: `L` in 1..=[`MAX_SUBFILTERS`],
/// `c ≥ 1`.
pub fn check_shape(subfilters: usize, capacity: u64) -> Result<(), ParamError> {
    ensure_range("subfilters", subfilters, 1..=MAX_SUBFILTERS)?;
    ensure_positive("capacity", capacity)?;
    Ok(())
}

/// The sizing of [`Queue::for_window`] without building anything: the `L`
/// in `1..=max_subfilters` whose subfilters, of `⌊M/L⌋` bits and
/// `c = ⌈w/L⌉` insertions each, minimise the error §5.4 predicts
/// (Theorem 7 and the corrected Theorem 8) on a uniform stream over
/// `alphabet_size` items, with `model_for(b, c)` the subfilter's model.
///
/// **Bounded work:** `w ≤` [`MAX_PLANNED_WINDOW`]; every `L` costs `O(c)`
/// model evaluations plus what `model_for` costs, `O(w·ln L)` in all.
pub fn plan_for_window<M: SubfilterModel>(
    window: u64,
    memory_bits: u64,
    alphabet_size: f64,
    max_subfilters: usize,
    model_for: impl Fn(f64, u64) -> M,
) -> Result<Plan, ParamError> {
    // The §5.4 rates average over every fill level of a subfilter, O(c)
    // work per candidate L: longer windows are built with `with_memory`.
    ddf_param::ensure_window(window, MAX_PLANNED_WINDOW)?;
    ensure_range("max_subfilters", max_subfilters, 1..=MAX_SUBFILTERS)?;
    if alphabet_size.is_nan() || alphabet_size < 1.0 {
        return Err(ParamError::new(
            "alphabet_size",
            alphabet_size,
            "at least 1",
        ));
    }
    let best = optimal_subfilters(
        window,
        memory_bits as f64,
        max_subfilters as u64,
        alphabet_size,
        &model_for,
    )
    .ok_or_else(|| ParamError::new("max_subfilters", max_subfilters, "at least 1"))?;
    let l = best.arg;
    let c = capacity_for_window(window, l);
    let model = model_for(memory_bits as f64 / l as f64, c);
    Ok(Plan {
        subfilters: l as usize,
        capacity: c,
        subfilter_bits: memory_bits / l,
        predicted_fpr: fpr_queue(&model, l, c),
        predicted_fnr: fnr_queue(&model, l, c, alphabet_size),
    })
}

impl<F: DuplicateFilter> Queue<F> {
    /// A queue of `subfilters` (`L`, 1..=[`MAX_SUBFILTERS`]) subfilters of
    /// `capacity` (`c ≥ 1`) insertions each; `make(i)` builds subfilter `i`
    /// (give each its own seed if it has a generator).
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_queue::{Digest, DuplicateFilter, Queue, Verdict};
    /// use ddf_shf::CompactShf;
    ///
    /// // L = 4 subfilters of c = 1,000 insertions: a window of 4,000, of
    /// // which the last 3,000 are never missed (CSHF has no false negatives).
    /// let mut q = Queue::new(4, 1_000, |_| CompactShf::new(1_000, 32))?;
    /// assert_eq!(q.subfilters(), 4);
    /// assert_eq!(q.observe(Digest::mixed(1)), Verdict::Unseen);
    /// assert_eq!(q.observe(Digest::mixed(1)), Verdict::Duplicate);
    /// assert!(Queue::new(0, 1_000, |_| CompactShf::new(1_000, 32)).is_err());
    /// # Ok::<(), ddf_queue::ParamError>(())
    /// ```
    pub fn new(
        subfilters: usize,
        capacity: u64,
        mut make: impl FnMut(usize) -> Result<F, ParamError>,
    ) -> Result<Self, ParamError> {
        check_shape(subfilters, capacity)?;
        let subfilters = (0..subfilters)
            .map(&mut make)
            .collect::<Result<Vec<F>, _>>()?;
        Ok(Queue {
            subfilters,
            newest: 0,
            capacity,
            filled: 0,
            slices: None,
            scratch: Scratch::default(),
        })
    }

    /// Algorithm 2's SETUP: `memory_bits` (`M`) split evenly, `make` building
    /// each subfilter from its [`SubfilterSpec`] (`⌊M/L⌋` bits, `c`
    /// insertions). Fails if the subfilters take more than `M` bits in all.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_queue::{DuplicateFilter, Queue};
    /// use ddf_shf::CompactShf;
    ///
    /// let q = Queue::with_memory(1 << 17, 4, 1_000, |s| CompactShf::with_memory(s.bits, s.capacity))?;
    /// assert!(q.memory_bits() <= 1 << 17);
    /// # Ok::<(), ddf_queue::ParamError>(())
    /// ```
    pub fn with_memory(
        memory_bits: u64,
        subfilters: usize,
        capacity: u64,
        mut make: impl FnMut(SubfilterSpec) -> Result<F, ParamError>,
    ) -> Result<Self, ParamError> {
        ensure_range("subfilters", subfilters, 1..=MAX_SUBFILTERS)?;
        let bits = memory_bits / subfilters as u64;
        let queue = Self::new(subfilters, capacity, |index| {
            make(SubfilterSpec {
                bits,
                capacity,
                index,
            })
        })?;
        let used = queue.memory_bits();
        if used > memory_bits {
            return Err(ParamError::new(
                "memory_bits",
                memory_bits,
                format!("enough for {subfilters} subfilters, which take {used} bits"),
            ));
        }
        Ok(queue)
    }

    /// A queue over the window `w` within `memory_bits` whose number of
    /// subfilters minimises the error predicted by §5.4 (Theorems 7 and the
    /// corrected 8) on a uniform stream over `alphabet_size` items, among
    /// `1..=max_subfilters`. `model_for(b, c)` is the error model of a
    /// subfilter of `b` bits taking `c` insertions; `make` builds each
    /// subfilter from its [`SubfilterSpec`]. Returns the queue and the
    /// [`Plan`] chosen.
    pub fn for_window<M: SubfilterModel>(
        window: u64,
        memory_bits: u64,
        alphabet_size: f64,
        max_subfilters: usize,
        model_for: impl Fn(f64, u64) -> M,
        make: impl FnMut(SubfilterSpec) -> Result<F, ParamError>,
    ) -> Result<(Self, Plan), ParamError> {
        let plan = plan_for_window(
            window,
            memory_bits,
            alphabet_size,
            max_subfilters,
            model_for,
        )?;
        let c = plan.capacity;
        Ok((
            Self::with_memory(memory_bits, plan.subfilters, c, make)?,
            plan,
        ))
    }

    /// A queue with a time window of `span` (`t ≥ 1`, caller's unit) as well
    /// as the capacity `c`: it also rotates when the newest subfilter has
    /// covered `s = ⌈t/(L − 1)⌉`, so it needs `L ≥ 2`. Drive it with
    /// [`TimedFilter::observe_at`].
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_queue::{Digest, Queue, TimedFilter, Window, Windowed, Verdict};
    /// use ddf_shf::CompactShf;
    ///
    /// // The last 3,000 time units in L = 4 slices of 1,000, at most 500 per slice.
    /// let mut q = Queue::with_time_span(3_000, 4, 500, |_| CompactShf::new(500, 32))?;
    /// assert_eq!(q.window(), Window::Time(3_000));
    /// assert_eq!(q.observe_at(Digest::mixed(1), 0), Verdict::Unseen);
    /// assert_eq!(q.observe_at(Digest::mixed(1), 2_000), Verdict::Duplicate);
    /// # Ok::<(), ddf_queue::ParamError>(())
    /// ```
    pub fn with_time_span(
        span: u64,
        subfilters: usize,
        capacity: u64,
        make: impl FnMut(usize) -> Result<F, ParamError>,
    ) -> Result<Self, ParamError> {
        ensure_range("subfilters", subfilters, 2..=MAX_SUBFILTERS)?;
        ensure_positive("time_span", span)?;
        let mut queue = Self::new(subfilters, capacity, make)?;
        queue.slices = Some(Slices::new(span.div_ceil(subfilters as u64 - 1)));
        Ok(queue)
    }

    /// The number of subfilters `L`.
    pub fn subfilters(&self) -> usize {
        self.subfilters.len()
    }

    /// Insertions per subfilter, `c`.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// The subfilters from newest to oldest.
    pub fn iter(&self) -> impl Iterator<Item = &F> {
        self.youngest(self.subfilters.len())
    }

    /// The `n ≤ L` youngest subfilters, newest first: the ring read as two
    /// slices, so that no lookup divides to find a subfilter.
    fn youngest(&self, n: usize) -> impl Iterator<Item = &F> + Clone {
        let (before, from_newest) = self.subfilters.split_at(self.newest);
        let head = n.min(from_newest.len());
        from_newest[..head].iter().chain(&before[..n - head])
    }

    /// Empties the oldest subfilter and makes it the newest.
    fn rotate(&mut self) {
        let oldest = self
            .newest
            .checked_sub(1)
            .unwrap_or(self.subfilters.len() - 1);
        self.subfilters[oldest].clear();
        self.newest = oldest;
        self.filled = 0;
    }

    /// Counts one insertion into the newest subfilter; rotates at `c`
    /// (count windows: a time window rotates a full subfilter at the next
    /// insertion, [`rotate_if_full`](Self::rotate_if_full)).
    fn count_insertion(&mut self) {
        self.filled += 1;
        if self.filled == self.capacity && self.slices.is_none() {
            self.rotate();
        }
    }

    /// Time windows: rotates the newest subfilter early if it already took
    /// `c` insertions within its slice, so no subfilter exceeds `c`; the
    /// new slice starts now. Whether it rotated.
    fn rotate_if_full(&mut self) -> bool {
        if self.filled < self.capacity {
            return false;
        }
        self.rotate();
        if let Some(s) = &mut self.slices {
            s.started = s.time.latest();
            s.closed_early = s.closed_early.saturating_add(1);
        }
        true
    }

    /// Moves the clock to `now`, rotating once per elapsed time slice.
    fn advance(&mut self, now: u64) {
        let Some(mut s) = self.slices else { return };
        let now = s.time.advance(now);
        let due = s.due(now, self.subfilters.len());
        for _ in 0..due {
            self.rotate();
        }
        if due == self.subfilters.len() {
            // Everything expired: restart the slicing at the present.
            s.started = now;
        } else {
            s.started += due as u64 * s.span;
        }
        self.slices = Some(s);
    }

    /// Observes `digests` in order, as [`observe`](DuplicateFilter::observe)
    /// one by one would, a block at a time: within a block no subfilter
    /// rotates, so the older ones are only read, and the subfilters answer
    /// the block as a group ([`DuplicateFilter::observe_in_group`]: by
    /// default the older ones with their own `contains_batch`, which
    /// prefetches if it does, and the newest with its `observe_batch`).
    fn observe_blocks(&mut self, digests: &[Digest], verdicts: &mut Vec<Verdict>) {
        verdicts.reserve(digests.len());
        if self.memory_bits() < MIN_BLOCK_BITS {
            verdicts.extend(digests.iter().map(|&d| self.observe(d)));
            return;
        }
        let mut rest = digests;
        while let Some(&first) = rest.first() {
            if self.filled == self.capacity {
                // Time windows only: the next insertion rotates early, after
                // its lookup has asked the subfilter it empties.
                verdicts.push(self.observe(first));
                rest = &rest[1..];
                continue;
            }
            let room = usize::try_from(self.capacity - self.filled).unwrap_or(usize::MAX);
            let (block, tail) = rest.split_at(rest.len().min(BLOCK).min(room));
            self.observe_block(block, verdicts);
            rest = tail;
        }
    }

    /// One block of at most `c − filled` items: no rotation before its end,
    /// so the subfilters answer it as a group
    /// ([`DuplicateFilter::observe_in_group`]).
    fn observe_block(&mut self, block: &[Digest], verdicts: &mut Vec<Verdict>) {
        F::observe_in_group(
            &mut self.subfilters,
            self.newest,
            block,
            verdicts,
            &mut self.scratch.0,
        );
        self.filled += block.len() as u64;
        if self.filled == self.capacity && self.slices.is_none() {
            self.rotate();
        }
    }

    /// Appends whether any of `filters` holds each digest, a block at a
    /// time; the caller's vector holds one block of answers beyond its own
    /// at most.
    fn contains_blocks<'a>(
        filters: impl Iterator<Item = &'a F> + Clone,
        digests: &[Digest],
        answers: &mut Vec<bool>,
    ) where
        F: 'a,
    {
        answers.reserve(digests.len());
        let bits = filters
            .clone()
            .map(DuplicateFilter::memory_bits)
            .fold(0u64, u64::saturating_add);
        if bits < MIN_BLOCK_BITS {
            answers.extend(
                digests
                    .iter()
                    .map(|&d| filters.clone().any(|f| f.contains(d))),
            );
            return;
        }
        for block in digests.chunks(BLOCK) {
            let start = answers.len();
            answers.resize(start + block.len(), false);
            for f in filters.clone() {
                let own = answers.len();
                f.contains_batch(block, answers);
                let (merged, fresh) = answers.split_at_mut(own);
                for (a, &hit) in merged[start..].iter_mut().zip(fresh.iter()) {
                    *a |= hit;
                }
                answers.truncate(own);
            }
        }
    }
}

impl<F: DuplicateFilter> DuplicateFilter for Queue<F> {
    /// Every subfilter asked as a group ([`DuplicateFilter::any_contains`]).
    #[inline]
    fn contains(&self, digest: Digest) -> bool {
        F::any_contains(&self.subfilters, usize::MAX, digest)
    }

    fn insert(&mut self, digest: Digest) {
        self.rotate_if_full();
        self.subfilters[self.newest].insert(digest);
        self.count_insertion();
    }

    /// Asks the older subfilters as a group
    /// ([`DuplicateFilter::any_contains`], which may derive the digest's
    /// positions once for all), then observes in the newest (fused there).
    #[inline]
    fn observe(&mut self, digest: Digest) -> Verdict {
        if self.filled == self.capacity {
            // Time windows only: answer before the early rotation.
            let seen = self.contains(digest);
            self.insert(digest);
            return Verdict::from_seen(seen);
        }
        let older = F::any_contains(&self.subfilters, self.newest, digest);
        let newest = self.subfilters[self.newest].observe(digest);
        self.count_insertion();
        Verdict::from_seen(older || newest.is_duplicate())
    }

    /// Block by block, each block answered by the subfilters as a group
    /// ([`DuplicateFilter::observe_in_group`]; by default each through its
    /// own batch path), so subfilters that prefetch hide the latency of all
    /// `L` rows. Same verdicts and state as one by one.
    fn observe_batch(&mut self, digests: &[Digest], verdicts: &mut Vec<Verdict>) {
        self.observe_blocks(digests, verdicts);
    }

    /// Each subfilter answers a block through its own `contains_batch`.
    fn contains_batch(&self, digests: &[Digest], answers: &mut Vec<bool>) {
        Self::contains_blocks(self.subfilters.iter(), digests, answers);
    }

    /// The subfilters' state; the queue's own counters are not counted, as
    /// in the paper.
    fn memory_bits(&self) -> u64 {
        // Saturating: a decoded subfilter may report any size.
        self.subfilters
            .iter()
            .map(DuplicateFilter::memory_bits)
            .fold(0u64, u64::saturating_add)
    }

    fn clear(&mut self) {
        for f in &mut self.subfilters {
            f.clear();
        }
        self.newest = 0;
        self.filled = 0;
        if let Some(s) = &mut self.slices {
            *s = Slices::new(s.span);
        }
    }
}

impl<F: DuplicateFilter> TimedFilter for Queue<F> {
    /// Asks only the subfilters that reaching `now` would keep.
    fn contains_at(&self, digest: Digest, now: u64) -> bool {
        let l = self.subfilters.len();
        let due = self.slices.map_or(0, |s| s.due(now, l));
        self.youngest(l - due).any(|f| f.contains(digest))
    }

    fn insert_at(&mut self, digest: Digest, now: u64) {
        self.advance(now);
        self.insert(digest);
    }

    #[inline]
    fn observe_at(&mut self, digest: Digest, now: u64) -> Verdict {
        self.advance(now);
        self.observe(digest)
    }

    /// The clock moves once, then the batch goes block by block as
    /// [`observe_batch`](DuplicateFilter::observe_batch) does. A `now`
    /// behind the clock takes the one-by-one path, which counts a clock
    /// regression per item.
    fn observe_batch_at(&mut self, digests: &[Digest], now: u64, verdicts: &mut Vec<Verdict>) {
        if self.slices.is_some_and(|s| now < s.time.latest()) {
            verdicts.reserve(digests.len());
            for &d in digests {
                verdicts.push(self.observe_at(d, now));
            }
            return;
        }
        self.advance(now);
        self.observe_blocks(digests, verdicts);
    }

    /// Only the subfilters that reaching `now` would keep answer, each
    /// through its own `contains_batch`.
    fn contains_batch_at(&self, digests: &[Digest], now: u64, answers: &mut Vec<bool>) {
        let l = self.subfilters.len();
        let due = self.slices.map_or(0, |s| s.due(now, l));
        Self::contains_blocks(self.youngest(l - due), digests, answers);
    }

    /// 0 without a time span.
    fn clock_regressions(&self) -> u64 {
        self.slices.map_or(0, |s| s.time.regressions())
    }

    /// Rotations of a subfilter that took `c` insertions before its slice
    /// `s` ended (0 without a time span).
    fn generations_closed_early(&self) -> u64 {
        self.slices.map_or(0, |s| s.closed_early)
    }
}

/// Refused: a queue rotates its subfilters every `c` insertions of one
/// stream (a count window), or from its own first insertion (a time
/// window), never on a grid two queues share.
impl<F> ddf_core::Merge for Queue<F> {
    fn merge(&mut self, _other: &Self) -> Result<(), ddf_core::MergeError> {
        Err(match self.window() {
            Window::Time(_) => ddf_core::MergeError::Unsupported {
                family: "queue",
                reason: "its subfilters rotate from its own first insertion, not on the shared clock",
            },
            _ => ddf_core::MergeError::CountWindow { family: "queue" },
        })
    }
}

impl<F> Windowed for Queue<F> {
    /// `w = c·L` insertions (§5.1), or `(L − 1)·s ≥ t` time units with a
    /// time span, which slices so that all of `t` is kept.
    fn window(&self) -> Window {
        let l = self.subfilters.len() as u64;
        match self.slices {
            Some(s) => Window::Time((l - 1).saturating_mul(s.span)),
            None => Window::Count(l.saturating_mul(self.capacity)),
        }
    }

    /// 0 for a count window (nothing older than `c·L` is remembered); one
    /// slice `s` for a time span (the newest slice may have started up to
    /// `s` before the window's start).
    fn slack(&self) -> u64 {
        self.slices.map_or(0, |s| s.span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ddf_exact::ExactWindow;

    fn exact_queue(l: usize, c: u64) -> Queue<ExactWindow> {
        Queue::new(l, c, |_| Ok(ExactWindow::unbounded())).unwrap()
    }

    #[test]
    fn parameters_are_checked() {
        let make = |_| Ok(ExactWindow::unbounded());
        assert_eq!(Queue::new(0, 10, make).unwrap_err().param(), "subfilters");
        assert_eq!(Queue::new(3, 0, make).unwrap_err().param(), "capacity");
        assert_eq!(
            Queue::with_time_span(5, 1, 10, make).unwrap_err().param(),
            "subfilters"
        );
        assert_eq!(
            Queue::with_time_span(0, 3, 10, make).unwrap_err().param(),
            "time_span"
        );
        // Each subfilter is offered 250 bits but takes 300.
        let err = Queue::with_memory(1_000, 4, 10, |s| Ok(Sized(s.bits + 50))).unwrap_err();
        assert_eq!(err.param(), "memory_bits");
        let q = Queue::with_memory(1_000, 4, 10, |s| Ok(Sized(s.bits))).unwrap();
        assert_eq!(q.memory_bits(), 1_000);
    }

    /// A subfilter that only reports its size.
    #[derive(Debug)]
    struct Sized(u64);
    impl DuplicateFilter for Sized {
        fn contains(&self, _: Digest) -> bool {
            false
        }
        fn insert(&mut self, _: Digest) {}
        fn memory_bits(&self) -> u64 {
            self.0
        }
        fn clear(&mut self) {}
    }

    #[test]
    fn remembers_c_times_l_minus_1_and_forgets_after_c_times_l() {
        let (l, c) = (4usize, 5u64);
        let mut q = exact_queue(l, c);
        let d = Digest::mixed;
        q.observe(d(1_000));
        // 1,000 sits in the oldest position after (L − 1)·c more items...
        for i in 0..(l as u64 - 1) * c {
            q.observe(d(i));
        }
        assert!(q.contains(d(1_000)));
        // ...and is gone once c more arrive.
        for i in 0..c {
            q.observe(d(100 + i));
        }
        assert!(!q.contains(d(1_000)));
        assert_eq!(q.window(), Window::Count(20));
        assert_eq!(q.slack(), 0);
    }

    #[test]
    fn a_full_subfilter_rotates_early_at_the_next_insertion() {
        // Slices of 10 units, c = 4.
        let mut q = Queue::with_time_span(20, 3, 4, |_| ExactWindow::new(4)).unwrap();
        let d = Digest::mixed;
        for i in 0..4 {
            q.observe_at(d(i), 0);
        }
        // Exactly c in the slice: nothing rotates yet.
        assert_eq!(q.generations_closed_early(), 0);
        let bits = q.memory_bits();
        // The fifth item within the slice rotates early and is counted.
        assert_eq!(q.observe_at(d(100), 1), Verdict::Unseen);
        assert_eq!(q.generations_closed_early(), 1);
        assert!(q.contains_at(d(0), 1));
        // Two more early rotations (at items 203 and 207) push item 0 out
        // inside its 20 units.
        for i in 0..8 {
            q.observe_at(d(200 + i), 2);
        }
        assert_eq!(q.generations_closed_early(), 3);
        assert!(!q.contains_at(d(0), 2));
        assert_eq!(q.memory_bits(), bits);
        q.observe_at(d(1), 0);
        assert_eq!(q.clock_regressions(), 1);
    }

    #[test]
    fn time_slices_expire_items() {
        // t = 30 over L − 1 = 3 slices of 10.
        let mut q = Queue::with_time_span(30, 4, 1_000, |_| Ok(ExactWindow::unbounded())).unwrap();
        let d = Digest::mixed(7);
        q.observe_at(d, 5);
        assert!(q.contains_at(d, 34));
        // At 35 the clock is three slices past the item's slice start (0)...
        assert!(q.contains_at(d, 39));
        // ...and at 40 four: its subfilter is the one that rotates out.
        assert!(!q.contains_at(d, 40));
        assert_eq!(q.observe_at(d, 40), Verdict::Unseen);
        assert_eq!(q.window(), Window::Time(30));
        // A long silence empties everything.
        assert_eq!(q.observe_at(d, 10_000), Verdict::Unseen);
    }
}

#[cfg(feature = "serde")]
ddf_core::impl_serde_via_snapshot!(impl<F> for Queue<F>);
