//! `StreamingCuckoo`: the table, partial-key cuckoo hashing with bounded
//! relocation, the stream rule and the full-table policy.

use ddf_bits::{CellRows, RowRules};
use ddf_core::batch::{self, Prefetch};
use ddf_core::{DecodeError, Digest, DuplicateFilter, ParamError, Snapshot, Verdict};
use ddf_hash::{Fingerprinter, SeededRng, ZeroPolicy};
use std::fmt;

mod codec;

/// The default seed of the filter's generator.
const DEFAULT_SEED: u64 = 0xc0c0_5eed_0000_0001;

/// The multiplier that hashes a fingerprint to its bucket offset
/// (Fibonacci hashing: `2^64/φ`, odd). One multiplication, as in Fan et
/// al.'s implementation, keeps the relocation chain short in latency: each
/// step's bucket depends on the fingerprint the previous step evicted.
const ALT_MULTIPLIER: u64 = 0x9e37_79b9_7f4a_7c15;

/// A cuckoo filter (Fan, Andersen, Kaminsky, Mitzenmacher, *Cuckoo Filter:
/// Practically Better Than Bloom*, CoNEXT 2014) adapted to unbounded streams
/// as footnote 4 of the QHT paper says: when relocation fails, the evicted
/// fingerprint is dropped instead of the insertion failing.
///
/// `m` buckets (`buckets`) of `b` cells (`cells_per_bucket`) hold
/// `f`-bit fingerprints (`fingerprint_bits`), `m·b·f` bits in all. An item's
/// digest is split ([`Digest::split`]) into its first bucket `i₁` and a rest
/// that yields its fingerprint `φ`; partial-key cuckoo hashing gives the
/// second bucket from the first and the fingerprint alone,
/// `i₂ = (H(φ) − i₁) mod m`, an involution, so a stored fingerprint can
/// always move to its other bucket without the item. (Fan et al. use
/// `i₁ ⊕ H(φ)`, which needs `m` to be a power of two; the modular form works
/// for any `m`, so that any memory budget can be met.)
///
/// - Lookup: `φ` is in bucket `i₁` or `i₂`.
/// - Insert: nothing if `φ` is found (under the default
///   [`StreamRule::LookupFirst`]); else into an empty cell of `i₁`, else of `i₂`; otherwise pick one
///   of the two at random, swap `φ` with a random cell there, and move the
///   evicted fingerprint to its other bucket, up to `max_kicks` times
///   (Fan et al.'s `MaxNumKicks`, 500 by default). If every bucket on the way
///   is full, the fingerprint in hand is dropped ([`dropped`](Self::dropped)
///   counts them).
/// - Full table ([`FullTable`]): once every cell holds a fingerprint no walk
///   can end in an empty cell, so by default ([`FullTable::Evict`]) the new
///   fingerprint takes a random cell of one of its two buckets and the
///   fingerprint there is dropped: one write instead of `max_kicks`
///   relocations, the same number of fingerprints dropped, and the dropped
///   one exactly uniform over the cells (`ddf_theory::cuckoo::survival_full`).
/// - Stream ([`observe`](DuplicateFilter::observe)): lookup; if the
///   fingerprint is found, answer DUPLICATE and leave the table alone, else
///   insert and answer UNSEEN ([`StreamRule::LookupFirst`], the default). The
///   QHT paper's benchmark inserted every item, found or not
///   ([`StreamRule::InsertAlways`], see [`with_stream_rule`](Self::with_stream_rule)).
///
/// Until the first fingerprint is dropped there are no false negatives;
/// afterwards there is no guarantee. Cell value 0 marks an empty cell; the
/// zero-fingerprint policy is that of the QHT paper §3.2, rehashing by
/// default (Fan et al.'s implementation maps 0 to 1,
/// [`ZeroPolicy::MapToOne`]). Random choices come from a seeded
/// [`SeededRng`], reset by [`clear`](DuplicateFilter::clear).
///
/// # Examples
///
/// ```
/// use ddf_cuckoo::{Deduper, StreamingCuckoo, Verdict};
///
/// let mut seen = Deduper::new(StreamingCuckoo::with_memory(1 << 20, 4, 12)?);
/// assert_eq!(seen.observe("nonce-1"), Verdict::Unseen);
/// assert_eq!(seen.observe("nonce-1"), Verdict::Duplicate);
/// assert_eq!(seen.filter().dropped(), 0);
/// # Ok::<(), ddf_cuckoo::ParamError>(())
/// ```
#[derive(Clone)]
pub struct StreamingCuckoo {
    cells: CellRows,
    fingerprinter: Fingerprinter,
    max_kicks: u32,
    rng: SeededRng,
    dropped: u64,
    rule: StreamRule,
    full_table: FullTable,
    /// Cells holding a non-zero value; the table is full at `m·b`.
    occupied: u64,
}

