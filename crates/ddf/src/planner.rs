//! The planner: from what a user needs to ranked filter configurations that build.
//!
//! Every number a [`Candidate`] predicts comes from `ddf-theory` (or from the
//! family's own sizing function, which calls it): nothing is tabulated here.

use ddf_core::{DuplicateFilter, ParamError, TimedFilter};
use ddf_param::ensure_probability;
use std::fmt;

/// The largest window (items, or expected arrivals per time window) planned
/// for: the state limit of every family.
const MAX_WINDOW: u64 = ddf_param::MAX_STATE_BITS;

/// The probability with which Poisson arrivals may overrun the capacity a
/// time-windowed candidate is sized for, per time slice (a generation).
const ARRIVAL_TAIL: f64 = 1e-9;

/// Expected memory accesses per operation above which a candidate is left
/// out unless the user raises the limit ([`Requirements::max_accesses`]).
const DEFAULT_MAX_ACCESSES: f64 = 64.0;

/// The seed of every candidate's own generators (and nothing else) unless
/// [`Requirements::seed`] sets one.
const DEFAULT_SEED: u64 = 0xddf0_5eed_0000_0001;

/// Windows up to which the queued candidate is planned: its theory sums over
/// the `c` insertions of each subfilter for every `L` compared, about 1.5 s
/// of planning per 2^20 window items in a release build.
#[cfg(all(feature = "queue", feature = "bloom"))]
const MAX_QUEUE_WINDOW: u64 = 1 << 20;

/// The most subfilters a queued candidate compares (§5.4's search range).
#[cfg(all(feature = "queue", feature = "bloom"))]
const MAX_QUEUE_SUBFILTERS: u64 = 64;

/// Which items a filter must answer for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Span {
    /// The last `w` insertions.
    Count(u64),
    /// The last `span` units of the caller's clock, with `rate` expected
    /// arrivals per unit (a Poisson stream is assumed for sizing).
    Time {
        /// The window `t`, in the caller's time unit.
        span: u64,
        /// Expected arrivals per time unit, `λ`.
        rate: f64,
    },
    /// The whole stream (`w = ∞`).
    Unbounded,
}

/// What a filter must do: the window, an error target or a memory budget
/// (or both), whether items in the window may be missed, the slack allowed.
///
/// ```
/// use ddf::{Requirements, plan};
///
/// // The last million events, at most 0.1% false positives, no misses.
/// let candidates = plan(&Requirements::count(1_000_000).target_fpr(0.001))?;
/// let best = &candidates[0];
/// assert!(best.fpr <= 0.001 && !best.false_negatives);
/// # Ok::<(), ddf::ParamError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Requirements {
    span: Span,
    target_fpr: Option<f64>,
    memory_bits: Option<u64>,
    false_negatives: bool,
    max_slack: Option<u64>,
    distinct_items: Option<f64>,
    max_accesses: f64,
    seed: u64,
}

impl Requirements {
    fn with_span(span: Span) -> Self {
        Requirements {
            span,
            target_fpr: None,
            memory_bits: None,
            false_negatives: false,
            max_slack: None,
            distinct_items: None,
            max_accesses: DEFAULT_MAX_ACCESSES,
            seed: DEFAULT_SEED,
        }
    }

    /// A window of the last `window` insertions.
    pub fn count(window: u64) -> Self {
        Self::with_span(Span::Count(window))
    }

    /// A window of the last `span` time units with `rate` expected arrivals
    /// per unit.
    pub fn time(span: u64, rate: f64) -> Self {
        Self::with_span(Span::Time { span, rate })
    }

    /// The whole stream.
    pub fn unbounded() -> Self {
        Self::with_span(Span::Unbounded)
    }

    /// The false-positive rate (an unseen item reported) not to exceed.
    #[must_use]
    pub fn target_fpr(mut self, fpr: f64) -> Self {
        self.target_fpr = Some(fpr);
        self
    }

    /// The state bits not to exceed.
    #[must_use]
    pub fn memory_budget(mut self, bits: u64) -> Self {
        self.memory_bits = Some(bits);
        self
    }

    /// Whether items within the window may be missed (false negatives).
    /// Default: no.
    #[must_use]
    pub fn allow_false_negatives(mut self, allowed: bool) -> Self {
        self.false_negatives = allowed;
        self
    }

    /// How far beyond the window an item may still be reported, in the
    /// window's unit. Default: any slack.
    #[must_use]
    pub fn max_slack(mut self, slack: u64) -> Self {
        self.max_slack = Some(slack);
        self
    }

