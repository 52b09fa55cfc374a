//! `SlidingBloom`: generations over the tagged table, and the filter traits.

use crate::lines::Remainders;
use crate::plan::{
    BEYOND_CACHE_BITS, Clock, Layout, LayoutChoice, Plan, Request, SCAN_STRIDE, Sizing, Slack,
};
use crate::table::{Ages, EntryKey, Slot, Table};
use ddf_bits::isa::Isa;
use ddf_core::batch::{self, Prefetch};
use ddf_core::{
    Digest, DuplicateFilter, ParamError, Prediction, TimeClock, TimedFilter, Verdict, Window,
    Windowed,
};
use ddf_hash::SplitMix64;

/// Seed of the relocation generator unless [`SlidingBloom::with_seed`] sets one.
const DEFAULT_SEED: u64 = 0x6e61_6f72_796f_6765;

mod kernels;
mod merge;
mod traits;

/// The Naor–Yogev `(n, m, ε)`-sliding Bloom filter: every item among the last
/// `n` insertions is reported, no item older than `n + m` is reported with
/// probability above `ε`.
///
/// The construction of *Tight Bounds for Sliding Bloom Filters* (§2): the
/// stream is cut into generations of `⌈n/c⌉` insertions; each item's hash
/// `h(x)` is kept in a dictionary with the generation of its latest
/// occurrence, counted modulo `2^s` (§2.4 counts modulo `2c + 3`; see
/// [`SCAN_SPEEDUP`](crate::SCAN_SPEEDUP)). An item is reported while that
/// generation is among the last `c + 1`. Stale entries are deleted lazily —
/// an insertion overwrites any it needs — and by a scan that visits about one
/// bucket per insertion or less, `⌈B/k⌉` per generation for a sweep of
/// `k = 2^s − c − 1` generations (§2.5), so no operation of a count window
/// pauses.
///
/// The dictionary is a two-choice table of 4-cell buckets; see the crate
/// documentation for its sizing, the argument that it never drops an entry,
/// and its measured speed.
///
/// # Examples
///
/// ```
/// use ddf_sliding::{Deduper, Slack, SlidingBloom, Verdict};
///
/// let mut seen = Deduper::new(SlidingBloom::new(100_000, Slack::AtMost(1_000), 0.001)?);
/// assert_eq!(seen.observe("order-1"), Verdict::Unseen);
/// assert_eq!(seen.observe("order-1"), Verdict::Duplicate);
/// # Ok::<(), ddf_sliding::ParamError>(())
/// ```
#[derive(Debug, Clone)]
pub struct SlidingBloom {
    plan: Plan,
    table: Table,
    remainders: Remainders,
    /// Absolute index of the current generation.
    generation: u64,
    /// `generation mod 2^s`.
    tag: u32,
    /// The clock at `tag`, as the table's lane operations want it.
    ages: Ages,
    /// Insertions in the current generation.
    in_generation: u64,
    /// `in_generation · quota mod (SCAN_STRIDE · generation_capacity)`: the
    /// scan's share of a stride earned and not yet spent (derived, so not in
    /// snapshots).
    scan_credit: u64,
    /// The latest timestamp seen and the steps back (time windows).
    clock: TimeClock,
    /// The time generation `⌊now/⌈t/c⌉⌋` the current generation belongs to
    /// (time windows): `generation − closed_early` (derived, so not in
    /// snapshots).
    epoch: u64,
    /// `(epoch + 1)·τ` (saturating): the first time of the next time
    /// generation, so that a `now` within the current one is recognised by
    /// a comparison rather than a division (derived, so not in snapshots).
    epoch_end: u64,
    /// Generations closed at capacity before their time had passed.
    closed_early: u64,
    /// Time windows: active entries per generation, generation `G` at
    /// `G mod (c + 1)` (empty for count windows; derived from the table, so
    /// not in snapshots).
    active: Vec<u64>,
    /// Their sum: the active entries, at most `(c + 1)·g`.
    active_total: u64,
    /// `generation mod (c + 1)`, the current generation's place in
    /// `active`, kept as the generation advances so that no insertion
    /// divides (0 for count windows; derived, so not in snapshots).
    active_slot: usize,
    /// Insertions since construction or `clear`.
    insertions: u64,
    seed: u64,
    rng: SplitMix64,
    /// The instructions the hot paths run with ([`Isa::detect`]; derived,
    /// so not in snapshots).
    isa: Isa,
}

