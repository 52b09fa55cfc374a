//! The lock-free age-partitioned core: `observe(&self)` sets bits with
//! `fetch_or`, one thread at a time performs a due generation shift while
//! the others go on, and insertions are counted per stripe.
//!
//! # The protocol
//!
//! One word, `epoch`, holds the number of shifts so far, the physical index
//! of logical segment 0 (`base`) and a `BUSY` bit. A thread that finds a
//! shift due takes `BUSY` by a compare-exchange (the election), empties the
//! segment that becomes the newest, writes the clock words, and publishes
//! the next epoch with `BUSY` clear. Observers read the epoch and insert
//! into the `k` newest segments of the generation they read; on a count
//! window one waits for the shifter only when its flush finds the
//! generation full while the shift is held (below).
//!
//! Insertions are counted in 32 stripes, each in its own 128-byte line,
//! picked per thread; a stripe adds its count to the shared `counted` word
//! once per `c` insertions (`c` a power of two up to 64, with
//! `32·(c − 1) ≤ g/16`), and only that flush may elect a shifter. A
//! generation ends once `counted` has grown by `g` since the shift that
//! opened it (`gen_start`, read after that shift's publication), so shifts
//! never catch up: each needs `g` new counts.
//!
//! # What holds under concurrency
//!
//! Say insertion `I` of item `x` read epoch `e` and set its bits in the
//! physical segments of logical `0..k` at `e`. Shift `s` empties physical
//! `base₀ − s (mod k + l)`, which is one of `I`'s segments only for
//! `s ∈ e + l + 1 ..= e + k + l` (shifts up to `e` were published before `I`
//! read `e`, with their clears ordered before its bits; shifts
//! `e + 1 ..= e + l` empty other segments). So `x`'s bits stay until shift
//! `e + l + 1` starts. A later operation `C` on `x` (one that `I` happens before: the
//! same thread, or any synchronisation) reads an epoch `E ≥ e`, and while
//! `E ≤ e + l` finds `x`'s `k` segments in logical `E − e ..` `E − e + k`,
//! a run. Shift `e + l + 1` needs `l` shifts after shift `e + 1`, which was
//! published after `I` began, each after `g` new counts: at least `l·g`
//! insertions counted between `I`'s start and `C`'s end. Hence:
//!
//! * **Count window.** `C` reports `x` unless at least `l·g` insertions were
//!   counted between the start of `I` and the end of `C`; a count lags its
//!   insertion by less than `c` per thread, so at least `l·g − c·T`
//!   insertions completed in that interval, `T` the threads using the
//!   filter. (Concurrent insertions are in that interval too: the window of
//!   an operation racing others is counted from its own start.)
//! * **Time window.** An insertion at time `t` first waits until no
//!   period has passed at `t` (the one wait in the protocol, while another
//!   thread empties at most `k + l` segments), so it lands in a generation
//!   that opened after `t − τ`. Shifts by time advance `opened` by `τ`
//!   each, so the shift that empties `x` needs some operation at a time of
//!   at least `t + l·τ`: `C` reports `x` unless an operation with a time
//!   `≥ t + l·τ` began before `C` ended, or a generation closed early by
//!   count since `I` began (then the count window above holds).
//! * **Where a reader sees a cleared segment.** A shift empties the oldest
//!   segment (logical `k + l − 1`) *before* publishing, so readers of the
//!   old epoch may see it half emptied: it only holds items whose
//!   emptying shift this is. A reader of the new epoch sees it empty (the
//!   clear happens before the publication it acquired). An insertion that
//!   read an epoch `l` or more shifts old may set bits in the segment being
//!   emptied: such a bit is an extra false positive, never a miss.
//! * **False positives.** A flush that finds the generation full while
//!   another thread holds `BUSY` waits for that shift (without the wait, a
//!   shifter descheduled by the scheduler lets the others overfill the
//!   newest segment without bound). So after `counted` reaches the end of
//!   a generation each thread inserts at most `c` more items into it (up
//!   to its next flush), besides one in flight: a generation holds at most
//!   `g + (c + 1)·T` insertions, and the single-threaded bound holds with
//!   `g` raised to that (`concurrent/*` in verify).
//!
//! # Orderings
//!
//! Bit words are `Relaxed` (see `ddf_bits::AtomicBitArray`): a word's
//! modification order keeps a set bit until a later clear, and the epoch
//! word orders clears against sets. An insertion reads its `k` words
//! before the query and writes only the bits it found clear after it
//! (`AtomicSegments::insert_around`): every such read comes after the
//! epoch's Acquire load, so a bit it finds set was set after the clears of
//! that epoch and stays until shift `e + l + 1`, as a bit it set would.
//! Each other access carries its reason at the line.