    /// The number of distinct items the stream draws from (uniformly), for
    /// false-negative predictions and for unbounded filters that never forget.
    #[must_use]
    pub fn distinct_items(mut self, n: f64) -> Self {
        self.distinct_items = Some(n);
        self
    }

    /// The most memory accesses per operation accepted (default 64).
    #[must_use]
    pub fn max_accesses(mut self, accesses: f64) -> Self {
        self.max_accesses = accesses;
        self
    }

    /// Seeds the candidates' own generators (relocations, random
    /// replacement), for runs that replay exactly.
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The window asked for.
    pub fn span(&self) -> Span {
        self.span
    }

    /// One shard's requirements (for `plan_sharded`): window `span`, the
    /// memory budget split over `shards`, the slack limit mapped by `slack`.
    pub(crate) fn for_shard(&self, span: Span, shards: u64, slack: impl Fn(u64) -> u64) -> Self {
        Requirements {
            span,
            memory_bits: self.memory_bits.map(|m| (m / shards).max(1)),
            max_slack: self.max_slack.map(slack),
            ..self.clone()
        }
    }

    fn validate(&self) -> Result<Need, ParamError> {
        let target = self
            .target_fpr
            .map(|p| ensure_probability("target_fpr", p))
            .transpose()?;
        if let Some(m) = self.memory_bits {
            ddf_param::ensure_range("memory_bits", m, 1..=ddf_param::MAX_STATE_BITS)?;
        }
        if target.is_none() && self.memory_bits.is_none() {
            return Err(ParamError::new(
                "target_fpr",
                "none",
                "a target false-positive rate or a memory budget (or both)",
            ));
        }
        if let Some(n) = self.distinct_items
            && !(n.is_finite() && n >= 1.0)
        {
            return Err(ParamError::new("distinct_items", n, "a finite count ≥ 1"));
        }
        if !(self.max_accesses.is_finite() && self.max_accesses >= 1.0) {
            return Err(ParamError::new(
                "max_accesses",
                self.max_accesses,
                "a finite number ≥ 1",
            ));
        }
        let (items, time) = match self.span {
            Span::Count(w) => (ddf_param::ensure_range("window", w, 1..=MAX_WINDOW)?, None),
            Span::Time { span, rate } => {
                ddf_param::ensure_positive("span", span)?;
                let mean = span as f64 * rate;
                if !(rate.is_finite() && rate > 0.0 && mean <= MAX_WINDOW as f64) {
                    return Err(ParamError::new(
                        "rate",
                        rate,
                        format!("a positive rate with at most 2^40 arrivals per span of {span}"),
                    ));
                }
                let items = ddf_theory::stream::poisson_arrival_bound(mean, ARRIVAL_TAIL).ceil();
                (items as u64, Some((span, rate)))
            }
            Span::Unbounded => (0, None),
        };
        Ok(Need {
            items,
            time,
            unbounded: self.span == Span::Unbounded,
            target,
            budget: self.memory_bits,
            distinct: self.distinct_items,
            seed: self.seed,
        })
    }

    fn admits(&self, c: &Candidate) -> bool {
        (self.false_negatives || !c.false_negatives)
            && self.max_slack.is_none_or(|s| c.slack <= s)
            && self.memory_bits.is_none_or(|m| c.memory_bits <= m)
            && self.target_fpr.is_none_or(|p| c.fpr <= p)
            && c.accesses <= self.max_accesses
    }
}

/// Validated requirements, in the units the sizing functions take.
#[derive(Debug, Clone, Copy)]
struct Need {
    /// The count window, or the arrivals a time window is sized for
    /// (unbounded: 0).
    items: u64,
    /// `(t, λ)` of a time window.
    time: Option<(u64, f64)>,
    unbounded: bool,
    target: Option<f64>,
    budget: Option<u64>,
    distinct: Option<f64>,
    seed: u64,
}

