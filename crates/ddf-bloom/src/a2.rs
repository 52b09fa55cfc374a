//! A2, Yoon's aging Bloom filter with two active buffers.

use crate::partitioned::MAX_SLICES;
use ddf_bits::BitArray;
use ddf_core::snapshot::{self, DecodeError, Decoder, Encoder, Snapshot};
use ddf_core::{Digest, DuplicateFilter, ParamError, Verdict, Window, Windowed};
use ddf_param::{ensure_probability, ensure_range, state_words};
use ddf_theory::a2::{buffer_capacity, buffer_fp_for};
use std::fmt;

/// A2, the aging Bloom filter with two active buffers (Yoon, *Aging Bloom
/// filter with two active buffers for dynamic sets*, as described in the
/// APBF paper §3.2).
///
/// Two standard Bloom filters of `m` bits with `k` probes, `active1` and
/// `active2`. A query asks both. An insertion does nothing if `active1`
/// already holds the item; otherwise the item goes into `active1` (for an
/// item found only in `active2` this is Yoon's copy into `active1`), and
/// when `active1` already holds its capacity `n`, it first becomes
/// `active2`, the old `active2` is emptied and becomes the new `active1`.
///
/// Window: an item is held for at least `n` of the filter's insertions
/// after its latest occurrence and at most `2n`, so there are no false
/// negatives for the last `n` insertions and a nominal window of `w = 2n`
/// (the sliding-window paper §4.3 switches buffers every `w/2`). Only
/// insertions of items absent from `active1` advance the buffers, so on a
/// stream of repeats an item may be held longer: the slack is unbounded.
///
/// # Examples
///
/// ```
/// use ddf_bloom::{A2, Deduper, Verdict};
///
/// let mut seen = Deduper::new(A2::with_window(10_000, 0.01)?);
/// assert_eq!(seen.observe("click-1"), Verdict::Unseen);
/// assert_eq!(seen.observe("click-1"), Verdict::Duplicate);
/// # Ok::<(), ddf_bloom::ParamError>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct A2 {
    buffers: [BitArray; 2],
    /// Index of `active1` in `buffers`.
    active: usize,
    /// `k`.
    probes: u32,
    /// `n`, items per buffer.
    capacity: u64,
    /// Items in `active1`.
    count: u64,
}

impl A2 {
    /// Two buffers of `buffer_bits` (`m ≥ 1`) bits, `probes` (`k`, 1..=64)
    /// probes, `capacity` (`n ≥ 1`) items per buffer.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_bloom::{A2, Digest, DuplicateFilter, Verdict};
    ///
    /// // Two buffers of 10,000 bits, 5 probes, switching every 1,000 items.
    /// let mut f = A2::new(10_000, 5, 1_000)?;
    /// assert_eq!(f.memory_bits(), 20_000);
    /// assert_eq!(f.observe(Digest::mixed(3)), Verdict::Unseen);
    /// assert_eq!(f.observe(Digest::mixed(3)), Verdict::Duplicate);
    /// # Ok::<(), ddf_bloom::ParamError>(())
    /// ```
    pub fn new(buffer_bits: u64, probes: u32, capacity: u64) -> Result<Self, ParamError> {
        let m = ensure_range(
            "buffer_bits",
            buffer_bits,
            1..=ddf_param::MAX_STATE_BITS / 2,
        )?;
        let k = ensure_range("probes", probes, 1..=MAX_SLICES)?;
        let n = ensure_range("capacity", capacity, 1..=u64::MAX / 2)?;
        state_words("buffer_bits", 2 * m)?;
        Ok(A2 {
            buffers: [BitArray::new(m)?, BitArray::new(m)?],
            active: 0,
            probes: k,
            capacity: n,
            count: 0,
        })
    }