/// What an insertion does when every cell of the table holds a fingerprint
/// (the saturated state of a long stream, which a streaming filter never
/// leaves: nothing is deleted).
///
/// No relocation can then end in an empty cell, so Fan et al.'s walk
/// ([`Walk`](Self::Walk)) always runs its `max_kicks` relocations and drops
/// the fingerprint in hand: `max_kicks` bucket reads and writes per
/// insertion (500 by default; `docs/performance.md` has the cost). [`Evict`](Self::Evict) goes straight to the outcome: the new
/// fingerprint takes one random cell of one of its two buckets and the one
/// there is dropped. Both store the new fingerprint and drop one, so the
/// table holds as many fingerprints and the false-positive rate is the
/// same; they differ in which one is dropped (uniform over the cells for
/// `Evict`, the end of a random walk for `Walk`), which sets the
/// false-negative rate: see `ddf_theory::cuckoo::survival_full`. Before
/// the table is full the policies do exactly the same (same draws, same
/// state). With `max_kicks = 0` both drop the new fingerprint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FullTable {
    /// Replace a random cell of one of the two buckets: constant work.
    #[default]
    Evict,
    /// Walk `max_kicks` relocations as when the table has room (Fan et
    /// al.'s Algorithm 1; the behaviour of snapshots before layout 3).
    Walk,
}

/// What [`observe`](DuplicateFilter::observe) does with an item whose
/// fingerprint it finds.
///
/// The QHT paper's footnote 4 adapts the cuckoo filter to streams by
/// discarding relocation failures and says no more; its Table 4 rates
/// (Cuckoo FPR 28.5 % with one 3-bit cell per bucket) are those of a filter
/// that inserts every item, which is what calling Fan et al.'s `Add` after
/// `Contain` does. Storing a fingerprint that is already there wastes a cell
/// and, once the table is full, walks a whole relocation chain and drops a
/// fingerprint per repeat, so the default looks first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum StreamRule {
    /// Answer DUPLICATE and leave the table alone when the fingerprint is
    /// found; insert only items answered UNSEEN (as QHT and SQF do).
    #[default]
    LookupFirst,
    /// Insert every item, found or not: the QHT paper's benchmark, kept to
    /// reproduce its Table 4.
    InsertAlways,
}

impl StreamingCuckoo {
    /// Fan et al.'s bound on relocations per insertion, `MaxNumKicks = 500`.
    pub const DEFAULT_MAX_KICKS: u32 = 500;

    /// The largest relocation bound accepted. Once the table is full every
    /// insertion walks the whole chain, so the bound is the worst-case cost
    /// of one operation; 2^16 relocations already take a millisecond or so.
    pub const MAX_KICKS: u32 = 1 << 16;

    /// A filter of `buckets` buckets (`m ≥ 1`) of `cells_per_bucket` cells
    /// (`b`, 1..=4096) of `fingerprint_bits` bits (`f`, 1..=32).
    ///
    /// Fails with a [`ParamError`] naming the parameter when one is out of
    /// range, when the state exceeds 2^40 bits, or when
    /// `⌈log₂ m⌉ + f > 64` (bucket and fingerprint must fit in one digest).
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_cuckoo::{Digest, DuplicateFilter, StreamingCuckoo, Verdict};
    ///
    /// let mut f = StreamingCuckoo::new(1 << 10, 4, 12)?;
    /// assert_eq!(f.memory_bits(), 1024 * 4 * 12);
    /// assert_eq!(f.observe(Digest::mixed(1)), Verdict::Unseen);
    /// assert_eq!(f.observe(Digest::mixed(1)), Verdict::Duplicate);
    /// assert_eq!(StreamingCuckoo::new(1 << 10, 4, 33).unwrap_err().param(), "fingerprint_bits");
    /// # Ok::<(), ddf_cuckoo::ParamError>(())
    /// ```
    pub fn new(
        buckets: u64,
        cells_per_bucket: usize,
        fingerprint_bits: u32,
    ) -> Result<Self, ParamError> {
        let fingerprinter = check_params(buckets, cells_per_bucket, fingerprint_bits)?;
        let cells = CellRows::new(buckets, cells_per_bucket, fingerprint_bits)
            .map_err(|e| rename(e, "cells_per_bucket"))?;
        Ok(Self::from_parts(cells, fingerprinter))
    }