impl SlidingBloom {
    /// An `(n, m, ε)`-sliding Bloom filter over the last `window` insertions
    /// (`n ≥ 1`), forgetting items within `slack` more, with false-positive
    /// probability at most `fpr` (the paper's `ε`) for older and unseen items.
    ///
    /// The generations `c` are the least-space choice among those whose
    /// slack fits (about `max(log₂(1/ε), n/m)`, §2.3). Fails with a
    /// [`ParamError`] naming `window`, `fpr` (in `(0, 1)`, and large
    /// enough for a 32-bit cell), `slack` (for `Slack::AtMost(m)`: small
    /// slacks need many generations and wide tags) or `capacity` (a table
    /// above 2^40 bits).
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_sliding::{Digest, DuplicateFilter, Slack, SlidingBloom, Windowed, Verdict};
    ///
    /// let mut f = SlidingBloom::new(10_000, Slack::AtMost(1_000), 0.01)?;
    /// assert!(f.slack() <= 1_000);
    /// assert_eq!(f.observe(Digest::mixed(8)), Verdict::Unseen);
    /// assert_eq!(f.observe(Digest::mixed(8)), Verdict::Duplicate);
    /// assert_eq!(SlidingBloom::new(10_000, Slack::AtMost(1_000), 1.0).unwrap_err().param(), "fpr");
    /// # Ok::<(), ddf_sliding::ParamError>(())
    /// ```
    pub fn new(window: u64, slack: Slack, fpr: f64) -> Result<Self, ParamError> {
        Self::from_request(Request::count(window, slack, None, fpr))
    }

    /// An `(n, ε)`-sliding Bloom filter (`m = ∞`): the slack is whatever
    /// the least-space number of generations gives, about `n/log₂(1/ε)`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_sliding::{DuplicateFilter, Slack, SlidingBloom};
    ///
    /// // Least space: more slack, fewer bits than a 1 % slack.
    /// let least = SlidingBloom::least_space(10_000, 0.01)?;
    /// let tight = SlidingBloom::new(10_000, Slack::AtMost(100), 0.01)?;
    /// assert!(least.memory_bits() <= tight.memory_bits());
    /// # Ok::<(), ddf_sliding::ParamError>(())
    /// ```
    pub fn least_space(window: u64, fpr: f64) -> Result<Self, ParamError> {
        Self::new(window, Slack::LeastSpace, fpr)
    }

    /// A filter with exactly `generations` generations (`c`, in `1..=window`),
    /// the paper's own parameter: slack `(c + 1)·⌈n/c⌉ − 1 − n`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_sliding::{SlidingBloom, Windowed};
    ///
    /// // c = 4 generations of 2,500: slack 5·2,500 − 1 − 10,000.
    /// let f = SlidingBloom::with_generations(10_000, 4, 0.01)?;
    /// assert_eq!(f.generations(), 4);
    /// assert_eq!(f.slack(), 2_499);
    /// # Ok::<(), ddf_sliding::ParamError>(())
    /// ```
    pub fn with_generations(window: u64, generations: u64, fpr: f64) -> Result<Self, ParamError> {
        Self::from_request(Request::count(
            window,
            Slack::LeastSpace,
            Some(generations),
            fpr,
        ))
    }

