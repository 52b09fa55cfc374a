//! QHT, QHTD and QQHTD: one table of quotiented fingerprints, three insertion rules.

use crate::rows::{self, DEFAULT_SEED};
use ddf_bits::{CellRows, RowProbe, RowRules, RowWrite};
use ddf_core::batch::{self, Prefetch};
use ddf_core::group;
use ddf_core::snapshot::{self, DecodeError, Decoder, Encoder, Snapshot};
use ddf_core::{Digest, DuplicateFilter, ParamError, Verdict};
use ddf_hash::{Fingerprinter, SeededRng, SplitMix64, ZeroPolicy};
use std::fmt;
use std::marker::PhantomData;

mod sealed {
    pub trait Sealed {}
}

/// How a [`QuotientFilter`] stores an element once it has looked it up: the
/// difference between QHT, QHTD and QQHTD. Implemented by [`Distinct`],
/// [`Duplicates`] and [`Fifo`] only.
pub trait Insertion: sealed::Sealed + Copy + fmt::Debug + Send + Sync + 'static {
    /// The snapshot kind code of the filter.
    const KIND: u16;
    /// The paper's name of the filter.
    const NAME: &'static str;
    /// Whether a row never holds the same fingerprint twice.
    const DISTINCT_ROWS: bool;

    /// Where a row of `k` cells that `probe` looked up takes the
    /// fingerprint (drawing from `rng` only for a random cell).
    #[doc(hidden)]
    fn place(k: usize, rng: &mut SplitMix64, probe: RowProbe) -> RowWrite;
}

/// QHT's rule (Algorithm 1): an element found in its row is not stored
/// again; any other goes to the first empty cell, else to a random one.
#[derive(Debug, Clone, Copy)]
pub enum Distinct {}

/// QHTD's rule (§5.1): every element is stored, duplicates included, in the
/// first empty cell, else in a random one.
#[derive(Debug, Clone, Copy)]
pub enum Duplicates {}

/// QQHTD's rule (§5.2, Algorithm 2): every element's fingerprint is pushed
/// onto its row as onto a FIFO queue of `k` cells, the oldest falling out.
#[derive(Debug, Clone, Copy)]
pub enum Fifo {}

impl sealed::Sealed for Distinct {}
impl sealed::Sealed for Duplicates {}
impl sealed::Sealed for Fifo {}

impl Insertion for Distinct {
    const KIND: u16 = snapshot::kind::QHT;
    const NAME: &'static str = "QHT";
    const DISTINCT_ROWS: bool = true;

    #[inline(always)]
    fn place(k: usize, rng: &mut SplitMix64, probe: RowProbe) -> RowWrite {
        // A single cell holds `fp` afterwards whether it was found or not, so
        // write it unconditionally: no branch on the (unpredictable) lookup.
        if probe.found.is_none() || k == 1 {
            rows::place(k, rng, probe.empty)
        } else {
            RowWrite::Keep
        }
    }
}

impl Insertion for Duplicates {
    const KIND: u16 = snapshot::kind::QHTD;
    const NAME: &'static str = "QHTD";
    const DISTINCT_ROWS: bool = false;

    #[inline(always)]
    fn place(k: usize, rng: &mut SplitMix64, probe: RowProbe) -> RowWrite {
        rows::place(k, rng, probe.empty)
    }
}

impl Insertion for Fifo {
    const KIND: u16 = snapshot::kind::QQHTD;
    const NAME: &'static str = "QQHTD";
    const DISTINCT_ROWS: bool = false;

    #[inline(always)]
    fn place(_k: usize, _rng: &mut SplitMix64, _probe: RowProbe) -> RowWrite {
        RowWrite::PushFront
    }
}

