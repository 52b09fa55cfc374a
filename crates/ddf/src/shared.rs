//! [`Shared`]: one filter observed from many threads, by sharding.
//!
//! A filter's `observe` takes `&mut self`: each item reads and writes the
//! state. To observe from many threads, [`Shared`] splits the stream into
//! `S` shards by the item's digest, each shard its own filter behind its own
//! lock, so threads that touch different shards never wait for each other.
//! An item and all its repeats land in the same shard, so a shard answers
//! for its items exactly as a lone filter would for its sub-stream.
//!
//! # What sharding does to the window
//!
//! (The derivations are in [`ddf_theory::sharding`].)
//!
//! - **Time windows are unchanged.** "Seen within the last `t` time units"
//!   does not depend on the other items a shard saw. Each shard sees about
//!   `1/S` of the arrivals, and [`plan_sharded`] sizes it for rate `λ/S`.
//!   Pass a clock that does not run backwards *per shard*: a clock read
//!   before taking the lock can be overtaken by another thread's later
//!   reading (the timed filters treat an earlier `now` as the latest seen).
//! - **A count window becomes per shard.** A shard counts its own
//!   insertions, so a shard window of `w_s` covers a random number of merged
//!   items. [`plan_sharded`] picks `w_s` so that, at any moment, with
//!   probability at least `1 − δ` every item among the last `w` merged items
//!   is inside its shard's window ([`ddf_theory::sharding::shard_window`]:
//!   the `1 − δ/S` quantile of `Binomial(w, 1/S)`, union bound over shards).
//!   The false-positive rate is the per-shard rate; the slack in merged
//!   items becomes random, `S·(w_s + s_s) − w` on average, and
//!   [`plan_sharded`] keeps that within the slack accepted.
//! - **The whole stream** (`Window::Unbounded`) is unchanged.
//!
//! # Threads
//!
//! `Shared<F, S>` is `Send + Sync` when `F: Send` and `S: Send + Sync`: each
//! filter is only reached through its shard's `Mutex`, which gives one thread
//! at a time `&mut F`, and the hasher is only read. Every filter type of
//! `ddf` (and [`Filter`](crate::Filter)) is `Send + Sync` — plain owned
//! data, no interior mutability, no thread-bound handles — and
//! [`KeyedSipHasher`] is `Send + Sync`. A `Box<dyn DuplicateFilter + Send>`
//! (what [`Candidate::build`](crate::Candidate::build) returns) is `Send`, so
//! it can be a shard too.
//!
//! A thread that panics while holding a shard (only possible from the
//! caller's own code, through [`Shared::lock`]) poisons that `Mutex`; the
//! other threads carry on with the state as the panic left it.
//!
//! # What an operation writes, and why it scales
//!
//! An `observe` reads the hasher's key and the shard table (written only
//! at construction, so every core keeps them cached) and writes only
//! inside its own shard: the shard's lock word, the filter's own fields
//! (counters, clock, generation) and the filter's state lines for the item.
//! Each shard (lock and filter header together) sits in its own 128-byte
//! block ([`CACHE_BLOCK`]), so two threads in two shards never write the
//! same cache line, nor two lines the adjacent-line prefetcher pairs.
//! Nothing is written by every operation of every thread: no shared
//! counter, statistic or lock outside the shards.
//!
//! What remains shared is the work itself: with keys that hash to any
//! shard, the shard an item meets was last written by another core with
//! probability `(T − 1)/T`, so its lock line and filter header move
//! between the cores' caches (about one transfer per operation), and so do
//! the filter's state lines when the whole state fits in the caches. The
//! batch forms ([`Shared::observe_many`], [`Shared::contains_many`] and
//! the timed ones) pay that once per shard per batch: they hash a block of
//! items, group it by shard (keeping each shard's items in input order)
//! and take each shard's lock once, feeding the group to the filter's own
//! prefetching batch path. They try every shard without waiting first and
//! come back to those that were busy, so a thread rarely sleeps on a lock
//! held by a thread the scheduler has paused.
//!
//! # How many shards
//!
//! A thread finds its shard busy with probability at most about
//! `(T − 1)/S`. [`DEFAULT_SHARDS`] = 256 keeps that below 6 % at 16 threads
//! and 12 % at 32. It is a constant, not read from the machine, because the
//! shard count is part of the sizing and of the saved state: a plan gives
//! the same filter everywhere. More shards cost memory: each shard holds a
//! count window of `w_s ≈ w/S + z·√(w/S)` items (the binomial quantile of
//! [`plan_sharded`]), so the excess over one filter for `w` grows as
//! `√S`, and each shard adds a fixed part (its 128-byte-aligned lock and
//! header and the filter's own allocations). For a count window of 2^20 at
//! `10⁻³` and `δ = 10⁻⁶`: 16 shards hold `w_s` 2.0 % above `w/S`, 64
//! shards 4.3 %, 256 shards 9.1 % (the sliding Bloom filter: 21.3, 22.2 and
//! 24.1 bits per item with a slack of `w/4`); for a window of 10⁴ the
//! excess at 256 shards is 105 % (use fewer shards for small windows:
//! [`Shared::with_shards`], `plan_sharded(req, S, δ)`). That excess,
//! `S·w_s − w` merged items, is slack as well: [`plan_sharded`] refuses a
//! shard count whose excess exceeds the slack accepted
//! ([`PlanError::TooManyShards`] names one that fits).

