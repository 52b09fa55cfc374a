//! The measurement behind "a vector line bucket" in `docs/performance.md`:
//! can a sliding Bloom dictionary whose probe has no data-dependent branch
//! and no relocation cost one miss of latency and few instructions beyond
//! the caches?
//!
//! A study, not a filter. A 64-byte line holds 26 cells: 26 remainders of
//! 16 bits, then their 3-bit generation tags stored as three bit planes of
//! a `u32` each (plane `k` holds bit `k` of every cell's tag). A probe
//! compares all 26 remainders at once (`ddf_bits::lanes16`, SSE2 compares
//! on x86-64) and evaluates all 26 tags at once on the planes (a
//! stale tag is one of the `2^s − c − 1` values just above the current
//! one), so a probe is the same word arithmetic whatever the line holds.
//! An item has two lines, both requested before either is read. A lookup
//! reads both; a new entry goes to the line with fewer active entries,
//! into its first free cell (empty or stale), so the lines stay balanced
//! and almost nothing relocates: an insertion that finds both lines full
//! moves one of their entries to its other line (lines are paired as the
//! crate pairs buckets), one step and no walk, and the study counts the
//! insertions that still find no cell. Remainder 0 marks an empty cell. Generations work as
//! in the crate (`c = 5`, tags modulo 8); a scan empties stale cells,
//! sweeping the table every two generations, before their tags wrap.
//!
//! A query compares about `2 · 26 · α` active entries, so 16-bit
//! remainders give a false-positive rate of about `2 · 26 · α / 2^16`,
//! 7·10^-4 at α = 0.9: the planner's `fpr(1e-3)`.
//!
//! ```text
//! cargo build --release -p ddf-sliding --example vline_study
//! # the line against a list of cells (random writes, lookups and sweeps):
//! target/release/examples/vline_study check
//! # instructions per observe, in L2 (w = 2^14), SipHash included:
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*study_loop*' \
//!     target/release/examples/vline_study count 16384
//! # nanoseconds, alternating with the crate's default and the floor
//! # (window, rounds, the study's design load):
//! target/release/examples/vline_study time 4194304 21 0.9
//! # space, rate and relocation at design loads 0.90 to 0.99 (window,
//! # windows of fresh keys after the warm-up):
//! target/release/examples/vline_study loads 1048576 16
//! # the floor on ordinary pages against huge pages, and with its misses
//! # in sequence:
//! target/release/examples/vline_study floors 4194304 21
//! ```

use ddf_bits::lanes16::{self, LANES};
use ddf_hash::{Digest, KeyedSipHasher};
use ddf_sliding::{DuplicateFilter, Slack, SlidingBloom, Verdict};
use harness::{Clock, Pass, Probe, median, study_loop};

mod harness;

/// Cells per line.
const CELLS: usize = 26;
/// The bits of a mask that name cells.
const CELL_MASK: u32 = (1 << CELLS) - 1;
/// Generations `c` and tag bits `s`, as the crate plans them at
/// `fpr(1e-3)` with a slack of one window.
const GENERATIONS: u32 = 5;
const TAG_BITS: u32 = 3;
const TAG_MASK: u32 = (1 << TAG_BITS) - 1;
/// Tags just above the current one are stale: ages `c + 1 .. 2^s`.
const STALE_TAGS: u32 = (1 << TAG_BITS) - GENERATIONS - 1;
/// Largest fraction of the cells the active entries may fill, as the
/// crate's default design load.
const LOAD: f64 = 0.9;

/// A line: lanes `0..CELLS` hold the remainders, the last six the three
/// tag planes, two lanes (low half first) each.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line {
    lanes: [u16; LANES],
}

const _: () = assert!(std::mem::size_of::<Line>() == 64);
const _: () = assert!(CELLS + 2 * TAG_BITS as usize == LANES);

/// Where an item may live.
#[derive(Clone, Copy, Default)]
struct Slot {
    first: usize,
    second: usize,
    remainder: u16,
}

