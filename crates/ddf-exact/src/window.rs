//! `ExactWindow`: Theorem 1's FIFO plus counting dictionary over a count
//! window, a time span or the whole stream, and its batch paths.

use crate::dict::{Dict, Slot};
use crate::fifo::Fifo;
use crate::set::KeySet;
use ddf_core::{
    DecodeError, Digest, DuplicateFilter, MergeError, ParamError, Snapshot, TimedFilter, Verdict,
    Window, Windowed,
};
mod codec;

use ddf_core::snapshot::{self, Decoder, Encoder};
use ddf_core::{Prediction, TimeClock};
use ddf_hash::MixState;
use std::hash::{BuildHasher, Hash};
use std::num::NonZeroU64;

/// An exact duplicate filter over the last `w` insertions, the last `t` time
/// units, or the whole stream: no false positives, no false negatives.
///
/// The construction of Theorem 1 of *Approaching Optimal Duplicate Detection
/// in a Sliding Window* (§3.1): a FIFO `Q` of the window's items and a
/// dictionary `D` from item to its number of occurrences in `Q`. Insert pushes
/// onto `Q` and increments `D`; once `Q` holds more than `w` items the oldest
/// is popped and its count decremented, the key removed at zero. Lookup is a
/// dictionary probe. Both are O(1) expected.
///
/// Over a time span the window holds as many items as arrive in it, so the
/// filter takes a `capacity`: the FIFO never holds more than `capacity`
/// items, and [`memory_bits`](DuplicateFilter::memory_bits) is Theorem 1's
/// count for a full FIFO from construction on. When an item arrives with the
/// FIFO full of live items, the oldest is expired early and counted
/// ([`generations_closed_early`](TimedFilter::generations_closed_early):
/// each item is its own generation). So no item within the span is missed
/// while at most `capacity` items arrive per span; above that rate the window
/// shortens to the last `capacity` items, and a miss within the span happens
/// only after an early expiry since the item's latest occurrence.
///
/// `K` is the key type: [`Digest`] when used as a [`DuplicateFilter`], any
/// `Hash + Eq + Clone` type (item ids, strings) as ground truth. `S` hashes
/// keys for the dictionary; the default [`MixState`] is fast and unkeyed, fine
/// for digests and trusted ids.
///
/// # Examples
///
/// ```
/// use ddf_exact::{Deduper, ExactWindow, Verdict};
///
/// let mut seen = Deduper::new(ExactWindow::new(1_000)?);
/// assert_eq!(seen.observe("nonce-1"), Verdict::Unseen);
/// assert_eq!(seen.observe("nonce-1"), Verdict::Duplicate);
/// # Ok::<(), ddf_exact::ParamError>(())
/// ```
#[derive(Debug, Clone)]
pub struct ExactWindow<K = Digest, S = MixState> {
    window: Window,
    /// Items of the window, oldest first (see `fifo`).
    fifo: Fifo<Item<K>>,
    /// The counting dictionary (see `dict`), or the set's keys (see `set`).
    dict: Store<K, S>,
    /// The latest timestamp seen and the steps back (time mode only), so
    /// time never runs backwards.
    clock: TimeClock,
    /// The most items the FIFO holds (time mode; the window for count
    /// windows, unused for the set).
    capacity: u64,
    /// Items expired before their time because the FIFO was full.
    closed_early: u64,
}

/// An item of the FIFO: the key, its hash, so that its eviction finds its
/// cell without hashing it again (and the batch paths prefetch that cell
/// from the FIFO alone), and its timestamp (time mode; 0 otherwise).
#[derive(Debug, Clone)]
struct Item<K> {
    key: K,
    hash: u64,
    at: u64,
}

