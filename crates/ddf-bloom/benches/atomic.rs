//! One thread on `AtomicPartitionedBloom` against `PartitionedBloom`:
//! `observe` of distinct `u64` keys, filters sized for 2^20 items (a few
//! MiB) and 2^26 (far beyond the caches) at fp 10^-3, first loaded with
//! a quarter of their items. Digests come from [`Digest::mixed`], not SipHash, so
//! the filters' own work is what is compared. First the two alternate in
//! one process, each on its own copy of the same state and keys, and the
//! least time per key of each and their ratio are printed
//! (`atomic-bloom/…/alternating`). No criterion loop follows: its many
//! iterations would fill the filters far past their size, where every
//! key is found set and nothing is written.
//!
//! ```text
//! cargo bench -p ddf-bloom --bench atomic
//! ```

use ddf_bloom::{AtomicPartitionedBloom, Digest, DuplicateFilter, PartitionedBloom, Verdict};
use std::hint::black_box;

/// Operations per timed block: a few milliseconds, so that many blocks
/// run without a pause (see `ddf_core::speed::alternate`).
const OPS: u64 = 1 << 13;
/// Alternating rounds of one block each.
const ROUNDS: usize = 31;

/// Observes keys `next..next + OPS` through `observe`; returns `OPS`.
fn block(next: &mut u64, mut observe: impl FnMut(Digest) -> Verdict) -> u64 {
    let mut dup = 0u32;
    for i in *next..*next + OPS {
        dup += u32::from(observe(Digest::mixed(black_box(i))) == Verdict::Duplicate);
    }
    black_box(dup);
    *next += OPS;
    OPS
}

fn main() {
    for (name, items) in [("n2^20", 1u64 << 20), ("n2^26", 1 << 26)] {
        let mut plain = PartitionedBloom::with_items(items, 1e-3).expect("valid parameters");
        // The alternating blocks add fewer than a quarter more.
        let fill = items / 4;
        for i in 0..fill {
            plain.insert(Digest::mixed(i));
        }
        let atomic = AtomicPartitionedBloom::from(plain.clone());
        let (mut next_plain, mut next_atomic) = (fill, fill);
        let (p, a) = ddf_core::speed::alternate(
            ROUNDS,
            || block(&mut next_plain, |d| plain.observe(d)),
            || block(&mut next_atomic, |d| atomic.observe(d)),
        );
        println!(
            "atomic-bloom/{name}/alternating: PartitionedBloom {p:.1} ns, \
             AtomicPartitionedBloom {a:.1} ns, ratio {:.3} (k = {}, {} MiB)",
            a / p,
            plain.slices(),
            plain.memory_bits() >> 23,
        );
    }
}
