//! Observations of fresh items by a saturated streaming cuckoo filter (1
//! Mbit, one 3-bit cell per bucket: the QHT authors' benchmark shape), under
//! either full-table policy, for instruction counts:
//!
//! ```text
//! cargo build --release -p ddf-cuckoo --example saturated
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measure*' \
//!     target/release/examples/saturated walk 100000
//! ```
//!
//! `measure` is the only function counted: the filling before it is not.

use ddf_cuckoo::{Digest, DuplicateFilter, FullTable, StreamingCuckoo};
use std::hint::black_box;
use std::time::Instant;

/// Observes `ops` fresh items from `from` on; returns how many were
/// reported (false positives).
#[inline(never)]
fn measure(filter: &mut StreamingCuckoo, from: u64, ops: u64) -> u64 {
    (from..from + ops)
        .filter(|&i| filter.observe(black_box(Digest::mixed(i))).is_duplicate())
        .count() as u64
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let policy = match args.get(1).map(String::as_str) {
        Some("walk") => FullTable::Walk,
        Some("evict") | None => FullTable::Evict,
        Some(other) => {
            eprintln!("unknown policy `{other}`: walk or evict");
            std::process::exit(2);
        }
    };
    let ops = match args.get(2).map(|s| s.parse::<u64>()) {
        None => 100_000,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => {
            eprintln!("the operation count is a positive integer");
            std::process::exit(2);
        }
    };
    let mut filter = StreamingCuckoo::with_memory(1 << 20, 1, 3)
        .expect("valid parameters")
        .with_full_table(policy);
    let mut next = 0;
    while !filter.is_full() {
        filter.observe(Digest::mixed(next));
        next += 1;
    }
    let (dropped, start) = (filter.dropped(), Instant::now());
    let reported = measure(&mut filter, next, ops);
    let ns = start.elapsed().as_nanos() as f64 / ops as f64;
    println!(
        "{policy:?}: filled after {next} items; {ops} more: {reported} reported, {} dropped, \
         {ns:.1} ns/op (wall clock, noisy)",
        filter.dropped() - dropped
    );
}