/// A count as a `usize`, saturating (a bound past memory is no bound).
fn saturating_usize(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// What holds the keys: a counting dictionary for windows, a bare set of
/// keys for `w = ∞` (no count, no timestamp, no deletion).
#[derive(Debug, Clone)]
enum Store<K, S> {
    Window(Dict<K, S>),
    Set(KeySet<K, S>),
}

impl<K: Hash + Eq + Clone, S: BuildHasher> Store<K, S> {
    /// The store for `window`.
    fn new(window: Window, hasher: S) -> Self {
        match window {
            Window::Unbounded => Store::Set(KeySet::with_hasher(hasher)),
            Window::Count(_) | Window::Time(_) => Store::Window(Dict::with_hasher(hasher)),
        }
    }

    fn len(&self) -> usize {
        match self {
            Store::Window(d) => d.len(),
            Store::Set(s) => s.len(),
        }
    }

    #[inline(always)]
    fn hash(&self, key: &K) -> u64 {
        match self {
            Store::Window(d) => d.hash(key),
            Store::Set(s) => s.hash(key),
        }
    }

    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        match self {
            Store::Window(d) => d.prefetch(hash),
            Store::Set(s) => s.prefetch(hash),
        }
    }

    #[inline]
    fn get(&self, key: &K) -> Option<Slot> {
        self.get_hashed(key, self.hash(key))
    }

    /// The key's slot; a key of the set occurs once, at no time.
    #[inline]
    fn get_hashed(&self, key: &K, hash: u64) -> Option<Slot> {
        match self {
            Store::Window(d) => d.get_hashed(key, hash).copied(),
            Store::Set(s) => s.contains_hashed(key, hash).then_some(Slot {
                count: NonZeroU64::MIN,
                latest: 0,
            }),
        }
    }

    fn clear(&mut self) {
        match self {
            Store::Window(d) => d.clear(),
            Store::Set(s) => s.clear(),
        }
    }

    fn keys(&self) -> Vec<&K> {
        match self {
            Store::Window(d) => d.keys().collect(),
            Store::Set(s) => s.keys(),
        }
    }
}

impl<K: Hash + Eq + Clone> ExactWindow<K> {
    /// An exact filter over the last `window` insertions (`w ≥ 1`).
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_exact::{ExactWindow, Verdict};
    ///
    /// let mut w = ExactWindow::<&str>::new(2)?;
    /// assert_eq!(w.observe_key("a"), Verdict::Unseen);
    /// w.observe_key("b");
    /// w.observe_key("c");
    /// assert_eq!(w.observe_key("a"), Verdict::Unseen); // 3 insertions ago
    /// assert_eq!(ExactWindow::<u64>::new(0).unwrap_err().param(), "window");
    /// # Ok::<(), ddf_exact::ParamError>(())
    /// ```
    pub fn new(window: u64) -> Result<Self, ParamError> {
        Self::with_hasher(Window::Count(window), MixState)
    }

    /// An exact filter over the last `span` time units (`t ≥ 1`), driven by
    /// [`observe_key_at`](Self::observe_key_at) or [`TimedFilter`], holding
    /// at most `capacity` (`≥ 1`) items: exact while at most `capacity`
    /// items arrive per `span`. `u64::MAX` means no cap (ground truth; its
    /// `memory_bits` is then `u64::MAX`, the honest bound).
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_exact::{ExactWindow, Verdict};
    ///
    /// // The last 1,000 time units, at most 100 items in them.
    /// let mut w = ExactWindow::<u64>::with_time_span(1_000, 100)?;
    /// assert_eq!(w.observe_key_at(7, 0), Verdict::Unseen);
    /// assert_eq!(w.observe_key_at(7, 999), Verdict::Duplicate);
    /// assert_eq!(w.observe_key_at(7, 1_999), Verdict::Unseen);
    /// # Ok::<(), ddf_exact::ParamError>(())
    /// ```
    pub fn with_time_span(span: u64, capacity: u64) -> Result<Self, ParamError> {
        Self::with_hasher_capped(Window::Time(span), capacity, MixState)
    }

    /// An exact set over the whole stream (`w = ∞`); its memory grows with
    /// the number of distinct items: each key once, in at most 8/3 cells of
    /// `size_of::<K>()` bytes per key past 49,152 keys (21.3 bytes per
    /// digest), growing a 512 KiB segment at a time (see the `set` module
    /// and the crate's guarantees).
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_exact::{ExactWindow, Verdict};
    ///
    /// let mut set = ExactWindow::<u64>::unbounded();
    /// for id in 0..10_000 {
    ///     set.observe_key(id);
    /// }
    /// assert_eq!(set.observe_key(0), Verdict::Duplicate);
    /// ```
    pub fn unbounded() -> Self {
        ExactWindow {
            window: Window::Unbounded,
            fifo: Fifo::new(0),
            dict: Store::new(Window::Unbounded, MixState),
            clock: TimeClock::new(),
            capacity: u64::MAX,
            closed_early: 0,
        }
    }
}

