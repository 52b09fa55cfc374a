//! The value a `DDF.*` key holds: a filter with its hash key, and what
//! `DDF.INFO` reports about it.
//!
//! Everything here is plain Rust (no Redis API), so it is unit-tested
//! without a server; `module.rs` wires it to commands and persistence.

use crate::plan::Inner;
use ddf::snapshot::{DecodeError, Decoder, Encoder};
use ddf::{Deduper, DuplicateFilter, KeyedSipHasher, PortableHasher, TimedFilter};

/// The version of [`DdfKey::to_bytes`]'s layout (the payload of RDB,
/// `DUMP`, and the AOF's `DDF.LOADSTATE`).
pub(crate) const FORMAT_VERSION: u16 = 1;

/// Leading bytes of the payload's body, so a foreign string is refused at once.
const MAGIC: &[u8; 4] = b"DDFR";

/// The snapshot kind code the payload is sealed under: `ddf`'s envelope
/// (magic, version, length, SipHash checksum) around this module's body, so
/// a flipped byte anywhere is caught, not only inside the filter.
const PAYLOAD_KIND: u16 = 0x7d01;

/// The window a key answers for, in the units of `DDF.RESERVE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Span {
    /// `WINDOW n`: the last `n` observed items.
    Count(u64),
    /// `WITHIN ms`: items observed less than `ms` milliseconds ago; the
    /// filter is sized for `capacity` items per span.
    Time {
        /// The span `t`, in milliseconds.
        ms: u64,
        /// Items per span the filter is sized for.
        capacity: u64,
    },
    /// No `WINDOW` or `WITHIN`: the whole stream.
    Whole,
}

/// What the planner chose and predicted, kept for `DDF.INFO`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Meta {
    /// The planner's family name (`Candidate::family`).
    pub(crate) family: String,
    /// The planner's configuration, printed (`Config`'s `Debug`).
    pub(crate) config: String,
    /// The window asked for.
    pub(crate) span: Span,
    /// How far beyond the window an item may still be reported, in the
    /// window's unit.
    pub(crate) slack: u64,
    /// The error target of `ERROR` (`0` when only `MAXMEMORY` was given).
    pub(crate) target_fpr: f64,
    /// The planner's predicted false-positive rate.
    pub(crate) fpr: f64,
    /// The planner's predicted false-negative rate.
    pub(crate) fnr: f64,
    /// Whether items within the window may be missed.
    pub(crate) misses: bool,
}

/// A key's value: the filter with its keyed hasher, its description, the
/// number of items observed and the latest clock reading applied.
#[derive(Debug, Clone)]
pub(crate) struct DdfKey {
    seen: Deduper<Inner>,
    meta: Meta,
    items: u64,
    clock: u64,
}

impl DdfKey {
    /// A fresh key over `filter`, hashing items under `hasher`.
    pub(crate) fn new(filter: Inner, hasher: KeyedSipHasher, meta: Meta) -> Self {
        DdfKey {
            seen: Deduper::with_hasher(filter, hasher),
            meta,
            items: 0,
            clock: 0,
        }
    }

    /// The description `DDF.INFO` prints.
    pub(crate) fn meta(&self) -> &Meta {
        &self.meta
    }

    /// Items observed since `DDF.RESERVE`.
    pub(crate) fn items(&self) -> u64 {
        self.items
    }

    /// The latest clock reading applied (time windows; 0 before the first).
    pub(crate) fn clock(&self) -> u64 {
        self.clock
    }

    /// The secret SipHash key: `DDF.RESERVE` replicates it so replicas hash
    /// alike.
    pub(crate) fn hash_key(&self) -> Vec<u8> {
        self.seen.hasher().key_bytes()
    }

    /// State bytes of the filter (its `memory_bits`, rounded up).
    pub(crate) fn filter_bytes(&self) -> u64 {
        self.seen.filter().memory_bits().div_ceil(8)
    }

    /// What `MEMORY USAGE` reports: the filter's state, the descriptions,
    /// and this struct.
    pub(crate) fn memory_usage(&self) -> u64 {
        let text = self.meta.family.len() + self.meta.config.len();
        self.filter_bytes() + (std::mem::size_of::<Self>() + text) as u64
    }

