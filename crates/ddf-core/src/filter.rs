//! The core traits: `DuplicateFilter`, `Windowed` and `TimedFilter`.

use ddf_hash::Digest;

/// A filter's answer for one item: seen before (within its window) or not.
///
/// `Duplicate` is the papers' DUPLICATE, `Unseen` their UNSEEN.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// The filter believes the item has not been seen (within its window).
    Unseen,
    /// The filter believes the item has been seen (within its window).
    Duplicate,
}

impl Verdict {
    /// `Duplicate` if `seen`, else `Unseen`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_core::Verdict;
    ///
    /// assert_eq!(Verdict::from_seen(true), Verdict::Duplicate);
    /// assert_eq!(Verdict::from_seen(false), Verdict::Unseen);
    /// ```
    #[inline]
    #[must_use]
    pub const fn from_seen(seen: bool) -> Self {
        if seen {
            Verdict::Duplicate
        } else {
            Verdict::Unseen
        }
    }

    /// Whether this is `Duplicate`.
    #[inline]
    #[must_use]
    pub const fn is_duplicate(self) -> bool {
        matches!(self, Verdict::Duplicate)
    }
}

/// A duplicate-detection filter over item digests: the papers' (Detect, Insert)
/// pair, with Stream = detect then insert as [`observe`](Self::observe).
///
/// The trait is object-safe; `Box<dyn DuplicateFilter>` is a filter too.
/// Generic conveniences live in [`FilterExt`](crate::FilterExt), and
/// [`Deduper`](crate::Deduper) hashes items for you.
///
/// # Contract
///
/// Every implementation keeps these, and the conformance suite
/// (`ddf_core::conformance!`, feature `testing`) checks them:
///
/// - `observe(d)` is equivalent to `{ let seen = contains(d); insert(d); seen }`,
///   including its effect on later answers and on the filter's own random
///   choices. A filter may fuse the two for speed, never change the result.
/// - `contains` has no effect visible through any method.
/// - `observe_batch` gives the same verdicts, in order, as `observe` one by one.
/// - `clear` returns the filter to the state it had right after construction,
///   its internal generator included, so a cleared filter replays a fresh one.
/// - `memory_bits` counts the state bits as the papers count them; it does not
///   change as items arrive (unless the type documents a growing state, as
///   the exact set does).
pub trait DuplicateFilter {
    /// Detect: whether the filter reports `digest` as already seen. No side effects.
    fn contains(&self, digest: Digest) -> bool;

    /// Insert: records `digest` as seen now.
    fn insert(&mut self, digest: Digest);

    /// Stream: detect, then insert; returns the detection verdict.
    #[inline]
    fn observe(&mut self, digest: Digest) -> Verdict {
        let seen = self.contains(digest);
        self.insert(digest);
        Verdict::from_seen(seen)
    }

    /// Observes every digest in order and appends one verdict per digest to
    /// `verdicts` (which is not cleared first).
    ///
    /// The default loops over [`observe`](Self::observe); filters whose
    /// operation is a few random memory accesses override it to hash ahead and
    /// prefetch, hiding memory latency.
    fn observe_batch(&mut self, digests: &[Digest], verdicts: &mut Vec<Verdict>) {
        verdicts.reserve(digests.len());
        for &d in digests {
            verdicts.push(self.observe(d));
        }
    }

    /// Appends `contains(d)` for every digest to `answers` (not cleared first).
    fn contains_batch(&self, digests: &[Digest], answers: &mut Vec<bool>) {
        answers.reserve(digests.len());
        answers.extend(digests.iter().map(|&d| self.contains(d)));
    }

    /// Bits of filter state, counted as the papers count them (cells times
    /// cell width, not allocator overhead).
    fn memory_bits(&self) -> u64;

    /// Forgets everything: back to the state right after construction.
    fn clear(&mut self);

    /// Whether a filter of `group` other than `group[skip]` (every filter
    /// when `skip` is out of range) reports `digest`: a queue's lookup in its
    /// subfilters ([`crate::group`]). The default asks each in turn; a type
    /// whose filters of one shape derive the same positions from a digest
    /// overrides it to derive them once.
    #[inline]
    fn any_contains(group: &[Self], skip: usize, digest: Digest) -> bool
    where
        Self: Sized,
    {
        crate::group::any_contains(group, skip, digest)
    }

