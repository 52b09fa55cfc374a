//! [`Filter`]: one concrete type over every family compiled in.
//!
//! Each family is its own type, which is what a program that knows its
//! filter wants. A program that picks the filter at run time (from the
//! [planner](crate::plan), a configuration file or a snapshot on disk)
//! wants one type instead: `Filter` is an enum with one variant per filter
//! type (each behind its family's feature), and it implements every trait
//! the variants share by forwarding to the variant — batch paths included,
//! so a batch pays one dispatch, not one per item.
//!
//! # Snapshots of any kind
//!
//! A snapshot records its kind (see [`crate::snapshot`]), so
//! [`Filter::from_bytes`] and [`Filter::read_from`] load a snapshot of any
//! kind compiled in and return the right variant; a queue snapshot is
//! dispatched on the kind of its subfilters. `Filter` writes exactly the
//! bytes its variant writes, so a snapshot taken through `Filter` loads as
//! the concrete type and back. [`Deduper<Filter>`](crate::Deduper) does the
//! same with the hasher key.
//!
//! # Clocks: timed and untimed variants
//!
//! [`is_timed`](Filter::is_timed) says whether the window is measured in the
//! caller's time ([`Window::Time`]). The contract for the calls that do not
//! match the variant:
//!
//! - **`*_at` on an untimed variant ignores `now`**: `observe_at(d, now)` is
//!   `observe(d)`, and the window keeps counting insertions (or is the whole
//!   stream). This is what the families with both modes already do in count
//!   mode (APBF, the exact window, the queue), so the answer is the one the
//!   variant's [`window`](Windowed::window) promises, never a misread clock.
//!   (A family with a time mode may still note the latest `now` in its state
//!   and snapshot; its answers do not depend on it.)
//! - **Clock-free calls on a timed variant** are the variant's own: they act
//!   at the latest time the filter has seen (the time does not advance).
//!
//! A program that must not mix the two checks `is_timed()` once after
//! building or loading.

// With no timed or queued family compiled in (`build.rs` sets the cfg),
// the helpers of those arms go unused.
#![cfg_attr(some_families_off, allow(unused_macros, unused_imports))]

pub use crate::registry::Filter;
use ddf_core::snapshot::{DecodeError, Snapshot};
use ddf_core::{Window, Windowed};

/// Clock-taking calls, by how a variant reads the clock.
macro_rules! clocked {
    (untimed, $f:expr, contains_at($d:expr, $now:expr)) => {{
        let _ = $now;
        DuplicateFilter::contains($f, $d)
    }};
    (untimed, $f:expr, insert_at($d:expr, $now:expr)) => {{
        let _ = $now;
        DuplicateFilter::insert($f, $d)
    }};
    (untimed, $f:expr, observe_at($d:expr, $now:expr)) => {{
        let _ = $now;
        DuplicateFilter::observe($f, $d)
    }};
    (untimed, $f:expr, $counter:ident()) => {{
        let _ = $f;
        0
    }};
    ($mode:ident, $f:expr, $call:ident($d:expr, $now:expr)) => {
        TimedFilter::$call($f, $d, $now)
    };
    ($mode:ident, $f:expr, $counter:ident()) => {
        TimedFilter::$counter($f)
    };
}
pub(crate) use clocked;

/// The timed batch calls of a variant: forwarded when it keeps time, else
/// its count-based batch path with the clock values ignored.
macro_rules! clocked_batch {
    (untimed, $f:expr, $timed:ident($($ta:expr),*), $untimed:ident($($ua:expr),*)) => {
        $crate::filter::untimed_batch::$untimed($f, $($ua),*)
    };
    ($mode:ident, $f:expr, $timed:ident($($ta:expr),*), $untimed:ident($($ua:expr),*)) => {
        TimedFilter::$timed($f, $($ta),*)
    };
}
pub(crate) use clocked_batch;

/// Batch paths of untimed variants behind [`TimedFilter`]'s batch calls.
#[allow(dead_code)] // Unused when every compiled-in variant keeps time.
pub(crate) mod untimed_batch {
    use ddf_core::{Digest, DuplicateFilter, Verdict};