use crate::planner::{Candidate, PlanError, Requirements, Span, plan};
use ddf_core::{Digest, DuplicateFilter, KeyedSipHasher, ParamError, TimedFilter, Verdict};
use std::hash::{BuildHasher, Hash};
use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};

/// Reusable buffers of the batch forms: one block's grouping by shard.
#[derive(Debug)]
struct Groups<R> {
    /// Per input item: its shard while counting, then its place in `grouped`.
    slot: Vec<u32>,
    /// `starts[s]..starts[s + 1]`: shard `s`'s part of `grouped`.
    starts: Vec<u32>,
    /// The block's digests, grouped by shard, each group in input order.
    grouped: Vec<Digest>,
    /// The results, in `grouped` order.
    results: Vec<R>,
    /// The scatter's cursor per shard.
    part: Vec<u32>,
    /// Shards that were busy at the first pass.
    busy: Vec<u32>,
    /// One shard's results, as its filter appends them.
    tmp: Vec<R>,
}

impl<R> Groups<R> {
    fn new() -> Self {
        Groups {
            slot: Vec::new(),
            starts: Vec::new(),
            grouped: Vec::new(),
            results: Vec::new(),
            part: Vec::new(),
            busy: Vec::new(),
            tmp: Vec::new(),
        }
    }
}

/// The shard count of [`Shared::new`] and a good default for
/// [`plan_sharded`]: 256.
///
/// Fixed rather than derived from the machine's core count, because the
/// shard count changes the sizing (`w_s`, the memory) and the saved state: a
/// plan must give the same filter on every machine. With `T` threads, a
/// thread finds its shard busy with probability at most about `(T − 1)/256`:
/// under 3 % at 8 threads, 6 % at 16, 12 % at 32. The memory this costs is
/// in the [module docs](self#how-many-shards).
pub const DEFAULT_SHARDS: usize = 256;

/// The most shards a [`Shared`] takes.
pub const MAX_SHARDS: usize = 4096;

/// The alignment of each shard: two cache lines. A shard's lock word and its
/// filter's header are written by every operation on the shard; aligning
/// each shard to 128 bytes keeps them off the lines of every other shard,
/// including the neighbouring line that the adjacent-line prefetcher of
/// x86_64 cores fetches together with the one asked for.
pub const CACHE_BLOCK: usize = 128;

/// `T` alone in its own [`CACHE_BLOCK`]-aligned block (its size rounds up to
/// a multiple of 128 bytes, so the next one starts on a fresh block).
#[derive(Debug, Default)]
#[repr(align(128))]
struct CachePadded<T>(T);

const _: () = assert!(std::mem::align_of::<CachePadded<u8>>() == CACHE_BLOCK);

/// Digests per block of [`Shared::observe_many`] for `shards` shards: about
/// 16 items per shard and lock, at least 1024 and at most 16384 (128 KiB of
/// digests), so the lock and header transfers are paid once for many items.
fn block_len(shards: usize) -> usize {
    (16 * shards).clamp(1 << 10, 1 << 14)
}

/// XORed into the digest before the shard's mix, so that the shard choice is
/// not the [`Digest::remix`] the Bloom probes use.
const SHARD_SALT: u64 = 0x5ba4_d0dd_f5ba_4d00;

