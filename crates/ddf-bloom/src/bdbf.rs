//! The block-decaying Bloom filter (b_DBF) of Shen and Zhang.

use ddf_bits::PackedArray;
use ddf_core::snapshot::{self, DecodeError, Decoder, Encoder, Snapshot};
use ddf_core::{Digest, DuplicateFilter, Goal, ParamError, Window, Windowed};
use ddf_param::ensure_range;
use std::fmt;

/// The widest counter, `d`: what [`PackedArray`] stores.
pub const MAX_COUNTER_BITS: u32 = 32;

/// The block-decaying Bloom filter, b_DBF (Shen and Zhang, *Improved
/// approximate detection of duplicates for data streams over sliding
/// windows*, as described in the APBF paper §3.3 and benchmarked in the QHT
/// paper §6), over a window of the last `w` insertions.
///
/// `m` counters of `d` bits, `k` probes. Insertions are grouped into blocks
/// of `T`; a counter records the block until which its last item must stay
/// reported, so decay happens per block instead of per insertion (the
/// decaying Bloom filter decrements every counter at every insertion). With
/// `L = ⌈w/T⌉`, an insertion in block `b` sets its `k` counters to `b + L`
/// (relative to an offset) and an item is reported while all its counters
/// are at least the current block. Counters hold the block relative to a
/// running phase `VT < 2^(d−1)`; when the phase reaches `2^(d−1)` one sweep
/// subtracts `2^(d−1)` from every counter (clearing the expired ones) and
/// the phase starts again at 0: the delayed decrementing of the paper, in
/// one word-parallel sweep per `2^(d−1)·T` insertions (amortised
/// `m·d/(64·2^(d−1)·T)` word updates per insertion).
///
/// `T = ⌈w/(2^(d−1) − 1)⌉` makes the largest value, `2^(d−1) − 1 + L + 1`,
/// fit in `d` bits. No false negatives within the window; the last
/// `L·T + j` items are reported when the current block holds `j`.
///
/// # Examples
///
/// ```
/// use ddf_bloom::{BlockDecayingBloom, Deduper, Verdict};
///
/// let mut seen = Deduper::new(BlockDecayingBloom::with_memory(100_000, 6_000)?);
/// assert_eq!(seen.observe("click-1"), Verdict::Unseen);
/// assert_eq!(seen.observe("click-1"), Verdict::Duplicate);
/// # Ok::<(), ddf_bloom::ParamError>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct BlockDecayingBloom {
    counters: PackedArray,
    /// `k`.
    probes: u32,
    /// `w`.
    window: u64,
    /// `T`, insertions per block.
    block: u64,
    /// `L = ⌈w/T⌉`, full blocks kept besides the current one.
    kept: u64,
    /// The phase `VT`: blocks since the last sweep, below `2^(d−1)`.
    phase: u64,
    /// Insertions in the current block, `0..=T`.
    in_block: u64,
}

impl BlockDecayingBloom {
    /// A b_DBF for the last `window` (`w ≥ 1`) insertions with `counters`
    /// (`m ≥ 1`) counters of `counter_bits` (`d`, 2..=32) bits and `probes`
    /// (`k`, 1..=64) probes per item.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_bloom::{BlockDecayingBloom, Digest, DuplicateFilter, Verdict};
    ///
    /// // The last 6,000 items, 25,000 counters of 4 bits, 4 probes.
    /// let mut f = BlockDecayingBloom::new(6_000, 25_000, 4, 4)?;
    /// assert_eq!(f.memory_bits(), 100_000);
    /// assert_eq!(f.observe(Digest::mixed(11)), Verdict::Unseen);
    /// assert_eq!(f.observe(Digest::mixed(11)), Verdict::Duplicate);
    /// assert_eq!(BlockDecayingBloom::new(6_000, 25_000, 1, 4).unwrap_err().param(), "counter_bits");
    /// # Ok::<(), ddf_bloom::ParamError>(())
    /// ```
    pub fn new(
        window: u64,
        counters: u64,
        counter_bits: u32,
        probes: u32,
    ) -> Result<Self, ParamError> {
        let w = ddf_param::ensure_window(window, 1 << 62)?;
        let d = ensure_range("counter_bits", counter_bits, 2..=MAX_COUNTER_BITS)?;
        let m = ensure_range("counters", counters, 1..=ddf_param::MAX_STATE_BITS)?;
        let k = ensure_range("probes", probes, 1..=64)?;
        let (block, kept) = shape(w, d);
        Ok(BlockDecayingBloom {
            counters: PackedArray::new(m, d)
                .map_err(|e| ParamError::new("counters", e.value(), e.expected().to_owned()))?,
            probes: k,
            window: w,
            block,
            kept,
            phase: 0,
            in_block: 0,
        })
    }

