//! A planned configuration: the family and parameters chosen, what the
//! family's sizing predicts for them, and how to build it.

use crate::Filter;
use ddf_core::ParamError;
use std::fmt;

/// A family and the parameters the planner chose for it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Config {
    /// [`ExactWindow::new`](ddf_exact::ExactWindow::new)`(window)`.
    #[cfg(feature = "exact")]
    Exact {
        /// `w`.
        window: u64,
    },
    /// [`Shf::new`](ddf_shf::Shf::new)`(window, hash_bits)`.
    #[cfg(feature = "shf")]
    Shf {
        /// `w`.
        window: u64,
        /// `h`.
        hash_bits: u32,
    },
    /// [`CompactShf::new`](ddf_shf::CompactShf::new)`(window, hash_bits)`.
    #[cfg(feature = "shf")]
    CompactShf {
        /// `w`.
        window: u64,
        /// `h`.
        hash_bits: u32,
    },
    /// [`Apbf::new`](ddf_apbf::Apbf::new)`(k, l, m)`, with time-based
    /// generations when `time_span` is set.
    #[cfg(feature = "apbf")]
    Apbf {
        /// Slices per item, `k`.
        k: u32,
        /// Extra slices, `l`.
        l: u32,
        /// Bits per slice, `m`.
        slice_bits: u64,
        /// The time window `t`, if generations also close by time.
        time_span: Option<u64>,
    },
    /// [`Apbbf::new`](ddf_apbf::Apbbf::new)`(k, l, blocks, block_bits,
    /// bits_per_block)`, with time-based generations when `time_span` is set.
    #[cfg(feature = "apbf")]
    Apbbf {
        /// Segments per item, `k`.
        k: u32,
        /// Extra segments, `l`.
        l: u32,
        /// Blocks per segment.
        blocks: u64,
        /// Bits per block, `B`.
        block_bits: u32,
        /// Bits set per item in a block, `b`.
        bits_per_block: u32,
        /// The time window `t`, if generations also close by time.
        time_span: Option<u64>,
    },
    /// [`SlidingBloom::new`](ddf_sliding::SlidingBloom::new), or
    /// [`with_time_span`](ddf_sliding::SlidingBloom::with_time_span) when
    /// `capacity` is set.
    #[cfg(feature = "sliding")]
    Sliding {
        /// The window `n` (insertions or time units).
        window: u64,
        /// The slack asked for.
        slack: ddf_sliding::Slack,
        /// The false-positive bound `ε`.
        epsilon: f64,
        /// Insertions per time window the table is sized for (time windows).
        capacity: Option<u64>,
    },
    /// A [`Queue`](ddf_queue::Queue) of `subfilters` partitioned Bloom
    /// filters of `slices × slice_bits`, rotated every `capacity` insertions.
    #[cfg(all(feature = "queue", feature = "bloom"))]
    QueuedBloom {
        /// `L`.
        subfilters: usize,
        /// `c`.
        capacity: u64,
        /// Slices `k` of each subfilter.
        slices: u32,
        /// Bits per slice of each subfilter.
        slice_bits: u64,
    },
    /// A [`Queue`](ddf_queue::Queue) of `subfilters` one-cell-per-row QHTs
    /// ([`Qht::new`](ddf_qht::Qht::new)`(rows, 1, fingerprint_bits)`),
    /// rotated every `capacity` insertions.
    #[cfg(all(feature = "queue", feature = "qht"))]
    QueuedQht {
        /// `L`.
        subfilters: usize,
        /// `c`.
        capacity: u64,
        /// `N` of each subfilter.
        rows: u64,
        /// `s` of each subfilter.
        fingerprint_bits: u32,
    },
    /// [`PartitionedBloom::new`](ddf_bloom::PartitionedBloom::new)`(slices, slice_bits)`.
    #[cfg(feature = "bloom")]
    Bloom {
        /// `k`.
        slices: u32,
        /// `m`.
        slice_bits: u64,
    },
    /// [`Qht::new`](ddf_qht::Qht::new)`(rows, cells_per_row, fingerprint_bits)`.
    #[cfg(feature = "qht")]
    Qht {
        /// `N`.
        rows: u64,
        /// `k`.
        cells_per_row: usize,
        /// `s`.
        fingerprint_bits: u32,
    },
    /// [`Qhtd::new`](ddf_qht::Qhtd::new)`(rows, cells_per_row, fingerprint_bits)`.
    #[cfg(feature = "qht")]
    Qhtd {
        /// `N`.
        rows: u64,
        /// `k`.
        cells_per_row: usize,
        /// `s`.
        fingerprint_bits: u32,
    },
    /// [`Qqhtd::new`](ddf_qht::Qqhtd::new)`(rows, cells_per_row, fingerprint_bits)`.
    #[cfg(feature = "qht")]
    Qqhtd {
        /// `N`.
        rows: u64,
        /// `k`.
        cells_per_row: usize,
        /// `s`.
        fingerprint_bits: u32,
    },
    /// [`Sqf::with_rows`](ddf_qht::Sqf::with_rows)`(rows, cells_per_row, r, r_prime)`.
    #[cfg(feature = "qht")]
    Sqf {
        /// `N`.
        rows: u64,
        /// `k`.
        cells_per_row: usize,
        /// Remainder bits `r`.
        r: u32,
        /// Remainder bits kept in the signature, `r'`.
        r_prime: u32,
    },
    /// [`StreamingCuckoo::new`](ddf_cuckoo::StreamingCuckoo::new)`(buckets,
    /// cells_per_bucket, fingerprint_bits)` with
    /// [`StreamRule::InsertAlways`](ddf_cuckoo::StreamRule::InsertAlways),
    /// the rule its saturated prediction models.
    #[cfg(feature = "cuckoo")]
    Cuckoo {
        /// `m`.
        buckets: u64,
        /// `b`.
        cells_per_bucket: usize,
        /// `f`.
        fingerprint_bits: u32,
    },
    /// [`StableBloom::new`](ddf_bloom::StableBloom::new)`(cells, cell_bits,
    /// probes, decrements)`.
    #[cfg(feature = "bloom")]
    StableBloom {
        /// `m`.
        cells: u64,
        /// `d`.
        cell_bits: u32,
        /// `K`.
        probes: u32,
        /// `P`.
        decrements: u64,
    },
    /// [`A2::new`](ddf_bloom::A2::new)`(buffer_bits, probes, capacity)`.
    #[cfg(feature = "bloom")]
    A2 {
        /// Bits per buffer, `m`.
        buffer_bits: u64,
        /// `k`.
        probes: u32,
        /// Items per buffer, `n`.
        capacity: u64,
    },
}

