//! The partitioned Bloom filter (Mullin): `k` slices of `m` bits, one probe each.

use ddf_bits::BitArray;
use ddf_core::batch::{self, Prefetch};
use ddf_core::snapshot::{self, DecodeError, Decoder, Encoder, Snapshot};
use ddf_core::{Digest, DuplicateFilter, Goal, ParamError, Prediction, Verdict};
use ddf_param::{checked_mul, ensure_probability, ensure_range, state_words};
use std::fmt;

/// The most slices (`k`) a partitioned filter takes; `2^-64` is far below any
/// useful false-positive rate.
pub const MAX_SLICES: u32 = 64;

/// `k = ⌈log₂(1/fpr)⌉` slices for a target rate, at most [`MAX_SLICES`].
fn slices_for(fpr: f64) -> Result<u32, ParamError> {
    let fpr = ensure_probability("fpr", fpr)?;
    ddf_theory::bloom::optimal_slices(fpr)
        .filter(|&k| (1..=MAX_SLICES).contains(&k))
        .ok_or_else(|| ParamError::new("fpr", fpr, "a rate of at least 2^-64"))
}

/// The least slice that is at most half full after `n` insertions:
/// `(1 − 1/m)^n ≥ ½ ⇔ m ≥ 1/(1 − 2^(−1/n))`.
fn half_full_slice_bits(n: f64) -> u64 {
    let m = (1.0 / -(-std::f64::consts::LN_2 / n).exp_m1()).ceil();
    if m.is_finite() {
        (m as u64).max(1)
    } else {
        u64::MAX
    }
}

/// Insertions a prediction is made for: finite and at least 0.
fn check_items(items: f64) -> Result<f64, ParamError> {
    if items.is_finite() && items >= 0.0 {
        Ok(items)
    } else {
        Err(ParamError::new(
            "items",
            items,
            "a finite number of items ≥ 0",
        ))
    }
}

/// A partitioned Bloom filter: `k` slices of `m` bits each, an item sets one
/// bit in every slice (Mullin, *A second look at Bloom filters*, as
/// described in the APBF paper §4).
///
/// Probe `i` of an item's [`Digest::probes`] sequence lands in slice `i`,
/// so one digest gives all `k` positions (double hashing, Kirsch and
/// Mitzenmacher). No false negatives: an inserted item is reported forever.
/// After `n` insertions of distinct items each slice is filled to
/// `r = 1 − (1 − 1/m)^n` and the false-positive rate is `r^k`
/// ([`ddf_theory::bloom::partitioned_fp`]).
///
/// # Examples
///
/// ```
/// use ddf_bloom::{Deduper, PartitionedBloom, Verdict};
///
/// let mut seen = Deduper::new(PartitionedBloom::with_items(10_000, 0.01)?);
/// assert_eq!(seen.observe("url-1"), Verdict::Unseen);
/// assert_eq!(seen.observe("url-1"), Verdict::Duplicate);
/// # Ok::<(), ddf_bloom::ParamError>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct PartitionedBloom {
    /// `k·m` bits; slice `i` is bits `i·m .. (i + 1)·m`.
    pub(crate) bits: BitArray,
    /// `k`.
    pub(crate) slices: u32,
    /// `m`.
    pub(crate) slice_bits: u64,
}

impl PartitionedBloom {
    /// `slices` (`k`, 1..=64) slices of `slice_bits` (`m ≥ 1`) bits.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_bloom::{Digest, DuplicateFilter, PartitionedBloom, Verdict};
    ///
    /// let mut f = PartitionedBloom::new(7, 14_428)?;
    /// assert_eq!(f.memory_bits(), 7 * 14_428);
    /// assert_eq!(f.observe(Digest::mixed(5)), Verdict::Unseen);
    /// assert_eq!(f.observe(Digest::mixed(5)), Verdict::Duplicate);
    /// assert_eq!(PartitionedBloom::new(65, 100).unwrap_err().param(), "slices");
    /// # Ok::<(), ddf_bloom::ParamError>(())
    /// ```
    pub fn new(slices: u32, slice_bits: u64) -> Result<Self, ParamError> {
        let total = Self::check(slices, slice_bits)?;
        Ok(PartitionedBloom {
            bits: BitArray::new(total)?,
            slices,
            slice_bits,
        })
    }