/// A filter observed from many threads: `S` shards chosen by digest, each a
/// lock around its own filter (see the [module docs](self)).
///
/// ```
/// use ddf::{Requirements, Shared, Verdict, plan};
///
/// // Each shard the filter planned for the last 10,000 items at 0.1 %.
/// let best = &plan(&Requirements::count(10_000).fpr(0.001))?[0];
/// let seen = Shared::with_shards(4, |_| best.build())?;
/// std::thread::scope(|s| {
///     for t in 0..2 {
///         let seen = &seen;
///         s.spawn(move || {
///             for i in 0..1_000 {
///                 seen.observe(&(t, i));
///             }
///         });
///     }
/// });
/// assert_eq!(seen.observe(&(0, 17)), Verdict::Duplicate);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Shared<F, S = KeyedSipHasher> {
    shards: Box<[CachePadded<Mutex<F>>]>,
    hasher: S,
}

impl<F> Shared<F> {
    /// [`DEFAULT_SHARDS`] shards, `make(i)` building shard `i`, hashed by a
    /// [`KeyedSipHasher`] under a fresh random key.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf::{DEFAULT_SHARDS, Requirements, Shared, Verdict, plan};
    ///
    /// let best = &plan(&Requirements::count(1_000).fpr(0.01))?[0];
    /// let shared = Shared::new(|_| best.build())?;
    /// assert_eq!(shared.shards(), DEFAULT_SHARDS);
    /// assert_eq!(shared.observe("a"), Verdict::Unseen);
    /// assert_eq!(shared.observe("a"), Verdict::Duplicate);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(make: impl FnMut(usize) -> Result<F, ParamError>) -> Result<Self, ParamError> {
        Self::with_shards(DEFAULT_SHARDS, make)
    }

    /// `shards` (1..=[`MAX_SHARDS`]) shards, `make(i)` building shard `i`,
    /// under a fresh random key.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf::{Requirements, Shared, plan};
    ///
    /// let best = &plan(&Requirements::count(1_000).fpr(0.01))?[0];
    /// let shared = Shared::with_shards(4, |_| best.build())?;
    /// assert_eq!(shared.shards(), 4);
    /// assert!(Shared::with_shards(0, |_| best.build()).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_shards(
        shards: usize,
        make: impl FnMut(usize) -> Result<F, ParamError>,
    ) -> Result<Self, ParamError> {
        Self::with_hasher(shards, KeyedSipHasher::new(), make)
    }

    /// As [`with_shards`](Self::with_shards), with the key derived from
    /// `seed`, for runs that must replay (see
    /// [`Deduper::with_seed`](crate::Deduper::with_seed) for the risk).
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf::{Requirements, Shared, plan};
    ///
    /// // The same seed sends every item to the same shard.
    /// let best = &plan(&Requirements::count(1_000).fpr(0.01))?[0];
    /// let a = Shared::with_seed(4, 7, |_| best.build())?;
    /// let b = Shared::with_seed(4, 7, |_| best.build())?;
    /// assert_eq!(a.shard_of(a.digest("x")), b.shard_of(b.digest("x")));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_seed(
        shards: usize,
        seed: u64,
        make: impl FnMut(usize) -> Result<F, ParamError>,
    ) -> Result<Self, ParamError> {
        Self::with_hasher(shards, KeyedSipHasher::with_seed(seed), make)
    }
}