    /// A b_DBF in `memory_bits` bits for the last `window` insertions, sized
    /// as the QHT authors' benchmark does: `d = ⌈√(M·ln 2/w)⌉` bits per
    /// counter ([`ddf_theory::bdbf::counter_bits`]), `k = d` probes,
    /// `m = ⌊M/d⌋` counters. Needs `2 ≤ d ≤ 32`, that is roughly
    /// `w/ln 2 < M ≤ 1024·w/ln 2`.
    ///
    /// The QHT paper's configuration is `with_memory(M, 6000)`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_bloom::BlockDecayingBloom;
    ///
    /// let f = BlockDecayingBloom::with_memory(100_000, 6_000)?;
    /// assert_eq!((f.counter_bits(), f.probes()), (4, 4));
    /// # Ok::<(), ddf_bloom::ParamError>(())
    /// ```
    pub fn with_memory(memory_bits: u64, window: u64) -> Result<Self, ParamError> {
        let (m, d, k) = Self::parameters_for(Goal::Budget(memory_bits), window)?;
        Self::new(window, m, d, k)
    }

    /// A b_DBF for the last `window` (`w ≥ 1`) insertions whose
    /// false-positive rate stays at or below `fpr` (in `(0, 1)`) at its worst
    /// point, a full current block, on any stream: the parameters of
    /// [`parameters_for`](Self::parameters_for)`(Goal::Fpr(fpr), window)`.
    /// `fpr` is the rate `e` of a `(w, s, p, e)`-sliding filter (APBF paper §3).
    ///
    /// ```
    /// use ddf_bloom::{BlockDecayingBloom, Windowed};
    /// let f = BlockDecayingBloom::with_window(10_000, 0.01)?;
    /// assert!(f.slack() <= 100);
    /// # Ok::<(), ddf_bloom::ParamError>(())
    /// ```
    pub fn with_window(window: u64, fpr: f64) -> Result<Self, ParamError> {
        let (m, d, k) = Self::parameters_for(Goal::Fpr(fpr), window)?;
        Self::new(window, m, d, k)
    }

