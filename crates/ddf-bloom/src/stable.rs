//! The Stable Bloom filter (Deng and Rafiei): cells that decay at random.

use ddf_bits::PackedArray;
use ddf_core::snapshot::{self, DecodeError, Decoder, Encoder, Snapshot};
use ddf_core::{Digest, DuplicateFilter, ParamError};
use ddf_hash::SeededRng;
use ddf_param::{ensure_probability, ensure_range};
use std::fmt;

/// The seed of a filter's decrement generator unless
/// [`with_seed`](StableBloom::with_seed) sets another.
pub const DEFAULT_SEED: u64 = 0x5b1e_b100_0000_0001;

/// The widest cell: `Max = 2^16 − 1` is far beyond the papers' 1–3 bits.
pub const MAX_CELL_BITS: u32 = 16;

/// The most probes per item (`K`).
pub const MAX_PROBES: u32 = 64;

/// A Stable Bloom filter (SBF): `m` cells of `d` bits, `K` probes per item,
/// `P` decrements per insertion (Deng and Rafiei, *Approximately detecting
/// duplicates for streaming data using stable Bloom filters*, as described
/// in the APBF paper §3.3 and benchmarked in the QHT paper §6).
///
/// Insert first decrements `P` cells (those above zero), then sets the
/// item's `K` cells to `Max = 2^d − 1`; an item is reported as a duplicate
/// when **all** its `K` cells are non-zero. The `P` cells are a run of
/// consecutive cells from a uniformly random start (the cheap variant the
/// QHT authors' benchmark code attributes to the SBF paper): each cell is
/// still decremented with probability `P/m` per insertion, which is all the
/// stable-point analysis uses. The start comes from the filter's own
/// [`SeededRng`], so runs replay exactly.
///
/// Old items decay at random, so an SBF has false negatives at any age; in
/// exchange the fraction of zero cells converges to a stable point
/// ([`ddf_theory::stable_bloom::stable_zero_fraction`]) and the
/// false-positive rate to `(1 − P0)^K` whatever the stream's length.
///
/// # Examples
///
/// ```
/// use ddf_bloom::{Deduper, StableBloom, Verdict};
///
/// let mut seen = Deduper::new(StableBloom::with_memory(1_000_000, 2, 2, 0.02)?);
/// assert_eq!(seen.observe("url-1"), Verdict::Unseen);
/// assert_eq!(seen.observe("url-1"), Verdict::Duplicate);
/// # Ok::<(), ddf_bloom::ParamError>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct StableBloom {
    cells: PackedArray,
    /// `K`.
    probes: u32,
    /// `P`.
    decrements: u64,
    rng: SeededRng,
}

impl StableBloom {
    /// `cells` (`m ≥ 1`) cells of `cell_bits` (`d`, 1..=16) bits, `probes`
    /// (`K`, 1..=64) probes per item and `decrements` (`P`, 1..=`m`)
    /// decrements per insertion.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_bloom::{Digest, DuplicateFilter, StableBloom, Verdict};
    ///
    /// // 500,000 cells of 2 bits, 2 probes, 39 decrements per insertion.
    /// let mut f = StableBloom::new(500_000, 2, 2, 39)?;
    /// assert_eq!(f.memory_bits(), 1_000_000);
    /// assert_eq!(f.observe(Digest::mixed(9)), Verdict::Unseen);
    /// assert!(f.contains(Digest::mixed(9)));
    /// assert_eq!(StableBloom::new(500_000, 2, 2, 0).unwrap_err().param(), "decrements");
    /// # Ok::<(), ddf_bloom::ParamError>(())
    /// ```
    pub fn new(
        cells: u64,
        cell_bits: u32,
        probes: u32,
        decrements: u64,
    ) -> Result<Self, ParamError> {
        let cell_bits = ensure_range("cell_bits", cell_bits, 1..=MAX_CELL_BITS)?;
        let cells = ensure_range("cells", cells, 1..=ddf_param::MAX_STATE_BITS)?;
        let probes = ensure_range("probes", probes, 1..=MAX_PROBES)?;
        let decrements = ensure_range("decrements", decrements, 1..=cells)?;
        Ok(StableBloom {
            cells: PackedArray::new(cells, cell_bits).map_err(|e| rename(e, "cells"))?,
            probes,
            decrements,
            rng: SeededRng::new(DEFAULT_SEED),
        })
    }

