//! Capacity planning: generations, tag and remainder widths, and table size from (n, m, ε).

use crate::lines::LineShape;
use ddf_param::{MAX_STATE_BITS, ParamError, checked_mul, ensure_probability, ensure_range};
use shape::{BucketShape, ShapeError, bucket_shape, line_key_space, line_shape};

/// Cells per bucket of snapshot layouts 3 and 4, and the fewest a bucket
/// of the aligned layout holds.
pub const CELLS_PER_BUCKET: usize = 4;

/// The most cells a bucket of the aligned layout holds: more would
/// compare more cells per query (a wider remainder for the same rate)
/// and could overflow the lane sums of the occupancy count.
pub const MAX_CELLS_PER_BUCKET: u32 = 8;

/// The default design load: the largest fraction of the table's cells that
/// active entries may fill.
///
/// The table is sized so that the most entries that can be active at once,
/// `(c + 1)·⌈n/c⌉`, fill at most this fraction of its cells. A two-choice
/// table of 4-cell buckets with relocation places every item up to an active
/// load of about 0.96; past that the walks grow long and entries start to
/// reach the stash. Below it, insertion time grows with the load (the share
/// of insertions that must relocate an entry): 0.90 trades about 4 % more
/// space than 0.94 for inserts about a third faster. See the crate
/// documentation for the measurements; [`SlidingBloom::with_design_load`]
/// picks another point.
///
/// [`SlidingBloom::with_design_load`]: crate::SlidingBloom::with_design_load
pub const DESIGN_LOAD: f64 = 0.90;

/// The design load of least-space plans ([`LayoutChoice::LeastSpace`]), or
/// the request's own if it is higher.
///
/// Relocation places every entry up to an active load of about 0.96 (the
/// first stash entries appear at 0.97), so 0.95 keeps a margin below that
/// and the stash empty (`sliding/stash-stays-empty-least-space` checks it
/// over 10^7 distinct insertions at `n = 10^6`). Against
/// [`DESIGN_LOAD`] it saves about a bit per element for five times the
/// relocation moves per insertion of a new item (1.6 against 0.32 at
/// `n = 10^6`, `ε = 2^-10`).
pub const LEAST_SPACE_LOAD: f64 = 0.95;

/// The design loads accepted: above 0.96 entries start to reach the stash;
/// at 1/4 the table has as many cells as the most active entries per bucket
/// and more would only waste space.
pub const DESIGN_LOAD_RANGE: std::ops::RangeInclusive<f64> = 0.25..=0.96;

/// Extra buckets, in multiples of `√b`, on top of the `b` the design load asks for.
///
/// A finite table fills less reliably than the asymptotic threshold of
/// two-choice hashing, by a margin that shrinks like `1/√B`: with no margin,
/// about one filter in twelve below 100 buckets sent an entry to the stash
/// over 40 windows of distinct items; with `2√b` extra buckets none of 9,000
/// filters of windows 1 to 250 did. The margin costs 0.4 % of the table at
/// `n = 10^6` and 1.2 % at `n = 10^5`.
const SMALL_TABLE_MARGIN: f64 = 2.0;

/// How much faster than one sweep per `c + 1` generations the scan may run
/// to save a tag bit: a sweep takes at least `⌈(c + 1)/4⌉` generations.
///
/// A tag of `s` bits counts generations modulo `2^s`; an entry is read
/// correctly while its age is below `2^s`, so with a sweep of `k`
/// generations (no entry older than `c + k`, see
/// [`SlidingBloom::sweep_generations`](crate::SlidingBloom::sweep_generations))
/// `s` needs `c + k + 1 ≤ 2^s`. §2.4's counter modulo `2c + 3` is the case
/// `k = c + 1` with a spare value. Letting `k` fall to a quarter of `c + 1`
/// saves a tag bit on `⌈log₂(2c + 3)⌉` for every `c` from `2^(s−1) − 1` up
/// to `c + 1 + ⌈(c + 1)/4⌉ = 2^s` (about three fifths of each width's
/// range), for at most four times the paper's scanning, about one bucket
/// per insertion.
pub const SCAN_SPEEDUP: u64 = 4;

/// Buckets the scan visits at a time (§2.5 paces it at a bucket per
/// insertion or less): it waits until the insertions of a generation have
/// earned this many, then visits them in one loop, so the setup of a visit
/// (the lane constants, the position, the bounds) is paid once per stride
/// rather than once per bucket. Each generation still pays its whole quota
/// by its end, so the sweep's deadline is unchanged.
pub(crate) const SCAN_STRIDE: u64 = 8;