    /// A filter over the last `span` time units of the caller's clock
    /// (`now − ts < span`), driven by [`TimedFilter`]; `slack` is in time
    /// units (at least 1: generations are whole units).
    ///
    /// The table is sized for `capacity` insertions per `span` arriving at a
    /// steady rate: `g = ⌈capacity/c⌉` per generation of `τ = ⌈span/c⌉`
    /// units ([`generation_capacity`](Self::generation_capacity)). When an
    /// insertion would make more than the `(c + 1)·g` active entries the
    /// table was sized for, the current generation is closed early
    /// ([`generations_closed_early`](TimedFilter::generations_closed_early)),
    /// as the APBF closes a full generation: memory and the false-positive
    /// bound hold at any rate, and above the rate the effective window
    /// shortens to the last `c + 1` generations. A generation may take more
    /// than `g` items when the ones before it took fewer, so random arrivals
    /// (Poisson, say) at the sized mean rate rarely close one.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_sliding::{Digest, Slack, SlidingBloom, TimedFilter, Window, Windowed, Verdict};
    ///
    /// // The last 60 s of a millisecond clock, sized for 10,000 items per minute.
    /// let mut f = SlidingBloom::with_time_span(60_000, Slack::AtMost(6_000), 10_000, 0.01)?;
    /// assert_eq!(f.window(), Window::Time(60_000));
    /// assert_eq!(f.observe_at(Digest::mixed(2), 0), Verdict::Unseen);
    /// assert_eq!(f.observe_at(Digest::mixed(2), 59_999), Verdict::Duplicate);
    /// # Ok::<(), ddf_sliding::ParamError>(())
    /// ```
    pub fn with_time_span(
        span: u64,
        slack: Slack,
        capacity: u64,
        fpr: f64,
    ) -> Result<Self, ParamError> {
        Self::from_request(Request::time(span, slack, capacity, fpr))
    }

    /// What [`new`](Self::new) would build, without allocating it: the
    /// same checks, then the prediction every family's sizing gives (no
    /// misses within the window, the false-positive bound for items older
    /// than window + slack). [`table_sizing`](Self::table_sizing) gives the
    /// table's shape as well.
    pub fn sizing(window: u64, slack: Slack, fpr: f64) -> Result<Prediction, ParamError> {
        Self::table_sizing(window, slack, None, fpr).map(|s| s.prediction())
    }

    /// What [`with_time_span`](Self::with_time_span) would build, without
    /// allocating it (as [`sizing`](Self::sizing)).
    pub fn sizing_timed(
        span: u64,
        slack: Slack,
        capacity: u64,
        fpr: f64,
    ) -> Result<Prediction, ParamError> {
        Self::table_sizing(span, slack, Some(capacity), fpr).map(|s| s.prediction())
    }

    /// The table [`new`](Self::new) (`capacity` `None`) or
    /// [`with_time_span`](Self::with_time_span) (`Some(capacity)`) would
    /// build for `window`, `slack` and `fpr`, without allocating it:
    /// generations, buckets, bits and where they go.
    pub fn table_sizing(
        window: u64,
        slack: Slack,
        capacity: Option<u64>,
        fpr: f64,
    ) -> Result<Sizing, ParamError> {
        Self::table_sizing_with(window, slack, capacity, fpr, LayoutChoice::Auto)
    }

    pub(crate) fn from_request(request: Request) -> Result<Self, ParamError> {
        Self::from_plan(Plan::new(request)?)
    }

    /// Allocates the table of `plan`.
    pub(crate) fn from_plan(plan: Plan) -> Result<Self, ParamError> {
        // The plan keeps remainders within 1..=31 bits.
        let wide_lines = plan.line_shape().is_some_and(|s| s.is_wide());
        let remainders = Remainders::new(plan.remainder_bits, wide_lines)?;
        let table = Table::new(&plan);
        let ages = table.ages(0, plan.tag_modulus, plan.generations as u32);
        let active = match plan.request.clock {
            Clock::Count => Vec::new(),
            Clock::Time => vec![0; plan.generations as usize + 1],
        };
        Ok(SlidingBloom {
            table,
            plan,
            remainders,
            generation: 0,
            tag: 0,
            ages,
            in_generation: 0,
            scan_credit: 0,
            clock: TimeClock::new(),
            epoch: 0,
            epoch_end: plan.generation_len,
            closed_early: 0,
            active,
            active_total: 0,
            active_slot: 0,
            insertions: 0,
            seed: DEFAULT_SEED,
            rng: SplitMix64::new(DEFAULT_SEED),
            isa: Isa::detect(),
        })
    }

