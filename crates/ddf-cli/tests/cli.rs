//! Integration tests: run the real `ddf` binary.

use proptest::prelude::*;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Stdio;

mod common;
use common::{ddf, run};

fn dedup(args: &[&str], input: &[u8]) -> Vec<u8> {
    let mut all = vec!["dedup"];
    all.extend_from_slice(args);
    let (code, out, err) = run(&all, input);
    assert_eq!(code, 0, "ddf {all:?} failed: {err}");
    out
}

#[test]
fn bytes_pass_through_exactly() {
    // CRLF kept as data, invalid UTF-8, NUL inside a line, no final newline.
    let input = b"a\r\nb\na\r\n\xff\xfe\nx\0y\n\xff\xfe\nb\na\nlast";
    assert_eq!(
        dedup(&[], input),
        b"a\r\nb\n\xff\xfe\nx\0y\na\nlast".to_vec()
    );
    // The unterminated last record is still a record: a repeat of it is dropped.
    assert_eq!(dedup(&[], b"q\nq"), b"q\n".to_vec());
    assert_eq!(dedup(&[], b""), b"".to_vec());
}

/// `ddf dedup --exact` as `awk '!seen[$0]++'` does it, on the records of
/// `input` split at `term` (a last record without terminator included).
fn first_occurrences(input: &[u8], term: u8) -> Vec<u8> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut rest = input;
    while !rest.is_empty() {
        let (rec, next, terminated) = match rest.iter().position(|&b| b == term) {
            Some(i) => (&rest[..i], &rest[i + 1..], true),
            None => (rest, &rest[rest.len()..], false),
        };
        if seen.insert(rec.to_vec()) {
            out.extend_from_slice(rec);
            if terminated {
                out.push(term);
            }
        }
        rest = next;
    }
    out
}

#[test]
fn records_longer_than_a_read_and_across_reads() {
    // Records of every length up to 300 KiB, so some straddle two or more
    // reads of the input thread (128 KiB each) and a CR falls on a boundary.
    let mut input = Vec::new();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for i in 0..3_000u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let len = match i % 500 {
            0 => 300_000,
            1 => 131_071,
            _ => (x % 90) as usize,
        };
        let byte = b'a' + (x % 7) as u8;
        input.extend(std::iter::repeat_n(byte, len));
        if x.is_multiple_of(5) {
            input.push(b'\r');
        }
        input.push(b'\n');
    }
    input.extend_from_slice(b"tail-without-terminator");
    assert_eq!(
        dedup(&["--exact"], &input),
        first_occurrences(&input, b'\n')
    );
    let zeroed: Vec<u8> = input
        .iter()
        .map(|&b| if b == b'\n' { 0 } else { b })
        .collect();
    assert_eq!(
        dedup(&["--exact", "-z"], &zeroed),
        first_occurrences(&zeroed, 0)
    );
}

#[test]
fn strip_cr_makes_crlf_and_lf_equal() {
    assert_eq!(dedup(&["--strip-cr"], b"a\r\na\nb\r\n"), b"a\nb\n".to_vec());
}

#[test]
fn nul_separated_records() {
    assert_eq!(
        dedup(&["-z"], b"x\ny\0x\ny\0z\0x\ny"),
        b"x\ny\0z\0".to_vec()
    );
}

#[test]
fn field_and_delimiter_like_cut() {
    let input = b"1,alice,x\n2,bob,y\n3,alice,z\n4\n";
    assert_eq!(
        dedup(&["-f", "2", "-d", ",", "--on-bad-record", "skip"], input),
        b"1,alice,x\n2,bob,y\n".to_vec()
    );
    assert_eq!(
        dedup(&["-f", "2", "-d", ",", "--on-bad-record", "keep"], input),
        b"1,alice,x\n2,bob,y\n4\n".to_vec()
    );
    // Tab is the default delimiter.
    assert_eq!(dedup(&["-f", "1"], b"k\t1\nk\t2\n"), b"k\t1\n".to_vec());
}

#[test]
fn json_pointer_keys_and_bad_records() {
    let input = b"{\"u\":{\"id\":\"a\"}}\n{\"u\":{\"id\":\"b\"}}\n{\"u\":{\"id\":\"a\"},\"x\":1}\nnot json\n{\"u\":{}}\n";
    assert_eq!(
        dedup(&["--json", "/u/id", "--on-bad-record", "skip"], input),
        b"{\"u\":{\"id\":\"a\"}}\n{\"u\":{\"id\":\"b\"}}\n".to_vec()
    );
    let (code, out, err) = run(&["dedup", "--json", "/u/id"], input);
    assert_eq!(code, 1);
    assert!(err.contains("<stdin>:4:"), "{err}");
    assert!(err.contains("not JSON"), "{err}");
    // Records before the bad one were written.
    assert_eq!(
        out,
        b"{\"u\":{\"id\":\"a\"}}\n{\"u\":{\"id\":\"b\"}}\n".to_vec()
    );
    // A number and a string are different keys.
    assert_eq!(
        dedup(&["--json", "/k"], b"{\"k\":7}\n{\"k\":\"7\"}\n{\"k\":7}\n"),
        b"{\"k\":7}\n{\"k\":\"7\"}\n".to_vec()
    );
}

