//! `ddf dedup --threads`: the real binary, run on inputs of many blocks
//! (a block is about 128 KiB), compared across thread counts.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Stdio;

mod common;
use common::run;

/// `ddf dedup --threads N ARGS` on `input`; its output, after checking it
/// succeeded.
fn dedup(threads: usize, args: &[&str], input: &[u8]) -> Vec<u8> {
    let n = threads.to_string();
    let all = [&["dedup", "--threads", &n], args].concat();
    let (code, out, err) = run(&all, input);
    assert_eq!(code, 0, "ddf {all:?} failed: {err}");
    out
}

/// `n` tab-separated records `key<TAB>time<TAB>payload`: keys from a
/// seeded generator over `keys` values, times in seconds that mostly rise
/// and sometimes step back (a late record), payloads of varying length so
/// records straddle the reads.
fn records(n: usize, keys: u64, seed: u64) -> Vec<u8> {
    let mut x = seed;
    let mut out = Vec::new();
    for i in 0..n as u64 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let key = (x >> 33) % keys;
        let late = if (x >> 20).is_multiple_of(13) { 40 } else { 0 };
        let time = (i / 16).saturating_sub(late);
        let pad = "p".repeat(((x >> 40) % 40) as usize);
        out.extend_from_slice(format!("k{key}\t{time}\t{pad}\n").as_bytes());
    }
    out
}

/// With the exact filter the output does not depend on `--threads`, byte
/// for byte, in every window and output mode; and the thread counts give
/// the same `--stats-json` counts.
#[test]
fn exact_output_is_the_same_for_every_thread_count() {
    let input = records(120_000, 40_000, 3);
    let cases: &[&[&str]] = &[
        &[],
        &["--exact", "-f", "1"],
        &["--exact", "--window", "5000", "-f", "1"],
        &["--exact", "--window", "1", "-f", "1", "--mark"],
        &["--exact", "--window", "1000000", "-f", "1", "--duplicates"],
        &["--exact", "--within", "60s", "--time-field", "2", "-f", "1"],
        &["--exact", "--within", "1h", "-f", "1", "--mark"],
        &["-f", "1", "--duplicates"],
        &["-f", "3", "--mark", "--on-bad-record", "keep"],
    ];
    for args in cases {
        let one = dedup(1, args, &input);
        assert!(!one.is_empty());
        for n in [2, 3, 8] {
            assert!(one == dedup(n, args, &input), "--threads {n} {args:?}");
        }
    }
}

/// `--stats-json` with the sharded exact count window reports the bound
/// of one window of `w + 1` timed items, not sixteen of them: at most
/// twice the one-thread count window's (64 bits of position per item).
#[test]
fn sharded_exact_window_memory_is_one_window() {
    let input = records(20_000, 5_000, 11);
    let memory = |n: usize| {
        let flag = format!("--threads={n}");
        let args = [
            "dedup",
            &flag,
            "--exact",
            "--window",
            "100000",
            "--stats-json",
        ];
        let (code, _, err) = run(&args, &input);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(err.lines().last().unwrap()).unwrap();
        v["memory_bytes"].as_u64().unwrap()
    };
    let (one, four) = (memory(1), memory(4));
    assert!(one <= four && four < 2 * one, "{one} {four}");
}

/// Several inputs, an unterminated last record and NUL terminators keep
/// their bytes under any thread count.
#[test]
fn files_and_terminators_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    let mut first = records(30_000, 5_000, 1);
    first.extend_from_slice(b"no-terminator");
    std::fs::write(&a, &first).unwrap();
    std::fs::write(&b, records(30_000, 5_000, 2)).unwrap();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let one = dedup(1, &["-f", "1", a, b], b"");
    assert!(one.windows(14).any(|w| w == b"no-terminator\n"));
    for n in [2, 5] {
        assert!(one == dedup(n, &["-f", "1", a, b], b""), "--threads {n}");
    }
    let zeroed: Vec<u8> = records(40_000, 9_000, 4)
        .iter()
        .map(|&c| if c == b'\n' { 0 } else { c })
        .collect();
    assert_eq!(dedup(1, &["-z"], &zeroed), dedup(4, &["-z"], &zeroed));
}

/// A planned filter (one filtering thread, its promises as planned) gives
/// the same verdicts for every thread count under one seed, and a note
/// says it filters on one thread.
#[test]
fn planned_filters_keep_one_filtering_thread() {
    let input = records(60_000, 20_000, 5);
    for args in [
        &[
            "--window", "10000", "--fpr", "1e-3", "--seed", "4", "-f", "1", "--mark",
        ][..],
        &[
            "--within",
            "30s",
            "--time-field",
            "2",
            "--seed",
            "4",
            "-f",
            "1",
            "--mark",
        ],
        &[
            "--window", "4000", "--filter", "shf", "--seed", "4", "-f", "1", "--mark",
        ],
    ] {
        let one = dedup(1, args, &input);
        let all = [&["dedup", "--threads", "3"], args].concat();
        let (code, three, err) = run(&all, &input);
        assert_eq!(code, 0, "{err}");
        assert!(one == three, "{args:?}");
        assert!(err.contains("one filtering thread"), "{err}");
    }
}

