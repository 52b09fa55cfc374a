//! The cost model: what one operation of a candidate is predicted to take,
//! from its family's access count and the size of its table.

use std::fmt;

/// Where a table of a given size lives while a stream runs through it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Tier {
    /// At most [`Cost::L2_BYTES`]: a core's own cache.
    L2,
    /// At most [`Cost::L3_BYTES`]: a core's share of the shared cache.
    L3,
    /// Larger: nearly every random line is a miss to main memory.
    Dram,
}

impl Tier {
    /// The tier of a table of `memory_bits` state bits.
    pub fn of(memory_bits: u64) -> Self {
        let bytes = memory_bits.div_ceil(8);
        if bytes <= Cost::L2_BYTES {
            Tier::L2
        } else if bytes <= Cost::L3_BYTES {
            Tier::L3
        } else {
            Tier::Dram
        }
    }

    /// Nanoseconds of one random cache line read there, one by one.
    fn line_ns(self) -> f64 {
        match self {
            Tier::L2 => 4.0,
            Tier::L3 => 15.0,
            Tier::Dram => 80.0,
        }
    }

    /// How many of those reads a batch keeps in flight at once: the batch
    /// driver prefetches items ahead, and a core tracks about ten misses;
    /// in the core's own cache there is no latency to hide.
    fn overlap(self) -> f64 {
        match self {
            Tier::L2 => 1.0,
            Tier::L3 | Tier::Dram => 4.0,
        }
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Tier::L2 => "L2",
            Tier::L3 => "L3",
            Tier::Dram => "DRAM",
        })
    }
}

/// The predicted cost of one `observe` of an unseen item: cache lines
/// touched at random, words scanned in order, the [`Tier`] the table lives
/// in, and the time class those give one by one and in batches.
///
/// Its `Display` is the class, such as `3.8 lines DRAM ~330/96 ns` (one by
/// one / per item in batches, two significant digits: a class, not a
/// measurement).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Cost {
    /// Cache lines read at random: the family's accesses less its scanned
    /// words (each access of a table, ring slot or slice is taken to be a
    /// line of its own).
    pub lines: f64,
    /// Words read in order by a scan (the compact SHF's ring).
    pub scanned_words: u64,
    /// Where the table lives.
    pub tier: Tier,
    /// Predicted nanoseconds of one operation, one by one.
    pub one_ns: f64,
    /// Predicted nanoseconds per item through the batch paths.
    pub batch_ns: f64,
}

impl Cost {
    /// The largest table taken to stay in a core's own cache: 512 KiB.
    pub const L2_BYTES: u64 = 512 << 10;
    /// The largest table taken to stay in the shared cache: 8 MiB, a
    /// core's share of a last-level cache that other cores use too (a
    /// table of 10 MiB already reads at main-memory latency under load).
    pub const L3_BYTES: u64 = 8 << 20;
    /// Hashing the item (keyed SipHash-1-3 of a short key) and the call.
    const HASH_NS: f64 = 20.0;
    /// One word of an in-order scan: a SWAR compare of the fields it holds,
    /// with the next lines already streamed in by the hardware prefetcher
    /// (the compact SHF's measured growth, in its docs).
    const SCAN_WORD_NS: f64 = 1.5;