use crate::core::{CACHED_BITS, ItemProbes};
use crate::core::{
    RUN_STEPS, algorithm_1_from, cubic_terms, query_stops, rotate_within, run_steps,
};
use ddf_bits::AtomicWord;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// The atomic word type and the wait of the protocol, so that the same code
/// runs over `std` and, in tests, over a model checker.
pub trait Platform: 'static {
    type Word: AtomicWord;
    /// Waits a moment for another thread's shift (a time-window insertion
    /// that found a period passed while a shift runs).
    fn pause();
}

/// The real platform: `std` atomics, and a yield to the scheduler while
/// another thread shifts (it may have been descheduled holding `BUSY`).
#[derive(Debug)]
pub struct Std;

impl Platform for Std {
    type Word = AtomicU64;
    fn pause() {
        std::thread::yield_now();
    }
}

/// How the segments of a lock-free filter store items.
pub trait AtomicSegments: Send + Sync {
    /// As `Segments::ALL_AT_ONCE`.
    const ALL_AT_ONCE: bool;
    /// As `Segments::CHAIN_AHEAD`: segments after each stop of an unseen
    /// item's query that the batch path hints too.
    const CHAIN_AHEAD: usize;
    /// Whether physical segment `seg` holds the item whose probe there is `x`.
    fn test(&self, seg: usize, x: u64) -> bool;
    /// Records the item whose probe in physical segment `seg` is `x`.
    fn set(&self, seg: usize, x: u64);
    /// Bit `p` set when physical segment `p` holds the item (`n ≤ 64`).
    #[inline]
    fn match_mask(&self, h: ItemProbes, cubic: &[u64]) -> u64 {
        let mut mask = 0;
        for (p, &t) in cubic.iter().enumerate() {
            mask |= u64::from(self.test(p, h.with_cubic(p, t))) << p;
        }
        mask
    }
    /// Records the item in the `k ≤ 64` physical segments from `first`
    /// (wrapping at `cubic.len()`) and returns `query()`, which runs
    /// between the reads and the writes of that insertion where the
    /// segments split them (see `AtomicSlices`), else before it.
    #[inline]
    fn insert_around(
        &self,
        h: ItemProbes,
        cubic: &[u64],
        first: usize,
        k: usize,
        query: impl FnOnce() -> bool,
    ) -> bool {
        let seen = query();
        let mut seg = first;
        for _ in 0..k {
            self.set(seg, h.at(seg, cubic));
            seg += 1;
            if seg == cubic.len() {
                seg = 0;
            }
        }
        seen
    }
    /// A cache hint for segment `seg`'s position of probe `x`.
    fn prefetch(&self, seg: usize, x: u64);
    /// Empties physical segment `seg` (others may be setting bits in it
    /// or its neighbours meanwhile: none of theirs outside it is lost).
    fn clear_segment(&self, seg: usize);
    /// Empties every segment.
    fn clear_all(&self);
    /// State bits as the paper counts them.
    fn memory_bits(&self) -> u64;
}

/// Stripes of the insertion count.
pub(crate) const STRIPES: usize = 32;

/// One counter in its own pair of cache lines (the adjacent-line
/// prefetcher of x86 fetches lines in pairs, so 64 bytes would still share).
#[repr(align(128))]
pub(crate) struct Padded<W>(pub(crate) W);

