//! One adapter per family: the requirements in the family's units, its own
//! parameter chooser and sizing function, and the [`Candidate`] — or, in
//! words, why the family has none. The list of families is the
//! [registry](crate::registry)'s; the queued families' adapters are the
//! queue's (`crate::queued`). No family rule lives here: every check and
//! prediction is the family crate's (or `ddf-theory`'s).

use super::{Candidate, Need, Span};
use crate::Config;
use ddf_core::ParamError;

/// What an adapter gives for one family.
type Sized = (&'static str, Result<Candidate, String>);

/// Every family compiled in, sized for `need`, in the registry's order.
pub(super) fn size_all(need: &Need) -> Vec<Sized> {
    crate::registry::ADAPTERS
        .iter()
        .map(|&(name, size)| (name, size(need)))
        .collect()
}

/// A [`ParamError`] as an exclusion reason.
pub(crate) fn why(e: ParamError) -> String {
    e.to_string()
}

/// The count window, for families the planner sizes by insertions only.
pub(crate) fn count_only(need: &Need) -> Result<u64, String> {
    match need.span {
        Span::Count(w) => Ok(w),
        Span::Time { .. } => {
            Err("planned for count windows only; a time window was asked for".into())
        }
        Span::Unbounded => Err("answers for a window; the stream is unbounded".into()),
    }
}

/// Count or time windows, not the whole stream.
pub(crate) fn windowed(need: &Need) -> Result<(), String> {
    if need.span == Span::Unbounded {
        Err("answers for a window; the stream is unbounded".into())
    } else {
        Ok(())
    }
}

/// The whole stream only: these filters never forget.
pub(crate) fn unbounded_only(need: &Need) -> Result<(), String> {
    if need.span == Span::Unbounded {
        Ok(())
    } else {
        Err("never forgets, so reports every item older than the window".into())
    }
}

/// An unbounded stream with no count of distinct items: the families that
/// forget are rated at saturation.
pub(crate) fn saturated_only(need: &Need) -> Result<(), String> {
    if need.span != Span::Unbounded {
        Err("forgets by eviction, not by age: planned for the whole stream only".into())
    } else if need.distinct.is_some() {
        Err("predicted at saturation only: planned when distinct_items is not given".into())
    } else {
        Ok(())
    }
}

/// A family rated at saturation (an unbounded stream in fixed memory, no
/// `distinct_items`): its shape for the budget and the saturated FPR target
/// (`target_fpr`, else [`SATURATED_FPR`](super::SATURATED_FPR)), and its
/// saturated prediction, both the family crate's (`saturated_parameters_for`
/// and `saturated_sizing`).
pub(crate) fn saturated(
    need: &Need,
    size: impl FnOnce(u64, f64) -> Result<(Config, ddf_core::Prediction), ParamError>,
) -> Result<Candidate, String> {
    let budget = need.budget.ok_or(
        "an unbounded stream without distinct_items is planned in fixed memory (memory_budget)",
    )?;
    let fpr = need.target().unwrap_or(super::SATURATED_FPR);
    let (config, p) = size(budget, fpr).map_err(why)?;
    Ok(Candidate::new(config, p, None, need.seed).at_saturation())
}

/// The count of distinct items, which some predictions need.
pub(crate) fn distinct(need: &Need) -> Result<f64, String> {
    need.distinct
        .ok_or_else(|| "needs the number of distinct items (distinct_items)".into())
}

/// The budget, which some families are sized by.
pub(crate) fn budget(need: &Need) -> Result<u64, String> {
    need.budget
        .ok_or_else(|| "sized by a memory budget (memory_budget)".into())
}

/// The exact window (Theorem 1).
#[cfg(feature = "exact")]
pub(crate) mod exact {
    use super::*;

    /// Count windows only.
    pub(crate) fn candidate(n: &Need) -> Result<Candidate, String> {
        count_only(n).and_then(|w| window(n, w))
    }

    /// Theorem 1's FIFO and counting dictionary ([`ddf_exact::ExactWindow::sizing`]).
    fn window(need: &Need, w: u64) -> Result<Candidate, String> {
        let p = ddf_exact::ExactWindow::sizing(w).map_err(why)?;
        Ok(Candidate::new(
            Config::Exact { window: w },
            p,
            Some(w),
            need.seed,
        ))
    }
}

/// SHF and Compact SHF.
#[cfg(feature = "shf")]
pub(crate) mod shf {
    use super::*;

    /// SHF: count windows only.
    pub(crate) fn candidate(n: &Need) -> Result<Candidate, String> {
        count_only(n).and_then(|w| shf(n, w, false))
    }

    /// Compact SHF: count windows only.
    pub(crate) fn compact(n: &Need) -> Result<Candidate, String> {
        count_only(n).and_then(|w| shf(n, w, true))
    }

    /// SHF or CSHF: the family's hash width for the goal, then its sizing.
    fn shf(need: &Need, w: u64, compact: bool) -> Result<Candidate, String> {
        use ddf_shf::{CompactShf, Shf};
        let goal = need.goal;
        let (h, p) = if compact {
            let h = CompactShf::parameters_for(goal, w).map_err(why)?;
            (h, CompactShf::sizing(w, h).map_err(why)?)
        } else {
            let h = Shf::parameters_for(goal, w).map_err(why)?;
            (h, Shf::sizing(w, h).map_err(why)?)
        };
        let config = if compact {
            Config::CompactShf {
                window: w,
                hash_bits: h,
            }
        } else {
            Config::Shf {
                window: w,
                hash_bits: h,
            }
        };
        Ok(Candidate::new(config, p, Some(w), need.seed))
    }
}

/// APBF and APBBF.
#[cfg(feature = "apbf")]
pub(crate) mod apbf {
    use super::*;

    /// The arrivals a time slice of `⌈span/parts⌉` must hold for Poisson
    /// arrivals at rate `λ`, and that slice.
    fn arrivals_per(span: u64, parts: u64, rate: f64) -> (u64, u64) {
        let slice = span.div_ceil(parts.max(1));
        let mean = slice as f64 * rate;
        let cap =
            ddf_theory::stream::poisson_arrival_bound(mean, crate::planner::ARRIVAL_TAIL).ceil();
        (slice, (cap as u64).max(1))
    }

    /// The insertions one of `l` window generations must hold: `⌈w/l⌉` for a
    /// count window, the arrivals of one time slice `⌈t/l⌉` for a time window.
    fn generation_of(need: &Need, l: u32) -> u64 {
        match need.span {
            Span::Time { span, rate } => arrivals_per(span, u64::from(l), rate).1,
            _ => need.items().div_ceil(u64::from(l)),
        }
    }

    /// The window in its own unit (insertions or time units) and, for a
    /// time window, its span `t`.
    fn window_of(need: &Need) -> (u64, Option<u64>) {
        match need.span {
            Span::Time { span, .. } => (span, Some(span)),
            _ => (need.items(), None),
        }
    }

    /// APBF (count or time windows): the family's `(k, l, m)` for the goal, each of the `l` window
    /// generations holding [`generation_of`], then its sizing.
    pub(crate) fn apbf(need: &Need) -> Result<Candidate, String> {
        windowed(need)?;
        use ddf_apbf::Apbf;
        let (k, l, m) = Apbf::parameters_for(need.goal, |l| generation_of(need, l)).map_err(why)?;
        let (window, time_span) = window_of(need);
        let p = match time_span {
            Some(span) => Apbf::sizing_timed(k, l, m, span),
            None => Apbf::sizing(k, l, m),
        }
        .map_err(why)?;
        let config = Config::Apbf {
            k,
            l,
            slice_bits: m,
            time_span,
        };
        Ok(Candidate::new(config, p, Some(window), need.seed))
    }

    /// APBBF (APBF paper §6): the family's block shape and `(k, l)` for the
    /// goal, each generation holding [`generation_of`], then its sizing.
    pub(crate) fn apbbf(need: &Need) -> Result<Candidate, String> {
        windowed(need)?;
        use ddf_apbf::Apbbf;
        let s = Apbbf::parameters_for(need.goal, |l| generation_of(need, l)).map_err(why)?;
        let (k, l, blocks, bb, b) = (s.k, s.l, s.blocks, s.block_bits, s.bits_per_block);
        let (window, time_span) = window_of(need);
        let p = match time_span {
            Some(span) => Apbbf::sizing_timed(k, l, blocks, bb, b, span),
            None => Apbbf::sizing(k, l, blocks, bb, b),
        }
        .map_err(why)?;
        let config = Config::Apbbf {
            k,
            l,
            blocks,
            block_bits: bb,
            bits_per_block: b,
            time_span,
        };
        Ok(Candidate::new(config, p, Some(window), need.seed))
    }
}

/// The Naor–Yogev sliding Bloom filter.
#[cfg(feature = "sliding")]
pub(crate) mod sliding {
    use super::*;

    /// The Naor–Yogev sliding Bloom filter with the slack accepted: `ε` = the
    /// target, or the least `ε` whose table fits the budget.
    pub(crate) fn candidate(need: &Need) -> Result<Candidate, String> {
        windowed(need)?;
        use ddf_sliding::{Slack, SlidingBloom};
        let slack = match need.max_slack {
            u64::MAX => Slack::LeastSpace,
            s => Slack::AtMost(s),
        };
        let (window, capacity) = match need.span {
            Span::Time { span, .. } => (span, Some(need.items())),
            _ => (need.items(), None),
        };
        let epsilon =
            SlidingBloom::parameters_for(need.goal, window, slack, capacity).map_err(why)?;
        let p = match capacity {
            Some(c) => SlidingBloom::sizing_timed(window, slack, c, epsilon),
            None => SlidingBloom::sizing(window, slack, epsilon),
        }
        .map_err(why)?;
        let config = Config::Sliding {
            window,
            slack,
            epsilon,
            capacity,
        };
        Ok(Candidate::new(config, p, Some(window), need.seed))
    }
}

/// Bloom filters for streams: partitioned (whole stream, distinct items
/// known), Stable and A2 (whole stream at saturation).
#[cfg(feature = "bloom")]
pub(crate) mod bloom {
    use super::*;
    use ddf_bloom::{A2, PartitionedBloom, StableBloom};

    /// A partitioned Bloom filter over the whole stream, which never
    /// forgets: only when the number of distinct items is known
    /// ([`PartitionedBloom::parameters_for`]).
    pub(crate) fn partitioned(need: &Need) -> Result<Candidate, String> {
        unbounded_only(need)?;
        let n = distinct(need)?;
        let (k, m) = PartitionedBloom::parameters_for(n, need.goal).map_err(why)?;
        let p = PartitionedBloom::sizing(k, m, n).map_err(why)?;
        let config = Config::Bloom {
            slices: k,
            slice_bits: m,
        };
        Ok(Candidate::new(config, p, None, need.seed))
    }

    /// The Stable Bloom filter at saturation.
    pub(crate) fn stable(need: &Need) -> Result<Candidate, String> {
        saturated_only(need)?;
        saturated(need, |m, p| {
            let (cells, d, k, decrements) = StableBloom::saturated_parameters_for(m, p)?;
            let config = Config::StableBloom {
                cells,
                cell_bits: d,
                probes: k,
                decrements,
            };
            Ok((
                config,
                StableBloom::saturated_sizing(cells, d, k, decrements)?,
            ))
        })
    }

    /// A2 at saturation.
    pub(crate) fn a2(need: &Need) -> Result<Candidate, String> {
        saturated_only(need)?;
        saturated(need, |m, p| {
            let (buffer_bits, k, capacity) = A2::saturated_parameters_for(m, p)?;
            let config = Config::A2 {
                buffer_bits,
                probes: k,
                capacity,
            };
            Ok((config, A2::saturated_sizing(buffer_bits, k, capacity)?))
        })
    }
}

/// The quotient hash tables: QHT (whole stream, distinct items known or
/// at saturation), QHTD, QQHTD and SQF (at saturation).
#[cfg(feature = "qht")]
pub(crate) mod qht {
    use super::*;
    use ddf_qht::{Qht, Qhtd, Qqhtd, Sqf};

    /// QHT (QHT paper §4): [`Qht::parameters_for`] within the budget for
    /// the distinct items given, else its saturated shape.
    pub(crate) fn qht(need: &Need) -> Result<Candidate, String> {
        unbounded_only(need)?;
        if need.distinct.is_none() {
            return saturated(need, |m, p| {
                let (rows, k, s) = Qht::saturated_parameters_for(m, p)?;
                let config = Config::Qht {
                    rows,
                    cells_per_row: k,
                    fingerprint_bits: s,
                };
                Ok((config, Qht::saturated_sizing(rows, k, s)?))
            });
        }
        let budget = budget(need)?;
        let n = distinct(need)?;
        let (rows, k, s) = Qht::parameters_within(budget, n, need.target()).map_err(why)?;
        let p = Qht::sizing(rows, k, s, n).map_err(why)?;
        let config = Config::Qht {
            rows,
            cells_per_row: k,
            fingerprint_bits: s,
        };
        Ok(Candidate::new(config, p, None, need.seed))
    }

    /// QHTD at saturation.
    pub(crate) fn qhtd(need: &Need) -> Result<Candidate, String> {
        saturated_only(need)?;
        saturated(need, |m, p| {
            let (rows, k, s) = Qhtd::saturated_parameters_for(m, p)?;
            let config = Config::Qhtd {
                rows,
                cells_per_row: k,
                fingerprint_bits: s,
            };
            Ok((config, Qhtd::saturated_sizing(rows, k, s)?))
        })
    }

    /// QQHTD at saturation.
    pub(crate) fn qqhtd(need: &Need) -> Result<Candidate, String> {
        saturated_only(need)?;
        saturated(need, |m, p| {
            let (rows, k, s) = Qqhtd::saturated_parameters_for(m, p)?;
            let config = Config::Qqhtd {
                rows,
                cells_per_row: k,
                fingerprint_bits: s,
            };
            Ok((config, Qqhtd::saturated_sizing(rows, k, s)?))
        })
    }

    /// SQF at saturation.
    pub(crate) fn sqf(need: &Need) -> Result<Candidate, String> {
        saturated_only(need)?;
        saturated(need, |m, p| {
            let (rows, k, r, r_prime) = Sqf::saturated_parameters_for(m, p)?;
            let config = Config::Sqf {
                rows,
                cells_per_row: k,
                r,
                r_prime,
            };
            Ok((config, Sqf::saturated_sizing(rows, k, r, r_prime)?))
        })
    }
}

/// The streaming cuckoo filter at saturation.
#[cfg(feature = "cuckoo")]
pub(crate) mod cuckoo {
    use super::*;
    use ddf_cuckoo::StreamingCuckoo;

    /// Its shape and saturated prediction for the budget.
    pub(crate) fn candidate(need: &Need) -> Result<Candidate, String> {
        saturated_only(need)?;
        saturated(need, |m, p| {
            let (buckets, b, f) = StreamingCuckoo::saturated_parameters_for(m, p)?;
            let config = Config::Cuckoo {
                buckets,
                cells_per_bucket: b,
                fingerprint_bits: f,
            };
            Ok((config, StreamingCuckoo::saturated_sizing(buckets, b, f)?))
        })
    }
}