/// 64-bit words of counters every filter keeps besides its cells: the
/// generation, its tag and insertions, the scan's position and credit, the
/// clock's latest time, regressions, epoch and early closes, the active
/// total, the insertions, the relocation generator and its seed, the
/// occupied cells, relocation moves, stash overflows and the stash length.
/// Counted in `memory_bits` (the paper's `O(log n)` bits of counters).
pub const COUNTER_WORDS: u64 = 17;

/// The widest cell: remainder plus tag bits.
const MAX_CELL_BITS: u32 = ddf_bits::MAX_CELL_BITS;

/// The most generations searched when minimising space over `c` (the optimum
/// is near `log₂(1/ε)`, below 32 for every accepted `ε`).
const MAX_FREE_GENERATIONS: u64 = 256;

/// How many distinct generation sizes the slack search tries before it takes
/// a size that is feasible by construction.
const SLACK_SEARCH_STEPS: u64 = 1 << 20;

/// How many generation counts past the fewest feasible one are compared.
const MAX_CLASS_SEARCH: u64 = 4096;

/// How far beyond the window an item may still be reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Slack {
    /// At most this many insertions (count windows) or time units (time
    /// windows) beyond the window: the paper's `m`.
    AtMost(u64),
    /// Whatever slack gives the least space: the paper's `m = ∞`, an
    /// `(n, ε)`-sliding Bloom filter.
    LeastSpace,
}

/// What a filter's parameters cost and promise, known before its table is
/// allocated (from [`SlidingBloom::table_sizing`](crate::SlidingBloom::table_sizing)):
/// planners compare candidates without building them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sizing {
    /// Generations `c`.
    pub generations: u64,
    /// The effective slack `m` (insertions or time units).
    pub slack: u64,
    /// Table bits `B·4·(r + s)`: the cells.
    pub table_bits: u64,
    /// `memory_bits` of the new filter: the cells, the stash's
    /// [`STASH_CAPACITY`](crate::STASH_CAPACITY) reserved entries and the
    /// counters ([`COUNTER_WORDS`] words, plus `c + 1` per-generation
    /// counts for time windows).
    pub memory_bits: u64,
    /// Buckets `B`.
    pub buckets: u64,
    /// The guaranteed false-positive bound, at most `ε` (§2.1).
    pub false_positive_bound: f64,
    /// Where the bits go, per window element.
    pub breakdown: SpaceBreakdown,
    /// Expected memory accesses of one `observe` of an unseen item: two
    /// candidate buckets read, one written, and the incremental scan's
    /// share, `B` buckets per `k` generations.
    pub accesses: f64,
}

impl Sizing {
    /// The same numbers in the shape every family's sizing shares: no
    /// misses within the window, the false-positive bound for items older
    /// than window + slack.
    pub fn prediction(&self) -> ddf_core::Prediction {
        ddf_core::Prediction::exact_window(
            self.memory_bits,
            self.false_positive_bound,
            self.accesses,
        )
        .with_slack(self.slack)
    }
}

/// Where a filter's bits go, in bits per element of the window (per item of
/// the planned capacity for time windows); the parts sum to
/// [`total`](Self::total), `memory_bits / n`.
///
/// Theorem 1.1 prices `n' = n(1 + 1/c)` entries of `log₂(1/ε)` bits of hash
/// and `log₂ c + 1` of tag, with no cost for the dictionary itself; the
/// parts here name what a real table adds to that.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpaceBreakdown {
    /// `log₂(1/ε)`: the hash bits of one entry per window element, the
    /// leading term of both theorems.
    pub fingerprint: f64,
    /// `(n'/n − 1)·log₂(1/ε)`: the hashes of the `(c + 1)`-th generation
    /// (`n' = (c + 1)·⌈n/c⌉` entries may be active at once).
    pub extra_generation: f64,
    /// `(n'/n)·s`: the generation tags.
    pub tags: f64,
    /// `(n'/n)·(r − log₂(1/ε))`: remainder bits beyond `log₂(1/ε)`. A query
    /// compares the `2·b` cells of two buckets of a table at load `α`, so
    /// §2.1's union bound needs `log₂(2bα)` more bits than one comparison
    /// would, plus the rounding of `r` to a whole bit.
    pub bucket_compare: f64,
    /// `(bB − n')·(r + s)/n`: cells no active entry can fill, the design
    /// load `α` and the margin of small tables.
    pub unused_cells: f64,
    /// `B·(W − b·(r + s))/n`: the bits of each bucket's word that no cell
    /// uses (buckets are whole aligned words).
    pub padding: f64,
    /// The stash's reserved entries.
    pub stash: f64,
    /// The counters (clock, scan, generator, diagnostics).
    pub counters: f64,
    /// The sum: `memory_bits / n`.
    pub total: f64,
}