/// A family and the parameters the planner chose for it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Config {
    /// [`ExactWindow::new`](ddf_exact::ExactWindow::new)`(window)`.
    #[cfg(feature = "exact")]
    Exact {
        /// `w`.
        window: u64,
    },
    /// [`Shf::new`](ddf_shf::Shf::new)`(window, hash_bits)`.
    #[cfg(feature = "shf")]
    Shf {
        /// `w`.
        window: u64,
        /// `h`.
        hash_bits: u32,
    },
    /// [`CompactShf::new`](ddf_shf::CompactShf::new)`(window, hash_bits)`.
    #[cfg(feature = "shf")]
    CompactShf {
        /// `w`.
        window: u64,
        /// `h`.
        hash_bits: u32,
    },
    /// [`Apbf::new`](ddf_apbf::Apbf::new)`(k, l, m)`, with time-based
    /// generations when `time_span` is set.
    #[cfg(feature = "apbf")]
    Apbf {
        /// Slices per item, `k`.
        k: u32,
        /// Extra slices, `l`.
        l: u32,
        /// Bits per slice, `m`.
        slice_bits: u64,
        /// The time window `t`, if generations also close by time.
        time_span: Option<u64>,
    },
    /// [`SlidingBloom::new`](ddf_sliding::SlidingBloom::new), or
    /// [`with_time_span`](ddf_sliding::SlidingBloom::with_time_span) when
    /// `capacity` is set.
    #[cfg(feature = "sliding")]
    Sliding {
        /// The window `n` (insertions or time units).
        window: u64,
        /// The slack asked for.
        slack: ddf_sliding::Slack,
        /// The false-positive bound `ε`.
        epsilon: f64,
        /// Insertions per time window the table is sized for (time windows).
        capacity: Option<u64>,
    },
    /// A [`Queue`](ddf_queue::Queue) of `subfilters` partitioned Bloom
    /// filters of `slices × slice_bits`, rotated every `capacity` insertions.
    #[cfg(all(feature = "queue", feature = "bloom"))]
    QueuedBloom {
        /// `L`.
        subfilters: usize,
        /// `c`.
        capacity: u64,
        /// Slices `k` of each subfilter.
        slices: u32,
        /// Bits per slice of each subfilter.
        slice_bits: u64,
    },
    /// [`PartitionedBloom::new`](ddf_bloom::PartitionedBloom::new)`(slices, slice_bits)`.
    #[cfg(feature = "bloom")]
    Bloom {
        /// `k`.
        slices: u32,
        /// `m`.
        slice_bits: u64,
    },
    /// [`Qht::new`](ddf_qht::Qht::new)`(rows, buckets_per_row, fingerprint_bits)`.
    #[cfg(feature = "qht")]
    Qht {
        /// `N`.
        rows: u64,
        /// `k`.
        buckets_per_row: usize,
        /// `s`.
        fingerprint_bits: u32,
    },
}

/// One configuration with what the theory predicts for it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Candidate {
    /// The family and its parameters.
    pub config: Config,
    /// State bits of the new filter (its `memory_bits()`).
    pub memory_bits: u64,
    /// Predicted false-positive rate: the probability that an item not
    /// seen within window + slack is reported, at the filter's worst point
    /// (or its bound, for the sliding Bloom filter).
    pub fpr: f64,
    /// Predicted false-negative rate among duplicates within the window on
    /// a uniform stream over the distinct items given (0 when guaranteed).
    pub fnr: f64,
    /// Whether items within the window can be missed.
    pub false_negatives: bool,
    /// How far beyond the window an item may still be reported, in the
    /// window's unit.
    pub slack: u64,
    /// Expected memory accesses (words, cache lines or table slots) of one
    /// `observe` of an unseen item.
    pub accesses: f64,
    /// The seed of the filter's own generators.
    pub seed: u64,
}

impl Candidate {
    fn new(config: Config, memory_bits: u64, fpr: f64, accesses: f64, seed: u64) -> Self {
        Candidate {
            config,
            memory_bits,
            fpr,
            fnr: 0.0,
            false_negatives: false,
            slack: 0,
            accesses,
            seed,
        }
    }

    fn with_slack(mut self, slack: u64) -> Self {
        self.slack = slack;
        self
    }

    fn with_misses(mut self, fnr: f64) -> Self {
        self.false_negatives = true;
        self.fnr = fnr;
        self
    }

