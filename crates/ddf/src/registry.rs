//! The family registry: every filter type the facade knows, declared once.
//!
//! One entry per type says everything the facade, the command, the Redis
//! module and the Python package need to know about it:
//!
//! - its [`Filter`] variant, the feature that compiles it, whether it keeps
//!   time (`timed`), forgets by count only (`untimed`) or is a queue
//!   dispatched on its subfilters' kind (`queued`), and its display name;
//! - for a family the planner builds: its slug ([`Family`], the names state
//!   files record and `ddf dedup --filter` / `DDF.RESERVE … FILTER` /
//!   `ddf.Dedup(family=…)` accept), the planner's adapter
//!   (`planner/families/<crate>.rs`, which calls the family crate's own
//!   parameter chooser and sizing), its [`Config`] variant with the constructor it
//!   names, for a `timed` entry whose configuration may keep time the
//!   condition (`timed if`), and for a type with a lock-free form its
//!   constructor (`concurrent`).
//!
//! The entries' order is the planner's: it asks the families in this order,
//! and ranking (a stable sort) keeps it among candidates equal on every
//! key, so it is the final tie-break.
//!
//! From these the `families!` macro below writes the [`Filter`] enum and its
//! trait impls, [`Config`], [`Family`] and its tables, and the planner's list
//! of families. Adding a family is one entry here, its adapter, and the lines
//! the tidy test `registry_lines_are_everywhere` asks for (conformance,
//! params, fuzz, verify, bench and the docs' tables).

use crate::planner::{Candidate, Need};
use ddf_core::snapshot::{self, DecodeError, Decoder, Encoder, Snapshot};
use ddf_core::{Digest, DuplicateFilter, ParamError, TimedFilter, Verdict, Window, Windowed};
use std::fmt;
use std::str::FromStr;

/// One planner adapter: a family's candidate for the requirements, or why
/// it has none.
pub(crate) type Adapter = fn(&Need) -> Result<Candidate, String>;