/// Whether generations advance by insertions or by the caller's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Clock {
    /// A generation is `⌈n/c⌉` insertions.
    Count,
    /// A generation is `⌈t/c⌉` time units.
    Time,
}

/// How the table lays out its buckets
/// ([`SlidingBloom::with_layout`](crate::SlidingBloom::with_layout)).
///
/// The planner picks [`Aligned`](Layout::Aligned) when it costs at most
/// [`ALIGNED_SPACE_MARGIN`] more space than [`Packed`](Layout::Packed), and
/// `Packed` otherwise; beyond the caches (a word table of at least
/// [`BEYOND_CACHE_BITS`]) it picks [`Line`](Layout::Line) instead when lines
/// meet the rate and take at most [`LINE_SPACE_MARGIN`] more space
/// ([`LayoutChoice`]). All three keep the same promises (no miss within the
/// window, the same false-positive bound for their geometry) and snapshot
/// alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Four cells per bucket, buckets of `4·(r + s)` bits packed end to end
    /// (snapshot layouts 3 and 4 store only this): the least space, but a
    /// bucket may straddle two words and, now and then, two cache lines.
    Packed,
    /// Each bucket one aligned machine word, a `u64` when four cells fit in
    /// it, else a `u128`, holding as many cells as fit,
    /// `b = ⌊W/(r + s)⌋` up to [`MAX_CELLS_PER_BUCKET`]: one load and one
    /// store of one cache line per bucket, and larger buckets leave fewer
    /// insertions with both buckets full. The bits of a word above its
    /// last cell are unused.
    Aligned,
    /// Each bucket one 64-byte cache line: `b = 32 − 2s` cells with
    /// 16-bit remainders and the tags in bit planes, or, for rates 16 bits
    /// miss, 16 cells whose remainders have `32 − s` bits (the 16 low ones
    /// in the cell's word, the others in planes like the tags). Probes
    /// without a branch on the contents, and two lines per item that
    /// balance themselves, so relocation is rare. For rates of about
    /// `2·b·α/2^16` or more with 16-bit remainders, down to about
    /// `2·16·α/2^(32 − s)` with wide ones.
    Line,
}

/// How much more table space than the packed layout the aligned one may
/// take and still be chosen: 1/8.
///
/// The aligned layout costs its words' unused bits and, with more cells per
/// bucket, a wider remainder: 2–10 % more bits per item at `n = 10^6` for
/// `ε` from `10^-2` to `10^-6` and slacks from `n/100` to `∞`. In steady
/// state at DRAM size it observes several times faster than the packed
/// layout with cells wider than 16 bits (`cargo xtask bench-growth`).
/// Beyond this margin (small windows with slacks of a few generations'
/// worth, whose tags are wide) the packed layout is kept.
pub const ALIGNED_SPACE_MARGIN: f64 = 0.125;

/// Tables from this size on, 8 MiB, are beyond the caches a core can count
/// on; they go on huge pages ([`ddf_bits::pages`]), and there each bucket
/// read is a miss.
///
/// Two rules follow. A word table this large is laid out in lines when
/// lines meet the rate and take at most [`LINE_SPACE_MARGIN`] more space
/// ([`LayoutChoice::Auto`]): lines almost never relocate, and in steady
/// state at windows of 2^22 and 2^25 (`cargo xtask bench-growth`, against
/// the row "sliding Bloom, words") their batches take 0.7–0.8 times the
/// one-line floor against 1.0–1.8 for the word layout, and one by one the
/// two are within 15 % either way; in the caches the word layouts' fewer
/// bits win. And a
/// table this large requests the lines relocation will read before
/// reading them, one by one and, in batches, a few items ahead; in the
/// caches the requests would only add instructions (a third of a
/// relocation's, `examples/observe_loop` under callgrind). A fixed size
/// keeps plans the same on every machine.
pub const BEYOND_CACHE_BITS: u64 = 1 << 26;

/// How much more table space than the word layout lines may take and still
/// be chosen beyond the caches: 1/4 (narrow lines take 21–23 % more at
/// `fpr(1e-3)`, their 16-bit remainders wider than the rate needs; wide
/// lines about as much as words at `fpr(1e-6)`).
pub const LINE_SPACE_MARGIN: f64 = 0.25;

