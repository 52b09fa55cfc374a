//! The Streaming Quotient Filter of Dutta, Narang and Bera, as the QHT paper §2.4 describes it.

use crate::rows::{self, DEFAULT_SEED};
use ddf_bits::{CellRows, RowRules, RowWrite};
use ddf_core::batch::{self, Prefetch};
use ddf_core::snapshot::{self, DecodeError, Decoder, Encoder, Snapshot};
use ddf_core::{Digest, DuplicateFilter, ParamError, Verdict};
use ddf_hash::SeededRng;
use std::fmt;

/// The Streaming Quotient Filter (SQF) of Dutta, Narang and Bera (VLDB 2013),
/// exactly as §2.4 of the QHT paper describes it, so that the paper's
/// corrections can be checked against it.
///
/// Parameters `q, k, r, r'` with `1 ≤ r' < r`: a table of `2^q` rows of `k`
/// cells. An element's hash gives its row (the top `q` bits) and an `r`-bit
/// remainder `h_r` (the next `r` bits); its fingerprint ("signature") is
/// `r'` bits of `h_r` — the `r'` least significant, as footnote 6 suggests —
/// followed by the Hamming weight of `h_r`, so a cell takes
/// `σ = r' + ⌈log₂(r + 1)⌉` bits and there are `S = 2^r'·(r − r' + 1)`
/// reachable fingerprints (§4.4.1), not equiprobable. Stream is QHT's
/// Algorithm 1: a fingerprint present in the row is a duplicate; otherwise
/// it goes to an empty cell, or replaces a random one when the row is full.
///
/// The empty symbol ⊥ costs no code: the pair (`r'` bits = 1, weight 0) can
/// never occur, and the stored value is the fingerprint's code XOR that
/// pair's, so ⊥ is stored as 0 (footnote 16's suggestion).
/// [`with_rows`](Self::with_rows) and [`with_memory`](Self::with_memory)
/// allow a row count that is not a power of two (the row is then chosen by
/// multiply-shift, [`Digest::split`]), which memory budgets such as the
/// paper's 10^4 bits need.
///
/// ```
/// use ddf_core::{Deduper, DuplicateFilter, KeyedSipHasher, Verdict};
/// use ddf_qht::Sqf;
///
/// // The recommended r = 2, r' = 1: σ = 3 bits, S = 4 fingerprints.
/// let sqf = Sqf::new(12, 1, 2, 1)?;
/// assert_eq!((sqf.signature_bits(), sqf.fingerprints()), (3, 4));
/// assert_eq!(sqf.memory_bits(), 4096 * 3);
/// let mut seen = Deduper::with_hasher(sqf, KeyedSipHasher::with_seed(3));
/// assert_eq!(seen.observe("a"), Verdict::Unseen);
/// assert_eq!(seen.observe("a"), Verdict::Duplicate);
/// # Ok::<(), ddf_core::ParamError>(())
/// ```
#[derive(Clone)]
pub struct Sqf {
    cells: CellRows,
    /// `r`, the remainder bits.
    r: u32,
    /// `r'`, the remainder bits kept verbatim.
    r_prime: u32,
    /// `⌈log₂(r + 1)⌉`, the width of the Hamming weight.
    weight_bits: u32,
    rng: SeededRng,
}

impl Sqf {
    /// The largest `q` accepted: `2^q` rows of at least one bit stay below
    /// the 2^40-bit state ceiling.
    pub const MAX_Q: u32 = 40;

    /// An SQF of `2^q` rows of `cells_per_row` cells (`k`), remainder bits
    /// `r` and kept bits `r'` (`1 ≤ r' < r`, `σ = r' + ⌈log₂(r + 1)⌉ ≤ 32`,
    /// `q + r ≤ 64`, `1 ≤ k ≤ min(4096, 2^σ)`), as in the original.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_qht::{Digest, DuplicateFilter, Sqf, Verdict};
    ///
    /// // 2^10 rows of 2 cells, remainders of 8 bits of which 4 are kept.
    /// let mut f = Sqf::new(10, 2, 8, 4)?;
    /// assert_eq!(f.rows(), 1024);
    /// assert_eq!(f.observe(Digest::mixed(3)), Verdict::Unseen);
    /// assert_eq!(f.observe(Digest::mixed(3)), Verdict::Duplicate);
    /// assert!(Sqf::new(10, 2, 4, 4).is_err()); // r' < r
    /// # Ok::<(), ddf_qht::ParamError>(())
    /// ```
    pub fn new(q: u32, cells_per_row: usize, r: u32, r_prime: u32) -> Result<Self, ParamError> {
        ddf_param::ensure_range("q", q, 0..=Self::MAX_Q)?;
        Self::with_rows(1 << q, cells_per_row, r, r_prime)
    }

