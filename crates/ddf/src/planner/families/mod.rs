//! One adapter per family, in a file per family crate: the requirements in
//! the family's units, its own parameter chooser and sizing function, and
//! the [`Candidate`] — or, in words, why the family has none. A queued
//! family's adapter is its subfilter family's (`bloom.rs`, `qht.rs`); the
//! queue's sizing rules are `ddf-queue`'s (`ddf_queue::qht`,
//! `ddf_queue::bloom`). The list of families is the
//! [registry](crate::registry)'s. No family rule lives here: every check
//! and prediction is the family crate's (or `ddf-theory`'s); this module
//! holds the helpers the adapters share.

// Each helper serves some families: with others switched off (`build.rs`
// sets the cfg), it may go unused, and with none planned the candidate
// types are empty.
#![cfg_attr(some_families_off, allow(dead_code, unreachable_code))]

use super::{Candidate, Need, Span};

#[cfg(feature = "apbf")]
pub(crate) mod apbf;
#[cfg(feature = "bloom")]
pub(crate) mod bloom;
#[cfg(feature = "cuckoo")]
pub(crate) mod cuckoo;
#[cfg(feature = "exact")]
pub(crate) mod exact;
#[cfg(feature = "qht")]
pub(crate) mod qht;
#[cfg(feature = "shf")]
pub(crate) mod shf;
#[cfg(feature = "sliding")]
pub(crate) mod sliding;
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

/// Whether misses within the window are accepted, asked before a family
/// that misses items of its window (a queue drops the oldest at each
/// rotation) is sized: its sizing may be long work, wasted when misses are
/// refused.
pub(crate) fn misses_allowed(need: &Need) -> Result<(), String> {
    if need.misses_ok {
        Ok(())
    } else {
        Err("misses items within the window (the oldest at each rotation); allow_false_negatives(true) accepts it".into())
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
/// (`fpr`, else [`SATURATED_FPR`](super::SATURATED_FPR)), and its
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