/// Who picks the bucket layout, and to what end
/// ([`SlidingBloom::planned`](crate::SlidingBloom::planned),
/// [`SlidingBloom::table_sizing_with`](crate::SlidingBloom::table_sizing_with)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum LayoutChoice {
    /// What [`SlidingBloom::new`](crate::SlidingBloom::new) does: the
    /// aligned or packed layout by [`ALIGNED_SPACE_MARGIN`]; from
    /// [`BEYOND_CACHE_BITS`] on, lines within [`LINE_SPACE_MARGIN`].
    #[default]
    Auto,
    /// The word layouts, whatever the size: [`Auto`](Self::Auto) without
    /// lines, the aligned or packed layout by [`ALIGNED_SPACE_MARGIN`] at
    /// the request's design load. What a memory budget plans with: a
    /// line's 16-bit remainders make its size nearly flat in `ε`, so a
    /// search over `ε` would jump, and in the caches these are the
    /// default's own layouts and speed.
    Words,
    /// The least space, whatever the size or the speed: the packed or
    /// aligned layout, whichever takes fewer bits, never lines, at design
    /// load [`LEAST_SPACE_LOAD`] (or the request's, if higher), with the
    /// bucket count and remainder width of fewest bits that keep the rate
    /// (a remainder a bit narrower over more buckets where rounding it up
    /// would cost more). Within 2.5 bits per element of the construction
    /// with an ideal succinct dictionary at every row of `cargo xtask
    /// tables`' `sliding-space` (`sliding/least-space-near-succinct`), for
    /// 1.6 relocation moves per insertion of a new item against the
    /// default's 0.32 (`n = 10^6`, `ε = 2^-10`) and, with cells wider than
    /// 16 bits packed across words, three to four times the default's
    /// time an observe (crate documentation, "The least space").
    LeastSpace,
    /// This layout.
    Fixed(Layout),
}

/// What the caller asked for; the plan is a pure function of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Request {
    pub(crate) clock: Clock,
    /// `n` (insertions) or `t` (time units).
    pub(crate) window: u64,
    pub(crate) slack: Slack,
    /// Insertions the table is sized for per window: `n` for count windows.
    pub(crate) capacity: u64,
    /// `c` fixed by the caller, or chosen by the plan.
    pub(crate) generations: Option<u64>,
    pub(crate) fpr: f64,
    /// The design load, in [`DESIGN_LOAD_RANGE`].
    pub(crate) load: f64,
    /// How buckets are laid out: fixed (a snapshot's), or chosen by the
    /// plan (`None`, see [`LayoutChoice`]).
    pub(crate) layout: Option<Layout>,
    /// With `layout` `None`: never lines ([`LayoutChoice::Words`] and
    /// [`LayoutChoice::LeastSpace`]).
    pub(crate) words_only: bool,
    /// How buckets and remainder width are fitted to the load and rate.
    pub(crate) fit: Fit,
}

/// How a plan fits its bucket count `B` and remainder width `r` to the
/// design load `α` and the rate `ε`; both keep §2.1's bound
/// `2n'/(B·(2^r − 1)) ≤ ε` and a load of at most `α`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Fit {
    /// `B` from the design load, then the least `r` that meets the rate
    /// over those buckets: the rule of every plan of snapshot layouts 3 to
    /// 5, and of [`LayoutChoice::Auto`] and [`LayoutChoice::Words`].
    Load,
    /// The `(B, r)` of fewest table bits: where `r` rounds up by most of a
    /// bit, a bit narrower over more buckets (a lower load) costs less.
    /// What [`LayoutChoice::LeastSpace`] plans with.
    Bits,
}

impl Request {
    /// The request with its layout chosen as `choice` says.
    pub(crate) fn with_choice(self, choice: LayoutChoice) -> Self {
        let (layout, words_only) = match choice {
            LayoutChoice::Auto => (None, false),
            LayoutChoice::Words => (None, true),
            LayoutChoice::LeastSpace => {
                return Request {
                    layout: None,
                    words_only: true,
                    fit: Fit::Bits,
                    load: self.load.max(LEAST_SPACE_LOAD),
                    ..self
                };
            }
            LayoutChoice::Fixed(layout) => (Some(layout), false),
        };
        Request {
            layout,
            words_only,
            ..self
        }
    }

    /// A count window of `window` insertions, with the default design load.
    pub(crate) fn count(window: u64, slack: Slack, generations: Option<u64>, fpr: f64) -> Self {
        Request {
            clock: Clock::Count,
            window,
            slack,
            capacity: window,
            generations,
            fpr,
            load: DESIGN_LOAD,
            layout: None,
            words_only: false,
            fit: Fit::Load,
        }
    }

    /// A time window of `span` units planned for `capacity` insertions per
    /// span, with the default design load.
    pub(crate) fn time(span: u64, slack: Slack, capacity: u64, fpr: f64) -> Self {
        Request {
            clock: Clock::Time,
            window: span,
            slack,
            capacity,
            generations: None,
            fpr,
            load: DESIGN_LOAD,
            layout: None,
            words_only: false,
            fit: Fit::Load,
        }
    }
}