    /// The same filter with its relocation generator seeded by `seed`
    /// (kept by [`clear`](DuplicateFilter::clear)); state is reset.
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self.clear_all();
        self
    }

    /// The same filter re-planned for design load `load` (in
    /// [`DESIGN_LOAD_RANGE`](crate::DESIGN_LOAD_RANGE), default
    /// [`DESIGN_LOAD`](crate::DESIGN_LOAD)); state is reset. A higher load saves space and costs
    /// insertion time; the false-positive bound still holds.
    pub fn with_design_load(self, load: f64) -> Result<Self, ParamError> {
        let request = Request {
            load,
            ..self.plan.request
        };
        Ok(Self::from_request(request)?.with_seed(self.seed))
    }

    /// The design load the table was sized for.
    pub fn design_load(&self) -> f64 {
        self.plan.request.load
    }

    /// The same filter re-planned with its buckets laid out as `layout`;
    /// state is reset.
    ///
    /// [`Layout::Line`] trades space for speed beyond the caches: buckets
    /// of one cache line whose probe does not branch on what they hold,
    /// and almost no relocation. [`new`](Self::new) picks it there by
    /// itself ([`BEYOND_CACHE_BITS`](crate::BEYOND_CACHE_BITS)); this fixes
    /// a layout whatever the size. Lines keep 16-bit remainders where they
    /// meet the rate (about `2·b·α/2^16` with `b` = 16 to 30 cells), else
    /// `32 − s` bits in lines of 16 cells (about `2·16·α/2^(32 − s)`). It
    /// fails with a `fpr` error when the rate asks for more than that, and
    /// with a `generations` error when the tags need more than 8 bits.
    ///
    /// ```
    /// use ddf_sliding::{Layout, Slack, SlidingBloom};
    ///
    /// let f = SlidingBloom::new(1 << 20, Slack::AtMost(1 << 20), 1e-3)?.with_layout(Layout::Line)?;
    /// assert_eq!(f.layout(), Layout::Line);
    /// assert!(f.false_positive_bound() <= 1e-3);
    /// // One in a million needs more than 16 remainder bits: wide lines.
    /// let tight = SlidingBloom::new(1 << 20, Slack::AtMost(1 << 20), 1e-6)?;
    /// let wide = tight.with_layout(Layout::Line)?;
    /// assert!(wide.remainder_bits() > 16 && wide.false_positive_bound() <= 1e-6);
    /// // One in a hundred million, more than a line's cells hold.
    /// let tighter = SlidingBloom::new(1 << 20, Slack::AtMost(1 << 20), 1e-8)?;
    /// assert_eq!(tighter.with_layout(Layout::Line).unwrap_err().param(), "fpr");
    /// # Ok::<(), ddf_sliding::ParamError>(())
    /// ```
    pub fn with_layout(self, layout: Layout) -> Result<Self, ParamError> {
        let request = Request {
            layout: Some(layout),
            ..self.plan.request
        };
        Ok(Self::from_request(request)?.with_seed(self.seed))
    }

    /// How the table lays out its buckets.
    pub fn layout(&self) -> Layout {
        self.plan.layout
    }

    pub(crate) fn plan(&self) -> &Plan {
        &self.plan
    }

    /// `c`, the generations per window.
    pub fn generations(&self) -> u64 {
        self.plan.generations
    }

    /// Insertions (count windows) or time units (time windows) per
    /// generation: `⌈n/c⌉` or `⌈t/c⌉`.
    pub fn generation_len(&self) -> u64 {
        self.plan.generation_len
    }

    /// The absolute index of the current generation (insertions divided by
    /// the generation length; for time windows `⌊now/τ⌋` plus the
    /// generations closed early).
    pub fn current_generation(&self) -> u64 {
        self.generation
    }

    /// The insertions per generation the table is sized for, `g`: `⌈n/c⌉`
    /// (count windows) or `⌈capacity/c⌉` (time windows, whose active
    /// entries never exceed `(c + 1)·g`).
    pub fn generation_capacity(&self) -> u64 {
        self.plan.generation_capacity
    }

    /// Bits of the stored remainder `r`.
    pub fn remainder_bits(&self) -> u32 {
        self.plan.remainder_bits
    }

    /// Bits of the generation tag `s`: the fewest whose `2^s` ages cover
    /// the `c + 1` active generations and a sweep of the scan (§2.4; see
    /// [`SCAN_SPEEDUP`](crate::SCAN_SPEEDUP)).
    pub fn tag_bits(&self) -> u32 {
        self.plan.tag_bits
    }

    /// Buckets of the table, each of
    /// [`cells_per_bucket`](Self::cells_per_bucket) cells in one aligned word.
    pub fn buckets(&self) -> u64 {
        self.plan.buckets
    }

    /// Cells per bucket `b`: as many as the bucket's word (64 or 128 bits)
    /// holds, from [`CELLS_PER_BUCKET`](crate::CELLS_PER_BUCKET) up to
    /// [`MAX_CELLS_PER_BUCKET`](crate::MAX_CELLS_PER_BUCKET).
    pub fn cells_per_bucket(&self) -> u32 {
        self.plan.cells_per_bucket
    }

    /// Bits of the word each bucket occupies: 64 or 128.
    pub fn bucket_bits(&self) -> u32 {
        self.plan.bucket_bits
    }

    /// Cells of the table, `b·B`.
    pub fn cells(&self) -> u64 {
        self.plan.cells()
    }

    /// The false-positive rate asked for, `fpr` (the paper's `ε`).
    pub fn fpr(&self) -> f64 {
        self.plan.request.fpr
    }

    /// The most entries that can be active at once, `(c + 1)·⌈n/c⌉` (the
    /// paper's `n'`); the table is sized for them.
    pub fn max_active(&self) -> u64 {
        self.plan.max_active
    }

    /// The number of distinct entry keys, `B·(2^r − 1)/2`, or in lines,
    /// whose remainders never have a zero low half,
    /// `B·(2^16 − 1)·2^(r − 16)/2`: the hash range `M` of §2.1.
    pub fn key_space(&self) -> f64 {
        self.plan.key_space()
    }

    /// The guaranteed false-positive probability of an item not inserted in
    /// the last `n + m`: [`max_active`](Self::max_active) over
    /// [`key_space`](Self::key_space), at most `fpr` (§2.1's union bound).
    pub fn false_positive_bound(&self) -> f64 {
        self.plan.false_positive_bound()
    }

    /// Insertions in which the scan visits every bucket once, counted from
    /// the start of a generation (count windows): `k = 2^s − c − 1`
    /// generations ([`sweep_generations`](Self::sweep_generations)), each
    /// paying `⌈B/k⌉` buckets, `k·⌈n/c⌉` insertions.
    pub fn scan_period(&self) -> u64 {
        self.plan.sweep_generations * self.plan.generation_len
    }

    /// `k = 2^s − c − 1`, the generations in which the scan sweeps the
    /// table: at least `⌈(c + 1)/4⌉`, so that no entry lives to age `2^s`.
    pub fn sweep_generations(&self) -> u64 {
        self.plan.sweep_generations
    }

    /// The oldest age (in insertions, as for the window) at which a stale
    /// entry may still occupy a cell (count windows): the retention
    /// `(c + 1)·⌈n/c⌉ − 1` plus the [`scan_period`](Self::scan_period).
    /// Stale entries never count as present, but they hold their cell until
    /// an insertion overwrites them or the scan deletes them.
    pub fn physical_lifetime(&self) -> u64 {
        let retention = self.plan.request.window + self.plan.slack;
        retention + self.scan_period()
    }

    /// Non-empty cells of the table (active or stale entries).
    pub fn occupied_cells(&self) -> u64 {
        self.table.occupied()
    }

    /// Entries parked in the stash because the table could not place them.
    /// 0 unless the table was loaded beyond its design (see the crate docs).
    pub fn stash_len(&self) -> usize {
        self.table.stash_len()
    }

    /// Entries that are active now (O(cells): a diagnostic).
    pub fn active_entries(&self) -> u64 {
        let ages = self.ages();
        self.table
            .entries()
            .filter(|&(_, t)| ages.is_active(t))
            .count() as u64
    }

    /// The key under which `digest` is stored; items with equal keys share
    /// one entry (that sharing is the false positive of §2.1).
    pub fn entry_key(&self, digest: Digest) -> EntryKey {
        let slot = self.slot(digest);
        self.table.key_of(slot.first, slot.remainder)
    }

    /// Every stored entry, active or stale, with its age in generations
    /// (O(cells): for tests and verification).
    pub fn entries(&self) -> impl Iterator<Item = (EntryKey, u32)> + '_ {
        let ages = self.ages();
        self.table.entries().map(move |(k, t)| (k, ages.age(t)))
    }

    /// Where the bits of [`memory_bits`](DuplicateFilter::memory_bits) go,
    /// per window element (see [`SpaceBreakdown`](crate::SpaceBreakdown)).
    pub fn space_breakdown(&self) -> crate::SpaceBreakdown {
        self.plan.breakdown()
    }

    /// Entries dropped because relocation failed while the stash held
    /// [`STASH_CAPACITY`](crate::STASH_CAPACITY) entries, since construction,
    /// the last `clear` or a snapshot restore. 0 at the design load
    /// (measured, see the crate docs); each dropped entry may be a false
    /// negative.
    pub fn stash_overflows(&self) -> u64 {
        self.table.stash_overflows()
    }

    /// Relocation moves (cuckoo kicks) since construction, the last `clear`
    /// or a snapshot restore: a diagnostic of how hard the table works.
    pub fn kicks(&self) -> u64 {
        self.table.kicks()
    }

    /// Insertions since construction or the last `clear`.
    pub fn insertions(&self) -> u64 {
        self.insertions
    }

    #[inline]
    fn ages(&self) -> Ages {
        self.ages
    }

    /// Sets the generation counter's tag and the clock derived from it.
    fn set_tag(&mut self, tag: u32) {
        self.tag = tag;
        self.ages = self
            .table
            .ages(tag, self.plan.tag_modulus, self.plan.generations as u32);
    }

    #[inline]
    fn slot(&self, digest: Digest) -> Slot {
        let (first, rest) = digest.split(self.plan.buckets);
        self.table.slot(first, self.remainders.remainder(rest))
    }

    /// Generations between the current one and the one of time `now`
    /// (time windows; 0 for count windows or a `now` not ahead).
    #[inline]
    fn generations_ahead(&self, now: u64) -> u64 {
        match self.plan.request.clock {
            Clock::Count => 0,
            Clock::Time => {
                let now = self.clock.peek(now);
                if now < self.epoch_end {
                    0
                } else {
                    (now / self.plan.generation_len).saturating_sub(self.epoch)
                }
            }
        }
    }

    /// Detect at the current generation plus `ahead` ones.
    ///
    /// This and the paths below take `LINES`: `true` compiles them for a
    /// table of lines only, with the line paths inlined (the kernels of
    /// `filter/kernels.rs`); `false` serves every layout.
    #[inline(always)]
    fn contains_ahead<const LINES: bool>(&self, digest: Digest, ahead: u64) -> bool {
        self.contains_slot::<LINES>(self.slot(digest), ahead)
    }

    /// [`contains_ahead`](Self::contains_ahead) of the item at `slot`.
    #[inline(always)]
    fn contains_slot<const LINES: bool>(&self, slot: Slot, ahead: u64) -> bool {
        if ahead > self.plan.generations {
            return false;
        }
        let tag = if LINES {
            self.table.lookup_line_inlined(slot)
        } else {
            self.table.lookup(slot)
        };
        tag.is_some_and(|tag| u64::from(self.ages().age(tag)) + ahead <= self.plan.generations)
    }

    /// Stream at the current generation: detect, then record.
    #[inline(always)]
    fn observe_now<const LINES: bool>(&mut self, digest: Digest) -> bool {
        self.observe_slot::<LINES>(self.slot(digest))
    }

    /// [`observe_now`](Self::observe_now) of the item at `slot`.
    #[inline(always)]
    fn observe_slot<const LINES: bool>(&mut self, slot: Slot) -> bool {
        if self.plan.request.clock == Clock::Time && self.active_total >= self.plan.max_active {
            // The table holds all the active entries it was sized for before
            // the generation's time is up: answer as the filter stands, then
            // close the generation, which retires the oldest one's entries.
            // A close may retire an empty generation: close until there is
            // room (at most c + 1 closes retire every entry).
            let seen = self.contains_slot::<LINES>(slot, 0);
            while self.active_total >= self.plan.max_active {
                self.closed_early = self.closed_early.saturating_add(1);
                self.end_generation();
            }
            self.record_slot::<LINES>(slot);
            return seen;
        }
        self.record_slot::<LINES>(slot)
    }

    /// Records the item at `slot` in the current generation; whether it was
    /// active.
    #[inline(always)]
    fn record_slot<const LINES: bool>(&mut self, slot: Slot) -> bool {
        if LINES {
            self.record_in::<true>(slot)
        } else {
            self.record_any(slot)
        }
    }

    /// [`record_slot`](Self::record_slot) for every layout, out of line:
    /// the word layouts keep the call boundary they are tuned with (inlined
    /// into every caller, the table's word paths were no longer inlined
    /// below it, and an observe cost 3–8 % more instructions).
    #[inline(never)]
    fn record_any(&mut self, slot: Slot) -> bool {
        self.record_in::<false>(slot)
    }

    /// The body of [`record_slot`](Self::record_slot).
    #[inline(always)]
    fn record_in<const LINES: bool>(&mut self, slot: Slot) -> bool {
        let old = if LINES {
            (self.table).upsert_line_inlined(slot, self.tag, &self.ages, &mut self.rng)
        } else {
            (self.table).upsert(slot, self.tag, &self.ages, &mut self.rng)
        };
        let seen = old.is_some_and(|old| self.ages.is_active(old));
        if !self.active.is_empty() {
            // A refreshed entry moves to the current generation; a new one
            // (or one revived from a stale cell) adds to it.
            let current = self.active_slot;
            match old {
                Some(old) if seen => {
                    // Active: the age is at most c, below the c + 1 slots.
                    let age = self.ages.age(old) as usize;
                    let from = if age <= current {
                        current - age
                    } else {
                        current + self.active.len() - age
                    };
                    self.active[from] -= 1;
                }
                _ => self.active_total += 1,
            }
            self.active[current] += 1;
        }
        self.after_insertion::<LINES>();
        seen
    }

    /// The per-insertion work after placing: the scan's share and the counters.
    ///
    /// A generation owes the scan `q = ⌈B/k⌉` buckets, so that `k = 2^s − c − 1`
    /// generations sweep the whole table; they are paid evenly, a stride of
    /// [`SCAN_STRIDE`] buckets whenever the insertions of the generation
    /// have earned one (`q` buckets per `⌈n/c⌉` insertions), rather than all
    /// at once (§2.5).
    #[inline(always)]
    fn after_insertion<const LINES: bool>(&mut self) {
        // Saturating: a snapshot may carry any count, and 2^64 insertions
        // never happen in a real stream.
        self.insertions = self.insertions.saturating_add(1);
        self.in_generation = self.in_generation.saturating_add(1);
        self.scan_credit += self.plan.scan_quota;
        // A quota above the generation's capacity (a sweep of few
        // generations, small tables) may earn more than a stride an insertion.
        while self.scan_credit >= self.plan.stride_credit {
            self.scan_credit -= self.plan.stride_credit;
            if LINES {
                self.table.scan_line_inlined(SCAN_STRIDE, &self.ages);
            } else {
                self.table.scan(SCAN_STRIDE, &self.ages);
            }
        }
        if self.plan.request.clock == Clock::Count && self.in_generation == self.plan.generation_len
        {
            self.end_generation();
        }
    }

    /// Closes the current generation: pay what remains of its scan quota
    /// (time windows may have had too few insertions to pay it as they
    /// went), sweep the stash, and advance the counter (§2.4–2.5).
    fn end_generation(&mut self) {
        let ages = self.ages();
        let quota = self.plan.scan_quota;
        let earned = u128::from(self.in_generation) * u128::from(quota)
            / u128::from(self.plan.generation_capacity);
        // Paid in whole strides as the generation went.
        let paid = (earned - earned % u128::from(SCAN_STRIDE)).min(u128::from(quota)) as u64;
        self.table.scan(quota - paid, &ages);
        self.table.sweep_stash(&ages);
        if !self.active.is_empty() {
            // Generation `G − c` leaves the active ones; its slot becomes
            // the new current generation's.
            let leaving = if self.active_slot + 1 == self.active.len() {
                0
            } else {
                self.active_slot + 1
            };
            self.active_total -= self.active[leaving];
            self.active[leaving] = 0;
            self.active_slot = leaving;
        }
        self.in_generation = 0;
        self.scan_credit = 0;
        self.generation += 1;
        self.set_tag(if self.tag + 1 == self.plan.tag_modulus {
            0
        } else {
            self.tag + 1
        });
    }

    /// Moves the time clock to `now` (time windows), clamped to the latest
    /// time seen.
    #[inline]
    fn advance_to(&mut self, now: u64) {
        let now = self.clock.advance(now);
        if now >= self.epoch_end {
            self.close_generations_to(now);
        }
    }

    /// [`advance_to`](Self::advance_to) once `now` (already taken by the
    /// clock) has left the current time generation: out of line, as it runs
    /// once a generation while the check above runs for every item.
    #[inline(never)]
    fn close_generations_to(&mut self, now: u64) {
        let target = now / self.plan.generation_len;
        if target <= self.epoch {
            return;
        }
        let ahead = target - self.epoch;
        self.set_epoch(target);
        if ahead > self.plan.generations {
            // Every entry is stale `ahead` generations on: skip the ones between.
            self.table.clear_entries();
            self.active.fill(0);
            self.active_total = 0;
            self.in_generation = 0;
            self.scan_credit = 0;
            self.generation = self.generation.saturating_add(ahead);
            self.set_tag((self.generation % u64::from(self.plan.tag_modulus)) as u32);
            if !self.active.is_empty() {
                self.active_slot = (self.generation % self.active.len() as u64) as usize;
            }
        } else {
            for _ in 0..ahead {
                self.end_generation();
            }
        }
    }

    /// Sets the time generation and the end of it.
    fn set_epoch(&mut self, epoch: u64) {
        self.epoch = epoch;
        self.epoch_end = epoch
            .saturating_add(1)
            .saturating_mul(self.plan.generation_len);
    }

    fn clear_all(&mut self) {
        self.table.reset();
        self.generation = 0;
        self.set_tag(0);
        self.in_generation = 0;
        self.scan_credit = 0;
        self.clock = TimeClock::new();
        self.set_epoch(0);
        self.closed_early = 0;
        self.active.fill(0);
        self.active_total = 0;
        self.active_slot = 0;
        self.insertions = 0;
        self.rng = SplitMix64::new(self.seed);
    }

    /// Counts the active entries per generation from the table (time
    /// windows; count windows keep no counts).
    fn recount_active(&mut self) {
        if self.active.is_empty() {
            return;
        }
        let m = self.active.len() as u64;
        self.active.fill(0);
        self.active_total = 0;
        self.active_slot = (self.generation % m) as usize;
        let ages = self.ages;
        for (_, t) in self.table.entries() {
            if ages.is_active(t) {
                let age = u64::from(ages.age(t)) % m;
                self.active[((self.generation % m + m - age) % m) as usize] += 1;
                self.active_total += 1;
            }
        }
    }

    /// The parts a snapshot stores besides the table.
    pub(crate) fn clock_state(&self) -> ClockState {
        ClockState {
            generation: self.generation,
            in_generation: self.in_generation,
            clock: self.clock,
            closed_early: self.closed_early,
            insertions: self.insertions,
            seed: self.seed,
            rng: self.rng.state(),
        }
    }

    pub(crate) fn table(&self) -> &Table {
        &self.table
    }

    /// Rebuilds a filter from validated snapshot parts.
    pub(crate) fn restore(plan_of: SlidingBloom, table: Table, clock: ClockState) -> SlidingBloom {
        let modulus = u64::from(plan_of.plan.tag_modulus);
        let tag = (clock.generation % modulus) as u32;
        let ages = table.ages(
            tag,
            plan_of.plan.tag_modulus,
            plan_of.plan.generations as u32,
        );
        let mut restored = SlidingBloom {
            table,
            active: plan_of.active.clone(),
            active_total: 0,
            active_slot: 0,
            generation: clock.generation,
            tag,
            ages,
            in_generation: clock.in_generation,
            scan_credit: (u128::from(clock.in_generation) * u128::from(plan_of.plan.scan_quota)
                % u128::from(plan_of.plan.stride_credit)) as u64,
            clock: clock.clock,
            epoch: clock.generation - clock.closed_early,
            closed_early: clock.closed_early,
            insertions: clock.insertions,
            seed: clock.seed,
            rng: SplitMix64::new(clock.rng),
            ..plan_of
        };
        restored.recount_active();
        restored.set_epoch(restored.epoch);
        restored
    }
}

/// The generation clock and generator, as stored in snapshots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ClockState {
    pub(crate) generation: u64,
    pub(crate) in_generation: u64,
    pub(crate) clock: TimeClock,
    /// At most `generation` (checked by the decoder).
    pub(crate) closed_early: u64,
    pub(crate) insertions: u64,
    pub(crate) seed: u64,
    pub(crate) rng: u64,
}

#[cfg(test)]
mod tests;