    /// The cost of a table of `memory_bits` whose `observe` of an unseen
    /// item makes `accesses` memory accesses, `scanned_words` of them words
    /// of an in-order scan (a family's [`Prediction`](ddf_core::Prediction)).
    ///
    /// The model, per operation:
    ///
    /// - the table's [`Tier`] is set by its size alone (at most
    ///   [`L2_BYTES`](Self::L2_BYTES), at most [`L3_BYTES`](Self::L3_BYTES),
    ///   else DRAM): a stream touches lines uniformly, so a table larger
    ///   than a cache misses it on nearly every random line;
    /// - each random line costs the tier's latency (4, 15, 80 ns), and
    ///   each scanned word 1.5 ns of compare work whatever the tier (in
    ///   order, so prefetched);
    /// - one by one: `20 + lines·latency + words·1.5` ns (20 ns for the
    ///   hash); in batches the random lines of items prefetched ahead
    ///   overlap, four in flight beyond L2: `20 + lines·latency/4 +
    ///   words·1.5` ns.
    ///
    /// The constants are a typical server core's; the ranks they give,
    /// not the nanoseconds, are the promise.
    ///
    /// ```
    /// use ddf::{Cost, Tier};
    ///
    /// // Four random lines of a 64 MiB table: main memory, about 340 ns.
    /// let c = Cost::predict(1 << 29, 4.0, 0);
    /// assert_eq!(c.tier, Tier::Dram);
    /// assert!(c.one_ns > 300.0 && c.batch_ns < c.one_ns);
    /// // A scan of 320 words in a small ring: the scan dominates.
    /// let scan = Cost::predict(20_480, 321.0, 320);
    /// assert_eq!((scan.tier, scan.lines, scan.scanned_words), (Tier::L2, 1.0, 320));
    /// assert!(scan.one_ns > c.one_ns);
    /// ```
    pub fn predict(memory_bits: u64, accesses: f64, scanned_words: u64) -> Self {
        let tier = Tier::of(memory_bits);
        let lines = (accesses - scanned_words as f64).max(0.0);
        let scan = scanned_words as f64 * Self::SCAN_WORD_NS;
        let random = lines * tier.line_ns();
        Cost {
            lines,
            scanned_words,
            tier,
            one_ns: Self::HASH_NS + random + scan,
            batch_ns: Self::HASH_NS + random / tier.overlap() + scan,
        }
    }

    /// The memory part of [`one_ns`](Self::one_ns) (without the hash):
    /// what [`plan`](crate::plan) compares when it ranks a candidate after
    /// a cheaper one of about its memory. For two tables of the same tier
    /// that do not scan, it is in proportion to their accesses.
    pub fn memory_ns(&self) -> f64 {
        self.one_ns - Self::HASH_NS
    }
}

/// `x` to two significant digits, for a class rather than a measurement.
fn two_digits(x: f64) -> f64 {
    if !(x.is_finite() && x > 0.0) {
        return x;
    }
    let scale = 10f64.powi(x.log10().floor() as i32 - 1);
    (x / scale).round() * scale
}

impl fmt::Display for Cost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.1} lines", self.lines)?;
        if self.scanned_words > 0 {
            write!(f, " + {}-word scan", self.scanned_words)?;
        }
        write!(
            f,
            " {} ~{}/{} ns",
            self.tier,
            two_digits(self.one_ns),
            two_digits(self.batch_ns)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiers_follow_the_table_size() {
        assert_eq!(Tier::of(0), Tier::L2);
        assert_eq!(Tier::of(Cost::L2_BYTES * 8), Tier::L2);
        assert_eq!(Tier::of(Cost::L2_BYTES * 8 + 1), Tier::L3);
        assert_eq!(Tier::of(Cost::L3_BYTES * 8), Tier::L3);
        assert_eq!(Tier::of(Cost::L3_BYTES * 8 + 1), Tier::Dram);
        assert_eq!(Tier::of(u64::MAX), Tier::Dram);
    }

    #[test]
    fn cost_grows_with_lines_tier_and_scan() {
        let bits = 1 << 30;
        let (three, six) = (Cost::predict(bits, 3.0, 0), Cost::predict(bits, 6.0, 0));
        assert_eq!(six.memory_ns(), 2.0 * three.memory_ns());
        assert!(three.batch_ns < three.one_ns);
        assert!(Cost::predict(1 << 20, 3.0, 0).one_ns < Cost::predict(1 << 26, 3.0, 0).one_ns);
        // A scan costs in proportion to its words.
        let small = Cost::predict(1 << 14, 17.0, 16);
        let large = Cost::predict(1 << 14, 1025.0, 1024);
        assert_eq!((small.lines, large.lines), (1.0, 1.0));
        let per_word = (large.one_ns - small.one_ns) / 1008.0;
        assert!((per_word - Cost::SCAN_WORD_NS).abs() < 1e-9);
        // Scanned words beyond the accesses count no negative lines.
        assert_eq!(Cost::predict(64, 1.0, 5).lines, 0.0);
    }

    #[test]
    fn display_is_a_class() {
        assert_eq!(two_digits(337.0), 340.0);
        assert_eq!(two_digits(96.4), 96.0);
        assert_eq!(two_digits(0.0), 0.0);
        let c = Cost::predict(1 << 29, 4.0, 0);
        assert_eq!(c.to_string(), "4.0 lines DRAM ~340/100 ns");
        let s = Cost::predict(20_480, 321.0, 320).to_string();
        assert!(s.starts_with("1.0 lines + 320-word scan L2 ~"), "{s}");
    }
}
