//! The steady-state growth table: every windowed filter the planner offers,
//! at windows from in-cache to far past the caches, full and replacing.
//!
//! For each window `w` (2^14, 2^18, 2^22, 2^25)
//! and each span (a count window of `w` items, a time window of `w/64` time
//! units at 64 arrivals per unit: a millisecond clock at 64,000 items a
//! second), the planner is asked what users ask it,
//! `fpr(1e-3).max_slack(w)`, and every family it returns is built, fed
//! `2w` fresh items (so every generation, ring and FIFO has turned over at
//! least once), then timed on fresh keys one by one and in blocks of
//! [`BATCH`] through the batch path, keyed SipHash-1-3 included. The exact
//! window of the same span is timed beside them, and the floor is hashing
//! plus one random read-modify-write of one cache line in an array as
//! large as the largest of them, measured just before each subject so
//! that load on a shared machine hits both alike. Both spans at 2^22 and
//! 2^25 add the default's request in the word layout ([`WORDS_ROW`]),
//! which the default leaves for lines there, and count windows add one
//! study row, the word layout at design load [`STUDY_LOAD`]: what it
//! would cost if relocation were rare. At 2^22 and 2^25 two rows more show
//! what the front ends (`ddf`, the Redis module, Python) build when a user
//! gives a window alone: the planner's default for the front door's rate
//! (`ddf::request::DEFAULT_FPR`, 10^-6, and its default slack), laid out in
//! wide lines ([`FRONT_ROW`]), and the same request in the word layout.
//! Beyond the caches every subject and its floor are measured in
//! [`ROUNDS_BEYOND_CACHE`] alternating rounds, each a case of its own in
//! the manifest; `cargo xtask bench-growth` reports the medians.
//!
//! `cargo xtask bench-growth` (and `cargo xtask bench`) run it and write
//! the table; `DDF_GROWTH_MANIFEST=<path>` writes what each id measures.

use benches::{BATCH, Floor, GrowthCase, KeyStream, OPS, StreamKind};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ddf::sliding::LayoutChoice;
use ddf::{Config, Filter, Requirements, SlidingBloom, plan};
use ddf_core::{Digest, DuplicateFilter, TimedFilter, Verdict, Window};
use ddf_hash::{KeyedSipHasher, SplitMix64};
use std::hash::BuildHasher;

/// The false-positive rate every plan is asked for.
const FPR: f64 = 1e-3;

/// Arrivals per time unit of the time windows: every block of [`BATCH`]
/// items shares one time, as events of one millisecond do.
const PER_UNIT: u64 = 64;

/// Design load of the study row (the default is
/// [`ddf::sliding::DESIGN_LOAD`]): a share of insertions that relocate
/// small enough to tell relocation's cost from the rest.
const STUDY_LOAD: f64 = 0.75;

/// The label of the default's request in the word layout
/// ([`LayoutChoice::Words`]).
const WORDS_ROW: &str = "sliding Bloom, words";

/// The label of the planner's default for the front ends' request (a
/// window alone: [`ddf::request::DEFAULT_FPR`] and the default slack).
const FRONT_ROW: &str = "front ends' default (1e-6)";

/// Keys per pass of the measured stream (fresh on every pass, by salt).
const STREAM_KEYS: usize = 1 << 20;

/// How a filter is fed: by count, or each item at its own time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Span {
    Count,
    Time,
}

impl Span {
    fn name(self) -> &'static str {
        match self {
            Span::Count => "count",
            Span::Time => "time",
        }
    }

    fn requirements(self, w: u64) -> Requirements {
        match self {
            Span::Count => Requirements::count(w).max_slack(w),
            // A span of `w/64` units holds `w` items; the slack in units.
            Span::Time => Requirements::time(w / PER_UNIT, PER_UNIT as f64).max_slack(w / PER_UNIT),
        }
        .fpr(FPR)
    }

    /// What the front ends ask for a window given alone.
    fn front_door(self, w: u64) -> Requirements {
        match self {
            Span::Count => Requirements::count(w),
            Span::Time => Requirements::time(w / PER_UNIT, PER_UNIT as f64),
        }
        .fpr(ddf::request::DEFAULT_FPR)
    }
}

/// The planner's first choice for `requirements`, then the same request in
/// the word layout when that choice is a sliding Bloom filter.
fn default_and_words(requirements: &Requirements) -> Vec<Result<Filter, String>> {
    let candidates = plan(requirements).map_err(|e| e.to_string());
    let first = match candidates.as_ref().map(|c| c.first()) {
        Ok(Some(c)) => c,
        Ok(None) => return vec![Err("no candidate".into())],
        Err(e) => return vec![Err(e.clone())],
    };
    let mut out = vec![first.build().map_err(|e| e.to_string())];
    if let Config::Sliding {
        window,
        slack,
        fpr,
        capacity,
        ..
    } = first.config
    {
        let words = SlidingBloom::planned(window, slack, capacity, fpr, LayoutChoice::Words);
        out.push(words.map(Filter::from).map_err(|e| e.to_string()));
    }
    out
}