/// A record that stops the run names its input and line, as with one
/// thread, and the records before it are written.
#[test]
fn bad_record_line_is_the_same() {
    let mut input = records(50_000, 1_000, 6);
    input.extend_from_slice(b"no-key-field\n");
    input.extend(records(10_000, 1_000, 7));
    let args = ["dedup", "-f", "2", "--exact"];
    let (c1, o1, e1) = run(&[&args[..], &["--threads", "1"]].concat(), &input);
    let (c3, o3, e3) = run(&[&args[..], &["--threads", "3"]].concat(), &input);
    assert_eq!((c1, c3), (1, 1));
    assert!(e1.contains("<stdin>:50001: bad record"), "{e1}");
    assert_eq!(e1, e3);
    assert!(o1 == o3);
}

#[test]
fn bad_thread_counts_are_usage_errors() {
    for bad in ["0", "-1", "two", "65", "1e9", ""] {
        let flag = format!("--threads={bad}");
        let (code, _, err) = run(&["dedup", &flag], b"a\n");
        assert_eq!(code, 2, "--threads {bad:?}: {err}");
        assert!(
            err.contains("a whole number from 1 to 64"),
            "--threads {bad:?}: {err}"
        );
    }
    assert_eq!(dedup(64, &[], b"a\na\n"), b"a\n");
}

/// A state saved by a run on some thread count resumes on another with
/// the verdicts of one uninterrupted run on one thread.
#[test]
fn state_resumes_across_thread_counts() {
    let input = records(80_000, 30_000, 8);
    let cut = input[..input.len() / 2]
        .iter()
        .rposition(|&b| b == b'\n')
        .unwrap()
        + 1;
    for args in [
        &[
            "--window", "20000", "--fpr", "1e-4", "--seed", "2", "-f", "1", "--mark",
        ][..],
        &["--exact", "-f", "1", "--mark"],
        &[
            "--exact",
            "--within",
            "90s",
            "--time-field",
            "2",
            "-f",
            "1",
            "--mark",
        ],
    ] {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("s.ddf");
        let s = state.to_str().unwrap();
        let whole = dedup(1, args, &input);
        let with_state = [args, &["--state", s]].concat();
        let mut got = dedup(2, &with_state, &input[..cut]);
        got.extend(dedup(3, &with_state, &input[cut..]));
        assert!(got == whole, "{args:?}");
    }
}

fn read_lines(r: &mut impl BufRead, n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..n {
        let mut line = Vec::new();
        assert!(
            r.read_until(b'\n', &mut line).unwrap() > 0,
            "output ended early"
        );
        out.extend(line);
    }
    out
}

/// SIGTERM mid-stream on several threads: the state is saved, every
/// record read before the signal has its verdict written, and a resume
/// gives one uninterrupted run's verdicts. Without `--state` (the sharded
/// exact filter), the output is a prefix of the whole run's, holding at
/// least the records whose verdicts were out before the signal.
#[test]
fn sigterm_on_several_threads_loses_nothing() {
    let input = records(40_000, 10_000, 9);
    let n_first = 25_000;
    let cut = input
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .nth(n_first - 1)
        .unwrap()
        .0
        + 1;
    for state in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.ddf");
        let s = path.to_str().unwrap();
        let flags = ["dedup", "--threads", "3", "--mark", "-f", "1", "--exact"];
        let (_, whole, _) = run(&flags, &input);
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("ddf"));
        cmd.args(flags);
        if state {
            cmd.args(["--state", s]);
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Written from another thread: the output is read meanwhile, so
        // neither pipe fills up. Standard input stays open.
        let mut stdin = child.stdin.take().unwrap();
        let first = input[..cut].to_vec();
        let writer = std::thread::spawn(move || {
            stdin.write_all(&first).unwrap();
            stdin.flush().unwrap();
            stdin
        });
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut got = read_lines(&mut stdout, n_first);
        let stdin = writer.join().unwrap();
        let ok = std::process::Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(ok.success());
        let mut rest = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut rest).unwrap();
        let done = child.wait().unwrap();
        drop(stdin);
        assert_eq!(done.code(), Some(143));
        got.extend(rest);
        assert!(whole.starts_with(&got), "state {state}");
        if state {
            assert!(Path::new(&path).exists());
            let again = [&flags[..], &["--state", s]].concat();
            let (code, tail, err) = run(&again, &input[cut..]);
            assert_eq!(code, 0, "{err}");
            assert_eq!(got.len() + tail.len(), whole.len());
            got.extend(tail);
            assert!(got == whole);
        }
    }
}

/// The state file is the same bytes whatever `--threads` wrote it.
#[test]
fn state_file_does_not_depend_on_threads() {
    let input = records(50_000, 20_000, 10);
    for args in [
        &["--exact", "-f", "1", "--seed", "5"][..],
        &[
            "--window", "30000", "--fpr", "1e-3", "-f", "1", "--seed", "5",
        ],
    ] {
        let dir = tempfile::tempdir().unwrap();
        let files: Vec<Vec<u8>> = [1, 2, 5]
            .iter()
            .map(|&n| {
                let path = dir.path().join(format!("s{n}.ddf"));
                let s = path.to_str().unwrap();
                dedup(n, &[args, &["--state", s]].concat(), &input);
                std::fs::read(&path).unwrap()
            })
            .collect();
        assert!(files[0] == files[1] && files[1] == files[2], "{args:?}");
    }
}
