//! Fixed-width fingerprints and the three ways of keeping 0 free for "empty".

use crate::digest::Digest;
use crate::mix::{GOLDEN_GAMMA, mix64};
use ddf_param::{ParamError, ensure_range};

/// How a fingerprint of value 0 is handled, since fingerprint tables use 0 to
/// mark an empty cell (QHT paper §3.2, "Empty Cells").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ZeroPolicy {
    /// Option 1: 0 is an ordinary fingerprint. An item whose fingerprint is 0
    /// is reported as a duplicate by any empty cell, so young filters show
    /// extra false positives; `S = 2^s` values.
    TreatAsValue,
    /// Option 2: a fingerprint of 0 becomes 1. Fast, but 1 is twice as likely
    /// as any other value; `S = 2^s − 1` values, not uniform.
    MapToOne,
    /// Option 3: while the fingerprint is 0, derive a new one from the digest
    /// by a fixed scheme. Uniform over `1..2^s`, which the QHT analysis
    /// assumes; `S = 2^s − 1` values. The default.
    #[default]
    Rehash,
}

impl ZeroPolicy {
    /// A stable one-byte code, used in snapshots.
    pub const fn code(self) -> u8 {
        match self {
            ZeroPolicy::TreatAsValue => 0,
            ZeroPolicy::MapToOne => 1,
            ZeroPolicy::Rehash => 2,
        }
    }

    /// The policy of a [`code`](Self::code), if it is one.
    pub const fn from_code(code: u8) -> Option<Self> {
        match code {
            0 => Some(ZeroPolicy::TreatAsValue),
            1 => Some(ZeroPolicy::MapToOne),
            2 => Some(ZeroPolicy::Rehash),
            _ => None,
        }
    }
}

/// Rounds of rehashing before [`ZeroPolicy::Rehash`] gives up and maps to 1.
/// At `s = 1` all of them come out 0 with probability 2^-64.
const MAX_REHASH_ROUNDS: u64 = 64;

/// Derives `s`-bit fingerprints (`fingerprint_bits`, the paper's `s` or σ) from digests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fingerprinter {
    bits: u32,
    policy: ZeroPolicy,
}

impl Fingerprinter {
    /// A fingerprinter of `bits` bits (1..=32) under `policy`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_hash::{Digest, Fingerprinter, ZeroPolicy};
    ///
    /// let f = Fingerprinter::new(3, ZeroPolicy::Rehash)?;
    /// assert!((1..8).contains(&f.fingerprint(Digest::mixed(42))));
    /// assert_eq!(Fingerprinter::new(0, ZeroPolicy::Rehash).unwrap_err().param(), "fingerprint_bits");
    /// # Ok::<(), ddf_hash::ParamError>(())
    /// ```
    pub fn new(bits: u32, policy: ZeroPolicy) -> Result<Self, ParamError> {
        ensure_range("fingerprint_bits", bits, 1..=32)?;
        Ok(Fingerprinter { bits, policy })
    }

    /// The same width under another zero policy.
    #[must_use]
    pub const fn with_policy(self, policy: ZeroPolicy) -> Self {
        Fingerprinter {
            bits: self.bits,
            policy,
        }
    }

    /// The fingerprint width `s` in bits.
    #[inline]
    pub const fn bits(&self) -> u32 {
        self.bits
    }

    /// The zero policy.
    #[inline]
    pub const fn policy(&self) -> ZeroPolicy {
        self.policy
    }

    /// The number of fingerprint values an item can get: the paper's `S`.
    pub const fn distinct_values(&self) -> u64 {
        match self.policy {
            ZeroPolicy::TreatAsValue => 1 << self.bits,
            ZeroPolicy::MapToOne | ZeroPolicy::Rehash => (1 << self.bits) - 1,
        }
    }