    /// The `(m, d, k)` (counters, counter bits, probes) for `goal` and a
    /// window of `window` insertions, without allocating.
    ///
    /// - A rate target `fpr`: the narrowest counters whose slack
    ///   `(L + 1)·T − w` is at most `max(1, ⌊w/100⌋)` (the planner's default
    ///   of 1 % of the window; `d = 32` if none is), then for the most items
    ///   reported at once, `n = (L + 1)·T`
    ///   ([`live_max`](ddf_theory::bdbf::live_max)), the `k ≤ 64` needing the
    ///   fewest counters and those counters
    ///   ([`counters_for`](ddf_theory::bdbf::counters_for)): the standard
    ///   filter's rate with `n` items, an upper bound at every point of the
    ///   stream since fewer items are ever reported.
    /// - A budget `M`: the QHT authors' rule of [`with_memory`](Self::with_memory).
    ///
    /// Fails (naming `window`, `fpr` or `memory_bits`) when the window or the
    /// rate is out of range (`fpr ≥ 2^-64`: at most 64 probes) or the counters
    /// would exceed 2^40 bits.
    pub fn parameters_for(goal: Goal, window: u64) -> Result<(u64, u32, u32), ParamError> {
        let w = ddf_param::ensure_window(window, 1 << 62)?;
        match goal {
            Goal::Budget(memory_bits) => {
                let d = ddf_theory::bdbf::counter_bits(memory_bits as f64, w as f64).max(2.0);
                if d > f64::from(MAX_COUNTER_BITS) {
                    return Err(ParamError::new(
                        "memory_bits",
                        memory_bits,
                        format!(
                            "at most 1024·w/ln 2 bits for w = {w} (counters of at most 32 bits)"
                        ),
                    ));
                }
                let d = d as u32;
                let counters = memory_bits / u64::from(d);
                if counters < 1 {
                    return Err(ParamError::new(
                        "memory_bits",
                        memory_bits,
                        "room for one counter",
                    ));
                }
                Ok((counters, d, d))
            }
            Goal::Fpr(fpr) => {
                let fpr = ddf_param::ensure_probability("fpr", fpr)?;
                // Beyond 64 probes, the most `new` takes, the counters needed
                // grow without bound as the rate falls: refuse such rates.
                if ddf_theory::bloom::optimal_slices(fpr).is_none_or(|k| k > 64) {
                    return Err(ParamError::new(
                        "fpr",
                        fpr,
                        "a rate of at least 2^-64 (at most 64 probes)",
                    ));
                }
                let max_slack = (w / 100).max(1);
                let d = (2..=MAX_COUNTER_BITS)
                    .find(|&d| {
                        let (block, kept) = shape(w, d);
                        (kept + 1) * block - w <= max_slack
                    })
                    .unwrap_or(MAX_COUNTER_BITS);
                let (block, _) = shape(w, d);
                let n = ddf_theory::bdbf::live_max(w as f64, block as f64);
                let (m, k) = (1..=64u32)
                    .map(|k| (ddf_theory::bdbf::counters_for(n, f64::from(k), fpr), k))
                    .filter(|(m, _)| m.is_finite())
                    .min_by(|a, b| a.0.total_cmp(&b.0))
                    .unwrap_or((f64::INFINITY, 1));
                let most = (ddf_param::MAX_STATE_BITS / u64::from(d)) as f64;
                if !(m >= 1.0 && m <= most) {
                    return Err(ParamError::new(
                        "fpr",
                        fpr,
                        format!("a rate {n} items reach in at most 2^40 bits of {d}-bit counters"),
                    ));
                }
                Ok((m as u64, d, k))
            }
        }
    }

    /// The window `w`.
    pub fn window_len(&self) -> u64 {
        self.window
    }

    /// Insertions per block, `T`.
    pub fn block_size(&self) -> u64 {
        self.block
    }

    /// Full blocks kept besides the current one, `L = ⌈w/T⌉`.
    pub fn blocks_kept(&self) -> u64 {
        self.kept
    }

    /// The number of counters, `m`.
    pub fn counters(&self) -> u64 {
        self.counters.len()
    }

    /// Bits per counter, `d`.
    pub fn counter_bits(&self) -> u32 {
        self.counters.width()
    }

    /// Probes per item, `k`.
    pub fn probes(&self) -> u32 {
        self.probes
    }

    /// The running phase `VT` (blocks since the last sweep) and the
    /// insertions in the current block.
    ///
    /// Exposed so that `cargo xtask verify` can reproduce the QHT authors'
    /// benchmark, whose lookup reports every item while `VT = 0` (see
    /// `docs/errata.md`).
    pub fn phase(&self) -> (u64, u64) {
        (self.phase, self.in_block)
    }

    #[inline]
    fn positions(&self, digest: Digest) -> impl Iterator<Item = u64> + use<> {
        digest
            .probes(self.counters.len())
            .take(self.probes as usize)
    }

    /// Subtracts `2^(d−1)` from every counter, clearing those at or below it
    /// (word-parallel, [`PackedArray::saturating_sub_half`]).
    fn sweep(&mut self) {
        self.counters.saturating_sub_half();
    }
}

/// `T = ⌈w/(2^(d−1) − 1)⌉` and `L = ⌈w/T⌉` for a window `w` and counters
/// of `d` bits ([`ddf_theory::bdbf::block_size`], [`blocks_kept`](ddf_theory::bdbf::blocks_kept)),
/// in integers.
fn shape(w: u64, d: u32) -> (u64, u64) {
    let block = w.div_ceil((1u64 << (d - 1)) - 1);
    (block, w.div_ceil(block))
}

impl DuplicateFilter for BlockDecayingBloom {
    /// All `k` counters at least `VT + 1`: set in the current block or one
    /// of the `L` before it.
    #[inline]
    fn contains(&self, digest: Digest) -> bool {
        let live = self.phase + 1;
        self.positions(digest)
            .all(|i| u64::from(self.counters.get(i)) >= live)
    }

