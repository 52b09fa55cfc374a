//! The adapter between the CLI and the library: planning, building and
//! loading a filter.
//!
//! Every filter is a `ddf::Filter` (one enum over every family), chosen
//! and built by the library's front door (`crate::choose`), so a state
//! file holds the variant's own snapshot and loads whatever kind it holds.

use crate::input::Keys;
use ddf::{DuplicateFilter, Filter, TimedFilter, Verdict};

/// The filter the CLI drives: any family, loaded from any snapshot.
pub(crate) type Engine = Filter;

/// Drives a filter over one block's keys: the batch path over digests for
/// a window of records (or the whole stream), the stamped batch path over
/// digests with their times for a window of time.
pub(crate) fn observe(f: &mut Filter, keys: &Keys, verdicts: &mut Vec<Verdict>) {
    match keys {
        Keys::Digests(digests) => DuplicateFilter::observe_batch(f, digests, verdicts),
        Keys::Stamped(stamped) => TimedFilter::observe_batch_stamped(f, stamped, verdicts),
    }
}

// The family names of `--filter`, state files and `inspect`: one list, in
// the facade, shared with the Python package.
pub(crate) use ddf::state::{family, kind_name};

/// One shard of the exact count window `w` kept over record positions
/// (see `shards.rs`): a time window of `w + 1` positions, capped at
/// `w + 1` items, which it never reaches early (positions are distinct,
/// so at most `w + 1` of them lie in any span of `w + 1`).
pub(crate) fn exact_over_positions(w: u64) -> Result<Filter, String> {
    let span = w.saturating_add(1);
    Filter::exact_time(span, span).map_err(|e| format!("cannot build the exact filter: {e}"))
}

pub(crate) use ddf::state::describe_window;