    /// The fingerprint of `digest`: its top `s` bits, with 0 handled by the policy.
    ///
    /// Pass the rest from [`Digest::split`] when the same digest also chose a
    /// row, so that fingerprint and row are independent.
    #[inline]
    pub fn fingerprint(&self, digest: Digest) -> u32 {
        // `bits` is in 1..=32 (checked by `new`): a plain shift, no zero case.
        let fp = (digest.get() >> (64 - self.bits)) as u32;
        // A non-zero value is the answer under every policy. From 6 bits on
        // a zero is rare (at most 1/64) and this branch well predicted, so
        // it comes before the policy is even looked at.
        if fp != 0 && self.bits >= 6 {
            return fp;
        }
        match self.policy {
            ZeroPolicy::TreatAsValue => fp,
            ZeroPolicy::MapToOne => fp | u32::from(fp == 0),
            ZeroPolicy::Rehash => {
                // With few bits a zero is common (1/8 at s = 3) and its
                // branch unpredictable, so the first rehash round is computed
                // always and selected without a branch; only a second zero
                // (probability 2^-2s) takes the loop.
                let first = self.round(digest, 1);
                let fp = if fp != 0 { fp } else { first };
                if fp != 0 { fp } else { self.rehash(digest) }
            }
        }
    }

    /// The fingerprint of rehash round `round` (0 is not a round).
    #[inline]
    fn round(&self, digest: Digest, round: u64) -> u32 {
        let x = mix64(digest.get().wrapping_add(round.wrapping_mul(GOLDEN_GAMMA)));
        Digest::new(x).top_bits(self.bits) as u32
    }

    /// Rounds 2 and later of [`ZeroPolicy::Rehash`], after round 1 also gave 0.
    #[cold]
    fn rehash(&self, digest: Digest) -> u32 {
        (2..=MAX_REHASH_ROUNDS)
            .map(|round| self.round(digest, round))
            .find(|&fp| fp != 0)
            .unwrap_or(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn width_is_validated() {
        for bad in [0, 33, 64] {
            let err = Fingerprinter::new(bad, ZeroPolicy::Rehash).unwrap_err();
            assert_eq!(err.param(), "fingerprint_bits");
        }
        assert!(Fingerprinter::new(1, ZeroPolicy::Rehash).is_ok());
        assert!(Fingerprinter::new(32, ZeroPolicy::Rehash).is_ok());
    }

    #[test]
    fn zero_digest_under_each_policy() {
        let zero = Digest::new(0);
        let f = |p| Fingerprinter::new(8, p).unwrap();
        assert_eq!(f(ZeroPolicy::TreatAsValue).fingerprint(zero), 0);
        assert_eq!(f(ZeroPolicy::MapToOne).fingerprint(zero), 1);
        let fp = f(ZeroPolicy::Rehash).fingerprint(zero);
        assert!(fp != 0 && fp < 256);
    }

    #[test]
    fn distinct_values_is_s() {
        assert_eq!(
            Fingerprinter::new(3, ZeroPolicy::TreatAsValue)
                .unwrap()
                .distinct_values(),
            8
        );
        assert_eq!(
            Fingerprinter::new(3, ZeroPolicy::Rehash)
                .unwrap()
                .distinct_values(),
            7
        );
        assert_eq!(
            Fingerprinter::new(32, ZeroPolicy::MapToOne)
                .unwrap()
                .distinct_values(),
            u32::MAX as u64
        );
    }

    #[test]
    fn policy_codes_round_trip() {
        for p in [
            ZeroPolicy::TreatAsValue,
            ZeroPolicy::MapToOne,
            ZeroPolicy::Rehash,
        ] {
            assert_eq!(ZeroPolicy::from_code(p.code()), Some(p));
        }
        assert_eq!(ZeroPolicy::from_code(3), None);
    }

    #[test]
    fn rehash_is_uniform_over_nonzero_values() {
        // 2-bit fingerprints: values 1, 2, 3 each with probability 1/3.
        let f = Fingerprinter::new(2, ZeroPolicy::Rehash).unwrap();
        let mut counts = [0u32; 4];
        let n = 300_000u64;
        for i in 0..n {
            counts[f.fingerprint(Digest::mixed(i)) as usize] += 1;
        }
        assert_eq!(counts[0], 0);
        // Each count is Binomial(n, 1/3): sd ≈ 258; allow 5 sd.
        for &c in &counts[1..] {
            assert!(
                (c as f64 - n as f64 / 3.0).abs() < 5.0 * 258.2,
                "{counts:?}"
            );
        }
    }
}
