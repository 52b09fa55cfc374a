//! The caller's clock as every timed filter keeps it: the latest time seen,
//! and how often the caller stepped back.
//!
//! Filters never read a clock; the caller passes `now`. A `now` earlier than
//! the latest one seen is *clamped* to the latest (so a clock that steps back
//! neither revives expired items nor expires fresh ones early) and counted,
//! so a caller whose clock misbehaves can see it
//! ([`TimedFilter::clock_regressions`](crate::TimedFilter::clock_regressions)).

use crate::snapshot::{DecodeError, Decoder, Encoder};

/// The latest time seen and the number of insertions that arrived with an
/// earlier one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct TimeClock {
    latest: u64,
    regressions: u64,
}

impl TimeClock {
    /// A clock at time 0 that has seen no regression.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_core::TimeClock;
    ///
    /// let mut clock = TimeClock::new();
    /// assert_eq!(clock.advance(10), 10);
    /// // A time behind the latest is clamped to it and counted.
    /// assert_eq!(clock.advance(5), 10);
    /// assert_eq!(clock.regressions(), 1);
    /// ```
    pub const fn new() -> Self {
        TimeClock {
            latest: 0,
            regressions: 0,
        }
    }

    /// A clock at `latest` that has counted `regressions` steps back: how
    /// a concurrent filter, which keeps the two in its own words, hands its
    /// clock to the single-threaded type.
    ///
    /// ```
    /// let clock = ddf_core::TimeClock::from_parts(42, 3);
    /// assert_eq!((clock.latest(), clock.regressions()), (42, 3));
    /// ```
    pub const fn from_parts(latest: u64, regressions: u64) -> Self {
        TimeClock {
            latest,
            regressions,
        }
    }

    /// The latest time seen.
    #[inline]
    pub const fn latest(&self) -> u64 {
        self.latest
    }

    /// Insertions whose `now` was earlier than the latest time seen.
    #[inline]
    pub const fn regressions(&self) -> u64 {
        self.regressions
    }

    /// The time a query at `now` is answered at: `max(now, latest)`. No
    /// side effects (queries do not count regressions).
    #[inline]
    pub const fn peek(&self, now: u64) -> u64 {
        if now > self.latest { now } else { self.latest }
    }

    /// Moves the clock for an insertion at `now` and returns the time it
    /// happens at, `max(now, latest)`; a `now` behind the latest is counted.
    #[inline]
    pub fn advance(&mut self, now: u64) -> u64 {
        if now < self.latest {
            // Saturating: a snapshot may carry any count.
            self.regressions = self.regressions.saturating_add(1);
        } else {
            self.latest = now;
        }
        self.latest
    }

    /// Writes the latest time and the regression count (two `u64`).
    pub fn encode(&self, out: &mut Encoder) {
        out.put_u64(self.latest);
        out.put_u64(self.regressions);
    }

    /// Reads what [`encode`](Self::encode) wrote. Any pair is a valid clock;
    /// the filter checks the latest time against its own state.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_core::TimeClock;
    /// use ddf_core::snapshot::{Decoder, Encoder};
    ///
    /// let mut clock = TimeClock::new();
    /// clock.advance(42);
    /// let mut out = Encoder::new();
    /// clock.encode(&mut out);
    /// let bytes = out.into_bytes();
    /// let again = TimeClock::decode(&mut Decoder::new(&bytes))?;
    /// assert_eq!(again.latest(), 42);
    /// # Ok::<(), ddf_core::DecodeError>(())
    /// ```
    pub fn decode(input: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        Ok(TimeClock {
            latest: input.u64("latest time")?,
            regressions: input.u64("clock regressions")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_back_are_clamped_and_counted() {
        let mut c = TimeClock::new();
        assert_eq!(c.advance(10_000), 10_000);
        assert_eq!(c.peek(5), 10_000);
        assert_eq!(c.regressions(), 0, "a query counts nothing");
        assert_eq!(c.advance(5), 10_000);
        assert_eq!(c.advance(10_000), 10_000);
        assert_eq!(c.advance(10_001), 10_001);
        assert_eq!((c.latest(), c.regressions()), (10_001, 1));
    }
}