#[test]
fn bad_record_in_a_file_names_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("events.jsonl");
    std::fs::write(&f, b"{\"id\":1}\n{\"id\":2}\n{\"x\":3}\n").unwrap();
    let (code, _, err) = run(&["dedup", "--json", "/id", f.to_str().unwrap()], b"");
    assert_eq!(code, 1);
    assert!(err.contains(&format!("{}:3:", f.display())), "{err}");
}

#[test]
fn count_window_forgets() {
    // Exact window of 2: `a` comes back after two others and is new again.
    let input = b"a\nb\nc\na\nc\n";
    assert_eq!(
        dedup(&["--exact", "--window", "2"], input),
        b"a\nb\nc\na\n".to_vec()
    );
    // An approximate window never misses a duplicate within the window.
    let out = dedup(&["--window", "1000", "--fpr", "1e-3", "--seed", "1"], input);
    assert_eq!(out, b"a\nb\nc\n".to_vec());
}

#[test]
fn time_window_from_the_record() {
    let input = b"a\t0\nb\t10\na\t50\na\t200\nb\t205\n";
    // Within 60 s: the second `a` (50 s) repeats; at 200 s it is new again.
    for extra in [&["--exact"][..], &["--seed", "3"][..]] {
        let mut args = vec!["--within", "60s", "--time-field", "2", "-f", "1"];
        args.extend_from_slice(extra);
        assert_eq!(
            dedup(&args, input),
            b"a\t0\nb\t10\na\t200\nb\t205\n".to_vec(),
            "{extra:?}"
        );
    }
    // JSON times: numbers in milliseconds and RFC 3339 strings.
    let input = b"{\"id\":1,\"ts\":1000}\n{\"id\":1,\"ts\":\"1970-01-01T00:00:05Z\"}\n{\"id\":1,\"ts\":9000}\n";
    assert_eq!(
        dedup(
            &["--exact", "--within", "3s", "--time-json", "/ts", "--time-unit", "ms", "--json", "/id"],
            input
        ),
        b"{\"id\":1,\"ts\":1000}\n{\"id\":1,\"ts\":\"1970-01-01T00:00:05Z\"}\n{\"id\":1,\"ts\":9000}\n"
            .to_vec()
    );
}

#[test]
fn time_window_by_arrival_clock() {
    // All records arrive within an hour of each other.
    assert_eq!(dedup(&["--within", "1h"], b"a\nb\na\n"), b"a\nb\n".to_vec());
}

#[test]
fn output_modes() {
    let input = b"a\nb\na\nc\nb\n";
    assert_eq!(dedup(&["--duplicates"], input), b"a\nb\n".to_vec());
    assert_eq!(
        dedup(&["--mark"], input),
        b"new\ta\nnew\tb\ndup\ta\nnew\tc\ndup\tb\n".to_vec()
    );
    assert_eq!(
        dedup(
            &["--mark", "--json", "/a", "--on-bad-record", "keep"],
            b"{\"a\":1}\nx\n"
        ),
        b"new\t{\"a\":1}\nbad\tx\n".to_vec()
    );
}

#[test]
fn stats_text_and_json() {
    let (code, _, err) = run(
        &["dedup", "--stats", "--window", "100", "--fpr", "1e-3"],
        b"a\nb\na\n",
    );
    assert_eq!(code, 0);
    assert!(err.contains("records 3, duplicates 1"), "{err}");
    assert!(err.contains("predicted FPR"), "{err}");
    let (code, _, err) = run(
        &[
            "dedup",
            "--stats-json",
            "--json",
            "/a",
            "--on-bad-record",
            "skip",
        ],
        b"{\"a\":1}\n{\"a\":1}\nbad\n",
    );
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(err.trim()).unwrap();
    assert_eq!(v["records"], 3);
    assert_eq!(v["duplicates"], 1);
    assert_eq!(v["bad_records"], 1);
    assert_eq!(v["filter"], "exact");
    assert_eq!(v["predicted_fpr"], 0.0);
    assert!(v["memory_bytes"].as_u64().is_some());
}

#[test]
fn verbose_prints_the_pick() {
    let (code, _, err) = run(
        &["dedup", "-v", "--window", "1000000", "--fpr", "1e-3"],
        b"",
    );
    assert_eq!(code, 0);
    assert!(
        err.contains("filter") && err.contains("predicted FPR"),
        "{err}"
    );
}

