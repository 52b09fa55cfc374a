//! The simulation behind "one line per lookup" in `docs/performance.md`:
//! can a dictionary of one-cache-line buckets answer most lookups from one
//! line, by placing an entry in its first line unless that line is full and
//! flagging the first line when it spills into the second?
//!
//! `B = 20,000` lines of `K = 31` cells hold `α·B·K` live entries; each step
//! retires the oldest entry and inserts a fresh one (a full sliding window
//! turning over), three windows' worth of steps after the first fill. Two
//! placements: *first-then-spill* (the first line if it has a free cell,
//! else the second, whose use marks the first as spilled while the entry
//! lives) and *emptier* (the emptier of the two, both read by every
//! lookup). Printed per load: insertions finding both lines full, and for
//! first-then-spill the share of lookups whose first line carries a live
//! spill (they must read the second line too). Seeded, so the output is
//! the same on every run:
//!
//! ```text
//! cargo run --release -p ddf-sliding --example spill_study
//! ```

use ddf_hash::SplitMix64;
use std::collections::VecDeque;

const LINES: usize = 20_000;
const CELLS: u32 = 31;

/// Where a live entry is: its line, and the line it spilled from.
struct Live {
    line: usize,
    spilled_from: Option<usize>,
}

struct Outcome {
    both_full: f64,
    spilled_lookups: f64,
}

fn simulate(load: f64, spill: bool) -> Outcome {
    let mut rng = SplitMix64::new(0x5b11);
    let mut fill = vec![0u32; LINES];
    let mut spills = vec![0u32; LINES];
    let live = (load * (LINES as f64) * f64::from(CELLS)) as usize;
    let mut fifo: VecDeque<Option<Live>> = VecDeque::with_capacity(live + 1);
    let (mut failed, mut inserted, mut second_reads, mut lookups) = (0u64, 0u64, 0u64, 0u64);
    for step in 0..4 * live {
        let measured = step >= live;
        if measured {
            if let Some(Some(old)) = fifo.pop_front() {
                fill[old.line] -= 1;
                if let Some(from) = old.spilled_from {
                    spills[from] -= 1;
                }
            }
            // A lookup of a fresh item: its first line decides.
            lookups += 1;
            second_reads += u64::from(spills[rng.below(LINES as u64) as usize] > 0);
        }
        let first = rng.below(LINES as u64) as usize;
        let second = rng.below(LINES as u64) as usize;
        let choice = if spill {
            if fill[first] < CELLS {
                Some((first, None))
            } else if fill[second] < CELLS {
                Some((second, Some(first)))
            } else {
                None
            }
        } else {
            let line = if fill[second] < fill[first] {
                second
            } else {
                first
            };
            (fill[line] < CELLS).then_some((line, None))
        };
        inserted += u64::from(measured);
        match choice {
            Some((line, spilled_from)) => {
                fill[line] += 1;
                if let Some(from) = spilled_from {
                    spills[from] += 1;
                }
                fifo.push_back(Some(Live { line, spilled_from }));
            }
            None => {
                failed += u64::from(measured);
                fifo.push_back(None);
            }
        }
    }
    Outcome {
        both_full: failed as f64 / inserted as f64,
        spilled_lookups: second_reads as f64 / lookups.max(1) as f64,
    }
}

fn main() {
    println!(
        "| load | first-then-spill: both full | lookups reading two lines | emptier of two: both full |"
    );
    println!("| ---: | ---: | ---: | ---: |");
    for load in [0.80, 0.85, 0.88, 0.90, 0.93] {
        let spill = simulate(load, true);
        let emptier = simulate(load, false);
        println!(
            "| {load:.2} | {:.4} | {:.3} | {:.5} |",
            spill.both_full, spill.spilled_lookups, emptier.both_full
        );
    }
}