/// The geometry derived from a [`Request`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Plan {
    pub(crate) request: Request,
    /// How the table lays out its buckets.
    pub(crate) layout: Layout,
    /// `c`: generations per window.
    pub(crate) generations: u64,
    /// `⌈window/c⌉`: insertions (count) or time units (time) per generation.
    pub(crate) generation_len: u64,
    /// `⌈capacity/c⌉`: insertions a generation is planned to take.
    pub(crate) generation_capacity: u64,
    /// `(c + 1)·generation_len − window − δ`: how far beyond the window an
    /// item may be reported (δ = 1 for counts, 0 for time; see [`retention_excess`]).
    pub(crate) slack: u64,
    /// `(c + 1)·generation_capacity`: the most entries active at once.
    pub(crate) max_active: u64,
    /// `2^s`: the generation counter's modulus (§2.4 uses `2c + 3`; see
    /// [`SCAN_SPEEDUP`]).
    pub(crate) tag_modulus: u32,
    /// `s`, the fewest bits with `c + ⌈(c + 1)/4⌉ + 1 ≤ 2^s` ([`tag_bits_for`]).
    pub(crate) tag_bits: u32,
    /// `k = 2^s − c − 1`: generations in which the scan sweeps the table.
    pub(crate) sweep_generations: u64,
    /// Bits of the stored remainder `r`.
    pub(crate) remainder_bits: u32,
    /// Buckets `B`.
    pub(crate) buckets: u64,
    /// Cells per bucket `b`.
    pub(crate) cells_per_bucket: u32,
    /// Bits a bucket occupies: its word, 64 or 128 (aligned), or
    /// `4·(r + s)` (packed).
    pub(crate) bucket_bits: u32,
    /// `⌈B/k⌉`: buckets the scan visits per generation, so that a full
    /// sweep takes at most `k` generations.
    pub(crate) scan_quota: u64,
    /// `SCAN_STRIDE · generation_capacity`: the scan credit (in units of
    /// `1/generation_capacity` bucket) that pays one stride.
    pub(crate) stride_credit: u64,
}

impl Plan {
    /// Plans a filter, or explains which parameter makes it impossible.
    pub(crate) fn new(request: Request) -> Result<Plan, ParamError> {
        if request.layout.is_some() {
            return Self::with_layout(request);
        }
        let with = |layout| {
            Self::with_layout(Request {
                layout: Some(layout),
                ..request
            })
        };
        // The packed layout's refusal is the one to report: it needs the
        // least space, so whatever it refuses the aligned one refuses too.
        let packed = with(Layout::Packed)?;
        // A plan fitted for the fewest bits takes aligned words only where
        // they cost no more.
        let margin = if request.fit == Fit::Bits {
            0.0
        } else {
            ALIGNED_SPACE_MARGIN
        };
        let words = match with(Layout::Aligned) {
            Ok(aligned)
                if aligned.table_bits() as f64 <= packed.table_bits() as f64 * (1.0 + margin) =>
            {
                aligned
            }
            _ => packed,
        };
        if request.words_only || words.table_bits() < BEYOND_CACHE_BITS {
            return Ok(words);
        }
        // Beyond the caches, lines if they meet the request within the
        // margin; their refusals (a rate even wide lines miss, tags too
        // wide for a line) leave the word layout.
        match with(Layout::Line) {
            Ok(line)
                if line.table_bits() as f64
                    <= words.table_bits() as f64 * (1.0 + LINE_SPACE_MARGIN) =>
            {
                Ok(line)
            }
            _ => Ok(words),
        }
    }

    /// Plans a filter in the layout the request fixes.
    fn with_layout(request: Request) -> Result<Plan, ParamError> {
        let window_name = match request.clock {
            Clock::Count => "window",
            Clock::Time => "time_span",
        };
        ensure_range(window_name, request.window, 1..=u64::MAX)?;
        ensure_range("capacity", request.capacity, 1..=u64::MAX)?;
        ensure_probability("fpr", request.fpr)?;
        if !DESIGN_LOAD_RANGE.contains(&request.load) {
            return Err(ParamError::new(
                "load",
                request.load,
                "a design load in 0.25..=0.96",
            ));
        }
        let c = match request.generations {
            Some(c) => ensure_range("generations", c, 1..=request.window)?,
            None => choose_generations(&request)?,
        };
        let plan = Self::with_generations(request, c).map_err(|e| {
            // Cells too wide for this slack although the filter fits with
            // the generations of least space: blame the slack.
            match request.slack {
                Slack::AtMost(m)
                    if e.param() == "fpr"
                        && request.generations.is_none()
                        && Self::with_generations(request, free_generations(&request)).is_ok() =>
                {
                    ParamError::new(
                        "slack",
                        m,
                        format!("a larger slack for this rate: {}", e.expected()),
                    )
                }
                _ => e,
            }
        })?;
        if let Slack::AtMost(m) = request.slack
            && plan.slack > m
        {
            // Only reachable with generations fixed by the caller.
            return Err(ParamError::new(
                "generations",
                c,
                format!(
                    "enough generations for a slack of at most {m} (this c gives {})",
                    plan.slack
                ),
            ));
        }
        Ok(plan)
    }