impl<K: Hash + Eq + Clone, S: BuildHasher> ExactWindow<K, S> {
    /// An exact filter for `window` with the dictionary hasher `hasher`; a
    /// time window holds any number of items (see
    /// [`with_hasher_capped`](Self::with_hasher_capped)).
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_exact::{ExactWindow, Verdict, Window};
    /// use std::collections::hash_map::RandomState;
    ///
    /// let mut w = ExactWindow::<u64, _>::with_hasher(Window::Count(10), RandomState::new())?;
    /// assert_eq!(w.observe_key(1), Verdict::Unseen);
    /// assert_eq!(w.observe_key(1), Verdict::Duplicate);
    /// # Ok::<(), ddf_exact::ParamError>(())
    /// ```
    pub fn with_hasher(window: Window, hasher: S) -> Result<Self, ParamError> {
        Self::with_hasher_capped(window, u64::MAX, hasher)
    }

    /// As [`with_hasher`](Self::with_hasher), a time window holding at most
    /// `capacity` (`≥ 1`) items (ignored by count windows, whose capacity is
    /// their window, and by the set).
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_exact::{ExactWindow, Window};
    /// use std::collections::hash_map::RandomState;
    ///
    /// let w = ExactWindow::<u64, _>::with_hasher_capped(Window::Time(60), 1_000, RandomState::new())?;
    /// assert!(ExactWindow::<u64, _>::with_hasher_capped(Window::Time(60), 0, RandomState::new()).is_err());
    /// # drop(w);
    /// # Ok::<(), ddf_exact::ParamError>(())
    /// ```
    pub fn with_hasher_capped(
        window: Window,
        capacity: u64,
        hasher: S,
    ) -> Result<Self, ParamError> {
        check_window(window)?;
        let capacity = match window {
            Window::Time(_) if capacity == 0 => {
                return Err(ParamError::new("capacity", 0, "at least 1 item"));
            }
            Window::Time(_) => capacity,
            Window::Count(w) => w,
            Window::Unbounded => u64::MAX,
        };
        Ok(ExactWindow {
            window,
            fifo: Fifo::new(match window {
                Window::Unbounded => 0,
                _ => saturating_usize(capacity),
            }),
            dict: Store::new(window, hasher),
            clock: TimeClock::new(),
            capacity,
            closed_early: 0,
        })
    }

    /// The most items the window holds: `w` for a count window, the
    /// capacity of a time window (`u64::MAX` for none, and for the set).
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Items expired early because a time window's FIFO was full.
    pub fn expired_early(&self) -> u64 {
        self.closed_early
    }

    /// Time-window insertions whose time was behind the latest one seen.
    pub fn clock_regressions(&self) -> u64 {
        self.clock.regressions()
    }

    /// Bytes the unbounded set's table holds now (its cells and directory,
    /// not heap data the keys own); 0 for windows.
    pub fn set_bytes(&self) -> usize {
        match &self.dict {
            Store::Set(s) => s.bytes(),
            Store::Window(_) => 0,
        }
    }

    /// The window this filter answers for.
    pub fn window(&self) -> Window {
        self.window
    }

    /// Distinct keys currently in the window.
    pub fn distinct(&self) -> usize {
        self.dict.len()
    }

    /// Items currently in the window, repeats included (distinct items for
    /// the unbounded set, which keeps each only once).
    pub fn len(&self) -> usize {
        match self.window {
            Window::Unbounded => self.dict.len(),
            _ => self.fifo.len(),
        }
    }

    /// Whether the window holds nothing.
    pub fn is_empty(&self) -> bool {
        self.dict.len() == 0
    }

    /// How often `key` occurs in the window (0 if absent), at the latest time seen.
    pub fn count(&self, key: &K) -> u64 {
        match self.dict.get(key) {
            Some(slot) if self.live(&slot, self.clock.latest()) => slot.count.get(),
            _ => 0,
        }
    }

    fn live(&self, slot: &Slot, now: u64) -> bool {
        match self.window {
            Window::Time(span) => self.clock.peek(now) - slot.latest < span,
            _ => true,
        }
    }

