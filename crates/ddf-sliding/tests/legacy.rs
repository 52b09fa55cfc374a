//! Snapshots of earlier layouts still load, answering exactly as the filter
//! that wrote them, and the loaded filter keeps its promise as it goes on.
//!
//! - Layout 4 (buckets of four cells packed end to end), written by the
//!   release before layout 5: a window of 3,000 at ε = 2^-8 (15-bit cells,
//!   rows of 60 bits) and at ε = 10^-3 (17-bit cells, rows of 68 bits), by
//!   count and by time. They load into aligned words of their own geometry.
//! - Layout 5 lines of 16-bit remainders and a `u32` a tag plane: a window
//!   of 3,000 at ε = 10^-3 with 3 tag bits (26 cells a line) and 7 (18
//!   cells) by count, and 5 (22 cells) by time. They pin the line bytes,
//!   which a later layout must go on reading.
//! - Layout 5 aligned words, written by the release before layout 6 (which
//!   added the fit of buckets to load and rate): a window of 3,000 and a
//!   slack of 3,000 at ε = 10^-3, by count, relocation seeded with 7 (four
//!   16-bit cells a `u64`, 1,064 buckets). It must load fitted by the load.
//!
//! Each file was written from a fixed seed and the stream below; beside it,
//! its answers to 4,000 recent keys and 4,000 fresh ones.

use ddf_core::{Digest, Snapshot, TimedFilter};
use ddf_hash::SplitMix64;
use ddf_sliding::{Layout, SlidingBloom};

/// The stream the files were written from: 10,000 items, a third of them
/// repeating one of the last 100, item `i` at time `i`.
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

const FILES: [(&str, &[u8], &[u8]); 3] = [
    (
        "narrow-count",
        include_bytes!("data/sliding-v4-narrow-count.bin"),
        include_bytes!("data/sliding-v4-narrow-count.answers"),
    ),
    (
        "wide-count",
        include_bytes!("data/sliding-v4-wide-count.bin"),
        include_bytes!("data/sliding-v4-wide-count.answers"),
    ),
    (
        "wide-time",
        include_bytes!("data/sliding-v4-wide-time.bin"),
        include_bytes!("data/sliding-v4-wide-time.answers"),
    ),
];

const LINE_FILES: [(&str, &[u8], &[u8]); 3] = [
    (
        "line-s3-count",
        include_bytes!("data/sliding-v5-line-s3-count.bin"),
        include_bytes!("data/sliding-v5-line-s3-count.answers"),
    ),
    (
        "line-s7-count",
        include_bytes!("data/sliding-v5-line-s7-count.bin"),
        include_bytes!("data/sliding-v5-line-s7-count.answers"),
    ),
    (
        "line-s5-time",
        include_bytes!("data/sliding-v5-line-s5-time.bin"),
        include_bytes!("data/sliding-v5-line-s5-time.answers"),
    ),
];

const ALIGNED_FILE: (&str, &[u8], &[u8]) = (
    "aligned-count",
    include_bytes!("data/sliding-v5-aligned-count.bin"),
    include_bytes!("data/sliding-v5-aligned-count.answers"),
);

/// The filter in `bytes` answers the queries as `answers` records, and
/// written again it reads back to the same state.
fn answers_as_written(name: &str, bytes: &[u8], answers: &[u8]) -> SlidingBloom {
    let f = SlidingBloom::from_bytes(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    let got: Vec<u8> = queries(&stream())
        .iter()
        .map(|&q| u8::from(f.contains_at(Digest::new(q), 10_000)))
        .collect();
    assert_eq!(got.as_slice(), answers, "{name}");
    let again = SlidingBloom::from_bytes(&f.to_bytes()).unwrap();
    assert_eq!(again.to_bytes(), f.to_bytes(), "{name}");
    f
}

/// Fed 9,000 fresh items after loading, it reports each of the last 3,000.
fn keeps_the_window(name: &str, mut f: SlidingBloom) {
    let mut rng = SplitMix64::new(5);
    let fresh: Vec<u64> = (0..9000).map(|_| rng.next_u64()).collect();
    for (i, &d) in fresh.iter().enumerate() {
        f.observe_at(Digest::new(d), 10_000 + i as u64);
    }
    let now = 10_000 + fresh.len() as u64 - 1;
    for &d in &fresh[fresh.len() - 3000..] {
        assert!(f.contains_at(Digest::new(d), now), "{name}");
    }
    assert_eq!(f.stash_overflows(), 0, "{name}");
}

#[test]
fn layout_5_line_snapshots_answer_as_their_writer() {
    // Lines and cells a line: 3 tag bits leave 26 cells, 7 leave 18, 5 22.
    let geometry = [(179, 26), (215, 18), (183, 22)];
    for ((name, bytes, answers), shape) in LINE_FILES.into_iter().zip(geometry) {
        let f = answers_as_written(name, bytes, answers);
        assert_eq!(f.layout(), Layout::Line, "{name}");
        assert_eq!((f.buckets(), f.cells_per_bucket()), shape, "{name}");
    }
}

#[test]
fn loaded_layout_5_lines_keep_the_window() {
    for (name, bytes, _) in LINE_FILES {
        keeps_the_window(name, SlidingBloom::from_bytes(bytes).unwrap());
    }
}

#[test]
fn layout_5_aligned_snapshots_answer_as_their_writer_and_keep_the_window() {
    let (name, bytes, answers) = ALIGNED_FILE;
    let f = answers_as_written(name, bytes, answers);
    assert_eq!(f.layout(), Layout::Aligned);
    assert_eq!((f.buckets(), f.cells_per_bucket()), (1064, 4));
    keeps_the_window(name, f);
}

#[test]
fn layout_4_snapshots_answer_as_their_writer() {
    for (name, bytes, answers) in FILES {
        let f = answers_as_written(name, bytes, answers);
        assert_eq!(
            f.cells_per_bucket(),
            4,
            "{name}: layout 4 has four cells a bucket"
        );
    }
}

#[test]
fn loaded_layout_4_filters_keep_the_window() {
    for (name, bytes, _) in FILES {
        keeps_the_window(name, SlidingBloom::from_bytes(bytes).unwrap());
    }
}

#[test]
fn a_layout_4_file_with_a_cell_flipped_is_refused_or_consistent() {
    // The checksum guards the body: a flipped bit is refused at the envelope.
    let (_, bytes, _) = FILES[1];
    let mut bad = bytes.to_vec();
    let at = bad.len() - 200;
    bad[at] ^= 0x10;
    assert!(SlidingBloom::from_bytes(&bad).is_err());
}
