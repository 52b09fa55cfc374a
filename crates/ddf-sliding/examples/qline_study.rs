//! The measurement behind "a quotiented line bucket" in
//! `docs/performance.md`: how many instructions, and how many nanoseconds
//! beyond the caches, would a sliding Bloom dictionary of one-line buckets
//! cost, next to the crate's filter at the planner's default shape?
//!
//! A study, not a filter. Each 64-byte bucket holds up to 28 cells of a
//! 13-bit remainder and a 3-bit generation tag, ordered by a quotient in
//! `0..36`, and 64 metadata bits that record the quotients in unary: for each
//! quotient in turn, a one per entry then a zero. An item has two buckets
//! and a quotient. A lookup locates its quotient's run in both buckets (one
//! select on the metadata) and compares the few cells there; a new entry
//! goes to the emptier bucket, at the end of its run (a full bucket first
//! loses one stale entry, if it has one). Generations work as
//! in the crate (`c = 5`, tags modulo 8, entries older than `c`
//! generations are stale and free); a scan removes stale entries,
//! sweeping the table every two generations. The study has no relocation:
//! it counts the insertions that find both buckets full instead.
//!
//! ```text
//! cargo build --release -p ddf-sliding --example qline_study
//! # the bucket against a list per quotient (random insertions and sweeps):
//! target/release/examples/qline_study check
//! # instructions per observe, in L2 (w = 2^14), SipHash included:
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*study_loop*' \
//!     target/release/examples/qline_study count 16384
//! # nanoseconds beyond the caches, alternating with the crate's default:
//! target/release/examples/qline_study time 4194304
//! # the same with BMI2's `pdep` as the select (and the default built alike):
//! RUSTFLAGS='-C target-cpu=x86-64-v3' CARGO_TARGET_DIR=target/v3 \
//!     cargo build --release -p ddf-sliding --example qline_study --example observe_loop
//! ```

use ddf_hash::{Digest, KeyedSipHasher};
use ddf_sliding::{DuplicateFilter, Slack, SlidingBloom, Verdict};
use harness::{Clock, Pass, Probe, median, study_loop};

mod harness;

/// Cells per bucket.
const CELLS: usize = 28;
/// Quotients per bucket.
const QUOTIENTS: u32 = 36;
/// Generations `c` and tag bits `s`, as the crate plans them at
/// `fpr(1e-3)` with a slack of one window.
const GENERATIONS: u32 = 5;
const TAG_BITS: u32 = 3;
const TAG_MASK: u16 = (1 << TAG_BITS) - 1;
/// Largest fraction of the cells the active entries may fill.
const LOAD: f64 = 0.9;

#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Bucket {
    meta: u64,
    cells: [u16; CELLS],
}

/// Where an item may live.
#[derive(Clone, Copy, Default)]
struct Slot {
    first: usize,
    second: usize,
    quotient: u32,
    remainder: u16,
}

/// The position of the `k`-th one of `x` (`k < x.count_ones()`), by byte
/// counts and a broadword search: no `pdep` on baseline x86-64.
#[cfg(target_feature = "bmi2")]
#[inline]
fn select1(x: u64, k: u32) -> u32 {
    // SAFETY: compiled only where the whole build enables BMI2
    // (`target_feature = "bmi2"`, as `-C target-cpu=x86-64-v3` does), so the
    // instruction exists on every machine the binary runs on.
    let bit = unsafe { std::arch::x86_64::_pdep_u64(1 << k, x) };
    bit.trailing_zeros()
}

/// [`select1`] without BMI2.
#[cfg(not(target_feature = "bmi2"))]
#[inline]
fn select1(x: u64, k: u32) -> u32 {
    const LOWS: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut b = x - ((x >> 1) & 0x5555_5555_5555_5555);
    b = (b & 0x3333_3333_3333_3333) + ((b >> 2) & 0x3333_3333_3333_3333);
    b = (b + (b >> 4)) & 0x0f0f_0f0f_0f0f_0f0f;
    // Byte i: ones in bytes 0..=i.
    let cumulative = b.wrapping_mul(LOWS);
    // Bytes whose cumulative count is at most k come first.
    let at_most = (((u64::from(k) * LOWS) | HIGHS) - cumulative) & HIGHS;
    let byte = ((at_most >> 7).wrapping_mul(LOWS) >> 56) as u32;
    let before = ((cumulative << 8) >> (8 * byte)) as u32 & 0xff;
    let mut rest = (x >> (8 * byte)) as u32 & 0xff;
    for _ in 0..k - before {
        rest &= rest - 1;
    }
    8 * byte + rest.trailing_zeros()
}

impl Bucket {
    const EMPTY: Bucket = Bucket {
        meta: 0,
        cells: [0; CELLS],
    };

    fn len(&self) -> usize {
        self.meta.count_ones() as usize
    }

    /// The run of quotient `q`: cells `lo..hi`, and the metadata position of
    /// the zero that closes it.
    #[inline]
    fn run(&self, q: u32) -> (usize, usize, u32) {
        let end = select1(!self.meta, q);
        let hi = (end - q) as usize;
        let below = if end == 0 { 0 } else { self.meta << (64 - end) };
        let run = (!below).leading_zeros() as usize;
        (hi - run.min(hi), hi, end)
    }