    /// An SQF with any number of rows `N ≥ 1`; otherwise as [`new`](Self::new).
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_qht::Sqf;
    ///
    /// let f = Sqf::with_rows(1000, 2, 8, 4)?;
    /// assert_eq!(f.rows(), 1000);
    /// # Ok::<(), ddf_qht::ParamError>(())
    /// ```
    pub fn with_rows(
        rows: u64,
        cells_per_row: usize,
        r: u32,
        r_prime: u32,
    ) -> Result<Self, ParamError> {
        let (sigma, weight_bits) = check_remainder(cells_per_row, r, r_prime)?;
        Digest::check_split("rows", rows, r)?;
        let cells = CellRows::new(rows, cells_per_row, sigma)?;
        Ok(Self::from_parts(cells, r, r_prime, weight_bits))
    }

    fn from_parts(cells: CellRows, r: u32, r_prime: u32, weight_bits: u32) -> Self {
        Sqf {
            cells,
            r,
            r_prime,
            weight_bits,
            rng: SeededRng::new(DEFAULT_SEED),
        }
    }

    /// An SQF of at most `memory_bits` bits: `N = floor(M/(k·σ))` rows.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_qht::{DuplicateFilter, Sqf};
    ///
    /// let f = Sqf::with_memory(1 << 20, 4, 2, 1)?;
    /// assert!(f.memory_bits() <= 1 << 20);
    /// # Ok::<(), ddf_qht::ParamError>(())
    /// ```
    pub fn with_memory(
        memory_bits: u64,
        cells_per_row: usize,
        r: u32,
        r_prime: u32,
    ) -> Result<Self, ParamError> {
        let rows = rows_for_memory(memory_bits, cells_per_row, r, r_prime)?;
        Self::with_rows(rows, cells_per_row, r, r_prime)
    }

    /// An SQF sized as the original is, with a power-of-two number of rows:
    /// the largest `2^q` rows that fit in `memory_bits` (so up to half the
    /// budget can go unused). The QHT paper's benchmarks evidently sized
    /// their SQF this way (see `docs/errata.md`). Fails as
    /// [`with_memory`](Self::with_memory).
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_qht::Sqf;
    ///
    /// let f = Sqf::with_memory_power_of_two(1 << 20, 4, 2, 1)?;
    /// assert!(f.rows().is_power_of_two());
    /// # Ok::<(), ddf_qht::ParamError>(())
    /// ```
    pub fn with_memory_power_of_two(
        memory_bits: u64,
        cells_per_row: usize,
        r: u32,
        r_prime: u32,
    ) -> Result<Self, ParamError> {
        let rows = rows_for_memory(memory_bits, cells_per_row, r, r_prime)?;
        Self::new(63 - rows.leading_zeros(), cells_per_row, r, r_prime)
    }

    /// The same filter, empty, with its generator seeded by `seed`.
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.rng = SeededRng::new(seed);
        self.clear();
        self
    }

    /// The number of rows `N` (`2^q` for [`new`](Self::new)).
    pub fn rows(&self) -> u64 {
        self.cells.rows()
    }

    /// The cells per row `k`.
    pub fn cells_per_row(&self) -> usize {
        self.cells.cells_per_row()
    }

    /// The remainder bits `r`.
    pub fn remainder_bits(&self) -> u32 {
        self.r
    }

    /// The remainder bits `r'` kept in the fingerprint.
    pub fn kept_bits(&self) -> u32 {
        self.r_prime
    }

    /// The cell width `σ = r' + ⌈log₂(r + 1)⌉`.
    pub fn signature_bits(&self) -> u32 {
        self.cells.cell_bits()
    }

    /// The number of reachable fingerprints, `S = 2^r'·(r − r' + 1)`.
    pub fn fingerprints(&self) -> u64 {
        (1u64 << self.r_prime) * u64::from(self.r - self.r_prime + 1)
    }

    /// The seed of the filter's generator.
    pub fn seed(&self) -> u64 {
        self.rng.seed()
    }

    /// The table of cells, for inspection.
    pub fn table(&self) -> &CellRows {
        &self.cells
    }

    /// The number of cells (rows × cells per row).
    pub fn cells(&self) -> u64 {
        self.cells.rows() * self.cells.cells_per_row() as u64
    }

    /// The code of ⊥'s stand-in, `(r' bits = 1, weight 0)`, which no
    /// remainder produces; stored values are codes XOR this.
    #[inline]
    fn empty_code(&self) -> u32 {
        1 << self.weight_bits
    }

    /// The row of `digest` and its fingerprint as stored (never 0).
    #[inline]
    pub fn locate(&self, digest: Digest) -> (u64, u32) {
        let (row, rest) = digest.split(self.cells.rows());
        let remainder = rest.top_bits(self.r);
        let kept = remainder & ((1u64 << self.r_prime) - 1);
        let weight = u64::from(remainder.count_ones());
        let code = (kept << self.weight_bits | weight) as u32;
        (row, code ^ self.empty_code())
    }

    /// Splits a stored value back into the kept bits and the Hamming weight.
    pub fn decode_fingerprint(&self, stored: u32) -> (u32, u32) {
        let code = stored ^ self.empty_code();
        (code >> self.weight_bits, code & (self.empty_code() - 1))
    }

    /// Whether some remainder produces the stored value `stored`: its weight
    /// must lie between the kept bits' weight and that plus `r − r'`.
    fn reachable(&self, stored: u32) -> bool {
        let (kept, weight) = self.decode_fingerprint(stored);
        let low = kept.count_ones();
        low <= weight && weight <= low + (self.r - self.r_prime)
    }
}