#[test]
fn filter_override_and_misses() {
    let (code, _, err) = run(
        &[
            "dedup", "-v", "--window", "1000", "--fpr", "1e-3", "--filter", "apbf",
            // The APBF's slack is k generations, beyond the default 1 %.
            "--slack", "1000",
        ],
        b"a\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("apbf"), "{err}");
    // QHT has false negatives: only with --misses-ok.
    let (code, _, err) = run(
        &[
            "dedup",
            "--distinct",
            "1000",
            "--max-memory",
            "4KiB",
            "--filter",
            "qht",
        ],
        b"a\n",
    );
    assert_eq!(code, 2, "{err}");
    let (code, out, err) = run(
        &[
            "dedup",
            "--distinct",
            "1000",
            "--max-memory",
            "4KiB",
            "--filter",
            "qht",
            "--misses-ok",
        ],
        b"a\na\n",
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, b"a\n".to_vec());
    // --slack bounds the planner's choice.
    let (code, _, err) = run(&["dedup", "-v", "--window", "1000", "--slack", "0"], b"");
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("slack 0"), "{err}");
}

#[test]
fn plan_table_and_json() {
    let (code, out, _) = run(&["plan", "--window", "1000000", "--fpr", "1e-3"], b"");
    assert_eq!(code, 0);
    let text = String::from_utf8(out).unwrap();
    for col in ["family", "memory", "FPR", "FNR", "slack", "accesses"] {
        assert!(text.contains(col), "{text}");
    }
    let (code, out, _) = run(&["plan", "--within", "1h", "--json"], b"");
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["window"]["ms"], 3_600_000);
    let c = v["candidates"].as_array().unwrap();
    assert!(!c.is_empty());
    assert!(c.iter().all(|c| c["fpr"].as_f64().unwrap() <= 1e-6));
}

/// The plan shows each candidate's predicted cost class, and marks the
/// candidates ranked after a cheaper one of about their memory: at a
/// window of 2^22 with any slack, the APBBF and APBF of many accesses
/// after the sliding Bloom filter.
#[test]
fn plan_shows_the_cost_class() {
    let args = [
        "plan", "--window", "4194304", "--fpr", "1e-3", "--slack", "4194304",
    ];
    let (code, out, err) = run(&args, b"");
    assert_eq!(code, 0, "{err}");
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("cost (one/batch)"), "{text}");
    let first = text.lines().find(|l| l.starts_with("1 ")).unwrap();
    assert!(
        first.contains("sliding") && first.contains(" lines DRAM ~"),
        "{text}"
    );
    assert!(text.contains("apbbf after sliding"), "{text}");
    let (code, out, _) = run(&[&args[..], &["--json"]].concat(), b"");
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let c = v["candidates"].as_array().unwrap();
    assert_eq!(c[0]["cost"]["dominated_by"], serde_json::Value::Null);
    assert_eq!(c[0]["cost"]["tier"], "DRAM");
    let apbbf = c.iter().find(|c| c["family"] == "apbbf").unwrap();
    assert_eq!(apbbf["cost"]["dominated_by"], "sliding");
    assert!(apbbf["cost"]["one_ns"].as_f64() > c[0]["cost"]["one_ns"].as_f64());
}

#[test]
fn exit_codes() {
    assert_eq!(run(&["dedup", "--no-such-flag"], b"").0, 2);
    assert_eq!(run(&["dedup", "--window", "5", "--within", "1s"], b"").0, 2);
    assert_eq!(run(&["dedup", "--within", "soon"], b"").0, 2);
    assert_eq!(run(&["dedup", "--max-memory", "lots"], b"").0, 2);
    // Fixed memory over the whole stream misses: it needs consent.
    assert_eq!(run(&["dedup", "--max-memory", "1MiB"], b"").0, 2);
    assert_eq!(run(&["dedup", "/no/such/file"], b"").0, 1);
    assert_eq!(run(&["inspect", "/no/such/file"], b"").0, 1);
}

#[test]
fn several_inputs_in_order_and_stdin_dash() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    std::fs::write(&a, b"x\ny").unwrap(); // no final newline
    std::fs::write(&b, b"y\nz\n").unwrap();
    let out = dedup(&[a.to_str().unwrap(), "-", b.to_str().unwrap()], b"w\nx\n");
    // `y` ends file a without a newline; one is added so it does not run
    // into the next input's records.
    assert_eq!(out, b"x\ny\nw\nz\n".to_vec());
}

#[test]
fn broken_pipe_is_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("big");
    let mut text = String::new();
    for i in 0..200_000 {
        text.push_str(&format!("{i}\n"));
    }
    std::fs::write(&f, text).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("ddf");
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "set -o pipefail; '{}' dedup '{}' | head -1",
            bin.display(),
            f.display()
        ))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", out);
    assert_eq!(out.stdout, b"0\n");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn state_flags(state: &str) -> Vec<&str> {
    vec![
        "dedup", "--mark", "--window", "50", "--fpr", "1e-2", "--seed", "5", "--state", state,
    ]
}

/// `n` lines over a small alphabet, so that windows see repeats.
fn lines(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed;
    let mut out = Vec::new();
    for _ in 0..n {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        out.extend_from_slice(format!("k{}\n", (x >> 33) % 97).as_bytes());
    }
    out
}