/// A quotient hash table: `N` rows (`rows`) of `k` cells (`cells_per_row`)
/// holding `s`-bit fingerprints (`fingerprint_bits`), `N·k·s` bits in all
/// (QHT paper, §3.1 and Algorithm 1).
///
/// An element's digest is split ([`Digest::split`]) into its row, the
/// quotient, and an independent rest from which its fingerprint is taken
/// under a [`ZeroPolicy`]. It is reported as a duplicate if its fingerprint
/// is in its row; how it is then stored is the [`Insertion`] rule `I`:
///
/// | alias | rule | paper |
/// | --- | --- | --- |
/// | [`Qht`] | stored only if not found, in the first empty cell, else a random one | Algorithm 1 |
/// | [`Qhtd`] | always stored, in the first empty cell, else a random one | §5.1 |
/// | [`Qqhtd`] | always pushed onto the row's FIFO queue | §5.2, Algorithm 2 |
///
/// Cell value 0 marks an empty cell (§3.2). The default [`ZeroPolicy::Rehash`]
/// derives a new fingerprint while it is 0, so fingerprints are uniform over
/// `S = 2^s − 1` values, as the paper's analysis assumes;
/// [`with_zero_policy`](Self::with_zero_policy) selects the other two
/// options of §3.2. Random choices come from a [`SplitMix64`] seeded with
/// [`with_seed`](Self::with_seed) (a fixed default otherwise), reset by
/// [`clear`](DuplicateFilter::clear). The filter may forget anything: there
/// is no guarantee against false negatives.
///
/// # Examples
///
/// ```
/// use ddf_qht::{Deduper, Qht, Verdict};
///
/// // `Qht`, `Qhtd` and `Qqhtd` are this type with their insertion rule.
/// let mut seen = Deduper::new(Qht::with_memory(1 << 20, 1, 3)?);
/// assert_eq!(seen.observe("GET /"), Verdict::Unseen);
/// assert_eq!(seen.observe("GET /"), Verdict::Duplicate);
/// # Ok::<(), ddf_qht::ParamError>(())
/// ```
#[derive(Clone)]
pub struct QuotientFilter<I: Insertion> {
    cells: CellRows,
    fingerprinter: Fingerprinter,
    rng: SeededRng,
    rule: PhantomData<I>,
}

/// The Quotient Hash Table of Algorithm 1 (QHT paper §3.1). A row never holds
/// the same fingerprint twice. See [`QuotientFilter`].
///
/// ```
/// use ddf_core::{Deduper, KeyedSipHasher, Verdict};
/// use ddf_qht::Qht;
///
/// // 64 Kibit, k = 1, s = 3: the shape of the paper's benchmarks.
/// let qht = Qht::with_memory(65_536, 1, 3)?;
/// assert_eq!(qht.rows(), 21_845);
/// let mut seen = Deduper::with_hasher(qht, KeyedSipHasher::with_seed(1));
/// assert_eq!(seen.observe(&42u64), Verdict::Unseen);
/// assert_eq!(seen.observe(&42u64), Verdict::Duplicate);
/// # Ok::<(), ddf_core::ParamError>(())
/// ```
pub type Qht = QuotientFilter<Distinct>;

/// QHT with duplicates (QHT paper §5.1): elements detected as duplicates are
/// stored again, so a row may hold a fingerprint more than once. See
/// [`QuotientFilter`].
///
/// # Examples
///
/// ```
/// use ddf_qht::{Deduper, Qhtd, Verdict};
///
/// let mut seen = Deduper::new(Qhtd::with_memory(1 << 20, 4, 8)?);
/// assert_eq!(seen.observe("GET /"), Verdict::Unseen);
/// assert_eq!(seen.observe("GET /"), Verdict::Duplicate);
/// # Ok::<(), ddf_qht::ParamError>(())
/// ```
pub type Qhtd = QuotientFilter<Duplicates>;

/// Queued QHT with duplicates (QHT paper §5.2, Algorithm 2): each row is a
/// FIFO queue of `k` cells, newest first; every element's fingerprint is
/// pushed and the oldest falls out. It makes no random choice. With `k = 1`
/// it behaves exactly as a [`Qht`]. See [`QuotientFilter`].
///
/// # Examples
///
/// ```
/// use ddf_qht::{Deduper, Qqhtd, Verdict};
///
/// let mut seen = Deduper::new(Qqhtd::with_memory(1 << 20, 4, 8)?);
/// assert_eq!(seen.observe("GET /"), Verdict::Unseen);
/// assert_eq!(seen.observe("GET /"), Verdict::Duplicate);
/// # Ok::<(), ddf_qht::ParamError>(())
/// ```
pub type Qqhtd = QuotientFilter<Fifo>;