/// The rows of `σ`-bit cells a budget buys: `floor(M/(k·σ))`.
impl Sqf {
    /// What [`with_rows`](Self::with_rows)`(rows, cells_per_row, r, r_prime)`
    /// predicts at saturation on a stream of ever-new items, when the
    /// number of distinct items is unknown: `FPR_∞`
    /// ([`sqf_fpr_inf`](ddf_theory::qht::sqf_fpr_inf), the probability that
    /// one of `k` fingerprints drawn from SQF's law matches) and the
    /// worst-case `FNR_∞ = 1 − FPR_∞` (Claim 4.1); `N·k·σ` bits, one access.
    /// Fails as `with_rows` does.
    pub fn saturated_sizing(
        rows: u64,
        cells_per_row: usize,
        r: u32,
        r_prime: u32,
    ) -> Result<ddf_core::Prediction, ParamError> {
        let (sigma, _) = check_remainder(cells_per_row, r, r_prime)?;
        Digest::check_split("rows", rows, r)?;
        let rows = ddf_param::ensure_positive("rows", rows)?;
        let cells = ddf_param::checked_mul("rows", rows, cells_per_row as u64)?;
        let bits = ddf_param::checked_mul("rows", cells, u64::from(sigma))?;
        ddf_param::state_words("rows", bits)?;
        let fpr = ddf_theory::qht::sqf_fpr_inf(cells_per_row as f64, r, r_prime);
        Ok(ddf_core::Prediction::exact_window(bits, fpr, 1.0).with_misses(1.0 - fpr))
    }

    /// The `(N, k, r, r')` within `memory_bits` whose saturated FPR is at
    /// most `fpr` and whose table holds the most fingerprints `N·k`
    /// (ties: the lower FPR), among `k ≤ 8`, `2 ≤ r ≤ 32`, `1 ≤ r' < r`,
    /// `N = ⌊M/(k·σ)⌋`: the shape for
    /// [`saturated_sizing`](Self::saturated_sizing), chosen as
    /// `Qht::saturated_parameters_for` does.
    pub fn saturated_parameters_for(
        memory_bits: u64,
        fpr: f64,
    ) -> Result<(u64, usize, u32, u32), ParamError> {
        let fpr = ddf_param::ensure_probability("fpr", fpr)?;
        let mut best: Option<(u64, f64, u64, usize, u32, u32)> = None;
        for k in 1..=8usize {
            for r in 2..=32u32 {
                for r_prime in 1..r {
                    let Ok(rows) = rows_for_memory(memory_bits, k, r, r_prime) else {
                        continue;
                    };
                    let Ok(p) = Self::saturated_sizing(rows, k, r, r_prime) else {
                        continue;
                    };
                    if p.fpr.is_nan() || p.fpr > fpr {
                        continue;
                    }
                    let cells = rows * k as u64;
                    if best.is_none_or(|b| cells > b.0 || (cells == b.0 && p.fpr < b.1)) {
                        best = Some((cells, p.fpr, rows, k, r, r_prime));
                    }
                }
            }
        }
        let (.., rows, k, r, r_prime) = best.ok_or_else(|| {
            ParamError::new(
                "memory_bits",
                memory_bits,
                format!("a budget some k ≤ 8, r ≤ 32 fill with a saturated FPR ≤ {fpr}"),
            )
        })?;
        Ok((rows, k, r, r_prime))
    }
}