impl<F, S> Shared<F, S> {
    /// `shards` (1..=[`MAX_SHARDS`]) shards built by `make(i)`, hashed by
    /// `hasher`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf::{KeyedSipHasher, Requirements, Shared, plan};
    ///
    /// let best = &plan(&Requirements::count(1_000).fpr(0.01))?[0];
    /// let shared = Shared::with_hasher(2, KeyedSipHasher::with_seed(1), |_| best.build())?;
    /// assert_eq!(shared.shards(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_hasher(
        shards: usize,
        hasher: S,
        make: impl FnMut(usize) -> Result<F, ParamError>,
    ) -> Result<Self, ParamError> {
        ddf_param::ensure_range("shards", shards, 1..=MAX_SHARDS)?;
        let filters = (0..shards).map(make).collect::<Result<Vec<F>, _>>()?;
        Self::from_parts(filters, hasher)
    }

    /// Reassembles shards taken apart by [`into_parts`](Self::into_parts)
    /// (or loaded from snapshots), in shard order, with the hasher they were
    /// fed through. Fails unless there are 1..=[`MAX_SHARDS`] of them.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf::{Requirements, Shared, Verdict, plan};
    ///
    /// let best = &plan(&Requirements::count(1_000).fpr(0.01))?[0];
    /// let shared = Shared::with_seed(2, 7, |_| best.build())?;
    /// shared.observe("a");
    /// let (filters, hasher) = shared.into_parts();
    /// let again = Shared::from_parts(filters, hasher)?;
    /// assert_eq!(again.observe("a"), Verdict::Duplicate);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_parts(filters: Vec<F>, hasher: S) -> Result<Self, ParamError> {
        ddf_param::ensure_range("shards", filters.len(), 1..=MAX_SHARDS)?;
        Ok(Shared {
            shards: filters
                .into_iter()
                .map(|f| CachePadded(Mutex::new(f)))
                .collect(),
            hasher,
        })
    }

    /// The shards' filters in shard order, and the hasher.
    pub fn into_parts(self) -> (Vec<F>, S) {
        let filters = self
            .shards
            .into_vec()
            .into_iter()
            .map(|m| m.0.into_inner().unwrap_or_else(PoisonError::into_inner))
            .collect();
        (filters, self.hasher)
    }

    /// The number of shards, `S`.
    pub fn shards(&self) -> usize {
        self.shards.len()
    }

    /// The shard of `digest`: a fixed bijective mix of the digest (salted so
    /// it is none of the derivations the filters use), reduced to `0..S` by
    /// its high bits. The shard is thus independent of the row, slot or
    /// probes a filter takes from the same digest.
    #[inline]
    pub fn shard_of(&self, digest: Digest) -> usize {
        let mixed = Digest::new(ddf_hash::mix64(digest.get() ^ SHARD_SALT));
        mixed.reduce(self.shards.len() as u64) as usize
    }

    /// The filter of `digest`'s shard, locked: for several calls under one
    /// lock, or to record an order together with the verdict.
    #[inline]
    pub fn lock(&self, digest: Digest) -> MutexGuard<'_, F> {
        self.lock_shard(self.shard_of(digest))
    }

    fn lock_shard(&self, index: usize) -> MutexGuard<'_, F> {
        self.shards[index]
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The shard's filter if its lock is free now (a poisoned lock is taken
    /// as it is, as [`lock`](Self::lock) does).
    fn try_lock_shard(&self, index: usize) -> Option<MutexGuard<'_, F>> {
        match self.shards[index].0.try_lock() {
            Ok(guard) => Some(guard),
            Err(TryLockError::Poisoned(p)) => Some(p.into_inner()),
            Err(TryLockError::WouldBlock) => None,
        }
    }

    /// Runs `run(filter, group, results)` once per shard that `digests`
    /// meet, each shard's group in input order under one hold of its lock,
    /// and appends the results to `out` in input order.
    ///
    /// The digests are grouped by a counting sort on their shard. Shards are
    /// visited from a rotating start (the first digest's shard), first with
    /// `try_lock`, then, for those that were busy, waiting. Shards are
    /// independent, so the visiting order changes no result: the results
    /// are those of running each digest alone, in input order.
    fn grouped<R: Copy>(
        &self,
        digests: &[Digest],
        fill: R,
        scratch: &mut Groups<R>,
        out: &mut Vec<R>,
        mut run: impl FnMut(&mut F, &[Digest], &mut Vec<R>),
    ) {
        let n = digests.len();
        if n == 0 {
            return;
        }
        let shards = self.shards.len();
        let Groups {
            slot,
            starts,
            grouped,
            results,
            part,
            busy,
            tmp,
        } = scratch;
        // Count each shard's items; `slot[i]` holds item i's shard for now.
        starts.clear();
        starts.resize(shards + 1, 0);
        slot.clear();
        slot.extend(digests.iter().map(|&d| {
            let s = self.shard_of(d);
            starts[s + 1] += 1;
            s as u32
        }));
        for s in 0..shards {
            starts[s + 1] += starts[s];
        }
        // Scatter, stably: `slot[i]` becomes item i's place in `grouped`.
        grouped.clear();
        grouped.resize(n, Digest::default());
        let mut next = std::mem::take(part);
        next.clear();
        next.extend_from_slice(&starts[..shards]);
        for (i, &d) in digests.iter().enumerate() {
            let s = slot[i] as usize;
            let at = next[s];
            next[s] += 1;
            grouped[at as usize] = d;
            slot[i] = at;
        }
        *part = next;
        results.clear();
        results.resize(n, fill);
        let first = self.shard_of(digests[0]);
        let mut done = |s: usize, f: &mut F, tmp: &mut Vec<R>| {
            let (a, b) = (starts[s] as usize, starts[s + 1] as usize);
            tmp.clear();
            run(f, &grouped[a..b], tmp);
            results[a..b].copy_from_slice(tmp);
        };
        busy.clear();
        for s in (first..shards).chain(0..first) {
            if starts[s] == starts[s + 1] {
                continue;
            }
            match self.try_lock_shard(s) {
                Some(mut f) => done(s, &mut f, tmp),
                None => busy.push(s as u32),
            }
        }
        for &s in busy.iter() {
            let s = s as usize;
            done(s, &mut self.lock_shard(s), tmp);
        }
        out.reserve(n);
        out.extend(slot.iter().map(|&at| results[at as usize]));
    }

    /// Calls `f(i, filter)` on every shard in order, each under its lock
    /// (one at a time), and collects the results: to save, inspect or
    /// clear the shards while other threads keep observing.
    pub fn each_shard<R>(&self, mut f: impl FnMut(usize, &mut F) -> R) -> Vec<R> {
        (0..self.shards.len())
            .map(|i| f(i, &mut self.lock_shard(i)))
            .collect()
    }

    /// The hasher.
    pub fn hasher(&self) -> &S {
        &self.hasher
    }
}