#[test]
fn state_resumes_like_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("s.ddf");
    let s = state.to_str().unwrap();
    let input = lines(2000, 7);
    let cut = input[..input.len() / 2]
        .iter()
        .rposition(|&b| b == b'\n')
        .unwrap()
        + 1;
    let (code, whole, _) = run(&state_flags(dir.path().join("w").to_str().unwrap()), &input);
    assert_eq!(code, 0);
    let (code, mut first, _) = run(&state_flags(s), &input[..cut]);
    assert_eq!(code, 0);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&state).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let (code, second, _) = run(&state_flags(s), &input[cut..]);
    assert_eq!(code, 0);
    first.extend(second);
    // Same key (the seed), same verdicts as one uninterrupted run.
    assert_eq!(first, whole);
    // The exact window's verdicts do not depend on the key: resuming with
    // the random key kept in the state matches a run with another key.
    let exact = |st: &str, inp: &[u8]| {
        run(
            &[
                "dedup", "--mark", "--exact", "--window", "50", "--state", st,
            ],
            inp,
        )
    };
    let e = dir.path().join("e.ddf");
    let e = e.to_str().unwrap();
    let (_, mut a, _) = exact(e, &input[..cut]);
    let (_, b, _) = exact(e, &input[cut..]);
    a.extend(b);
    let (_, all, _) = run(&["dedup", "--mark", "--exact", "--window", "50"], &input);
    assert_eq!(a, all);
}

/// Every family the planner offers has a `--filter` name: the blocked
/// APBF is chosen by name, saved, and named again by `inspect`.
#[test]
fn the_blocked_apbf_is_a_filter_name() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("b.ddf");
    let s = state.to_str().unwrap();
    let (code, out, err) = run(
        &[
            "dedup", "-v", "--window", "1000", "--fpr", "1e-3", "--filter", "apbbf",
            // Its slack is k generations, beyond the default 1 %.
            "--slack", "1000", "--state", s,
        ],
        b"a\nb\na\n",
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, b"a\nb\n");
    assert!(err.contains("apbbf"), "{err}");
    let (code, out, err) = run(&["inspect", s, "--json"], b"");
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["family"], "apbbf", "{v}");
}

#[test]
fn inspect_describes_and_hides_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("s.ddf");
    let s = state.to_str().unwrap();
    let (code, _, _) = run(
        &["dedup", "--within", "10m", "--state", s, "--seed", "42"],
        b"a\nb\na\n",
    );
    assert_eq!(code, 0);
    let key: String = ddf::KeyedSipHasher::with_seed(42)
        .key()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let bytes = std::fs::read(&state).unwrap();
    assert!(
        bytes
            .windows(16)
            .any(|w| w == ddf::KeyedSipHasher::with_seed(42).key())
    );
    for args in [vec!["inspect", s], vec!["inspect", s, "--json"]] {
        let (code, out, err) = run(&args, b"");
        assert_eq!(code, 0, "{err}");
        let text = String::from_utf8(out).unwrap();
        assert!(!text.to_lowercase().contains(&key), "{text}");
        assert!(
            text.contains("records") && text.contains("600000"),
            "{text}"
        );
    }
    let (_, out, _) = run(&["inspect", s, "--json"], b"");
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["records_seen"], 3);
    assert_eq!(v["state_version"], 2);
    assert!(v["clock_ms"].as_u64().unwrap() > 1_600_000_000_000);
}

#[test]
fn mismatched_state_is_an_error_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("s.ddf");
    let s = state.to_str().unwrap();
    assert_eq!(
        run(
            &["dedup", "--exact", "--window", "10", "--state", s],
            b"a\n"
        )
        .0,
        0
    );
    let before = std::fs::read(&state).unwrap();
    let (code, _, err) = run(
        &["dedup", "--exact", "--window", "20", "--state", s],
        b"a\n",
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("last 10 records") && err.contains("last 20 records"),
        "{err}"
    );
    let (code, _, err) = run(
        &["dedup", "--window", "10", "--filter", "shf", "--state", s],
        b"a\n",
    );
    assert_eq!(code, 1);
    assert!(err.contains("exact") && err.contains("shf"), "{err}");
    assert_eq!(std::fs::read(&state).unwrap(), before, "left untouched");
    // --reset replaces it.
    let (code, out, _) = run(
        &[
            "dedup", "--exact", "--window", "20", "--state", s, "--reset",
        ],
        b"a\n",
    );
    assert_eq!((code, out), (0, b"a\n".to_vec()));
}