    /// The parameter rule of [`new`](Self::new) and
    /// [`sizing`](Self::sizing); returns the total bits `k·m`.
    fn check(slices: u32, slice_bits: u64) -> Result<u64, ParamError> {
        let k = ensure_range("slices", slices, 1..=MAX_SLICES)?;
        let m = ensure_range("slice_bits", slice_bits, 1..=ddf_param::MAX_STATE_BITS)?;
        let total = checked_mul("slice_bits", u64::from(k), m)?;
        state_words("slice_bits", total)?;
        Ok(total)
    }

    /// What [`new`](Self::new)`(slices, slice_bits)` predicts after `items`
    /// insertions of distinct items, without building it: `k·m` bits, the
    /// rate `r^k` with `r = 1 − (1 − 1/m)^n`
    /// ([`ddf_theory::bloom::partitioned_fp`]), no misses, no slack (it
    /// never forgets), and the expected slices a negative query reads
    /// (it stops at the first clear bit) plus `k` writes. Fails as `new`
    /// does, or (parameter `capacity`) unless `items` is finite and ≥ 0.
    pub fn sizing(slices: u32, slice_bits: u64, items: f64) -> Result<Prediction, ParamError> {
        let total = Self::check(slices, slice_bits)?;
        let n = check_items(items)?;
        let r = ddf_theory::bloom::slice_fill_ratio(n, slice_bits as f64);
        Ok(Prediction::exact_window(
            total,
            ddf_theory::bloom::partitioned_fp(n, slice_bits as f64, f64::from(slices)),
            ddf_theory::bloom::negative_query_accesses(slices, r) + f64::from(slices),
        ))
    }

    /// The `(k, m)` for `items` distinct insertions and `goal`: for a
    /// target, the slices of [`with_items`](Self::with_items)
    /// (`k = ⌈log₂(1/fpr)⌉`, each half full after `items`); for a budget, the
    /// `k ≤ 64` with the least rate at `m = ⌊budget/k⌋`.
    pub fn parameters_for(items: f64, goal: Goal) -> Result<(u32, u64), ParamError> {
        let n = check_items(items)?;
        let (k, m) = match goal {
            Goal::Fpr(fpr) => (slices_for(fpr)?, half_full_slice_bits(n)),
            Goal::Budget(budget) => {
                let k = ddf_theory::numerics::argmin_int(1..=u64::from(MAX_SLICES), |k| {
                    let m = budget / k;
                    if m == 0 {
                        f64::INFINITY
                    } else {
                        ddf_theory::bloom::partitioned_fp(n, m as f64, k as f64)
                    }
                })
                .filter(|min| budget / min.arg > 0)
                .ok_or_else(|| ParamError::new("memory_bits", budget, "at least 1 bit"))?
                .arg;
                (k as u32, budget / k)
            }
        };
        Self::check(k, m)?;
        Ok((k, m))
    }

    /// A filter for `items` distinct items at a false-positive rate of at
    /// most `fpr` (strictly between 0 and 1): `k = ⌈log₂(1/fpr)⌉` slices,
    /// each the smallest that is at most half full after `items`
    /// insertions (APBF paper §4.1, Table 1). `fpr` is that section's
    /// target rate `p`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_bloom::PartitionedBloom;
    ///
    /// let f = PartitionedBloom::with_items(10_000, 0.01)?;
    /// assert_eq!((f.slices(), f.slice_bits()), (7, 14_428));
    /// assert!(PartitionedBloom::with_items(10_000, 0.0).is_err());
    /// # Ok::<(), ddf_bloom::ParamError>(())
    /// ```
    pub fn with_items(items: u64, fpr: f64) -> Result<Self, ParamError> {
        let fpr = ensure_probability("fpr", fpr)?;
        let items = ensure_range("items", items, 1..=ddf_param::MAX_STATE_BITS)?;
        Self::new(slices_for(fpr)?, half_full_slice_bits(items as f64))
    }

    /// The number of slices, `k`.
    pub fn slices(&self) -> u32 {
        self.slices
    }