/// The `BUSY` bit of the epoch word.
const BUSY: u64 = 1;
/// `base` sits in bits 1..13 (`k + l ≤ 4096`), the shift count above.
const BASE_SHIFT: u32 = 1;
const BASE_MASK: u64 = 0xfff;
const COUNT_SHIFT: u32 = 13;
/// `opened` before the first timed insertion.
pub(crate) const NOT_STARTED: u64 = u64::MAX;

/// The stripe of the calling thread: threads take stripes in turn, so up
/// to [`STRIPES`] threads have one each.
pub(crate) fn thread_stripe() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        // Relaxed: the index only spreads threads; any value is correct.
        static STRIPE: usize = NEXT.fetch_add(1, Ordering::Relaxed) % STRIPES;
    }
    STRIPE.with(|s| *s)
}

/// The flush size `c` for generations of `g`: the largest power of two up
/// to 64 with `STRIPES·(c − 1) ≤ g/16`, so counts held back in stripes are
/// at most a sixteenth of a generation while every stripe is used.
pub(crate) fn chunk_for(g: u64) -> u64 {
    let mut c = 64u64;
    while c > 1 && (STRIPES as u64) * (c - 1) > g / 16 {
        c /= 2;
    }
    c
}

/// The shared state of `AtomicApbf` and `AtomicApbbf`.
pub struct AtomicCore<S, P: Platform> {
    pub(crate) segs: S,
    pub(crate) k: u32,
    pub(crate) l: u32,
    /// `g`: counted insertions per generation.
    pub(crate) generation: u64,
    /// `τ`, for time-closed generations.
    pub(crate) period: Option<u64>,
    cubic: Box<[u64]>,
    run_steps: [u32; RUN_STEPS],
    all_at_once: bool,
    /// `c − 1`, the flush size minus one (`c` a power of two).
    chunk_mask: u64,
    /// Shifts, `base` and `BUSY` (see the module documentation).
    epoch: P::Word,
    /// Insertions flushed from the stripes.
    counted: P::Word,
    /// `counted` when the current generation opened.
    gen_start: P::Word,
    /// When the current generation opened ([`NOT_STARTED`] before the first
    /// timed insertion); written by the shifter only.
    opened: P::Word,
    /// Timed insertions stamped before `opened` (clamped to it).
    regressions: P::Word,
    /// Generations closed by count before their period passed.
    closed_early: P::Word,
    stripes: Box<[Padded<P::Word>]>,
}

impl<S: std::fmt::Debug, P: Platform> std::fmt::Debug for AtomicCore<S, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AtomicCore")
            .field("segs", &self.segs)
            .field("k", &self.k)
            .field("l", &self.l)
            .field("generation", &self.generation)
            .field("period", &self.period)
            .finish_non_exhaustive()
    }
}

/// What the single-threaded core holds besides the segments, to build an
/// atomic core from or to give back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Position {
    pub(crate) base: usize,
    pub(crate) in_generation: u64,
    /// `(opened, latest, regressions)` once a timed filter has started.
    pub(crate) clock: Option<(u64, u64, u64)>,
    pub(crate) closed_early: u64,
}

impl<S: AtomicSegments, P: Platform> AtomicCore<S, P> {
    pub(crate) fn new(
        segs: S,
        k: u32,
        l: u32,
        generation: u64,
        period: Option<u64>,
        at: Position,
    ) -> Self {
        let n = k + l;
        let all_at_once = S::ALL_AT_ONCE && n <= 64 && segs.memory_bits() < CACHED_BITS;
        let c = chunk_for(generation);
        let (opened, regressions) = match at.clock {
            Some((opened, _latest, regressions)) => (opened, regressions),
            None => (NOT_STARTED, 0),
        };
        // The current generation's insertions go to stripe 0, flushed in
        // whole chunks as an insertion would have flushed them.
        let flushed = at.in_generation & !(c - 1);
        let stripes = (0..STRIPES)
            .map(|i| Padded(P::Word::new(if i == 0 { at.in_generation } else { 0 })))
            .collect();
        AtomicCore {
            segs,
            k,
            l,
            generation,
            period,
            cubic: cubic_terms(n as usize),
            run_steps: run_steps(k),
            all_at_once,
            chunk_mask: c - 1,
            epoch: P::Word::new((at.base as u64) << BASE_SHIFT),
            counted: P::Word::new(flushed),
            gen_start: P::Word::new(0),
            opened: P::Word::new(opened),
            regressions: P::Word::new(regressions),
            closed_early: P::Word::new(at.closed_early),
            stripes,
        }
    }

