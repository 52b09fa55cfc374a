//! Running independent seeds on all cores.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The number of worker threads: the machine's available parallelism, at least 1.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs `run(seed)` for every seed on up to `threads` threads and returns the
/// results in seed order. Each run must be self-contained (its own filter,
/// source and generator), so the results do not depend on scheduling.
pub fn run_seeds<T, F>(seeds: &[u64], threads: usize, run: F) -> Vec<T>
where
    T: Send,
    F: Fn(u64) -> T + Sync,
{
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<T>>> = Mutex::new(seeds.iter().map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, seeds.len().max(1)) {
            scope.spawn(|| {
                loop {
                    // Relaxed: the counter only hands out indices; the results
                    // pass through the mutex and the scope's join, which order them.
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&seed) = seeds.get(i) else { break };
                    let out = run(seed);
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(out);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.expect("every seed ran: a worker panic propagates from the scope first"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_in_seed_order() {
        let seeds: Vec<u64> = (0..37).collect();
        assert_eq!(
            run_seeds(&seeds, 4, |s| s * s),
            seeds.iter().map(|s| s * s).collect::<Vec<_>>()
        );
        assert!(run_seeds(&[], 2, |s| s).is_empty());
    }
}