    /// The family's name.
    pub fn family(&self) -> &'static str {
        match self.config {
            #[cfg(feature = "exact")]
            Config::Exact { .. } => "exact window",
            #[cfg(feature = "shf")]
            Config::Shf { .. } => "SHF",
            #[cfg(feature = "shf")]
            Config::CompactShf { .. } => "compact SHF",
            #[cfg(feature = "apbf")]
            Config::Apbf { .. } => "APBF",
            #[cfg(feature = "sliding")]
            Config::Sliding { .. } => "sliding Bloom",
            #[cfg(all(feature = "queue", feature = "bloom"))]
            Config::QueuedBloom { .. } => "queued Bloom",
            #[cfg(feature = "bloom")]
            Config::Bloom { .. } => "partitioned Bloom",
            #[cfg(feature = "qht")]
            Config::Qht { .. } => "QHT",
        }
    }

    /// Whether the filter's window is measured in time: build it with
    /// [`build_timed`](Self::build_timed) and drive it with `observe_at`.
    pub fn is_timed(&self) -> bool {
        match self.config {
            #[cfg(feature = "apbf")]
            Config::Apbf { time_span, .. } => time_span.is_some(),
            #[cfg(feature = "sliding")]
            Config::Sliding { capacity, .. } => capacity.is_some(),
            _ => false,
        }
    }

    /// The filter, ready to use (a time-windowed one is driven by
    /// insertion counts here; use [`build_timed`](Self::build_timed) for its clock).
    pub fn build(&self) -> Result<Box<dyn DuplicateFilter + Send>, ParamError> {
        match self.config {
            #[cfg(feature = "exact")]
            Config::Exact { window } => Ok(Box::new(ddf_exact::ExactWindow::new(window)?)),
            #[cfg(feature = "shf")]
            Config::Shf { window, hash_bits } => {
                Ok(Box::new(ddf_shf::Shf::new(window, hash_bits)?))
            }
            #[cfg(feature = "shf")]
            Config::CompactShf { window, hash_bits } => {
                Ok(Box::new(ddf_shf::CompactShf::new(window, hash_bits)?))
            }
            #[cfg(all(feature = "queue", feature = "bloom"))]
            Config::QueuedBloom {
                subfilters,
                capacity,
                slices,
                slice_bits,
            } => Ok(Box::new(ddf_queue::Queue::new(
                subfilters,
                capacity,
                |_| ddf_bloom::PartitionedBloom::new(slices, slice_bits),
            )?)),
            #[cfg(feature = "bloom")]
            Config::Bloom { slices, slice_bits } => Ok(Box::new(ddf_bloom::PartitionedBloom::new(
                slices, slice_bits,
            )?)),
            #[cfg(feature = "qht")]
            Config::Qht {
                rows,
                buckets_per_row,
                fingerprint_bits,
            } => Ok(Box::new(
                ddf_qht::Qht::new(rows, buckets_per_row, fingerprint_bits)?.with_seed(self.seed),
            )),
            #[cfg(any(feature = "apbf", feature = "sliding"))]
            _ => {
                let f: Box<dyn DuplicateFilter + Send> = self.build_windowed()?;
                Ok(f)
            }
        }
    }

    /// The filter behind [`TimedFilter`], for candidates whose window is
    /// measured in time ([`is_timed`](Self::is_timed)); other candidates give a
    /// [`ParamError`] naming `span`.
    pub fn build_timed(&self) -> Result<Box<dyn TimedFilter + Send>, ParamError> {
        if !self.is_timed() {
            return Err(ParamError::new(
                "span",
                self.family(),
                "a candidate planned for a time window",
            ));
        }
        self.build_windowed()
    }

    /// The families that have a time mode, as [`TimedFilter`]s.
    fn build_windowed(&self) -> Result<Box<dyn TimedFilter + Send>, ParamError> {
        match self.config {
            #[cfg(feature = "apbf")]
            Config::Apbf {
                k,
                l,
                slice_bits,
                time_span,
            } => {
                let f = ddf_apbf::Apbf::new(k, l, slice_bits)?;
                Ok(Box::new(match time_span {
                    Some(t) => f.with_time_span(t)?,
                    None => f,
                }))
            }
            #[cfg(feature = "sliding")]
            Config::Sliding {
                window,
                slack,
                epsilon,
                capacity,
            } => {
                let f = match capacity {
                    Some(c) => {
                        ddf_sliding::SlidingBloom::with_time_span(window, slack, c, epsilon)?
                    }
                    None => ddf_sliding::SlidingBloom::new(window, slack, epsilon)?,
                };
                Ok(Box::new(f.with_seed(self.seed)))
            }
            _ => Err(ParamError::new(
                "span",
                self.family(),
                "a family with a time mode (APBF, sliding Bloom)",
            )),
        }
    }
}

impl fmt::Display for Candidate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {:?}: {} bits, FPR {:.3e}, FNR {:.3e}{}, slack {}, {:.1} accesses",
            self.family(),
            self.config,
            self.memory_bits,
            self.fpr,
            self.fnr,
            if self.false_negatives {
                " (misses possible)"
            } else {
                ""
            },
            self.slack,
            self.accesses
        )
    }
}

