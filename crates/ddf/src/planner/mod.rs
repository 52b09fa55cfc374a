//! The planner: from what a user needs to ranked filter configurations that build.
//!
//! It is a thin layer. Each family crate exports a pure sizing function
//! (`sizing`, returning a `ddf_core::Prediction`) that checks parameters
//! with the constructor's own rules and predicts memory, error rates, slack
//! and accesses from `ddf-theory`, and a parameter chooser for a target or a
//! budget. The planner turns [`Requirements`] into the units those functions
//! take (`mod.rs`), asks every family of the [registry](crate::registry)
//! through its adapter (`families/`, one file per family crate; a queue's
//! sizing rules are `ddf_queue`'s), keeps the candidates that meet every requirement and ranks
//! them (`rank.rs`, with the cost model of `cost.rs`), and says per family
//! why none qualified when none did ([`PlanError`]).
//! [`Candidate`] (`candidate.rs`) and [`Config`](crate::Config) (the registry's)
//! carry the choice and build it.
//!
//! **Bounded work.** Every sizing function bounds its own work and memory
//! (documented on each); the planner calls each family a fixed number of
//! times, so any requirements plan in bounded time.

mod candidate;
mod cost;
pub(crate) mod families;
mod rank;

pub use candidate::Candidate;
pub use cost::{Cost, Tier};
pub use rank::{Exclusion, PlanError};

use ddf_core::{Goal, ParamError};
use ddf_param::ensure_probability;

/// The largest window (items, or expected arrivals per time window) planned
/// for: the state limit of every family.
const MAX_WINDOW: u64 = ddf_param::MAX_STATE_BITS;

/// The probability with which Poisson arrivals may overrun the capacity a
/// time-windowed candidate is sized for, per time slice (a generation).
#[cfg_attr(some_families_off, allow(dead_code))]
pub(crate) const ARRIVAL_TAIL: f64 = 1e-9;

/// Expected memory accesses per operation above which a candidate is left
/// out unless the user raises the limit ([`Requirements::max_accesses`]).
const DEFAULT_MAX_ACCESSES: f64 = 64.0;

/// The saturated false-positive rate planned for when an unbounded stream
/// in fixed memory has neither `fpr` nor `distinct_items`. At
/// saturation `FPR + FNR` is about 1 for every filter that forgets (QHT
/// paper Claim 4.1), so the budget alone does not choose the split between
/// the two; 1 % keeps false positives rare, as the command's default does.
#[cfg_attr(some_families_off, allow(dead_code))]
pub(crate) const SATURATED_FPR: f64 = 0.01;

/// The seed of every candidate's own generators (and nothing else) unless
/// [`Requirements::seed`] sets one.
const DEFAULT_SEED: u64 = 0xddf0_5eed_0000_0001;