    /// Observes `digests` in `group[newest]` and appends one verdict per
    /// digest: `Duplicate` if the newest or any other filter of `group`
    /// reports it, the verdicts of asking the others and observing in the
    /// newest one digest at a time. A queue's batch between two rotations
    /// ([`crate::group`]). The default,
    /// [`group::observe_by_filter`](crate::group::observe_by_filter), hands
    /// the block to each filter's own batch path, with `scratch` as a reused
    /// buffer; a type may override it to go once through the digests with
    /// every filter's memory prefetched together.
    ///
    /// # Panics
    /// If `newest` is not an index of `group`.
    fn observe_in_group(
        group: &mut [Self],
        newest: usize,
        digests: &[Digest],
        verdicts: &mut Vec<Verdict>,
        scratch: &mut Vec<bool>,
    ) where
        Self: Sized,
    {
        crate::group::observe_by_filter(group, newest, digests, verdicts, scratch);
    }
}

/// How a windowed filter's window is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Window {
    /// The last `w` insertions.
    Count(u64),
    /// Insertions whose timestamp `ts` satisfies `now − ts < t`, in the
    /// caller's time unit (see [`TimedFilter`]).
    Time(u64),
    /// The whole stream (`w = ∞`): the papers' DDP without a window.
    Unbounded,
}

/// A filter that answers for a sliding window rather than for the whole stream.
///
/// An item is *in the window* if one of its earlier occurrences is among the
/// last [`window`](Self::window) insertions (or within that time span). Items
/// whose latest occurrence is older than window + [`slack`](Self::slack) are
/// forgotten; between the two the filter may still report them, which is the
/// slack of the APBF paper's (w, s, p, e) model and the last slice of a
/// time-span queue. Whether items in the window can be missed (false
/// negatives) is each type's documented guarantee: a count queue's window is
/// the paper's `c·L`, of whose oldest part it forgets some.
pub trait Windowed {
    /// The window `w` (or `t`).
    fn window(&self) -> Window;

    /// How far beyond the window the filter may still remember an item, in the
    /// window's unit. 0 for exact windows.
    fn slack(&self) -> u64 {
        0
    }
}

/// A filter whose window is measured in the caller's time.
///
/// The filter never reads a clock: the caller passes `now` (any unit, say
/// milliseconds), so runs replay exactly.
///
/// # Time going backwards
///
/// Timestamps should not decrease. When one does, the filter *clamps* it:
/// `contains_at(d, now)` and `insert_at(d, now)` with `now` earlier than the
/// latest time seen act exactly as at the latest time seen, so a clock that
/// steps back never revives expired items nor expires fresh ones early. Each
/// insertion that arrived with such a `now` is counted in
/// [`clock_regressions`](Self::clock_regressions) (queries count nothing:
/// they have no side effects). The mechanism is [`TimeClock`](crate::TimeClock);
/// `timed_conformance!` checks that verdicts after a backwards step are those
/// of the clamped time.
///
/// # Overload
///
/// A timed filter is sized for a rate: at most `g` items per generation of
/// `τ` time units (each type says what its `g` and `τ` are). Its memory never
/// grows beyond [`memory_bits`](DuplicateFilter::memory_bits) as reported at
/// construction, whatever the rate. When a generation reaches `g` items
/// before its `τ` has passed, the filter closes it early — the effective
/// window shortens to the last generations' worth of items — and counts it in
/// [`generations_closed_early`](Self::generations_closed_early). The promise
/// "no false negative within `t`" therefore holds for every item with no
/// early close since its latest occurrence; in particular, for every item
/// while at most `g` items arrive per generation. The false-positive bound
/// holds at any rate, since no generation holds more than `g` items.
pub trait TimedFilter: DuplicateFilter {
    /// Detect at time `now` (clamped to the latest time seen). No side effects.
    fn contains_at(&self, digest: Digest, now: u64) -> bool;

    /// Insert at time `now` (clamped to the latest time seen, and counted in
    /// [`clock_regressions`](Self::clock_regressions) if earlier).
    fn insert_at(&mut self, digest: Digest, now: u64);

    /// Detect, then insert, at time `now`.
    #[inline]
    fn observe_at(&mut self, digest: Digest, now: u64) -> Verdict {
        let seen = self.contains_at(digest, now);
        self.insert_at(digest, now);
        Verdict::from_seen(seen)
    }

    /// Observes every digest in order at the one time `now`, appending one
    /// verdict per digest to `verdicts` (not cleared first): the verdicts of
    /// [`observe_at`](Self::observe_at) one by one.
    ///
    /// The default loops; filters that prefetch override it, as they do
    /// [`observe_batch`](DuplicateFilter::observe_batch).
    fn observe_batch_at(&mut self, digests: &[Digest], now: u64, verdicts: &mut Vec<Verdict>) {
        verdicts.reserve(digests.len());
        for &d in digests {
            verdicts.push(self.observe_at(d, now));
        }
    }