/// The configurations that meet `req`, best first.
///
/// Every family with a theory for the window is sized — from the target
/// false-positive rate when one is given, else to fill the memory budget —
/// and kept if it meets every requirement (no false negatives unless
/// allowed, slack, memory, rate, accesses). **Ranking:** with a target rate,
/// least memory first; with a memory budget alone, least predicted error
/// (`FPR + FNR`) first; ties go to fewer memory accesses. An empty list means
/// no family meets the requirements (for example an unbounded stream with no
/// false negatives and no count of distinct items).
///
/// Fails with a [`ParamError`] naming the offending requirement when one is
/// out of range or neither a target nor a budget is given.
pub fn plan(req: &Requirements) -> Result<Vec<Candidate>, ParamError> {
    let need = req.validate()?;
    let mut all: Vec<Candidate> = Vec::new();
    if need.unbounded {
        #[cfg(feature = "bloom")]
        all.extend(sizing::bloom(&need));
        #[cfg(feature = "qht")]
        all.extend(sizing::qht(&need));
    } else {
        if need.time.is_none() {
            #[cfg(feature = "exact")]
            all.extend(sizing::exact(&need));
            #[cfg(feature = "shf")]
            all.extend(sizing::shf(&need));
            #[cfg(all(feature = "queue", feature = "bloom"))]
            all.extend(sizing::queued_bloom(&need));
        }
        #[cfg(feature = "apbf")]
        all.extend(sizing::apbf(&need));
        #[cfg(feature = "sliding")]
        all.extend(sizing::sliding(&need, req.max_slack));
    }
    all.retain(|c| req.admits(c));
    let by_memory = need.target.is_some();
    all.sort_by(|a, b| {
        let primary = if by_memory {
            a.memory_bits.cmp(&b.memory_bits)
        } else {
            (a.fpr + a.fnr).total_cmp(&(b.fpr + b.fnr))
        };
        primary
            .then(a.accesses.total_cmp(&b.accesses))
            .then(a.memory_bits.cmp(&b.memory_bits))
    });
    Ok(all)
}

/// One sizing function per family: parameters from the target (or the
/// budget), predictions from `ddf-theory`.
mod sizing {
    #[allow(unused_imports)]
    use super::{Candidate, Config, Need};

    /// The seconds-free slice of time a generation covers, `⌈t/l⌉`, and the
    /// arrivals it must hold for Poisson arrivals at rate `λ`.
    #[cfg(feature = "apbf")]
    fn arrivals_per(span: u64, parts: u64, rate: f64) -> (u64, u64) {
        let slice = span.div_ceil(parts.max(1));
        let mean = slice as f64 * rate;
        let cap = ddf_theory::stream::poisson_arrival_bound(mean, super::ARRIVAL_TAIL).ceil();
        (slice, (cap as u64).max(1))
    }

    /// Theorem 1's FIFO and counting dictionary: `w·(⌈log₂(w + 1)⌉ + 2·64)`
    /// bits, as `ExactWindow::theorem1_bits(64)` counts them. Four accesses:
    /// one dictionary lookup, the FIFO slot, the new and the evicted key's
    /// counters.
    #[cfg(feature = "exact")]
    pub(super) fn exact(need: &Need) -> Option<Candidate> {
        let w = need.items;
        let counter = u64::from(64 - w.leading_zeros());
        let bits = w.checked_mul(counter + 128)?;
        Some(Candidate::new(
            Config::Exact { window: w },
            bits,
            0.0,
            4.0,
            need.seed,
        ))
    }

    /// SHF and CSHF (sliding-window paper §3.2): the narrowest hash whose
    /// false-positive probability `1 − (1 − 2^−h)^w` meets the target, or the
    /// widest the budget holds (Algorithm 1's SETUP).
    #[cfg(feature = "shf")]
    pub(super) fn shf(need: &Need) -> Vec<Candidate> {
        use ddf_theory::shf::{cshf_hash_bits, shf_hash_bits, shf_memory_bits, stored_hashes_fp};
        let w = need.items;
        if w >= 1 << 32 {
            return Vec::new();
        }
        let wf = w as f64;
        let from_target = need
            .target
            .and_then(|p| (1..=64u32).find(|&h| stored_hashes_fp(f64::from(h), wf) <= p));
        let widest = |h: f64| (h >= 1.0).then(|| h.min(64.0) as u32);
        let (shf_h, cshf_h) = match (from_target, need.budget) {
            (Some(h), _) => (Some(h), Some(h)),
            (None, Some(m)) if need.target.is_none() => (
                widest(shf_hash_bits(m as f64, wf).floor()),
                widest(cshf_hash_bits(m as f64, wf).floor()),
            ),
            _ => (None, None),
        };
        let mut out = Vec::new();
        if let Some(h) = shf_h {
            let bits = shf_memory_bits(f64::from(h), wf).ceil() as u64;
            out.push(Candidate::new(
                Config::Shf {
                    window: w,
                    hash_bits: h,
                },
                bits,
                stored_hashes_fp(f64::from(h), wf),
                4.0,
                need.seed,
            ));
        }
        if let Some(h) = cshf_h {
            // A lookup scans the ring's w·h bits word by word; the insertion
            // writes one slot.
            let words = (wf * f64::from(h) / 64.0).ceil();
            out.push(Candidate::new(
                Config::CompactShf {
                    window: w,
                    hash_bits: h,
                },
                w * u64::from(h),
                stored_hashes_fp(f64::from(h), wf),
                words + 1.0,
                need.seed,
            ));
        }
        out
    }