#[test]
fn corrupt_state_is_an_error_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("s.ddf");
    let s = state.to_str().unwrap();
    assert_eq!(
        run(&["dedup", "--window", "10", "--state", s], b"a\nb\n").0,
        0
    );
    let good = std::fs::read(&state).unwrap();
    let mut cases: Vec<Vec<u8>> = vec![
        b"".to_vec(),
        b"garbage".to_vec(),
        good[..good.len() / 2].to_vec(),
    ];
    for i in [0, 9, 20, good.len() / 2, good.len() - 1] {
        let mut bad = good.clone();
        bad[i] ^= 0x40;
        cases.push(bad);
    }
    for bad in cases {
        std::fs::write(&state, &bad).unwrap();
        let (code, out, err) = run(&["dedup", "--window", "10", "--state", s], b"a\n");
        assert_eq!(code, 1, "{err}");
        assert!(out.is_empty());
        assert!(err.contains("corrupt"), "{err}");
        assert_eq!(std::fs::read(&state).unwrap(), bad, "never overwritten");
        assert_eq!(run(&["inspect", s], b"").0, 1);
    }
}

/// Reads `n` lines of `ddf --mark` output.
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

fn signal(pid: u32, sig: &str) {
    let ok = std::process::Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
}

/// State saved on SIGTERM mid-stream, resumed: the verdicts equal one
/// uninterrupted run (same key, so even approximate filters agree).
#[test]
fn sigterm_saves_state_and_resume_matches() {
    for (window, sig, status) in [("--window", "-TERM", 143), ("--within", "-INT", 130)] {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("s.ddf");
        let s = state.to_str().unwrap();
        let span = if window == "--window" { "100" } else { "1h" };
        let flags = [
            "dedup", "--mark", window, span, "--fpr", "1e-2", "--seed", "9",
        ];
        let input = lines(3000, 11);
        let n_first = 1700;
        let cut = input
            .iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'\n')
            .nth(n_first - 1)
            .unwrap()
            .0
            + 1;
        let (_, whole, _) = run(&flags, &input);
        let bin = assert_cmd::cargo::cargo_bin("ddf");
        let mut child = std::process::Command::new(bin)
            .args(flags)
            .args(["--state", s])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(&input[..cut]).unwrap();
        stdin.flush().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        // Every record of the first part has its verdict out: stop now,
        // with standard input still open.
        let mut got = read_lines(&mut stdout, n_first);
        signal(child.id(), sig);
        let done = child.wait().unwrap();
        drop(stdin);
        assert_eq!(done.code(), Some(status));
        assert!(Path::new(&state).exists());
        let (code, rest, err) = run(&[&flags[..], &["--state", s]].concat(), &input[cut..]);
        assert_eq!(code, 0, "{err}");
        got.extend(rest);
        assert_eq!(
            String::from_utf8(got).unwrap(),
            String::from_utf8(whole).unwrap(),
            "{window}"
        );
    }
}

#[test]
fn checkpoint_saves_while_running() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("s.ddf");
    let bin = assert_cmd::cargo::cargo_bin("ddf");
    let mut child = std::process::Command::new(bin)
        .args([
            "dedup",
            "--window",
            "10",
            "--checkpoint",
            "100ms",
            "--state",
        ])
        .arg(&state)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"a\nb\n").unwrap();
    stdin.flush().unwrap();
    let mut seen = false;
    for _ in 0..100 {
        std::thread::sleep(std::time::Duration::from_millis(50));
        if state.exists() {
            seen = true;
            break;
        }
    }
    assert!(seen, "no checkpoint while the input stays open");
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let (_, out, _) = run(&["inspect", state.to_str().unwrap(), "--json"], b"");
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["records_seen"], 2);
}

#[test]
fn help_is_complete() {
    let (code, out, _) = run(&["--help"], b"");
    assert_eq!(code, 0);
    let text = String::from_utf8(out).unwrap();
    for s in ["dedup", "plan", "inspect", "Exit codes", "143"] {
        assert!(text.contains(s), "{s}: {text}");
    }
    let (_, out, _) = run(&["dedup", "--help"], b"");
    let text = String::from_utf8(out).unwrap();
    for s in [
        "--window",
        "--within",
        "--fpr",
        "1e-6",
        "--max-memory",
        "--exact",
        "--slack",
        "--filter",
        "--misses-ok",
        "--duplicates",
        "--mark",
        "--stats",
        "--stats-json",
        "--progress",
        "--state",
        "--checkpoint",
        "--reset",
        "--json",
        "--time-json",
        "--time-field",
        "--on-bad-record",
        "-z",
        "--field",
        "--delimiter",
        "Exit codes",
    ] {
        assert!(text.contains(s), "{s} missing from dedup --help");
    }
}