    /// The bits per slice, `m`.
    pub fn slice_bits(&self) -> u64 {
        self.slice_bits
    }

    /// The fraction of bits set, the mean fill ratio of the slices.
    pub fn fill_ratio(&self) -> f64 {
        self.bits.count_ones() as f64 / self.bits.len() as f64
    }

    /// The bit positions of `digest`, slice by slice.
    #[inline]
    fn positions(&self, digest: Digest) -> impl Iterator<Item = u64> + use<> {
        positions(self.slices, self.slice_bits, digest)
    }
}

/// The bit positions of `digest` in `k` slices of `m` bits, slice by slice
/// (shared with the lock-free filter).
#[inline]
pub(crate) fn positions(k: u32, m: u64, digest: Digest) -> impl Iterator<Item = u64> {
    digest
        .probes(m)
        .take(k as usize)
        .zip(0u64..)
        .map(move |(p, i)| i * m + p)
}

/// The whole stream: a Bloom filter never forgets.
impl ddf_core::Windowed for PartitionedBloom {
    fn window(&self) -> ddf_core::Window {
        ddf_core::Window::Unbounded
    }
}

impl DuplicateFilter for PartitionedBloom {
    #[inline]
    fn contains(&self, digest: Digest) -> bool {
        self.positions(digest).all(|p| self.bits.get(p))
    }

    #[inline]
    fn insert(&mut self, digest: Digest) {
        for p in self.positions(digest) {
            self.bits.set(p);
        }
    }

    /// Tests and sets each slice's bit in one pass: slices are disjoint, so
    /// setting one bit cannot change the test of another.
    #[inline]
    fn observe(&mut self, digest: Digest) -> Verdict {
        let mut seen = true;
        for p in self.positions(digest) {
            seen &= self.bits.test_and_set(p);
        }
        Verdict::from_seen(seen)
    }

    /// Prefetches each item's `k` bits a few items ahead; same verdicts and state.
    fn observe_batch(&mut self, digests: &[Digest], verdicts: &mut Vec<Verdict>) {
        batch::observe_batch(self, digests, verdicts);
    }

    fn contains_batch(&self, digests: &[Digest], answers: &mut Vec<bool>) {
        batch::contains_batch(self, digests, answers);
    }

    fn memory_bits(&self) -> u64 {
        self.bits.len()
    }

    fn clear(&mut self) {
        self.bits.clear();
    }
}

/// One line per slice.
impl Prefetch for PartitionedBloom {
    /// `k` lines per item.
    const LOOKAHEAD: usize = 4;
    /// 16 Mbit (2 MiB, a per-core L2 of the Intel Xeon measured): a hint recomputes
    /// all `k` probes, which in L2 costs as much as the observation itself
    /// (1 Mbit, k = 7: 15 ns one by one, 30 ns with hints).
    const MIN_PREFETCH_BITS: u64 = 1 << 24;

    #[inline]
    fn prefetch(&self, digest: Digest) {
        for p in self.positions(digest) {
            self.bits.prefetch(p);
        }
    }
}

/// Whole-stream filters of one shape merge by OR: the union holds every
/// item of both streams (no false negative), and its false-positive rate
/// is the filter's at the combined number of distinct items, for which it
/// must be sized.
///
/// # Examples
///
/// ```
/// use ddf_bloom::{Digest, DuplicateFilter, Merge, PartitionedBloom};
///
/// let mut a = PartitionedBloom::with_items(10_000, 0.01)?;
/// let mut b = a.clone();
/// a.insert(Digest::mixed(1));
/// b.insert(Digest::mixed(2));
/// a.merge(&b)?;
/// assert!(a.contains(Digest::mixed(1)) && a.contains(Digest::mixed(2)));
/// assert!(a.merge(&PartitionedBloom::with_items(20_000, 0.01)?).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl ddf_core::Merge for PartitionedBloom {
    fn merge(&mut self, other: &Self) -> Result<(), ddf_core::MergeError> {
        ddf_core::MergeError::check("slices", self.slices, other.slices)?;
        ddf_core::MergeError::check("slice_bits", self.slice_bits, other.slice_bits)?;
        self.bits.union_with(&other.bits);
        Ok(())
    }
}