    fn insert(&mut self, digest: Digest) {
        if self.in_block == self.block {
            self.in_block = 0;
            self.phase += 1;
            if self.phase == 1 << (self.counters.width() - 1) {
                self.sweep();
                self.phase = 0;
            }
        }
        // Below 2^(d−1) + L ≤ 2^d − 1 by the choice of T.
        let value = (self.phase + self.kept + 1) as u32;
        for i in self.positions(digest) {
            self.counters.set(i, value);
        }
        self.in_block += 1;
    }

    /// `m·d`.
    fn memory_bits(&self) -> u64 {
        self.counters.memory_bits()
    }

    fn clear(&mut self) {
        self.counters.clear();
        self.phase = 0;
        self.in_block = 0;
    }
}

impl Windowed for BlockDecayingBloom {
    fn window(&self) -> Window {
        Window::Count(self.window)
    }

    /// `(L + 1)·T − w`: a full current block plus `L` full blocks.
    fn slack(&self) -> u64 {
        (self.kept + 1) * self.block - self.window
    }
}

/// Refused: b_DBF's blocks are `T` insertions of one stream, a count
/// window.
impl ddf_core::Merge for BlockDecayingBloom {
    fn merge(&mut self, _other: &Self) -> Result<(), ddf_core::MergeError> {
        Err(ddf_core::MergeError::CountWindow {
            family: "block-decaying Bloom",
        })
    }
}

impl fmt::Debug for BlockDecayingBloom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BlockDecayingBloom")
            .field("window", &self.window)
            .field("counters", &self.counters.len())
            .field("counter_bits", &self.counters.width())
            .field("probes", &self.probes)
            .field("block", &self.block)
            .field("phase", &self.phase)
            .field("in_block", &self.in_block)
            .finish_non_exhaustive()
    }
}

/// Body: window (u64), counters (u64), counter bits (u8), probes (u32),
/// phase (u64), insertions in the block (u64), the counters as words.
impl Snapshot for BlockDecayingBloom {
    const KIND: u16 = snapshot::kind::BLOCK_DECAYING_BLOOM;

    fn encode_body(&self, out: &mut Encoder) {
        out.put_u64(self.window);
        out.put_u64(self.counters.len());
        out.put_u8(self.counters.width() as u8);
        out.put_u32(self.probes);
        out.put_u64(self.phase);
        out.put_u64(self.in_block);
        out.put_words(self.counters.as_words());
    }