    /// An SBF in `memory_bits` bits (`m = ⌊memory_bits/d⌋` cells) whose
    /// stable false-positive rate is at most `fpr`: `P` is the stable-point
    /// formula solved for `fpr` ([`ddf_theory::stable_bloom::decrements_for_fp`]),
    /// rounded up, and at least 1.
    ///
    /// The QHT paper's configuration is `with_memory(M, 2, 2, 0.02)`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_bloom::StableBloom;
    ///
    /// let f = StableBloom::with_memory(1_000_000, 2, 2, 0.02)?;
    /// assert_eq!((f.cells(), f.decrements()), (500_000, 39));
    /// # Ok::<(), ddf_bloom::ParamError>(())
    /// ```
    pub fn with_memory(
        memory_bits: u64,
        cell_bits: u32,
        probes: u32,
        fpr: f64,
    ) -> Result<Self, ParamError> {
        let fpr = ensure_probability("fpr", fpr)?;
        let d = ensure_range("cell_bits", cell_bits, 1..=MAX_CELL_BITS)?;
        let k = ensure_range("probes", probes, 1..=MAX_PROBES)?;
        let cells = memory_bits / u64::from(d);
        if cells <= u64::from(k) {
            return Err(ParamError::new(
                "memory_bits",
                memory_bits,
                format!("room for more than {k} cells of {d} bits"),
            ));
        }
        let max = f64::from((1u32 << d) - 1);
        let p = ddf_theory::stable_bloom::decrements_for_fp(cells as f64, f64::from(k), max, fpr);
        // The rate falls as P grows, so rounding up keeps it at or below fpr.
        let decrements = if p.is_finite() {
            p.ceil().clamp(1.0, cells as f64) as u64
        } else {
            1
        };
        Self::new(cells, d, k, decrements)
    }

    /// What [`new`](Self::new)`(cells, cell_bits, probes, decrements)`
    /// predicts at its stable point, reached on any long stream, when the
    /// number of distinct items is unknown: `FPR = (1 − p₀)^K`
    /// ([`stable_fp`](ddf_theory::stable_bloom::stable_fp), Deng–Rafiei
    /// Theorem 2) and the worst-case FNR of an item whose cells have all
    /// decayed since it was last seen, found only by a false positive:
    /// `1 − FPR`. `m·d` bits; `K + 1` accesses (the probes and one run of
    /// `P` decremented cells). Fails as `new` does.
    pub fn saturated_sizing(
        cells: u64,
        cell_bits: u32,
        probes: u32,
        decrements: u64,
    ) -> Result<ddf_core::Prediction, ParamError> {
        let d = ensure_range("cell_bits", cell_bits, 1..=MAX_CELL_BITS)?;
        let m = ensure_range("cells", cells, 1..=ddf_param::MAX_STATE_BITS)?;
        let k = ensure_range("probes", probes, 1..=MAX_PROBES)?;
        let p = ensure_range("decrements", decrements, 1..=m)?;
        let bits = ddf_param::checked_mul("cells", m, u64::from(d))?;
        ddf_param::state_words("cells", bits)?;
        let max = f64::from((1u32 << d) - 1);
        let fpr = ddf_theory::stable_bloom::stable_fp(m as f64, f64::from(k), p as f64, max);
        Ok(
            ddf_core::Prediction::exact_window(bits, fpr, f64::from(k) + 1.0)
                .with_misses(1.0 - fpr),
        )
    }

    /// The `(m, d, K, P)` within `memory_bits` whose stable FPR is at most
    /// `fpr` ([`with_memory`](Self::with_memory)'s `P` for each
    /// `d ≤ 4`, `K ≤ 8`) and that remembers longest: a cell set to `Max`
    /// reaches 0 after about `Max·m/P` insertions, so the most `Max·m/P`
    /// wins (ties: the lower FPR). The shape for
    /// [`saturated_sizing`](Self::saturated_sizing).
    pub fn saturated_parameters_for(
        memory_bits: u64,
        fpr: f64,
    ) -> Result<(u64, u32, u32, u64), ParamError> {
        let fpr = ensure_probability("fpr", fpr)?;
        let mut best: Option<(f64, f64, u64, u32, u32, u64)> = None;
        for d in 1..=4u32 {
            for k in 1..=8u32 {
                let cells = memory_bits / u64::from(d);
                if cells <= u64::from(k) {
                    continue;
                }
                let max = f64::from((1u32 << d) - 1);
                let p = ddf_theory::stable_bloom::decrements_for_fp(
                    cells as f64,
                    f64::from(k),
                    max,
                    fpr,
                );
                // The rate falls as P grows: rounding up keeps it ≤ fpr.
                let p = if p.is_finite() {
                    p.ceil().clamp(1.0, cells as f64) as u64
                } else {
                    1
                };
                let Ok(pred) = Self::saturated_sizing(cells, d, k, p) else {
                    continue;
                };
                if pred.fpr.is_nan() || pred.fpr > fpr {
                    continue;
                }
                let memory = max * cells as f64 / p as f64;
                if best.is_none_or(|b| memory > b.0 || (memory == b.0 && pred.fpr < b.1)) {
                    best = Some((memory, pred.fpr, cells, d, k, p));
                }
            }
        }
        let (.., cells, d, k, p) = best.ok_or_else(|| {
            ParamError::new(
                "memory_bits",
                memory_bits,
                format!("a budget some d ≤ 4, K ≤ 8 fill with a stable FPR ≤ {fpr}"),
            )
        })?;
        Ok((cells, d, k, p))
    }

