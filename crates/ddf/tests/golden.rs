//! Pins the snapshot format: for every filter kind, a fixed seed and stream
//! must produce exactly these bytes (through a 64-bit hash of them). A
//! failure here means the bytes a kind writes changed. If its format
//! changed, bump the kind's `Snapshot::VERSION` (or `FORMAT_VERSION` for the
//! envelope), keep reading the old layout, and update the constant — see the
//! compatibility promise in `ddf::snapshot`. If only where the filter puts
//! its entries changed (same format, old files load and answer alike),
//! update the constant and say so in the commit.

mod common;

use common::{every_kind, feed, stream};
use ddf::{Deduper, Filter};

/// FNV-1a, 64-bit (offset basis 0xcbf29ce484222325, prime 0x100000001b3):
/// stable, tiny and independent of every hash the filters use.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// `(kind, FNV-1a of the snapshot bytes)` after the golden stream.
const GOLDEN: &[(&str, u64)] = &[
    ("exact-count", 0x5350fbc71cd15a91),
    ("exact-time", 0x07cdf2c681c7ba45),
    ("qht", 0x571029884ff3f8dc),
    ("qhtd", 0x816cd4231370490c),
    ("qqhtd", 0x3036b54c19115e23),
    ("sqf", 0x1966577c6b85c9ee),
    ("cuckoo", 0xcd2c6c542663d3ee),
    ("bloom", 0x38c9794b1d0eeccf),
    ("stable-bloom", 0x1aea9da04fad2e75),
    ("a2", 0xf90592acdf7cf519),
    ("block-decaying-bloom", 0x44c128c52d100d37),
    ("apbf-count", 0x027c47ebe36e66eb),
    ("apbf-time", 0x6975c201e7bebfab),
    ("apbbf", 0x46d1f6a0945b8689),
    ("shf", 0x09e8dc9a9e07ac32),
    ("compact-shf", 0x9d8da830e9af1c74),
    ("sliding-count", 0xebf5aefda25ddb80),
    ("sliding-time", 0x2a249461c12164da),
    ("sliding-lines", 0xfc0ba0a35ebbd371),
    ("sliding-wide-lines", 0x4b994b201855180b),
    ("queued-bloom", 0x7128278c6df69f57),
    ("queued-qht", 0xb36d3922a1700812),
    ("deduper-qht", 0x33264e73bcc18119),
];

fn golden_bytes() -> Vec<(&'static str, Vec<u8>)> {
    let s = stream(0x601d, 400, 150);
    let mut out: Vec<(&'static str, Vec<u8>)> = every_kind()
        .unwrap()
        .into_iter()
        .map(|(name, mut f)| {
            feed(&mut f, &s);
            (name, f.to_bytes())
        })
        .collect();
    // The envelope with a hasher section: a deduper under a fixed seed.
    let mut dedup = Deduper::with_seed(Filter::from(ddf::Qht::new(16, 2, 8).unwrap()), 3);
    for i in 0..50 {
        dedup.observe(&i);
    }
    out.push(("deduper-qht", dedup.to_bytes()));
    out
}

#[test]
fn snapshot_bytes_are_pinned() {
    let got: Vec<(&str, u64)> = golden_bytes()
        .iter()
        .map(|(name, bytes)| (*name, fnv1a(bytes)))
        .collect();
    let table: String = got
        .iter()
        .map(|(n, h)| format!("    (\"{n}\", {h:#018x}),\n"))
        .collect();
    assert_eq!(
        got, GOLDEN,
        "snapshot bytes changed; the new table is:\n{table}"
    );
}

#[test]
fn pinned_bytes_still_load() {
    for (name, bytes) in golden_bytes() {
        if name == "deduper-qht" {
            let d: Deduper<Filter> = Deduper::from_bytes(&bytes).unwrap();
            assert_eq!(d.to_bytes(), bytes);
        } else {
            let f = Filter::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(f.to_bytes(), bytes, "{name}");
        }
    }
}

#[test]
fn fnv1a_matches_its_reference_values() {
    // Published test vectors of FNV-1a 64.
    assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
}