    /// A filter of at most `memory_bits` bits: `m = floor(M/(b·f))` buckets.
    /// Fails as [`new`](Self::new), or (parameter `memory_bits`) if not one
    /// bucket fits.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_cuckoo::{DuplicateFilter, StreamingCuckoo};
    ///
    /// let f = StreamingCuckoo::with_memory(1 << 20, 4, 8)?;
    /// assert_eq!(f.buckets(), (1 << 20) / 32);
    /// assert!(f.memory_bits() <= 1 << 20);
    /// assert_eq!(StreamingCuckoo::with_memory(10, 4, 8).unwrap_err().param(), "memory_bits");
    /// # Ok::<(), ddf_cuckoo::ParamError>(())
    /// ```
    pub fn with_memory(
        memory_bits: u64,
        cells_per_bucket: usize,
        fingerprint_bits: u32,
    ) -> Result<Self, ParamError> {
        Fingerprinter::new(fingerprint_bits, ZeroPolicy::default())?;
        let buckets = CellRows::rows_for_memory(memory_bits, cells_per_bucket, fingerprint_bits)
            .map_err(|e| rename(e, "cells_per_bucket"))?;
        Self::new(buckets, cells_per_bucket, fingerprint_bits)
    }

    fn from_parts(cells: CellRows, fingerprinter: Fingerprinter) -> Self {
        StreamingCuckoo {
            cells,
            fingerprinter,
            max_kicks: Self::DEFAULT_MAX_KICKS,
            rng: SeededRng::new(DEFAULT_SEED),
            dropped: 0,
            rule: StreamRule::default(),
            full_table: FullTable::default(),
            occupied: 0,
        }
    }

    /// The same filter, empty, relocating at most `max_kicks` fingerprints
    /// per insertion (`0..=`[`MAX_KICKS`](Self::MAX_KICKS); 0: a new
    /// fingerprint that finds both buckets full is dropped at once).
    pub fn with_max_kicks(mut self, max_kicks: u32) -> Result<Self, ParamError> {
        self.max_kicks = ddf_param::ensure_range("max_kicks", max_kicks, 0..=Self::MAX_KICKS)?;
        self.clear();
        Ok(self)
    }

    /// The same filter, empty, with `observe` following `rule`.
    #[must_use]
    pub fn with_stream_rule(mut self, rule: StreamRule) -> Self {
        self.rule = rule;
        self.clear();
        self
    }

    /// What `observe` does with an item whose fingerprint it finds.
    pub fn stream_rule(&self) -> StreamRule {
        self.rule
    }

    /// The same filter, empty, with insertions into a full table following
    /// `policy`.
    #[must_use]
    pub fn with_full_table(mut self, policy: FullTable) -> Self {
        self.full_table = policy;
        self.clear();
        self
    }

    /// What an insertion into a full table does.
    pub fn full_table(&self) -> FullTable {
        self.full_table
    }

    /// Cells holding a fingerprint (a non-zero value).
    pub fn occupied(&self) -> u64 {
        self.occupied
    }

    /// Whether every cell holds a fingerprint: no relocation can then make
    /// room, and it stays so until [`clear`](DuplicateFilter::clear).
    pub fn is_full(&self) -> bool {
        self.occupied == self.cells()
    }