fn rows_for_memory(memory_bits: u64, k: usize, r: u32, r_prime: u32) -> Result<u64, ParamError> {
    let (sigma, _) = check_remainder(k, r, r_prime)?;
    CellRows::rows_for_memory(memory_bits, k, sigma)
}

/// Checks `k`, `r` and `r'`; returns `σ` and the weight width.
fn check_remainder(k: usize, r: u32, r_prime: u32) -> Result<(u32, u32), ParamError> {
    ddf_param::ensure_range("r", r, 2..=64)?;
    ddf_param::ensure_range("r_prime", r_prime, 1..=r - 1)?;
    let weight_bits = 64 - u64::from(r).leading_zeros();
    let sigma = r_prime + weight_bits;
    if sigma > ddf_bits::MAX_CELL_BITS {
        return Err(ParamError::new(
            "r_prime",
            r_prime,
            format!(
                "at most {} so that σ = r' + ⌈log2(r + 1)⌉ ≤ 32",
                32 - weight_bits
            ),
        ));
    }
    let max_k = (1usize << sigma).min(CellRows::MAX_BUCKETS_PER_ROW);
    ddf_param::ensure_range("cells_per_row", k, 1..=max_k)?;
    Ok((sigma, weight_bits))
}

/// The whole stream: the SQF forgets by eviction (false negatives), not by age.
impl ddf_core::Windowed for Sqf {
    fn window(&self) -> ddf_core::Window {
        ddf_core::Window::Unbounded
    }
}

impl DuplicateFilter for Sqf {
    #[inline]
    fn contains(&self, digest: Digest) -> bool {
        let (row, fp) = self.locate(digest);
        self.cells.find(row, fp).is_some()
    }

    #[inline]
    fn insert(&mut self, digest: Digest) {
        self.observe(digest);
    }

    #[inline]
    fn observe(&mut self, digest: Digest) -> Verdict {
        let (row, fp) = self.locate(digest);
        let k = self.cells.cells_per_row();
        let rng = &mut *self.rng;
        let probe = self.cells.probe_then(row, fp, |p| match p.found {
            Some(_) => RowWrite::Keep,
            None => rows::place(k, rng, p.empty),
        });
        Verdict::from_seen(probe.found.is_some())
    }

    /// Prefetches rows a few items ahead; same verdicts, state and draws.
    fn observe_batch(&mut self, digests: &[Digest], verdicts: &mut Vec<Verdict>) {
        batch::observe_batch(self, digests, verdicts);
    }

    fn contains_batch(&self, digests: &[Digest], answers: &mut Vec<bool>) {
        batch::contains_batch(self, digests, answers);
    }

    /// `N·k·σ` bits.
    fn memory_bits(&self) -> u64 {
        self.cells.memory_bits()
    }

    fn clear(&mut self) {
        self.cells.clear();
        self.rng.reset();
    }
}

/// One row per item: its start line.
impl Prefetch for Sqf {
    #[inline]
    fn prefetch(&self, digest: Digest) {
        self.cells.prefetch_row(digest.reduce(self.cells.rows()));
    }
}

/// Refused, as for the QHT: a row keeps what one stream left in it.
impl ddf_core::Merge for Sqf {
    fn merge(&mut self, _other: &Self) -> Result<(), ddf_core::MergeError> {
        Err(ddf_core::MergeError::Unsupported {
            family: "SQF",
            reason: "a row keeps the last fingerprints of one stream; two rows have no union of the same size",
        })
    }
}

impl fmt::Debug for Sqf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sqf")
            .field("rows", &self.rows())
            .field("cells_per_row", &self.cells_per_row())
            .field("r", &self.r)
            .field("r_prime", &self.r_prime)
            .field("seed", &self.seed())
            .finish_non_exhaustive()
    }
}

/// Body: rows (u64), cells per row (u32), `r` (u8), `r'` (u8), generator
/// seed and state (u64 each), table words. Decoding checks the parameters as
/// [`Sqf::with_rows`] does, and that rows hold distinct reachable
/// fingerprints, filled in order.
impl Snapshot for Sqf {
    const KIND: u16 = snapshot::kind::SQF;