impl<I: Insertion> QuotientFilter<I> {
    /// A filter of `rows` rows (`N ≥ 1`) of `cells_per_row` cells (`k`,
    /// `1..=min(4096, 2^s)`) of `fingerprint_bits` bits (`s`, 1..=32).
    ///
    /// Fails with a [`ParamError`] naming the parameter when one is out of
    /// range, when the state exceeds 2^40 bits, or when `⌈log₂ N⌉ + s > 64`
    /// (row and fingerprint must fit in one 64-bit digest).
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_qht::{Digest, DuplicateFilter, Qht, Qqhtd, Verdict};
    ///
    /// let mut f = Qht::new(1024, 4, 8)?;
    /// assert_eq!(f.memory_bits(), 1024 * 4 * 8);
    /// assert_eq!(f.observe(Digest::mixed(1)), Verdict::Unseen);
    /// assert_eq!(f.observe(Digest::mixed(1)), Verdict::Duplicate);
    /// // k is at most 2^s: two 1-bit cells cannot hold three fingerprints.
    /// assert_eq!(Qqhtd::new(1024, 3, 1).unwrap_err().param(), "cells_per_row");
    /// # Ok::<(), ddf_qht::ParamError>(())
    /// ```
    pub fn new(rows: u64, cells_per_row: usize, fingerprint_bits: u32) -> Result<Self, ParamError> {
        let fingerprinter = check_params(rows, cells_per_row, fingerprint_bits)?;
        let cells = CellRows::new(rows, cells_per_row, fingerprint_bits)?;
        Ok(Self::from_parts(cells, fingerprinter))
    }

    fn from_parts(cells: CellRows, fingerprinter: Fingerprinter) -> Self {
        QuotientFilter {
            cells,
            fingerprinter,
            rng: SeededRng::new(DEFAULT_SEED),
            rule: PhantomData,
        }
    }

    /// A filter of at most `memory_bits` bits: `N = floor(M/(k·s))` rows
    /// (Algorithm 1, SETUP). Fails as [`new`](Self::new), or (parameter
    /// `memory_bits`) if not one row fits.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_qht::{DuplicateFilter, Qhtd};
    ///
    /// let f = Qhtd::with_memory(1 << 20, 1, 3)?;
    /// assert_eq!(f.rows(), (1 << 20) / 3);
    /// assert!(f.memory_bits() <= 1 << 20);
    /// # Ok::<(), ddf_qht::ParamError>(())
    /// ```
    pub fn with_memory(
        memory_bits: u64,
        cells_per_row: usize,
        fingerprint_bits: u32,
    ) -> Result<Self, ParamError> {
        Fingerprinter::new(fingerprint_bits, ZeroPolicy::default())?;
        check_buckets(cells_per_row, fingerprint_bits)?;
        let rows = CellRows::rows_for_memory(memory_bits, cells_per_row, fingerprint_bits)?;
        Self::new(rows, cells_per_row, fingerprint_bits)
    }

    /// The same filter, empty, with its generator seeded by `seed`.
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.rng = SeededRng::new(seed);
        self.clear();
        self
    }

    /// The same filter, empty, with fingerprint 0 handled by `policy` (QHT
    /// paper §3.2). Changes `S`: `2^s` for [`ZeroPolicy::TreatAsValue`],
    /// `2^s − 1` otherwise.
    #[must_use]
    pub fn with_zero_policy(mut self, policy: ZeroPolicy) -> Self {
        self.fingerprinter = self.fingerprinter.with_policy(policy);
        self.clear();
        self
    }

    /// The number of rows `N`.
    pub fn rows(&self) -> u64 {
        self.cells.rows()
    }

    /// The cells per row `k`.
    pub fn cells_per_row(&self) -> usize {
        self.cells.cells_per_row()
    }

    /// The fingerprint width `s` in bits.
    pub fn fingerprint_bits(&self) -> u32 {
        self.fingerprinter.bits()
    }

    /// How a fingerprint of value 0 is handled.
    pub fn zero_policy(&self) -> ZeroPolicy {
        self.fingerprinter.policy()
    }

    /// The number of fingerprint values `S` an element can get.
    pub fn fingerprints(&self) -> u64 {
        self.fingerprinter.distinct_values()
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

    /// The row (quotient) and fingerprint of `digest`.
    #[inline(always)]
    pub fn locate(&self, digest: Digest) -> (u64, u32) {
        let (row, rest) = digest.split(self.cells.rows());
        (row, self.fingerprinter.fingerprint(rest))
    }

    #[inline(always)]
    fn present(&self, row: u64, fp: u32) -> bool {
        self.cells.find(row, fp).is_some()
    }

    /// Whether `other` derives the same row and fingerprint from every
    /// digest and lays its rows out alike (same shape and fingerprinter), as
    /// the subfilters of a queue do: then one [`locate`](Self::locate) and
    /// one [`CellRows::search`] serve both.
    #[inline(always)]
    fn same_positions(&self, other: &Self) -> bool {
        self.cells.same_shape(&other.cells) && self.fingerprinter == other.fingerprinter
    }

    /// [`observe`](DuplicateFilter::observe) of an item already located:
    /// whether its fingerprint was in its row.
    #[inline(always)]
    fn observe_located(&mut self, row: u64, fp: u32) -> bool {
        let k = self.cells.cells_per_row();
        let rng = &mut *self.rng;
        // The rule is forced inline: left to the heuristics it was outlined
        // in some callers (a call per item, the probe passed in memory).
        let probe = self.cells.probe_then(
            row,
            fp,
            #[inline(always)]
            |probe| I::place(k, rng, probe),
        );
        probe.found.is_some()
    }
}

