//! The loop behind the instruction budget of the planner's default in
//! `docs/performance.md`: `fpr(1e-3)` with a slack of one window, at the
//! window and design load given on the command line (2^14 and 0.90 unless
//! told), `2w` items of warm-up, then 200,000 observes of distinct `u64`
//! keys in `hot_loop` and the same keys only hashed in `hash_loop`, so that
//! callgrind counts the filter and the hashing apart:
//!
//! ```text
//! cargo build --release -p ddf-sliding --example default_loop
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*hot_loop*' \
//!     --toggle-collect='*hash_loop*' target/release/examples/default_loop 16384 0.9
//! ```
//!
//! `hot_loop` runs twice (warm-up and measured), so its count divides by
//! `2w + 200,000` observes; `hash_loop`'s by 200,000.

use ddf_sliding::{DuplicateFilter, KeyedSipHasher, Slack, SlidingBloom, Verdict};

/// Observes `count` distinct keys from `from` on; returns the duplicates reported.
#[inline(never)]
fn hot_loop(f: &mut SlidingBloom, hasher: &KeyedSipHasher, from: u64, count: u64) -> u64 {
    let mut duplicates = 0;
    for id in from..from + count {
        duplicates += u64::from(f.observe(ddf_hash::digest(hasher, &id)) == Verdict::Duplicate);
    }
    duplicates
}

/// Hashes the same keys as `hot_loop` and nothing else.
#[inline(never)]
fn hash_loop(hasher: &KeyedSipHasher, from: u64, count: u64) -> u64 {
    (from..from + count).fold(0, |x, id| x ^ ddf_hash::digest(hasher, &id).get())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let window: u64 = args.next().map_or(Ok(1 << 14), |s| s.parse())?;
    let load: f64 = args.next().map_or(Ok(0.9), |s| s.parse())?;
    let mut f = SlidingBloom::new(window, Slack::AtMost(window), 1e-3)?.with_design_load(load)?;
    let hasher = KeyedSipHasher::with_seed(3);
    hot_loop(&mut f, &hasher, 1 << 40, 2 * window);
    let kicks = f.kicks();
    let duplicates = hot_loop(&mut f, &hasher, 0, 200_000);
    let mix = hash_loop(&hasher, 0, 200_000);
    println!(
        "w = {window}, load {load}: {} bits, r = {}, s = {}, {duplicates} false duplicates, \
         {:.3} relocation moves per insertion (hash check {:x})",
        f.memory_bits(),
        f.remainder_bits(),
        f.tag_bits(),
        (f.kicks() - kicks) as f64 / 200_000.0,
        mix & 0xff
    );
    Ok(())
}