    /// Merges `other` into this key ([`Deduper::merge`]: one hash key, then
    /// the filters' own rule): items observed add up and the clock is the
    /// later one. On a refusal nothing changes.
    pub(crate) fn merge(&mut self, other: &DdfKey) -> Result<(), ddf::MergeError> {
        self.seen.merge(&other.seen)?;
        self.items = self.items.saturating_add(other.items);
        self.clock = self.clock.max(other.clock);
        Ok(())
    }

    /// Whether the window is a time window.
    pub(crate) fn is_timed(&self) -> bool {
        matches!(self.meta.span, Span::Time { .. })
    }

    /// The clock an operation at caller time `now` runs at: the filter
    /// treats a step back as the latest time, and so does `DDF.INFO`.
    fn at(&self, now: u64) -> u64 {
        now.max(self.clock)
    }

    /// Observes `items` in order (at time `now` for a time window, ignored
    /// otherwise): `true` for each reported duplicate. Both kinds go through
    /// the filter's batch path: a time window with the call's one clock
    /// reading (`observe_batch_at`), a count window with `observe_batch`.
    pub(crate) fn observe(&mut self, items: &[&[u8]], now: u64) -> Vec<bool> {
        let mut verdicts = Vec::with_capacity(items.len());
        // `observe_many*` hash in blocks and hand each block to the batch
        // path, so filters that prefetch get to do so.
        if self.is_timed() {
            let now = self.at(now);
            self.clock = now;
            self.seen
                .observe_many_at(items.iter().copied(), now, &mut verdicts);
        } else {
            self.seen.observe_many(items.iter().copied(), &mut verdicts);
        }
        self.items = self.items.saturating_add(items.len() as u64);
        verdicts.iter().map(|v| v.is_duplicate()).collect()
    }

    /// The answers [`observe`](Self::observe) would give, without recording:
    /// the filter's `contains_batch_at` (time) or `contains_batch` (count).
    pub(crate) fn exists(&self, items: &[&[u8]], now: u64) -> Vec<bool> {
        let digests: Vec<_> = items.iter().map(|item| self.seen.digest(*item)).collect();
        let mut answers = Vec::with_capacity(items.len());
        if self.is_timed() {
            self.seen
                .filter()
                .contains_batch_at(&digests, self.at(now), &mut answers);
        } else {
            self.seen.filter().contains_batch(&digests, &mut answers);
        }
        answers
    }