    /// An A2 for a window of `window` insertions (`w ≥ 2`) whose
    /// false-positive rate stays at or below `fpr` even with both buffers
    /// full: buffers switch every `n = ⌈w/2⌉` insertions, as in the
    /// sliding-window paper §4.3, each buffer answering with rate at most
    /// `1 − √(1 − fpr)` after `n` items, with the optimal `k` for that rate
    /// and the fewest bits that reach it ([`ddf_theory::a2::buffer_bits`],
    /// which counts the items a buffer skips as already present).
    /// `fpr` is the rate `e` of a `(w, s, p, e)`-sliding filter (APBF paper §3).
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_bloom::{A2, Window, Windowed};
    ///
    /// let f = A2::with_window(1_000, 0.01)?;
    /// assert_eq!(f.window(), Window::Count(1_000));
    /// assert_eq!(f.capacity(), 500);
    /// # Ok::<(), ddf_bloom::ParamError>(())
    /// ```
    pub fn with_window(window: u64, fpr: f64) -> Result<Self, ParamError> {
        let fpr = ensure_probability("fpr", fpr)?;
        let w = ensure_range("window", window, 2..=ddf_param::MAX_STATE_BITS)?;
        let n = w.div_ceil(2);
        let p = buffer_fp_for(fpr);
        let k = probes_for(p)?;
        let m = ddf_theory::a2::buffer_bits(n as f64, f64::from(k), p);
        if !(m.is_finite() && m <= (ddf_param::MAX_STATE_BITS / 2) as f64) {
            return Err(ParamError::new(
                "window",
                w,
                "a window whose buffers fit in 2^39 bits each",
            ));
        }
        Self::new(m as u64, k, n)
    }

    /// An A2 in `memory_bits` bits (two buffers of half each) whose
    /// false-positive rate stays at or below `fpr` with both buffers full:
    /// the optimal `k` for the per-buffer rate `1 − √(1 − fpr)` and the largest
    /// capacity that keeps it ([`ddf_theory::a2::buffer_capacity`]).
    ///
    /// The QHT paper's configuration is `with_memory(M, 0.1)`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_bloom::{A2, DuplicateFilter};
    ///
    /// // The QHT paper's configuration in 1 Mbit.
    /// let f = A2::with_memory(1 << 20, 0.1)?;
    /// assert!(f.memory_bits() <= 1 << 20);
    /// assert!(f.capacity() > 0);
    /// # Ok::<(), ddf_bloom::ParamError>(())
    /// ```
    pub fn with_memory(memory_bits: u64, fpr: f64) -> Result<Self, ParamError> {
        let (m, k, n) = Self::saturated_parameters_for(memory_bits, fpr)?;
        Self::new(m, k, n)
    }

    /// The `(m, k, n)` of [`with_memory`](Self::with_memory)`(memory_bits,
    /// fpr)`: two buffers of `⌊M/2⌋` bits, the optimal `k` for the
    /// per-buffer rate `1 − √(1 − fpr)` and the largest capacity that keeps
    /// it. Fails as `with_memory` does (parameter `fpr` or `memory_bits`).
    pub fn saturated_parameters_for(
        memory_bits: u64,
        fpr: f64,
    ) -> Result<(u64, u32, u64), ParamError> {
        let fpr = ensure_probability("fpr", fpr)?;
        let m = memory_bits / 2;
        let p = buffer_fp_for(fpr);
        let k = probes_for(p)?;
        let n = buffer_capacity(m as f64, f64::from(k), p).floor();
        if n.is_nan() || n < 1.0 {
            return Err(ParamError::new(
                "memory_bits",
                memory_bits,
                format!("enough bits for one item per buffer at rate {fpr}"),
            ));
        }
        Ok((m, k, n as u64))
    }

    /// What [`new`](Self::new)`(buffer_bits, probes, capacity)` predicts
    /// on a stream of ever-new items, when the number of distinct items is
    /// unknown: the worst FPR of a phase, both buffers full
    /// ([`phase_fp`](ddf_theory::a2::phase_fp)`(n, n, m, k)`), and the
    /// worst-case FNR of an item gone from both buffers, which is found only
    /// by a false positive, least likely when `active1` has just been
    /// emptied: `1 − phase_fp(0, n, m, k)`. `2m` bits; `2k` accesses (the
    /// probes of both buffers). Fails as `new` does.
    pub fn saturated_sizing(
        buffer_bits: u64,
        probes: u32,
        capacity: u64,
    ) -> Result<ddf_core::Prediction, ParamError> {
        let m = ensure_range(
            "buffer_bits",
            buffer_bits,
            1..=ddf_param::MAX_STATE_BITS / 2,
        )?;
        let k = ensure_range("probes", probes, 1..=MAX_SLICES)?;
        let n = ensure_range("capacity", capacity, 1..=u64::MAX / 2)?;
        state_words("buffer_bits", 2 * m)?;
        let (m, k, n) = (m as f64, f64::from(k), n as f64);
        let worst = ddf_theory::a2::phase_fp(n, n, m, k);
        let least = ddf_theory::a2::phase_fp(0.0, n, m, k);
        Ok(
            ddf_core::Prediction::exact_window(2 * buffer_bits, worst, 2.0 * k)
                .with_misses(1.0 - least),
        )
    }