    fn decode_body(input: &mut Decoder<'_>, _version: u16) -> Result<Self, DecodeError> {
        let window = input.u64("window")?;
        let counters = input.u64("counters")?;
        let d = u32::from(input.u8("counter_bits")?);
        let probes = input.u32("probes")?;
        let phase = input.u64("phase")?;
        let in_block = input.u64("in_block")?;
        let words = input.words("counters")?;
        let total = ddf_param::checked_mul("counters", counters, u64::from(d))?;
        crate::expect_words(&words, total, "counters")?;
        let mut f = BlockDecayingBloom::new(window, counters, d, probes)?;
        if phase >= 1 << (d - 1) {
            return Err(DecodeError::invalid("phase", "at or above 2^(d-1)"));
        }
        if in_block > f.block {
            return Err(DecodeError::invalid(
                "in_block",
                "more insertions than a block holds",
            ));
        }
        f.phase = phase;
        f.in_block = in_block;
        f.counters = PackedArray::from_words(counters, d, words)?;
        // Counters are set to phase + L + 1 at most; larger ones cannot arise.
        let top = phase + f.kept + 1;
        if f.counters.iter().any(|v| u64::from(v) > top) {
            return Err(DecodeError::invalid(
                "counters",
                "a value above the current phase + L + 1",
            ));
        }
        Ok(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_checked() {
        assert_eq!(
            BlockDecayingBloom::new(0, 10, 4, 4).unwrap_err().param(),
            "window"
        );
        assert_eq!(
            BlockDecayingBloom::new(10, 0, 4, 4).unwrap_err().param(),
            "counters"
        );
        assert_eq!(
            BlockDecayingBloom::new(10, 10, 1, 4).unwrap_err().param(),
            "counter_bits"
        );
        assert_eq!(
            BlockDecayingBloom::new(10, 10, 33, 4).unwrap_err().param(),
            "counter_bits"
        );
        assert_eq!(
            BlockDecayingBloom::new(10, 10, 4, 0).unwrap_err().param(),
            "probes"
        );
        assert_eq!(
            BlockDecayingBloom::new(10, 1 << 40, 8, 4)
                .unwrap_err()
                .param(),
            "counters"
        );
        assert_eq!(
            BlockDecayingBloom::with_memory(1 << 40, 10)
                .unwrap_err()
                .param(),
            "memory_bits"
        );
    }

    #[test]
    fn qht_configurations() {
        for (mem, d, t, l) in [
            (10_000u64, 2, 6000, 1),
            (100_000, 4, 858, 7),
            (1_000_000, 11, 6, 1000),
            (8_000_000, 31, 1, 6000),
        ] {
            let f = BlockDecayingBloom::with_memory(mem, 6000).unwrap();
            assert_eq!(
                (
                    f.counter_bits(),
                    f.probes(),
                    f.block_size(),
                    f.blocks_kept()
                ),
                (d, d, t, l)
            );
            assert_eq!(f.counters(), mem / u64::from(d));
        }
    }

    #[test]
    fn window_items_survive_sweeps_and_old_ones_expire() {
        // d = 3: T = ⌈10/3⌉ = 4, L = 3, sweeps every 16 insertions.
        let mut f = BlockDecayingBloom::new(10, 4096, 3, 4).unwrap();
        assert_eq!((f.block_size(), f.blocks_kept(), f.slack()), (4, 3, 6));
        for i in 0..200u64 {
            f.insert(Digest::mixed(i));
            // The last (L + j)·T... at least the last 12 items, never more than 16.
            let (_, j) = f.phase();
            let live = 3 * 4 + j;
            for back in 0..live.min(i + 1) {
                assert!(
                    f.contains(Digest::mixed(i - back)),
                    "item {} at {i}",
                    i - back
                );
            }
            if i >= live {
                // Expired items are gone but for false positives; with 4096
                // counters and 4 probes there are none in this stream.
                assert!(
                    !f.contains(Digest::mixed(i - live)),
                    "item {} at {i}",
                    i - live
                );
            }
        }
    }

    #[test]
    fn with_window_checks_and_sizes() {
        let param = |r: Result<BlockDecayingBloom, ParamError>| r.unwrap_err().param();
        assert_eq!(param(BlockDecayingBloom::with_window(0, 0.01)), "window");
        assert_eq!(param(BlockDecayingBloom::with_window(100, 0.0)), "fpr");
        assert_eq!(param(BlockDecayingBloom::with_window(100, 1.0)), "fpr");
        assert_eq!(
            param(BlockDecayingBloom::with_window(1 << 60, 1e-300)),
            "fpr"
        );
        assert_eq!(param(BlockDecayingBloom::with_window(100, 1e-20)), "fpr");
        assert!(BlockDecayingBloom::with_window(100, 1e-19).is_ok());
        // w = 10^4: d = 8 gives T = 79, L = 127 and slack 128·79 − 10^4 =
        // 112 > 100; d = 9 gives T = 40, L = 250 and slack 40.
        let f = BlockDecayingBloom::with_window(10_000, 0.01).unwrap();
        assert_eq!((f.counter_bits(), f.block_size(), f.slack()), (9, 40, 40));
        assert!(f.slack() <= 100);
        let n = ddf_theory::bdbf::live_max(10_000.0, f.block_size() as f64);
        let fpr = ddf_theory::bloom::standard_fp(n, f.counters() as f64, f64::from(f.probes()));
        assert!(fpr <= 0.01 && fpr > 0.009, "{fpr}");
        // Small windows: the slack is at most 1 insertion.
        assert!(BlockDecayingBloom::with_window(3, 0.1).unwrap().slack() <= 1);
    }

    #[test]
    fn with_window_meets_its_rate_on_a_seeded_stream() {
        // The target bounds the rate at every point; not vacuous: the count
        // is of the target's order (above a fifth).
        let (w, fpr) = (2_000u64, 0.02);
        let mut f = BlockDecayingBloom::with_window(w, fpr).unwrap();
        ddf_core::testing::assert_fpr_on_distinct_stream(&mut f, fpr, 20 * w, 0.2);
    }
}