    /// Whether `key` occurs in the window at the latest time seen.
    pub fn contains_key(&self, key: &K) -> bool {
        self.contains_key_at(key, self.clock.latest())
    }

    /// Whether `key` occurs in the window at time `now` (time mode; other
    /// modes ignore `now`). No side effects.
    pub fn contains_key_at(&self, key: &K, now: u64) -> bool {
        self.dict.get(key).is_some_and(|slot| self.live(&slot, now))
    }

    /// Records `key` at the latest time seen.
    pub fn insert_key(&mut self, key: K) {
        self.insert_key_at(key, self.clock.latest());
    }

    /// Records `key` at time `now` (time mode; other modes ignore `now`).
    pub fn insert_key_at(&mut self, key: K, now: u64) {
        self.record(key, now);
    }

    /// Records `key` at time `now` and says whether it was in the window
    /// before: one dictionary probe serves both, since after expiring stale
    /// items a key is in the dictionary exactly when it is live.
    fn record(&mut self, key: K, now: u64) -> bool {
        // One hash of the key serves the probe (and a doubling's reinsertion),
        // and its FIFO item keeps it for the eviction.
        let hash = self.dict.hash(&key);
        self.record_hashed(key, hash, now)
    }

    /// [`record`](Self::record) of `key` of hash `hash` (under `S`), which
    /// the batch paths computed for their prefetch.
    #[inline(always)]
    fn record_hashed(&mut self, key: K, hash: u64, now: u64) -> bool {
        // The unbounded set keeps each key once: no FIFO, clock or count.
        let dict = match &mut self.dict {
            Store::Set(set) => return set.insert(key, hash),
            Store::Window(dict) => dict,
        };
        let Window::Time(span) = self.window else {
            // A count window (its clock stays at 0): the new key is counted
            // before the oldest leaves, which a full FIFO swaps out for it.
            let present = dict.add(key.clone(), hash, 0);
            if let Some(old) = self.fifo.replace_oldest(Item { key, hash, at: 0 }) {
                dict.remove_one(&old.key, old.hash);
            }
            return present;
        };
        let at = self.clock.advance(now);
        while let Some(old) = self.fifo.front()
            && at - old.at >= span
        {
            dict.remove_one(&old.key, old.hash);
            self.fifo.pop();
        }
        // Whether the key was live before an early expiry (which may be its own).
        let mut live_before = None;
        if self.fifo.is_full() {
            // Full of live items: the oldest leaves before its time.
            live_before = Some(dict.get_hashed(&key, hash).is_some());
            if let Some(old) = self.fifo.pop() {
                dict.remove_one(&old.key, old.hash);
            }
            self.closed_early = self.closed_early.saturating_add(1);
        }
        let present = dict.add(key.clone(), hash, at);
        self.fifo.push(Item { key, hash, at });
        live_before.unwrap_or(present)
    }

    /// Detect, then insert, `key`.
    pub fn observe_key(&mut self, key: K) -> Verdict {
        self.observe_key_at(key, self.clock.latest())
    }

    /// Detect, then insert, `key` at time `now`.
    pub fn observe_key_at(&mut self, key: K, now: u64) -> Verdict {
        Verdict::from_seen(self.record(key, now))
    }

    /// Forgets everything.
    pub fn clear_all(&mut self) {
        self.fifo.clear();
        self.dict.clear();
        self.clock = TimeClock::new();
        self.closed_early = 0;
    }

    /// State bits as Theorem 1 counts them, with keys of `key_bits` bits
    /// (`log2 |Γ|`): `w·(⌈log2 w⌉ + 2·key_bits)` for a count window (the FIFO
    /// and the dictionary of keys and counters, sized for a full window); for
    /// a time window the same for a full FIFO of `capacity` items, each with
    /// a 64-bit timestamp too (fixed from construction; `u64::MAX` without a
    /// cap); for the unbounded set, `key_bits` per item held now.
    pub fn theorem1_bits(&self, key_bits: u64) -> u64 {
        match self.window {
            Window::Count(w) => count_window_bits(w, key_bits).unwrap_or(u64::MAX),
            Window::Time(_) => {
                let n = self.capacity;
                n.saturating_mul(counter_bits(n) + 2 * key_bits + 64)
            }
            Window::Unbounded => (self.dict.len() as u64).saturating_mul(key_bits),
        }
    }
}

