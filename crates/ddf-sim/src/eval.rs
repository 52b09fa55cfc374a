//! Running a filter over a labelled stream and counting its errors.

use crate::arrivals::Arrivals;
use crate::source::Source;
use ddf_bits::BitArray;
use ddf_core::{Digest, DuplicateFilter, TimedFilter, Verdict, Window};
use ddf_exact::ExactWindow;
use std::hash::BuildHasher;
use std::time::{Duration, Instant};

/// What to measure: the window that defines a duplicate, how many items, and
/// which of them count.
#[derive(Debug, Clone)]
pub struct EvalConfig {
    /// The window of the ground truth: an item is a duplicate if it occurred
    /// in it (the papers' `e ∈_w E`). `Unbounded` is the DDP (`w = ∞`).
    pub window: Window,
    /// Items to draw from the source (fewer if a finite source ends).
    pub items: u64,
    /// Items observed before counting starts, to measure a steady state.
    pub warmup: u64,
    /// Width of the buckets of the FP-probability curve, in items (0: no curve).
    pub curve_bucket: u64,
    /// Items per `observe_batch` call.
    pub batch: usize,
}

impl EvalConfig {
    /// Counts every one of `items` items against `window`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_core::Window;
    /// use ddf_sim::EvalConfig;
    ///
    /// let cfg = EvalConfig::new(Window::Count(1_000), 20_000);
    /// # drop(cfg);
    /// ```
    pub fn new(window: Window, items: u64) -> Self {
        EvalConfig {
            window,
            items,
            warmup: 0,
            curve_bucket: 0,
            batch: 1024,
        }
    }

    /// Skips the first `warmup` items when counting.
    pub fn warmup(mut self, warmup: u64) -> Self {
        self.warmup = warmup;
        self
    }

    /// Records the FP-probability curve in buckets of `bucket` items.
    pub fn curve(mut self, bucket: u64) -> Self {
        self.curve_bucket = bucket;
        self
    }

    /// Sets the batch size handed to `observe_batch` (at least 1).
    pub fn batch(mut self, batch: usize) -> Self {
        self.batch = batch.max(1);
        self
    }
}

/// Counts over one bucket of stream positions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bucket {
    /// Position (0-based) of the bucket's first item.
    pub start: u64,
    /// Truly unseen items in the bucket.
    pub unseen: u64,
    /// Unseen items reported as duplicates.
    pub false_positives: u64,
    /// True duplicates in the bucket.
    pub duplicates: u64,
    /// Duplicates reported as unseen.
    pub false_negatives: u64,
}

impl Bucket {
    /// The measured false-positive probability in this bucket (0 if no unseen item).
    pub fn fp_probability(&self) -> f64 {
        ratio(self.false_positives, self.unseen)
    }

    /// The measured false-negative probability in this bucket.
    pub fn fn_probability(&self) -> f64 {
        ratio(self.false_negatives, self.duplicates)
    }

    fn add(&mut self, other: &Bucket) {
        self.unseen += other.unseen;
        self.false_positives += other.false_positives;
        self.duplicates += other.duplicates;
        self.false_negatives += other.false_negatives;
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

/// A filter's measured errors over a stream, with the papers' definitions:
/// FPR = false positives / truly unseen items, FNR = false negatives / true
/// duplicates, ER = FPR + FNR (0 perfect, 1 a coin toss, 2 always wrong).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    /// Items counted (after warm-up).
    pub items: u64,
    /// Truly unseen items counted.
    pub unseen: u64,
    /// True duplicates counted.
    pub duplicates: u64,
    /// Unseen items the filter called duplicates.
    pub false_positives: u64,
    /// Duplicates the filter called unseen.
    pub false_negatives: u64,
    /// The error counts by stream position, if asked for.
    pub curve: Vec<Bucket>,
    /// Time spent inside the filter (all items, warm-up included).
    pub filter_time: Duration,
    /// Items the filter observed (warm-up included), for the speed figures.
    pub observed: u64,
}

impl Report {
    /// False-positive rate.
    pub fn fpr(&self) -> f64 {
        ratio(self.false_positives, self.unseen)
    }

