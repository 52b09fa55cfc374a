//! The adapter between the CLI and the library: planning, building and
//! loading a filter.
//!
//! This is the one module that knows the planner's API (`ddf::plan`,
//! `Candidate::config`) and the concrete filter types. Every filter is a
//! `ddf::Filter` (one enum over every family), so a state file holds the
//! variant's own snapshot and loads whatever kind it holds.

use crate::input::Keys;
use ddf::{Candidate, DuplicateFilter, Filter, Requirements, TimedFilter, Verdict, Window};

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
pub(crate) use ddf::state::{FAMILIES, candidate_family, family, kind_name};

/// The planner's ranked candidates, or why there are none: the one call
/// into `ddf::plan`.
pub(crate) fn plan(req: &Requirements) -> Result<Vec<Candidate>, String> {
    let all = ddf::plan(req).map_err(|e| format!("the planner rejected the flags: {e}"))?;
    if all.is_empty() {
        return Err(
            "no filter meets these flags (try a larger --max-memory or --fpr, \
             --slack, --misses-ok, or --exact)"
                .into(),
        );
    }
    Ok(all)
}

/// Builds the filter a candidate describes: the one call that builds from
/// a plan.
pub(crate) fn build(c: &Candidate) -> Result<Filter, String> {
    c.build()
        .map_err(|e| format!("cannot build {}: {e}", candidate_family(c)))
}

/// The exact filter for a window (no planner needed): a window of records,
/// of milliseconds, or the whole stream.
pub(crate) fn exact(window: Window) -> Result<Filter, String> {
    // Exact over a time span holds every record within it: no cap, so its
    // memory follows the arrival rate (the help says so).
    Filter::exact(window).map_err(|e| format!("cannot build the exact filter: {e}"))
}

/// One shard of the exact count window `w` kept over record positions
/// (see `shards.rs`): a time window of `w + 1` positions, capped at
/// `w + 1` items, which it never reaches early (positions are distinct,
/// so at most `w + 1` of them lie in any span of `w + 1`).
pub(crate) fn exact_over_positions(w: u64) -> Result<Filter, String> {
    let span = w.saturating_add(1);
    Filter::exact_time(span, span).map_err(|e| format!("cannot build the exact filter: {e}"))
}

/// `w`, `t` or `∞` in words, time windows in the CLI's milliseconds.
pub(crate) fn describe_window(w: Window) -> String {
    match w {
        Window::Count(n) => format!("the last {n} records"),
        Window::Time(ms) => format!(
            "the last {}",
            humantime::format_duration(std::time::Duration::from_millis(ms))
        ),
        Window::Unbounded => "the whole stream".into(),
    }
}