    /// The cell index of `remainder` in quotient `q`'s run.
    #[inline]
    fn find(&self, q: u32, remainder: u16) -> Option<usize> {
        let (lo, hi, _) = self.run(q);
        (lo..hi).find(|&j| self.cells[j] >> TAG_BITS == remainder)
    }

    /// Appends `cell` to quotient `q`'s run (the bucket has room).
    #[inline]
    fn insert(&mut self, q: u32, cell: u16) {
        let (_, hi, end) = self.run(q);
        self.insert_at(hi, end, cell);
    }

    /// [`insert`](Self::insert) where the run's end is known: cell `hi`,
    /// metadata bit `end`.
    #[inline]
    fn insert_at(&mut self, hi: usize, end: u32, cell: u16) {
        let len = self.len();
        self.cells.copy_within(hi..len, hi + 1);
        self.cells[hi] = cell;
        let low = self.meta & ((1u64 << end) - 1);
        self.meta = low | (1 << end) | ((self.meta >> end) << (end + 1));
    }

    /// Removes one stale entry, if there is one: cell `j` is the `j`-th one
    /// of the metadata.
    #[inline]
    fn remove_one_stale(&mut self, current: u16) -> bool {
        let len = self.len();
        let Some(j) = (0..len).find(|&j| !is_active(self.cells[j], current)) else {
            return false;
        };
        self.cells.copy_within(j + 1..len, j);
        self.cells[len - 1] = 0;
        let at = select1(self.meta, j as u32);
        let low = self.meta & ((1u64 << at) - 1);
        self.meta = low | ((self.meta >> at >> 1) << at);
        true
    }

    /// Removes the stale entries; returns how many.
    fn sweep(&mut self, current: u16) -> usize {
        let (mut meta, mut cells, mut kept) = (0u64, [0u16; CELLS], 0usize);
        let (mut bit, mut j) = (0u32, 0usize);
        let mut out_bit = 0u32;
        for _ in 0..QUOTIENTS {
            while self.meta >> bit & 1 == 1 {
                let cell = self.cells[j];
                if is_active(cell, current) {
                    cells[kept] = cell;
                    meta |= 1 << out_bit;
                    kept += 1;
                    out_bit += 1;
                }
                bit += 1;
                j += 1;
            }
            bit += 1;
            out_bit += 1;
        }
        let removed = j - kept;
        self.meta = meta;
        self.cells = cells;
        removed
    }
}

#[inline]
fn age(cell: u16, current: u16) -> u16 {
    current.wrapping_sub(cell & TAG_MASK) & TAG_MASK
}

#[inline]
fn is_active(cell: u16, current: u16) -> bool {
    age(cell, current) <= GENERATIONS as u16
}

struct Study {
    buckets: Vec<Bucket>,
    clock: Clock,
    both_full: u64,
}

impl Study {
    fn new(window: u64) -> Study {
        let clock = Clock::new(window, GENERATIONS, TAG_BITS);
        let max_active = (u64::from(GENERATIONS) + 1) * clock.generation_len();
        let buckets = (max_active as f64 / LOAD / CELLS as f64).ceil() as usize;
        Study {
            buckets: vec![Bucket::EMPTY; buckets],
            clock,
            both_full: 0,
        }
    }
}

impl Probe for Study {
    type Slot = Slot;

    #[inline]
    fn slot(&self, digest: Digest) -> Slot {
        let n = self.buckets.len() as u64;
        let (first, rest) = digest.split(n);
        let (quotient, rest) = rest.split(u64::from(QUOTIENTS));
        let remainder = ((rest.get() >> 51) as u16).max(1);
        let second = Digest::new(
            digest
                .get()
                .rotate_left(29)
                .wrapping_mul(0x9e37_79b9_7f4a_7c15),
        )
        .reduce(n);
        Slot {
            first: first as usize,
            second: second as usize,
            quotient: quotient as u32,
            remainder,
        }
    }

    #[inline]
    fn prefetch(&self, slot: Slot) {
        ddf_bits::prefetch::prefetch_ref(&self.buckets[slot.first]);
        ddf_bits::prefetch::prefetch_ref(&self.buckets[slot.second]);
    }

    /// Detect, then record: whether the item had an active entry.
    #[inline]
    fn observe_slot(&mut self, s: Slot) -> bool {
        let tag = self.clock.tag() as u16;
        let fresh = s.remainder << TAG_BITS | tag;
        let mut seen = None;
        // Each bucket's run is located once, for the lookup and the insertion.
        let mut runs = [(0usize, 0u32); 2];
        for (r, b) in [s.first, s.second].into_iter().enumerate() {
            let bucket = &mut self.buckets[b];
            let (lo, hi, end) = bucket.run(s.quotient);
            if let Some(j) = (lo..hi).find(|&j| bucket.cells[j] >> TAG_BITS == s.remainder) {
                seen = Some(is_active(bucket.cells[j], tag));
                bucket.cells[j] = fresh;
                break;
            }
            runs[r] = (hi, end);
        }
        if seen.is_none() {
            let (a, b) = (s.first, s.second);
            let (target, run) = if self.buckets[b].len() < self.buckets[a].len() {
                (b, runs[1])
            } else {
                (a, runs[0])
            };
            let bucket = &mut self.buckets[target];
            if bucket.len() < CELLS {
                bucket.insert_at(run.0, run.1, fresh);
            } else if bucket.remove_one_stale(tag) {
                bucket.insert(s.quotient, fresh);
            } else {
                self.both_full += 1;
            }
        }
        let buckets = &mut self.buckets;
        self.clock.tick(buckets.len(), |i, tag| {
            buckets[i].sweep(tag as u16);
        });
        seen.unwrap_or(false)
    }
}