    /// False-negative rate.
    pub fn fnr(&self) -> f64 {
        ratio(self.false_negatives, self.duplicates)
    }

    /// Error rate `FPR + FNR`.
    pub fn er(&self) -> f64 {
        self.fpr() + self.fnr()
    }

    /// Fraction of counted items that are true duplicates.
    pub fn duplicate_fraction(&self) -> f64 {
        ratio(self.duplicates, self.items)
    }

    /// Filter operations per second (0 if not timed).
    pub fn ops_per_sec(&self) -> f64 {
        let secs = self.filter_time.as_secs_f64();
        if secs > 0.0 {
            self.observed as f64 / secs
        } else {
            0.0
        }
    }

    /// Nanoseconds per filter operation (0 if not timed).
    pub fn ns_per_op(&self) -> f64 {
        if self.observed == 0 {
            0.0
        } else {
            self.filter_time.as_nanos() as f64 / self.observed as f64
        }
    }

    /// Adds another run's counts (same configuration, another seed) to this one.
    pub fn merge(&mut self, other: &Report) {
        self.items += other.items;
        self.unseen += other.unseen;
        self.duplicates += other.duplicates;
        self.false_positives += other.false_positives;
        self.false_negatives += other.false_negatives;
        self.filter_time += other.filter_time;
        self.observed += other.observed;
        if self.curve.len() < other.curve.len() {
            self.curve.resize(other.curve.len(), Bucket::default());
            for (i, b) in self.curve.iter_mut().enumerate() {
                b.start = other.curve[i].start;
            }
        }
        for (mine, theirs) in self.curve.iter_mut().zip(&other.curve) {
            mine.add(theirs);
        }
    }

    /// The sum of several runs.
    pub fn merged<'a>(reports: impl IntoIterator<Item = &'a Report>) -> Report {
        let mut total = Report::default();
        for r in reports {
            total.merge(r);
        }
        total
    }

    fn count(&mut self, position: u64, cfg: &EvalConfig, duplicate: bool, verdict: Verdict) {
        if position < cfg.warmup {
            return;
        }
        let wrong = duplicate != verdict.is_duplicate();
        self.items += 1;
        let bucket = match position.checked_div(cfg.curve_bucket) {
            Some(index) => {
                let index = index as usize;
                while self.curve.len() <= index {
                    let start = self.curve.len() as u64 * cfg.curve_bucket;
                    self.curve.push(Bucket {
                        start,
                        ..Bucket::default()
                    });
                }
                Some(&mut self.curve[index])
            }
            None => None,
        };
        if duplicate {
            self.duplicates += 1;
            self.false_negatives += u64::from(wrong);
            if let Some(b) = bucket {
                b.duplicates += 1;
                b.false_negatives += u64::from(wrong);
            }
        } else {
            self.unseen += 1;
            self.false_positives += u64::from(wrong);
            if let Some(b) = bucket {
                b.unseen += 1;
                b.false_positives += u64::from(wrong);
            }
        }
    }
}

/// The largest alphabet labelled with one bit per id: 2^30 bits, 128 MiB.
const MAX_BITSET_ALPHABET: u64 = 1 << 30;

/// The exact labels of a stream: which items occurred before (in the window).
enum Truth {
    /// The whole stream over a known alphabet: one bit per id, far smaller
    /// and faster than a dictionary once many ids have occurred. Ids at or
    /// above the alphabet (a source breaking its promise) go to `spill`.
    Bits {
        seen: BitArray,
        spill: ExactWindow<u64>,
    },
    /// Any window: the exact filter of `ddf-exact`.
    Exact(ExactWindow<u64>),
}