    /// The same filter, empty, with its generator seeded by `seed`.
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.rng = SeededRng::new(seed);
        self.clear();
        self
    }

    /// The same filter, empty, with fingerprint 0 handled by `policy`.
    #[must_use]
    pub fn with_zero_policy(mut self, policy: ZeroPolicy) -> Self {
        self.fingerprinter = self.fingerprinter.with_policy(policy);
        self.clear();
        self
    }

    /// The number of buckets `m`.
    pub fn buckets(&self) -> u64 {
        self.cells.rows()
    }

    /// The cells per bucket `b`.
    pub fn cells_per_bucket(&self) -> usize {
        self.cells.cells_per_row()
    }

    /// The fingerprint width `f` in bits.
    pub fn fingerprint_bits(&self) -> u32 {
        self.fingerprinter.bits()
    }

    /// The relocation bound per insertion.
    pub fn max_kicks(&self) -> u32 {
        self.max_kicks
    }

    /// How a fingerprint of value 0 is handled.
    pub fn zero_policy(&self) -> ZeroPolicy {
        self.fingerprinter.policy()
    }

    /// The number of fingerprint values an item can get.
    pub fn fingerprints(&self) -> u64 {
        self.fingerprinter.distinct_values()
    }

    /// The seed of the filter's generator.
    pub fn seed(&self) -> u64 {
        self.rng.seed()
    }

    /// Fingerprints dropped since construction (or [`clear`](DuplicateFilter::clear))
    /// because a relocation chain ended in a full bucket.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The table of cells (bucket `i` is row `i`), for inspection.
    pub fn table(&self) -> &CellRows {
        &self.cells
    }

    /// The number of cells (rows × cells per row).
    pub fn cells(&self) -> u64 {
        self.cells.rows() * self.cells.cells_per_row() as u64
    }

    /// The two candidate buckets of `digest` and its fingerprint.
    #[inline]
    pub fn locate(&self, digest: Digest) -> (u64, u64, u32) {
        let (first, rest) = digest.split(self.cells.rows());
        let fp = self.fingerprinter.fingerprint(rest);
        (first, self.alternate(first, fp), fp)
    }

    /// The other bucket of a fingerprint stored in bucket `bucket`:
    /// `(H(φ) − i) mod m`, an involution on buckets.
    #[inline]
    pub fn alternate(&self, bucket: u64, fp: u32) -> u64 {
        let m = self.cells.rows();
        let offset = Digest::new(u64::from(fp).wrapping_mul(ALT_MULTIPLIER)).reduce(m);
        if offset >= bucket {
            offset - bucket
        } else {
            offset + m - bucket
        }
    }

    #[inline]
    fn found(&self, first: u64, second: u64, fp: u32) -> bool {
        self.cells.find(first, fp).is_some() || self.cells.find(second, fp).is_some()
    }

    /// Keeps `occupied` exact when a cell's value goes from `old` to `new`.
    #[inline]
    fn recount(&mut self, old: u32, new: u32) {
        self.occupied = self.occupied + u64::from(new != 0) - u64::from(old != 0);
    }

    /// Stores `fp`, relocating up to `max_kicks` fingerprints; drops the one
    /// in hand when the chain ends in a full bucket. A full table under
    /// [`FullTable::Evict`] skips the walk that cannot succeed.
    #[inline]
    fn store(&mut self, first: u64, second: u64, fp: u32) {
        if self.full_table == FullTable::Evict && self.max_kicks > 0 && self.is_full() {
            self.evict(first, second, fp);
            return;
        }
        for bucket in [first, second] {
            if let Some(cell) = self.cells.first_empty(bucket) {
                self.cells.set(bucket, cell, fp);
                self.recount(0, fp);
                return;
            }
        }
        self.relocate(first, second, fp);
    }

    /// [`FullTable::Evict`]: `fp` replaces a random cell of a random one of
    /// its two buckets, and the fingerprint there is dropped. The bucket is
    /// `i₁` or `i₂` by a fair coin, both uniform over the `m` buckets, and
    /// the cell uniform in it, so every cell is the victim with
    /// probability `1/(m·b)`.
    #[inline]
    fn evict(&mut self, first: u64, second: u64, fp: u32) {
        let bucket = if self.rng.next_u64() >> 63 == 0 {
            first
        } else {
            second
        };
        let b = self.cells.cells_per_row() as u64;
        let cell = if b == 1 {
            0
        } else {
            self.rng.below(b) as usize
        };
        let old = self.cells.replace(bucket, cell, fp);
        self.recount(old, fp);
        self.dropped = self.dropped.saturating_add(1);
    }

    /// The cuckoo walk of Fan et al.'s Algorithm 1, with the final failure
    /// turned into dropping the fingerprint in hand.
    #[inline(never)]
    fn relocate(&mut self, first: u64, second: u64, mut fp: u32) {
        if self.max_kicks == 0 {
            self.dropped = self.dropped.saturating_add(1);
            return;
        }
        let b = self.cells.cells_per_row() as u64;
        let mut bucket = if self.rng.next_u64() >> 63 == 0 {
            first
        } else {
            second
        };
        if b == 1 {
            // One cell per bucket: the value read to test a bucket for room
            // is the one the next swap evicts, so each step reads once.
            let mut held = self.cells.get(bucket, 0);
            for _ in 0..self.max_kicks {
                self.cells.set(bucket, 0, fp);
                self.recount(held, fp);
                fp = held;
                bucket = self.alternate(bucket, fp);
                held = self.cells.get(bucket, 0);
                if held == 0 {
                    self.cells.set(bucket, 0, fp);
                    self.recount(0, fp);
                    return;
                }
            }
            self.dropped = self.dropped.saturating_add(1);
            return;
        }
        for _ in 0..self.max_kicks {
            let cell = if b == 1 {
                0
            } else {
                self.rng.below(b) as usize
            };
            let old = self.cells.replace(bucket, cell, fp);
            self.recount(old, fp);
            fp = old;
            bucket = self.alternate(bucket, fp);
            if let Some(empty) = self.cells.first_empty(bucket) {
                self.cells.set(bucket, empty, fp);
                self.recount(0, fp);
                return;
            }
        }
        self.dropped = self.dropped.saturating_add(1);
    }
}

