//! Planned filters that many threads share with no lock: the families whose
//! state is bits that insertions only set (the age-partitioned Bloom
//! filters, plain and blocked, with the `apbf` feature), built from a
//! planner [`Candidate`].

use crate::Candidate;
use crate::Filter;
use ddf_core::{Digest, ParamError, Verdict};
use std::fmt;

/// A planned filter whose every operation takes `&self`: share it between
/// threads by reference or `Arc` (no `Mutex`), as
/// [`Candidate::build_concurrent`] builds it. See each variant's type for
/// exactly what holds while threads race.
#[derive(Debug)]
#[non_exhaustive]
pub enum ConcurrentFilter {
    /// The lock-free APBF, [`ddf_apbf::AtomicApbf`].
    AtomicApbf(ddf_apbf::AtomicApbf),
    /// The lock-free APBBF, [`ddf_apbf::AtomicApbbf`].
    AtomicApbbf(ddf_apbf::AtomicApbbf),
}

/// Forwards a call to the variant's type.
macro_rules! each {
    ($scrutinee:expr, $($f:ident)+ => $call:expr) => {
        match $scrutinee {
                    ConcurrentFilter::AtomicApbf($($f)+) => $call,
                    ConcurrentFilter::AtomicApbbf($($f)+) => $call,
        }
    };
}

impl ConcurrentFilter {
    /// Whether `digest` is reported.
    #[inline]
    pub fn contains(&self, digest: Digest) -> bool {
        each!(*self, ref f => f.contains(digest))
    }

    /// Whether `digest` is reported at time `now` (ignored by count windows).
    #[inline]
    pub fn contains_at(&self, digest: Digest, now: u64) -> bool {
        each!(*self, ref f => f.contains_at(digest, now))
    }

    /// The query then the insertion of `digest`.
    #[inline]
    pub fn observe(&self, digest: Digest) -> Verdict {
        each!(*self, ref f => f.observe(digest))
    }

    /// As [`observe`](Self::observe) at time `now` (ignored by count windows).
    #[inline]
    pub fn observe_at(&self, digest: Digest, now: u64) -> Verdict {
        each!(*self, ref f => f.observe_at(digest, now))
    }

    /// [`observe`](Self::observe) of every digest in order, the verdicts
    /// appended to `verdicts`, through the batch path that hints the lines
    /// of items a few ahead (the way to use it beyond the caches; each
    /// digest is one operation of the concurrency promise).
    pub fn observe_digests(&self, digests: &[Digest], verdicts: &mut Vec<Verdict>) {
        each!(*self, ref f => f.observe_digests(digests, verdicts))
    }

    /// [`observe_at`](Self::observe_at) of every digest in order at time
    /// `now`, as [`observe_digests`](Self::observe_digests).
    pub fn observe_digests_at(&self, digests: &[Digest], now: u64, verdicts: &mut Vec<Verdict>) {
        each!(*self, ref f => f.observe_digests_at(digests, now, verdicts))
    }

    /// [`contains`](Self::contains) of every digest in order, appended to
    /// `answers`, through the batch path.
    pub fn contains_digests(&self, digests: &[Digest], answers: &mut Vec<bool>) {
        each!(*self, ref f => f.contains_digests(digests, answers))
    }

    /// [`contains_at`](Self::contains_at) of every digest in order at time
    /// `now`, through the batch path.
    pub fn contains_digests_at(&self, digests: &[Digest], now: u64, answers: &mut Vec<bool>) {
        each!(*self, ref f => f.contains_digests_at(digests, now, answers))
    }

    /// State bits, as the single-threaded filter counts them.
    pub fn memory_bits(&self) -> u64 {
        each!(*self, ref f => ddf_core::DuplicateFilter::memory_bits(f))
    }

    /// The single-threaded filter with this state (its snapshot bytes are
    /// this filter's).
    pub fn into_filter(self) -> Filter {
        each!(self, f => f.into_inner().into())
    }
}

/// Why [`Candidate::build_concurrent`] built nothing.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ConcurrentBuildError {
    /// The family has no lock-free form (use [`Shared`](crate::Shared)).
    NotConcurrent {
        /// The candidate's family ([`Candidate::family`]).
        family: &'static str,
    },
    /// The constructor refused the parameters.
    Param(ParamError),
}