/// The brute-force window: a record is a duplicate when its line is among
/// the previous `w` records.
fn brute_force(input: &[Vec<u8>], w: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, line) in input.iter().enumerate() {
        let lo = i.saturating_sub(w);
        if !input[lo..i].contains(line) {
            out.extend_from_slice(line);
            out.push(b'\n');
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn exact_window_equals_brute_force(
        lines in proptest::collection::vec(proptest::collection::vec(
            prop_oneof![Just(b'a'), Just(b'b'), Just(b'\r'), Just(0xffu8), Just(0u8)], 0..3), 0..200),
        w in 1usize..30,
    ) {
        let mut input = Vec::new();
        for l in &lines {
            input.extend_from_slice(l);
            input.push(b'\n');
        }
        let out = dedup(&["--exact", "--window", &w.to_string()], &input);
        prop_assert_eq!(out, brute_force(&lines, w));
    }
}

#[test]
fn progress_only_when_asked_off_a_terminal() {
    let (code, _, err) = run(&["dedup"], b"a\nb\na\n");
    assert_eq!(code, 0);
    assert!(err.is_empty(), "{err}");
    let (code, _, err) = run(&["dedup", "--progress"], b"a\nb\na\n");
    assert_eq!(code, 0);
    assert!(
        err.contains("3 records") && err.contains("duplicates"),
        "{err}"
    );
}

#[test]
fn memory_budget_alone_bounds_every_candidate() {
    let (code, out, err) = run(
        &[
            "plan",
            "--window",
            "100000",
            "--max-memory",
            "64KiB",
            // Five bits per item fit only filters with a wide slack.
            "--slack",
            "100000",
            "--json",
        ],
        b"",
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let c = v["candidates"].as_array().unwrap();
    assert!(!c.is_empty());
    for x in c {
        assert!(x["memory_bytes"].as_u64().unwrap() <= 64 * 1024, "{x}");
    }
    // The run uses the first of them.
    let (code, _, err) = run(
        &[
            "dedup",
            "-v",
            "--window",
            "100000",
            "--max-memory",
            "64KiB",
            "--slack",
            "100000",
        ],
        b"a\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.contains(c[0]["family"].as_str().unwrap()), "{err}");
}

/// The brute-force time window: a record is a duplicate when its key was
/// seen less than `span` seconds before its own time.
fn brute_force_time(records: &[(u8, u64)], span: u64) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, &(k, t)) in records.iter().enumerate() {
        let dup = records[..i]
            .iter()
            .any(|&(k2, t2)| k2 == k && t - t2 < span);
        if !dup {
            out.extend_from_slice(format!("{k}\t{t}\n").as_bytes());
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn exact_time_window_equals_brute_force(
        steps in proptest::collection::vec((0u8..6, 0u64..4), 0..150),
        span in 1u64..10,
    ) {
        // Non-decreasing times: each record a few seconds after the last.
        let mut t = 1_000;
        let mut records = Vec::new();
        for (k, dt) in steps {
            t += dt;
            records.push((k, t));
        }
        let mut input = Vec::new();
        for (k, t) in &records {
            input.extend_from_slice(format!("{k}\t{t}\n").as_bytes());
        }
        let span_s = format!("{span}s");
        let out = dedup(
            &["--exact", "--within", &span_s, "--time-field", "2", "-f", "1"],
            &input,
        );
        prop_assert_eq!(
            String::from_utf8(out).unwrap(),
            String::from_utf8(brute_force_time(&records, span)).unwrap()
        );
    }
}

/// The JSON Lines example of the README, byte for byte.
#[test]
fn readme_json_lines_example() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let block = readme
        .split("$ cat events.jsonl\n")
        .nth(1)
        .expect("the README shows events.jsonl");
    let (input, rest) = block.split_once("$ ddf dedup").unwrap();
    let (cmd, rest) = rest.split_once('\n').unwrap();
    let expected = rest.split("```").next().unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("events.jsonl"), input).unwrap();
    let args: Vec<&str> = std::iter::once("dedup")
        .chain(cmd.split_whitespace())
        .collect();
    let out = ddf().args(&args).current_dir(dir.path()).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);
}

/// The whole stream in fixed memory, misses allowed, no count of distinct
/// keys: the planner's filters that forget, rated at saturation.
#[test]
fn fixed_memory_over_the_whole_stream_with_misses_allowed() {
    let mut input = String::new();
    for i in 0..20_000 {
        input.push_str(&format!("k{}\n", i % 5_000));
    }
    let out = dedup(&["--max-memory", "1MiB", "--misses-ok"], input.as_bytes());
    let kept: Vec<&str> = std::str::from_utf8(&out).unwrap().lines().collect();
    // 5,000 distinct keys in 1 MiB: each kept about once. The first choice
    // (QHT, one 7-bit cell per row, about 1.2 million rows) drops a key
    // when another lands in its row, about 5,000/1.2e6 of the 15,000
    // repeats (some 60 kept again), and reports a new key with probability
    // at most 1/127 times the rows filled (under 1).
    assert!((4_990..=5_200).contains(&kept.len()), "{}", kept.len());
    assert!(
        kept.iter()
            .take(5_000)
            .collect::<std::collections::HashSet<_>>()
            .len()
            >= 4_990
    );
    assert!(kept.windows(2).all(|w| w[0] != w[1]));
    let (code, out, err) = run(
        &["plan", "--max-memory", "1MiB", "--misses-ok", "--json"],
        b"",
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let c = v["candidates"].as_array().unwrap();
    let mut families: Vec<&str> = c.iter().map(|c| c["family"].as_str().unwrap()).collect();
    families.sort_unstable();
    assert_eq!(
        families,
        [
            "a2",
            "cuckoo",
            "qht",
            "qhtd",
            "qqhtd",
            "sqf",
            "stable-bloom"
        ]
    );
    assert!(
        c.iter()
            .all(|c| c["saturated"] == true && c["fpr"].as_f64().unwrap() <= 0.01)
    );
    let (code, out, _) = run(&["plan", "--max-memory", "1MiB", "--misses-ok"], b"");
    assert_eq!(code, 0);
    assert!(String::from_utf8_lossy(&out).contains("saturation"));
    // Any of them by name, and its state saved and named again.
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("s.ddf");
    let s = state.to_str().unwrap();
    let args = [
        "dedup",
        "--max-memory",
        "1MiB",
        "--misses-ok",
        "--filter",
        "sqf",
        "--state",
        s,
    ];
    assert_eq!(
        run(&args, b"a\nb\na\n"),
        (0, b"a\nb\n".to_vec(), String::new())
    );
    let (code, out, _) = run(&["inspect", s, "--json"], b"");
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["family"], "sqf");
}

