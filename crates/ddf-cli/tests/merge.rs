//! `ddf merge` with the real binary: two `ddf dedup --state` processes over
//! the two halves of a stream, merged, answer as one process over the
//! whole stream; refused merges name the difference and write nothing.

mod common;

use common::run;
use std::path::Path;

/// Records `key<TAB>time` (seconds), times rising, keys repeating within
/// and across halves; `half` 0 or 1 takes every other record, `None` all.
fn records(half: Option<usize>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut state = 7u64;
    for i in 0..6_000u64 {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        let key = (state >> 33) % 2_500;
        if half.is_none_or(|h| i as usize % 2 == h) {
            out.extend_from_slice(format!("k{key}\t{}\n", 1_700_000_000 + i / 4).as_bytes());
        }
    }
    out
}

/// Every key of the stream and some never seen, at the stream's last time
/// and a while later, marked as duplicates or not.
fn probe() -> Vec<u8> {
    let mut out = Vec::new();
    for (k, t) in (0..2_700u64)
        .map(|k| (k, 1_700_001_500))
        .chain((0..2_700).map(|k| (k, 1_700_001_900)))
    {
        out.extend_from_slice(format!("k{k}\t{t}\n").as_bytes());
    }
    out
}

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).to_str().unwrap().to_string()
}

fn dedup(flags: &[&str], state: &str, input: &[u8]) -> Vec<u8> {
    let args = [
        &["dedup", "--time-field", "2", "-f", "1", "--state", state][..],
        flags,
    ]
    .concat();
    let (code, out, err) = run(&args, input);
    assert_eq!(code, 0, "{args:?}: {err}");
    out
}

#[test]
fn two_processes_merged_answer_as_one_over_the_whole_stream() {
    let families: [&[&str]; 3] = [
        &["--exact"],
        &[
            "--rate", "4", "--filter", "apbf", "--fpr", "1e-3", "--slack", "10m",
        ],
        &["--rate", "4", "--filter", "sliding", "--fpr", "1e-3"],
    ];
    for family in families {
        let flags = [&["--within", "10m"][..], family].concat();
        let dir = tempfile::tempdir().unwrap();
        let [empty, one, two, whole, merged] =
            ["empty", "one", "two", "whole", "merged"].map(|n| path(dir.path(), n));
        // Nodes share the hash key: each starts from a copy of one state.
        dedup(&flags, &empty, b"");
        for node in [&one, &two, &whole] {
            std::fs::copy(&empty, node).unwrap();
        }
        let out_one = dedup(&flags, &one, &records(Some(0)));
        let out_two = dedup(&flags, &two, &records(Some(1)));
        let out_whole = dedup(&flags, &whole, &records(None));
        assert!(
            out_one.len() + out_two.len() >= out_whole.len(),
            "{family:?}"
        );
        let (code, _, err) = run(&["merge", &one, &two, "-o", &merged], b"");
        assert_eq!(code, 0, "{family:?}: {err}");
        // The merged state holds both runs' records and the later clock.
        let info = |s: &str| {
            let (code, out, err) = run(&["inspect", s, "--json"], b"");
            assert_eq!(code, 0, "{err}");
            serde_json::from_slice::<serde_json::Value>(&out).unwrap()
        };
        let (m, w) = (info(&merged), info(&whole));
        assert_eq!(m["records_seen"], w["records_seen"], "{family:?}");
        assert_eq!(m["clock_ms"], w["clock_ms"], "{family:?}");
        assert_eq!(m["family"], w["family"], "{family:?}");
        // Every record of the probe is answered alike.
        let marks = |s: &str| dedup(&[&flags[..], &["--mark"]].concat(), s, &probe());
        let (from_merge, from_whole) = (marks(&merged), marks(&whole));
        assert_eq!(from_merge.len(), from_whole.len());
        assert!(
            from_merge == from_whole,
            "{family:?}: the merged state answers differently"
        );
    }
}

#[test]
fn refused_merges_name_the_difference_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let [a, b, c, d, out] = ["a", "b", "c", "d", "out"].map(|n| path(dir.path(), n));
    let time = ["--within", "10m", "--exact"];
    dedup(&time, &a, &records(Some(0)));
    // Another hash key (a fresh state draws its own).
    dedup(&time, &b, &records(Some(1)));
    let (code, _, err) = run(&["merge", &a, &b, "-o", &out], b"");
    assert_eq!(code, 1);
    assert!(err.contains("hash key"), "{err}");
    assert!(!Path::new(&out).exists());
    // A count window.
    let count = [
        "dedup", "--window", "100", "--exact", "--seed", "1", "--state", &c,
    ];
    assert_eq!(run(&count, b"x\n").0, 0);
    std::fs::copy(&c, &d).unwrap();
    let (code, _, err) = run(&["merge", &c, &d, "-o", &out], b"");
    assert_eq!(code, 1);
    assert!(err.contains("count window"), "{err}");
    // Another window.
    let (code, _, err) = run(&["merge", &a, &c, "-o", &out], b"");
    assert_eq!(code, 1);
    assert!(err.contains("window") || err.contains("hash key"), "{err}");
    assert!(!Path::new(&out).exists());
    // A missing file, and one input only.
    let (code, _, err) = run(&["merge", &a, &path(dir.path(), "none"), "-o", &out], b"");
    assert_eq!(code, 1);
    assert!(err.contains("no state file"), "{err}");
    assert_eq!(run(&["merge", &a, "-o", &out], b"").0, 2);
}