impl<F: DuplicateFilter, S: BuildHasher> Shared<F, S> {
    /// The digest the filters see for `item`.
    #[inline]
    pub fn digest<T: Hash + ?Sized>(&self, item: &T) -> Digest {
        ddf_hash::digest(&self.hasher, item)
    }

    /// Detect, then insert, `item`, in its shard.
    #[inline]
    pub fn observe<T: Hash + ?Sized>(&self, item: &T) -> Verdict {
        self.observe_digest(self.digest(item))
    }

    /// Whether `item` is reported as seen. No side effects.
    #[inline]
    pub fn contains<T: Hash + ?Sized>(&self, item: &T) -> bool {
        self.contains_digest(self.digest(item))
    }

    /// Records `item` as seen.
    #[inline]
    pub fn insert<T: Hash + ?Sized>(&self, item: &T) {
        self.insert_digest(self.digest(item));
    }

    /// [`observe`](Self::observe) for a digest computed elsewhere.
    #[inline]
    pub fn observe_digest(&self, digest: Digest) -> Verdict {
        self.lock(digest).observe(digest)
    }

    /// [`contains`](Self::contains) for a digest.
    #[inline]
    pub fn contains_digest(&self, digest: Digest) -> bool {
        self.lock(digest).contains(digest)
    }

    /// [`insert`](Self::insert) for a digest.
    #[inline]
    pub fn insert_digest(&self, digest: Digest) {
        self.lock(digest).insert(digest);
    }

    /// Observes `items` in order, appending one verdict per item to
    /// `verdicts` (not cleared first): the verdicts, and the shards' states,
    /// of [`observe`](Self::observe) called on each item in turn.
    ///
    /// Items are hashed in blocks (about 16 per shard, 1024 to 16384), each
    /// block is grouped by shard, and each shard's group goes through the
    /// filter's [`observe_batch`](DuplicateFilter::observe_batch) under one
    /// hold of the shard's lock (see the [module docs](self#what-an-operation-writes-and-why-it-scales)).
    /// Each shard's group is atomic towards other threads; the block as a
    /// whole is not.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf::{Requirements, Shared, Verdict, plan};
    ///
    /// let best = &plan(&Requirements::count(1_000).fpr(0.001))?[0];
    /// let seen = Shared::with_seed(8, 1, |_| best.build())?;
    /// let mut verdicts = Vec::new();
    /// seen.observe_many(["a", "b", "a"].iter(), &mut verdicts);
    /// assert_eq!(verdicts, [Verdict::Unseen, Verdict::Unseen, Verdict::Duplicate]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn observe_many<'a, T, I>(&self, items: I, verdicts: &mut Vec<Verdict>)
    where
        T: Hash + ?Sized + 'a,
        I: IntoIterator<Item = &'a T>,
    {
        self.many(items, Verdict::Unseen, verdicts, |f, d, out| {
            f.observe_batch(d, out)
        });
    }

    /// Appends, for each of `items` in order, whether it is reported as seen
    /// (the answers of [`contains`](Self::contains)), grouped by shard as
    /// [`observe_many`](Self::observe_many) does, through each filter's
    /// [`contains_batch`](DuplicateFilter::contains_batch). No side effects.
    pub fn contains_many<'a, T, I>(&self, items: I, answers: &mut Vec<bool>)
    where
        T: Hash + ?Sized + 'a,
        I: IntoIterator<Item = &'a T>,
    {
        self.many(items, false, answers, |f, d, out| f.contains_batch(d, out));
    }

    /// [`observe_many`](Self::observe_many) for digests computed elsewhere.
    pub fn observe_digests(&self, digests: &[Digest], verdicts: &mut Vec<Verdict>) {
        self.in_blocks(digests, Verdict::Unseen, verdicts, |f, d, out| {
            f.observe_batch(d, out)
        });
    }

