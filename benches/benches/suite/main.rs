//! The benchmark suite: every ddf filter, its hardware floor and the peer crates, in one run.
//!
//! `cargo xtask bench [--quick]` runs it and writes the report; by hand:
//! `cargo bench -p benches --features foldhash -- --warm-up-time 1 --measurement-time 2`.
//! `DDF_BENCH_QUICK=1` selects the quick subset of cells and
//! `DDF_BENCH_MANIFEST=<path>` writes what each benchmark id measures.

mod peers;

use benches::{
    BATCH, Case, DRAM_BITS, Floor, KeyStream, L2_BITS, Manifest, OPS, Path, Str40, StreamKind,
    Tumbling, run_block,
};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ddf_apbf::{Apbbf, Apbf};
use ddf_bloom::{A2, BlockDecayingBloom, PartitionedBloom, StableBloom};
use ddf_core::{Digest, DuplicateFilter};
use ddf_cuckoo::StreamingCuckoo;
use ddf_exact::ExactWindow;
use ddf_hash::{KeyedSipHasher, SplitMix64};
use ddf_qht::{Qht, Qhtd, Qqhtd, Sqf};
use ddf_queue::Queue;
use ddf_shf::{CompactShf, Shf};
use ddf_sliding::SlidingBloom;
use std::hash::{BuildHasher, Hash};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The two filter sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Size {
    L2,
    Dram,
}

impl Size {
    fn name(self) -> &'static str {
        match self {
            Size::L2 => "L2",
            Size::Dram => "DRAM",
        }
    }

    /// `M`, the state every filter of this size gets.
    fn bits(self) -> u64 {
        match self {
            Size::L2 => L2_BITS,
            Size::Dram => DRAM_BITS,
        }
    }

    /// `M / 2^20`: how much larger than the L2 size.
    fn scale(self) -> u64 {
        self.bits() / L2_BITS
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    U64,
    Str40,
}

impl Key {
    fn name(self) -> &'static str {
        match self {
            Key::U64 => "u64",
            Key::Str40 => "str40",
        }
    }
}

/// One cell of the matrix, measured for every filter of a size.
#[derive(Debug, Clone, Copy)]
struct Cell {
    key: Key,
    stream: StreamKind,
    path: Path,
}

/// The cells measured. Quick: u64 keys on distinct streams, both paths, at
/// both sizes. Full adds 40-byte keys and the stream with duplicates (one
/// by one; the key changes the hash, the duplicates the cache behaviour).
fn cells(quick: bool) -> Vec<Cell> {
    let mut v = vec![
        Cell {
            key: Key::U64,
            stream: StreamKind::Distinct,
            path: Path::OneByOne,
        },
        Cell {
            key: Key::U64,
            stream: StreamKind::Distinct,
            path: Path::Batch,
        },
    ];
    if !quick {
        v.push(Cell {
            key: Key::Str40,
            stream: StreamKind::Distinct,
            path: Path::OneByOne,
        });
        v.push(Cell {
            key: Key::U64,
            stream: StreamKind::Duplicates,
            path: Path::OneByOne,
        });
    }
    v
}

/// What a measured filter is, for the manifest.
struct Meta {
    kind: &'static str,
    filter: &'static str,
    config: String,
    lines: u32,
    pairing: String,
    /// Peers have no batch path of their own.
    batch: bool,
}

impl Meta {
    fn filter(filter: &'static str, config: impl Into<String>, lines: u32) -> Self {
        Meta {
            kind: "filter",
            filter,
            config: config.into(),
            lines,
            pairing: String::new(),
            batch: true,
        }
    }

    fn peer(filter: &'static str, config: impl Into<String>, lines: u32, pairing: &str) -> Self {
        Meta {
            kind: "peer",
            filter,
            config: config.into(),
            lines,
            pairing: pairing.into(),
            batch: false,
        }
    }
}

/// The key streams, built once and shared: every case continues where the
/// last left off, and each pass over a stream has a fresh salt.
struct Streams {
    u64_distinct: KeyStream<u64>,
    u64_dup: KeyStream<u64>,
    str_distinct: Option<KeyStream<Str40>>,
}

