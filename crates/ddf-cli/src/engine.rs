//! The adapter between the CLI and the library: planning, building and
//! loading a filter.
//!
//! This is the one module that knows the planner's API (`ddf::plan`,
//! `Candidate::config`) and the concrete filter types. The CLI drives every
//! filter through [`Engine`], a small object-safe trait over the families the
//! planner can pick plus the unbounded exact set, so that a state file can be
//! written back as the concrete type's snapshot and read by its kind code.
//! When `ddf::Filter` (one enum over every family) lands, `Engine` becomes a
//! thin wrapper around it and [`load`] becomes `Filter::from_bytes`.

use ddf::{
    Candidate, Config, DecodeError, Digest, DuplicateFilter, Requirements, Snapshot, TimedFilter,
    Verdict, Window, Windowed, snapshot::kind,
};

/// A filter the CLI can drive, save and describe.
pub(crate) trait Engine: Send {
    /// The family's name, as `--filter` takes it.
    fn family(&self) -> &'static str;
    /// The window the filter answers for (time windows in milliseconds).
    fn window(&self) -> Window;
    /// How far beyond the window an item may still be reported.
    fn slack(&self) -> u64;
    /// State bits.
    fn memory_bits(&self) -> u64;
    /// Detects and inserts a block of digests, in order.
    fn observe_batch(&mut self, digests: &[Digest], verdicts: &mut Vec<Verdict>);
    /// Detects and inserts one digest at time `now` (milliseconds); only
    /// called when [`window`](Self::window) is a time window.
    fn observe_at(&mut self, digest: Digest, now: u64) -> Verdict;
    /// The filter's snapshot (without the hash key).
    fn to_bytes(&self) -> Vec<u8>;
}

/// Implements [`Engine`] for a concrete filter. `timed` says whether it has a
/// clock; `windowed` whether it implements `Windowed` (else unbounded).
macro_rules! engine {
    ($ty:ty, $name:expr, timed, windowed) => {
        engine!(@body $ty, $name, |f: &$ty| Windowed::window(f), |f: &$ty| Windowed::slack(f),
            |f: &mut $ty, d, now| TimedFilter::observe_at(f, d, now));
    };
    ($ty:ty, $name:expr, untimed, windowed) => {
        engine!(@body $ty, $name, |f: &$ty| Windowed::window(f), |f: &$ty| Windowed::slack(f),
            |f: &mut $ty, d, _now| DuplicateFilter::observe(f, d));
    };
    ($ty:ty, $name:expr, untimed, unbounded) => {
        engine!(@body $ty, $name, |_f: &$ty| Window::Unbounded, |_f: &$ty| 0,
            |f: &mut $ty, d, _now| DuplicateFilter::observe(f, d));
    };
    (@body $ty:ty, $name:expr, $window:expr, $slack:expr, $at:expr) => {
        impl Engine for $ty {
            fn family(&self) -> &'static str {
                $name
            }
            fn window(&self) -> Window {
                ($window)(self)
            }
            fn slack(&self) -> u64 {
                ($slack)(self)
            }
            fn memory_bits(&self) -> u64 {
                DuplicateFilter::memory_bits(self)
            }
            fn observe_batch(&mut self, digests: &[Digest], verdicts: &mut Vec<Verdict>) {
                DuplicateFilter::observe_batch(self, digests, verdicts)
            }
            fn observe_at(&mut self, digest: Digest, now: u64) -> Verdict {
                ($at)(self, digest, now)
            }
            fn to_bytes(&self) -> Vec<u8> {
                Snapshot::to_bytes(self)
            }
        }
    };
}

engine!(ddf::ExactWindow, "exact", timed, windowed);
engine!(ddf::Shf, "shf", untimed, windowed);
engine!(ddf::CompactShf, "compact-shf", untimed, windowed);
engine!(ddf::Apbf, "apbf", timed, windowed);
engine!(ddf::SlidingBloom, "sliding", timed, windowed);
engine!(
    ddf::Queue<ddf::PartitionedBloom>,
    "queued-bloom",
    timed,
    windowed
);
engine!(ddf::PartitionedBloom, "bloom", untimed, unbounded);
engine!(ddf::Qht, "qht", untimed, unbounded);

/// The names `--filter` accepts, in the planner's families.
pub(crate) const FAMILIES: &[&str] = &[
    "exact",
    "shf",
    "compact-shf",
    "apbf",
    "sliding",
    "queued-bloom",
    "bloom",
    "qht",
];

/// The `--filter` name of a planned candidate.
pub(crate) fn candidate_family(c: &Candidate) -> &'static str {
    match c.config {
        Config::Exact { .. } => "exact",
        Config::Shf { .. } => "shf",
        Config::CompactShf { .. } => "compact-shf",
        Config::Apbf { .. } => "apbf",
        Config::Sliding { .. } => "sliding",
        Config::QueuedBloom { .. } => "queued-bloom",
        Config::Bloom { .. } => "bloom",
        Config::Qht { .. } => "qht",
        _ => "unknown",
    }
}