/// Time windows merge by key, keeping the latest time: the two FIFOs,
/// each in time order, are replayed in one time order (this side first on
/// a tie) up to the later of the two clocks, so each key's count is its
/// occurrences on both sides within the span and its time the latest of
/// them. A merged window holds at most `capacity` items, the FIFO's bound:
/// past it the oldest expire early and are counted, as for one stream.
/// The unbounded set merges by union. Count windows, and windows of another
/// span or capacity, are refused, naming the difference.
///
/// # Examples
///
/// ```
/// use ddf_exact::{ExactWindow, Merge};
///
/// let mut a = ExactWindow::<u64>::with_time_span(1_000, 100)?;
/// let mut b = a.clone();
/// a.insert_key_at(1, 10);
/// b.insert_key_at(1, 500);
/// b.insert_key_at(2, 600);
/// a.merge(&b)?;
/// assert_eq!((a.count(&1), a.count(&2)), (2, 1));
/// assert!(a.contains_key_at(&1, 1_499) && !a.contains_key_at(&1, 1_500));
/// let mut count = ExactWindow::<u64>::new(10)?;
/// assert!(count.merge(&count.clone()).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl<K: Hash + Eq + Clone, S: BuildHasher + Clone> ddf_core::Merge for ExactWindow<K, S> {
    fn merge(&mut self, other: &Self) -> Result<(), MergeError> {
        let family = "exact window";
        let span = match (self.window, other.window) {
            (Window::Count(_), Window::Count(_)) => {
                return Err(MergeError::CountWindow { family });
            }
            (Window::Unbounded, Window::Unbounded) => None,
            (Window::Time(a), Window::Time(b)) if a == b => Some(a),
            (a, b) => {
                return Err(MergeError::parameter(
                    "window",
                    window_words(a),
                    window_words(b),
                ));
            }
        };
        MergeError::check("capacity", self.capacity, other.capacity)?;
        // A side that never saw an item adds nothing, or is the other side.
        if other.untouched() {
            return Ok(());
        }
        if self.untouched() {
            *self = other.clone();
            return Ok(());
        }
        let Some(span) = span else {
            for key in other.dict.keys() {
                self.record(key.clone(), 0);
            }
            return Ok(());
        };
        let now = self.clock.latest().max(other.clock.latest());
        let live = |item: &&Item<K>| now - item.at < span;
        let mine: Vec<Item<K>> = (0..self.fifo.len())
            .filter_map(|i| self.fifo.get(i))
            .filter(live)
            .cloned()
            .collect();
        let theirs: Vec<&Item<K>> = (0..other.fifo.len())
            .filter_map(|i| other.fifo.get(i))
            .filter(live)
            .collect();
        let regressions = self
            .clock
            .regressions()
            .saturating_add(other.clock.regressions());
        let closed_early = self.closed_early.saturating_add(other.closed_early);
        self.fifo.clear();
        self.dict.clear();
        self.clock = TimeClock::new();
        self.closed_early = 0;
        let (mut i, mut j) = (0, 0);
        while i < mine.len() || j < theirs.len() {
            if j == theirs.len() || (i < mine.len() && mine[i].at <= theirs[j].at) {
                let item = &mine[i];
                self.record_hashed(item.key.clone(), item.hash, item.at);
                i += 1;
            } else {
                // The other side's hash is under its own hasher.
                self.record(theirs[j].key.clone(), theirs[j].at);
                j += 1;
            }
        }
        self.closed_early = self.closed_early.saturating_add(closed_early);
        self.clock = TimeClock::from_parts(now, regressions);
        Ok(())
    }
}

impl<K: Hash + Eq + Clone, S: BuildHasher> ExactWindow<K, S> {
    /// Whether no item was ever recorded (since construction or `clear`).
    fn untouched(&self) -> bool {
        self.dict.len() == 0
            && self.fifo.len() == 0
            && self.clock == TimeClock::new()
            && self.closed_early == 0
    }
}

/// A window in words, for a merge refusal.
fn window_words(w: Window) -> String {
    match w {
        Window::Count(n) => format!("the last {n} insertions"),
        Window::Time(t) => format!("a time span of {t}"),
        Window::Unbounded => "the whole stream".into(),
    }
}

