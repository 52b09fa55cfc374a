//! Queues of one subfilter family sized from a target: the planner's rules
//! for the queued QHT (feature `qht`) and the queued partitioned Bloom
//! filter (feature `bloom`), with the work bound they share. They live
//! beside the construction they size, so the planner of `ddf` only ranks
//! what they return.

use ddf_core::ParamError;

#[cfg(feature = "bloom")]
pub mod bloom;
#[cfg(feature = "qht")]
pub mod qht;

/// Windows up to which the queues are sized: their theory sums over the
/// `c` insertions of each subfilter for every `L` compared, about 0.6 s of
/// sizing per 2^20 window items in a release build (`ddf plan --window
/// 1048576 --max-memory 4MiB --misses-ok`).
pub const MAX_SIZED_WINDOW: u64 = 1 << 20;

/// `window` if it is within [`MAX_SIZED_WINDOW`].
fn sized_window(window: u64) -> Result<u64, ParamError> {
    ddf_param::ensure_window(window, MAX_SIZED_WINDOW)
}