    /// The geometry for exactly `c` generations.
    fn with_generations(request: Request, c: u64) -> Result<Plan, ParamError> {
        let window_name = match request.clock {
            Clock::Count => "window",
            Clock::Time => "time_span",
        };
        let generation_len = request.window.div_ceil(c);
        let generation_capacity = request.capacity.div_ceil(c);
        let slack = retention_excess(request.clock, request.window, c);
        // Tags run over 0..2^s: at most 31 bits leaves a remainder bit.
        let tag_bits = tag_bits_for(c)
            .filter(|&s| s < MAX_CELL_BITS)
            .ok_or_else(|| {
                ParamError::new(
                    "generations",
                    c,
                    "at most 2^30 − 2^28 generations, so that a tag counting c + ⌈(c + 1)/4⌉ + 1 \
                     generations fits a 32-bit cell with a remainder",
                )
            })?;
        let tag_modulus = 1u32 << tag_bits;
        let sweep_generations = u64::from(tag_modulus) - c - 1;
        // After the tag check, so `c + 1` cannot overflow.
        let max_active = checked_mul("capacity", c + 1, generation_capacity)?;
        let stride_credit = checked_mul("capacity", SCAN_STRIDE, generation_capacity)?;
        let layout = request.layout.unwrap_or(Layout::Aligned);
        let shape = match layout {
            Layout::Packed => bucket_shape(
                &request,
                max_active,
                tag_bits,
                CELLS_PER_BUCKET as u32,
                layout,
            ),
            Layout::Line => line_shape(&request, max_active, tag_bits),
            Layout::Aligned => (CELLS_PER_BUCKET as u32..=MAX_CELLS_PER_BUCKET)
                .filter_map(|b| bucket_shape(&request, max_active, tag_bits, b, layout).ok())
                // Least space; of equal space, the larger buckets.
                .min_by_key(|s| (s.buckets.saturating_mul(u64::from(s.word)), u32::MAX - s.cells))
                .map_or_else(
                    || {
                        let b = CELLS_PER_BUCKET as u32;
                        bucket_shape(&request, max_active, tag_bits, b, layout)
                    },
                    Ok,
                ),
        }
        .map_err(|e| match e {
            ShapeError::Capacity => ParamError::new(
                "capacity",
                request.capacity,
                format!("a table of at most {MAX_STATE_BITS} bits (2^40)"),
            ),
            ShapeError::Line(remainder_bits) => ParamError::new(
                "fpr",
                request.fpr,
                format!(
                    "a rate that a line's remainders meet (at most {} bits with {tag_bits} tag \
                     bits): this needs {remainder_bits} bits",
                    2 * LineShape::LOW_BITS - tag_bits
                ),
            ),
            ShapeError::LineTags => ParamError::new(
                "generations",
                c,
                format!(
                    "at most {} tag bits in a line: this needs {tag_bits} for {c} generations",
                    LineShape::MAX_TAG_BITS
                ),
            ),
            ShapeError::Cell(remainder_bits) => {
                let (param, value) = match request.generations {
                    Some(_) => ("generations", c.to_string()),
                    None => ("fpr", request.fpr.to_string()),
                };
                ParamError::new(
                    param,
                    value,
                    format!(
                        "a cell of at most {MAX_CELL_BITS} bits: this needs a {remainder_bits}-bit remainder \
                         and a {tag_bits}-bit tag for {c} generations"
                    ),
                )
            }
        })?;
        let BucketShape {
            buckets,
            cells: cells_per_bucket,
            word,
            remainder_bits,
        } = shape;
        let bucket_bits = match layout {
            Layout::Packed => CELLS_PER_BUCKET as u32 * (remainder_bits + tag_bits),
            Layout::Aligned | Layout::Line => word,
        };
        let bits = checked_mul(window_name, buckets, u64::from(bucket_bits))?;
        if bits > MAX_STATE_BITS {
            return Err(ParamError::new(
                "capacity",
                request.capacity,
                format!("a table of at most {MAX_STATE_BITS} bits (2^40), not {bits}"),
            ));
        }
        Ok(Plan {
            request,
            layout,
            generations: c,
            generation_len,
            generation_capacity,
            slack,
            max_active,
            tag_modulus,
            tag_bits,
            sweep_generations,
            remainder_bits,
            buckets,
            cells_per_bucket,
            bucket_bits,
            scan_quota: buckets.div_ceil(sweep_generations),
            stride_credit,
        })
    }