/// A filter under test and the clock it is fed on.
struct Subject<F> {
    filter: F,
    span: Span,
    /// Arrivals so far; the next one's time is this over [`PER_UNIT`].
    now: u64,
}

impl<F: TimedFilter> Subject<F> {
    /// Feeds `items` fresh random digests through the batch path.
    fn prefill(&mut self, items: u64, seed: u64) {
        let mut rng = SplitMix64::new(seed);
        let mut digests = [Digest::new(0); BATCH];
        let mut stamped = [(Digest::new(0), 0u64); BATCH];
        let mut verdicts = Vec::with_capacity(BATCH);
        for _ in 0..items.div_ceil(BATCH as u64) {
            verdicts.clear();
            match self.span {
                Span::Count => {
                    digests.fill_with(|| Digest::new(rng.next_u64()));
                    self.filter.observe_batch(&digests, &mut verdicts);
                }
                Span::Time => {
                    for s in &mut stamped {
                        *s = (Digest::new(rng.next_u64()), self.now / PER_UNIT);
                        self.now += 1;
                    }
                    self.filter.observe_batch_stamped(&stamped, &mut verdicts);
                }
            }
        }
    }

    /// One timed iteration: [`OPS`] fresh keys, hashed and observed one by
    /// one (`batch` false) or in blocks of [`BATCH`]. Returns the
    /// duplicates reported, so the work cannot be optimised away.
    fn run(&mut self, keys: &mut KeyStream<u64>, hasher: &KeyedSipHasher, batch: bool) -> usize {
        let (block, salt) = keys.block(OPS);
        let digest = |k: &u64| Digest::new(hasher.hash_one(k) ^ salt);
        if !batch {
            return block
                .iter()
                .filter(|k| {
                    let verdict = match self.span {
                        Span::Count => self.filter.observe(digest(k)),
                        Span::Time => {
                            self.now += 1;
                            self.filter.observe_at(digest(k), (self.now - 1) / PER_UNIT)
                        }
                    };
                    verdict.is_duplicate()
                })
                .count();
        }
        let mut verdicts: Vec<Verdict> = Vec::with_capacity(BATCH);
        let mut dups = 0;
        for chunk in block.chunks(BATCH) {
            verdicts.clear();
            match self.span {
                Span::Count => {
                    let mut digests = [Digest::new(0); BATCH];
                    for (d, k) in digests.iter_mut().zip(chunk) {
                        *d = digest(k);
                    }
                    self.filter
                        .observe_batch(&digests[..chunk.len()], &mut verdicts);
                }
                Span::Time => {
                    let mut stamped = [(Digest::new(0), 0u64); BATCH];
                    for (s, k) in stamped.iter_mut().zip(chunk) {
                        *s = (digest(k), self.now / PER_UNIT);
                        self.now += 1;
                    }
                    self.filter
                        .observe_batch_stamped(&stamped[..chunk.len()], &mut verdicts);
                }
            }
            dups += verdicts.iter().filter(|v| v.is_duplicate()).count();
        }
        dups
    }
}

/// From this window (`log₂ w`) on the filters are beyond the caches, where
/// other load on the machine moves a measurement most.
const BEYOND_CACHE_LOG: u32 = 22;

/// Rounds of (floor, filter) measured in turn beyond the caches: the table
/// reports the median of each round's ratio, so that one disturbed round
/// does not decide a target.
const ROUNDS_BEYOND_CACHE: usize = 3;

/// The windows measured, `log₂ w`: every size in quick mode too, since
/// the largest is the one users run.
const WINDOWS: [u32; 4] = [14, 18, 22, 25];