    #[inline(always)]
    fn n(&self) -> usize {
        (self.k + self.l) as usize
    }

    #[inline(always)]
    fn base_of(word: u64) -> usize {
        ((word >> BASE_SHIFT) & BASE_MASK) as usize
    }

    /// The flush size `c`.
    pub(crate) fn chunk(&self) -> u64 {
        self.chunk_mask + 1
    }

    /// The shifts performed since construction.
    pub(crate) fn shifts(&self) -> u64 {
        // Relaxed: a statistic; callers needing order hold `&mut`.
        self.epoch.load(Ordering::Relaxed) >> COUNT_SHIFT
    }

    /// Where the state stands, for a copy into the single-threaded type:
    /// exact when no operation runs meanwhile (`&mut` or `into_inner`).
    pub(crate) fn position(&self) -> Position {
        // Relaxed throughout: the caller either owns the filter or accepts
        // a copy of words each read once (see `AtomicApbf::to_apbf`).
        let word = self.epoch.load(Ordering::Relaxed);
        let total: u64 = self
            .stripes
            .iter()
            .map(|s| s.0.load(Ordering::Relaxed))
            .sum();
        // Counts since the generation opened; the stripes hold every
        // insertion, `gen_start` the flushed ones when it opened.
        let in_generation = total
            .saturating_sub(self.gen_start.load(Ordering::Relaxed))
            .min(self.generation);
        let opened = self.opened.load(Ordering::Relaxed);
        let clock = (opened != NOT_STARTED)
            .then(|| (opened, opened, self.regressions.load(Ordering::Relaxed)));
        Position {
            base: Self::base_of(word),
            in_generation,
            clock,
            closed_early: self.closed_early.load(Ordering::Relaxed),
        }
    }

    /// Physical index of logical segment 0 after `shifts ≤ n` virtual shifts.
    #[inline(always)]
    fn start(&self, base: usize, shifts: usize) -> usize {
        if base >= shifts {
            base - shifts
        } else {
            base + self.n() - shifts
        }
    }

    /// Whether `k` consecutive logical segments match, logical segments
    /// below `shifts` counted empty: Algorithm 1, or for a cached state of
    /// at most 64 segments every segment tested at once.
    #[inline]
    fn detect(&self, h: ItemProbes, base: usize, shifts: usize) -> bool {
        let (n, start) = (self.n(), self.start(base, shifts));
        if self.all_at_once {
            let logical = rotate_within(self.segs.match_mask(h, &self.cubic), start, n);
            let live = logical & u64::MAX.checked_shl(shifts as u32).unwrap_or(0);
            let mut runs = live;
            for &s in &self.run_steps {
                runs &= runs >> s;
            }
            return runs != 0;
        }
        let (k, segs, cubic) = (self.k as usize, &self.segs, &self.cubic);
        algorithm_1_from(
            k,
            n,
            start,
            shifts,
            #[inline(always)]
            |s| segs.test(s, h.at(s, cubic)),
        )
        .0
    }

    /// Records the item in the `k` physical segments from `base`.
    #[inline]
    fn set_item(&self, h: ItemProbes, base: usize) {
        let n = self.n();
        let mut seg = base;
        for _ in 0..self.k {
            self.segs.set(seg, h.at(seg, &self.cubic));
            seg += 1;
            if seg == n {
                seg = 0;
            }
        }
    }