impl StreamingCuckoo {
    /// What [`new`](Self::new)`(buckets, cells_per_bucket, fingerprint_bits)`
    /// with [`StreamRule::InsertAlways`] predicts at saturation on a stream
    /// of ever-new items, when the number of distinct items is unknown:
    /// `FPR_∞ = 1 − (1 − 1/S)^(2b)`
    /// ([`fpr_inf`](ddf_theory::cuckoo::fpr_inf) for the uniform law of the
    /// `S = 2^f − 1` values the default zero policy leaves) and the
    /// worst-case `FNR_∞ = 1 − FPR_∞`; `m·b·f` bits and two accesses (the
    /// two candidate buckets). The default rule, which looks first, has no
    /// saturated model (`docs/errata.md`). Fails as `new` does.
    pub fn saturated_sizing(
        buckets: u64,
        cells_per_bucket: usize,
        fingerprint_bits: u32,
    ) -> Result<ddf_core::Prediction, ParamError> {
        check_params(buckets, cells_per_bucket, fingerprint_bits)?;
        let cells = ddf_param::checked_mul("buckets", buckets, cells_per_bucket as u64)?;
        let bits = ddf_param::checked_mul("buckets", cells, u64::from(fingerprint_bits))?;
        ddf_param::state_words("buckets", bits)?;
        let values = 2f64.powi(fingerprint_bits as i32) - 1.0;
        // Every value has probability 1/S: the law's sum is S equal terms.
        let fpr = values * ddf_theory::cuckoo::fpr_inf(cells_per_bucket as f64, &[1.0 / values]);
        Ok(ddf_core::Prediction::exact_window(bits, fpr, 2.0).with_misses(1.0 - fpr))
    }

    /// The `(m, b, f)` within `memory_bits` whose saturated FPR is at most
    /// `fpr` and whose table holds the most fingerprints `m·b` (ties:
    /// the lower FPR), among `b ≤ 8`, `f ≤ 32`, `m = ⌊M/(b·f)⌋`: the shape
    /// for [`saturated_sizing`](Self::saturated_sizing). At saturation
    /// `FPR + FNR = 1` whatever the shape; more cells remember longer.
    pub fn saturated_parameters_for(
        memory_bits: u64,
        fpr: f64,
    ) -> Result<(u64, usize, u32), ParamError> {
        let fpr = ddf_param::ensure_probability("fpr", fpr)?;
        let mut best: Option<(u64, f64, u64, usize, u32)> = None;
        for b in 1..=8usize {
            for f in 1..=32u32 {
                let buckets = memory_bits / (b as u64 * u64::from(f));
                let Ok(p) = Self::saturated_sizing(buckets, b, f) else {
                    continue;
                };
                if p.fpr.is_nan() || p.fpr > fpr {
                    continue;
                }
                let cells = buckets * b as u64;
                if best.is_none_or(|x| cells > x.0 || (cells == x.0 && p.fpr < x.1)) {
                    best = Some((cells, p.fpr, buckets, b, f));
                }
            }
        }
        let (.., buckets, b, f) = best.ok_or_else(|| {
            ParamError::new(
                "memory_bits",
                memory_bits,
                format!("a budget some b ≤ 8, f ≤ 32 fill with a saturated FPR ≤ {fpr}"),
            )
        })?;
        Ok((buckets, b, f))
    }
}

/// Checks the parameters of [`StreamingCuckoo::new`] without allocating.
fn check_params(
    buckets: u64,
    cells_per_bucket: usize,
    fingerprint_bits: u32,
) -> Result<Fingerprinter, ParamError> {
    let fingerprinter = Fingerprinter::new(fingerprint_bits, ZeroPolicy::default())?;
    ddf_param::ensure_range(
        "cells_per_bucket",
        cells_per_bucket,
        1..=CellRows::MAX_BUCKETS_PER_ROW,
    )?;
    ddf_param::ensure_positive("buckets", buckets)?;
    Digest::check_split("buckets", buckets, fingerprint_bits)?;
    Ok(fingerprinter)
}

/// `CellRows` names its parameters after QHT's rows; say buckets here.
fn rename(e: ParamError, cells: &'static str) -> ParamError {
    let param = match e.param() {
        "rows" => "buckets",
        "cells_per_row" => cells,
        "cell_bits" => "fingerprint_bits",
        other => other,
    };
    ParamError::new(param, e.value(), e.expected().to_owned())
}

/// The whole stream: the streaming cuckoo filter forgets by eviction (false
/// negatives), not by age.
impl ddf_core::Windowed for StreamingCuckoo {
    fn window(&self) -> ddf_core::Window {
        ddf_core::Window::Unbounded
    }
}