/// Lines a group batch keeps in flight: the batch driver's lookahead
/// ([`Prefetch::LOOKAHEAD`]) shared among the subfilters of a group, one
/// line each per item.
const GROUP_LINES_IN_FLIGHT: usize = 16;

/// Checks the parameters of [`QuotientFilter::new`] without allocating.
pub(crate) fn check_params(
    rows: u64,
    cells_per_row: usize,
    fingerprint_bits: u32,
) -> Result<Fingerprinter, ParamError> {
    let fingerprinter = Fingerprinter::new(fingerprint_bits, ZeroPolicy::default())?;
    check_buckets(cells_per_row, fingerprint_bits)?;
    Digest::check_split("rows", rows, fingerprint_bits)?;
    Ok(fingerprinter)
}

/// `1 ≤ k ≤ 2^s` (Algorithm 1, SETUP) and at most the row length `CellRows` accepts.
fn check_buckets(cells_per_row: usize, fingerprint_bits: u32) -> Result<(), ParamError> {
    let by_width = 1usize.checked_shl(fingerprint_bits).unwrap_or(usize::MAX);
    let max = by_width.min(CellRows::MAX_BUCKETS_PER_ROW);
    ddf_param::ensure_range("cells_per_row", cells_per_row, 1..=max)?;
    Ok(())
}

/// The whole stream: a QHT has no window; it forgets by eviction, which is
/// its false-negative rate (§3), not a slack.
impl<I: Insertion> ddf_core::Windowed for QuotientFilter<I> {
    fn window(&self) -> ddf_core::Window {
        ddf_core::Window::Unbounded
    }
}

impl<I: Insertion> DuplicateFilter for QuotientFilter<I> {
    // Always inlined: a queue asks every subfilter, and a call per
    // subfilter costs as much as the lookup.
    #[inline(always)]
    fn contains(&self, digest: Digest) -> bool {
        let (row, fp) = self.locate(digest);
        self.present(row, fp)
    }

    #[inline]
    fn insert(&mut self, digest: Digest) {
        self.observe(digest);
    }

    /// One read of the row answers the lookup and finds the insertion's
    /// empty cell, and one write of the same words stores the fingerprint
    /// ([`CellRows::probe_then`]).
    #[inline(always)]
    fn observe(&mut self, digest: Digest) -> Verdict {
        let (row, fp) = self.locate(digest);
        Verdict::from_seen(self.observe_located(row, fp))
    }

    /// Locates `digest` once for every filter of the group that derives the
    /// same positions as the first (all of a queue's, normally).
    #[inline]
    fn any_contains(group: &[Self], skip: usize, digest: Digest) -> bool {
        let Some(first) = group.first() else {
            return false;
        };
        let (row, fp) = first.locate(digest);
        let search = first.cells.search(row, fp);
        group.iter().enumerate().any(|(i, f)| {
            i != skip
                && if f.same_positions(first) {
                    f.cells.holds(&search)
                } else {
                    f.contains(digest)
                }
        })
    }