impl Truth {
    /// Labels for `window`; a bitset when the window is the whole stream and
    /// the alphabet is at most 2^30 and at most 256 ids per item drawn (so
    /// the bitset is not much larger than a dictionary of the items would be).
    fn new(window: Window, alphabet: Option<u64>, items: u64) -> Truth {
        if window == Window::Unbounded
            && let Some(u) = alphabet
            && u <= MAX_BITSET_ALPHABET
            && u <= items.max(1 << 16).saturating_mul(256)
            && let Ok(seen) = BitArray::new(u)
        {
            return Truth::Bits {
                seen,
                spill: ExactWindow::unbounded(),
            };
        }
        Truth::Exact(ground_truth(window))
    }

    /// Whether item `id` arriving at `tick` is a duplicate; records it.
    #[inline]
    fn observe(&mut self, id: u64, tick: u64) -> bool {
        match self {
            Truth::Bits { seen, spill } => {
                if id < seen.len() {
                    seen.test_and_set(id)
                } else {
                    spill.observe_key(id).is_duplicate()
                }
            }
            Truth::Exact(exact) => exact.observe_key_at(id, tick).is_duplicate(),
        }
    }
}

/// The exact filter that labels the stream for `window`. A time window on an
/// untimed stream uses item positions as timestamps, which makes it a count window.
fn ground_truth(window: Window) -> ExactWindow<u64> {
    let built = match window {
        Window::Count(w) => ExactWindow::new(w),
        // No cap: the ground truth holds every item of the span.
        Window::Time(t) => ExactWindow::with_time_span(t, u64::MAX),
        Window::Unbounded => Ok(ExactWindow::unbounded()),
    };
    // A zero window would mean "nothing is ever a duplicate": an exact set of
    // span 1 tick compares nothing, which is the same labelling.
    built.unwrap_or_else(|_| ExactWindow::new(1).unwrap_or_else(|_| ExactWindow::unbounded()))
}

/// Draws `cfg.items` items from `source`, labels them exactly, and hands
/// them to `judge` in blocks of `cfg.batch`: the digests, their labels
/// (`true` = duplicate) and the position of the block's first item.
fn drive<Src, H>(
    source: &mut Src,
    hasher: &H,
    cfg: &EvalConfig,
    mut judge: impl FnMut(&[Digest], &[bool], u64),
) where
    Src: Source,
    H: BuildHasher,
{
    let mut truth = Truth::new(cfg.window, source.alphabet(), cfg.items);
    let batch = cfg.batch.max(1);
    let mut digests: Vec<Digest> = Vec::with_capacity(batch);
    let mut labels: Vec<bool> = Vec::with_capacity(batch);
    let mut position = 0u64;
    let mut exhausted = false;
    while position < cfg.items && !exhausted {
        digests.clear();
        labels.clear();
        while digests.len() < batch && position + (digests.len() as u64) < cfg.items {
            let Some(id) = source.next_id() else {
                exhausted = true;
                break;
            };
            let tick = position + digests.len() as u64;
            labels.push(truth.observe(id, tick));
            digests.push(source.digest(hasher, id));
        }
        judge(&digests, &labels, position);
        position += digests.len() as u64;
    }
}

/// Feeds one block to `filter`, timing only the filter, and counts its verdicts.
fn judge_block<F: DuplicateFilter + ?Sized>(
    filter: &mut F,
    report: &mut Report,
    verdicts: &mut Vec<Verdict>,
    (digests, labels, first): (&[Digest], &[bool], u64),
    cfg: &EvalConfig,
) {
    verdicts.clear();
    let start = Instant::now();
    filter.observe_batch(digests, verdicts);
    report.filter_time += start.elapsed();
    report.observed += digests.len() as u64;
    for (i, (&dup, &v)) in labels.iter().zip(verdicts.iter()).enumerate() {
        report.count(first + i as u64, cfg, dup, v);
    }
}

/// Runs `filter` over `cfg.items` items of `source`, hashed with `hasher`,
/// and counts its errors against the exact labels for `cfg.window`.
///
/// Items go to the filter through [`DuplicateFilter::observe_batch`] in
/// blocks of `cfg.batch`; only those calls are timed.
pub fn evaluate<F, Src, H>(filter: &mut F, source: &mut Src, hasher: &H, cfg: &EvalConfig) -> Report
where
    F: DuplicateFilter + ?Sized,
    Src: Source,
    H: BuildHasher,
{
    let mut report = Report::default();
    let mut verdicts = Vec::with_capacity(cfg.batch.max(1));
    drive(source, hasher, cfg, |digests, labels, first| {
        judge_block(
            filter,
            &mut report,
            &mut verdicts,
            (digests, labels, first),
            cfg,
        );
    });
    report
}