    /// Shifts owed at `now` by the clock words read with `word`.
    #[inline]
    fn pending(&self, opened: u64, now: u64) -> usize {
        match self.period {
            Some(tau) if opened != NOT_STARTED && now > opened => {
                ((now - opened) / tau).min(self.n() as u64) as usize
            }
            _ => 0,
        }
    }

    /// Whether the item is reported at `now` (ignored without a clock; `None`
    /// answers at the current generation's opening).
    #[inline]
    pub(crate) fn contains(&self, digest: ddf_core::Digest, now: Option<u64>) -> bool {
        let h = ItemProbes::of(digest);
        // The sentinel is no time: `u64::MAX` is read as one less.
        let now = now.map(|t| t.min(NOT_STARTED - 1));
        // Acquire: pairs with the shifter's publishing swap, so a segment
        // this epoch calls newest is seen emptied.
        let word = self.epoch.load(Ordering::Acquire);
        let shifts = match (self.period, now) {
            (Some(_), Some(now)) => {
                // Acquire: `opened` is written before the epoch is published,
                // so it is at least as new as `word`'s; a newer one (from a
                // shift in progress) owes fewer shifts: more reported, never
                // fewer.
                let opened = self.opened.load(Ordering::Acquire);
                self.pending(opened, now)
            }
            _ => 0,
        };
        self.detect(h, Self::base_of(word), shifts)
    }

    /// The query then the insertion of `digest` at `now` (`None`: the
    /// current generation's time); the verdict is the query's.
    #[inline]
    pub(crate) fn observe(
        &self,
        digest: ddf_core::Digest,
        now: Option<u64>,
        stripe: usize,
    ) -> bool {
        let h = ItemProbes::of(digest);
        // The sentinel is no time: `u64::MAX` is read as one less.
        let now = now.map(|t| t.min(NOT_STARTED - 1));
        let word = match self.period {
            None => {
                // Acquire: pairs with the shifter's publishing swap: the
                // clear of every segment emptied up to this epoch happens
                // before the bits set below, which it cannot then erase.
                self.epoch.load(Ordering::Acquire)
            }
            Some(tau) => self.enter_timed(now, tau),
        };
        let base = Self::base_of(word);
        let k = self.k as usize;
        let seen = if k <= 64 {
            self.segs
                .insert_around(h, &self.cubic, base, k, || self.detect(h, base, 0))
        } else {
            let seen = self.detect(h, base, 0);
            self.set_item(h, base);
            seen
        };
        self.count(stripe, now);
        seen
    }

    /// Waits until no period has passed at `now` (shifting if elected) and
    /// returns an epoch word read with the `opened` that belongs to it.
    fn enter_timed(&self, now: Option<u64>, tau: u64) -> u64 {
        loop {
            // Acquire: as in `observe`, and for `opened` below.
            let word = self.epoch.load(Ordering::Acquire);
            if word & BUSY != 0 {
                // A shift is being made: its `opened` may not match `word`.
                P::pause();
                continue;
            }
            // Acquire: pairs with the shifter's Release store; if this reads
            // a value written under `BUSY`, the reload below sees `BUSY` or
            // a later epoch, and we retry (a sequence lock's read side).
            let opened = self.opened.load(Ordering::Acquire);
            // Relaxed: ordered after the Acquire load above, which is all
            // the check needs (coherence).
            if self.epoch.load(Ordering::Relaxed) != word {
                continue;
            }
            let now = match now {
                Some(t) => t,
                None if opened == NOT_STARTED => 0,
                None => opened,
            };
            let due = opened == NOT_STARTED || (now > opened && now - opened >= tau);
            if !due {
                if now < opened {
                    // Relaxed: a statistic.
                    self.regressions.fetch_add(1, Ordering::Relaxed);
                }
                return word;
            }
            // SeqCst: the election; acquires the previous shifter's words
            // and takes part in the flush/recheck order (see `maybe_shift`).
            if self
                .epoch
                .compare_exchange(word, word | BUSY, Ordering::SeqCst, Ordering::Relaxed)
                .is_ok()
            {
                self.close_generations(word, Some(now));
                // Flushes that found `BUSY` meanwhile left the recheck to us.
                self.maybe_shift(Some(now));
            }
        }
    }