impl fmt::Display for ConcurrentBuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConcurrentBuildError::NotConcurrent { family } => write!(
                f,
                "the {family} family has no lock-free form; share it through ddf::Shared"
            ),
            ConcurrentBuildError::Param(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ConcurrentBuildError {}

impl From<ParamError> for ConcurrentBuildError {
    fn from(e: ParamError) -> Self {
        ConcurrentBuildError::Param(e)
    }
}

impl Candidate {
    /// Builds the candidate as a [`ConcurrentFilter`] when its family has a
    /// lock-free form (the APBF and the APBBF), with the parameters
    /// [`build`](Self::build) would use; other families give
    /// [`ConcurrentBuildError::NotConcurrent`].
    ///
    /// ```
    /// use ddf::{Digest, Requirements, Verdict, plan};
    ///
    /// // The APBF forgets gradually past the window (slack `k·g`): allow it.
    /// let req = Requirements::count(100_000).fpr(0.01).max_slack(u64::MAX);
    /// let candidates = plan(&req)?;
    /// let apbf = candidates.iter().find(|c| c.family() == "APBF").expect("planned");
    /// let f = apbf.build_concurrent()?;
    /// std::thread::scope(|s| {
    ///     for t in 0..4u64 {
    ///         let f = &f;
    ///         s.spawn(move || {
    ///             for i in 0..1_000 {
    ///                 f.observe(Digest::mixed(t << 32 | i));
    ///             }
    ///         });
    ///     }
    /// });
    /// assert_eq!(f.observe(Digest::mixed(2 << 32 | 5)), Verdict::Duplicate);
    /// // Beyond the caches, blocks of digests go through the batch path.
    /// let block: Vec<Digest> = (0..64).map(|i| Digest::mixed(3 << 32 | i)).collect();
    /// let mut verdicts = Vec::new();
    /// f.observe_digests(&block, &mut verdicts);
    /// assert_eq!(verdicts.len(), 64);
    /// // A family with no lock-free form says so.
    /// let exact = candidates
    ///     .iter()
    ///     .find(|c| !["APBF", "APBBF"].contains(&c.family()))
    ///     .expect("planned");
    /// assert!(exact.build_concurrent().is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn build_concurrent(&self) -> Result<ConcurrentFilter, ConcurrentBuildError> {
        match crate::registry::build_concurrent(&self.config) {
            Some(built) => Ok(built?),
            None => Err(ConcurrentBuildError::NotConcurrent {
                family: self.family(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Requirements, plan};
    use ddf_core::{Digest, DuplicateFilter, TimedFilter, Verdict};

    /// Each lock-free family is built with the parameters `build` uses: its
    /// state, taken back, has the bytes of the single-threaded build, count
    /// and time windows alike.
    #[test]
    fn both_age_partitioned_families_build_concurrent() {
        let count = Requirements::count(100_000).fpr(0.01).max_slack(u64::MAX);
        let timed = Requirements::time(600, 100.0).fpr(0.01).max_slack(u64::MAX);
        for req in [count, timed] {
            let candidates = plan(&req).unwrap();
            for family in ["APBF", "APBBF"] {
                let c = candidates
                    .iter()
                    .find(|c| c.family() == family)
                    .unwrap_or_else(|| panic!("{family} planned for {req:?}"));
                let f = c.build_concurrent().unwrap();
                match (&f, family) {
                    (super::ConcurrentFilter::AtomicApbf(_), "APBF")
                    | (super::ConcurrentFilter::AtomicApbbf(_), "APBBF") => {}
                    _ => panic!("{family} built as {f:?}"),
                }
                // At time 0, the start of a generation: the lock-free form
                // records the opening of its current generation as its
                // latest time, and there the two agree.
                assert_eq!(f.observe_at(Digest::mixed(1), 0), Verdict::Unseen);
                assert!(f.contains_at(Digest::mixed(1), 5));
                let mut single = c.build().unwrap();
                single.observe_at(Digest::mixed(1), 0);
                assert_eq!(f.memory_bits(), single.memory_bits());
                assert_eq!(f.into_filter().to_bytes(), single.to_bytes(), "{family}");
            }
        }
    }

    /// The batch forms give the verdicts, answers and state of one call per
    /// digest, count and time windows alike.
    #[test]
    fn batches_match_one_by_one() {
        let count = Requirements::count(5_000).fpr(0.01).max_slack(u64::MAX);
        let timed = Requirements::time(600, 20.0).fpr(0.01).max_slack(u64::MAX);
        let digests: Vec<Digest> = (0..20_000u64).map(|i| Digest::mixed(i % 7_000)).collect();
        for (req, is_timed) in [(count, false), (timed, true)] {
            let candidates = plan(&req).unwrap();
            for family in ["APBF", "APBBF"] {
                let c = candidates.iter().find(|c| c.family() == family).unwrap();
                let (one, batch) = (c.build_concurrent().unwrap(), c.build_concurrent().unwrap());
                let (mut expect, mut got) = (Vec::new(), Vec::new());
                for (i, block) in digests.chunks(64).enumerate() {
                    let now = i as u64;
                    let mut answers = Vec::new();
                    if is_timed {
                        batch.contains_digests_at(block, now, &mut answers);
                        let each: Vec<bool> =
                            block.iter().map(|&d| one.contains_at(d, now)).collect();
                        assert_eq!(answers, each);
                        expect.extend(block.iter().map(|&d| one.observe_at(d, now)));
                        batch.observe_digests_at(block, now, &mut got);
                    } else {
                        batch.contains_digests(block, &mut answers);
                        let each: Vec<bool> = block.iter().map(|&d| one.contains(d)).collect();
                        assert_eq!(answers, each);
                        expect.extend(block.iter().map(|&d| one.observe(d)));
                        batch.observe_digests(block, &mut got);
                    }
                }
                assert_eq!(got, expect, "{family}");
                assert!(got.contains(&Verdict::Duplicate) && got.contains(&Verdict::Unseen));
                let (one, batch) = (one.into_filter(), batch.into_filter());
                assert_eq!(batch.to_bytes(), one.to_bytes(), "{family}");
            }
        }
    }
}