impl Line {
    const EMPTY: Line = Line { lanes: [0; LANES] };

    /// Tag plane `k`: bit `j` is bit `k` of cell `j`'s tag.
    #[inline(always)]
    fn plane(&self, k: usize) -> u32 {
        let at = CELLS + 2 * k;
        u32::from(self.lanes[at]) | u32::from(self.lanes[at + 1]) << 16
    }

    #[inline(always)]
    fn set_plane(&mut self, k: usize, plane: u32) {
        let at = CELLS + 2 * k;
        self.lanes[at] = plane as u16;
        self.lanes[at + 1] = (plane >> 16) as u16;
    }

    /// Cells holding `remainder`, and empty cells, one bit each: the
    /// crate's SSE2 compare of 32 lanes, the plane lanes masked off.
    #[inline(always)]
    fn equal_and_empty(&self, remainder: u16) -> (u32, u32) {
        let (equal, zero) = lanes16::equal_and_zero(&self.lanes, remainder);
        (equal & CELL_MASK, zero & CELL_MASK)
    }

    /// Cells holding `remainder`, one bit each.
    fn equal(&self, remainder: u16) -> u32 {
        self.equal_and_empty(remainder).0
    }

    /// Cells whose tag is `tag`, from the planes.
    #[inline(always)]
    fn tagged(&self, tag: u32) -> u32 {
        let mut mask = CELL_MASK;
        for k in 0..TAG_BITS as usize {
            let plane = self.plane(k);
            // All ones where bit k of the tag is set, zero where it is not.
            let want = 0u32.wrapping_sub(tag >> k & 1);
            mask &= !(plane ^ want);
        }
        mask
    }

    /// Cells with an active entry (not empty, tag not stale), and among
    /// them the cells holding `remainder`.
    #[inline(always)]
    fn probe(&self, remainder: u16, current: u32) -> (u32, u32) {
        let mut stale = 0;
        for d in 1..=STALE_TAGS {
            stale |= self.tagged((current + d) & TAG_MASK);
        }
        let (equal, empty) = self.equal_and_empty(remainder);
        let active = !stale & !empty & CELL_MASK;
        (active, equal & active)
    }

    /// Cells with an active entry.
    fn active(&self, current: u32) -> u32 {
        self.probe(0, current).0
    }

    /// Cell `j`'s tag, from the planes.
    fn tag(&self, j: u32) -> u32 {
        let mut tag = 0;
        for k in 0..TAG_BITS as usize {
            tag |= (self.plane(k) >> j & 1) << k;
        }
        tag
    }

    /// Writes `tag` into cell `j`'s planes.
    #[inline]
    fn set_tag(&mut self, j: u32, tag: u32) {
        for k in 0..TAG_BITS as usize {
            let plane = (self.plane(k) & !(1 << j)) | ((tag >> k & 1) << j);
            self.set_plane(k, plane);
        }
    }

    /// Empties every cell that is not active.
    fn sweep(&mut self, current: u32) {
        let keep = self.active(current);
        for (j, r) in self.lanes[..CELLS].iter_mut().enumerate() {
            *r = if keep >> j & 1 == 1 { *r } else { 0 };
        }
    }
}

struct Study {
    lines: Vec<Line>,
    clock: Clock,
    /// Entries moved to their other line to make room.
    moves: u64,
    /// Insertions that found both lines and every other line of their
    /// entries full (a filter's stash would take them).
    both_full: u64,
}

impl Study {
    fn new(window: u64) -> Study {
        Study::with_load(window, LOAD)
    }

    fn with_load(window: u64, load: f64) -> Study {
        let clock = Clock::new(window, GENERATIONS, TAG_BITS);
        let max_active = (u64::from(GENERATIONS) + 1) * clock.generation_len();
        let lines = (max_active as f64 / load / CELLS as f64).ceil() as usize;
        Study {
            lines: ddf_bits::pages::filled_vec(lines, Line::EMPTY),
            clock,
            moves: 0,
            both_full: 0,
        }
    }