/// The filters to time for one window and span: each family the planner
/// returns (its best candidate; the first is the planner's default), then
/// the exact window unless the planner returned it. Each comes with its
/// label and whether it is the default.
fn subjects(w: u64, span: Span) -> Vec<(String, bool, Filter)> {
    let mut out: Vec<(String, bool, Filter)> = Vec::new();
    let candidates = plan(&span.requirements(w)).unwrap_or_default();
    for (i, c) in candidates.iter().enumerate() {
        if out.iter().any(|(name, _, _)| name == c.family()) {
            continue;
        }
        match c.build() {
            Ok(f) => out.push((c.family().to_string(), i == 0, f)),
            Err(e) => eprintln!("growth: {} at w = {w} does not build: {e}", c.family()),
        }
    }
    // Beyond the caches: the default's request in the word layout, which
    // the sliding Bloom filter picks there for a memory budget.
    let words = |load: Option<f64>| match candidates.first().map(|c| &c.config) {
        Some(&Config::Sliding {
            window,
            slack,
            fpr,
            capacity,
            ..
        }) => {
            let f = SlidingBloom::planned(window, slack, capacity, fpr, LayoutChoice::Words);
            Some(match load {
                Some(load) => f.and_then(|f| f.with_design_load(load)),
                None => f,
            })
        }
        _ => None,
    };
    if w >= 1 << 22 {
        match words(None) {
            Some(Ok(f)) => out.push((WORDS_ROW.to_string(), false, Filter::from(f))),
            Some(Err(e)) => eprintln!("growth: the word layout at w = {w} does not build: {e}"),
            None => {}
        }
    }
    // Beyond the caches, count windows: the word layout at a lower design
    // load, which leaves few insertions with both buckets full; the gap to
    // the word row is what relocation costs there.
    if span == Span::Count && w >= 1 << 22 {
        match words(Some(STUDY_LOAD)) {
            Some(Ok(f)) => out.push((
                format!("{WORDS_ROW}, load {STUDY_LOAD}"),
                false,
                Filter::from(f),
            )),
            None => {}
            Some(Err(e)) => {
                eprintln!("growth: the load-{STUDY_LOAD} sliding Bloom filter does not build: {e}")
            }
        }
    }
    if w >= 1 << 22 {
        let labels = [FRONT_ROW.to_string(), format!("{FRONT_ROW}, words")];
        for (label, f) in labels
            .into_iter()
            .zip(default_and_words(&span.front_door(w)))
        {
            match f {
                Ok(f) => out.push((label, false, f)),
                Err(e) => eprintln!("growth: {label} at w = {w} does not build: {e}"),
            }
        }
    }
    let exact = Filter::exact(Window::Count(w)).expect("a valid count window");
    if !out.iter().any(|(_, _, f)| f.family() == exact.family()) {
        let exact = match span {
            Span::Count => exact,
            // Capacity 2w: the exact window never evicts early at the steady rate.
            Span::Time => Filter::exact_time(w / PER_UNIT, 2 * w).expect("a valid time window"),
        };
        out.push((exact.family().to_string(), false, exact));
    }
    out
}

fn growth(c: &mut Criterion) {
    let manifest_path = std::env::var_os("DDF_GROWTH_MANIFEST");
    let hasher = KeyedSipHasher::with_seed(0x6e0_7711);
    let mut cases: Vec<GrowthCase> = Vec::new();
    let mut keys = KeyStream::u64_keys(STREAM_KEYS, StreamKind::Distinct, 41);
    for log_w in WINDOWS {
        let w = 1u64 << log_w;
        for span in [Span::Count, Span::Time] {
            // Steady state first: every subject full and replacing.
            let mut subjects: Vec<(String, bool, Subject<Filter>)> = subjects(w, span)
                .into_iter()
                .enumerate()
                .map(|(i, (name, default, filter))| {
                    let mut s = Subject {
                        filter,
                        span,
                        now: 0,
                    };
                    s.prefill(2 * w, 7 + i as u64);
                    eprintln!("growth: {name} at 2^{log_w} ({}) prefilled", span.name());
                    (name, default, s)
                })
                .collect();
            let largest = subjects
                .iter()
                .map(|(_, _, s)| s.filter.memory_bits())
                .max()
                .unwrap_or(0);
            let mut floor = Subject {
                filter: Floor::new(largest / 8, 1),
                span: Span::Count,
                now: 0,
            };
            let mut group = c.benchmark_group(format!("growth/2^{log_w}/{}", span.name()));
            group.throughput(Throughput::Elements(OPS as u64));
            let rounds = if log_w >= BEYOND_CACHE_LOG {
                ROUNDS_BEYOND_CACHE
            } else {
                1
            };
            for round in 0..rounds {
                // The first round keeps the plain ids; later ones are numbered.
                let suffix = if round == 0 {
                    String::new()
                } else {
                    format!(" #{}", round + 1)
                };
                for (name, default, s) in &mut subjects {
                    let floor_id = format!("floor before {name}{suffix}");
                    group.bench_function(&floor_id, |b| {
                        b.iter(|| floor.run(&mut keys, &hasher, false));
                    });
                    let bits = s.filter.memory_bits();
                    for batch in [false, true] {
                        let path = if batch { "batch" } else { "one" };
                        let id = format!("{name} {path}{suffix}");
                        group.bench_function(&id, |b| {
                            b.iter(|| s.run(&mut keys, &hasher, batch));
                        });
                        cases.push(GrowthCase {
                            id: format!("growth/2^{log_w}/{}/{id}", span.name()),
                            floor: format!("growth/2^{log_w}/{}/{floor_id}", span.name()),
                            log_window: log_w,
                            span: span.name().into(),
                            filter: name.clone(),
                            default: *default,
                            memory_bits: bits,
                            floor_bits: largest,
                            path: path.into(),
                            ops: OPS,
                        });
                    }
                }
            }
            group.finish();
        }
    }
    if let Some(path) = manifest_path {
        let json = serde_json::to_string_pretty(&cases).expect("cases serialise");
        std::fs::write(&path, json).expect("writing the growth manifest");
    }
}

criterion_group!(benches, growth);
criterion_main!(benches);