impl fmt::Debug for PartitionedBloom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PartitionedBloom")
            .field("slices", &self.slices)
            .field("slice_bits", &self.slice_bits)
            .field("fill_ratio", &self.fill_ratio())
            .finish_non_exhaustive()
    }
}

/// Body: slices (u32), slice bits (u64), the `k·m` bits as words.
impl Snapshot for PartitionedBloom {
    const KIND: u16 = snapshot::kind::PARTITIONED_BLOOM;

    fn encode_body(&self, out: &mut Encoder) {
        out.put_u32(self.slices);
        out.put_u64(self.slice_bits);
        out.put_words(self.bits.as_words());
    }

    fn decode_body(input: &mut Decoder<'_>, _version: u16) -> Result<Self, DecodeError> {
        let slices = input.u32("slices")?;
        let slice_bits = input.u64("slice_bits")?;
        // The words are read (bounded by the input) and counted before the
        // constructor allocates what the parameters ask for.
        let words = input.words("bits")?;
        let total = checked_mul("slice_bits", u64::from(slices), slice_bits)?;
        crate::expect_words(&words, total, "bits")?;
        let mut f = PartitionedBloom::new(slices, slice_bits)?;
        f.bits = BitArray::from_words(total, words)?;
        Ok(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizing_agrees_with_new_and_meets_the_goal() {
        for (k, m) in [(0u32, 10u64), (65, 10), (3, 0), (64, 1 << 40)] {
            let new = PartitionedBloom::new(k, m).unwrap_err().param();
            assert_eq!(
                PartitionedBloom::sizing(k, m, 1.0).unwrap_err().param(),
                new
            );
        }
        let (k, m) = PartitionedBloom::parameters_for(1e4, Goal::Fpr(0.001)).unwrap();
        let built = PartitionedBloom::with_items(10_000, 0.001).unwrap();
        assert_eq!((k, m), (built.slices(), built.slice_bits()));
        let s = PartitionedBloom::sizing(k, m, 1e4).unwrap();
        assert_eq!(s.memory_bits, built.memory_bits());
        assert!(s.fpr <= 0.001 && !s.false_negatives);
        let (k, m) = PartitionedBloom::parameters_for(1e4, Goal::Budget(100_000)).unwrap();
        assert!(u64::from(k) * m <= 100_000 && k >= 6);
        assert!(PartitionedBloom::parameters_for(f64::NAN, Goal::Budget(10)).is_err());
        assert!(PartitionedBloom::parameters_for(1e4, Goal::Fpr(1e-300)).is_err());
    }

    #[test]
    fn parameters_are_checked() {
        assert_eq!(PartitionedBloom::new(0, 10).unwrap_err().param(), "slices");
        assert_eq!(PartitionedBloom::new(65, 10).unwrap_err().param(), "slices");
        assert_eq!(
            PartitionedBloom::new(3, 0).unwrap_err().param(),
            "slice_bits"
        );
        assert_eq!(
            PartitionedBloom::new(64, 1 << 40).unwrap_err().param(),
            "slice_bits"
        );
        assert_eq!(
            PartitionedBloom::with_items(10, 1.0).unwrap_err().param(),
            "fpr"
        );
        assert_eq!(
            PartitionedBloom::with_items(0, 0.1).unwrap_err().param(),
            "items"
        );
    }

    #[test]
    fn capacity_sizing_follows_table1() {
        let f = PartitionedBloom::with_items(1000, 0.01).unwrap();
        assert_eq!(f.slices(), 7);
        // m = 1444: (1 − 1/1444)^1000 ≥ ½ > (1 − 1/1443)^1000.
        assert_eq!(f.slice_bits(), 1444);
        assert_eq!(f.memory_bits(), 7 * 1444);
    }

    #[test]
    fn inserted_items_are_found() {
        let mut f = PartitionedBloom::new(4, 1000).unwrap();
        for i in 0..500 {
            f.insert(Digest::mixed(i));
        }
        assert!((0..500).all(|i| f.contains(Digest::mixed(i))));
        assert!(f.fill_ratio() > 0.3 && f.fill_ratio() < 0.5);
        f.clear();
        assert_eq!(f.fill_ratio(), 0.0);
    }
}
