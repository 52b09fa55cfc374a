//! What the batch path buys the lock-free filters that threads share.
//!
//! [`ddf::ConcurrentFilter`] (the lock-free APBF and APBBF) takes `&self`
//! for every operation, so threads share one window with no lock. Beyond
//! the caches each `observe` waits for the misses of its 10–20 lines one
//! after another, because a query decides which segment it reads next from
//! what the last one held. `observe_digests` takes a block of digests and
//! hints the lines of items a few ahead while it works on this one, so
//! their misses overlap. This study asks the planner for a count window of
//! `w` at `fpr(1e-3)` and a slack of one window, builds the lock-free form
//! of its APBF and APBBF candidates, feeds each `2w` digests first (full
//! and shifting, as a long-running window is), then times fresh digests
//! (hashing not included), in alternating rounds of one process:
//!
//! - one thread, one `observe` a digest, and `observe_digests` over
//!   blocks of 64;
//! - two threads at once on the same filter, the same two ways (the time
//!   an item is wall time over both threads' items).
//!
//! ```text
//! cargo run --release -p benches --example lockfree_batches [LOG_W …]
//! ```
//!
//! (window 2^25 without arguments; medians of 5 rounds of 10^6 digests a
//! thread).

use benches::median;
use ddf::{ConcurrentFilter, Digest, Requirements, Verdict, plan};
use std::hint::black_box;
use std::time::Instant;

/// Digests per thread and timed round.
const DIGESTS: u64 = 1_000_000;
/// Rounds of each way, alternating.
const ROUNDS: usize = 5;
/// Digests per `observe_digests` call: the growth table's block.
const BLOCK: usize = 64;

/// The four ways timed, in the order of the table's columns: (threads,
/// batched).
const WAYS: [(u64, bool); 4] = [(1, false), (1, true), (2, false), (2, true)];

/// Observes `count` fresh digests from `from`, one by one or in blocks;
/// returns the duplicates reported, so the work is not optimised away.
fn observe(f: &ConcurrentFilter, from: u64, count: u64, batched: bool) -> u64 {
    let digests: Vec<Digest> = (from..from + count).map(Digest::mixed).collect();
    let digests = black_box(&digests);
    if !batched {
        return digests
            .iter()
            .filter(|&&d| f.observe(d) == Verdict::Duplicate)
            .count() as u64;
    }
    let mut verdicts = Vec::with_capacity(BLOCK);
    let mut duplicates = 0;
    for block in digests.chunks(BLOCK) {
        verdicts.clear();
        f.observe_digests(block, &mut verdicts);
        duplicates += verdicts.iter().filter(|v| v.is_duplicate()).count() as u64;
    }
    duplicates
}

/// Nanoseconds an item of one round: `threads` threads at once, each
/// observing `count` digests of its own from `from`.
fn round(f: &ConcurrentFilter, threads: u64, from: u64, count: u64, batched: bool) -> f64 {
    let start = Instant::now();
    std::thread::scope(|s| {
        for t in 0..threads {
            s.spawn(move || black_box(observe(f, from + t * count, count, batched)));
        }
    });
    start.elapsed().as_nanos() as f64 / (threads * count) as f64
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut windows: Vec<u32> = std::env::args()
        .skip(1)
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    if windows.is_empty() {
        windows = vec![25];
    }
    print!("{}", study(&windows, ROUNDS, DIGESTS)?);
    Ok(())
}

/// The table for windows `2^log_w`: `rounds` alternating rounds of
/// `digests` a thread for each way.
fn study(
    windows: &[u32],
    rounds: usize,
    digests: u64,
) -> Result<String, Box<dyn std::error::Error>> {
    let mut out = String::from(
        "| window | family | bits/item | 1 thread, one by one | 1 thread, batches | 2 threads, one by one | 2 threads, batches |\n",
    );
    out += "| --- | --- | ---: | ---: | ---: | ---: | ---: |\n";
    for &log_w in windows {
        let w = 1u64 << log_w;
        let candidates = plan(&Requirements::count(w).fpr(1e-3).max_slack(w))?;
        for family in ["APBF", "APBBF"] {
            let Some(candidate) = candidates.iter().find(|c| c.family() == family) else {
                continue;
            };
            let f = candidate.build_concurrent()?;
            // Fed through the batch path: distinct digests, as timed.
            let mut from = 1u64 << 56;
            let fill = 2 * w;
            let mut verdicts = Vec::with_capacity(BLOCK);
            let fed: Vec<Digest> = (from..from + fill).map(Digest::mixed).collect();
            for block in fed.chunks(BLOCK) {
                verdicts.clear();
                f.observe_digests(block, &mut verdicts);
            }
            drop(fed);
            from += fill;
            let mut times = vec![Vec::with_capacity(rounds); WAYS.len()];
            for _ in 0..rounds {
                for (way, &(threads, batched)) in WAYS.iter().enumerate() {
                    times[way].push(round(&f, threads, from, digests, batched));
                    from += threads * digests;
                }
            }
            let cells: Vec<String> = times
                .iter_mut()
                .map(|t| format!("{:.0} ns", median(t)))
                .collect();
            out += &format!(
                "| 2^{log_w} | {family} | {:.1} | {} |\n",
                f.memory_bits() as f64 / w as f64,
                cells.join(" | ")
            );
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny run (a window of 2^10, one round of 500 digests a thread)
    /// prints a row for each lock-free family.
    #[test]
    fn a_tiny_study_prints_its_rows() {
        let table = study(&[10], 1, 500).unwrap();
        assert_eq!(table.lines().count(), 4, "{table}");
        assert!(table.contains("| 2^10 | APBF | "), "{table}");
        assert!(table.contains("| 2^10 | APBBF | "), "{table}");
    }
}