impl Config {
    /// The family's name.
    pub fn family(&self) -> &'static str {
        match *self {
            #[cfg(feature = "exact")]
            Config::Exact { .. } => "exact window",
            #[cfg(feature = "shf")]
            Config::Shf { .. } => "SHF",
            #[cfg(feature = "shf")]
            Config::CompactShf { .. } => "compact SHF",
            #[cfg(feature = "apbf")]
            Config::Apbf { .. } => "APBF",
            #[cfg(feature = "apbf")]
            Config::Apbbf { .. } => "APBBF",
            #[cfg(feature = "sliding")]
            Config::Sliding { .. } => "sliding Bloom",
            #[cfg(all(feature = "queue", feature = "bloom"))]
            Config::QueuedBloom { .. } => "queued Bloom",
            #[cfg(all(feature = "queue", feature = "qht"))]
            Config::QueuedQht { .. } => "queued QHT",
            #[cfg(feature = "bloom")]
            Config::Bloom { .. } => "partitioned Bloom",
            #[cfg(feature = "qht")]
            Config::Qht { .. } => "QHT",
            #[cfg(feature = "qht")]
            Config::Qhtd { .. } => "QHTD",
            #[cfg(feature = "qht")]
            Config::Qqhtd { .. } => "QQHTD",
            #[cfg(feature = "qht")]
            Config::Sqf { .. } => "SQF",
            #[cfg(feature = "cuckoo")]
            Config::Cuckoo { .. } => "streaming cuckoo",
            #[cfg(feature = "bloom")]
            Config::StableBloom { .. } => "Stable Bloom",
            #[cfg(feature = "bloom")]
            Config::A2 { .. } => "A2",
        }
    }
}

/// One configuration with what the theory predicts for it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Candidate {
    /// The family and its parameters.
    pub config: Config,
    /// State bits of the new filter (its `memory_bits()`).
    pub memory_bits: u64,
    /// Predicted false-positive rate: the probability that an item not
    /// seen within window + slack is reported, at the filter's worst point
    /// (or its bound, for the sliding Bloom filter).
    pub fpr: f64,
    /// Predicted false-negative rate among duplicates within the window on
    /// a uniform stream over the distinct items given (0 when guaranteed).
    pub fnr: f64,
    /// Whether items within the window can be missed.
    pub false_negatives: bool,
    /// How far beyond the window an item may still be reported, in the
    /// window's unit.
    pub slack: u64,
    /// The window planned for, in its unit (insertions or time units);
    /// `None` for the whole stream.
    pub window: Option<u64>,
    /// Expected memory accesses (words, cache lines or table slots) of one
    /// `observe` of an unseen item.
    pub accesses: f64,
    /// The seed of the filter's own generators.
    pub seed: u64,
    /// Whether the rates are the saturated worst case: an unbounded stream
    /// in fixed memory with no `distinct_items` given, predicted for a
    /// stream of ever-new items (where `FPR + FNR` is about 1).
    pub saturated: bool,
}

