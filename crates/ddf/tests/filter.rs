//! `ddf::Filter`: forwarding, the clock contract, and snapshots of any kind.

mod common;

use common::{SEED, every_kind, feed, stream};
use ddf::snapshot::{self, DecodeError, Snapshot};
use ddf::{Deduper, DuplicateFilter, Filter, TimedFilter, Verdict, Window, Windowed};

#[test]
fn every_kind_round_trips_through_bytes_of_any_kind() {
    let s = stream(1, 600, 200);
    for (name, mut f) in every_kind().unwrap() {
        feed(&mut f, &s[..300]);
        let bytes = f.to_bytes();
        let mut back = Filter::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(back.family(), f.family(), "{name}");
        assert_eq!(back.kind(), f.kind(), "{name}");
        assert_eq!(back.window(), f.window(), "{name}");
        assert_eq!(back.slack(), f.slack(), "{name}");
        assert_eq!(back.to_bytes(), bytes, "{name}");
        // The restored filter continues exactly as the original.
        assert_eq!(
            feed(&mut back, &s[300..]),
            feed(&mut f, &s[300..]),
            "{name}"
        );
        assert_eq!(back.to_bytes(), f.to_bytes(), "{name}");
        // Through `std::io`, with bytes after the snapshot left unread.
        let mut io = Vec::new();
        f.write_to(&mut io).unwrap();
        io.extend_from_slice(b"tail");
        let mut reader = io.as_slice();
        let again = Filter::read_from(&mut reader).unwrap();
        assert_eq!(again.to_bytes(), f.to_bytes(), "{name}");
        assert_eq!(reader, b"tail", "{name}");
    }
}

#[test]
fn filter_bytes_are_the_concrete_types_bytes() {
    let s = stream(2, 400, 150);
    let mut qht = ddf::Qht::new(64, 4, 8).unwrap().with_seed(SEED);
    let mut f = Filter::from(qht.clone());
    for &(d, _) in &s {
        assert_eq!(f.observe(d), qht.observe(d));
    }
    assert_eq!(f.to_bytes(), qht.to_bytes());
    assert_eq!(
        ddf::Qht::from_bytes(&f.to_bytes()).unwrap().to_bytes(),
        qht.to_bytes()
    );
    let queue = ddf::Queue::new(3, 20, |_| ddf::PartitionedBloom::new(3, 64)).unwrap();
    let f = Filter::from(queue.clone());
    assert!(matches!(
        Filter::from_bytes(&queue.to_bytes()),
        Ok(Filter::QueuedBloom(_))
    ));
    assert_eq!(f.to_bytes(), queue.to_bytes());
}

#[test]
fn batches_answer_as_one_by_one() {
    let s = stream(3, 700, 250);
    let digests: Vec<_> = s.iter().map(|&(d, _)| d).collect();
    for (name, f) in every_kind().unwrap() {
        let (mut one, mut batch) = (f.clone(), f);
        let singles: Vec<Verdict> = digests.iter().map(|&d| one.observe(d)).collect();
        let mut verdicts = Vec::new();
        for chunk in digests.chunks(97) {
            batch.observe_batch(chunk, &mut verdicts);
        }
        assert_eq!(verdicts, singles, "{name}");
        let mut answers = Vec::new();
        batch.contains_batch(&digests, &mut answers);
        let expected: Vec<bool> = digests.iter().map(|&d| one.contains(d)).collect();
        assert_eq!(answers, expected, "{name}");
        assert_eq!(batch.to_bytes(), one.to_bytes(), "{name}");
    }
}

/// The documented contract: an untimed variant's `*_at` ignore the clock.
#[test]
fn untimed_variants_ignore_the_clock() {
    let s = stream(4, 500, 150);
    let mut untimed = 0;
    for (name, f) in every_kind().unwrap() {
        assert_eq!(f.is_timed(), name.ends_with("-time"), "{name}");
        if f.is_timed() {
            continue;
        }
        untimed += 1;
        let (mut plain, mut clocked) = (f.clone(), f);
        for (i, &(d, _)) in s.iter().enumerate() {
            // A clock that jumps around, far apart: it must not matter.
            let now = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 20;
            assert_eq!(clocked.contains_at(d, now), plain.contains(d), "{name}");
            if i % 5 == 0 {
                clocked.insert_at(d, now);
                plain.insert(d);
            } else {
                assert_eq!(clocked.observe_at(d, now), plain.observe(d), "{name}");
            }
        }
        // Families with a time mode note the latest time in their state even
        // in count mode (so their bytes may differ); what they answer next
        // must not.
        let more = stream(5, 300, 150);
        for &(d, _) in &more {
            assert_eq!(clocked.observe(d), plain.observe(d), "{name}");
        }
    }
    assert!(untimed >= 15);
}

