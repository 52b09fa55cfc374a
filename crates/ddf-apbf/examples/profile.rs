//! A fixed workload per operation for instruction counts and cache
//! simulation under valgrind (wall-clock speed under other load is noise;
//! counts are not):
//!
//! ```text
//! cargo build --release -p ddf-apbf --example profile
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*work*' \
//!     target/release/examples/profile apbf observe l2 100000
//! ```
//!
//! Arguments: `apbf` or `apbbf` (the shapes of `cargo xtask bench`), the
//! operation (`insert`, `absent`, `present`, `observe`, `batch`,
//! `batch_at` (the timed batch at one time), `absent1` and `present1`
//! (Algorithm 1 alone)), `l2`
//! (1 Mbit) or `dram` (512 Mbit), or for `apbf` the shapes of `compare`
//! below, `k3` (`k = l = 3, g = 1000`) and `k15` (`k = l = 15,
//! g = 100,000`), and the number of operations. Digests are computed
//! before the measured function, so counts exclude hashing.

use ddf_apbf::{Apbbf, Apbf};
use ddf_core::{Digest, DuplicateFilter, Verdict};
use std::hint::black_box;

/// The measured loop, kept out of line so callgrind can toggle on it.
#[inline(never)]
fn work<F: Probe>(f: &mut F, op: &str, ds: &[Digest], present: &[Digest]) -> u64 {
    let mut n = 0u64;
    match op {
        "absent1" => n = ds.iter().filter(|&&d| f.alg1(d)).count() as u64,
        "present1" => n = present.iter().filter(|&&d| f.alg1(d)).count() as u64,
        "insert" => ds.iter().for_each(|&d| f.insert(d)),
        "absent" => n = ds.iter().filter(|&&d| f.contains(d)).count() as u64,
        "present" => n = present.iter().filter(|&&d| f.contains(d)).count() as u64,
        "observe" => n = ds.iter().filter(|&&d| f.observe(d).is_duplicate()).count() as u64,
        "batch_at" => {
            let mut v: Vec<Verdict> = Vec::with_capacity(ds.len());
            f.observe_batch_at(ds, 1, &mut v);
            n = v.iter().filter(|v| v.is_duplicate()).count() as u64;
        }
        "batch" => {
            let mut v: Vec<Verdict> = Vec::with_capacity(ds.len());
            f.observe_batch(ds, &mut v);
            n = v.iter().filter(|v| v.is_duplicate()).count() as u64;
        }
        _ => panic!("unknown operation {op}"),
    }
    n
}

/// Algorithm 1 by itself, for comparison with `contains`.
trait Probe: ddf_core::TimedFilter {
    fn alg1(&self, d: Digest) -> bool;
}
impl Probe for Apbf {
    fn alg1(&self, d: Digest) -> bool {
        self.query_accesses(d).0
    }
}
impl Probe for Apbbf {
    fn alg1(&self, d: Digest) -> bool {
        self.query_accesses(d).0
    }
}

/// The process's memory in transparent huge pages (`smaps_rollup`).
fn anon_huge() -> String {
    let s = std::fs::read_to_string("/proc/self/smaps_rollup").unwrap_or_default();
    let line = s.lines().find(|l| l.starts_with("AnonHugePages:"));
    line.map_or("?".into(), |l| {
        l.split_whitespace().skip(1).collect::<Vec<_>>().join(" ")
    })
}

/// CPU time of this thread in nanoseconds (Linux), else 0.
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn run<F: Probe>(mut f: F, fill: u64, op: &str, ops: u64, window: u64) {
    for i in 0..fill {
        f.insert(Digest::mixed(i ^ 0x5eed_f111));
    }
    let ds: Vec<Digest> = (0..ops).map(|i| Digest::mixed(i + (1 << 50))).collect();
    // Items inside the window: the last insertions of the fill.
    let present: Vec<Digest> = (0..ops)
        .map(|i| Digest::mixed((fill - 1 - i % window.min(fill)) ^ 0x5eed_f111))
        .collect();
    let t = cpu_ns();
    let n = work(&mut f, op, black_box(&ds), black_box(&present));
    let ns = (cpu_ns() - t) as f64 / ops as f64;
    println!(
        "{op}: {n} of {ops}, {ns:.1} ns/op CPU, AnonHugePages {}",
        anon_huge()
    );
}