    /// APBF (APBF paper §5): `(k, l)` by the crate's default peak NPWS for a
    /// target, or the pair with the least worst-point rate that the budget
    /// holds; `m` the smallest slice whose generation covers `w/l`
    /// insertions (or the arrivals of one time slice `⌈t/l⌉`).
    #[cfg(feature = "apbf")]
    pub(super) fn apbf(need: &Need) -> Option<Candidate> {
        use ddf_theory::apbf::{
            choose_parameters, false_positive, generation_size, query_cost,
            slice_bits_for_generation, steady_fill_ratios,
        };
        // The generation each (k, l) must hold, and the slice time.
        let generation = |l: u32| match need.time {
            Some((span, rate)) => {
                let (slice, cap) = arrivals_per(span, u64::from(l), rate);
                (cap, Some(slice))
            }
            None => (need.items.div_ceil(u64::from(l)), None),
        };
        let predict = |k: u32, l: u32, m: u64| {
            let g = generation_size(m as f64, f64::from(k));
            let r = steady_fill_ratios(k as usize, l as usize, m as f64, g, g);
            (
                false_positive(k as usize, &r),
                query_cost(k as usize, &r),
                g,
            )
        };
        let (k, l, m) = match (need.target, need.budget) {
            (Some(p), _) => {
                let (k, l) = choose_parameters(p, ddf_apbf::DEFAULT_NPWS)?;
                let (g, _) = generation(l);
                let m = slice_bits_for_generation(g as f64, f64::from(k));
                (k, l, m as u64)
            }
            (None, Some(budget)) => {
                let mut best: Option<(f64, u32, u32, u64)> = None;
                for k in 1..=32u32 {
                    for l in 1..=64u32 {
                        let m = budget / u64::from(k + l);
                        let (g, _) = generation(l);
                        if m == 0 || generation_size(m as f64, f64::from(k)) < g as f64 {
                            continue;
                        }
                        let (fp, _, _) = predict(k, l, m);
                        if best.is_none_or(|b| fp < b.0) {
                            best = Some((fp, k, l, m));
                        }
                    }
                }
                let (_, k, l, m) = best?;
                (k, l, m)
            }
            (None, None) => return None,
        };
        if m == 0 || m > ddf_param::MAX_STATE_BITS / u64::from(k + l) {
            return None;
        }
        let (fpr, cost, g) = predict(k, l, m);
        let (_, time_slice) = generation(l);
        // Slack: k generations (k·g insertions, or k·τ time units).
        let slack = match time_slice {
            Some(tau) => u64::from(k).saturating_mul(tau),
            None => u64::from(k).saturating_mul(g as u64),
        };
        // An unseen item: the query's expected slice reads, then k bit writes.
        let accesses = cost.accesses_false + f64::from(k);
        Some(
            Candidate::new(
                Config::Apbf {
                    k,
                    l,
                    slice_bits: m,
                    time_span: need.time.map(|(t, _)| t),
                },
                u64::from(k + l) * m,
                fpr,
                accesses,
                need.seed,
            )
            .with_slack(slack),
        )
    }