    /// [`contains_many`](Self::contains_many) for digests.
    pub fn contains_digests(&self, digests: &[Digest], answers: &mut Vec<bool>) {
        self.in_blocks(digests, false, answers, |f, d, out| {
            f.contains_batch(d, out)
        });
    }

    /// Hashes `items` in blocks of [`block_len`] and runs each block
    /// through [`grouped`](Self::grouped).
    fn many<'a, T, I, R: Copy>(
        &self,
        items: I,
        fill: R,
        out: &mut Vec<R>,
        mut run: impl FnMut(&mut F, &[Digest], &mut Vec<R>),
    ) where
        T: Hash + ?Sized + 'a,
        I: IntoIterator<Item = &'a T>,
    {
        let items = items.into_iter();
        let block = block_len(self.shards.len());
        // A short batch allocates for what it holds, not a whole block.
        let mut digests = Vec::with_capacity(items.size_hint().1.map_or(block, |n| n.min(block)));
        let mut scratch = Groups::new();
        for item in items {
            digests.push(self.digest(item));
            if digests.len() == block {
                self.grouped(&digests, fill, &mut scratch, out, &mut run);
                digests.clear();
            }
        }
        self.grouped(&digests, fill, &mut scratch, out, &mut run);
    }

    /// Runs `digests` through [`grouped`](Self::grouped) in blocks of
    /// [`block_len`].
    fn in_blocks<R: Copy>(
        &self,
        digests: &[Digest],
        fill: R,
        out: &mut Vec<R>,
        mut run: impl FnMut(&mut F, &[Digest], &mut Vec<R>),
    ) {
        let mut scratch = Groups::new();
        for block in digests.chunks(block_len(self.shards.len())) {
            self.grouped(block, fill, &mut scratch, out, &mut run);
        }
    }

    /// The shards' state bits, summed.
    pub fn memory_bits(&self) -> u64 {
        self.each_shard(|_, f| f.memory_bits()).into_iter().sum()
    }

    /// Clears every shard (one at a time: items observed meanwhile in a
    /// shard already cleared are kept).
    pub fn clear(&self) {
        self.each_shard(|_, f| f.clear());
    }
}

impl<F: TimedFilter, S: BuildHasher> Shared<F, S> {
    /// Detect, then insert, `item` at time `now` (see the [module
    /// docs](self) on clocks and threads).
    #[inline]
    pub fn observe_at<T: Hash + ?Sized>(&self, item: &T, now: u64) -> Verdict {
        let d = self.digest(item);
        self.lock(d).observe_at(d, now)
    }

    /// Whether `item` is reported as seen at time `now`. No side effects.
    #[inline]
    pub fn contains_at<T: Hash + ?Sized>(&self, item: &T, now: u64) -> bool {
        let d = self.digest(item);
        self.lock(d).contains_at(d, now)
    }

    /// Records `item` as seen at time `now`.
    #[inline]
    pub fn insert_at<T: Hash + ?Sized>(&self, item: &T, now: u64) {
        let d = self.digest(item);
        self.lock(d).insert_at(d, now);
    }

    /// Observes `items` in order at the one time `now`, appending one
    /// verdict per item: the verdicts and states of
    /// [`observe_at`](Self::observe_at) on each item in turn, grouped by
    /// shard as [`observe_many`](Self::observe_many) does, through each
    /// filter's [`observe_batch_at`](TimedFilter::observe_batch_at).
    ///
    /// ```
    /// use ddf::{Requirements, Shared, Verdict, plan};
    ///
    /// // The last 60 time units at about 16 items per unit.
    /// let best = &plan(&Requirements::time(60, 16.0).fpr(0.001))?[0];
    /// let seen = Shared::with_seed(4, 1, |_| best.build())?;
    /// let mut verdicts = Vec::new();
    /// seen.observe_many_at(["a", "a"].iter(), 10, &mut verdicts);
    /// assert_eq!(verdicts, [Verdict::Unseen, Verdict::Duplicate]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn observe_many_at<'a, T, I>(&self, items: I, now: u64, verdicts: &mut Vec<Verdict>)
    where
        T: Hash + ?Sized + 'a,
        I: IntoIterator<Item = &'a T>,
    {
        self.many(items, Verdict::Unseen, verdicts, |f, d, out| {
            f.observe_batch_at(d, now, out)
        });
    }

