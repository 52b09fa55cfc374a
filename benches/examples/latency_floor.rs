//! What the growth table's floor measures one by one, beside a floor that
//! cannot overlap its items.
//!
//! The floor of `cargo xtask bench-growth` hashes a key and reads and
//! writes one random cache line. Consecutive keys are independent, so the
//! processor starts the next item's miss before the last one returns: a
//! loop of them runs at a fraction of one miss's latency. A filter's
//! `observe` runs hundreds of instructions and branches on what it read,
//! which keeps its items from overlapping. This study times, at one
//! window, in alternating rounds of one process:
//!
//! - `floor`: the growth table's floor ([`benches::Floor`], one line);
//! - `floor, dependent`: the same, each key derived from the last verdict,
//!   so each miss starts only when the last one has returned (one miss's
//!   latency plus hashing);
//! - the planner's default (`fpr(1e-3)`, a slack of one window, count
//!   window), fed `2w` keys first, with independent and with dependent
//!   keys.
//!
//! ```text
//! cargo run --release -p benches --example latency_floor [LOG_W …]
//! ```
//!
//! (windows 2^22 and 2^25 without arguments; medians of 15 rounds of
//! 200,000 fresh keys each).

use benches::{Floor, median};
use ddf::{DuplicateFilter, Filter, Requirements, Verdict};
use ddf_hash::{KeyedSipHasher, SplitMix64};
use std::time::Instant;

/// Keys per timed round.
const KEYS: u64 = 200_000;
/// Rounds of each subject, alternating.
const ROUNDS: usize = 15;

/// Observes `keys` fresh keys from `from`; when `dependent`, each key's
/// top bit is the last verdict, so its address waits for the last read.
/// Nanoseconds per key.
fn timed<F: DuplicateFilter>(
    f: &mut F,
    hasher: &KeyedSipHasher,
    (from, keys): (u64, u64),
    dependent: bool,
) -> f64 {
    let start = Instant::now();
    let mut last = 0u64;
    for id in from..from + keys {
        let key = if dependent { id | last << 63 } else { id };
        let verdict = f.observe(ddf_hash::digest(hasher, &key));
        last = u64::from(verdict == Verdict::Duplicate);
    }
    std::hint::black_box(last);
    start.elapsed().as_nanos() as f64 / keys as f64
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut windows: Vec<u32> = std::env::args()
        .skip(1)
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    if windows.is_empty() {
        windows = vec![22, 25];
    }
    print!("{}", study(&windows, ROUNDS, KEYS)?);
    Ok(())
}

/// The table for windows of `2^log_w`: medians of `rounds` rounds of
/// `keys` fresh keys for each subject.
fn study(windows: &[u32], rounds: usize, keys: u64) -> Result<String, Box<dyn std::error::Error>> {
    let hasher = KeyedSipHasher::with_seed(3);
    let mut out = String::from(
        "| window | floor | floor, dependent | default | default, dependent | default / floor | dependent / dependent |\n",
    );
    out += "| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    for &log_w in windows {
        let w = 1u64 << log_w;
        let req = Requirements::count(w).fpr(1e-3).max_slack(w);
        let mut filter: Filter = ddf::plan(&req)?[0].build()?;
        let mut rng = SplitMix64::new(7);
        for _ in 0..2 * w {
            filter.observe(ddf::Digest::new(rng.next_u64()));
        }
        let mut floor = Floor::new(filter.memory_bits() / 8, 1);
        let mut times = vec![Vec::new(); 4];
        let mut next = 1u64 << 40;
        for round in 0..rounds {
            // Odd rounds run the subjects in reverse order, and each timed
            // round follows an untimed one of its own subject: the other's
            // array evicts a subject's lines from the caches, and a round
            // right after it would be timed cold (10–25 % slower at 2^22).
            for j in 0..4 {
                let i = if round % 2 == 0 { j } else { 3 - j };
                let dependent = i % 2 == 1;
                let mut run = |from| {
                    if i < 2 {
                        timed(&mut floor, &hasher, (from, keys), dependent)
                    } else {
                        timed(&mut filter, &hasher, (from, keys), dependent)
                    }
                };
                run(next);
                times[i].push(run(next + keys));
                next += 2 * keys;
            }
        }
        let [a, b, c, d] = [0, 1, 2, 3].map(|i| median(&mut times[i]));
        out += &format!(
            "| 2^{log_w} | {a:.0} ns | {b:.0} ns | {c:.0} ns | {d:.0} ns | {:.2}× | {:.2}× |\n",
            c / a,
            d / b
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny run (a window of 2^10, one round of 500 keys) prints its row.
    #[test]
    fn a_tiny_study_prints_its_row() {
        let table = study(&[10], 1, 500).unwrap();
        assert_eq!(table.lines().count(), 3, "{table}");
        assert!(
            table.lines().nth(2).unwrap().starts_with("| 2^10 | "),
            "{table}"
        );
    }
}