    /// Table bits: `B` buckets of their bits each.
    pub(crate) fn table_bits(&self) -> u64 {
        self.buckets * u64::from(self.bucket_bits)
    }

    /// Cells of the table, `B · b`.
    pub(crate) fn cells(&self) -> u64 {
        self.buckets * u64::from(self.cells_per_bucket)
    }

    /// Bits of one stash entry: its bucket, remainder and tag.
    pub(crate) fn stash_entry_bits(&self) -> u64 {
        let bucket_bits = u64::from(64 - (self.buckets - 1).leading_zeros()).max(1);
        bucket_bits + u64::from(self.remainder_bits + self.tag_bits)
    }

    /// The stash's reserved entries.
    pub(crate) fn stash_bits(&self) -> u64 {
        crate::STASH_CAPACITY as u64 * self.stash_entry_bits()
    }

    /// The counters: [`COUNTER_WORDS`] words, plus one word per generation
    /// of the last `c + 1` for time windows (their active entries).
    pub(crate) fn counter_bits(&self) -> u64 {
        let per_generation = match self.request.clock {
            Clock::Count => 0,
            Clock::Time => self.generations + 1,
        };
        64 * (COUNTER_WORDS + per_generation)
    }

    /// Everything the filter holds: cells, stash and counters.
    pub(crate) fn memory_bits(&self) -> u64 {
        self.table_bits() + self.stash_bits() + self.counter_bits()
    }

    /// Where the bits go ([`SpaceBreakdown`]), per element of the capacity.
    pub(crate) fn breakdown(&self) -> SpaceBreakdown {
        let n = self.request.capacity as f64;
        let log_eps = (1.0 / self.request.fpr).log2();
        let active = self.max_active as f64 / n;
        let cell = f64::from(self.remainder_bits + self.tag_bits);
        let cells = self.cells() as f64;
        SpaceBreakdown {
            fingerprint: log_eps,
            extra_generation: (active - 1.0) * log_eps,
            tags: active * f64::from(self.tag_bits),
            bucket_compare: active * (f64::from(self.remainder_bits) - log_eps),
            unused_cells: (cells - self.max_active as f64) * cell / n,
            padding: (self.table_bits() as f64 - cells * cell) / n,
            stash: self.stash_bits() as f64 / n,
            counters: self.counter_bits() as f64 / n,
            total: self.memory_bits() as f64 / n,
        }
    }

    /// The cost and guarantee of this plan.
    pub(crate) fn sizing(&self) -> Sizing {
        Sizing {
            generations: self.generations,
            slack: self.slack,
            table_bits: self.table_bits(),
            memory_bits: self.memory_bits(),
            breakdown: self.breakdown(),
            buckets: self.buckets,
            false_positive_bound: self.false_positive_bound(),
            accesses: 3.0
                + self.buckets as f64
                    / (self.sweep_generations as f64 * self.generation_capacity as f64),
        }
    }

    /// The number of distinct keys `(bucket pair, remainder)`, `B·(2^r − 1)/2`:
    /// the hash range `M` of §2.1 for this table.
    pub(crate) fn key_space(&self) -> f64 {
        match self.layout {
            // Remainders with a zero low half are not stored in lines.
            Layout::Line => line_key_space(self.buckets, self.remainder_bits),
            Layout::Packed | Layout::Aligned => {
                self.buckets as f64 * (2f64.powi(self.remainder_bits as i32) - 1.0) / 2.0
            }
        }
    }

    /// The shape of the lines, for a plan of [`Layout::Line`].
    pub(crate) fn line_shape(&self) -> Option<LineShape> {
        match self.layout {
            Layout::Line => {
                LineShape::new(self.tag_bits, self.remainder_bits > LineShape::LOW_BITS)
            }
            Layout::Packed | Layout::Aligned => None,
        }
    }

    /// The guaranteed false-positive bound: `max_active / key_space` (§2.1).
    pub(crate) fn false_positive_bound(&self) -> f64 {
        self.max_active as f64 / self.key_space()
    }
}