/// Random insertions and sweeps against a list per quotient.
fn check_against_model() {
    let mut rng = ddf_hash::SplitMix64::new(7);
    for round in 0..2_000 {
        let mut bucket = Bucket::EMPTY;
        let mut model: Vec<Vec<u16>> = vec![Vec::new(); QUOTIENTS as usize];
        let current = (round % 8) as u16;
        for _ in 0..rng.below(CELLS as u64 + 1) {
            let q = rng.below(u64::from(QUOTIENTS)) as u32;
            let cell = ((rng.below(8191) as u16 + 1) << TAG_BITS) | rng.below(8) as u16;
            bucket.insert(q, cell);
            model[q as usize].push(cell);
        }
        if round % 3 == 1 && bucket.remove_one_stale(current) {
            // The first stale cell in cell order: the first in quotient order.
            let stale = model.iter_mut().find_map(|run| {
                let at = run.iter().position(|&c| !is_active(c, current))?;
                Some((run, at))
            });
            let (run, at) = stale.expect("the bucket removed a stale cell, so the model has one");
            run.remove(at);
        }
        if round % 3 == 0 {
            bucket.sweep(current);
            for run in &mut model {
                run.retain(|&c| is_active(c, current));
            }
        }
        assert_eq!(bucket.len(), model.iter().map(Vec::len).sum::<usize>());
        for q in 0..QUOTIENTS {
            let (lo, hi, _) = bucket.run(q);
            assert_eq!(
                &bucket.cells[lo..hi],
                &model[q as usize][..],
                "round {round}, q {q}"
            );
            for &c in &model[q as usize] {
                assert!(bucket.find(q, c >> TAG_BITS).is_some());
            }
        }
    }
    for x in [
        1u64,
        0xff,
        0x8000_0000_0000_0001,
        u64::MAX,
        0x0f0f_0000_ff00_1234,
    ] {
        let ones: Vec<u32> = (0..64).filter(|&i| x >> i & 1 == 1).collect();
        for (k, &at) in ones.iter().enumerate() {
            assert_eq!(select1(x, k as u32), at, "x {x:#x}, k {k}");
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "count".into());
    let window: u64 = args.next().map_or(Ok(1 << 14), |s| s.parse())?;
    if mode == "check" {
        check_against_model();
        println!("the bucket agrees with a list per quotient");
        return Ok(());
    }
    let hasher = KeyedSipHasher::with_seed(3);
    let mut study = Study::new(window);
    study_loop(&mut study, &hasher, 1 << 40, 2 * window);
    if mode == "count" {
        let ops = 200_000;
        let false_dups = study_loop(&mut study, &hasher, 0, ops);
        println!(
            "w = {window}: {} buckets ({:.1} bits per item with these 16-bit cells), \
             {false_dups} false duplicates in {ops}, {} insertions found both buckets full",
            study.buckets.len(),
            (study.buckets.len() * 512) as f64 / window as f64,
            study.both_full
        );
        return Ok(());
    }
    let mut filter = SlidingBloom::new(window, Slack::AtMost(window), 1e-3)?;
    for id in (1u64 << 41)..(1 << 41) + 2 * window {
        filter.observe(ddf_hash::digest(&hasher, &id));
    }
    let mut pass = Pass {
        ops: 100_000,
        block: 64,
        next: 1 << 42,
    };
    let mut times: [Vec<f64>; 4] = Default::default();
    let (mut seen, mut verdicts) = (Vec::new(), Vec::new());
    for _ in 0..21 {
        times[0].push(pass.time(false, &hasher, |d| {
            study.observe(d[0]);
        }));
        times[1].push(pass.time(false, &hasher, |d| {
            let _: Verdict = filter.observe(d[0]);
        }));
        times[2].push(pass.time(true, &hasher, |d| {
            seen.clear();
            study.observe_batch(d, &mut seen);
        }));
        times[3].push(pass.time(true, &hasher, |d| {
            verdicts.clear();
            filter.observe_batch(d, &mut verdicts);
        }));
    }
    let [a, b, c, d] = times.map(median);
    println!(
        "w = {window}, medians of 21 alternating rounds of {} fresh keys, SipHash included: \
         one by one {a:.0} ns (study) against {b:.0} ns (default); batches of {} \
         {c:.0} ns against {d:.0} ns; {} insertions found both buckets full",
        pass.ops, pass.block, study.both_full
    );
    Ok(())
}