    /// When every filter of the group derives the same positions: one pass,
    /// each item located once, the rows of an item in every filter
    /// prefetched together a few items ahead, then each filter probed.
    /// Otherwise filter by filter ([`group::observe_by_filter`]). Same
    /// verdicts, state and draws as one by one.
    fn observe_in_group(
        group: &mut [Self],
        newest: usize,
        digests: &[Digest],
        verdicts: &mut Vec<Verdict>,
        scratch: &mut Vec<bool>,
    ) {
        let shared = group
            .first()
            .is_some_and(|first| group.iter().all(|f| f.same_positions(first)));
        if !shared || newest >= group.len() {
            group::observe_by_filter(group, newest, digests, verdicts, scratch);
            return;
        }
        verdicts.reserve(digests.len());
        let ahead = (GROUP_LINES_IN_FLIGHT / group.len())
            .max(1)
            .min(digests.len());
        let hint = |group: &[Self], d: Digest| {
            let row = d.reduce(group[0].cells.rows());
            for f in group {
                f.cells.prefetch_row(row);
            }
        };
        for &d in &digests[..ahead] {
            hint(group, d);
        }
        for (i, &d) in digests.iter().enumerate() {
            if let Some(&next) = digests.get(i + ahead) {
                hint(group, next);
            }
            let (row, fp) = group[0].locate(d);
            let search = group[0].cells.search(row, fp);
            let older = group
                .iter()
                .enumerate()
                .any(|(j, f)| j != newest && f.cells.holds(&search));
            let found = group[newest].observe_located(row, fp);
            verdicts.push(Verdict::from_seen(older || found));
        }
    }

    /// Prefetches rows a few items ahead; same verdicts, state and draws.
    fn observe_batch(&mut self, digests: &[Digest], verdicts: &mut Vec<Verdict>) {
        batch::observe_batch(self, digests, verdicts);
    }

    fn contains_batch(&self, digests: &[Digest], answers: &mut Vec<bool>) {
        batch::contains_batch(self, digests, answers);
    }

    /// `N·k·s` bits.
    fn memory_bits(&self) -> u64 {
        self.cells.memory_bits()
    }

    fn clear(&mut self) {
        self.cells.clear();
        self.rng.reset();
    }
}

/// One row per item: its start line.
impl<I: Insertion> Prefetch for QuotientFilter<I> {
    #[inline]
    fn prefetch(&self, digest: Digest) {
        self.cells.prefetch_row(digest.reduce(self.cells.rows()));
    }
}

/// Refused: a row keeps the fingerprints its own stream left in it (the
/// others overwritten or dropped), so two rows have no union that keeps
/// the filter's rates.
impl<I: Insertion> ddf_core::Merge for QuotientFilter<I> {
    fn merge(&mut self, _other: &Self) -> Result<(), ddf_core::MergeError> {
        Err(ddf_core::MergeError::Unsupported {
            family: "QHT",
            reason: "a row keeps the last fingerprints of one stream; two rows have no union of the same size",
        })
    }
}

impl<I: Insertion> fmt::Debug for QuotientFilter<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct(I::NAME)
            .field("rows", &self.rows())
            .field("cells_per_row", &self.cells_per_row())
            .field("fingerprint_bits", &self.fingerprint_bits())
            .field("zero_policy", &self.zero_policy())
            .field("seed", &self.seed())
            .finish_non_exhaustive()
    }
}

/// Body: rows (u64), cells per row (u32), fingerprint bits (u8), zero
/// policy (u8), generator seed and state (u64 each), table words. Decoding
/// checks the parameters as [`QuotientFilter::new`] does, and that every row
/// could have been produced by the insertion rule.
impl<I: Insertion> Snapshot for QuotientFilter<I> {
    const KIND: u16 = I::KIND;

    fn encode_body(&self, out: &mut Encoder) {
        out.put_u64(self.rows());
        out.put_u32(self.cells_per_row() as u32);
        out.put_u8(self.fingerprint_bits() as u8);
        out.put_zero_policy(self.zero_policy());
        out.put_rng(&self.rng);
        out.put_words(self.cells.as_words());
    }