/// A timed variant forgets by the clock it is given, as its concrete type does.
#[test]
fn timed_variants_forget_by_time() {
    for (name, mut f) in every_kind().unwrap() {
        let Window::Time(t) = f.window() else {
            continue;
        };
        let d = ddf::Digest::mixed(42);
        assert_eq!(f.observe_at(d, 100), Verdict::Unseen, "{name}");
        assert!(
            f.contains_at(d, 100 + t - 1),
            "{name}: forgotten inside the window"
        );
        let late = 100 + t + f.slack() + 1;
        assert!(
            !f.contains_at(d, late),
            "{name}: remembered past window + slack"
        );
    }
}

#[test]
fn windows_are_reported_by_every_variant() {
    for (name, f) in every_kind().unwrap() {
        let w = f.window();
        let expected_unbounded = matches!(
            name,
            "qht" | "qhtd" | "qqhtd" | "sqf" | "cuckoo" | "bloom" | "stable-bloom"
        );
        assert_eq!(w == Window::Unbounded, expected_unbounded, "{name}: {w:?}");
    }
}

#[test]
fn a_deduper_of_any_filter_round_trips_through_a_file() {
    let path = std::env::temp_dir().join(format!("ddf-filter-test-{}.snap", std::process::id()));
    let items: Vec<String> = (0..500).map(|i| format!("event-{}", i % 170)).collect();
    for (name, f) in every_kind().unwrap() {
        let mut dedup = Deduper::with_seed(f, 7);
        let timed = dedup.filter().is_timed();
        let run = |d: &mut Deduper<Filter>, part: &[String], t0: u64| -> Vec<Verdict> {
            part.iter()
                .enumerate()
                .map(|(i, x)| {
                    if timed {
                        d.observe_at(x, t0 + i as u64 / 4)
                    } else {
                        d.observe(x)
                    }
                })
                .collect()
        };
        run(&mut dedup, &items[..250], 0);
        dedup
            .write_to(std::fs::File::create(&path).unwrap())
            .unwrap();
        let mut back: Deduper<Filter> =
            Deduper::read_from(std::fs::File::open(&path).unwrap()).unwrap();
        assert_eq!(back.filter().family(), dedup.filter().family(), "{name}");
        assert_eq!(
            back.digest("x"),
            dedup.digest("x"),
            "{name}: hasher key lost"
        );
        assert_eq!(
            run(&mut back, &items[250..], 70),
            run(&mut dedup, &items[250..], 70),
            "{name}"
        );
        assert_eq!(back.to_bytes(), dedup.to_bytes(), "{name}");
    }
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn bad_snapshots_are_refused_with_the_reason() {
    // A kind no variant holds.
    let unknown = snapshot::seal(snapshot::kind::TEST, 1, 0, &[], &[]);
    assert_eq!(
        Filter::from_bytes(&unknown).unwrap_err(),
        DecodeError::UnknownKind {
            kind: snapshot::kind::TEST
        }
    );
    // A queue whose subfilters no variant holds.
    let exact_queue = ddf::Queue::new(2, 8, |_| Ok(ddf::ExactWindow::unbounded())).unwrap();
    assert!(matches!(
        Filter::from_bytes(&exact_queue.to_bytes()),
        Err(DecodeError::Invalid {
            field: "queue subfilter kind",
            ..
        })
    ));
    // A future layout of a known kind.
    let qht = Filter::from(ddf::Qht::new(8, 2, 8).unwrap());
    let mut body = snapshot::Encoder::new();
    qht.encode_body(&mut body);
    let future = snapshot::seal(snapshot::kind::QHT, 99, 0, &[], &body.into_bytes());
    assert!(matches!(
        Filter::from_bytes(&future),
        Err(DecodeError::UnsupportedVersion { version: 99, .. })
    ));
    // A deduper's snapshot carries a hasher: load it as a deduper.
    let keyed = Deduper::with_seed(qht.clone(), 1).to_bytes();
    assert!(matches!(
        Filter::from_bytes(&keyed),
        Err(DecodeError::HasherMismatch { .. })
    ));
    // Every truncation and a flipped bit.
    let bytes = qht.to_bytes();
    for len in 0..bytes.len() {
        assert!(Filter::from_bytes(&bytes[..len]).is_err());
    }
    let mut flipped = bytes.clone();
    let last_body_byte = flipped.len() - 9;
    flipped[last_body_byte] ^= 4;
    assert_eq!(
        Filter::from_bytes(&flipped).unwrap_err(),
        DecodeError::BadChecksum
    );
}

#[test]
fn filter_is_send_and_sync() {
    fn check<T: Send + Sync + 'static>() {}
    check::<Filter>();
    check::<Deduper<Filter>>();
}