/// Bits of the counter of a window of `w` items, `⌈log₂(w + 1)⌉` (at least 1).
fn counter_bits(w: u64) -> u64 {
    u64::from(64 - w.leading_zeros()).max(1)
}

/// Theorem 1's state for a full count window of `w` items with keys of
/// `key_bits` bits: `w·(⌈log₂(w + 1)⌉ + 2·key_bits)`; `None` on overflow.
fn count_window_bits(w: u64, key_bits: u64) -> Option<u64> {
    w.checked_mul(counter_bits(w) + 2 * key_bits)
}

/// The window rule every constructor applies: at least one insertion or
/// one time unit.
fn check_window(window: Window) -> Result<(), ParamError> {
    match window {
        Window::Count(0) => Err(ParamError::new("window", 0, ddf_param::WINDOW_ZERO)),
        Window::Time(0) => Err(ParamError::new("time_span", 0, "at least 1 time unit")),
        _ => Ok(()),
    }
}

impl ExactWindow<Digest, MixState> {
    /// What [`new`](ExactWindow::new)`(window)` predicts, without building it:
    /// Theorem 1's state with 64-bit digests as keys (its
    /// [`memory_bits`](DuplicateFilter::memory_bits) once the window is
    /// full), no false positives, no misses, no slack, and four memory
    /// accesses per `observe` (the dictionary probe, the FIFO slot, the new
    /// and the evicted key's counters). Fails as `new` does, or (parameter
    /// `window`) when the state would not fit in 64 bits.
    pub fn sizing(window: u64) -> Result<Prediction, ParamError> {
        check_window(Window::Count(window))?;
        let bits = count_window_bits(window, 64).ok_or_else(|| {
            ParamError::new(
                "window",
                window,
                "a window whose Theorem 1 state fits in 2^64 bits",
            )
        })?;
        Ok(Prediction::exact_window(bits, 0.0, 4.0))
    }
}

/// Items the batch paths look ahead: two cache lines per item (the new key's
/// home cell and the evicted key's), about 16 misses in flight. A power of
/// two, so the pipeline's ring of hashes wraps with a mask.
const LOOKAHEAD: usize = 8;
const _: () = assert!(LOOKAHEAD.is_power_of_two());

/// The state (as [`memory_bits`](DuplicateFilter::memory_bits) counts it)
/// below which the batch paths give no hints: a table that fits the core's
/// caches gains nothing from them, and they cost a FIFO read and two
/// prefetches per item.
const MIN_PREFETCH_BITS: u64 = 1 << 24;

impl ExactWindow<Digest, MixState> {
    /// Hints the cells the insertion `ahead` operations from now touches:
    /// the new key's home and the home of the FIFO item `ahead` places from
    /// the front, which a full window evicts then (a time window evicts it
    /// when its time is up or the FIFO is full; a wrong hint only wastes a
    /// fetch).
    /// Returns the digest's hash, for the insertion to reuse.
    #[inline(always)]
    fn prefetch_insert(&self, digest: Digest, ahead: usize) -> u64 {
        let hash = self.dict.hash(&digest);
        self.dict.prefetch(hash);
        let evicts = match self.window {
            Window::Count(_) => self.fifo.is_full(),
            Window::Time(_) => true,
            Window::Unbounded => false,
        };
        if evicts && let Some(old) = self.fifo.get(ahead) {
            self.dict.prefetch(old.hash);
        }
        hash
    }

    /// The insertion pipeline of every batch path: hints [`LOOKAHEAD`]
    /// items ahead, then runs `op` on the items one at a time, in order,
    /// with each item's hash (computed once, for the hint).
    #[inline(always)]
    fn pipeline<T: Copy>(
        &mut self,
        items: &[T],
        digest: impl Fn(T) -> Digest,
        mut op: impl FnMut(&mut Self, T, u64),
    ) {
        if self.memory_bits() < MIN_PREFETCH_BITS {
            for &item in items {
                let hash = self.dict.hash(&digest(item));
                op(self, item, hash);
            }
            return;
        }
        // The hashes of the items hinted and not yet inserted, by position
        // modulo the look-ahead (a power of two: a mask).
        let mut hashes = [0u64; LOOKAHEAD];
        let ahead = LOOKAHEAD.min(items.len());
        for (j, &item) in items[..ahead].iter().enumerate() {
            hashes[j] = self.prefetch_insert(digest(item), j);
        }
        for (i, &item) in items.iter().enumerate() {
            let hash = hashes[i % LOOKAHEAD];
            if let Some(&next) = items.get(i + ahead) {
                hashes[(i + ahead) % LOOKAHEAD] = self.prefetch_insert(digest(next), ahead);
            }
            op(self, item, hash);
        }
    }