impl DuplicateFilter for StreamingCuckoo {
    #[inline]
    fn contains(&self, digest: Digest) -> bool {
        let (first, second, fp) = self.locate(digest);
        self.found(first, second, fp)
    }

    /// Under [`StreamRule::LookupFirst`] a fingerprint already in one of
    /// the two buckets is not stored again, so `observe` is `contains` then
    /// `insert` under either rule.
    #[inline]
    fn insert(&mut self, digest: Digest) {
        let (first, second, fp) = self.locate(digest);
        if self.rule == StreamRule::InsertAlways || !self.found(first, second, fp) {
            self.store(first, second, fp);
        }
    }

    #[inline]
    fn observe(&mut self, digest: Digest) -> Verdict {
        let (first, second, fp) = self.locate(digest);
        let seen = self.found(first, second, fp);
        if !seen || self.rule == StreamRule::InsertAlways {
            self.store(first, second, fp);
        }
        Verdict::from_seen(seen)
    }

    /// Prefetches both buckets a few items ahead; same verdicts, state and draws.
    fn observe_batch(&mut self, digests: &[Digest], verdicts: &mut Vec<Verdict>) {
        batch::observe_batch(self, digests, verdicts);
    }

    fn contains_batch(&self, digests: &[Digest], answers: &mut Vec<bool>) {
        batch::contains_batch(self, digests, answers);
    }

    /// `m·b·f` bits.
    fn memory_bits(&self) -> u64 {
        self.cells.memory_bits()
    }

    fn clear(&mut self) {
        self.cells.clear();
        self.rng.reset();
        self.dropped = 0;
        self.occupied = 0;
    }
}

/// Both candidate buckets (relocation chains are not predicted).
impl Prefetch for StreamingCuckoo {
    /// Two lines per item.
    const LOOKAHEAD: usize = 8;

    #[inline]
    fn prefetch(&self, digest: Digest) {
        let (first, second, _) = self.locate(digest);
        self.cells.prefetch_row(first);
        self.cells.prefetch_row(second);
    }
}

/// Refused: a bucket keeps what one stream's evictions left in it, so two
/// tables have no union of the same size.
impl ddf_core::Merge for StreamingCuckoo {
    fn merge(&mut self, _other: &Self) -> Result<(), ddf_core::MergeError> {
        Err(ddf_core::MergeError::Unsupported {
            family: "streaming cuckoo",
            reason: "a bucket keeps what one stream's evictions left in it; two tables have no union of the same size",
        })
    }
}