    fn decode_body(input: &mut Decoder<'_>, _version: u16) -> Result<Self, DecodeError> {
        let rows = input.u64("rows")?;
        let k = input.u32("cells_per_row")? as usize;
        let bits = u32::from(input.u8("fingerprint_bits")?);
        let policy = input.zero_policy("zero_policy")?;
        let rng = input.rng("generator")?;
        let words = input.words("cells")?;
        let checked = check_params(rows, k, bits)?;
        // `from_words` compares the word count with the parameters before
        // keeping anything, so lying parameters cannot make us allocate.
        let cells = CellRows::from_words(rows, k, bits, words)?;
        let mut f = Self::from_parts(cells, checked.with_policy(policy));
        f.rng = rng;
        let rules = RowRules {
            distinct: I::DISTINCT_ROWS,
            filled_in_order: policy != ZeroPolicy::TreatAsValue,
        };
        rows::check_rows(&f.cells, rules, |_| true)?;
        Ok(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(x: u64) -> Digest {
        Digest::mixed(x)
    }

    #[test]
    fn parameters_are_checked() {
        let param = |r: Result<Qht, ParamError>| r.unwrap_err().param();
        assert_eq!(param(Qht::new(0, 4, 8)), "rows");
        assert_eq!(param(Qht::new(10, 0, 8)), "cells_per_row");
        assert_eq!(param(Qht::new(10, 5, 2)), "cells_per_row");
        assert_eq!(param(Qht::new(10, 4097, 16)), "cells_per_row");
        assert_eq!(param(Qht::new(10, 4, 0)), "fingerprint_bits");
        assert_eq!(param(Qht::new(10, 4, 33)), "fingerprint_bits");
        assert_eq!(param(Qht::new(u64::MAX, 1, 8)), "rows");
        assert_eq!(param(Qht::new(1 << 40, 1, 8)), "rows");
        assert_eq!(param(Qht::with_memory(7, 4, 2)), "memory_bits");
        assert_eq!(param(Qht::with_memory(1000, 0, 2)), "cells_per_row");
        assert!(Qht::new(10, 4, 2).is_ok());
        assert!(Qht::new(1, 4096, 32).is_ok());
    }

    #[test]
    fn memory_is_n_k_s() {
        let f = Qhtd::with_memory(100_000, 4, 8).unwrap();
        assert_eq!(f.rows(), 3125);
        assert_eq!(f.memory_bits(), 100_000);
        let g = Qqhtd::new(1000, 3, 5).unwrap();
        assert_eq!(g.memory_bits(), 15_000);
        assert_eq!(g.fingerprints(), 31);
        let h = g.with_zero_policy(ZeroPolicy::TreatAsValue);
        assert_eq!(h.fingerprints(), 32);
    }

    #[test]
    fn qht_rows_stay_distinct_and_qhtd_rows_do_not() {
        // One row, two cells, 1-bit fingerprints: only value 1 exists.
        let mut qht = Qht::new(1, 2, 1).unwrap();
        let mut qhtd = Qhtd::new(1, 2, 1).unwrap();
        for x in 0..10 {
            qht.observe(d(x));
            qhtd.observe(d(x));
        }
        assert_eq!(qht.table().row_iter(0).collect::<Vec<_>>(), [1, 0]);
        assert_eq!(qhtd.table().row_iter(0).collect::<Vec<_>>(), [1, 1]);
    }

    #[test]
    fn qqhtd_with_one_bucket_equals_qht() {
        let mut qht = Qht::new(37, 1, 3).unwrap();
        let mut queue = Qqhtd::new(37, 1, 3).unwrap();
        for x in 0..5000 {
            let item = d(x % 700);
            assert_eq!(qht.observe(item), queue.observe(item), "item {x}");
        }
        assert_eq!(qht.cells(), queue.cells());
    }

    #[test]
    fn treat_as_value_reports_zero_fingerprints_in_young_rows() {
        // §3.2 option 1: an element whose fingerprint is 0 matches an empty cell.
        let f = Qht::new(4, 2, 2)
            .unwrap()
            .with_zero_policy(ZeroPolicy::TreatAsValue);
        let zero = (0..10_000)
            .map(d)
            .find(|&x| f.locate(x).1 == 0)
            .expect("a quarter of digests have fingerprint 0");
        assert!(f.contains(zero));
        let g = Qht::new(4, 2, 2).unwrap();
        assert!(!g.contains(zero));
    }

    #[test]
    fn clear_resets_the_generator() {
        let mut f = Qht::new(3, 4, 4).unwrap().with_seed(9);
        for x in 0..100 {
            f.observe(d(x));
        }
        f.clear();
        assert_eq!(f.table().count_occupied(0), 0);
        assert_eq!(f.rng, SeededRng::new(9));
        assert!(format!("{f:?}").starts_with("QHT { rows: 3"));
    }
}