    /// The lookup pipeline: hints the home cells [`LOOKAHEAD`] items ahead.
    #[inline(always)]
    fn lookup_pipeline(&self, digests: &[Digest], answers: &mut Vec<bool>, now: u64) {
        answers.reserve(digests.len());
        if self.memory_bits() < MIN_PREFETCH_BITS {
            answers.extend(digests.iter().map(|d| self.contains_key_at(d, now)));
            return;
        }
        let ahead = LOOKAHEAD.min(digests.len());
        for d in &digests[..ahead] {
            self.dict.prefetch(self.dict.hash(d));
        }
        for (i, d) in digests.iter().enumerate() {
            if let Some(next) = digests.get(i + ahead) {
                self.dict.prefetch(self.dict.hash(next));
            }
            answers.push(self.contains_key_at(d, now));
        }
    }
}

impl DuplicateFilter for ExactWindow<Digest, MixState> {
    #[inline]
    fn contains(&self, digest: Digest) -> bool {
        self.contains_key(&digest)
    }

    #[inline]
    fn insert(&mut self, digest: Digest) {
        self.insert_key(digest);
    }

    /// One dictionary probe instead of a lookup and an insertion.
    #[inline]
    fn observe(&mut self, digest: Digest) -> Verdict {
        self.observe_key(digest)
    }

    /// Prefetches the new and the evicted key's cells a few items ahead.
    fn observe_batch(&mut self, digests: &[Digest], verdicts: &mut Vec<Verdict>) {
        verdicts.reserve(digests.len());
        self.pipeline(
            digests,
            |d| d,
            |f, d, hash| {
                let now = f.clock.latest();
                verdicts.push(Verdict::from_seen(f.record_hashed(d, hash, now)));
            },
        );
    }

    fn contains_batch(&self, digests: &[Digest], answers: &mut Vec<bool>) {
        self.lookup_pipeline(digests, answers, self.clock.latest());
    }

    /// Theorem 1's count with 64-bit digests as keys for windows (see
    /// [`ExactWindow::theorem1_bits`]); for the unbounded set, the bits it
    /// holds now: its cells (8 bytes each, 3/8 to 3/4 of them full) and
    /// directory ([`ExactWindow::set_bytes`]).
    fn memory_bits(&self) -> u64 {
        match &self.dict {
            Store::Set(s) => (s.bytes() as u64).saturating_mul(8),
            Store::Window(_) => self.theorem1_bits(64),
        }
    }

    fn clear(&mut self) {
        self.clear_all();
    }
}

impl TimedFilter for ExactWindow<Digest, MixState> {
    fn contains_at(&self, digest: Digest, now: u64) -> bool {
        self.contains_key_at(&digest, now)
    }

    fn insert_at(&mut self, digest: Digest, now: u64) {
        self.insert_key_at(digest, now);
    }

    fn observe_at(&mut self, digest: Digest, now: u64) -> Verdict {
        self.observe_key_at(digest, now)
    }

    /// Prefetches as [`observe_batch`](DuplicateFilter::observe_batch) does.
    fn observe_batch_at(&mut self, digests: &[Digest], now: u64, verdicts: &mut Vec<Verdict>) {
        verdicts.reserve(digests.len());
        self.pipeline(
            digests,
            |d| d,
            |f, d, hash| verdicts.push(Verdict::from_seen(f.record_hashed(d, hash, now))),
        );
    }

    fn contains_batch_at(&self, digests: &[Digest], now: u64, answers: &mut Vec<bool>) {
        self.lookup_pipeline(digests, answers, now);
    }

    /// Prefetches as [`observe_batch`](DuplicateFilter::observe_batch) does.
    fn observe_batch_stamped(&mut self, stamped: &[(Digest, u64)], verdicts: &mut Vec<Verdict>) {
        verdicts.reserve(stamped.len());
        self.pipeline(
            stamped,
            |(d, _)| d,
            |f, (d, now), hash| verdicts.push(Verdict::from_seen(f.record_hashed(d, hash, now))),
        );
    }