    pub(crate) fn observe_batch<F: DuplicateFilter>(f: &mut F, d: &[Digest], v: &mut Vec<Verdict>) {
        f.observe_batch(d, v)
    }

    pub(crate) fn contains_batch<F: DuplicateFilter>(f: &F, d: &[Digest], a: &mut Vec<bool>) {
        f.contains_batch(d, a)
    }

    /// Drops the clock values and observes in blocks through the batch path.
    pub(crate) fn observe_stamped_untimed<F: DuplicateFilter>(
        f: &mut F,
        stamped: &[(Digest, u64)],
        v: &mut Vec<Verdict>,
    ) {
        let mut block = [Digest::default(); 64];
        for chunk in stamped.chunks(block.len()) {
            for (slot, &(d, _)) in block.iter_mut().zip(chunk) {
                *slot = d;
            }
            f.observe_batch(&block[..chunk.len()], v);
        }
    }
}

/// Whether a variant of `mode` reads the snapshot body of kind `kind`.
macro_rules! picks {
    (queued, $ty:ty, $kind:expr, $body:expr) => {
        $kind == snapshot::kind::QUEUE && ddf_queue::subfilter_kind($body)? == <$ty>::SUBFILTER_KIND
    };
    ($mode:ident, $ty:ty, $kind:expr, $body:expr) => {
        $kind == <$ty as Snapshot>::KIND
    };
}
pub(crate) use picks;