    /// Appends `contains_at(d, now)` for every digest to `answers` (not
    /// cleared first).
    fn contains_batch_at(&self, digests: &[Digest], now: u64, answers: &mut Vec<bool>) {
        answers.reserve(digests.len());
        answers.extend(digests.iter().map(|&d| self.contains_at(d, now)));
    }

    /// Observes `(digest, now)` pairs in order, each at its own time,
    /// appending one verdict per pair: the verdicts of
    /// [`observe_at`](Self::observe_at) one by one.
    ///
    /// The default splits the slice into runs of equal time and hands each
    /// run to [`observe_batch_at`](Self::observe_batch_at), so records
    /// stamped with a coarse clock (seconds, say) still get the batch path.
    fn observe_batch_stamped(&mut self, stamped: &[(Digest, u64)], verdicts: &mut Vec<Verdict>) {
        let mut run = [Digest::default(); STAMPED_RUN];
        let mut rest = stamped;
        verdicts.reserve(stamped.len());
        while let Some(&(_, now)) = rest.first() {
            let len = rest
                .iter()
                .take(STAMPED_RUN)
                .take_while(|&&(_, t)| t == now)
                .count();
            for (slot, &(d, _)) in run.iter_mut().zip(&rest[..len]) {
                *slot = d;
            }
            self.observe_batch_at(&run[..len], now, verdicts);
            rest = &rest[len..];
        }
    }

    /// Insertions since construction or `clear` whose `now` was earlier than
    /// the latest time seen (and so were clamped to it).
    fn clock_regressions(&self) -> u64;

    /// Generations closed by reaching their capacity before their time span
    /// had passed, since construction or `clear`: each one may have shortened
    /// the effective window (0 while arrivals stay within the sized rate, and
    /// always 0 without a time window).
    fn generations_closed_early(&self) -> u64;
}

/// Digests per run handed to [`TimedFilter::observe_batch_at`] by the default
/// [`TimedFilter::observe_batch_stamped`]: a stack buffer, no allocation.
const STAMPED_RUN: usize = 64;

impl<F: DuplicateFilter + ?Sized> DuplicateFilter for Box<F> {
    #[inline]
    fn contains(&self, digest: Digest) -> bool {
        (**self).contains(digest)
    }
    #[inline]
    fn insert(&mut self, digest: Digest) {
        (**self).insert(digest)
    }
    #[inline]
    fn observe(&mut self, digest: Digest) -> Verdict {
        (**self).observe(digest)
    }
    fn observe_batch(&mut self, digests: &[Digest], verdicts: &mut Vec<Verdict>) {
        (**self).observe_batch(digests, verdicts)
    }
    fn contains_batch(&self, digests: &[Digest], answers: &mut Vec<bool>) {
        (**self).contains_batch(digests, answers)
    }
    fn memory_bits(&self) -> u64 {
        (**self).memory_bits()
    }
    fn clear(&mut self) {
        (**self).clear()
    }
}

impl<F: Windowed + ?Sized> Windowed for Box<F> {
    fn window(&self) -> Window {
        (**self).window()
    }
    fn slack(&self) -> u64 {
        (**self).slack()
    }
}

impl<F: TimedFilter + ?Sized> TimedFilter for Box<F> {
    fn contains_at(&self, digest: Digest, now: u64) -> bool {
        (**self).contains_at(digest, now)
    }
    fn insert_at(&mut self, digest: Digest, now: u64) {
        (**self).insert_at(digest, now)
    }
    fn observe_at(&mut self, digest: Digest, now: u64) -> Verdict {
        (**self).observe_at(digest, now)
    }
    fn observe_batch_at(&mut self, digests: &[Digest], now: u64, verdicts: &mut Vec<Verdict>) {
        (**self).observe_batch_at(digests, now, verdicts)
    }
    fn contains_batch_at(&self, digests: &[Digest], now: u64, answers: &mut Vec<bool>) {
        (**self).contains_batch_at(digests, now, answers)
    }
    fn observe_batch_stamped(&mut self, stamped: &[(Digest, u64)], verdicts: &mut Vec<Verdict>) {
        (**self).observe_batch_stamped(stamped, verdicts)
    }
    fn clock_regressions(&self) -> u64 {
        (**self).clock_regressions()
    }
    fn generations_closed_early(&self) -> u64 {
        (**self).generations_closed_early()
    }
}
