//! Merging time windows kept on several nodes, entry by entry.

use super::SlidingBloom;
use crate::plan::Clock;
use ddf_core::{MergeError, TimeClock};

/// Time windows merge entry by entry: a time generation is `⌊t/τ⌋` of the
/// caller's clock for every filter, so both are brought to the later of
/// their latest times and each active entry of the other side is recorded
/// here at its age, unless this side holds it younger. The merged filter
/// reports every item either side reported (each entry keeps the age its
/// side gave it), and holds the union of the active entries, at most the
/// `(c + 1)·g` it was sized for while the combined stream stays within its
/// capacity. Its clock counters (generations, early closes) are this
/// side's; insertions and clock regressions add up. Count windows, and
/// filters of other plans, are refused, naming the difference.
///
/// # Examples
///
/// ```
/// use ddf_sliding::{Digest, DuplicateFilter, Merge, Slack, SlidingBloom, TimedFilter};
///
/// let mut a = SlidingBloom::with_time_span(60_000, Slack::AtMost(6_000), 10_000, 0.01)?;
/// let mut b = a.clone();
/// a.insert_at(Digest::mixed(1), 1_000);
/// b.insert_at(Digest::mixed(2), 30_000);
/// a.merge(&b)?;
/// assert!(a.contains_at(Digest::mixed(1), 60_000) && a.contains_at(Digest::mixed(2), 60_000));
/// let mut count = SlidingBloom::least_space(1_000, 0.01)?;
/// assert!(count.merge(&count.clone()).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl ddf_core::Merge for SlidingBloom {
    fn merge(&mut self, other: &Self) -> Result<(), MergeError> {
        if self.plan.request.clock == Clock::Count && other.plan.request.clock == Clock::Count {
            return Err(MergeError::CountWindow {
                family: "sliding Bloom",
            });
        }
        let window = |f: &Self| match f.plan.request.clock {
            Clock::Count => "count",
            Clock::Time => "time",
        };
        MergeError::check("window", window(self), window(other))?;
        let (p, q) = (&self.plan, &other.plan);
        MergeError::check("time_span", p.request.window, q.request.window)?;
        MergeError::check("generations", p.generations, q.generations)?;
        MergeError::check(
            "generation_capacity",
            p.generation_capacity,
            q.generation_capacity,
        )?;
        MergeError::check("buckets", p.buckets, q.buckets)?;
        MergeError::check("cells_per_bucket", p.cells_per_bucket, q.cells_per_bucket)?;
        MergeError::check("remainder_bits", p.remainder_bits, q.remainder_bits)?;
        MergeError::check("tag_bits", p.tag_bits, q.tag_bits)?;
        if other.insertions == 0 {
            return Ok(());
        }
        if self.insertions == 0 {
            *self = other.clone();
            return Ok(());
        }
        let now = self.clock.latest().max(other.clock.latest());
        self.advance_to(now);
        let ahead = other.generations_ahead(now);
        let c = self.plan.generations;
        let modulus = self.plan.tag_modulus;
        for (key, tag) in other.table.entries() {
            let age = u64::from(other.ages.age(tag)) + ahead;
            if !other.ages.is_active(tag) || age > c {
                continue;
            }
            let slot = self.table.slot(key.bucket, key.remainder);
            let younger_here = self
                .table
                .lookup(slot)
                .is_some_and(|t| self.ages.is_active(t) && u64::from(self.ages.age(t)) <= age);
            if !younger_here {
                // `age ≤ c < 2^s`.
                let tag = (self.tag + modulus - age as u32) % modulus;
                self.table.upsert(slot, tag, &self.ages, &mut self.rng);
            }
        }
        self.recount_active();
        self.insertions = self.insertions.saturating_add(other.insertions);
        let regressions = self
            .clock
            .regressions()
            .saturating_add(other.clock.regressions());
        self.clock = TimeClock::from_parts(now, regressions);
        Ok(())
    }
}