/// The key stream of the comparison: SplitMix64's output function of `i`.
fn key(i: u64) -> u64 {
    let mut x = i.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The slice size of CrowdStrike's Go APBF for `k` and `g`,
/// `m = ⌈1.442695·k·g⌉`, with the Go code's own truncated log₂ e, so that
/// both filters have the same `m`.
#[allow(clippy::approx_constant)]
fn go_slice_bits(k: u32, g: u64) -> u64 {
    (1.442695 * (u64::from(k) * g) as f64).ceil() as u64
}

/// `compare k l g n`: CrowdStrike's Go APBF's (k, l, g) and slice size
/// `m = ⌈1.442695·k·g⌉`; `n` additions, then `n` queries of absent keys,
/// then `n` of keys among the last `l·g` added; ns per element in CPU time,
/// hashing (SipHash-1-3 of the `u64` key) included.
fn compare(a: &[String]) {
    let p = |i: usize| a[i].parse::<u64>().expect("a number");
    let (k, l, g, n) = (p(2) as u32, p(3) as u32, p(4), p(5));
    let m = go_slice_bits(k, g);
    let mut f = Apbf::new(k, l, m).expect("valid");
    assert_eq!(f.generation(), g, "generation of m = {m}");
    let hasher = ddf_core::KeyedSipHasher::with_seed(1);
    let keys: Vec<u64> = (0..n).map(key).collect();
    let absent: Vec<u64> = (0..n).map(|i| key(i + (1 << 50))).collect();
    let w = u64::from(l) * g;
    // Keys among the last `l·g` added, in a sequence of their own, so the
    // timed loop is the same as for absent keys.
    let present: Vec<u64> = (0..n).map(|i| keys[(n - 1 - i % w) as usize]).collect();
    let t = cpu_ns();
    for x in &keys {
        f.insert(ddf_core::digest(&hasher, black_box(x)));
    }
    let add = (cpu_ns() - t) as f64 / n as f64;
    let t = cpu_ns();
    let fp = absent
        .iter()
        .filter(|&x| f.contains(ddf_core::digest(&hasher, black_box(x))))
        .count();
    let qa = (cpu_ns() - t) as f64 / n as f64;
    let t = cpu_ns();
    let found = present
        .iter()
        .filter(|&x| f.contains(ddf_core::digest(&hasher, black_box(x))))
        .count();
    let qp = (cpu_ns() - t) as f64 / n as f64;
    println!(
        "rust k={k} l={l} g={g} add {add:.1} absent {qa:.1} present {qp:.1} (fp {fp}, found {found} of {n})"
    );
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a[1] == "compare" {
        return compare(&a);
    }
    let (which, op, size) = (a[1].as_str(), a[2].as_str(), a[3].as_str());
    let ops: u64 = a[4].parse().expect("a count");
    let bits: u64 = if size == "dram" { 1 << 29 } else { 1 << 20 };
    match which {
        "apbf" if size == "k3" || size == "k15" => {
            let (k, g) = if size == "k3" {
                (3, 1000)
            } else {
                (15, 100_000)
            };
            let f = Apbf::new(k, k, go_slice_bits(k, g)).expect("valid");
            let (fill, w) = (u64::from(2 * k + 1) * g, u64::from(k) * g);
            run(f, fill, op, ops, w);
        }
        "apbf" => {
            let f = Apbf::new(10, 24, bits / 34).expect("valid");
            let (fill, w) = (35 * f.generation(), 24 * f.generation());
            run(f, fill, op, ops, w);
        }
        "apbbf" => {
            let f = Apbbf::new(3, 8, bits / (11 * 512), 512, 4).expect("valid");
            let (fill, w) = (12 * f.generation(), 8 * f.generation());
            run(f, fill, op, ops, w);
        }
        _ => panic!("apbf or apbbf"),
    }
}