/// The planner's ranked candidates, or why there are none.
///
/// The one call into `ddf::plan`: when the planner returns its own error
/// type for "no candidate", only this function changes.
pub(crate) fn plan(req: &Requirements) -> Result<Vec<Candidate>, String> {
    let all = ddf::plan(req).map_err(|e| format!("the planner rejected the flags: {e}"))?;
    if all.is_empty() {
        return Err("no filter meets these flags (try a larger --max-memory or --fpr, \
             --slack, --misses-ok, or --exact)"
            .into());
    }
    Ok(all)
}

/// Builds the filter a candidate describes, as the concrete type.
pub(crate) fn build(c: &Candidate) -> Result<Box<dyn Engine>, String> {
    let err = |e: ddf::ParamError| format!("cannot build {}: {e}", candidate_family(c));
    Ok(match c.config {
        Config::Exact { window } => Box::new(ddf::ExactWindow::new(window).map_err(err)?),
        Config::Shf { window, hash_bits } => {
            Box::new(ddf::Shf::new(window, hash_bits).map_err(err)?)
        }
        Config::CompactShf { window, hash_bits } => {
            Box::new(ddf::CompactShf::new(window, hash_bits).map_err(err)?)
        }
        Config::Apbf {
            k,
            l,
            slice_bits,
            time_span,
        } => {
            let f = ddf::Apbf::new(k, l, slice_bits).map_err(err)?;
            Box::new(match time_span {
                Some(t) => f.with_time_span(t).map_err(err)?,
                None => f,
            })
        }
        Config::Sliding {
            window,
            slack,
            epsilon,
            capacity,
        } => {
            let f = match capacity {
                Some(cap) => ddf::SlidingBloom::with_time_span(window, slack, cap, epsilon),
                None => ddf::SlidingBloom::new(window, slack, epsilon),
            };
            Box::new(f.map_err(err)?.with_seed(c.seed))
        }
        Config::QueuedBloom {
            subfilters,
            capacity,
            slices,
            slice_bits,
        } => Box::new(
            ddf::Queue::new(subfilters, capacity, |_| {
                ddf::PartitionedBloom::new(slices, slice_bits)
            })
            .map_err(err)?,
        ),
        Config::Bloom { slices, slice_bits } => {
            Box::new(ddf::PartitionedBloom::new(slices, slice_bits).map_err(err)?)
        }
        Config::Qht {
            rows,
            buckets_per_row,
            fingerprint_bits,
        } => Box::new(
            ddf::Qht::new(rows, buckets_per_row, fingerprint_bits)
                .map_err(err)?
                .with_seed(c.seed),
        ),
        _ => return Err(format!("the CLI cannot build {:?}", c.config)),
    })
}

/// The exact filter for a window (no planner needed): a window of records,
/// of milliseconds, or the whole stream.
pub(crate) fn exact(window: Window) -> Result<Box<dyn Engine>, String> {
    let f = match window {
        Window::Count(w) => ddf::ExactWindow::new(w),
        Window::Time(t) => ddf::ExactWindow::with_time_span(t),
        Window::Unbounded => Ok(ddf::ExactWindow::unbounded()),
    };
    Ok(Box::new(
        f.map_err(|e| format!("cannot build the exact filter: {e}"))?,
    ))
}

/// Reads a filter snapshot of any kind the CLI writes.
pub(crate) fn load(bytes: &[u8]) -> Result<Box<dyn Engine>, DecodeError> {
    fn boxed<F: Engine + Snapshot + 'static>(b: &[u8]) -> Result<Box<dyn Engine>, DecodeError> {
        Ok(Box::new(F::from_bytes(b)?))
    }
    match snapshot_kind(bytes) {
        Some(kind::EXACT_WINDOW) => boxed::<ddf::ExactWindow>(bytes),
        Some(kind::SHF) => boxed::<ddf::Shf>(bytes),
        Some(kind::COMPACT_SHF) => boxed::<ddf::CompactShf>(bytes),
        Some(kind::APBF) => boxed::<ddf::Apbf>(bytes),
        Some(kind::SLIDING_BLOOM) => boxed::<ddf::SlidingBloom>(bytes),
        Some(kind::QUEUE) => boxed::<ddf::Queue<ddf::PartitionedBloom>>(bytes),
        Some(kind::PARTITIONED_BLOOM) => boxed::<ddf::PartitionedBloom>(bytes),
        Some(kind::QHT) => boxed::<ddf::Qht>(bytes),
        // Unknown kinds and short input: let a decoder report the precise
        // error (bad magic, truncation, wrong kind).
        _ => boxed::<ddf::ExactWindow>(bytes),
    }
}

/// The kind code of a snapshot envelope (bytes 6..8, after magic and format).
pub(crate) fn snapshot_kind(bytes: &[u8]) -> Option<u16> {
    bytes
        .get(6..8)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
}

/// The family name of a snapshot kind code, for `ddf inspect`.
pub(crate) fn kind_name(code: u16) -> &'static str {
    match code {
        kind::EXACT_WINDOW => "exact",
        kind::SHF => "shf",
        kind::COMPACT_SHF => "compact-shf",
        kind::APBF => "apbf",
        kind::SLIDING_BLOOM => "sliding",
        kind::QUEUE => "queued-bloom",
        kind::PARTITIONED_BLOOM => "bloom",
        kind::QHT => "qht",
        _ => "unknown",
    }
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