    /// Appends whether each of `items` is reported as seen at time `now`
    /// (the answers of [`contains_at`](Self::contains_at)), through each
    /// filter's [`contains_batch_at`](TimedFilter::contains_batch_at). No
    /// side effects.
    pub fn contains_many_at<'a, T, I>(&self, items: I, now: u64, answers: &mut Vec<bool>)
    where
        T: Hash + ?Sized + 'a,
        I: IntoIterator<Item = &'a T>,
    {
        self.many(items, false, answers, |f, d, out| {
            f.contains_batch_at(d, now, out)
        });
    }

    /// [`observe_many_at`](Self::observe_many_at) for digests.
    pub fn observe_digests_at(&self, digests: &[Digest], now: u64, verdicts: &mut Vec<Verdict>) {
        self.in_blocks(digests, Verdict::Unseen, verdicts, |f, d, out| {
            f.observe_batch_at(d, now, out)
        });
    }

    /// [`contains_many_at`](Self::contains_many_at) for digests.
    pub fn contains_digests_at(&self, digests: &[Digest], now: u64, answers: &mut Vec<bool>) {
        self.in_blocks(digests, false, answers, |f, d, out| {
            f.contains_batch_at(d, now, out)
        });
    }
}

/// The plan of a sharded filter: what each of `S` shards must be so that
/// the user's requirements hold for the merged stream (see the [module
/// docs](self)).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ShardedPlan {
    /// `S`.
    pub shards: usize,
    /// The probability allowed for some item of the last `w` merged items to
    /// be outside its shard's window, at a given moment (count windows).
    pub delta: f64,
    /// The window asked for, over the merged stream.
    pub span: Span,
    /// One shard's window: `Count(w_s)`, `Time { span, rate: λ/S }`, or
    /// `Unbounded`.
    pub shard_span: Span,
    /// The union bound `S·P(Binomial(w, 1/S) > w_s)` on that probability at
    /// the chosen `w_s` (≤ `delta`); 0 for time windows and the whole stream.
    pub miss_bound: f64,
    /// One shard's candidates, best first, as [`plan`] ranks them for the
    /// shard's requirements (memory budget split `S` ways, the slack limit
    /// mapped to the shard's own insertions). Each candidate's `memory_bits`
    /// is one shard's; the whole takes `S` times as much.
    pub candidates: Vec<Candidate>,
}

impl ShardedPlan {
    /// The expected slack of `candidate` (one shard's) over the merged
    /// stream: `S·(w_s + s_s) − w` for count windows, the shard's slack for
    /// time windows.
    pub fn merged_slack(&self, candidate: &Candidate) -> u64 {
        match (self.span, self.shard_span) {
            (Span::Count(w), Span::Count(ws)) => {
                ddf_theory::sharding::merged_slack(w, self.shards as u64, ws, candidate.slack)
            }
            _ => candidate.slack,
        }
    }

    /// The state bits of all `S` shards of `candidate`.
    pub fn memory_bits(&self, candidate: &Candidate) -> u64 {
        candidate.memory_bits.saturating_mul(self.shards as u64)
    }

    /// Builds `candidate` once per shard (each shard's generators seeded
    /// apart) and shares them behind a hasher under a fresh random key.
    pub fn build(&self, candidate: &Candidate) -> Result<Shared<crate::Filter>, ParamError> {
        self.build_with_hasher(candidate, KeyedSipHasher::new())
    }

    /// As [`build`](Self::build), with the given hasher.
    // With no family planned (`build.rs`), a candidate cannot exist.
    #[cfg_attr(some_families_off, allow(unused_variables, unused_mut))]
    pub fn build_with_hasher<S>(
        &self,
        candidate: &Candidate,
        hasher: S,
    ) -> Result<Shared<crate::Filter, S>, ParamError> {
        Shared::with_hasher(self.shards, hasher, |i| {
            let mut shard = candidate.clone();
            shard.seed = ddf_hash::mix64(candidate.seed ^ i as u64);
            crate::Filter::try_from(&shard)
        })
    }
}

