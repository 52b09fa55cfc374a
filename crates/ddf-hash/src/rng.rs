//! The small seeded generator filters use for their own random choices.

use crate::mix::{GOLDEN_GAMMA, mix64};

/// SplitMix64 (Steele, Lea and Flood): one `u64` of state, fast, and good
/// enough for the choices filters make (QHT's random eviction, SBF's random
/// decrements, stream generators). Every filter owns one, seeded, so runs replay
/// exactly and a snapshot restores the state with [`state`](Self::state).
///
/// Not a cryptographic generator: its outputs reveal its state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_hash::SplitMix64;
    ///
    /// let (mut a, mut b) = (SplitMix64::new(1), SplitMix64::new(1));
    /// assert_eq!(a.next_u64(), b.next_u64());
    /// ```
    #[must_use]
    pub const fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The current state; [`new`](Self::new) with it resumes the sequence.
    #[must_use]
    pub const fn state(&self) -> u64 {
        self.state
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN_GAMMA);
        mix64(self.state)
    }

    /// A value in `0..n` by multiply-shift (bias at most `n / 2^64`); 0 when `n` is 0.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// A uniform `f64` in `[0, 1)` with 53 random bits.
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// `true` with probability `p` (clamped to `[0, 1]`).
    #[inline]
    pub fn chance(&mut self, p: f64) -> bool {
        self.next_f64() < p
    }

    /// An independent generator split off this one, for a sub-stream or a thread.
    #[must_use]
    pub fn fork(&mut self) -> SplitMix64 {
        SplitMix64::new(mix64(self.next_u64()))
    }
}

/// A [`SplitMix64`] that remembers its seed: what a randomised filter owns,
/// so that `clear` can return it to its just-constructed state
/// ([`reset`](Self::reset)) and a snapshot can store seed and position
/// ([`seed`](Self::seed), [`state`](Self::state), [`resume`](Self::resume)).
/// Dereferences to the generator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeededRng {
    seed: u64,
    rng: SplitMix64,
}

impl SeededRng {
    /// A generator at the start of the sequence of `seed`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_hash::SeededRng;
    ///
    /// let mut a = SeededRng::new(5);
    /// let first = a.next_u64();
    /// assert_eq!(SeededRng::new(5).next_u64(), first);
    /// ```
    #[must_use]
    pub const fn new(seed: u64) -> Self {
        SeededRng {
            seed,
            rng: SplitMix64::new(seed),
        }
    }

    /// A generator of seed `seed` resumed at `state` (from [`state`](Self::state)).
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_hash::SeededRng;
    ///
    /// let mut a = SeededRng::new(5);
    /// a.next_u64();
    /// let mut b = SeededRng::resume(5, a.state());
    /// assert_eq!(a.next_u64(), b.next_u64());
    /// ```
    #[must_use]
    pub const fn resume(seed: u64, state: u64) -> Self {
        SeededRng {
            seed,
            rng: SplitMix64::new(state),
        }
    }

    /// The seed.
    #[must_use]
    pub const fn seed(&self) -> u64 {
        self.seed
    }

    /// The current position in the sequence.
    #[must_use]
    pub const fn state(&self) -> u64 {
        self.rng.state()
    }

    /// Back to the start of the seed's sequence.
    pub fn reset(&mut self) {
        self.rng = SplitMix64::new(self.seed);
    }
}

impl std::ops::Deref for SeededRng {
    type Target = SplitMix64;
    fn deref(&self) -> &SplitMix64 {
        &self.rng
    }
}

impl std::ops::DerefMut for SeededRng {
    fn deref_mut(&mut self) -> &mut SplitMix64 {
        &mut self.rng
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_resumes_sequence() {
        let mut a = SplitMix64::new(7);
        a.next_u64();
        let mut b = SplitMix64::new(a.state());
        assert_eq!(a.next_u64(), b.next_u64());
    }

    #[test]
    fn seeded_rng_resets_and_resumes() {
        let mut a = SeededRng::new(5);
        let first = a.next_u64();
        let b = SeededRng::resume(a.seed(), a.state());
        a.reset();
        assert_eq!(a.next_u64(), first);
        assert_eq!(b.seed(), 5);
        assert_eq!(b.state(), a.state());
    }

    #[test]
    fn below_and_f64_ranges() {
        let mut r = SplitMix64::new(1);
        for _ in 0..10_000 {
            assert!(r.below(13) < 13);
            let x = r.next_f64();
            assert!((0.0..1.0).contains(&x));
        }
        assert_eq!(r.below(0), 0);
    }
}