impl Candidate {
    /// The candidate for `config` with the family's prediction `p`.
    #[cfg(any(
        feature = "exact",
        feature = "shf",
        feature = "apbf",
        feature = "sliding",
        feature = "bloom",
        feature = "qht",
        feature = "cuckoo"
    ))]
    pub(super) fn new(
        config: Config,
        p: ddf_core::Prediction,
        window: Option<u64>,
        seed: u64,
    ) -> Self {
        Candidate {
            config,
            memory_bits: p.memory_bits,
            fpr: p.fpr,
            fnr: p.fnr,
            false_negatives: p.false_negatives,
            slack: p.slack,
            window,
            accesses: p.accesses,
            seed,
            saturated: false,
        }
    }

    /// The same candidate, its rates the saturated worst case.
    #[cfg(any(feature = "bloom", feature = "qht", feature = "cuckoo"))]
    pub(super) fn at_saturation(mut self) -> Self {
        self.saturated = true;
        self
    }

    /// The family's name.
    pub fn family(&self) -> &'static str {
        self.config.family()
    }

    /// The age beyond which [`fpr`](Self::fpr) holds: window + slack, in
    /// the window's unit (`None` for the whole stream).
    pub fn reliable_after(&self) -> Option<u64> {
        self.window.map(|w| w.saturating_add(self.slack))
    }

    /// Whether the filter's window is measured in time: [`build`](Self::build)
    /// then gives a timed filter, driven with `observe_at`.
    pub fn is_timed(&self) -> bool {
        match self.config {
            #[cfg(feature = "apbf")]
            Config::Apbf { time_span, .. } => time_span.is_some(),
            #[cfg(feature = "apbf")]
            Config::Apbbf { time_span, .. } => time_span.is_some(),
            #[cfg(feature = "sliding")]
            Config::Sliding { capacity, .. } => capacity.is_some(),
            #[cfg(any(
                feature = "exact",
                feature = "shf",
                feature = "bloom",
                feature = "qht",
                feature = "cuckoo"
            ))]
            _ => false,
        }
    }

    /// The filter, ready to use, as the variant of [`Filter`] it names: in
    /// time mode (driven by [`TimedFilter::observe_at`](ddf_core::TimedFilter::observe_at))
    /// when the candidate was planned for a time window ([`is_timed`](Self::is_timed)),
    /// by insertion counts otherwise. A time candidate cannot be built as a
    /// count filter.
    ///
    /// ```
    /// use ddf::{Deduper, Requirements, Verdict, plan};
    ///
    /// // The last 60 seconds, about 100 arrivals a second, 0.1 % false positives.
    /// let best = &plan(&Requirements::time(60, 100.0).target_fpr(0.001))?[0];
    /// let mut seen = Deduper::new(best.build()?);
    /// assert!(seen.filter().is_timed());
    /// assert_eq!(seen.observe_at("a", 0), Verdict::Unseen);
    /// assert_eq!(seen.observe_at("a", 59), Verdict::Duplicate);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn build(&self) -> Result<Filter, ParamError> {
        Ok(match self.config {
            #[cfg(feature = "exact")]
            Config::Exact { window } => ddf_exact::ExactWindow::new(window)?.into(),
            #[cfg(feature = "shf")]
            Config::Shf { window, hash_bits } => ddf_shf::Shf::new(window, hash_bits)?.into(),
            #[cfg(feature = "shf")]
            Config::CompactShf { window, hash_bits } => {
                ddf_shf::CompactShf::new(window, hash_bits)?.into()
            }
            #[cfg(all(feature = "queue", feature = "bloom"))]
            Config::QueuedBloom {
                subfilters,
                capacity,
                slices,
                slice_bits,
            } => ddf_queue::Queue::new(subfilters, capacity, |_| {
                ddf_bloom::PartitionedBloom::new(slices, slice_bits)
            })?
            .into(),
            #[cfg(all(feature = "queue", feature = "qht"))]
            Config::QueuedQht {
                subfilters,
                capacity,
                rows,
                fingerprint_bits,
            } => crate::queued::build(subfilters, capacity, rows, fingerprint_bits, self.seed)?
                .into(),
            #[cfg(feature = "bloom")]
            Config::Bloom { slices, slice_bits } => {
                ddf_bloom::PartitionedBloom::new(slices, slice_bits)?.into()
            }
            #[cfg(feature = "qht")]
            Config::Qht {
                rows,
                cells_per_row,
                fingerprint_bits,
            } => ddf_qht::Qht::new(rows, cells_per_row, fingerprint_bits)?
                .with_seed(self.seed)
                .into(),
            #[cfg(feature = "qht")]
            Config::Qhtd {
                rows,
                cells_per_row,
                fingerprint_bits,
            } => ddf_qht::Qhtd::new(rows, cells_per_row, fingerprint_bits)?
                .with_seed(self.seed)
                .into(),
            #[cfg(feature = "qht")]
            Config::Qqhtd {
                rows,
                cells_per_row,
                fingerprint_bits,
            } => ddf_qht::Qqhtd::new(rows, cells_per_row, fingerprint_bits)?
                .with_seed(self.seed)
                .into(),
            #[cfg(feature = "qht")]
            Config::Sqf {
                rows,
                cells_per_row,
                r,
                r_prime,
            } => ddf_qht::Sqf::with_rows(rows, cells_per_row, r, r_prime)?
                .with_seed(self.seed)
                .into(),
            #[cfg(feature = "cuckoo")]
            Config::Cuckoo {
                buckets,
                cells_per_bucket,
                fingerprint_bits,
            } => ddf_cuckoo::StreamingCuckoo::new(buckets, cells_per_bucket, fingerprint_bits)?
                .with_stream_rule(ddf_cuckoo::StreamRule::InsertAlways)
                .with_seed(self.seed)
                .into(),
            #[cfg(feature = "bloom")]
            Config::StableBloom {
                cells,
                cell_bits,
                probes,
                decrements,
            } => ddf_bloom::StableBloom::new(cells, cell_bits, probes, decrements)?
                .with_seed(self.seed)
                .into(),
            #[cfg(feature = "bloom")]
            Config::A2 {
                buffer_bits,
                probes,
                capacity,
            } => ddf_bloom::A2::new(buffer_bits, probes, capacity)?.into(),
            #[cfg(feature = "apbf")]
            Config::Apbf {
                k,
                l,
                slice_bits,
                time_span,
            } => {
                let f = ddf_apbf::Apbf::new(k, l, slice_bits)?;
                match time_span {
                    Some(t) => f.timed(t)?,
                    None => f,
                }
                .into()
            }
            #[cfg(feature = "apbf")]
            Config::Apbbf {
                k,
                l,
                blocks,
                block_bits,
                bits_per_block,
                time_span,
            } => {
                let f = ddf_apbf::Apbbf::new(k, l, blocks, block_bits, bits_per_block)?;
                match time_span {
                    Some(t) => f.timed(t)?,
                    None => f,
                }
                .into()
            }
            #[cfg(feature = "sliding")]
            Config::Sliding {
                window,
                slack,
                epsilon,
                capacity,
            } => match capacity {
                Some(c) => ddf_sliding::SlidingBloom::with_time_span(window, slack, c, epsilon)?,
                None => ddf_sliding::SlidingBloom::new(window, slack, epsilon)?,
            }
            .with_seed(self.seed)
            .into(),
        })
    }
}

impl fmt::Display for Candidate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = if self.is_timed() {
            "time units"
        } else {
            "insertions"
        };
        write!(
            f,
            "{} {:?}: {} bits, FPR ≤ {:.3e} ",
            self.family(),
            self.config,
            self.memory_bits,
            self.fpr
        )?;
        match self.window {
            Some(w) => write!(
                f,
                "for items older than {} {unit} (window {w} + slack {})",
                w.saturating_add(self.slack),
                self.slack
            )?,
            None => write!(f, "for items never seen")?,
        }
        if self.saturated {
            write!(
                f,
                " (saturated worst case: no distinct_items given, so rated on a stream of ever-new items, where FPR + FNR is about 1)"
            )?;
        }
        if self.false_negatives {
            write!(f, ", FNR {:.3e} (misses possible)", self.fnr)?;
        } else {
            write!(f, ", no misses")?;
        }
        write!(f, ", {:.1} accesses", self.accesses)
    }
}