    /// The same filter with its decrement generator seeded by `seed`.
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.rng = SeededRng::new(seed);
        self
    }

    /// The number of cells, `m`.
    pub fn cells(&self) -> u64 {
        self.cells.len()
    }

    /// Bits per cell, `d`.
    pub fn cell_bits(&self) -> u32 {
        self.cells.width()
    }

    /// Probes per item, `K`.
    pub fn probes(&self) -> u32 {
        self.probes
    }

    /// Decrements per insertion, `P`.
    pub fn decrements(&self) -> u64 {
        self.decrements
    }

    /// How many of the `K` probed cells of `digest` are non-zero (a probe
    /// that repeats a cell counts again). [`contains`](DuplicateFilter::contains)
    /// is `live_probes == K`.
    ///
    /// This exposes the lookup the QHT authors' benchmark code performs,
    /// "any probe non-zero" (`live_probes > 0`), so that `cargo xtask verify`
    /// can measure it against ours (see `docs/errata.md`).
    pub fn live_probes(&self, digest: Digest) -> u32 {
        self.positions(digest)
            .map(|i| u32::from(self.cells.get(i) != 0))
            .sum()
    }

    /// The number of cells at zero: at the stable point a fraction `P0` of `m`.
    pub fn zero_cells(&self) -> u64 {
        self.cells.iter().filter(|&v| v == 0).count() as u64
    }

    #[inline]
    fn positions(&self, digest: Digest) -> impl Iterator<Item = u64> + use<> {
        digest.probes(self.cells.len()).take(self.probes as usize)
    }
}

fn rename(e: ParamError, param: &'static str) -> ParamError {
    ParamError::new(param, e.value(), e.expected().to_owned())
}

/// The whole stream: the Stable Bloom filter forgets by random decrements
/// (false negatives), not by a window.
impl ddf_core::Windowed for StableBloom {
    fn window(&self) -> ddf_core::Window {
        ddf_core::Window::Unbounded
    }
}

impl DuplicateFilter for StableBloom {
    #[inline]
    fn contains(&self, digest: Digest) -> bool {
        self.positions(digest).all(|i| self.cells.get(i) != 0)
    }

    fn insert(&mut self, digest: Digest) {
        let start = self.rng.below(self.cells.len());
        self.cells.saturating_decrement_run(start, self.decrements);
        let max = self.cells.max_value();
        for i in self.positions(digest) {
            self.cells.set(i, max);
        }
    }

    /// `m·d`.
    fn memory_bits(&self) -> u64 {
        self.cells.memory_bits()
    }

    fn clear(&mut self) {
        self.cells.clear();
        self.rng.reset();
    }
}

/// Refused: a Stable Bloom filter forgets by decrements drawn at each
/// insertion of one stream, so two states have no union with its promise.
impl ddf_core::Merge for StableBloom {
    fn merge(&mut self, _other: &Self) -> Result<(), ddf_core::MergeError> {
        Err(ddf_core::MergeError::Unsupported {
            family: "Stable Bloom",
            reason: "its cells decay with each insertion of one stream",
        })
    }
}

impl fmt::Debug for StableBloom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StableBloom")
            .field("cells", &self.cells.len())
            .field("cell_bits", &self.cells.width())
            .field("probes", &self.probes)
            .field("decrements", &self.decrements)
            .field("seed", &self.rng.seed())
            .finish_non_exhaustive()
    }
}

/// Body: cells (u64), cell bits (u8), probes (u32), decrements (u64), the
/// generator (seed and state, `Encoder::put_rng`), the cells as words.
impl Snapshot for StableBloom {
    const KIND: u16 = snapshot::kind::STABLE_BLOOM;

