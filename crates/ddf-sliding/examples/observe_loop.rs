//! The loop the crate documentation profiles with callgrind: the L2 row of
//! `cargo xtask bench` (least space, `ε = 0.01`, `n = 32,768`), `2n` items of
//! warm-up, then 10^6 observes of distinct `u64` keys hashed with the keyed
//! SipHash-1-3, inside `hot_loop` so that callgrind can count it alone:
//!
//! ```text
//! cargo build --release -p ddf-sliding --example observe_loop
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*hot_loop*' \
//!     target/release/examples/observe_loop
//! ```

use ddf_sliding::{DuplicateFilter, KeyedSipHasher, SlidingBloom, Verdict};

/// Observes `count` distinct keys from `from` on; returns the duplicates reported.
#[inline(never)]
fn hot_loop(f: &mut SlidingBloom, hasher: &KeyedSipHasher, from: u64, count: u64) -> u64 {
    let mut duplicates = 0;
    for id in from..from + count {
        duplicates += u64::from(f.observe(ddf_hash::digest(hasher, &id)) == Verdict::Duplicate);
    }
    duplicates
}

fn main() -> Result<(), ddf_sliding::ParamError> {
    let window = 32_768;
    let mut f = SlidingBloom::least_space(window, 0.01)?;
    let hasher = KeyedSipHasher::with_seed(3);
    hot_loop(&mut f, &hasher, 1 << 40, 2 * window);
    let duplicates = hot_loop(&mut f, &hasher, 0, 1_000_000);
    println!(
        "{} bits, c = {}, r = {}, s = {}, B = {}: {duplicates} false duplicates, {} relocation moves",
        f.memory_bits(),
        f.generations(),
        f.remainder_bits(),
        f.tag_bits(),
        f.buckets(),
        f.kicks()
    );
    Ok(())
}
