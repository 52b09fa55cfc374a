//! What a family predicts for a configuration before it is built.
//!
//! Every family crate exports a pure sizing function (`Shf::sizing`,
//! `Apbf::sizing`, `Qht::sizing`, …) that takes the constructor's
//! parameters, checks them with the constructor's own rules and returns a
//! [`Prediction`] from the papers' theory, without allocating the filter.
//! The planner in the `ddf` crate ranks these predictions; it holds no rule
//! of its own about any family.

/// What one configuration of a filter is predicted to cost and to get wrong.
///
/// Rates are the theory's predictions under the conditions the family's
/// sizing function documents (usually a stream of distinct items for the
/// false-positive rate, a uniform stream over a known number of items for
/// the false-negative rate).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prediction {
    /// State bits of the new filter (its `memory_bits()`).
    pub memory_bits: u64,
    /// Predicted false-positive rate: the probability that an item not seen
    /// within window + slack is reported, at the filter's worst point (or a
    /// bound on it).
    pub fpr: f64,
    /// Predicted false-negative rate among duplicates within the window (0
    /// when the family never misses one).
    pub fnr: f64,
    /// Whether items within the window can be missed at all.
    pub false_negatives: bool,
    /// How far beyond the window an item may still be reported, in the
    /// window's unit (insertions or time units).
    pub slack: u64,
    /// Expected memory accesses (words, cache lines or table slots) of one
    /// `observe` of an unseen item.
    pub accesses: f64,
    /// How many of those [`accesses`](Self::accesses) are words read in
    /// order by a scan (0 unless the family scans): such words stream
    /// through the caches, so they cost compare work rather than a cache
    /// miss each, but their count grows with the table.
    pub scanned_words: u64,
}

impl Prediction {
    /// A filter that never misses an item of its window and has no slack.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_core::Prediction;
    ///
    /// let p = Prediction::exact_window(1 << 20, 0.01, 3.0).with_slack(100);
    /// assert_eq!((p.memory_bits, p.slack, p.false_negatives), (1 << 20, 100, false));
    /// ```
    pub fn exact_window(memory_bits: u64, fpr: f64, accesses: f64) -> Self {
        Prediction {
            memory_bits,
            fpr,
            fnr: 0.0,
            false_negatives: false,
            slack: 0,
            accesses,
            scanned_words: 0,
        }
    }

    /// The same prediction, `words` of its accesses read in order by a scan.
    #[must_use]
    pub fn with_scan(mut self, words: u64) -> Self {
        self.scanned_words = words;
        self
    }

    /// The same prediction with a slack beyond the window.
    #[must_use]
    pub fn with_slack(mut self, slack: u64) -> Self {
        self.slack = slack;
        self
    }

    /// The same prediction for a filter that may miss items of its window,
    /// at rate `fnr`.
    #[must_use]
    pub fn with_misses(mut self, fnr: f64) -> Self {
        self.false_negatives = true;
        self.fnr = fnr;
        self
    }
}

/// What to size a filter for: a false-positive target (least memory that
/// meets it) or a memory budget (least error that fits it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Goal {
    /// The largest false-positive rate accepted, in `(0, 1)`.
    Fpr(f64),
    /// The most state bits accepted.
    Budget(u64),
}