macro_rules! families {
    ($(
        $(#[$doc:meta])*
        [$cfg:meta] $variant:ident($ty:ty), $mode:ident, $name:literal
        $(, planned $slug:literal by $adapter:path,
            $(#[$cdoc:meta])*
            config $cvariant:ident { $( $(#[$fdoc:meta])* $field:ident : $fty:ty ),* $(,)? },
            $(timed if $timed:expr,)?
            build($seed:ident) $build:expr
            $(, concurrent $concurrent:ident $cbuild:expr)?
        )?;
    )*) => {
        crate::filter::filter_enum! {
            $( $(#[$doc])* [$cfg] $variant($ty), $mode, $name; )*
        }

        /// A family and the parameters the planner chose for it: one variant
        /// per [`Family`], built by [`Candidate::build`].
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum Config {
            $($(
                $(#[$cdoc])*
                #[cfg($cfg)]
                $cvariant {
                    $( $(#[$fdoc])* $field: $fty, )*
                },
            )?)*
        }

        /// A family the planner builds, by its slug (see the [module
        /// docs](self)): `"apbf"` parses to `Family::Apbf` and displays back.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Family {
            $($(
                #[doc = concat!("`", $slug, "`: ", $name, ".")]
                #[cfg($cfg)]
                $cvariant,
            )?)*
        }

        impl Family {
            /// Every family compiled in, in the planner's order.
            pub const ALL: &'static [Family] = &[
                $($( #[cfg($cfg)] Family::$cvariant, )?)*
            ];

            /// Every family's slug, in the order of [`ALL`](Self::ALL).
            pub const SLUGS: &'static [&'static str] = &[
                $($( #[cfg($cfg)] $slug, )?)*
            ];

            /// The slug: what state files record and the front ends accept.
            pub fn slug(self) -> &'static str {
                match self {
                    $($( #[cfg($cfg)] Family::$cvariant => $slug, )?)*
                }
            }

            /// The display name (as [`Filter::family`] and
            /// [`Candidate::family`] give it).
            pub fn name(self) -> &'static str {
                match self {
                    $($( #[cfg($cfg)] Family::$cvariant => $name, )?)*
                }
            }

            /// The family of a planned configuration.
            pub fn of(config: &Config) -> Family {
                match *config {
                    $($( #[cfg($cfg)] Config::$cvariant { .. } => Family::$cvariant, )?)*
                }
            }

            /// The family of a filter, `None` for a type the planner never
            /// builds.
            #[allow(unreachable_patterns)]
            pub fn of_filter(filter: &Filter) -> Option<Family> {
                match *filter {
                    $($( #[cfg($cfg)] Filter::$variant(_) => Some(Family::$cvariant), )?)*
                    _ => None,
                }
            }

            /// The first family in [`ALL`](Self::ALL) whose snapshots have
            /// the kind `code` (a queue of any subfilter is the first queued
            /// family: [`of_filter`](Self::of_filter) tells them apart).
            pub fn of_kind(code: u16) -> Option<Family> {
                $($(
                    #[cfg($cfg)]
                    if code == <$ty as ddf_core::Snapshot>::KIND {
                        return Some(Family::$cvariant);
                    }
                )?)*
                let _ = code;
                None
            }
        }

        impl Config {
            /// The family's display name.
            #[cfg_attr(some_families_off, allow(unreachable_code))]
            pub fn family(&self) -> &'static str {
                Family::of(self).name()
            }

            /// Whether the configuration is in time mode.
            // With no family planned (`build.rs`), `Config` is empty.
            #[cfg_attr(some_families_off, allow(unreachable_code))]
            pub(crate) fn is_timed(&self) -> bool {
                match *self {
                    $($(
                        #[cfg($cfg)]
                        Config::$cvariant { $($field),* } => {
                            $( let _ = &$field; )*
                            timed_mode!($mode $(, $timed)?)
                        }
                    )?)*
                }
            }

            /// The filter the configuration names, its own generators
            /// seeded with `seed`.
            #[cfg_attr(some_families_off, allow(unreachable_code))]
            pub(crate) fn build(&self, seed: u64) -> Result<Filter, ParamError> {
                let _ = seed;
                Ok(match *self {
                    $($(
                        #[cfg($cfg)]
                        Config::$cvariant { $($field),* } => {
                            let $seed = seed;
                            Filter::from($build)
                        }
                    )?)*
                })
            }
        }

        /// The planner's families, in order, each with its adapter. The
        /// order is the ranking's final tie-break.
        pub(crate) const ADAPTERS: &[(&str, Adapter)] = &[
            $($( #[cfg($cfg)] ($name, $adapter), )?)*
        ];

        /// The lock-free form of `config`, from its entry's `concurrent`
        /// clause (the types insertions only set bits of: the
        /// age-partitioned Bloom filters), with the same fields as its
        /// `build`; `None` for an entry without one.
        /// [`ConcurrentFilter`](crate::ConcurrentFilter) forwards to the types.
        #[cfg(feature = "apbf")]
        pub(crate) fn build_concurrent(
            config: &Config,
        ) -> Option<Result<crate::ConcurrentFilter, ParamError>> {
            match *config {
                $($(
                    #[cfg($cfg)]
                    Config::$cvariant { $($field),* } => {
                        $( let _ = &$field; )*
                        concurrent_clause!($($concurrent $cbuild)?)
                    }
                )?)*
            }
        }
    };
}

/// Whether a configuration is in time mode: never for an `untimed` or
/// `queued` entry; for a `timed` one, its `timed if` clause (count only
/// without one).
// Unused when no family is planned (`build.rs` sets the cfg).
#[cfg_attr(some_families_off, allow(unused_macros))]
macro_rules! timed_mode {
    (timed) => {
        false
    };
    (timed, $timed:expr) => {
        $timed
    };
    (untimed) => {
        false
    };
    (queued) => {
        false
    };
}

/// The lock-free filter of an entry's `concurrent` clause, if it has one.
#[cfg(feature = "apbf")]
macro_rules! concurrent_clause {
    () => {
        None
    };
    ($variant:ident $build:expr) => {
        Some(($build).map(crate::ConcurrentFilter::$variant))
    };
}

families! {
    /// [`ExactWindow`](ddf_exact::ExactWindow): count, time or unbounded.
    [feature = "exact"] Exact(ddf_exact::ExactWindow), timed, "exact window",
        planned "exact" by crate::planner::families::exact::candidate,
        /// [`ExactWindow::new`](ddf_exact::ExactWindow::new)`(window)`.
        config Exact {
            /// `w`.
            window: u64,
        },
        build(_seed) ddf_exact::ExactWindow::new(window)?;
    /// [`Shf`](ddf_shf::Shf).
    [feature = "shf"] Shf(ddf_shf::Shf), untimed, "SHF",
        planned "shf" by crate::planner::families::shf::candidate,
        /// [`Shf::new`](ddf_shf::Shf::new)`(window, hash_bits)`.
        config Shf {
            /// `w`.
            window: u64,
            /// `h`.
            hash_bits: u32,
        },
        build(_seed) ddf_shf::Shf::new(window, hash_bits)?;
    /// [`CompactShf`](ddf_shf::CompactShf).
    [feature = "shf"] CompactShf(ddf_shf::CompactShf), untimed, "compact SHF",
        planned "compact-shf" by crate::planner::families::shf::compact,
        /// [`CompactShf::new`](ddf_shf::CompactShf::new)`(window, hash_bits)`.
        config CompactShf {
            /// `w`.
            window: u64,
            /// `h`.
            hash_bits: u32,
        },
        build(_seed) ddf_shf::CompactShf::new(window, hash_bits)?;
    /// [`Apbf`](ddf_apbf::Apbf): count or time generations.
    [feature = "apbf"] Apbf(ddf_apbf::Apbf), timed, "APBF",
        planned "apbf" by crate::planner::families::apbf::apbf,
        /// [`Apbf::new`](ddf_apbf::Apbf::new)`(k, l, m)`, with time-based
        /// generations when `time_span` is set.
        config Apbf {
            /// Slices per item, `k`.
            k: u32,
            /// Extra slices, `l`.
            l: u32,
            /// Bits per slice, `m`.
            slice_bits: u64,
            /// The time window `t`, if generations also close by time.
            time_span: Option<u64>,
        },
        timed if time_span.is_some(),
        build(_seed) {
            match time_span {
                Some(t) => ddf_apbf::Apbf::with_time_span(t, k, l, slice_bits)?,
                None => ddf_apbf::Apbf::new(k, l, slice_bits)?,
            }
        },
        concurrent AtomicApbf match time_span {
            Some(t) => ddf_apbf::AtomicApbf::with_time_span(t, k, l, slice_bits),
            None => ddf_apbf::AtomicApbf::new(k, l, slice_bits),
        };
    /// [`Apbbf`](ddf_apbf::Apbbf): count or time generations.
    [feature = "apbf"] Apbbf(ddf_apbf::Apbbf), timed, "APBBF",
        planned "apbbf" by crate::planner::families::apbf::apbbf,
        /// [`Apbbf::new`](ddf_apbf::Apbbf::new)`(k, l, blocks, block_bits,
        /// bits_per_block)`, with time-based generations when `time_span` is set.
        config Apbbf {
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
        timed if time_span.is_some(),
        build(_seed) {
            match time_span {
                Some(t) => ddf_apbf::Apbbf::with_time_span(t, k, l, blocks, block_bits, bits_per_block)?,
                None => ddf_apbf::Apbbf::new(k, l, blocks, block_bits, bits_per_block)?,
            }
        },
        concurrent AtomicApbbf match time_span {
            Some(t) => ddf_apbf::AtomicApbbf::with_time_span(t, k, l, blocks, block_bits, bits_per_block),
            None => ddf_apbf::AtomicApbbf::new(k, l, blocks, block_bits, bits_per_block),
        };
    /// [`SlidingBloom`](ddf_sliding::SlidingBloom): count or time window.
    [feature = "sliding"] SlidingBloom(ddf_sliding::SlidingBloom), timed, "sliding Bloom",
        planned "sliding" by crate::planner::families::sliding::candidate,
        /// [`SlidingBloom::planned`](ddf_sliding::SlidingBloom::planned):
        /// [`new`](ddf_sliding::SlidingBloom::new), or
        /// [`with_time_span`](ddf_sliding::SlidingBloom::with_time_span) when
        /// `capacity` is set, in the layout `layout` chooses.
        config Sliding {
            /// The window `n` (insertions or time units).
            window: u64,
            /// The slack asked for.
            slack: ddf_sliding::Slack,
            /// The false-positive bound, `ε` in the paper.
            fpr: f64,
            /// Insertions per time window the table is sized for (time windows).
            capacity: Option<u64>,
            /// How the buckets are laid out: the crate's choice for a rate,
            /// the word layouts for a memory budget.
            layout: ddf_sliding::LayoutChoice,
        },
        timed if capacity.is_some(),
        build(seed) ddf_sliding::SlidingBloom::planned(window, slack, capacity, fpr, layout)?
            .with_seed(seed);
    /// A [`Queue`](ddf_queue::Queue) of partitioned Bloom filters.
    [all(feature = "queue", feature = "bloom")]
    QueuedBloom(ddf_queue::Queue<ddf_bloom::PartitionedBloom>), queued, "queued Bloom",
        planned "queued-bloom" by crate::planner::families::bloom::queued,
        /// A [`Queue`](ddf_queue::Queue) of `subfilters` partitioned Bloom
        /// filters of `slices × slice_bits`, rotated every `capacity` insertions.
        config QueuedBloom {
            /// `L`.
            subfilters: usize,
            /// `c`.
            capacity: u64,
            /// Slices `k` of each subfilter.
            slices: u32,
            /// Bits per slice of each subfilter.
            slice_bits: u64,
        },
        build(_seed) ddf_queue::bloom::build(ddf_queue::bloom::BloomQueueShape {
            subfilters,
            capacity,
            slices,
            slice_bits,
        })?;
    /// A [`Queue`](ddf_queue::Queue) of QHTs.
    [all(feature = "queue", feature = "qht")]
    QueuedQht(ddf_queue::Queue<ddf_qht::Qht>), queued, "queued QHT",
        planned "queued-qht" by crate::planner::families::qht::queued,
        /// A [`Queue`](ddf_queue::Queue) of `subfilters` one-cell-per-row QHTs
        /// ([`Qht::new`](ddf_qht::Qht::new)`(rows, 1, fingerprint_bits)`),
        /// rotated every `capacity` insertions.
        config QueuedQht {
            /// `L`.
            subfilters: usize,
            /// `c`.
            capacity: u64,
            /// `N` of each subfilter.
            rows: u64,
            /// `s` of each subfilter.
            fingerprint_bits: u32,
        },
        build(seed) ddf_queue::qht::build(ddf_queue::qht::QhtQueueShape {
            subfilters,
            capacity,
            rows,
            fingerprint_bits,
        }, seed)?;
    /// [`PartitionedBloom`](ddf_bloom::PartitionedBloom).
    [feature = "bloom"] PartitionedBloom(ddf_bloom::PartitionedBloom), untimed, "partitioned Bloom",
        planned "bloom" by crate::planner::families::bloom::partitioned,
        /// [`PartitionedBloom::new`](ddf_bloom::PartitionedBloom::new)`(slices, slice_bits)`.
        config Bloom {
            /// `k`.
            slices: u32,
            /// `m`.
            slice_bits: u64,
        },
        build(_seed) ddf_bloom::PartitionedBloom::new(slices, slice_bits)?;
    /// [`Qht`](ddf_qht::Qht).
    [feature = "qht"] Qht(ddf_qht::Qht), untimed, "QHT",
        planned "qht" by crate::planner::families::qht::qht,
        /// [`Qht::new`](ddf_qht::Qht::new)`(rows, cells_per_row, fingerprint_bits)`.
        config Qht {
            /// `N`.
            rows: u64,
            /// `k`.
            cells_per_row: usize,
            /// `s`.
            fingerprint_bits: u32,
        },
        build(seed) ddf_qht::Qht::new(rows, cells_per_row, fingerprint_bits)?.with_seed(seed);
    /// [`Qhtd`](ddf_qht::Qhtd).
    [feature = "qht"] Qhtd(ddf_qht::Qhtd), untimed, "QHTD",
        planned "qhtd" by crate::planner::families::qht::qhtd,
        /// [`Qhtd::new`](ddf_qht::Qhtd::new)`(rows, cells_per_row, fingerprint_bits)`.
        config Qhtd {
            /// `N`.
            rows: u64,
            /// `k`.
            cells_per_row: usize,
            /// `s`.
            fingerprint_bits: u32,
        },
        build(seed) ddf_qht::Qhtd::new(rows, cells_per_row, fingerprint_bits)?.with_seed(seed);
    /// [`Qqhtd`](ddf_qht::Qqhtd).
    [feature = "qht"] Qqhtd(ddf_qht::Qqhtd), untimed, "QQHTD",
        planned "qqhtd" by crate::planner::families::qht::qqhtd,
        /// [`Qqhtd::new`](ddf_qht::Qqhtd::new)`(rows, cells_per_row, fingerprint_bits)`.
        config Qqhtd {
            /// `N`.
            rows: u64,
            /// `k`.
            cells_per_row: usize,
            /// `s`.
            fingerprint_bits: u32,
        },
        build(seed) ddf_qht::Qqhtd::new(rows, cells_per_row, fingerprint_bits)?.with_seed(seed);
    /// [`Sqf`](ddf_qht::Sqf).
    [feature = "qht"] Sqf(ddf_qht::Sqf), untimed, "SQF",
        planned "sqf" by crate::planner::families::qht::sqf,
        /// [`Sqf::with_rows`](ddf_qht::Sqf::with_rows)`(rows, cells_per_row, r, r_prime)`.
        config Sqf {
            /// `N`.
            rows: u64,
            /// `k`.
            cells_per_row: usize,
            /// Remainder bits `r`.
            r: u32,
            /// Remainder bits kept in the signature, `r'`.
            r_prime: u32,
        },
        build(seed) ddf_qht::Sqf::with_rows(rows, cells_per_row, r, r_prime)?.with_seed(seed);
    /// [`StreamingCuckoo`](ddf_cuckoo::StreamingCuckoo).
    [feature = "cuckoo"] Cuckoo(ddf_cuckoo::StreamingCuckoo), untimed, "streaming cuckoo",
        planned "cuckoo" by crate::planner::families::cuckoo::candidate,
        /// [`StreamingCuckoo::new`](ddf_cuckoo::StreamingCuckoo::new)`(buckets,
        /// cells_per_bucket, fingerprint_bits)` with
        /// [`StreamRule::InsertAlways`](ddf_cuckoo::StreamRule::InsertAlways),
        /// the rule its saturated prediction models.
        config Cuckoo {
            /// `m`.
            buckets: u64,
            /// `b`.
            cells_per_bucket: usize,
            /// `f`.
            fingerprint_bits: u32,
        },
        build(seed) ddf_cuckoo::StreamingCuckoo::new(buckets, cells_per_bucket, fingerprint_bits)?
            .with_stream_rule(ddf_cuckoo::StreamRule::InsertAlways)
            .with_seed(seed);
    /// [`StableBloom`](ddf_bloom::StableBloom).
    [feature = "bloom"] StableBloom(ddf_bloom::StableBloom), untimed, "Stable Bloom",
        planned "stable-bloom" by crate::planner::families::bloom::stable,
        /// [`StableBloom::new`](ddf_bloom::StableBloom::new)`(cells, cell_bits,
        /// probes, decrements)`.
        config StableBloom {
            /// `m`.
            cells: u64,
            /// `d`.
            cell_bits: u32,
            /// `K`.
            probes: u32,
            /// `P`.
            decrements: u64,
        },
        build(seed) ddf_bloom::StableBloom::new(cells, cell_bits, probes, decrements)?.with_seed(seed);
    /// [`A2`](ddf_bloom::A2).
    [feature = "bloom"] A2(ddf_bloom::A2), untimed, "A2",
        planned "a2" by crate::planner::families::bloom::a2,
        /// [`A2::new`](ddf_bloom::A2::new)`(buffer_bits, probes, capacity)`.
        config A2 {
            /// Bits per buffer, `m`.
            buffer_bits: u64,
            /// `k`.
            probes: u32,
            /// Items per buffer, `n`.
            capacity: u64,
        },
        build(_seed) ddf_bloom::A2::new(buffer_bits, probes, capacity)?;
    /// [`BlockDecayingBloom`](ddf_bloom::BlockDecayingBloom).
    [feature = "bloom"] BlockDecayingBloom(ddf_bloom::BlockDecayingBloom), untimed, "block-decaying Bloom";
}

/// A slug no family compiled in has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownFamily(pub String);

impl fmt::Display for UnknownFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown family {:?}; the families are {}",
            self.0,
            Family::SLUGS.join(", ")
        )
    }
}

impl std::error::Error for UnknownFamily {}

impl FromStr for Family {
    type Err = UnknownFamily;

    /// As [`Family::named`] reads a name: slug or display name.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Family::named(s).ok_or_else(|| UnknownFamily(s.to_string()))
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.slug())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_parse_back_and_are_distinct() {
        assert_eq!(Family::ALL.len(), Family::SLUGS.len());
        for (&f, &s) in Family::ALL.iter().zip(Family::SLUGS) {
            assert_eq!(f.slug(), s);
            assert_eq!(s.parse::<Family>(), Ok(f));
            assert_eq!(f.to_string(), s);
        }
        let mut names: Vec<_> = Family::ALL.iter().map(|f| f.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Family::ALL.len());
        let e = "bogus".parse::<Family>().unwrap_err().to_string();
        assert!(e.contains("bogus"), "{e}");
        assert!(Family::SLUGS.iter().all(|s| e.contains(s)), "{e}");
    }

    #[test]
    fn every_planned_candidate_names_its_family() {
        // A count window and a whole stream in fixed memory: every family
        // compiled in is planned for one of them or the other.
        let count = crate::Requirements::count(10_000)
            .fpr(0.01)
            .max_slack(u64::MAX);
        let whole = crate::Requirements::unbounded()
            .memory_budget(1 << 20)
            .allow_false_negatives(true);
        let planned: Vec<_> = [count, whole]
            .iter()
            .filter_map(|r| crate::plan(r).ok())
            .flatten()
            .collect();
        assert_eq!(planned.is_empty(), Family::ALL.is_empty());
        for c in planned {
            let f = Family::of(&c.config);
            let built = c.build().unwrap();
            assert_eq!(Family::of_filter(&built), Some(f));
            assert_eq!(built.family(), f.name());
            assert_eq!(ADAPTERS.iter().filter(|a| a.0 == f.name()).count(), 1);
        }
    }
}