    fn encode_body(&self, out: &mut Encoder) {
        out.put_u64(self.cells.len());
        out.put_u8(self.cells.width() as u8);
        out.put_u32(self.probes);
        out.put_u64(self.decrements);
        out.put_rng(&self.rng);
        out.put_words(self.cells.as_words());
    }

    fn decode_body(input: &mut Decoder<'_>, _version: u16) -> Result<Self, DecodeError> {
        let cells = input.u64("cells")?;
        let cell_bits = u32::from(input.u8("cell_bits")?);
        let probes = input.u32("probes")?;
        let decrements = input.u64("decrements")?;
        let rng = input.rng("generator")?;
        let words = input.words("cells")?;
        let total = ddf_param::checked_mul("cells", cells, u64::from(cell_bits))?;
        crate::expect_words(&words, total, "cells")?;
        let mut f = StableBloom::new(cells, cell_bits, probes, decrements)?;
        f.rng = rng;
        f.cells = PackedArray::from_words(cells, cell_bits, words)?;
        Ok(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saturated_sizing_agrees_with_new_and_meets_its_target() {
        let p = StableBloom::saturated_sizing(500_000, 2, 2, 39).unwrap();
        assert_eq!(p.memory_bits, 1_000_000);
        assert!(p.fpr <= 0.02 && (p.fpr + p.fnr - 1.0).abs() < 1e-12);
        assert_eq!(
            StableBloom::saturated_sizing(500_000, 2, 2, 0)
                .unwrap_err()
                .param(),
            "decrements"
        );
        let (m, d, k, pd) = StableBloom::saturated_parameters_for(1 << 20, 0.01).unwrap();
        let p = StableBloom::saturated_sizing(m, d, k, pd).unwrap();
        assert!(p.fpr <= 0.01 && p.memory_bits <= 1 << 20);
        assert!(StableBloom::saturated_parameters_for(1, 0.01).is_err());
    }

    #[test]
    fn parameters_are_checked() {
        assert_eq!(StableBloom::new(0, 2, 2, 1).unwrap_err().param(), "cells");
        assert_eq!(
            StableBloom::new(10, 0, 2, 1).unwrap_err().param(),
            "cell_bits"
        );
        assert_eq!(
            StableBloom::new(10, 17, 2, 1).unwrap_err().param(),
            "cell_bits"
        );
        assert_eq!(StableBloom::new(10, 2, 0, 1).unwrap_err().param(), "probes");
        assert_eq!(
            StableBloom::new(10, 2, 2, 0).unwrap_err().param(),
            "decrements"
        );
        assert_eq!(
            StableBloom::new(10, 2, 2, 11).unwrap_err().param(),
            "decrements"
        );
        assert_eq!(
            StableBloom::new(1 << 40, 2, 2, 1).unwrap_err().param(),
            "cells"
        );
        assert_eq!(
            StableBloom::with_memory(4, 2, 2, 0.02).unwrap_err().param(),
            "memory_bits"
        );
        assert_eq!(
            StableBloom::with_memory(1000, 2, 2, 0.0)
                .unwrap_err()
                .param(),
            "fpr"
        );
    }

    #[test]
    fn qht_configuration() {
        // 10^6 bits, 2 bits per cell, 2 probes, 2 %: P = ⌈38.36⌉.
        let f = StableBloom::with_memory(1_000_000, 2, 2, 0.02).unwrap();
        assert_eq!(
            (f.cells(), f.cell_bits(), f.probes(), f.decrements()),
            (500_000, 2, 2, 39)
        );
        assert_eq!(f.memory_bits(), 1_000_000);
    }

    #[test]
    fn fresh_items_are_found_and_old_ones_decay() {
        let mut f = StableBloom::new(1000, 2, 3, 50).unwrap();
        f.insert(Digest::mixed(0));
        assert!(f.contains(Digest::mixed(0)));
        assert_eq!(f.live_probes(Digest::mixed(0)), 3);
        for i in 1..2000 {
            f.insert(Digest::mixed(i));
        }
        let zeros = f.zero_cells();
        assert!(zeros > 0 && zeros < 1000);
        // P = m and d = 1: every insertion wipes the filter first.
        let mut g = StableBloom::new(1000, 1, 3, 1000).unwrap();
        g.insert(Digest::mixed(1));
        g.insert(Digest::mixed(2));
        assert!(g.contains(Digest::mixed(2)) && !g.contains(Digest::mixed(1)));
        assert_eq!(g.zero_cells(), 997);
    }
}