    fn memory_bits(&self) -> u64 {
        self.lines.len() as u64 * 512
    }

    /// The other line of an entry in `line` with `remainder`:
    /// `(H(ρ) − line) mod B`, an involution, as the crate pairs buckets, so
    /// an entry can move knowing only where it is.
    #[inline]
    fn alternate(&self, line: usize, remainder: u16) -> usize {
        let n = self.lines.len();
        let h = Digest::new(u64::from(remainder).wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .reduce(n as u64) as usize;
        if h >= line { h - line } else { h + n - line }
    }

    /// Both lines of `s` are full of active entries: moves one entry of
    /// either to its other line, if one has room, and puts the new entry
    /// in its cell. One step, no walk.
    #[cold]
    fn relocate(&mut self, s: Slot, tag: u32) -> bool {
        for line in [s.first, s.second] {
            for j in 0..CELLS as u32 {
                let victim = self.lines[line].lanes[j as usize];
                let other = self.alternate(line, victim);
                let free = !self.lines[other].active(tag) & CELL_MASK;
                if other == line || free == 0 {
                    continue;
                }
                let victim_tag = self.lines[line].tag(j);
                let k = free.trailing_zeros();
                self.lines[other].lanes[k as usize] = victim;
                self.lines[other].set_tag(k, victim_tag);
                self.lines[line].lanes[j as usize] = s.remainder;
                self.lines[line].set_tag(j, tag);
                self.moves += 1;
                return true;
            }
        }
        false
    }
}

impl Probe for Study {
    type Slot = Slot;

    #[inline]
    fn slot(&self, digest: Digest) -> Slot {
        let n = self.lines.len() as u64;
        let (first, rest) = digest.split(n);
        let remainder = ((rest.get() >> 48) as u16).max(1);
        let second = self.alternate(first as usize, remainder);
        Slot {
            first: first as usize,
            second,
            remainder,
        }
    }

    #[inline]
    fn prefetch(&self, slot: Slot) {
        ddf_bits::prefetch::prefetch_ref(&self.lines[slot.first]);
        ddf_bits::prefetch::prefetch_ref(&self.lines[slot.second]);
    }