    /// The payload of RDB, `DUMP` and the AOF: this module's fields, then
    /// the filter's snapshot with its hash key (the validating `ddf`
    /// snapshot format, checksummed).
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut out = Encoder::new();
        out.put_raw(MAGIC);
        out.put_u16(FORMAT_VERSION);
        out.put_bytes(self.meta.family.as_bytes());
        out.put_bytes(self.meta.config.as_bytes());
        match self.meta.span {
            Span::Count(w) => {
                out.put_u8(0);
                out.put_u64(w);
                out.put_u64(0);
            }
            Span::Time { ms, capacity } => {
                out.put_u8(1);
                out.put_u64(ms);
                out.put_u64(capacity);
            }
            // A kind of its own: values of kinds 0 and 1 read as before.
            Span::Whole => {
                out.put_u8(2);
                out.put_u64(0);
                out.put_u64(0);
            }
        }
        out.put_u64(self.meta.slack);
        out.put_f64(self.meta.target_fpr);
        out.put_f64(self.meta.fpr);
        out.put_f64(self.meta.fnr);
        out.put_bool(self.meta.misses);
        out.put_u64(self.items);
        out.put_u64(self.clock);
        out.put_bytes(&self.seen.to_bytes());
        ddf::snapshot::seal(PAYLOAD_KIND, FORMAT_VERSION, 0, &[], &out.into_bytes())
    }

    /// Restores [`to_bytes`](Self::to_bytes) output. Corrupt, truncated or
    /// foreign bytes are an error naming the field; the filter's window must
    /// agree with the recorded one.
    pub(crate) fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let envelope = ddf::snapshot::open(bytes)?;
        if envelope.kind != PAYLOAD_KIND || envelope.hasher_id != 0 {
            return Err(DecodeError::invalid("kind", "not a ddf-redis payload"));
        }
        let mut input = Decoder::new(envelope.body);
        if input.raw(MAGIC.len(), "magic")? != MAGIC {
            return Err(DecodeError::invalid("magic", "not a ddf-redis payload"));
        }
        let version = input.u16("format version")?;
        if version != FORMAT_VERSION {
            return Err(DecodeError::invalid(
                "format version",
                format!("{version}, this module reads {FORMAT_VERSION}"),
            ));
        }
        let text = |b: &[u8], field: &'static str| {
            std::str::from_utf8(b)
                .map(str::to_owned)
                .map_err(|_| DecodeError::invalid(field, "not UTF-8"))
        };
        let family = text(input.bytes("family")?, "family")?;
        let config = text(input.bytes("config")?, "config")?;
        let kind = input.u8("window kind")?;
        let (w, capacity) = (input.u64("window")?, input.u64("capacity")?);
        let span = match kind {
            0 => Span::Count(w),
            1 => Span::Time { ms: w, capacity },
            2 => Span::Whole,
            k => {
                return Err(DecodeError::invalid(
                    "window kind",
                    format!("{k}, not 0, 1 or 2"),
                ));
            }
        };
        let slack = input.u64("slack")?;
        let probability = |p: f64, field: &'static str| {
            if (0.0..=1.0).contains(&p) {
                Ok(p)
            } else {
                Err(DecodeError::invalid(field, format!("{p}, not in [0, 1]")))
            }
        };
        let target_fpr = probability(input.f64("target fpr")?, "target fpr")?;
        let fpr = probability(input.f64("fpr")?, "fpr")?;
        let fnr = probability(input.f64("fnr")?, "fnr")?;
        let misses = input.bool("misses")?;
        let items = input.u64("items")?;
        let clock = input.u64("clock")?;
        let seen = Deduper::<Inner>::from_bytes(input.bytes("filter")?)?;
        input.finish()?;
        if seen.filter().is_timed() != matches!(span, Span::Time { .. }) {
            return Err(DecodeError::invalid(
                "window",
                "the filter's clock mode differs from the recorded window",
            ));
        }
        Ok(DdfKey {
            seen,
            meta: Meta {
                family,
                config,
                span,
                slack,
                target_fpr,
                fpr,
                fnr,
                misses,
            },
            items,
            clock,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ddf::{Family, Requirements};

    /// A key holding the sliding Bloom filter the planner sizes for `span`
    /// at 0.1 % with any slack (a time window's capacity as its rate).
    fn key(span: Span) -> DdfKey {
        let req = match span {
            Span::Count(w) => Requirements::count(w),
            Span::Time { ms, capacity } => Requirements::time(ms, capacity as f64 / ms as f64),
            Span::Whole => panic!("the sample keys have windows"),
        };
        let candidates = ddf::plan(&req.fpr(1e-3).max_slack(u64::MAX)).expect("plans");
        let sliding = candidates
            .iter()
            .find(|c| Family::of(&c.config) == Family::Sliding)
            .expect("a sliding Bloom candidate");
        let filter: Inner = sliding.build().expect("valid parameters");
        let meta = Meta {
            family: "sliding Bloom".into(),
            config: "test".into(),
            span,
            slack: 0,
            target_fpr: 1e-3,
            fpr: 1e-3,
            fnr: 0.0,
            misses: false,
        };
        DdfKey::new(filter, KeyedSipHasher::with_seed(7), meta)
    }

    fn items(n: u64) -> Vec<Vec<u8>> {
        (0..n)
            .map(|i| format!("item-{}", i % (n / 2)).into_bytes())
            .collect()
    }

    #[test]
    fn observe_exists_and_round_trip_agree() {
        for span in [
            Span::Count(1000),
            Span::Time {
                ms: 500,
                capacity: 1000,
            },
        ] {
            let mut k = key(span);
            let stream = items(400);
            let refs: Vec<&[u8]> = stream.iter().map(Vec::as_slice).collect();
            let (first, second) = refs.split_at(200);
            let a = k.observe(first, 10);
            assert!(a.iter().all(|d| !d), "first half is all unseen");
            let before = k.exists(second, 20);
            assert!(before.iter().all(|&d| d), "second half repeats the first");
            let restored = DdfKey::from_bytes(&k.to_bytes()).expect("round trip");
            assert_eq!(restored.to_bytes(), k.to_bytes());
            let mut k2 = restored;
            assert_eq!(k.observe(second, 20), k2.observe(second, 20));
            assert_eq!(k.items(), 400);
            assert_eq!(k2.to_bytes(), k.to_bytes());
        }
    }

    #[test]
    fn time_window_forgets_and_clock_never_steps_back() {
        let mut k = key(Span::Time {
            ms: 100,
            capacity: 100,
        });
        assert_eq!(k.observe(&[b"a"], 1000), [false]);
        assert_eq!(k.observe(&[b"a"], 1050), [true]);
        // A clock behind the latest reading runs at the latest.
        assert_eq!(k.exists(&[b"a"], 0), [true]);
        assert_eq!(k.clock(), 1050);
        // Far beyond window and slack, the item is gone.
        assert_eq!(k.exists(&[b"a"], 1_000_000), [false]);
    }

    proptest::proptest! {
        /// A call of many items (the batch paths, one clock reading per call)
        /// answers and leaves the state as the same items one call each; a
        /// clock that steps back runs at the latest reading either way.
        #[test]
        fn calls_of_many_items_equal_calls_of_one(
            stream in proptest::collection::vec((0u8..40, 0u64..30, 1usize..300), 1..40),
            timed in proptest::bool::ANY,
        ) {
            let span = if timed {
                Span::Time { ms: 200, capacity: 300 }
            } else {
                Span::Count(300)
            };
            let (mut batched, mut single) = (key(span), key(span));
            let mut now = 1_000u64;
            for (i, &(first, step, len)) in stream.iter().enumerate() {
                // Every fifth call steps the clock back.
                now = if i % 5 == 4 { now.saturating_sub(step) } else { now + step };
                let items: Vec<Vec<u8>> = (0..len)
                    .map(|j| vec![first.wrapping_add((j % 97) as u8), (j % 3) as u8])
                    .collect();
                let refs: Vec<&[u8]> = items.iter().map(Vec::as_slice).collect();
                let asked = batched.exists(&refs, now);
                let one_by_one_asked: Vec<bool> =
                    refs.iter().map(|r| single.exists(&[*r], now)[0]).collect();
                proptest::prop_assert_eq!(&asked, &one_by_one_asked);
                let got = batched.observe(&refs, now);
                let want: Vec<bool> = refs.iter().map(|r| single.observe(&[*r], now)[0]).collect();
                proptest::prop_assert_eq!(got, want);
            }
            proptest::prop_assert_eq!(batched.to_bytes(), single.to_bytes());
        }
    }

    #[test]
    fn corrupt_and_foreign_payloads_are_refused() {
        let mut k = key(Span::Count(64));
        k.observe(&[b"x", b"y"], 0);
        let bytes = k.to_bytes();
        for cut in 0..bytes.len() {
            assert!(
                DdfKey::from_bytes(&bytes[..cut]).is_err(),
                "truncated at {cut}"
            );
        }
        // A flip in the filter snapshot hits its checksum; a flip in our
        // fields hits a range check or the window cross-check.
        for at in [0, 5, bytes.len() / 2, bytes.len() - 1] {
            let mut bad = bytes.clone();
            bad[at] ^= 0x40;
            assert!(DdfKey::from_bytes(&bad).is_err(), "flip at {at}");
        }
        let mut trailing = bytes.clone();
        trailing.push(0);
        assert!(DdfKey::from_bytes(&trailing).is_err());
        assert!(DdfKey::from_bytes(b"SET id 1 NX EX 3600").is_err());
    }
}
