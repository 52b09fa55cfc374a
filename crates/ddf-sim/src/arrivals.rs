//! Seeded timestamp generators for time-window simulations.

use ddf_core::ParamError;
use ddf_hash::SplitMix64;

/// When items arrive, for filters with time windows (`observe_at`).
#[derive(Debug, Clone)]
pub enum Arrivals {
    /// One item every `gap` time units.
    Constant {
        /// Time between items.
        gap: u64,
        /// The next timestamp.
        next: u64,
    },
    /// A Poisson process: exponential gaps of mean `mean_gap`, rounded down.
    Poisson {
        /// Mean time between items.
        mean_gap: f64,
        /// The current time, unrounded.
        now: f64,
        /// Generator of the gaps.
        rng: SplitMix64,
    },
}

impl Arrivals {
    /// One item every `gap` units, starting at 0.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_sim::Arrivals;
    ///
    /// let mut a = Arrivals::constant(10);
    /// assert_eq!((a.next_time(), a.next_time()), (0, 10));
    /// ```
    pub fn constant(gap: u64) -> Self {
        Arrivals::Constant { gap, next: 0 }
    }

    /// Poisson arrivals with mean gap `mean_gap` (finite, > 0), seeded.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_sim::Arrivals;
    ///
    /// let mut a = Arrivals::poisson(10.0, 1)?;
    /// let (t0, t1) = (a.next_time(), a.next_time());
    /// assert!(t1 >= t0);
    /// assert!(Arrivals::poisson(0.0, 1).is_err());
    /// # Ok::<(), ddf_core::ParamError>(())
    /// ```
    pub fn poisson(mean_gap: f64, seed: u64) -> Result<Self, ParamError> {
        if !(mean_gap > 0.0 && mean_gap.is_finite()) {
            return Err(ParamError::new(
                "mean_gap",
                mean_gap,
                "a finite number above 0",
            ));
        }
        Ok(Arrivals::Poisson {
            mean_gap,
            now: 0.0,
            rng: SplitMix64::new(seed),
        })
    }

    /// The next timestamp (non-decreasing).
    pub fn next_time(&mut self) -> u64 {
        match self {
            Arrivals::Constant { gap, next } => {
                let t = *next;
                *next = next.saturating_add(*gap);
                t
            }
            Arrivals::Poisson { mean_gap, now, rng } => {
                // Inverse CDF of the exponential; 1 − u is in (0, 1].
                *now += -(1.0 - rng.next_f64()).ln() * *mean_gap;
                *now as u64
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_and_poisson() {
        let mut c = Arrivals::constant(5);
        assert_eq!([c.next_time(), c.next_time(), c.next_time()], [0, 5, 10]);
        let mut p = Arrivals::poisson(10.0, 1).unwrap();
        let mut last = 0;
        for _ in 0..100_000 {
            let t = p.next_time();
            assert!(t >= last);
            last = t;
        }
        // Mean gap 10 over 1e5 items: total ≈ 1e6 ± 5·sd (sd = 10·sqrt(1e5) ≈ 3162).
        assert!((last as f64 - 1e6).abs() < 5.0 * 3162.0, "{last}");
        assert!(Arrivals::poisson(0.0, 1).is_err());
    }
}
