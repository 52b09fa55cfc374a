//! Snapshots of layout 2, written by the release before layout 3 (which
//! records the placement, and spreads the probes of slices under 4,096
//! bits), still load: they keep the linear placement they were written
//! with, answer exactly as the filter that wrote them, and are written again
//! in layout 3 unchanged.
//!
//! The files were written by that release from a fixed seed and stream:
//! `Apbf::with_window(3000, 0.01)` by count (k = 10, l = 24, 1,804-bit
//! slices) and `Apbf::with_time_span(3000, 7, 10, 1500)` by time, item `i`
//! at time `i`; beside each, its answers at time 10,000 to the stream's last
//! 4,000 keys and 4,000 fresh ones.

use ddf_apbf::{Apbf, AtomicApbf};
use ddf_core::{Digest, DuplicateFilter, Snapshot, TimedFilter};
use ddf_hash::SplitMix64;

/// The stream the files were written from: 10,000 items, a third of them
/// repeating one of the last 100.
fn stream() -> Vec<u64> {
    let mut rng = SplitMix64::new(11);
    let mut keys: Vec<u64> = Vec::new();
    for i in 0..10_000u64 {
        let d = if i > 100 && rng.below(3) == 0 {
            keys[(i - 1 - rng.below(100)) as usize]
        } else {
            rng.next_u64()
        };
        keys.push(d);
    }
    keys
}

fn queries(keys: &[u64]) -> Vec<u64> {
    let mut probe = SplitMix64::new(99);
    keys[6000..]
        .iter()
        .copied()
        .chain((0..4000).map(|_| probe.next_u64()))
        .collect()
}

const FILES: [(&str, &[u8], &[u8]); 2] = [
    (
        "count",
        include_bytes!("data/apbf-v2-count.bin"),
        include_bytes!("data/apbf-v2-count.answers"),
    ),
    (
        "time",
        include_bytes!("data/apbf-v2-time.bin"),
        include_bytes!("data/apbf-v2-time.answers"),
    ),
];

fn answers(f: &impl TimedFilter, queries: &[u64]) -> Vec<u8> {
    queries
        .iter()
        .map(|&q| u8::from(f.contains_at(Digest::new(q), 10_000)))
        .collect()
}

#[test]
fn layout_2_snapshots_answer_as_their_writer() {
    let queries = queries(&stream());
    for (name, bytes, expected) in FILES {
        let f = Apbf::from_bytes(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(answers(&f, &queries), expected, "{name}");
        // Written again it is layout 3, which records the linear placement.
        let again = Apbf::from_bytes(&f.to_bytes()).unwrap();
        assert_eq!(again.to_bytes(), f.to_bytes(), "{name}");
        assert_eq!(answers(&again, &queries), expected, "{name}");
        // The lock-free filter takes the placement over, both ways.
        let atomic = AtomicApbf::from(f.clone());
        assert_eq!(answers(&atomic, &queries), expected, "{name}: atomic");
        let back = atomic.into_inner();
        assert_eq!(answers(&back, &queries), expected, "{name}: back");
    }
}

#[test]
fn a_loaded_layout_2_filter_keeps_its_promise() {
    // Every recent key of the stream, observed again after the load, is
    // found; the filter goes on recording with the placement it was written with.
    let keys = stream();
    let bytes = FILES[0].1;
    let mut f = Apbf::from_bytes(bytes).unwrap();
    let mut rng = SplitMix64::new(5);
    let fresh: Vec<u64> = (0..1000).map(|_| rng.next_u64()).collect();
    for &k in &fresh {
        f.insert(Digest::new(k));
    }
    for &k in fresh.iter().chain(&keys[9_000..]) {
        assert!(f.contains(Digest::new(k)), "{k:#x} missed");
    }
}

#[test]
fn a_placement_byte_other_than_0_or_1_is_refused() {
    let f = Apbf::new(4, 3, 256).unwrap();
    let bytes = f.to_bytes();
    let env = ddf_core::snapshot::open(&bytes).unwrap();
    // The body starts with `m` (8 bytes), then the placement byte.
    let mut body = env.body.to_vec();
    assert_eq!(body[8], 1, "256-bit slices spread");
    body[8] = 7;
    let bad = ddf_core::snapshot::seal(env.kind, env.version, env.hasher_id, env.hasher_key, &body);
    let err = Apbf::from_bytes(&bad).unwrap_err().to_string();
    assert!(err.contains("placement"), "{err}");
}