    fn encode_body(&self, out: &mut Encoder) {
        out.put_u64(self.rows());
        out.put_u32(self.cells_per_row() as u32);
        out.put_u8(self.r as u8);
        out.put_u8(self.r_prime as u8);
        out.put_rng(&self.rng);
        out.put_words(self.cells.as_words());
    }

    fn decode_body(input: &mut Decoder<'_>, _version: u16) -> Result<Self, DecodeError> {
        let rows = input.u64("rows")?;
        let k = input.u32("cells_per_row")? as usize;
        let r = u32::from(input.u8("r")?);
        let r_prime = u32::from(input.u8("r_prime")?);
        let rng = input.rng("generator")?;
        let words = input.words("cells")?;
        let (sigma, weight_bits) = check_remainder(k, r, r_prime)?;
        Digest::check_split("rows", rows, r)?;
        // The word count is checked against the parameters before use.
        let cells = CellRows::from_words(rows, k, sigma, words)?;
        let mut f = Sqf::from_parts(cells, r, r_prime, weight_bits);
        f.rng = rng;
        let rules = RowRules {
            distinct: true,
            filled_in_order: true,
        };
        rows::check_rows(&f.cells, rules, |v| f.reachable(v))?;
        Ok(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_checked() {
        let param = |r: Result<Sqf, ParamError>| r.unwrap_err().param();
        assert_eq!(param(Sqf::new(41, 1, 2, 1)), "q");
        assert_eq!(param(Sqf::new(10, 1, 1, 1)), "r");
        assert_eq!(param(Sqf::new(10, 1, 65, 1)), "r");
        assert_eq!(param(Sqf::new(10, 1, 4, 0)), "r_prime");
        assert_eq!(param(Sqf::new(10, 1, 4, 4)), "r_prime");
        assert_eq!(param(Sqf::new(10, 1, 40, 30)), "r_prime");
        assert_eq!(param(Sqf::new(10, 9, 2, 1)), "cells_per_row");
        assert_eq!(param(Sqf::new(10, 0, 2, 1)), "cells_per_row");
        assert_eq!(param(Sqf::with_rows(1 << 40, 1, 30, 1)), "rows");
        assert_eq!(param(Sqf::with_memory(5, 2, 2, 1)), "memory_bits");
        assert!(Sqf::new(10, 8, 2, 1).is_ok());
    }

    #[test]
    fn sizes_follow_the_paper() {
        let f = Sqf::new(10, 4, 2, 1).unwrap();
        assert_eq!(
            (f.rows(), f.signature_bits(), f.fingerprints()),
            (1024, 3, 4)
        );
        assert_eq!(f.memory_bits(), 1024 * 4 * 3);
        let g = Sqf::new(3, 1, 8, 2).unwrap();
        assert_eq!((g.signature_bits(), g.fingerprints()), (6, 28));
        let h = Sqf::with_memory(10_000, 1, 2, 1).unwrap();
        assert_eq!(h.rows(), 3333);
        let p = Sqf::with_memory_power_of_two(10_000, 1, 2, 1).unwrap();
        assert_eq!((p.rows(), p.memory_bits()), (2048, 6144));
        let p = Sqf::with_memory_power_of_two(8_000_000, 1, 2, 1).unwrap();
        assert_eq!(p.rows(), 1 << 21);
    }

    #[test]
    fn fingerprints_are_kept_bits_and_weight() {
        let f = Sqf::new(4, 1, 8, 2).unwrap();
        let mut seen = std::collections::HashSet::new();
        for x in 0..20_000 {
            let d = Digest::mixed(x);
            let (_, stored) = f.locate(d);
            assert_ne!(stored, 0);
            assert!(f.reachable(stored));
            let remainder = (d.get() << 4) >> (64 - 8);
            let (kept, weight) = f.decode_fingerprint(stored);
            assert_eq!(u64::from(kept), remainder & 0b11);
            assert_eq!(weight, remainder.count_ones());
            seen.insert(stored);
        }
        assert_eq!(seen.len() as u64, f.fingerprints());
    }

    #[test]
    fn recommended_parameters_saturate_to_always_duplicate() {
        // r = 2, r' = 1, k = 4: four fingerprints fill every row (footnote 8).
        let mut f = Sqf::new(2, 4, 2, 1).unwrap();
        for x in 0..1000 {
            f.observe(Digest::mixed(x));
        }
        assert!((0..4).all(|r| f.table().count_occupied(r) == 4));
        assert!((5000..6000).all(|x| f.contains(Digest::mixed(x))));
    }
}