    /// Detect, then record: whether the item had an active entry.
    #[inline]
    fn observe_slot(&mut self, s: Slot) -> bool {
        let tag = self.clock.tag();
        let (a, b) = (&self.lines[s.first], &self.lines[s.second]);
        let (active_a, hit_a) = a.probe(s.remainder, tag);
        let (active_b, hit_b) = b.probe(s.remainder, tag);
        let seen = (hit_a | hit_b) != 0;
        if seen {
            // Refresh the entry: it is now of the current generation.
            let (line, hits) = if hit_a != 0 {
                (s.first, hit_a)
            } else {
                (s.second, hit_b)
            };
            self.lines[line].set_tag(hits.trailing_zeros(), tag);
        } else {
            // The emptier line, chosen without a branch: which line wins is
            // as random as the hash, and a mispredicted branch here would
            // discard the next item's work begun while this one's lines
            // were on their way.
            let second = active_b.count_ones() < active_a.count_ones();
            let line = if second { s.second } else { s.first };
            let free = !(if second { active_b } else { active_a }) & CELL_MASK;
            let j = free.trailing_zeros();
            if j < CELLS as u32 {
                let line = &mut self.lines[line];
                line.lanes[j as usize] = s.remainder;
                line.set_tag(j, tag);
            } else if !self.relocate(s, tag) {
                self.both_full += 1;
            }
        }
        let lines = &mut self.lines;
        self.clock.tick(lines.len(), |i, tag| lines[i].sweep(tag));
        seen
    }
}

/// The growth table's floor: hashing plus one read-modify-write of one
/// random line of an array of `lines` lines, mapped as the filters' tables
/// are (huge pages from 8 MiB on).
struct Floor {
    lines: Vec<[u64; 8]>,
}

impl Floor {
    #[inline]
    fn touch(&mut self, digest: Digest) {
        let i = digest.reduce(self.lines.len() as u64) as usize;
        self.lines[i][0] = self.lines[i][0].wrapping_add(1);
    }
}

/// Random writes, refreshes and sweeps of one line against a list of
/// `(remainder, tag)` cells.
fn check_against_model() {
    let mut rng = ddf_hash::SplitMix64::new(11);
    for round in 0..20_000u32 {
        let mut line = Line::EMPTY;
        let mut model = [(0u16, 0u32); CELLS];
        let current = round & TAG_MASK;
        for _ in 0..rng.below(3 * CELLS as u64) {
            let j = rng.below(CELLS as u64) as u32;
            // Few distinct remainders, so that equal ones are common.
            let remainder = rng.below(6) as u16;
            let tag = rng.below(8) as u32;
            line.lanes[j as usize] = remainder;
            line.set_tag(j, tag);
            model[j as usize] = (remainder, tag);
        }
        if round % 4 == 0 {
            line.sweep(current);
            for cell in &mut model {
                let age = current.wrapping_sub(cell.1) & TAG_MASK;
                if age > GENERATIONS {
                    cell.0 = 0;
                }
            }
        }
        let active = line.active(current);
        for (j, &(remainder, tag)) in model.iter().enumerate() {
            let age = current.wrapping_sub(tag) & TAG_MASK;
            let want = remainder != 0 && age <= GENERATIONS;
            assert_eq!(active >> j & 1 == 1, want, "round {round}, cell {j}");
            assert_eq!(line.lanes[j], remainder, "round {round}, cell {j}");
            for probe in 0..6u16 {
                assert_eq!(line.equal(probe) >> j & 1 == 1, remainder == probe);
            }
            if remainder != 0 {
                assert_eq!(line.tagged(tag) >> j & 1, 1, "round {round}, cell {j}");
                assert_eq!(line.tag(j as u32), tag, "round {round}, cell {j}");
            }
        }
        assert_eq!(active & !CELL_MASK, 0);
    }
}

/// The floor over a table of this window's size, on ordinary pages
/// (`vec!`, every page written) against huge pages (`filled_vec`), and
/// the floor on huge pages when no two misses may overlap.
fn compare_floors(
    window: u64,
    rounds: usize,
    hasher: &KeyedSipHasher,
) -> Result<(), Box<dyn std::error::Error>> {
    let lines = Study::new(window).lines.len();
    let mut ordinary = Floor {
        lines: vec![[1; 8]; lines],
    };
    let mut huge = Floor {
        lines: ddf_bits::pages::filled_vec(lines, [1; 8]),
    };
    let mut pass = Pass {
        ops: 100_000,
        block: 64,
        next: 1 << 42,
    };
    let mut times: [Vec<f64>; 3] = Default::default();
    let mut last = 0u64;
    for _ in 0..rounds {
        times[0].push(pass.time(false, hasher, |d| ordinary.touch(d[0])));
        times[1].push(pass.time(false, hasher, |d| huge.touch(d[0])));
        // Each line found from the word the previous one held: the same
        // work, one miss after another.
        times[2].push(pass.time(false, hasher, |d| {
            let i = Digest::new(d[0].get() ^ last).reduce(lines as u64) as usize;
            huge.lines[i][0] = huge.lines[i][0].wrapping_add(1);
            last = huge.lines[i][0] & 1 << 63;
        }));
    }
    let [a, b, c] = times.map(median);
    println!(
        "w = {window} ({} MiB), medians of {rounds} alternating rounds: floor on ordinary \
         pages {a:.0} ns, on huge pages {b:.0} ns; each line after the previous one's word \
         {c:.0} ns",
        (lines * 64) >> 20
    );
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "count".into());
    let window: u64 = args.next().map_or(Ok(1 << 14), |s| s.parse())?;
    let rounds: usize = args.next().map_or(Ok(21), |s| s.parse())?;
    let load: f64 = args.next().map_or(Ok(LOAD), |s| s.parse())?;
    if !(0.5..1.0).contains(&load) {
        return Err(format!("design load {load}: expected 0.5 to under 1").into());
    }
    if mode == "check" {
        check_against_model();
        println!("the line agrees with a list of cells");
        return Ok(());
    }
    let hasher = KeyedSipHasher::with_seed(3);
    if mode == "floors" {
        return compare_floors(window, rounds, &hasher);
    }
    if mode == "loads" {
        // `rounds` windows of fresh keys after the warm-up, at each load.
        for load in [0.90, 0.92, 0.94, 0.95, 0.96, 0.97, 0.98, 0.99] {
            let mut study = Study::with_load(window, load);
            study_loop(&mut study, &hasher, 1 << 40, 2 * window);
            let ops = rounds as u64 * window;
            let false_dups = study_loop(&mut study, &hasher, 0, ops);
            println!(
                "w = {window}, load {load}: {:.1} bits per item, false duplicates {:.2e}, \
                 moves per insertion {:.2e}, insertions left without a cell {:.2e} ({} of {})",
                study.memory_bits() as f64 / window as f64,
                false_dups as f64 / ops as f64,
                study.moves as f64 / (ops + 2 * window) as f64,
                study.both_full as f64 / (ops + 2 * window) as f64,
                study.both_full,
                ops + 2 * window
            );
        }
        return Ok(());
    }
    let mut study = Study::with_load(window, load);
    study_loop(&mut study, &hasher, 1 << 40, 2 * window);
    if mode == "count" {
        let ops = 200_000;
        let false_dups = study_loop(&mut study, &hasher, 0, ops);
        println!(
            "w = {window}: {} lines ({:.1} bits per item), {false_dups} false duplicates \
             in {ops}, {} insertions left without a cell",
            study.lines.len(),
            study.memory_bits() as f64 / window as f64,
            study.both_full
        );
        return Ok(());
    }
    let mut filter = SlidingBloom::new(window, Slack::AtMost(window), 1e-3)?;
    for id in (1u64 << 41)..(1 << 41) + 2 * window {
        filter.observe(ddf_hash::digest(&hasher, &id));
    }
    let largest = study.memory_bits().max(filter.memory_bits());
    let mut floor = Floor {
        lines: ddf_bits::pages::filled_vec((largest / 512) as usize, [0; 8]),
    };
    let mut pass = Pass {
        ops: 100_000,
        block: 64,
        next: 1 << 42,
    };
    let mut times: [Vec<f64>; 5] = Default::default();
    let (mut seen, mut verdicts) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        times[0].push(pass.time(false, &hasher, |d| floor.touch(d[0])));
        times[1].push(pass.time(false, &hasher, |d| {
            study.observe(d[0]);
        }));
        times[2].push(pass.time(false, &hasher, |d| {
            let _: Verdict = filter.observe(d[0]);
        }));
        times[3].push(pass.time(true, &hasher, |d| {
            seen.clear();
            study.observe_batch(d, &mut seen);
        }));
        times[4].push(pass.time(true, &hasher, |d| {
            verdicts.clear();
            filter.observe_batch(d, &mut verdicts);
        }));
    }
    let [f, a, b, c, d] = times.map(median);
    println!(
        "w = {window} ({:.1} against {:.1} bits per item), medians of {rounds} alternating \
         rounds of {} fresh keys, SipHash included: floor {f:.0} ns; one by one {a:.0} ns \
         ({:.2}x, study) against {b:.0} ns ({:.2}x, default); batches of {} {c:.0} ns ({:.2}x) \
         against {d:.0} ns ({:.2}x); {} insertions left without a cell",
        study.memory_bits() as f64 / window as f64,
        filter.memory_bits() as f64 / window as f64,
        pass.ops,
        a / f,
        b / f,
        pass.block,
        c / f,
        d / f,
        study.both_full
    );
    Ok(())
}
