//! Sizing without building (sliding-window paper §3.2): what a filter of
//! window `w` and hash width `h` costs and gets wrong, and the `h` a target
//! or a budget asks for.

use crate::ring;
use crate::{CompactShf, Shf};
use ddf_core::{Goal, ParamError, Prediction};
use ddf_theory::shf::{cshf_hash_bits, shf_hash_bits, shf_memory_bits, stored_hashes_fp};

/// The narrowest `h` in 1..=64 whose false-positive probability
/// `1 − (1 − 2^−h)^w` is at most `fpr`.
fn narrowest_for(window: u64, fpr: f64) -> Result<u32, ParamError> {
    let fpr = ddf_param::ensure_probability("fpr", fpr)?;
    (1..=64u32)
        .find(|&h| stored_hashes_fp(f64::from(h), window as f64) <= fpr)
        .ok_or_else(|| {
            ParamError::new(
                "fpr",
                fpr,
                format!("a rate 64-bit hashes reach for a window of {window}"),
            )
        })
}

/// `⌊h⌋` capped at 64 when at least 1, for the widest hash a budget holds.
fn widest(h: f64, budget: u64, window: u64) -> Result<u32, ParamError> {
    if h >= 1.0 {
        Ok(h.min(64.0) as u32)
    } else {
        Err(ParamError::new(
            "memory_bits",
            budget,
            format!("enough bits for 1-bit hashes of a window of {window}"),
        ))
    }
}

impl Shf {
    /// What [`new`](Shf::new)`(window, hash_bits)` predicts, without building
    /// it (Theorem 3): `M = 2·w·h + w·log₂ w` bits, false-positive
    /// probability `1 − (1 − 2^−h)^w` once the window is full, no misses, no
    /// slack, four accesses (the ring slot, the dictionary probe, the new and
    /// the evicted hash's counters). Fails as `new` does.
    pub fn sizing(window: u64, hash_bits: u32) -> Result<Prediction, ParamError> {
        ring::check(window, hash_bits)?;
        crate::table::check(window, hash_bits)?;
        let (h, w) = (f64::from(hash_bits), window as f64);
        Ok(Prediction::exact_window(
            shf_memory_bits(h, w).ceil() as u64,
            stored_hashes_fp(h, w),
            4.0,
        ))
    }

    /// The hash width for `goal` over `window`: the narrowest that meets a
    /// false-positive target, or the widest a budget holds (Algorithm 1's
    /// SETUP, `h = ⌊M/(2w) − ½·log₂ w⌋`, at most 64).
    pub fn parameters_for(goal: Goal, window: u64) -> Result<u32, ParamError> {
        ring::check(window, 1)?;
        match goal {
            Goal::Fpr(fp) => narrowest_for(window, fp),
            Goal::Budget(m) => widest(shf_hash_bits(m as f64, window as f64).floor(), m, window),
        }
    }
}

impl CompactShf {
    /// What [`new`](CompactShf::new)`(window, hash_bits)` predicts, without
    /// building it: `w·h` bits, the SHF's false-positive probability, no
    /// misses, no slack; a lookup scans the ring one word of `⌊64/h⌋`
    /// hashes at a time and the insertion writes one slot,
    /// `⌈w/⌊64/h⌋⌉ + 1` accesses, of which the `⌈w/⌊64/h⌋⌉` words of the
    /// scan are [`scanned_words`](Prediction::scanned_words) (read in order;
    /// see [`CompactShf`] for what that costs). Fails as `new` does.
    pub fn sizing(window: u64, hash_bits: u32) -> Result<Prediction, ParamError> {
        ring::check(window, hash_bits)?;
        let words = scanned_words(window, hash_bits);
        Ok(Prediction::exact_window(
            window * u64::from(hash_bits),
            stored_hashes_fp(f64::from(hash_bits), window as f64),
            words as f64 + 1.0,
        )
        .with_scan(words))
    }

    /// The hash width for `goal` over `window`: the narrowest that meets a
    /// false-positive target, or the widest a budget holds (`h = ⌊M/w⌋`, at
    /// most 64).
    pub fn parameters_for(goal: Goal, window: u64) -> Result<u32, ParamError> {
        ring::check(window, 1)?;
        match goal {
            Goal::Fpr(fp) => narrowest_for(window, fp),
            Goal::Budget(m) => widest(cshf_hash_bits(m as f64, window as f64).floor(), m, window),
        }
    }
}

/// The words a full ring's scan reads: `⌊64/h⌋` hashes each
/// ([`ddf_bits::FieldScan`]), the last word partial.
fn scanned_words(window: u64, hash_bits: u32) -> u64 {
    window.div_ceil(u64::from(64 / hash_bits))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ddf_core::DuplicateFilter;

    #[test]
    fn sizing_matches_the_built_filters() {
        for (w, h) in [(1u64, 1u32), (1000, 17), (4096, 64)] {
            let s = Shf::sizing(w, h).unwrap();
            assert_eq!(s.memory_bits, Shf::new(w, h).unwrap().memory_bits());
            let c = CompactShf::sizing(w, h).unwrap();
            assert_eq!(c.memory_bits, CompactShf::new(w, h).unwrap().memory_bits());
            assert_eq!(c.scanned_words, w.div_ceil(u64::from(64 / h)));
            assert_eq!(s.scanned_words, 0);
        }
    }

    #[test]
    fn sizing_rejects_what_new_rejects() {
        for (w, h) in [(0u64, 8u32), (1 << 32, 8), (10, 0), (10, 65)] {
            let new = Shf::new(w, h).unwrap_err().param();
            assert_eq!(Shf::sizing(w, h).unwrap_err().param(), new);
            assert_eq!(CompactShf::sizing(w, h).unwrap_err().param(), new);
        }
    }

    #[test]
    fn hash_bits_meet_the_goal() {
        let h = Shf::parameters_for(Goal::Fpr(0.001), 10_000).unwrap();
        assert!(Shf::sizing(10_000, h).unwrap().fpr <= 0.001);
        assert!(Shf::sizing(10_000, h - 1).unwrap().fpr > 0.001);
        let h = CompactShf::parameters_for(Goal::Budget(200_000), 10_000).unwrap();
        assert_eq!(h, 20);
        assert!(Shf::parameters_for(Goal::Budget(100), 10_000).is_err());
        assert!(Shf::parameters_for(Goal::Fpr(1e-300), 10).is_err());
    }
}