    /// Bits per buffer, `m`.
    pub fn buffer_bits(&self) -> u64 {
        self.buffers[0].len()
    }

    /// Probes per item, `k`.
    pub fn probes(&self) -> u32 {
        self.probes
    }

    /// Items per buffer, `n`: the number of insertions with no false negatives.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Items in `active1` now.
    pub fn active_count(&self) -> u64 {
        self.count
    }

    #[inline]
    fn holds(&self, buffer: usize, digest: Digest) -> bool {
        let b = &self.buffers[buffer];
        digest
            .probes(b.len())
            .take(self.probes as usize)
            .all(|i| b.get(i))
    }

    /// Puts `digest` into `active1`, rotating first if it is full.
    fn push(&mut self, digest: Digest) {
        if self.count == self.capacity {
            self.active ^= 1;
            self.buffers[self.active].clear();
            self.count = 0;
        }
        let b = &mut self.buffers[self.active];
        for i in digest.probes(b.len()).take(self.probes as usize) {
            b.set(i);
        }
        self.count += 1;
    }
}

/// `k = ⌈log₂(1/p)⌉`, at least 1.
fn probes_for(p: f64) -> Result<u32, ParamError> {
    ddf_theory::bloom::optimal_slices(p)
        .map(|k| k.max(1))
        .filter(|&k| k <= MAX_SLICES)
        .ok_or_else(|| ParamError::new("fpr", p, "a per-buffer rate of at least 2^-64"))
}

impl DuplicateFilter for A2 {
    #[inline]
    fn contains(&self, digest: Digest) -> bool {
        self.holds(self.active, digest) || self.holds(self.active ^ 1, digest)
    }

    fn insert(&mut self, digest: Digest) {
        if !self.holds(self.active, digest) {
            self.push(digest);
        }
    }

    #[inline]
    fn observe(&mut self, digest: Digest) -> Verdict {
        if self.holds(self.active, digest) {
            return Verdict::Duplicate;
        }
        // Decided before the push can rotate the buffers.
        let seen = self.holds(self.active ^ 1, digest);
        self.push(digest);
        Verdict::from_seen(seen)
    }

    /// `2m`.
    fn memory_bits(&self) -> u64 {
        2 * self.buffers[0].len()
    }

    fn clear(&mut self) {
        for b in &mut self.buffers {
            b.clear();
        }
        self.active = 0;
        self.count = 0;
    }
}

impl Windowed for A2 {
    /// The nominal window `2n`; only the last `n` are free of false negatives.
    fn window(&self) -> Window {
        Window::Count(2 * self.capacity)
    }

    /// Unbounded: repeats of items already in `active1` do not age the buffers.
    fn slack(&self) -> u64 {
        u64::MAX
    }
}

/// Refused: A2's buffers swap after `n` insertions of one stream, a
/// count window.
impl ddf_core::Merge for A2 {
    fn merge(&mut self, _other: &Self) -> Result<(), ddf_core::MergeError> {
        Err(ddf_core::MergeError::CountWindow { family: "A2" })
    }
}

impl fmt::Debug for A2 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("A2")
            .field("buffer_bits", &self.buffer_bits())
            .field("probes", &self.probes)
            .field("capacity", &self.capacity)
            .field("active_count", &self.count)
            .finish_non_exhaustive()
    }
}

/// Body: buffer bits (u64), probes (u32), capacity (u64), count (u64),
/// then `active1` and `active2` as words.
impl Snapshot for A2 {
    const KIND: u16 = snapshot::kind::A2;

    fn encode_body(&self, out: &mut Encoder) {
        out.put_u64(self.buffer_bits());
        out.put_u32(self.probes);
        out.put_u64(self.capacity);
        out.put_u64(self.count);
        out.put_words(self.buffers[self.active].as_words());
        out.put_words(self.buffers[self.active ^ 1].as_words());
    }