/// Plans a filter of `shards` shards (1..=[`MAX_SHARDS`]; [`DEFAULT_SHARDS`]
/// is a good choice) so that `req` holds over the merged stream, a count
/// window with probability at least `1 − delta` at any moment (see the
/// [module docs](self)).
///
/// For a count window `w` each shard is planned for `w_s`
/// ([`ddf_theory::sharding::shard_window`]); for a time window, for the
/// same span at rate `λ/S`; for the whole stream, as asked (each shard then
/// sees fewer distinct items than planned for, so the prediction is
/// conservative). A memory budget is split evenly, and a slack limit `m`
/// over merged items ([`Requirements::slack_limit`], 1 % of the window by
/// default) becomes `⌊(m + w)/S⌋ − w_s` shard insertions, so every
/// candidate's [`merged_slack`](ShardedPlan::merged_slack) is at most `m`.
///
/// The binomial excess `S·w_s − w` (about `z·√(w·S)`) is itself merged
/// slack. When it exceeds `m`, no shard size meets both the window promise
/// and the limit, and the plan fails with [`PlanError::TooManyShards`],
/// which names a shard count that meets it (fewer shards) and the excess
/// (the `max_slack` that `S` shards need).
///
/// ```
/// use ddf::{PlanError, Requirements, plan_sharded};
///
/// // 8 shards over 100,000 items hold about 4,300 items beyond the window.
/// let req = Requirements::count(100_000).fpr(0.001);
/// let p = plan_sharded(&req.clone().max_slack(10_000), 8, 1e-6)?;
/// assert!(p.miss_bound <= 1e-6 && !p.candidates.is_empty());
/// assert!(p.candidates.iter().all(|c| p.merged_slack(c) <= 10_000));
///
/// // The default slack (1 %, 1,000 items) is too tight for 8 shards.
/// match plan_sharded(&req, 8, 1e-6) {
///     Err(PlanError::TooManyShards { fits, excess, .. }) => {
///         assert!(fits < 8 && excess > 1_000);
///         assert!(plan_sharded(&req, fits, 1e-6).is_ok());
///     }
///     other => panic!("{other:?}"),
/// }
/// # Ok::<(), ddf::PlanError>(())
/// ```
pub fn plan_sharded(
    req: &Requirements,
    shards: usize,
    delta: f64,
) -> Result<ShardedPlan, PlanError> {
    let s = ddf_param::ensure_range("shards", shards, 1..=MAX_SHARDS)? as u64;
    let delta = ddf_param::ensure_probability("delta", delta)?;
    let span = req.span();
    let (shard_span, miss_bound, slack): (Span, f64, Box<dyn Fn(u64) -> u64>) = match span {
        Span::Count(w) => {
            // A zero window stays zero, for `plan` below to reject by name.
            let ws = ddf_theory::sharding::shard_window(w, s, delta).unwrap_or(w);
            let limit = req.slack_limit();
            let excess = binomial_excess(w, s, delta);
            if excess > limit {
                return Err(PlanError::TooManyShards {
                    shards,
                    excess,
                    max_slack: limit,
                    fits: shards_within(w, s, delta, limit) as usize,
                });
            }
            let bound = ddf_theory::sharding::shard_window_miss_bound(w, s, ws);
            let slack = move |m: u64| (m.saturating_add(w) / s).saturating_sub(ws);
            (Span::Count(ws), bound, Box::new(slack))
        }
        Span::Time { span, rate } => (
            Span::Time {
                span,
                rate: rate / s as f64,
            },
            0.0,
            Box::new(|m| m),
        ),
        Span::Unbounded => (Span::Unbounded, 0.0, Box::new(|m| m)),
    };
    let shard_req = req.for_shard(shard_span, s, slack);
    let candidates = plan(&shard_req)?;
    Ok(ShardedPlan {
        shards,
        delta,
        span,
        shard_span,
        miss_bound,
        candidates,
    })
}

/// `S·w_s − w`: the merged insertions `shards` shards hold beyond a count
/// window `w`, each holding the window `w_s` of [`plan_sharded`] (0 for a
/// zero window, which `plan` rejects by name).
fn binomial_excess(w: u64, shards: u64, delta: f64) -> u64 {
    ddf_theory::sharding::shard_window(w, shards, delta)
        .map_or(0, |ws| ddf_theory::sharding::merged_slack(w, shards, ws, 0))
}

/// A shard count in `1..shards` whose [`binomial_excess`] is at most
/// `limit`, for a `shards` whose excess exceeds it: bisection between one
/// shard (no excess) and `shards`. The excess grows about as `√S`, so
/// this is the largest such count but for the quantile's rounding.
fn shards_within(w: u64, shards: u64, delta: f64, limit: u64) -> u64 {
    let (mut fits, mut fails) = (1, shards);
    while fails - fits > 1 {
        let mid = fits + (fails - fits) / 2;
        if binomial_excess(w, mid, delta) <= limit {
            fits = mid;
        } else {
            fails = mid;
        }
    }
    fits
}

const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Shared<crate::Filter>>();
    send_sync::<Shared<Box<dyn DuplicateFilter + Send>>>();
};