    /// 0 for count windows and the set, which ignore time.
    fn clock_regressions(&self) -> u64 {
        self.clock.regressions()
    }

    /// Items a full time window expired before their time (each item is
    /// its own generation).
    fn generations_closed_early(&self) -> u64 {
        self.closed_early
    }
}

impl<K: Hash + Eq + Clone, S: BuildHasher> Windowed for ExactWindow<K, S> {
    fn window(&self) -> Window {
        self.window
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_windows_are_param_errors() {
        assert_eq!(ExactWindow::<u64>::new(0).unwrap_err().param(), "window");
        assert_eq!(
            ExactWindow::<u64>::with_time_span(0, 10)
                .unwrap_err()
                .param(),
            "time_span"
        );
    }

    #[test]
    fn count_window_forgets_after_w() {
        let mut f = ExactWindow::<u64>::new(3).unwrap();
        assert_eq!(f.observe_key(1), Verdict::Unseen);
        for k in [2, 3, 4] {
            f.observe_key(k);
        }
        // 1 was 4 insertions ago: outside a window of 3.
        assert_eq!(f.observe_key(1), Verdict::Unseen);
        // 3 was 3 insertions ago (4, 1 and itself at distance 3): inside.
        assert_eq!(f.observe_key(3), Verdict::Duplicate);
        assert_eq!(f.len(), 3);
    }

    #[test]
    fn repeats_are_counted() {
        let mut f = ExactWindow::<u64>::new(4).unwrap();
        for k in [7, 7, 7, 1] {
            f.observe_key(k);
        }
        assert_eq!(f.count(&7), 3);
        f.observe_key(2);
        assert_eq!(f.count(&7), 2);
        assert_eq!(f.distinct(), 3);
    }

    #[test]
    fn time_window_uses_half_open_span() {
        let mut f = ExactWindow::<u64>::with_time_span(10, 100).unwrap();
        f.observe_key_at(1, 100);
        assert!(f.contains_key_at(&1, 109));
        assert!(!f.contains_key_at(&1, 110));
        // A clock stepping back is clamped to the latest time.
        f.observe_key_at(2, 105);
        assert!(f.contains_key_at(&2, 105));
        assert_eq!(f.observe_key_at(1, 111), Verdict::Unseen);
        assert_eq!(f.observe_key_at(1, 111), Verdict::Duplicate);
    }

    #[test]
    fn a_full_time_window_expires_early_and_counts() {
        assert_eq!(
            ExactWindow::<u64>::with_time_span(10, 0)
                .unwrap_err()
                .param(),
            "capacity"
        );
        let mut f = ExactWindow::<u64>::with_time_span(100, 3).unwrap();
        let bits = f.theorem1_bits(64);
        for k in 0..3 {
            f.observe_key_at(k, k);
        }
        assert_eq!(f.expired_early(), 0);
        // A fourth item within the span pushes the oldest out early.
        assert_eq!(f.observe_key_at(3, 5), Verdict::Unseen);
        assert_eq!((f.expired_early(), f.len()), (1, 3));
        assert!(!f.contains_key_at(&0, 5) && f.contains_key_at(&1, 5));
        // The key pushed out is its own: seen before the expiry, as contains says.
        assert!(f.contains_key_at(&1, 6));
        assert_eq!(f.observe_key_at(1, 6), Verdict::Duplicate);
        assert_eq!(f.theorem1_bits(64), bits);
        f.observe_key_at(9, 1);
        assert_eq!(f.clock_regressions(), 1);
    }

    #[test]
    fn unbounded_never_forgets() {
        let mut f = ExactWindow::<u64>::unbounded();
        for k in 0..1000 {
            f.observe_key(k);
        }
        assert!((0..1000).all(|k| f.contains_key(&k)));
        assert_eq!(f.len(), 1000);
    }

    #[test]
    fn theorem1_memory() {
        let f = ExactWindow::<u64>::new(1024).unwrap();
        // 1024 · (11 + 2·20): counters up to 1024 need 11 bits.
        assert_eq!(f.theorem1_bits(20), 1024 * (11 + 40));
    }
}

#[cfg(feature = "serde")]
ddf_core::impl_serde_via_snapshot!(ExactWindow);