    fn decode_body(input: &mut Decoder<'_>, _version: u16) -> Result<Self, DecodeError> {
        let m = input.u64("buffer_bits")?;
        let probes = input.u32("probes")?;
        let capacity = input.u64("capacity")?;
        let count = input.u64("count")?;
        let active1 = input.words("active1")?;
        let active2 = input.words("active2")?;
        crate::expect_words(&active1, m, "active1")?;
        crate::expect_words(&active2, m, "active2")?;
        let mut f = A2::new(m, probes, capacity)?;
        if count > capacity {
            return Err(DecodeError::invalid(
                "count",
                "more items than the buffer's capacity",
            ));
        }
        f.count = count;
        f.buffers = [
            BitArray::from_words(m, active1)?,
            BitArray::from_words(m, active2)?,
        ];
        Ok(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saturated_sizing_agrees_with_with_memory() {
        let (m, k, n) = A2::saturated_parameters_for(1 << 20, 0.01).unwrap();
        let f = A2::with_memory(1 << 20, 0.01).unwrap();
        assert_eq!((m, k, n), (f.buffer_bits(), f.probes(), f.capacity()));
        let p = A2::saturated_sizing(m, k, n).unwrap();
        assert_eq!(p.memory_bits, f.memory_bits());
        // Both buffers full: at most the rate asked for.
        assert!(p.fpr <= 0.01 + 1e-12 && p.fnr > 1.0 - p.fpr && p.false_negatives);
        assert_eq!(
            A2::saturated_sizing(0, 3, 10).unwrap_err().param(),
            "buffer_bits"
        );
    }

    #[test]
    fn parameters_are_checked() {
        assert_eq!(A2::new(0, 2, 10).unwrap_err().param(), "buffer_bits");
        assert_eq!(A2::new(100, 0, 10).unwrap_err().param(), "probes");
        assert_eq!(A2::new(100, 2, 0).unwrap_err().param(), "capacity");
        assert_eq!(A2::with_window(1, 0.1).unwrap_err().param(), "window");
        assert_eq!(A2::with_window(100, 1.5).unwrap_err().param(), "fpr");
        assert_eq!(A2::with_memory(4, 0.1).unwrap_err().param(), "memory_bits");
    }

    #[test]
    fn sizing_meets_the_target_with_both_buffers_full() {
        use ddf_theory::a2::phase_fp;
        let f = A2::with_window(10_000, 0.1).unwrap();
        assert_eq!((f.capacity(), f.probes()), (5_000, 5));
        let (n, m, k) = (5_000.0, f.buffer_bits() as f64, 5.0);
        assert!(phase_fp(n, n, m, k) <= 0.1);
        assert!(phase_fp(n, n, m - 1.0, k) > 0.1);
        let g = A2::with_memory(1_000_000, 0.1).unwrap();
        assert_eq!((g.buffer_bits(), g.probes()), (500_000, 5));
        let n = g.capacity() as f64;
        assert!(phase_fp(n, n, 5e5, 5.0) <= 0.1 && phase_fp(n + 1.0, n + 1.0, 5e5, 5.0) > 0.1);
    }

    #[test]
    fn buffers_rotate_after_capacity() {
        let mut f = A2::new(4096, 3, 10).unwrap();
        for i in 0..10 {
            assert_eq!(f.observe(Digest::mixed(i)), Verdict::Unseen);
        }
        assert_eq!(f.active_count(), 10);
        // A repeat found in active1 does not count.
        assert_eq!(f.observe(Digest::mixed(3)), Verdict::Duplicate);
        assert_eq!(f.active_count(), 10);
        f.observe(Digest::mixed(100));
        assert_eq!(f.active_count(), 1);
        // Item 3 is only in active2 now; observing it copies it into active1.
        assert_eq!(f.observe(Digest::mixed(3)), Verdict::Duplicate);
        assert_eq!(f.active_count(), 2);
        for i in 200..208 {
            f.observe(Digest::mixed(i));
        }
        // active1 is full (100, 3, 200..208); the next rotation drops 0..10 but keeps 3.
        f.observe(Digest::mixed(300));
        assert!(f.contains(Digest::mixed(3)));
        assert!(
            (0..10)
                .filter(|&i| i != 3)
                .all(|i| !f.contains(Digest::mixed(i)))
        );
    }
}
