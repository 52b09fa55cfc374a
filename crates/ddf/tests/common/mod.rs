//! One small filter of every kind `ddf::Filter` holds, and a seeded stream,
//! shared by the `Filter` and golden-snapshot tests.

#![allow(dead_code, unreachable_pub)]

use ddf::hash::SplitMix64;
use ddf::{Digest, Filter, ParamError};

/// A fixed seed for every filter's own generator.
pub const SEED: u64 = 0x5eed_0000_0000_0014;

/// One filter of every kind, small enough that its snapshot is a few KiB,
/// with the name the golden table uses. Timed variants come in their time
/// mode, so the clock is part of what they write.
pub fn every_kind() -> Result<Vec<(&'static str, Filter)>, ParamError> {
    use ddf::sliding::Slack;
    Ok(vec![
        ("exact-count", ddf::ExactWindow::new(64)?.into()),
        (
            "exact-time",
            ddf::ExactWindow::with_time_span(40, 1_000)?.into(),
        ),
        ("qht", ddf::Qht::new(64, 4, 8)?.with_seed(SEED).into()),
        ("qhtd", ddf::Qhtd::new(64, 4, 8)?.with_seed(SEED).into()),
        ("qqhtd", ddf::Qqhtd::new(64, 4, 8)?.with_seed(SEED).into()),
        ("sqf", ddf::Sqf::new(6, 4, 6, 2)?.with_seed(SEED).into()),
        (
            "cuckoo",
            ddf::StreamingCuckoo::new(64, 4, 8)?.with_seed(SEED).into(),
        ),
        ("bloom", ddf::PartitionedBloom::new(4, 256)?.into()),
        (
            "stable-bloom",
            ddf::StableBloom::new(512, 3, 3, 10)?.with_seed(SEED).into(),
        ),
        ("a2", ddf::A2::new(512, 3, 64)?.into()),
        (
            "block-decaying-bloom",
            ddf::BlockDecayingBloom::new(64, 512, 8, 3)?.into(),
        ),
        ("apbf-count", ddf::Apbf::new(4, 3, 256)?.into()),
        (
            "apbf-time",
            ddf::Apbf::with_time_span(40, 4, 3, 256)?.into(),
        ),
        ("apbbf", ddf::Apbbf::new(4, 3, 8, 512, 8)?.into()),
        ("shf", ddf::Shf::new(64, 12)?.into()),
        ("compact-shf", ddf::CompactShf::new(64, 12)?.into()),
        (
            "sliding-count",
            ddf::SlidingBloom::new(64, Slack::AtMost(32), 0.01)?
                .with_seed(SEED)
                .into(),
        ),
        (
            "sliding-time",
            ddf::SlidingBloom::with_time_span(40, Slack::AtMost(20), 128, 0.01)?
                .with_seed(SEED)
                .into(),
        ),
        (
            "sliding-lines",
            ddf::SlidingBloom::new(64, Slack::AtMost(32), 0.01)?
                .with_layout(ddf::sliding::Layout::Line)?
                .with_seed(SEED)
                .into(),
        ),
        (
            "sliding-wide-lines",
            ddf::SlidingBloom::new(64, Slack::AtMost(32), 1e-6)?
                .with_layout(ddf::sliding::Layout::Line)?
                .with_seed(SEED)
                .into(),
        ),
        (
            "queued-bloom",
            ddf::Queue::new(4, 16, |_| ddf::PartitionedBloom::new(3, 64))?.into(),
        ),
        (
            "queued-qht",
            ddf::Queue::new(4, 16, |i| {
                Ok(ddf::Qht::new(16, 2, 8)?.with_seed(SEED ^ i as u64))
            })?
            .into(),
        ),
    ])
}

/// `n` digests over a universe of `universe` items (so with repeats), and
/// a non-decreasing clock: item `i` arrives at time `i / 3`.
pub fn stream(seed: u64, n: usize, universe: u64) -> Vec<(Digest, u64)> {
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|i| (Digest::mixed(rng.below(universe)), i as u64 / 3))
        .collect()
}

/// Feeds `stream` to `filter`, through `observe_at` when it is timed.
pub fn feed(filter: &mut Filter, stream: &[(Digest, u64)]) -> Vec<ddf::Verdict> {
    use ddf::{DuplicateFilter, TimedFilter};
    let timed = filter.is_timed();
    stream
        .iter()
        .map(|&(d, now)| {
            if timed {
                filter.observe_at(d, now)
            } else {
                filter.observe(d)
            }
        })
        .collect()
}
