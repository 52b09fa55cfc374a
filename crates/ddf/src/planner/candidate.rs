//! A planned configuration: the family and parameters chosen, what the
//! family's sizing predicts for them, and how to build it.

use super::Cost;
use crate::{Config, Filter};
use ddf_core::ParamError;
use std::fmt;

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
    /// The window planned for, in its unit (insertions or time units);
    /// `None` for the whole stream.
    pub window: Option<u64>,
    /// Expected memory accesses (words, cache lines or table slots) of one
    /// `observe` of an unseen item.
    pub accesses: f64,
    /// The predicted cost of that `observe`: lines, the table's cache tier
    /// and a time class ([`Cost::predict`] from `accesses` and
    /// `memory_bits`).
    pub cost: Cost,
    /// The family of a candidate ranked before this one that needs at
    /// most 1.25× its memory at less than half its cost (see
    /// [`plan`](crate::plan)); `None` when there is none.
    pub dominated_by: Option<&'static str>,
    /// The seed of the filter's own generators.
    pub seed: u64,
    /// Whether the rates are the saturated worst case: an unbounded stream
    /// in fixed memory with no `distinct_items` given, predicted for a
    /// stream of ever-new items (where `FPR + FNR` is about 1).
    pub saturated: bool,
}

impl Candidate {
    /// The candidate for `config` with the family's prediction `p`.
    #[cfg_attr(some_families_off, allow(dead_code))]
    pub(crate) fn new(
        config: Config,
        p: ddf_core::Prediction,
        window: Option<u64>,
        seed: u64,
    ) -> Self {
        Candidate {
            config,
            memory_bits: p.memory_bits,
            fpr: p.fpr,
            fnr: p.fnr,
            false_negatives: p.false_negatives,
            slack: p.slack,
            window,
            accesses: p.accesses,
            cost: Cost::predict(p.memory_bits, p.accesses, p.scanned_words),
            dominated_by: None,
            seed,
            saturated: false,
        }
    }

    /// The same candidate, its rates the saturated worst case.
    #[cfg_attr(some_families_off, allow(dead_code))]
    pub(crate) fn at_saturation(mut self) -> Self {
        self.saturated = true;
        self
    }

    /// The family's name.
    pub fn family(&self) -> &'static str {
        self.config.family()
    }

    /// The age beyond which [`fpr`](Self::fpr) holds: window + slack, in
    /// the window's unit (`None` for the whole stream).
    pub fn reliable_after(&self) -> Option<u64> {
        self.window.map(|w| w.saturating_add(self.slack))
    }

    /// Whether the filter's window is measured in time: [`build`](Self::build)
    /// then gives a timed filter, driven with `observe_at`.
    pub fn is_timed(&self) -> bool {
        self.config.is_timed()
    }

    /// The filter, ready to use, as the variant of [`Filter`] it names: in
    /// time mode (driven by [`TimedFilter::observe_at`](ddf_core::TimedFilter::observe_at))
    /// when the candidate was planned for a time window ([`is_timed`](Self::is_timed)),
    /// by insertion counts otherwise. A time candidate cannot be built as a
    /// count filter.
    ///
    /// ```
    /// use ddf::{Deduper, Requirements, Verdict, plan};
    ///
    /// // The last 60 seconds, about 100 arrivals a second, 0.1 % false positives.
    /// let best = &plan(&Requirements::time(60, 100.0).fpr(0.001))?[0];
    /// let mut seen = Deduper::new(best.build()?);
    /// assert!(seen.filter().is_timed());
    /// assert_eq!(seen.observe_at("a", 0), Verdict::Unseen);
    /// assert_eq!(seen.observe_at("a", 59), Verdict::Duplicate);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn build(&self) -> Result<Filter, ParamError> {
        self.config.build(self.seed)
    }
}

impl fmt::Display for Candidate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = if self.is_timed() {
            "time units"
        } else {
            "insertions"
        };
        write!(
            f,
            "{} {:?}: {} bits, FPR ≤ {:.3e} ",
            self.family(),
            self.config,
            self.memory_bits,
            self.fpr
        )?;
        match self.window {
            Some(w) => write!(
                f,
                "for items older than {} {unit} (window {w} + slack {})",
                w.saturating_add(self.slack),
                self.slack
            )?,
            None => write!(f, "for items never seen")?,
        }
        if self.saturated {
            write!(
                f,
                " (saturated worst case: no distinct_items given, so rated on a stream of ever-new items, where FPR + FNR is about 1)"
            )?;
        }
        if self.false_negatives {
            write!(f, ", FNR {:.3e} (misses possible)", self.fnr)?;
        } else {
            write!(f, ", no misses")?;
        }
        write!(f, ", {:.1} accesses ({})", self.accesses, self.cost)?;
        if let Some(other) = self.dominated_by {
            write!(
                f,
                ", ranked after the {other}, which is cheaper at about its memory"
            )?;
        }
        Ok(())
    }
}