/// As [`evaluate`], for several filters on the same stream: each item is
/// drawn, labelled and hashed once, then observed by every filter in turn.
/// Returns one report per filter, in order.
///
/// This is how one stream is shared by all the filters of a comparison
/// table: the filters see identical items, and the cost of the source, the
/// ground truth and the hashing is paid once.
pub fn evaluate_many<Src, H>(
    filters: &mut [&mut dyn DuplicateFilter],
    source: &mut Src,
    hasher: &H,
    cfg: &EvalConfig,
) -> Vec<Report>
where
    Src: Source,
    H: BuildHasher,
{
    let mut reports = vec![Report::default(); filters.len()];
    let mut verdicts = Vec::with_capacity(cfg.batch.max(1));
    drive(source, hasher, cfg, |digests, labels, first| {
        for (filter, report) in filters.iter_mut().zip(reports.iter_mut()) {
            judge_block(
                &mut **filter,
                report,
                &mut verdicts,
                (digests, labels, first),
                cfg,
            );
        }
    });
    reports
}

/// As [`evaluate`], for a filter with a time window: each item gets the next
/// timestamp of `arrivals` and goes through [`TimedFilter::observe_at`]; the
/// ground truth uses the same timestamps.
pub fn evaluate_timed<F, Src, H>(
    filter: &mut F,
    source: &mut Src,
    hasher: &H,
    arrivals: &mut Arrivals,
    cfg: &EvalConfig,
) -> Report
where
    F: TimedFilter + ?Sized,
    Src: Source,
    H: BuildHasher,
{
    let mut truth = Truth::new(cfg.window, source.alphabet(), cfg.items);
    let mut report = Report::default();
    let mut position = 0u64;
    while position < cfg.items {
        let Some(id) = source.next_id() else { break };
        let now = arrivals.next_time();
        let duplicate = truth.observe(id, now);
        let d = source.digest(hasher, id);
        let start = Instant::now();
        let v = filter.observe_at(d, now);
        report.filter_time += start.elapsed();
        report.observed += 1;
        report.count(position, cfg, duplicate, v);
        position += 1;
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{Distinct, Uniform};
    use ddf_hash::MixState;

    /// A filter that always answers the same.
    #[derive(Debug)]
    struct Constant(bool);
    impl DuplicateFilter for Constant {
        fn contains(&self, _: Digest) -> bool {
            self.0
        }
        fn insert(&mut self, _: Digest) {}
        fn memory_bits(&self) -> u64 {
            1
        }
        fn clear(&mut self) {}
    }

    #[test]
    fn constant_filters_have_error_rate_one() {
        let cfg = EvalConfig::new(Window::Unbounded, 10_000).curve(1000);
        for answer in [false, true] {
            let mut src = Uniform::new(2_000, 1).unwrap();
            let r = evaluate(&mut Constant(answer), &mut src, &MixState, &cfg);
            assert_eq!(r.items, 10_000);
            assert_eq!(r.unseen + r.duplicates, 10_000);
            assert_eq!(r.er(), 1.0);
            assert_eq!(r.curve.len(), 10);
            assert_eq!(r.curve.iter().map(|b| b.unseen).sum::<u64>(), r.unseen);
        }
    }

    #[test]
    fn distinct_stream_has_no_duplicates_and_warmup_is_skipped() {
        let cfg = EvalConfig::new(Window::Count(10), 5_000).warmup(1_000);
        let r = evaluate(&mut Constant(true), &mut Distinct::new(0), &MixState, &cfg);
        assert_eq!(
            (r.items, r.duplicates, r.false_positives),
            (4_000, 0, 4_000)
        );
        assert_eq!(r.fpr(), 1.0);
        assert_eq!(r.fnr(), 0.0);
    }

    #[test]
    fn exact_filter_is_perfect_windowed_and_timed() {
        let cfg = EvalConfig::new(Window::Count(500), 50_000).batch(77);
        let mut exact = ExactWindow::new(500).unwrap();
        let r = evaluate(
            &mut exact,
            &mut Uniform::new(5_000, 2).unwrap(),
            &MixState,
            &cfg,
        );
        assert!(r.duplicates > 1_000);
        assert_eq!((r.false_positives, r.false_negatives), (0, 0));

        let cfg = EvalConfig::new(Window::Time(300), 50_000);
        let mut exact = ExactWindow::with_time_span(300, u64::MAX).unwrap();
        let mut arrivals = Arrivals::poisson(1.5, 3).unwrap();
        let r = evaluate_timed(
            &mut exact,
            &mut Uniform::new(2_000, 4).unwrap(),
            &MixState,
            &mut arrivals,
            &cfg,
        );
        assert!(r.duplicates > 1_000);
        assert_eq!((r.false_positives, r.false_negatives), (0, 0));
    }

    #[test]
    fn bitset_truth_agrees_with_the_exact_set() {
        // The same stream labelled both ways: a bitset (alphabet known) and
        // the dictionary (a wrapper hiding the alphabet).
        struct Hidden(Uniform);
        impl Source for Hidden {
            fn next_id(&mut self) -> Option<u64> {
                self.0.next_id()
            }
        }
        let cfg = EvalConfig::new(Window::Unbounded, 30_000).curve(1000);
        let mut a = ExactWindow::new(5).unwrap();
        let mut b = ExactWindow::new(5).unwrap();
        let bits = evaluate(
            &mut a,
            &mut Uniform::new(20_000, 9).unwrap(),
            &MixState,
            &cfg,
        );
        let dict = evaluate(
            &mut b,
            &mut Hidden(Uniform::new(20_000, 9).unwrap()),
            &MixState,
            &cfg,
        );
        assert_eq!(bits.duplicates, dict.duplicates);
        assert_eq!(bits.false_negatives, dict.false_negatives);
        assert_eq!(bits.curve, dict.curve);
        assert!(bits.duplicates > 5_000);
    }

    #[test]
    fn many_filters_see_the_same_stream() {
        let cfg = EvalConfig::new(Window::Count(100), 20_000).batch(64);
        let (mut a, mut b) = (ExactWindow::new(100).unwrap(), Constant(true));
        let mut filters: [&mut dyn DuplicateFilter; 2] = [&mut a, &mut b];
        let reports = evaluate_many(
            &mut filters,
            &mut Uniform::new(3_000, 4).unwrap(),
            &MixState,
            &cfg,
        );
        let mut alone = ExactWindow::new(100).unwrap();
        let single = evaluate(
            &mut alone,
            &mut Uniform::new(3_000, 4).unwrap(),
            &MixState,
            &cfg,
        );
        assert_eq!(reports[0].duplicates, single.duplicates);
        assert_eq!(reports[0].false_positives + reports[0].false_negatives, 0);
        assert_eq!(reports[1].false_positives, reports[1].unseen);
        assert_eq!(reports[1].observed, 20_000);
    }

    #[test]
    fn merge_sums_counts_and_curves() {
        let cfg = EvalConfig::new(Window::Unbounded, 1_000).curve(100);
        let a = evaluate(
            &mut Constant(false),
            &mut Uniform::new(300, 1).unwrap(),
            &MixState,
            &cfg,
        );
        let b = evaluate(
            &mut Constant(false),
            &mut Uniform::new(300, 2).unwrap(),
            &MixState,
            &cfg,
        );
        let m = Report::merged([&a, &b]);
        assert_eq!(m.items, 2_000);
        assert_eq!(m.duplicates, a.duplicates + b.duplicates);
        assert_eq!(
            m.curve[3].duplicates,
            a.curve[3].duplicates + b.curve[3].duplicates
        );
    }
}
