//! Pins the APBBF's answers and state for every block shape: a fixed stream
//! through `observe` (count and time generations, across many shifts) must
//! give exactly these verdicts and snapshot bytes (through a 64-bit hash).
//! The hot path has one unrolled form per common shape and a general one for
//! the rest; a change to any of them that moves a bit fails here.

use ddf_apbf::Apbbf;
use ddf_core::{Digest, DuplicateFilter, Snapshot, TimedFilter};

/// FNV-1a, 64-bit: stable and independent of every hash the filter uses.
fn fnv1a(h: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(h, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

const BASIS: u64 = 0xcbf2_9ce4_8422_2325;

/// `(B, b, timed, FNV-1a of the verdicts then the snapshot)`. `(64, 2)`,
/// `(64, 16)` and `(512, 2)` have no unrolled form.
const GOLDEN: &[(u32, u32, bool, u64)] = &[
    (64, 4, false, 0xb8483e0196afbf56),
    (64, 4, true, 0xd6db94d15049b96e),
    (64, 8, false, 0xe90e4a75adefc6bb),
    (64, 8, true, 0x6babe98974543c71),
    (512, 4, false, 0x7f3913c7cb86b84a),
    (512, 4, true, 0x1296518babaa79dd),
    (512, 8, false, 0xd385cc59aebb71b3),
    (512, 8, true, 0x8ec5d5bd59ab89c2),
    (64, 2, false, 0x446156d716ee4ae5),
    (64, 16, true, 0x43e0f5a8b775c8f0),
    (512, 2, false, 0xdca063ebc7458005),
    (512, 2, true, 0xe08466ff212408a6),
];

/// A stream of 6,000 items from 1,500 ids (repeats near and far), one time
/// step per 8 items, with a jump now and then.
fn run(block_bits: u32, b: u32, timed: bool) -> u64 {
    let mut f = if timed {
        Apbbf::with_time_span(400, 3, 5, 6, block_bits, b).unwrap()
    } else {
        Apbbf::new(3, 5, 6, block_bits, b).unwrap()
    };
    let (mut h, mut now) = (BASIS, 0u64);
    let mut x = 0x601du64;
    for i in 0..6_000u64 {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let id = (x >> 33) % 1_500;
        now += if i % 997 == 0 {
            90
        } else {
            u64::from(i % 8 == 0)
        };
        let v = if timed {
            f.observe_at(Digest::mixed(id), now)
        } else {
            f.observe(Digest::mixed(id))
        };
        h = fnv1a(h, &[u8::from(v.is_duplicate())]);
    }
    fnv1a(h, &f.to_bytes())
}

#[test]
fn verdicts_and_bytes_are_pinned() {
    let got: Vec<(u32, u32, bool, u64)> = GOLDEN
        .iter()
        .map(|&(bb, b, timed, _)| (bb, b, timed, run(bb, b, timed)))
        .collect();
    let table: String = got
        .iter()
        .map(|(bb, b, t, h)| format!("    ({bb}, {b}, {t}, {h:#018x}),\n"))
        .collect();
    assert_eq!(got, GOLDEN, "APBBF answers or bytes changed; now:\n{table}");
}

#[test]
fn the_stream_is_not_trivial() {
    // Some repeats are reported and some are not: the pins cover both answers.
    let mut f = Apbbf::new(3, 5, 6, 512, 4).unwrap();
    let (mut dups, mut x) = (0u32, 0x601du64);
    for _ in 0..6_000u64 {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        dups += u32::from(f.observe(Digest::mixed((x >> 33) % 1_500)).is_duplicate());
    }
    assert!((500..5_500).contains(&dups), "{dups}");
}