impl fmt::Debug for StreamingCuckoo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamingCuckoo")
            .field("buckets", &self.buckets())
            .field("cells_per_bucket", &self.cells_per_bucket())
            .field("fingerprint_bits", &self.fingerprint_bits())
            .field("max_kicks", &self.max_kicks)
            .field("rule", &self.rule)
            .field("full_table", &self.full_table)
            .field("occupied", &self.occupied)
            .field("zero_policy", &self.zero_policy())
            .field("seed", &self.seed())
            .field("dropped", &self.dropped)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ddf_core::snapshot::{self, Encoder};

    #[test]
    fn saturated_sizing_agrees_with_new_and_meets_its_target() {
        let p = StreamingCuckoo::saturated_sizing(1000, 4, 8).unwrap();
        assert_eq!(
            p.memory_bits,
            StreamingCuckoo::new(1000, 4, 8).unwrap().memory_bits()
        );
        // Eight candidate cells of 255 values: 1 − (254/255)^8.
        assert!((p.fpr - (1.0 - (254.0f64 / 255.0).powi(8))).abs() < 1e-12);
        assert!((p.fpr + p.fnr - 1.0).abs() < 1e-12 && p.false_negatives);
        assert_eq!(
            StreamingCuckoo::saturated_sizing(1000, 4, 33)
                .unwrap_err()
                .param(),
            StreamingCuckoo::new(1000, 4, 33).unwrap_err().param()
        );
        let (m, b, f) = StreamingCuckoo::saturated_parameters_for(1 << 20, 0.01).unwrap();
        let p = StreamingCuckoo::saturated_sizing(m, b, f).unwrap();
        assert!(p.fpr <= 0.01 && p.memory_bits <= 1 << 20);
        assert!(StreamingCuckoo::saturated_parameters_for(4, 0.01).is_err());
    }

    fn d(x: u64) -> Digest {
        Digest::mixed(x)
    }

    #[test]
    fn parameters_are_checked() {
        let param = |r: Result<StreamingCuckoo, ParamError>| r.unwrap_err().param();
        assert_eq!(param(StreamingCuckoo::new(0, 4, 8)), "buckets");
        assert_eq!(param(StreamingCuckoo::new(10, 0, 8)), "cells_per_bucket");
        assert_eq!(param(StreamingCuckoo::new(10, 5000, 8)), "cells_per_bucket");
        assert_eq!(param(StreamingCuckoo::new(10, 4, 0)), "fingerprint_bits");
        assert_eq!(param(StreamingCuckoo::new(1 << 40, 1, 8)), "buckets");
        assert_eq!(param(StreamingCuckoo::new(u64::MAX, 1, 8)), "buckets");
        assert_eq!(param(StreamingCuckoo::with_memory(3, 1, 4)), "memory_bits");
        assert_eq!(
            param(StreamingCuckoo::with_memory(300, 0, 4)),
            "cells_per_bucket"
        );
        let f = StreamingCuckoo::with_memory(10_000, 1, 3).unwrap();
        assert_eq!((f.buckets(), f.memory_bits()), (3333, 9999));
    }

    #[test]
    fn alternate_is_an_involution() {
        for m in [1u64, 2, 3, 7, 1000, 4096] {
            let f = StreamingCuckoo::new(m, 2, 8).unwrap();
            for i in 0..m.min(200) {
                for fp in 1..40 {
                    let j = f.alternate(i, fp);
                    assert!(j < m);
                    assert_eq!(f.alternate(j, fp), i);
                }
            }
        }
    }

    #[test]
    fn no_false_negatives_before_the_first_drop() {
        let mut f = StreamingCuckoo::new(256, 4, 12).unwrap();
        let items: Vec<Digest> = (0..900).map(d).collect();
        for &x in &items {
            f.insert(x);
        }
        assert_eq!(f.dropped(), 0, "88% load fits with b = 4");
        assert!(items.iter().all(|&x| f.contains(x)));
    }

    #[test]
    fn a_full_table_drops_one_fingerprint_per_insertion() {
        let mut f = StreamingCuckoo::new(16, 1, 8)
            .unwrap()
            .with_max_kicks(20)
            .unwrap()
            .with_stream_rule(StreamRule::InsertAlways);
        for x in 0..1000 {
            f.insert(d(x));
        }
        assert_eq!(f.table().count_occupied(3), 1);
        let stored: usize = (0..16).map(|i| f.table().count_occupied(i)).sum();
        assert_eq!(stored as u64 + f.dropped(), 1000);
        let g = StreamingCuckoo::new(16, 1, 8).unwrap();
        assert_eq!(g.clone().with_max_kicks(0).unwrap().max_kicks(), 0);
        let err = g
            .with_max_kicks(StreamingCuckoo::MAX_KICKS + 1)
            .unwrap_err();
        assert_eq!(err.param(), "max_kicks");
        assert!(format!("{f:?}").contains("dropped"));
    }

    #[test]
    fn a_repeated_item_leaves_a_full_table_alone() {
        // A full table: every further insertion would drop a fingerprint.
        let fill = |rule| {
            let mut f = StreamingCuckoo::new(16, 1, 8)
                .unwrap()
                .with_max_kicks(20)
                .unwrap()
                .with_stream_rule(rule);
            for x in 0..1000 {
                f.insert(d(x));
            }
            f
        };
        let mut f = fill(StreamingCuckoo::new(1, 1, 8).unwrap().stream_rule());
        assert_eq!(f.stream_rule(), StreamRule::LookupFirst);
        let key = (0..1000).map(d).find(|&x| f.contains(x)).unwrap();
        let (before, table) = (f.dropped(), f.table().as_words().to_vec());
        for _ in 0..12 {
            assert_eq!(f.observe(key), Verdict::Duplicate);
        }
        assert_eq!(f.dropped(), before);
        assert_eq!(f.table().as_words(), &table[..]);
        // The paper's rule stores the repeat again and drops one per sighting.
        let mut g = fill(StreamRule::InsertAlways);
        let before = g.dropped();
        for _ in 0..12 {
            g.observe(key);
        }
        assert_eq!(g.dropped(), before + 12);
    }

    #[test]
    fn snapshots_keep_the_rule_and_version_1_means_insert_always() {
        let mut f = StreamingCuckoo::new(64, 2, 8)
            .unwrap()
            .with_stream_rule(StreamRule::InsertAlways);
        for x in 0..50 {
            f.observe(d(x));
        }
        let back = StreamingCuckoo::from_bytes(&f.to_bytes()).unwrap();
        assert_eq!(back.stream_rule(), StreamRule::InsertAlways);
        assert_eq!(back.table().as_words(), f.table().as_words());
        // A version 1 body: the same fields without the rule byte.
        let mut body = Encoder::new();
        body.put_u64(f.buckets());
        body.put_u32(2);
        body.put_u8(8);
        body.put_zero_policy(f.zero_policy());
        body.put_u32(f.max_kicks());
        body.put_rng(&f.rng);
        body.put_u64(f.dropped());
        body.put_words(f.table().as_words());
        let v1 = snapshot::seal(StreamingCuckoo::KIND, 1, 0, &[], &body.into_bytes());
        let old = StreamingCuckoo::from_bytes(&v1).unwrap();
        assert_eq!(old.stream_rule(), StreamRule::InsertAlways);
        assert_eq!(old.table().as_words(), f.table().as_words());
        // An unknown rule byte is refused by name.
        let mut bad = Encoder::new();
        bad.put_u64(4);
        bad.put_u32(1);
        bad.put_u8(8);
        bad.put_zero_policy(ZeroPolicy::default());
        bad.put_u32(16);
        bad.put_u8(7);
        let sealed = snapshot::seal(StreamingCuckoo::KIND, 2, 0, &[], &bad.into_bytes());
        let err = StreamingCuckoo::from_bytes(&sealed).unwrap_err();
        assert!(err.to_string().contains("stream_rule"), "{err}");
    }

    #[test]
    fn a_full_table_evicts_in_one_step_and_matches_the_walk_before() {
        let (evict, walk) = (
            StreamingCuckoo::new(64, 2, 12).unwrap().with_seed(9),
            StreamingCuckoo::new(64, 2, 12)
                .unwrap()
                .with_seed(9)
                .with_full_table(FullTable::Walk),
        );
        assert_eq!(evict.full_table(), FullTable::Evict);
        let (mut evict, mut walk) = (evict, walk);
        let mut x = 0;
        // Until the table is full the two policies draw and store alike.
        while !walk.is_full() {
            evict.insert(d(x));
            walk.insert(d(x));
            x += 1;
            assert_eq!(evict.table().as_words(), walk.table().as_words());
            assert_eq!(evict.dropped(), walk.dropped());
            assert!(x < 10_000, "the table fills");
        }
        assert!(evict.is_full() && evict.occupied() == 128);
        // Full: each unseen item is stored and drops exactly one.
        for y in x..x + 500 {
            let before = evict.dropped();
            if evict.observe(d(y)) == Verdict::Unseen {
                assert_eq!(evict.dropped(), before + 1);
                assert!(evict.contains(d(y)));
            }
            assert!(evict.is_full());
        }
        // The walk's count is recounted from a snapshot, as is the policy.
        let back = StreamingCuckoo::from_bytes(&evict.to_bytes()).unwrap();
        assert_eq!(
            (back.occupied(), back.full_table()),
            (128, FullTable::Evict)
        );
        let back = StreamingCuckoo::from_bytes(&walk.to_bytes()).unwrap();
        assert_eq!(back.full_table(), FullTable::Walk);
        evict.clear();
        assert_eq!(evict.occupied(), 0);
    }

    #[test]
    fn version_2_snapshots_walk_and_bad_policies_are_refused() {
        let mut f = StreamingCuckoo::new(32, 1, 8).unwrap();
        for x in 0..40 {
            f.observe(d(x));
        }
        let body = |policy: Option<u8>| {
            let mut e = Encoder::new();
            e.put_u64(f.buckets());
            e.put_u32(1);
            e.put_u8(8);
            e.put_zero_policy(f.zero_policy());
            e.put_u32(f.max_kicks());
            e.put_u8(0);
            if let Some(p) = policy {
                e.put_u8(p);
            }
            e.put_rng(&f.rng);
            e.put_u64(f.dropped());
            e.put_words(f.table().as_words());
            e.into_bytes()
        };
        let v2 = snapshot::seal(StreamingCuckoo::KIND, 2, 0, &[], &body(None));
        let old = StreamingCuckoo::from_bytes(&v2).unwrap();
        assert_eq!(old.full_table(), FullTable::Walk);
        assert_eq!(old.occupied(), f.occupied());
        assert_eq!(old.table().as_words(), f.table().as_words());
        let v3 = snapshot::seal(StreamingCuckoo::KIND, 3, 0, &[], &body(Some(0)));
        assert_eq!(
            StreamingCuckoo::from_bytes(&v3).unwrap().full_table(),
            FullTable::Evict
        );
        let bad = snapshot::seal(StreamingCuckoo::KIND, 3, 0, &[], &body(Some(2)));
        let err = StreamingCuckoo::from_bytes(&bad).unwrap_err();
        assert!(err.to_string().contains("full_table"), "{err}");
    }
}

#[cfg(feature = "serde")]
ddf_core::impl_serde_via_snapshot!(StreamingCuckoo);