/// The tag width `s` for `c` generations: the fewest bits whose `2^s` ages
/// cover the `c + 1` active generations and a sweep of at least
/// `⌈(c + 1)/`[`SCAN_SPEEDUP`]`⌉` generations; `None` beyond 31 bits.
pub(crate) fn tag_bits_for(c: u64) -> Option<u32> {
    let ages = c
        .checked_add(1)?
        .checked_add((c + 1).div_ceil(SCAN_SPEEDUP))?;
    let bits = 64 - (ages - 1).leading_zeros();
    (bits <= 31).then_some(bits.max(1))
}

/// How far beyond the window `c` generations of `⌈w/c⌉` remember an item.
///
/// Count windows: an item among the last `k` insertions has age `≤ k`; with
/// generations of `g` insertions it is reported up to age `(c + 1)·g − 1`
/// (`ddf_theory::sliding_bloom::retention`), so the slack is that minus `n`.
/// Time windows: an item of timestamp `ts` is in the window while
/// `now − ts < t` and is reported while `now − ts < (c + 1)·d`, a slack of
/// `(c + 1)·d − t`.
pub(crate) fn retention_excess(clock: Clock, window: u64, c: u64) -> u64 {
    let len = window.div_ceil(c);
    let reach = (u128::from(c) + 1) * u128::from(len);
    let delta = match clock {
        Clock::Count => 1,
        Clock::Time => 0,
    };
    u64::try_from(reach - u128::from(window) - delta).unwrap_or(u64::MAX)
}

/// The generations of least table space, whatever the slack.
fn free_generations(request: &Request) -> u64 {
    let upper = request.window.min(MAX_FREE_GENERATIONS);
    (1..=upper)
        .min_by_key(|&c| (table_bits_or_max(request, c), c))
        .unwrap_or(1)
}

/// Table bits with `c` generations, `u64::MAX` if that plan is impossible.
fn table_bits_or_max(request: &Request, c: u64) -> u64 {
    Plan::with_generations(*request, c).map_or(u64::MAX, |p| p.table_bits())
}

/// The number of generations: least space among those that keep the slack.
fn choose_generations(request: &Request) -> Result<u64, ParamError> {
    let bits = |c: u64| table_bits_or_max(request, c);
    let free = free_generations(request);
    let m = match request.slack {
        Slack::LeastSpace => return Ok(free),
        Slack::AtMost(m) => m,
    };
    if retention_excess(request.clock, request.window, free) <= m {
        return Ok(free);
    }
    // A generation of g covers the window in c = ⌈w/g⌉ generations and
    // leaves a slack between g − δ and 2g − 1 − δ, so g ≤ (m + 1 + δ)/2 is
    // always feasible and g > m + δ never is. Search the generation sizes
    // downward from the largest that might fit: the first feasible ones have
    // the fewest generations, hence the least space past the optimum.
    let delta = match request.clock {
        Clock::Count => 1,
        Clock::Time => 0,
    };
    let sure = (m.saturating_add(1 + delta)) / 2;
    if sure == 0 {
        return Err(ParamError::new(
            "slack",
            m,
            "at least 1 time unit: time generations are whole units",
        ));
    }
    let window = request.window;
    let feasible = |c: u64| retention_excess(request.clock, window, c) <= m;
    // The fewest generations that keep the slack.
    let mut g = m.saturating_add(delta).min(window.div_ceil(free)).max(sure);
    let mut steps = 0;
    let fewest = loop {
        let c = window.div_ceil(g);
        if feasible(c) {
            break c;
        }
        steps += 1;
        if steps >= SLACK_SEARCH_STEPS || g == sure {
            break window.div_ceil(sure);
        }
        // The largest smaller generation size that needs more generations:
        // every size in (⌈w/c⌉ − 1, g] covers the window with the same c.
        g = (window.div_ceil(c) - 1).min(g - 1).max(sure);
    };
    // More generations with the same tag width cost no tag bit and shrink
    // the `(c + 1)/c` overhead: take the best feasible one in the class of
    // tags as wide as the fewest generations' (`tag_bits_for`).
    let class_end = match tag_bits_for(fewest) {
        Some(s) => {
            let mut end = fewest;
            // The largest c of the same width: c + ⌈(c + 1)/4⌉ + 1 ≤ 2^s.
            let mut step = 1u64 << s;
            while step > 0 {
                if tag_bits_for(end + step).is_some_and(|t| t <= s) {
                    end += step;
                }
                step /= 2;
            }
            end
        }
        None => fewest,
    };
    let last = class_end
        .min(window)
        .min(fewest.saturating_add(MAX_CLASS_SEARCH));
    let c = (fewest..=last)
        .filter(|&c| feasible(c))
        .min_by_key(|&c| (bits(c), c))
        .unwrap_or(fewest);
    Ok(c)
}

mod shape;
#[cfg(test)]
mod tests;