    /// Counts one insertion in `stripe`; every `c`-th flushes `c` to
    /// `counted` and shifts if a generation is full.
    #[inline]
    fn count(&self, stripe: usize, now: Option<u64>) {
        // Relaxed: the stripe only counts; the flush below is the shared
        // write the shift decision reads.
        let v = self.stripes[stripe % STRIPES]
            .0
            .fetch_add(1, Ordering::Relaxed)
            .wrapping_add(1);
        if v & self.chunk_mask == 0 {
            self.flush(now);
        }
    }

    #[inline(never)]
    fn flush(&self, now: Option<u64>) {
        // SeqCst: with the shifter's SeqCst publish and recheck, a flush
        // that finds `BUSY` set is seen by that shifter's recheck.
        self.counted
            .fetch_add(self.chunk_mask + 1, Ordering::SeqCst);
        self.maybe_shift(now);
    }

    /// Shifts while a generation is full and no other thread is shifting.
    fn maybe_shift(&self, now: Option<u64>) {
        loop {
            // SeqCst (this load and the next two): the store-buffer pattern
            // between a flusher (add to `counted`, then read `epoch`) and
            // the shifter (publish `epoch`, then read `counted`) needs one
            // total order, so that one of the two sees the other.
            let word = self.epoch.load(Ordering::SeqCst);
            let full = self.counted.load(Ordering::SeqCst)
                >= self.gen_start.load(Ordering::SeqCst) + self.generation;
            if !full {
                return;
            }
            if word & BUSY != 0 {
                // The generation is full and another thread holds the
                // shift: wait for it rather than overfill the newest
                // segment while that thread is descheduled (the bound of
                // `g + (c + 1)·T` items per generation). A shift that is
                // not owed (`BUSY` under a timed shift of a generation not
                // yet full) never makes a flush wait.
                P::pause();
                continue;
            }
            // SeqCst: the election, as in `enter_timed`.
            if self
                .epoch
                .compare_exchange(word, word | BUSY, Ordering::SeqCst, Ordering::Relaxed)
                .is_ok()
            {
                self.close_generations(word, now);
            }
        }
    }