/// `--max-memory` alone over the whole stream: one line saying why every
/// fixed-memory filter misses and what to add.
#[test]
fn fixed_memory_without_consent_to_misses_says_why_in_one_line() {
    let (code, out, err) = run(&["dedup", "--max-memory", "64MiB"], b"a\n");
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    for needed in [
        "fixed memory",
        "forget",
        "--misses-ok",
        "--window",
        "--within",
        "--distinct",
    ] {
        assert!(err.contains(needed), "{needed}: {err}");
    }
}

/// Runs `ddf ARGS` with its address space capped at `bytes` (`prlimit`,
/// util-linux): a reader that allocates what a path streams fails there.
fn run_capped(bytes: u64, args: &[&str]) -> (i32, String) {
    let bin = assert_cmd::cargo::cargo_bin("ddf");
    let out = std::process::Command::new("prlimit")
        .arg(format!("--as={bytes}"))
        .arg("--")
        .arg(bin)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("prlimit (util-linux) runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A state path that never ends (`/dev/zero`) or lies about its lengths
/// ends with a clear error, read no further than its header, within an
/// address space of 256 MiB (the binary's own mappings and thread stacks
/// take some tens of MiB; reading `/dev/zero` to its end takes all).
#[test]
fn endless_or_lying_state_files_end_with_a_clear_error_in_bounded_memory() {
    const CAP: u64 = 256 << 20;
    let (code, err) = run_capped(CAP, &["dedup", "--state", "/dev/zero"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("/dev/zero") && err.contains("not a regular file"),
        "{err}"
    );
    let (code, err) = run_capped(CAP, &["inspect", "/dev/zero"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("not a regular file"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    // Zeros in a regular file: not a state file.
    let zeros = dir.path().join("zeros");
    std::fs::write(&zeros, vec![0u8; 1 << 20]).unwrap();
    let (code, err) = run_capped(CAP, &["inspect", zeros.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("bad magic"), "{err}");
    // A real state whose snapshot length claims 2^36 bytes.
    let state = dir.path().join("s.ddf");
    let s = state.to_str().unwrap();
    dedup(&["--window", "100", "--state", s], b"a\nb\n");
    let mut bytes = std::fs::read(&state).unwrap();
    // Layout 2: the snapshot's length follows the metadata.
    let meta = u32::from_le_bytes(bytes[10..14].try_into().unwrap()) as usize;
    let at = 14 + meta;
    bytes[at..at + 8].copy_from_slice(&(1u64 << 36).to_le_bytes());
    std::fs::write(&state, &bytes).unwrap();
    let (code, err) = run_capped(CAP, &["inspect", s]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("beyond the file"), "{err}");
}

/// A state file of layout 1 (written by the command before layout 2, the
/// fixture of `ddf::state`) resumes: its records are remembered, `inspect`
/// names its layout, and the file is saved again in layout 2.
#[test]
fn a_layout_1_state_file_resumes_and_is_saved_in_layout_2() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("old.ddfstate");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ddf/tests/data/state-v1.ddfstate");
    std::fs::copy(&fixture, &state).unwrap();
    let s = state.to_str().unwrap();
    let (code, _, err) = run(&["inspect", s], b"");
    assert_eq!(code, 0, "{err}");
    let (_, info, _) = run(&["inspect", s], b"");
    assert!(String::from_utf8_lossy(&info).contains("state layout 1"));
    // Written by `--window 1000 --fpr 0.01` from order-1, order-2, order-1, order-3.
    let out = dedup(
        &["--window", "1000", "--fpr", "0.01", "--state", s],
        b"order-1\norder-4\norder-3\norder-5\n",
    );
    assert_eq!(out, b"order-4\norder-5\n");
    let (_, info, _) = run(&["inspect", s], b"");
    let info = String::from_utf8_lossy(&info);
    assert!(info.contains("state layout 2"), "{info}");
    assert!(info.contains("records seen: 8"), "{info}");
}

/// A state resumes under the flags that made it, whatever window the
/// planner rounded to: every planned family of a count window, and the
/// time-window ones, run twice with the same flags.
#[test]
fn every_planned_family_resumes_under_its_own_flags() {
    let dir = tempfile::tempdir().unwrap();
    let first = b"k1\t1700000000\nk2\t1700000001\nk1\t1700000002\n";
    let second = b"k1\t1700000003\nk3\t1700000004\nk2\t1700000005\n";
    let mut runs: Vec<Vec<String>> = Vec::new();
    // Every family `ddf plan` offers for these flags, each named.
    for (window, extra) in [
        (vec!["--window", "1000", "--slack", "1000"], vec![]),
        (
            vec!["--within", "1m", "--rate", "10", "--slack", "1m"],
            vec!["--time-field", "2"],
        ),
    ] {
        let mut plan_args = vec!["plan", "--json", "--fpr", "0.01"];
        plan_args.extend(&window);
        plan_args.push("--misses-ok");
        let (code, out, err) = run(&plan_args, b"");
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        for c in v["candidates"].as_array().unwrap() {
            let mut flags: Vec<String> = ["--fpr", "0.01", "--misses-ok", "--field", "1"]
                .iter()
                .chain(&window)
                .chain(&extra)
                .map(|s| s.to_string())
                .collect();
            flags.push("--filter".into());
            flags.push(c["family"].as_str().unwrap().into());
            runs.push(flags);
        }
    }
    assert!(runs.len() >= 6, "{runs:?}");
    for (i, flags) in runs.iter().enumerate() {
        let state = dir.path().join(format!("s{i}.ddf"));
        let mut args: Vec<&str> = vec!["dedup", "--state", state.to_str().unwrap()];
        args.extend(flags.iter().map(String::as_str));
        let (code, out, err) = run(&args, first);
        assert_eq!(code, 0, "{flags:?}: {err}");
        assert_eq!(out, b"k1\t1700000000\nk2\t1700000001\n", "{flags:?}");
        let (code, out, err) = run(&args, second);
        assert_eq!(code, 0, "{flags:?} resumed: {err}");
        assert_eq!(out, b"k3\t1700000004\n", "{flags:?} resumed");
    }
}

/// The issue's example: an APBF planned for `--window 1000` holds 1008,
/// and resumes under the same flags.
#[test]
fn an_apbf_state_resumes_under_the_flags_that_made_it() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("st.ddf");
    let s = state.to_str().unwrap();
    let flags = [
        "--window", "1000", "--fpr", "0.01", "--filter", "apbf", "--slack", "1000", "--state", s,
    ];
    assert_eq!(dedup(&flags, b"a\nb\na\n"), b"a\nb\n");
    assert_eq!(dedup(&flags, b"a\nc\n"), b"c\n");
    // Other flags are still refused, naming both filters.
    let (code, _, err) = run(
        &["dedup", "--window", "2000", "--fpr", "0.01", "--state", s],
        b"a\n",
    );
    assert_eq!(code, 1);
    assert!(err.contains("apbf") && err.contains("--reset"), "{err}");
}

/// States written before the metadata recorded the request (the command
/// at the previous commit of this format: `tests/data/meta-v0-*.ddfstate`)
/// still load and resume under the flags that made them when the filter
/// they would choose is the one held.
#[test]
fn states_without_a_recorded_request_still_resume() {
    let dir = tempfile::tempdir().unwrap();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    // Written by `--window 1000 --fpr 0.01 --filter apbf --slack 1000 --seed 7`
    // from order-1, order-2, order-1, order-3.
    let apbf = dir.path().join("apbf.ddf");
    std::fs::copy(data.join("meta-v0-apbf.ddfstate"), &apbf).unwrap();
    let out = dedup(
        &[
            "--window",
            "1000",
            "--fpr",
            "0.01",
            "--filter",
            "apbf",
            "--slack",
            "1000",
            "--state",
            apbf.to_str().unwrap(),
        ],
        b"order-1\norder-4\norder-3\n",
    );
    assert_eq!(out, b"order-4\n");
    // Written by `--within 1m --rate 10 --fpr 0.01 --field 1 --time-field 2
    // --seed 7` from a@1700000000, b@1700000001, a@1700000002.
    let timed = dir.path().join("time.ddf");
    std::fs::copy(data.join("meta-v0-time.ddfstate"), &timed).unwrap();
    let out = dedup(
        &[
            "--within",
            "1m",
            "--rate",
            "10",
            "--fpr",
            "0.01",
            "--field",
            "1",
            "--time-field",
            "2",
            "--state",
            timed.to_str().unwrap(),
        ],
        b"a\t1700000010\nc\t1700000011\nb\t1700000100\n",
    );
    assert_eq!(out, b"c\t1700000011\nb\t1700000100\n");
    let (_, info, _) = run(&["inspect", "--json", timed.to_str().unwrap()], b"");
    let v: serde_json::Value = serde_json::from_slice(&info).unwrap();
    assert_eq!(v["records_seen"], 6);
}