/// The default slack, as a fraction of the window: `⌊w/100⌋` insertions
/// (or `max(⌊t/100⌋, 1)` time units). See [`Requirements::max_slack`].
const DEFAULT_SLACK_DIVISOR: u64 = 100;

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
/// // The last million events, at most 0.1% false positives for items older
/// // than the window plus 1% (the default slack), no misses.
/// let candidates = plan(&Requirements::count(1_000_000).fpr(0.001))?;
/// let best = &candidates[0];
/// assert!(best.fpr <= 0.001 && !best.false_negatives && best.slack <= 10_000);
/// # Ok::<(), ddf::PlanError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Requirements {
    span: Span,
    fpr: Option<f64>,
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
            fpr: None,
            memory_bits: None,
            false_negatives: false,
            max_slack: None,
            distinct_items: None,
            max_accesses: DEFAULT_MAX_ACCESSES,
            seed: DEFAULT_SEED,
        }
    }

    /// A window of the last `window` insertions.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf::{Requirements, Span};
    ///
    /// let req = Requirements::count(100_000).fpr(0.001);
    /// assert_eq!(req.span(), Span::Count(100_000));
    /// assert_eq!(req.slack_limit(), 1_000); // 1 % of the window by default
    /// ```
    pub fn count(window: u64) -> Self {
        Self::with_span(Span::Count(window))
    }

    /// A window of the last `span` time units with `rate` expected arrivals
    /// per unit.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf::{Requirements, plan};
    ///
    /// // The last minute in milliseconds, 100 events per second (0.1 per ms).
    /// let best = &plan(&Requirements::time(60_000, 0.1).fpr(0.01))?[0];
    /// assert!(best.is_timed());
    /// # Ok::<(), ddf::PlanError>(())
    /// ```
    pub fn time(span: u64, rate: f64) -> Self {
        Self::with_span(Span::Time { span, rate })
    }

    /// The whole stream.
    ///
    /// In a fixed budget only filters that forget can follow an unbounded
    /// stream, and they miss. With [`distinct_items`](Self::distinct_items)
    /// their rates are predicted for a uniform stream over that many items;
    /// without it, at saturation (the families that forget by eviction,
    /// whose adapters the [registry](crate::registry) lists, ranked by the worst case: a
    /// stream of ever-new items, where `FPR + FNR` is about 1 and the
    /// shape sets the split; [`Candidate::saturated`] says so, the target
    /// rate is `fpr`, else 1 %).
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf::{Requirements, plan};
    ///
    /// // A fixed budget over the whole stream: the filters that forget.
    /// // The rates depend on how many distinct items the stream draws from.
    /// let req = Requirements::unbounded()
    ///     .memory_budget(1 << 20)
    ///     .allow_false_negatives(true)
    ///     .distinct_items(1e7);
    /// assert!(plan(&req)?.iter().all(|c| c.memory_bits <= 1 << 20));
    ///
    /// // Not knowing that count: rated at saturation.
    /// let blind = plan(&Requirements::unbounded().memory_budget(3_200_000).allow_false_negatives(true))?;
    /// assert!(blind.iter().all(|c| c.saturated && c.fpr <= 0.01));
    /// # Ok::<(), ddf::PlanError>(())
    /// ```
    pub fn unbounded() -> Self {
        Self::with_span(Span::Unbounded)
    }

    /// The false-positive rate (an unseen item reported) not to exceed.
    #[must_use]
    pub fn fpr(mut self, fpr: f64) -> Self {
        self.fpr = Some(fpr);
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
    /// window's unit: the false-positive target holds for items older than
    /// window + slack.
    ///
    /// **Default: 1 % of the window** (`⌊w/100⌋` insertions, `max(⌊t/100⌋, 1)`
    /// time units, since a time filter's generations are whole units). Items
    /// in the slack may be reported with any probability, so a user who
    /// reads "window `w`, FPR ≤ p" as a promise about every item older than
    /// `w` is surprised by exactly the repeats whose gap falls in
    /// `(w, w + slack]`; at 1 % that band is narrow on any stream whose gaps
    /// are spread out, and every [`Candidate`] prints the age beyond which
    /// its rate holds. The least-space choice of the sliding Bloom filter
    /// (slack about 7 % of `w` at 0.1 %) and the APBF (slack `k`
    /// generations, more than half the window) need a larger value, up to
    /// `u64::MAX` for any slack.
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
    /// memory budget split over `shards`, and this requirement's slack limit
    /// mapped to the shard by `slack`.
    pub(crate) fn for_shard(&self, span: Span, shards: u64, slack: impl Fn(u64) -> u64) -> Self {
        Requirements {
            span,
            memory_bits: self.memory_bits.map(|m| (m / shards).max(1)),
            max_slack: Some(slack(self.slack_limit())),
            ..self.clone()
        }
    }

    /// The slack accepted: the one set, else 1 % of the window.
    pub fn slack_limit(&self) -> u64 {
        self.max_slack.unwrap_or(match self.span {
            Span::Count(w) => w / DEFAULT_SLACK_DIVISOR,
            // A time filter's generations are whole units: 1 unit at least.
            Span::Time { span, .. } => (span / DEFAULT_SLACK_DIVISOR).max(1),
            Span::Unbounded => 0,
        })
    }

    fn validate(&self) -> Result<Need, ParamError> {
        let target = self.fpr.map(|p| ensure_probability("fpr", p)).transpose()?;
        if let Some(m) = self.memory_bits {
            ddf_param::ensure_range("memory_bits", m, 1..=ddf_param::MAX_STATE_BITS)?;
        }
        // What to size for: the target when there is one (least memory that
        // meets it), else the budget (least error that fits).
        let goal = match (target, self.memory_bits) {
            (Some(p), _) => Goal::Fpr(p),
            (None, Some(m)) => Goal::Budget(m),
            (None, None) => {
                return Err(ParamError::new(
                    "fpr",
                    "none",
                    "a target false-positive rate or a memory budget (or both)",
                ));
            }
        };
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
        match self.span {
            Span::Count(w) => {
                ddf_param::ensure_window(w, MAX_WINDOW)?;
            }
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
            }
            Span::Unbounded => {}
        }
        Ok(Need {
            span: self.span,
            goal,
            budget: self.memory_bits,
            misses_ok: self.false_negatives,
            distinct: self.distinct_items,
            max_slack: self.slack_limit(),
            seed: self.seed,
        })
    }
}

/// Validated requirements: the [`Span`] and the [`Goal`] asked for, and
/// what else the families are sized or checked by.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(some_families_off, allow(dead_code))]
pub(crate) struct Need {
    /// The window, checked against the families' state limit.
    pub(crate) span: Span,
    /// The target if given, else the budget: what a family is sized for.
    pub(crate) goal: Goal,
    /// The memory budget if given: with a target it bounds the candidates
    /// (and sizes the families chosen within a budget).
    pub(crate) budget: Option<u64>,
    /// Whether misses within the window are accepted (the queued families
    /// are not sized when they are not).
    pub(crate) misses_ok: bool,
    /// The count of distinct items, for the families whose predictions
    /// need it.
    pub(crate) distinct: Option<f64>,
    /// The slack accepted ([`Requirements::slack_limit`]).
    pub(crate) max_slack: u64,
    /// The seed of the candidates' own generators.
    pub(crate) seed: u64,
}