    /// The shifter's work, holding `BUSY` taken on `word`: shifts owed by
    /// time, then one if the generation is full, then the publication.
    fn close_generations(&self, word: u64, now: Option<u64>) {
        let n = self.n();
        let (mut base, mut shifts) = (Self::base_of(word), word >> COUNT_SHIFT);
        // Relaxed (these three): written only by shifters, and the last
        // shifter's writes happen before its publishing swap, which our
        // SeqCst election read.
        let mut opened = self.opened.load(Ordering::Relaxed);
        let start = self.gen_start.load(Ordering::Relaxed);
        let mut reopened = false;
        let starts = opened == NOT_STARTED;
        if let (Some(tau), true) = (self.period, starts) {
            // The first insertion opens the first generation on the grid
            // `⌊t/τ⌋·τ` (clamped off the sentinel), with logical segment 0
            // where `AgeCore` puts it, `(−⌊t/τ⌋) mod (k + l)`: no insertion
            // has read an epoch yet, so the base moves before any bit is set.
            let now = now.unwrap_or(0);
            opened = now - now % tau;
            base = crate::core::aligned_base(now / tau, n);
        }
        let mut shift = |segs: &S| {
            base = if base == 0 { n - 1 } else { base - 1 };
            segs.clear_segment(base);
            shifts += 1;
        };
        // Shifts beyond `k + l` (a long pause): the base moves on as if
        // they were made, as in `AgeCore`, once the segments are empty.
        let mut beyond = 0;
        if let Some(tau) = self.period {
            let now = now.unwrap_or(opened);
            if !starts && now > opened && now - opened >= tau {
                let periods = (now - opened) / tau;
                for _ in 0..periods.min(n as u64) {
                    shift(&self.segs);
                }
                beyond = (periods.saturating_sub(n as u64) % n as u64) as usize;
                // Generations stay on the grid of periods from the first.
                // At most `now`, below the sentinel.
                opened = opened.saturating_add(periods.saturating_mul(tau));
                reopened = true;
            }
            // SeqCst: ordered with the flushes, as in `maybe_shift`.
            if !reopened && self.counted.load(Ordering::SeqCst) >= start + self.generation {
                // Full before its period passed: closed early by count; the
                // next generation ends where the period would have.
                shift(&self.segs);
                reopened = true;
                // Relaxed: a statistic.
                self.closed_early.fetch_add(1, Ordering::Relaxed);
            }
        } else if self.counted.load(Ordering::SeqCst) >= start + self.generation {
            shift(&self.segs);
            reopened = true;
        }
        base = (base + n - beyond) % n;
        // Release: pairs with the Acquire loads of `enter_timed` and `contains`.
        self.opened.store(opened, Ordering::Release);
        let next = (shifts << COUNT_SHIFT) | ((base as u64) << BASE_SHIFT);
        if reopened {
            // SeqCst: publishes the new epoch (its Release part carries the
            // clears and clock words), still `BUSY` so that no other thread
            // shifts before the next generation's start is set.
            self.epoch.store(next | BUSY, Ordering::SeqCst);
            // SeqCst: read after the publication, so every count from here
            // on belongs to an insertion that returns after it: a shift
            // needs `g` counts after the previous one was published (the
            // no-false-negative argument of the module docs).
            self.gen_start
                .store(self.counted.load(Ordering::SeqCst), Ordering::SeqCst);
        }
        // SeqCst: clears `BUSY`; its place in the total order makes the
        // caller's next `maybe_shift` round see any flush that found `BUSY`.
        self.epoch.store(next, Ordering::SeqCst);
    }

    /// Empties every segment and resets the counts and clock (`&mut`: no
    /// operation runs meanwhile).
    pub(crate) fn clear(&mut self) {
        self.segs.clear_all();
        // Relaxed throughout: `&mut self` excludes every other access.
        self.epoch.store(0, Ordering::Relaxed);
        self.counted.store(0, Ordering::Relaxed);
        self.gen_start.store(0, Ordering::Relaxed);
        self.opened.store(NOT_STARTED, Ordering::Relaxed);
        self.regressions.store(0, Ordering::Relaxed);
        self.closed_early.store(0, Ordering::Relaxed);
        for s in self.stripes.iter() {
            s.0.store(0, Ordering::Relaxed);
        }
    }

    /// Prefetches what observing `digest` reads, as the single-threaded
    /// filter's batch path does: the stops of an unseen item's query with
    /// [`AtomicSegments::CHAIN_AHEAD`] more after each, and the `k`
    /// segments the insertion sets (a cache hint for batches).
    #[inline]
    pub(crate) fn prefetch(&self, digest: ddf_core::Digest) {
        let h = ItemProbes::of(digest);
        // Relaxed: a hint; a stale base only wastes it.
        let base = Self::base_of(self.epoch.load(Ordering::Relaxed));
        let (k, n, cubic) = (self.k as usize, self.n(), &self.cubic);
        query_stops(k, self.l as usize, n, base, S::CHAIN_AHEAD, |seg| {
            self.segs.prefetch(seg, h.at(seg, cubic));
        });
        let mut seg = base;
        for _ in 0..n.min(k) {
            self.segs.prefetch(seg, h.at(seg, cubic));
            seg += 1;
            if seg == n {
                seg = 0;
            }
        }
    }

    /// Timed insertions stamped before the current generation opened.
    pub(crate) fn clock_regressions(&self) -> u64 {
        // Relaxed: a statistic.
        self.regressions.load(Ordering::Relaxed)
    }

    /// Generations closed by count before their period passed.
    pub(crate) fn closed_early(&self) -> u64 {
        // Relaxed: a statistic.
        self.closed_early.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod loom_models;