/// The [`Filter`] enum and its trait impls, from the lines of the
/// [registry](crate::registry).
macro_rules! filter_enum {
    ($(
        $(#[$doc:meta])*
        [$cfg:meta] $variant:ident($ty:ty), $mode:ident, $family:literal;
    )*) => {
        /// Any filter of the families compiled in: see the [module docs](crate::filter).
        ///
        /// Every variant is `Send + Sync` (plain data, no interior
        /// mutability), so `Filter` is too.
        ///
        /// # Examples
        ///
        /// ```
        /// use ddf::{Deduper, Filter, Requirements, Snapshot, Verdict, plan};
        ///
        /// // From a plan, or from a snapshot of any kind compiled in (any
        /// // family's own type converts with `Filter::from` too).
        /// let planned: Filter = plan(&Requirements::count(10_000).fpr(0.01))?[0].build()?;
        /// let loaded = Filter::from_bytes(&planned.to_bytes())?;
        /// for filter in [planned, loaded] {
        ///     let mut seen = Deduper::new(filter);
        ///     assert_eq!(seen.observe("a"), Verdict::Unseen);
        ///     assert_eq!(seen.observe("a"), Verdict::Duplicate);
        /// }
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[derive(Debug, Clone)]
        #[non_exhaustive]
        // A filter is built once and lives long; boxing the largest variant
        // (the sliding Bloom filter's plan, some 600 bytes) would add a
        // pointer chase to each of its operations to save a few moves.
        #[allow(clippy::large_enum_variant)]
        pub enum Filter {
            $(
                $(#[$doc])*
                #[cfg($cfg)]
                $variant($ty),
            )*
        }

        $(
            #[cfg($cfg)]
            impl From<$ty> for Filter {
                fn from(filter: $ty) -> Self {
                    Filter::$variant(filter)
                }
            }
        )*

        impl Filter {
            /// The family and type of the variant, for display.
            pub fn family(&self) -> &'static str {
                match *self {
                    $( #[cfg($cfg)] Filter::$variant(_) => $family, )*
                }
            }

            /// The snapshot kind code of the variant (from
            /// [`snapshot::kind`]).
            pub fn kind(&self) -> u16 {
                match *self {
                    $( #[cfg($cfg)] Filter::$variant(ref f) => Snapshot::kind(f), )*
                }
            }

            /// Merges `other` into this filter: both of one variant, whose
            /// family's own rule ([`Merge`](ddf_core::Merge)) decides
            /// (time windows on one clock and whole-stream Bloom filters
            /// merge; count windows never do). A filter of another family
            /// is refused with [`MergeError::Kind`](ddf_core::MergeError::Kind). See the [module
            /// docs](crate::filter) for the promise of a merged filter.
            ///
            /// # Examples
            ///
            /// ```
            /// use ddf::{Digest, Filter, MergeError, Requirements, TimedFilter, plan};
            ///
            /// // Each node sized for the whole stream's rate (1 item per ms
            /// // over all nodes), on one millisecond clock.
            /// let need = Requirements::time(60_000, 1.0).fpr(0.01);
            /// let mut a: Filter = plan(&need)?[0].build()?;
            /// let mut b = a.clone();
            /// a.insert_at(Digest::mixed(1), 1_000);
            /// b.insert_at(Digest::mixed(2), 2_000);
            /// a.merge(&b)?;
            /// assert!(a.contains_at(Digest::mixed(1), 3_000) && a.contains_at(Digest::mixed(2), 3_000));
            /// let count: Filter = plan(&Requirements::count(1_000).fpr(0.01))?[0].build()?;
            /// assert!(matches!(a.merge(&count), Err(MergeError::Kind { .. } | MergeError::Parameter { .. })));
            /// # Ok::<(), Box<dyn std::error::Error>>(())
            /// ```
            #[allow(unreachable_patterns)]
            pub fn merge(&mut self, other: &Filter) -> Result<(), ddf_core::MergeError> {
                match (&mut *self, other) {
                    $( #[cfg($cfg)] (Filter::$variant(a), Filter::$variant(b)) => ddf_core::Merge::merge(a, b), )*
                    (a, b) => Err(ddf_core::MergeError::Kind {
                        this: a.family().to_string(),
                        other: b.family().to_string(),
                    }),
                }
            }
        }

        /// [`Filter::merge`].
        impl ddf_core::Merge for Filter {
            fn merge(&mut self, other: &Self) -> Result<(), ddf_core::MergeError> {
                Filter::merge(self, other)
            }
        }

        // With no family compiled in (`build.rs`), `Filter` is empty: the
        // arguments go unused and the match ends the function.
        #[cfg_attr(some_families_off, allow(unused_variables, unreachable_code))]
        impl DuplicateFilter for Filter {
            #[inline]
            fn contains(&self, digest: Digest) -> bool {
                match *self {
                    $( #[cfg($cfg)] Filter::$variant(ref f) => f.contains(digest), )*
                }
            }
            #[inline]
            fn insert(&mut self, digest: Digest) {
                match *self {
                    $( #[cfg($cfg)] Filter::$variant(ref mut f) => f.insert(digest), )*
                }
            }
            #[inline]
            fn observe(&mut self, digest: Digest) -> Verdict {
                match *self {
                    $( #[cfg($cfg)] Filter::$variant(ref mut f) => f.observe(digest), )*
                }
            }
            /// The variant's batch path: one dispatch per batch.
            fn observe_batch(&mut self, digests: &[Digest], verdicts: &mut Vec<Verdict>) {
                match *self {
                    $( #[cfg($cfg)] Filter::$variant(ref mut f) => f.observe_batch(digests, verdicts), )*
                }
            }
            /// The variant's batch path: one dispatch per batch.
            fn contains_batch(&self, digests: &[Digest], answers: &mut Vec<bool>) {
                match *self {
                    $( #[cfg($cfg)] Filter::$variant(ref f) => f.contains_batch(digests, answers), )*
                }
            }
            fn memory_bits(&self) -> u64 {
                match *self {
                    $( #[cfg($cfg)] Filter::$variant(ref f) => f.memory_bits(), )*
                }
            }
            fn clear(&mut self) {
                match *self {
                    $( #[cfg($cfg)] Filter::$variant(ref mut f) => f.clear(), )*
                }
            }
        }

        /// Timed variants forward; untimed ones ignore `now` (module docs).
        // With no family compiled in (`build.rs`), `Filter` is empty: the
        // arguments go unused and the match ends the function.
        #[cfg_attr(some_families_off, allow(unused_variables, unreachable_code))]
        impl TimedFilter for Filter {
            #[inline]
            fn contains_at(&self, digest: Digest, now: u64) -> bool {
                match *self {
                    $( #[cfg($cfg)] Filter::$variant(ref f) => $crate::filter::clocked!($mode, f, contains_at(digest, now)), )*
                }
            }
            #[inline]
            fn insert_at(&mut self, digest: Digest, now: u64) {
                match *self {
                    $( #[cfg($cfg)] Filter::$variant(ref mut f) => $crate::filter::clocked!($mode, f, insert_at(digest, now)), )*
                }
            }
            #[inline]
            fn observe_at(&mut self, digest: Digest, now: u64) -> Verdict {
                match *self {
                    $( #[cfg($cfg)] Filter::$variant(ref mut f) => $crate::filter::clocked!($mode, f, observe_at(digest, now)), )*
                }
            }
            fn observe_batch_at(&mut self, digests: &[Digest], now: u64, verdicts: &mut Vec<Verdict>) {
                let _ = now;
                match *self {
                    $( #[cfg($cfg)] Filter::$variant(ref mut f) => $crate::filter::clocked_batch!($mode, f, observe_batch_at(digests, now, verdicts), observe_batch(digests, verdicts)), )*
                }
            }
            fn contains_batch_at(&self, digests: &[Digest], now: u64, answers: &mut Vec<bool>) {
                let _ = now;
                match *self {
                    $( #[cfg($cfg)] Filter::$variant(ref f) => $crate::filter::clocked_batch!($mode, f, contains_batch_at(digests, now, answers), contains_batch(digests, answers)), )*
                }
            }
            fn observe_batch_stamped(&mut self, stamped: &[(Digest, u64)], verdicts: &mut Vec<Verdict>) {
                match *self {
                    $( #[cfg($cfg)] Filter::$variant(ref mut f) => $crate::filter::clocked_batch!($mode, f, observe_batch_stamped(stamped, verdicts), observe_stamped_untimed(stamped, verdicts)), )*
                }
            }
            /// 0 for an untimed variant, which has no clock.
            fn clock_regressions(&self) -> u64 {
                match *self {
                    $( #[cfg($cfg)] Filter::$variant(ref f) => $crate::filter::clocked!($mode, f, clock_regressions()), )*
                }
            }
            /// 0 for an untimed variant, which has no time generations.
            fn generations_closed_early(&self) -> u64 {
                match *self {
                    $( #[cfg($cfg)] Filter::$variant(ref f) => $crate::filter::clocked!($mode, f, generations_closed_early()), )*
                }
            }
        }

        // With no family compiled in (`build.rs`), `Filter` is empty: the
        // arguments go unused and the match ends the function.
        #[cfg_attr(some_families_off, allow(unused_variables, unreachable_code))]
        impl Windowed for Filter {
            fn window(&self) -> Window {
                match *self {
                    $( #[cfg($cfg)] Filter::$variant(ref f) => f.window(), )*
                }
            }
            fn slack(&self) -> u64 {
                match *self {
                    $( #[cfg($cfg)] Filter::$variant(ref f) => f.slack(), )*
                }
            }
        }

        /// The variant's own bytes: `kind` and `layout_version` are the
        /// variant's, and decoding dispatches on the kind found.
        // With no family compiled in (`build.rs`), `Filter` is empty: the
        // arguments go unused and the match ends the function.
        #[cfg_attr(some_families_off, allow(unused_variables, unreachable_code))]
        impl Snapshot for Filter {
            /// Never written: `Filter` writes its variant's kind.
            const KIND: u16 = snapshot::kind::ANY;

            fn encode_body(&self, out: &mut Encoder) {
                match *self {
                    $( #[cfg($cfg)] Filter::$variant(ref f) => f.encode_body(out), )*
                }
            }

            fn kind(&self) -> u16 {
                Filter::kind(self)
            }

            fn layout_version(&self) -> u16 {
                match *self {
                    $( #[cfg($cfg)] Filter::$variant(ref f) => f.layout_version(), )*
                }
            }

            /// Every kind some variant reads (a queue's subfilter kind is
            /// checked by [`decode_kind`](Snapshot::decode_kind)).
            fn check_kind(kind: u16, version: u16) -> Result<(), DecodeError> {
                $(
                    #[cfg($cfg)]
                    if kind == <$ty as Snapshot>::KIND {
                        return <$ty as Snapshot>::check_kind(kind, version);
                    }
                )*
                let _ = version;
                Err(DecodeError::UnknownKind { kind })
            }

            fn decode_body(input: &mut Decoder<'_>, version: u16) -> Result<Self, DecodeError> {
                // Without a kind there is nothing to dispatch on; the
                // envelope and nested readers call `decode_kind`.
                let _ = (input, version);
                Err(DecodeError::UnknownKind { kind: snapshot::kind::ANY })
            }

            fn decode_kind(
                kind: u16,
                version: u16,
                input: &mut Decoder<'_>,
            ) -> Result<Self, DecodeError> {
                $(
                    #[cfg($cfg)]
                    if $crate::filter::picks!($mode, $ty, kind, input) {
                        return <$ty as Snapshot>::decode_kind(kind, version, input)
                            .map(Filter::$variant);
                    }
                )*
                let _ = version;
                #[cfg(feature = "queue")]
                if kind == snapshot::kind::QUEUE {
                    let sub = ddf_queue::subfilter_kind(input)?;
                    return Err(DecodeError::invalid(
                        "queue subfilter kind",
                        format!("{sub:#06x}: ddf::Filter reads queues of the filters the planner builds"),
                    ));
                }
                Err(DecodeError::UnknownKind { kind })
            }
        }
    };
}
pub(crate) use filter_enum;

impl Filter {
    /// Whether the window is measured in the caller's time
    /// ([`Window::Time`]): drive it with `observe_at`. Untimed variants
    /// ignore the clock of `*_at` calls (see the [module docs](self)).
    pub fn is_timed(&self) -> bool {
        matches!(self.window(), Window::Time(_))
    }

    /// Loads a snapshot of any kind compiled in (see the [module
    /// docs](self)). A snapshot written by a [`Deduper`](crate::Deduper)
    /// carries a hasher and is refused here: load it as `Deduper<Filter>`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf::{Digest, DuplicateFilter, Filter, Requirements, Snapshot, plan};
    ///
    /// // Whatever filter wrote the bytes, `Filter` loads it as the right variant.
    /// let mut written = plan(&Requirements::count(10_000).fpr(0.01))?[0].build()?;
    /// written.observe(Digest::mixed(1));
    /// let loaded = Filter::from_bytes(&written.to_bytes())?;
    /// assert_eq!(loaded.family(), written.family());
    /// assert!(loaded.contains(Digest::mixed(1)));
    /// assert!(Filter::from_bytes(b"not a snapshot").is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        <Self as Snapshot>::from_bytes(bytes)
    }

    /// Reads one snapshot of any kind from `reader`, leaving later bytes unread.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf::{Digest, DuplicateFilter, Filter, Requirements, Snapshot, plan};
    ///
    /// // Two snapshots back to back in one stream, read one after the other:
    /// // a count window's filter and one for the whole stream.
    /// let window = plan(&Requirements::count(100).fpr(0.01))?[0].build()?;
    /// let ever = plan(&Requirements::unbounded().fpr(0.01).distinct_items(1e3))?[0].build()?;
    /// let mut bytes = window.to_bytes();
    /// bytes.extend(ever.to_bytes());
    /// let mut reader = bytes.as_slice();
    /// let first = Filter::read_from(&mut reader)?;
    /// let second = Filter::read_from(&mut reader)?;
    /// assert_eq!((first.family(), second.family()), (window.family(), ever.family()));
    /// assert!(!second.contains(Digest::mixed(0)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_from<R: std::io::Read>(reader: R) -> Result<Self, DecodeError> {
        <Self as Snapshot>::read_from(reader)
    }

    /// The snapshot bytes: exactly those of the variant.
    pub fn to_bytes(&self) -> Vec<u8> {
        <Self as Snapshot>::to_bytes(self)
    }

    /// Writes the snapshot to `writer`.
    pub fn write_to<W: std::io::Write>(&self, writer: W) -> std::io::Result<()> {
        <Self as Snapshot>::write_to(self, writer)
    }
}

#[cfg(feature = "serde")]
ddf_core::impl_serde_via_snapshot!(Filter);

/// `Filter` crosses and is shared between threads.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Filter>();
};

/// [`Candidate::build`](crate::Candidate::build): the variant the candidate
/// names, in time mode when it was planned for a time window.
impl TryFrom<&crate::Candidate> for Filter {
    type Error = ddf_core::ParamError;

    fn try_from(c: &crate::Candidate) -> Result<Self, Self::Error> {
        c.build()
    }
}
