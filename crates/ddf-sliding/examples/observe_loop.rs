//! The loops the crate documentation and `docs/performance.md` profile with
//! callgrind, each after `2w` items of warm-up, over distinct `u64` keys
//! hashed with the keyed SipHash-1-3, inside `hot_loop` so that callgrind
//! can count it alone:
//!
//! - with no arguments, the L2 row of `cargo xtask bench` (least space,
//!   `ε = 0.01`, `n = 32,768`), 10^6 observes;
//! - with `default W LOAD`, the planner's default shape (`fpr(1e-3)`, a
//!   slack of one window) at window `W` and design load `LOAD`, 200,000
//!   observes, and the same keys only hashed in `hash_loop`, so that the
//!   filter and the hashing are counted apart. `hot_loop` runs twice
//!   (warm-up and measured), so its count divides by `2W + 200,000`;
//! - with `default W LOAD line`, the same shape in [`Layout::Line`];
//! - with `default W LOAD line FPR SLACK`, that layout at another rate and
//!   slack: `1e-6 W/100` is what the front ends build for a window given
//!   alone, in wide lines.
//!
//! ```text
//! cargo build --release -p ddf-sliding --example observe_loop
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*hot_loop*' \
//!     target/release/examples/observe_loop
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*hot_loop*' \
//!     --toggle-collect='*hash_loop*' target/release/examples/observe_loop default 16384 0.9
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*hot_loop*' \
//!     target/release/examples/observe_loop default 16384 0.9 line
//! ```

use ddf_sliding::{DuplicateFilter, KeyedSipHasher, Layout, Slack, SlidingBloom, Verdict};

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
    let hasher = KeyedSipHasher::with_seed(3);
    if args.next().as_deref() != Some("default") {
        let window = 32_768;
        let mut f = SlidingBloom::least_space(window, 0.01)?;
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
        return Ok(());
    }
    let window: u64 = args.next().map_or(Ok(1 << 14), |s| s.parse())?;
    let load: f64 = args.next().map_or(Ok(0.9), |s| s.parse())?;
    let line = match args.next().as_deref() {
        None => false,
        Some("line") => true,
        Some(other) => return Err(format!("unknown layout {other:?}: only `line`").into()),
    };
    let fpr: f64 = args.next().map_or(Ok(1e-3), |s| s.parse())?;
    let slack: u64 = args.next().map_or(Ok(window), |s| s.parse())?;
    let mut f = SlidingBloom::new(window, Slack::AtMost(slack), fpr)?.with_design_load(load)?;
    if line {
        f = f.with_layout(Layout::Line)?;
    }
    hot_loop(&mut f, &hasher, 1 << 40, 2 * window);
    let kicks = f.kicks();
    let duplicates = hot_loop(&mut f, &hasher, 0, 200_000);
    let mix = hash_loop(&hasher, 0, 200_000);
    println!(
        "w = {window}, load {load}, {:?}: {} bits, c = {}, r = {}, s = {}, {duplicates} false duplicates, \
         {:.3} relocation moves per insertion (hash check {:x})",
        f.layout(),
        f.memory_bits(),
        f.generations(),
        f.remainder_bits(),
        f.tag_bits(),
        (f.kicks() - kicks) as f64 / 200_000.0,
        mix & 0xff
    );
    Ok(())
}
