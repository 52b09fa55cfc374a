//! How fast one core reads and writes random cache lines when it asks for
//! them items ahead: the ceiling of a batch path that touches `t` lines an
//! item.
//!
//! The growth table's floor touches one line an item, one by one. A
//! filter's batches request the lines of the next items while it works on
//! this one, so their pace is set by how many misses the core and the
//! memory keep in flight, not by one miss's latency. This study drives an
//! array of the given size with no filter logic at all: for each item it
//! requests (`prefetch_write`) the `t` lines of the item [`AHEAD`] places
//! on, then sets one bit in each of this item's `t` lines. Every line is
//! written, as an insertion writes its `k` slices, so each costs a fetch
//! and, later, a write-back.
//!
//! ```text
//! cargo run --release -p benches --example line_throughput [MIB …]
//! ```
//!
//! (without arguments 120 MiB, the planner's APBF at a window of 2^25 and
//! `fpr(1e-3)`; medians of 7 alternating rounds of 10^6 items for each `t`).

use benches::median;
use ddf_core::Digest;
use std::time::Instant;

/// Items per timed round.
const ITEMS: u64 = 1_000_000;
/// Rounds of each line count, alternating.
const ROUNDS: usize = 7;
/// Items ahead whose lines are requested.
const AHEAD: u64 = 4;
/// Lines an item touches: one (the floor), the default's two buckets, and
/// up to the APBF's 13 writes plus its query's reads.
const TOUCHES: [u64; 6] = [1, 2, 4, 8, 13, 17];
/// `u64` words per cache line.
const LINE_WORDS: u64 = 8;

/// The word of touch `j` of item `i`: a line of `lines` by multiply-shift
/// of a mixed `(i, j)`, and a word of it.
#[inline]
fn word(i: u64, j: u64, lines: u64) -> usize {
    let h = Digest::mixed(i << 5 | j);
    (h.reduce(lines) * LINE_WORDS + (h.get() & 7)) as usize
}

/// Runs items `from..from + items`, each touching `t` lines; nanoseconds
/// an item.
fn round(words: &mut [u64], t: u64, from: u64, items: u64) -> f64 {
    let lines = words.len() as u64 / LINE_WORDS;
    let start = Instant::now();
    for i in from..from + items {
        for j in 0..t {
            ddf_bits::prefetch::prefetch_write(words, word(i + AHEAD, j, lines));
        }
        for j in 0..t {
            words[word(i, j, lines)] |= 1 << j;
        }
    }
    start.elapsed().as_nanos() as f64 / items as f64
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut sizes: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    if sizes.is_empty() {
        sizes = vec![120];
    }
    print!("{}", study(&sizes, ROUNDS, ITEMS));
    Ok(())
}

/// The table for arrays of `sizes` MiB: medians of `rounds` alternating
/// rounds of `items` items for each line count.
fn study(sizes: &[u64], rounds: usize, items: u64) -> String {
    let mut out = String::from("| array | lines an item | ns an item | ns a line |\n");
    out += "| ---: | ---: | ---: | ---: |\n";
    for &mib in sizes {
        // Mapped and written as the filters' tables are (huge pages from
        // 8 MiB on), so no page fault lands in a timed round.
        let mut words = ddf_bits::pages::filled_vec((mib << 20) as usize / 8, 0u64);
        let mut times = vec![Vec::new(); TOUCHES.len()];
        let mut from = 0;
        for _ in 0..rounds {
            for (k, &t) in TOUCHES.iter().enumerate() {
                times[k].push(round(&mut words, t, from, items));
                from += items;
            }
        }
        for (k, &t) in TOUCHES.iter().enumerate() {
            let ns = median(&mut times[k]);
            out += &format!("| {mib} MiB | {t} | {ns:.1} | {:.1} |\n", ns / t as f64);
        }
        std::hint::black_box(&words);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny run prints a row for every line count, and the rounds wrote
    /// the lines they touched.
    #[test]
    fn a_tiny_study_prints_every_line_count() {
        let table = study(&[1], 1, 2_000);
        assert_eq!(table.lines().count(), 2 + TOUCHES.len(), "{table}");
        assert!(table.contains("| 1 MiB | 17 |"), "{table}");
        let mut words = vec![0u64; 1 << 17];
        assert!(round(&mut words, 4, 0, 100) > 0.0);
        assert!(words.iter().any(|&w| w != 0));
    }
}