struct Suite<'c> {
    c: &'c mut Criterion,
    manifest: Manifest,
    quick: bool,
    streams: Streams,
    sip: KeyedSipHasher,
    #[cfg(feature = "foldhash")]
    fold: foldhash::fast::FixedState,
}

impl Suite<'_> {
    /// Prefills `filter` with `items` random digests: each filter is asked
    /// for at least the items that turn its state over (two windows, or
    /// twice its capacity), so that it is timed full and replacing, as it
    /// runs in a long stream, at every size.
    fn prefill<F: DuplicateFilter>(&self, filter: &mut F, items: u64, seed: u64) {
        benches::prefill(filter, items, seed);
    }

    /// Times `filter` in every cell at `size` with every hash, each against its floor.
    fn measure<F: DuplicateFilter>(&mut self, size: Size, meta: Meta, mut filter: F) {
        let bits = filter.memory_bits();
        let sip = self.sip.clone();
        #[cfg(feature = "foldhash")]
        let fold = self.fold.clone();
        for cell in cells(self.quick) {
            if (cell.path == Path::Batch && !meta.batch)
                || (cell.key == Key::Str40 && size == Size::Dram)
            {
                continue;
            }
            self.case(size, &meta, bits, cell, &mut filter, &sip, "sip13");
            #[cfg(feature = "foldhash")]
            self.case(size, &meta, bits, cell, &mut filter, &fold, "foldhash");
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn case<F: DuplicateFilter, S: BuildHasher>(
        &mut self,
        size: Size,
        meta: &Meta,
        bits: u64,
        cell: Cell,
        filter: &mut F,
        hasher: &S,
        hash: &str,
    ) {
        let floor = self.floor(size, meta, cell, hasher, hash);
        let subject = format!("{} [{}]", meta.filter, meta.config);
        let id = bench_id(size, &subject, cell, hash, cell.path);
        let case = Case {
            id: format!("{}/{id}", size.name()),
            kind: meta.kind.into(),
            filter: meta.filter.into(),
            config: meta.config.clone(),
            size: size.name().into(),
            memory_bits: bits,
            key: cell.key.name().into(),
            hash: hash.into(),
            stream: cell.stream.name().into(),
            path: cell.path.name().into(),
            lines: meta.lines,
            floor,
            pairing: meta.pairing.clone(),
            ops: OPS,
        };
        if self.manifest.add(case) {
            self.time(size, &id, filter, hasher, cell);
        }
    }

    /// The floor of `meta`'s filter at `size` in `cell`'s key, stream and
    /// hash (one by one), measured just before the filter's first case in
    /// that cell, so load on a shared machine hits both alike; its id.
    fn floor<S: BuildHasher>(
        &mut self,
        size: Size,
        meta: &Meta,
        cell: Cell,
        hasher: &S,
        hash: &str,
    ) -> String {
        let lines = meta.lines;
        let subject = format!(
            "floor [lines={lines}] for {} [{}]",
            meta.filter, meta.config
        );
        let id = bench_id(size, &subject, cell, hash, Path::OneByOne);
        let case = Case::floor(
            format!("{}/{id}", size.name()),
            size.name(),
            size.bits(),
            [cell.key.name(), hash, cell.stream.name()],
            lines,
            OPS,
        );
        let full = case.id.clone();
        if self.manifest.add(case) {
            let mut floor = Floor::new(size.bits() / 8, lines);
            let one = Cell {
                path: Path::OneByOne,
                ..cell
            };
            self.time(size, &id, &mut floor, hasher, one);
        }
        full
    }

    fn time<F: DuplicateFilter, S: BuildHasher>(
        &mut self,
        size: Size,
        id: &str,
        filter: &mut F,
        hasher: &S,
        cell: Cell,
    ) {
        match (cell.key, cell.stream) {
            (Key::U64, StreamKind::Distinct) => bench(
                self.c,
                size,
                id,
                filter,
                hasher,
                &mut self.streams.u64_distinct,
                cell.path,
            ),
            (Key::U64, StreamKind::Duplicates) => bench(
                self.c,
                size,
                id,
                filter,
                hasher,
                &mut self.streams.u64_dup,
                cell.path,
            ),
            (Key::Str40, _) => {
                let keys = self
                    .streams
                    .str_distinct
                    .get_or_insert_with(|| KeyStream::str_keys(1 << 18, StreamKind::Distinct, 41));
                bench(self.c, size, id, filter, hasher, keys, cell.path)
            }
        }
    }
}

/// Criterion's function id of a case: size, what is measured, key, hash, stream, path.
fn bench_id(size: Size, subject: &str, cell: Cell, hash: &str, path: Path) -> String {
    format!(
        "{} {subject} {} {hash} {} {}",
        size.name(),
        cell.key.name(),
        cell.stream.name(),
        path.name()
    )
}

fn bench<F: DuplicateFilter, S: BuildHasher, K: Hash>(
    c: &mut Criterion,
    size: Size,
    id: &str,
    filter: &mut F,
    hasher: &S,
    keys: &mut KeyStream<K>,
    path: Path,
) {
    let mut scratch = Vec::with_capacity(BATCH);
    let mut group = c.benchmark_group(size.name());
    group.throughput(Throughput::Elements(OPS as u64));
    group.bench_function(id, |b| {
        b.iter(|| run_block(filter, hasher, keys, path, &mut scratch))
    });
    group.finish();
}

/// APBF and APBBF: `k` lines for the insertion, plus the query's reads
/// (measured with `query_accesses` on the prefilled filter) less the last,
/// which falls in a segment the insertion touches.
fn age_lines(k: u32, accesses: impl Fn(Digest) -> u32) -> u32 {
    let mut rng = SplitMix64::new(77);
    let n = 4096u32;
    let total: u32 = (0..n).map(|_| accesses(Digest::new(rng.next_u64()))).sum();
    k + (f64::from(total) / f64::from(n)).round() as u32 - 1
}

/// The largest `w` (a power of two) whose filter fits in `bits`.
fn fit_window<F: DuplicateFilter>(bits: u64, make: impl Fn(u64) -> Option<F>) -> (u64, F) {
    let mut w = 64;
    while make(2 * w).is_some_and(|f| f.memory_bits() <= bits) {
        w *= 2;
    }
    (w, make(w).expect("a small window fits"))
}

/// Every ddf filter at `size`.
fn filters(s: &mut Suite<'_>, size: Size) {
    let m = size.bits();
    let x = size.scale();
    let seed = 1 + x;

    let w = m / 256;
    let mut f = ExactWindow::new(w).expect("valid window");
    s.prefill(&mut f, w, seed);
    s.measure(size, Meta::filter("ExactWindow", format!("w={w}"), 2), f);

    for (k, sig) in [(4usize, 8u32), (1, 3)] {
        if (k, sig) == (1, 3) && (s.quick || size == Size::Dram) {
            continue;
        }
        let make = || Qht::with_memory(m, k, sig).expect("valid");
        let mut f = make();
        s.prefill(&mut f, 2 * m / u64::from(sig), seed);
        s.measure(size, Meta::filter("Qht", format!("k={k} s={sig}"), 1), f);
        if size == Size::L2 && k == 4 {
            // The same filter behind `ddf::Filter`: the cost of dispatch.
            let mut f = ddf::Filter::from(make());
            s.prefill(&mut f, 2 * m / u64::from(sig), seed);
            s.measure(
                size,
                Meta::filter("Filter<Qht>", format!("k={k} s={sig}"), 1),
                f,
            );
        }
    }
    let mut f = Qhtd::with_memory(m, 4, 8).expect("valid");
    s.prefill(&mut f, m / 4, seed);
    s.measure(size, Meta::filter("Qhtd", "k=4 s=8", 1), f);
    let mut f = Qqhtd::with_memory(m, 4, 8).expect("valid");
    s.prefill(&mut f, m / 4, seed);
    s.measure(size, Meta::filter("Qqhtd", "k=4 s=8", 1), f);
    let mut f = Sqf::with_memory(m, 1, 2, 1).expect("valid");
    s.prefill(&mut f, m / 2, seed);
    s.measure(size, Meta::filter("Sqf", "k=1 r=2 r'=1", 1), f);

    // The QHT authors' 50 relocations, and none (a full table drops the
    // newcomer at once): at 1 Mbit the table is saturated, so relocation
    // chains are the cost of the first.
    for kicks in [50, 0] {
        if kicks == 0 && size == Size::Dram {
            continue;
        }
        let mut f = StreamingCuckoo::with_memory(m, 4, 8)
            .expect("valid")
            .with_max_kicks(kicks)
            .expect("valid");
        s.prefill(&mut f, m / 4, seed);
        let config = format!("b=4 f=8 kicks={kicks}");
        s.measure(size, Meta::filter("StreamingCuckoo", config, 2), f);
    }

    // A set filter: cleared every M/10 items (10 bits per item, k = 7).
    let n = m / 10;
    let mut f = Tumbling::new(PartitionedBloom::new(7, m / 7).expect("valid"), n);
    s.prefill(&mut f, n / 2, seed);
    s.measure(
        size,
        Meta::filter("PartitionedBloom", format!("k=7 cleared every {n}"), 7),
        f,
    );

    let mut f = StableBloom::with_memory(m, 2, 2, 0.02).expect("valid");
    s.prefill(&mut f, m, seed);
    s.measure(size, Meta::filter("StableBloom", "d=2 K=2 fp=0.02", 3), f);

    let mut f = A2::with_memory(m, 0.1).expect("valid");
    let lines = f.probes() + 1;
    let config = format!("k={} n={} fp=0.1", f.probes(), f.capacity());
    let items = 2 * f.capacity();
    s.prefill(&mut f, items, seed);
    s.measure(size, Meta::filter("A2", config, lines), f);

    let w = 6000 * x;
    let mut f = BlockDecayingBloom::with_memory(m, w).expect("valid");
    let lines = f.probes();
    let config = format!("w={w} d={} k={}", f.counter_bits(), f.probes());
    s.prefill(&mut f, 2 * w, seed);
    s.measure(size, Meta::filter("BlockDecayingBloom", config, lines), f);

    let mut f = Apbf::new(10, 24, m / 34).expect("valid");
    let items = 35 * f.generation();
    s.prefill(&mut f, items, seed);
    let lines = age_lines(10, |d| f.query_accesses(d).1);
    let config = format!("k=10 l=24 g={}", f.generation());
    s.measure(size, Meta::filter("Apbf", config.clone(), lines), f);
    if size == Size::L2 {
        let mut f = ddf::Filter::from(Apbf::new(10, 24, m / 34).expect("valid"));
        s.prefill(&mut f, items, seed);
        s.measure(size, Meta::filter("Filter<Apbf>", config, lines), f);
    }

    let mut f = Apbbf::new(3, 8, m / (11 * 512), 512, 4).expect("valid");
    let items = 12 * f.generation();
    s.prefill(&mut f, items, seed);
    let lines = age_lines(3, |d| f.query_accesses(d).1);
    let config = format!("k=3 l=8 B=512 b=4 g={}", f.generation());
    s.measure(size, Meta::filter("Apbbf", config, lines), f);

    // 64 bits per item give `h = 25` at L2; at DRAM they would give `h = 20`
    // for 2^23 items, a filter that reports nearly every item (FP ≈ 1), so
    // the DRAM window is half as long (`h = 53`).
    let w = if size == Size::L2 { m / 64 } else { m / 128 };
    let mut f = Shf::with_memory(m, w).expect("valid");
    s.prefill(&mut f, w, seed);
    s.measure(size, Meta::filter("Shf", format!("w={w}"), 2), f);

    if size == Size::L2 {
        // Its lookup scans the whole ring: a short window.
        let w = 1024;
        let mut f = CompactShf::with_memory(m, w).expect("valid");
        s.prefill(&mut f, w, seed);
        s.measure(size, Meta::filter("CompactShf", format!("w={w}"), 1), f);
    }

    // Four QHTs of M/4 bits, each taking half its cells' worth of items.
    let c = m / 4 / 32 * 4 / 2;
    let mut f = Queue::with_memory(m, 4, c, |spec| {
        Qht::with_memory(spec.bits, 4, 8).map(|q| q.with_seed(spec.index as u64))
    })
    .expect("valid");
    s.prefill(&mut f, 8 * c, seed);
    s.measure(
        size,
        Meta::filter("Queue<Qht>", format!("L=4 c={c} k=4 s=8"), 4),
        f,
    );

    let (w, mut f) = fit_window(m, |w| SlidingBloom::least_space(w, 0.01).ok());
    s.prefill(&mut f, 2 * w, seed);
    let config = format!("w={w} eps=0.01 c={}", f.generations());
    s.measure(size, Meta::filter("SlidingBloom", config.clone(), 2), f);
    if size == Size::L2 {
        let f = SlidingBloom::least_space(w, 0.01).expect("fits");
        let mut f = ddf::Filter::from(f);
        s.prefill(&mut f, 2 * w, seed);
        s.measure(size, Meta::filter("Filter<SlidingBloom>", config, 2), f);
        shared(s, w);
    }
}

/// `ddf::Shared` at L2 size: 16 sliding Bloom shards of window `w/16`
/// (about the state of one filter for `w`), observed by 1 and 2 threads.
/// Each criterion call spawns the threads once and each observes its share
/// of `iters·OPS` distinct `u64` keys; the time per operation is wall time
/// over all threads (the inverse of throughput). Spawning costs tens of
/// microseconds against at least `OPS` operations per call.
fn shared(s: &mut Suite<'_>, w: u64) {
    let size = Size::L2;
    let shards = ddf::DEFAULT_SHARDS;
    let shard_window = w / shards as u64;
    let make = |i: usize| {
        SlidingBloom::least_space(shard_window, 0.01)
            .map(|f| ddf::Filter::from(f.with_seed(i as u64)))
    };
    let salt = AtomicU64::new(0x5a17);
    for threads in [1usize, 2] {
        let shared = ddf::Shared::with_hasher(shards, s.sip.clone(), make).expect("valid");
        let mut rng = SplitMix64::new(3);
        for _ in 0..2 * w {
            shared.insert_digest(Digest::new(rng.next_u64()));
        }
        let bits = shared.memory_bits();
        let meta = Meta::filter(
            "Shared<SlidingBloom>",
            format!("S={shards} w/S={shard_window} eps=0.01 threads={threads}"),
            2,
        );
        let cell = Cell {
            key: Key::U64,
            stream: StreamKind::Distinct,
            path: Path::OneByOne,
        };
        let sip = s.sip.clone();
        let floor = s.floor(size, &meta, cell, &sip, "sip13");
        let subject = format!("{} [{}]", meta.filter, meta.config);
        let id = bench_id(size, &subject, cell, "sip13", cell.path);
        let case = Case {
            id: format!("{}/{id}", size.name()),
            kind: meta.kind.into(),
            filter: meta.filter.into(),
            config: meta.config.clone(),
            size: size.name().into(),
            memory_bits: bits,
            key: cell.key.name().into(),
            hash: "sip13".into(),
            stream: cell.stream.name().into(),
            path: cell.path.name().into(),
            lines: meta.lines,
            floor,
            pairing: String::new(),
            ops: OPS,
        };
        if !s.manifest.add(case) {
            continue;
        }
        let mut group = s.c.benchmark_group(size.name());
        group.throughput(Throughput::Elements(OPS as u64));
        group.bench_function(&id, |b| {
            b.iter_custom(|iters| {
                let per_thread = iters * (OPS / threads) as u64;
                let base = salt.fetch_add(1, Ordering::Relaxed);
                let start = Instant::now();
                std::thread::scope(|sc| {
                    for t in 0..threads {
                        let shared = &shared;
                        sc.spawn(move || {
                            let mut keys = SplitMix64::new(ddf_hash::mix64(base) ^ t as u64);
                            for _ in 0..per_thread {
                                std::hint::black_box(shared.observe(&keys.next_u64()));
                            }
                        });
                    }
                });
                start.elapsed().max(Duration::from_nanos(1))
            })
        });
        group.finish();
    }
}

/// The peer crates at `size`, each paired with a ddf filter.
fn peers(s: &mut Suite<'_>, size: Size) {
    let m = size.bits();
    let seed = 2 + size.scale();
    let n = m / 10;
    let bloom_pair = "PartitionedBloom: equal memory M, cleared every M/10 items";

    let mut f = Tumbling::new(peers::FastBloom::new(m, 7), n);
    s.prefill(&mut f, n / 2, seed);
    s.measure(
        size,
        Meta::peer("fastbloom", format!("k=7 cleared every {n}"), 1, bloom_pair),
        f,
    );

    let mut f = Tumbling::new(peers::Sbbf::new(10, n as usize), n);
    s.prefill(&mut f, n / 2, seed);
    s.measure(
        size,
        Meta::peer(
            "sbbf-rs-safe",
            format!("10 bits/key cleared every {n}"),
            1,
            bloom_pair,
        ),
        f,
    );

    // 2^k buckets of 4 one-byte fingerprints: M bits; cleared at 95% load.
    let cap = m / 8;
    let fill = cap * 95 / 100;
    let mut f = Tumbling::new(peers::Cuckoo::new(cap as usize), fill);
    s.prefill(&mut f, fill / 2, seed);
    s.measure(
        size,
        Meta::peer(
            "cuckoofilter",
            format!("b=4 f=8 cleared every {fill}"),
            2,
            "StreamingCuckoo: equal memory and shape (b=4, f=8)",
        ),
        f,
    );

    let (q, cap) = peers::QFilter::with_memory(m, 1.0 / 256.0);
    let mut f = Tumbling::new(q, cap);
    s.prefill(&mut f, cap / 2, seed);
    s.measure(
        size,
        Meta::peer(
            "qfilter",
            format!("fp=1/256 cleared every {cap}"),
            1,
            "Qht k=4 s=8: equal memory (at most M), 8-bit fingerprints",
        ),
        f,
    );

    let mut f = peers::QhtCrate::new(m, 4, 8);
    s.prefill(&mut f, m / 4, seed);
    s.measure(
        size,
        Meta::peer(
            "qht (crate)",
            "k=4 s=8",
            1,
            "Qht k=4 s=8: equal memory and shape; hashes the digest again with std's SipHash",
        ),
        f,
    );

    let w = m / 256;
    let mut f = Tumbling::new(peers::StdSet::default(), w);
    s.prefill(&mut f, w / 2, seed);
    s.measure(
        size,
        Meta::peer(
            "std HashSet",
            format!("cleared every {w}"),
            1,
            "ExactWindow: exact, a set of the same number of items",
        ),
        f,
    );

    let mut f = peers::NaiveWindow::new(w as usize);
    s.prefill(&mut f, w, seed);
    s.measure(
        size,
        Meta::peer(
            "VecDeque+HashMap",
            format!("w={w}"),
            2,
            "ExactWindow: exact, the same window",
        ),
        f,
    );
}

fn suite(c: &mut Criterion) {
    let quick = std::env::var_os("DDF_BENCH_QUICK").is_some();
    let mut s = Suite {
        c,
        manifest: Manifest::default(),
        quick,
        streams: Streams {
            u64_distinct: KeyStream::u64_keys(1 << 20, StreamKind::Distinct, 11),
            u64_dup: KeyStream::u64_keys(1 << 20, StreamKind::Duplicates, 12),
            str_distinct: None,
        },
        sip: KeyedSipHasher::with_seed(1),
        #[cfg(feature = "foldhash")]
        fold: foldhash::fast::FixedState::with_seed(1),
    };
    for size in [Size::L2, Size::Dram] {
        filters(&mut s, size);
        peers(&mut s, size);
    }
    if let Some(path) = std::env::var_os("DDF_BENCH_MANIFEST") {
        let path = std::path::PathBuf::from(path);
        if let Err(e) = s.manifest.write(&path) {
            eprintln!("benches: writing {}: {e}", path.display());
        }
    }
}

criterion_group!(benches, suite);
criterion_main!(benches);