    /// The Naor–Yogev sliding Bloom filter: `ε` = the target, or the least
    /// `ε` whose table fits the budget (bisection on `log ε`; the table only
    /// grows as `ε` falls).
    #[cfg(feature = "sliding")]
    pub(super) fn sliding(need: &Need, max_slack: Option<u64>) -> Option<Candidate> {
        use ddf_sliding::{Sizing, Slack, SlidingBloom};
        let slack = max_slack.map_or(Slack::LeastSpace, Slack::AtMost);
        let (window, capacity) = match need.time {
            Some((span, _)) => (span, Some(need.items)),
            None => (need.items, None),
        };
        let size = |eps: f64| -> Option<Sizing> {
            match capacity {
                Some(c) => SlidingBloom::sizing_timed(window, slack, c, eps).ok(),
                None => SlidingBloom::sizing(window, slack, eps).ok(),
            }
        };
        let epsilon = match (need.target, need.budget) {
            (Some(p), _) => p,
            (None, Some(budget)) => {
                let fits = |eps: f64| size(eps).is_some_and(|s| s.table_bits <= budget);
                let (mut lo, mut hi) = (1e-12f64.ln(), 0.5f64.ln());
                if !fits(hi.exp()) {
                    return None;
                }
                for _ in 0..48 {
                    let mid = 0.5 * (lo + hi);
                    if fits(mid.exp()) {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
                hi.exp()
            }
            (None, None) => return None,
        };
        let s = size(epsilon)?;
        // Two candidate buckets read, one written, and the incremental scan's
        // share: B buckets per (c + 1) generations of ⌈n/c⌉ insertions.
        let per_round = (s.generations + 1) as f64 * need.items.div_ceil(s.generations) as f64;
        let accesses = 3.0 + s.buckets as f64 / per_round;
        Some(
            Candidate::new(
                Config::Sliding {
                    window,
                    slack,
                    epsilon,
                    capacity,
                },
                s.table_bits,
                s.false_positive_bound,
                accesses,
                need.seed,
            )
            .with_slack(s.slack),
        )
    }

    /// The queuing construction over partitioned Bloom subfilters (§5.4):
    /// `L` minimises the predicted `FPR + FNR` (Theorem 7, corrected
    /// Theorem 8) within the budget. Only with a budget: the construction
    /// trades misses at the window's edge for memory.
    #[cfg(all(feature = "queue", feature = "bloom"))]
    pub(super) fn queued_bloom(need: &Need) -> Option<Candidate> {
        use ddf_theory::bloom::{negative_query_accesses, partitioned_fp, slice_fill_ratio};
        use ddf_theory::numerics::argmin_int;
        use ddf_theory::queue::{capacity_for_window, fnr_queue, fpr_queue, optimal_subfilters};
        use ddf_theory::stream::expected_distinct;
        let budget = need.budget?;
        let w = need.items;
        if w > super::MAX_QUEUE_WINDOW {
            return None;
        }
        // A subfilter of `b` bits for `c` insertions: the slice count with
        // the least rate after `c` insertions.
        let shape = |b: f64, c: u64| -> Option<(u32, u64)> {
            let k = argmin_int(1..=u64::from(ddf_bloom::MAX_SLICES), |k| {
                let m = (b / k as f64).floor();
                if m < 1.0 {
                    f64::INFINITY
                } else {
                    partitioned_fp(c as f64, m, k as f64)
                }
            })?
            .arg as u32;
            let m = (b / f64::from(k)).floor() as u64;
            (m >= 1).then_some((k, m))
        };
        // A subfilter's FP_η after η insertions of which `distinct(η)` are
        // distinct items: all of them on an all-distinct stream (the
        // worst case, for the FPR), the expected count on the uniform stream
        // the FNR is predicted for (repeats set no new bits, and an older
        // subfilter's false positive is what rescues a dropped duplicate).
        let model = |b: f64, c: u64, distinct: fn(f64, f64) -> f64, alphabet: f64| {
            let s = shape(b, c);
            (
                move |eta: f64| {
                    s.map_or(1.0, |(k, m)| {
                        partitioned_fp(distinct(eta, alphabet), m as f64, f64::from(k))
                    })
                },
                |_: f64| 0.0,
            )
        };
        let all_distinct: fn(f64, f64) -> f64 = |eta, _| eta;
        let alphabet = need.distinct.unwrap_or(2f64.powi(64));
        let on_stream = |b: f64, c: u64| model(b, c, expected_distinct, alphabet);
        let max_l = super::MAX_QUEUE_SUBFILTERS.min(w);
        let l = optimal_subfilters(w, budget as f64, max_l, alphabet, on_stream)?.arg;
        let c = capacity_for_window(w, l);
        let b = (budget / l) as f64;
        let (k, m) = shape(b, c)?;
        let fpr = fpr_queue(&model(b, c, all_distinct, alphabet), l, c);
        let fnr = fnr_queue(&on_stream(b, c), l, c, alphabet);
        // An unseen item is looked up in every subfilter (each stops at its
        // first clear bit), then set in the newest's k slices.
        let r = slice_fill_ratio(c as f64, m as f64);
        let accesses = l as f64 * negative_query_accesses(k, r) + f64::from(k);
        Some(
            Candidate::new(
                Config::QueuedBloom {
                    subfilters: l as usize,
                    capacity: c,
                    slices: k,
                    slice_bits: m,
                },
                l * u64::from(k) * m,
                fpr,
                accesses,
                need.seed,
            )
            .with_slack((c * l).saturating_sub(w))
            .with_misses(fnr),
        )
    }

    /// A partitioned Bloom filter over the whole stream, which never forgets:
    /// only when the number of distinct items is known. Sized for the target
    /// (`k = ⌈log₂(1/p)⌉` slices half full after `n` insertions) or with the
    /// slice count that minimises the rate in the budget.
    #[cfg(feature = "bloom")]
    pub(super) fn bloom(need: &Need) -> Option<Candidate> {
        use ddf_theory::bloom::{
            capacity_at_fill, negative_query_accesses, optimal_slices, partitioned_fp, slice_bits,
            slice_fill_ratio,
        };
        use ddf_theory::numerics::argmin_int;
        let n = need.distinct?;
        let max_k = u64::from(ddf_bloom::MAX_SLICES);
        let (k, m) = match (need.target, need.budget) {
            (Some(p), _) => {
                let k = optimal_slices(p).filter(|&k| u64::from(k) <= max_k)?;
                let mut m = slice_bits(n).ceil().max(1.0);
                while capacity_at_fill(m, 0.5) < n {
                    m += 1.0;
                }
                (k, m as u64)
            }
            (None, Some(budget)) => {
                let k = argmin_int(1..=max_k, |k| {
                    let m = (budget / k) as f64;
                    if m < 1.0 {
                        f64::INFINITY
                    } else {
                        partitioned_fp(n, m, k as f64)
                    }
                })?
                .arg as u32;
                (k, budget / u64::from(k))
            }
            (None, None) => return None,
        };
        if m == 0 || m > ddf_param::MAX_STATE_BITS / u64::from(k) {
            return None;
        }
        let r = slice_fill_ratio(n, m as f64);
        Some(Candidate::new(
            Config::Bloom {
                slices: k,
                slice_bits: m,
            },
            u64::from(k) * m,
            partitioned_fp(n, m as f64, f64::from(k)),
            negative_query_accesses(k, r) + f64::from(k),
            need.seed,
        ))
    }

    /// QHT (QHT paper §4): the `(k, s)` with the least `FPR_∞ + FNR_∞`
    /// (Theorems 4.1 and 4.2 for `N = ⌊M/(k·s)⌋` rows) among those that meet
    /// the target. Needs a budget and the number of distinct items.
    #[cfg(feature = "qht")]
    pub(super) fn qht(need: &Need) -> Option<Candidate> {
        use ddf_theory::qht::{fnr_inf, fpr_inf};
        let budget = need.budget?;
        let alphabet = need.distinct?;
        let mut best: Option<(f64, f64, u64, usize, u32)> = None;
        for k in 1..=8usize {
            for s in 1..=32u32 {
                let rows = budget / (k as u64 * u64::from(s));
                // Row index and fingerprint must fit in one digest.
                // A row holds at most 2^s distinct cells (ddf-qht's bound).
                if rows == 0
                    || k as u64 > 1u64 << s
                    || u64::from(64 - (rows - 1).leading_zeros()) + u64::from(s) > 64
                {
                    continue;
                }
                // The default zero policy reserves 0 for empty cells: S = 2^s − 1.
                let values = 2f64.powi(s as i32) - 1.0;
                let fpr = fpr_inf(k as f64, values);
                let fnr = fnr_inf(rows as f64, k as f64, values, alphabet);
                if need.target.is_some_and(|p| fpr > p) || !(fpr + fnr).is_finite() {
                    continue;
                }
                if best.is_none_or(|b| fpr + fnr < b.0 + b.1) {
                    best = Some((fpr, fnr, rows, k, s));
                }
            }
        }
        let (fpr, fnr, rows, k, s) = best?;
        // One row of k·s ≤ 256 bits: read, then written in place.
        Some(
            Candidate::new(
                Config::Qht {
                    rows,
                    buckets_per_row: k,
                    fingerprint_bits: s,
                },
                rows * k as u64 * u64::from(s),
                fpr,
                1.0,
                need.seed,
            )
            .with_misses(fnr),
        )
    }
}