impl Need {
    /// The target false-positive rate, if one was given.
    pub(crate) fn target(&self) -> Option<f64> {
        match self.goal {
            Goal::Fpr(p) => Some(p),
            Goal::Budget(_) => None,
        }
    }

    /// The items a window is sized for: `w` for a count window, the
    /// arrivals a time window of `t` units at rate `λ` holds but with
    /// probability [`ARRIVAL_TAIL`] (Poisson), 0 for the whole stream.
    #[cfg_attr(some_families_off, allow(dead_code))]
    pub(crate) fn items(&self) -> u64 {
        match self.span {
            Span::Count(w) => w,
            Span::Time { span, rate } => {
                ddf_theory::stream::poisson_arrival_bound(span as f64 * rate, ARRIVAL_TAIL).ceil()
                    as u64
            }
            Span::Unbounded => 0,
        }
    }
}

/// The configurations that meet `req`, best first; never empty.
///
/// Every family compiled in is sized by its own sizing function — from the
/// target false-positive rate when one is given, else to fill the memory
/// budget — and kept if it meets every requirement: no false negatives
/// unless allowed, slack at most [`Requirements::max_slack`] (default 1 %
/// of the window), memory, rate, accesses. **Ranking:** with a target rate,
/// least memory first; with a memory budget alone, least predicted error
/// (`FPR + FNR`) first; ties go to the cheaper [`Cost`], then to fewer
/// memory accesses.
///
/// **Cost rule:** with a target rate, a candidate that costs more than
/// twice another's memory time ([`Cost::memory_ns`]; for tables of one
/// cache tier that do not scan, more than twice the accesses) while that
/// other needs at most 1.25× its memory is ranked after it, never before:
/// the first candidate is never so dominated. It stays in the list, so a
/// family asked for by name is still found; [`Candidate::dominated_by`]
/// says which candidate it yields to.
///
/// **Read the rate with the slack:** a candidate's `fpr` holds for items
/// last seen more than window + `slack` ago; its `Display` says so.
///
/// Fails with [`PlanError::Invalid`] naming the offending requirement when
/// one is out of range or neither a target nor a budget is given, and with
/// [`PlanError::NoCandidate`] listing, per family, the requirement that
/// excluded it (for example an unbounded stream with no false negatives and
/// no count of distinct items).
///
/// # Examples
///
/// A count window, a time window and the whole stream; then what to do when
/// nothing fits.
///
/// ```
/// use ddf::{Deduper, PlanError, Requirements, Verdict, plan};
///
/// // The last 100,000 events, at most 0.1 % false positives, no misses.
/// let count = plan(&Requirements::count(100_000).fpr(0.001))?;
/// assert!(count[0].fpr <= 0.001 && !count[0].false_negatives);
///
/// // The last hour in milliseconds at 50 events per second (0.05 per ms):
/// // the built filter is in time mode and takes the caller's timestamps.
/// let hour = plan(&Requirements::time(3_600_000, 0.05).fpr(0.01))?;
/// assert!(hour[0].is_timed());
/// let mut seen = Deduper::with_seed(hour[0].build()?, 7);
/// assert_eq!(seen.observe_at("order-42", 1_000), Verdict::Unseen);
/// assert_eq!(seen.observe_at("order-42", 2_000), Verdict::Duplicate);
///
/// // The whole stream in a fixed budget of 1 Mbit: only filters that forget
/// // (and so miss) can promise that, so allow misses; their rates depend on
/// // how many distinct items the stream draws from.
/// let ever = plan(
///     &Requirements::unbounded()
///         .memory_budget(1 << 20)
///         .allow_false_negatives(true)
///         .distinct_items(1e7),
/// )?;
/// assert!(ever[0].memory_bits <= 1 << 20);
///
/// // Nothing fits: no misses over an unbounded stream without a count of
/// // distinct items. The error names, per family, what excluded it; relax
/// // that requirement (here: give `distinct_items`, or allow misses in a
/// // memory budget).
/// let strict = Requirements::unbounded().fpr(0.01);
/// match plan(&strict) {
///     Err(PlanError::NoCandidate(why)) => {
///         assert!(!why.is_empty());
///         for e in &why {
///             println!("{}: {}", e.family, e.reason);
///         }
///     }
///     other => panic!("expected NoCandidate, got {other:?}"),
/// }
/// let relaxed = plan(&strict.distinct_items(1e6))?;
/// assert!(!relaxed[0].false_negatives);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn plan(req: &Requirements) -> Result<Vec<Candidate>, PlanError> {
    let need = req.validate()?;
    let sized = families::size_all(&need);
    rank::rank(req, &need, sized)
}
