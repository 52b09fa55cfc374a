//! The queuing construction's rules for the planner (sliding-window paper
//! §5), whatever the subfilter: when a queued candidate is sized at all
//! and for which windows. The queued families' adapters, which size a
//! queue of subfilters from the family crate's own parameter chooser and
//! `ddf-theory`'s queue theory, are their subfilter family's
//! (`planner/families/bloom.rs`, `planner/families/qht.rs`).

use crate::planner::Need;

/// Windows up to which the queued candidates are planned: their theory sums
/// over the `c` insertions of each subfilter for every `L` compared, about
/// 0.6 s of planning per 2^20 window items in a release build (`ddf plan
/// --window 1048576 --max-memory 4MiB --misses-ok`).
pub(crate) const MAX_QUEUE_WINDOW: u64 = 1 << 20;

/// Whether misses within the window are accepted, asked before a queued
/// candidate is sized: a queue always drops the oldest items of its window
/// at a rotation, and its sizing sums over every insertion of a subfilter
/// (about 0.6 s at a window of 2^20), work wasted when misses are refused.
pub(crate) fn misses_allowed(need: &Need) -> Result<(), String> {
    if need.misses_ok {
        Ok(())
    } else {
        Err("misses items within the window (the oldest at each rotation); allow_false_negatives(true) accepts it".into())
    }
}

/// The window a queued candidate is planned for, within the work bound.
pub(crate) fn queue_window(w: u64) -> Result<u64, String> {
    if w > MAX_QUEUE_WINDOW {
        Err(format!(
            "planned for windows up to {MAX_QUEUE_WINDOW} (its theory sums over every insertion)"
        ))
    } else {
        Ok(w)
    }
}

/// The count window a queued candidate is planned for, when misses are
/// allowed (asked first: see [`misses_allowed`]).
pub(crate) fn eligible(need: &Need) -> Result<u64, String> {
    let w = crate::planner::families::count_only(need)?;
    misses_allowed(need)?;
    Ok(w)
}
