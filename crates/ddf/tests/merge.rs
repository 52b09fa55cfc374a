//! `Filter::merge` over every mergeable family: a stream split across
//! nodes and merged reports every item any node saw within the window;
//! merging is commutative and associative in its answers (in its bytes
//! where the state is a union of bits) and an empty side changes nothing;
//! refused pairs name their difference.

use ddf::{
    Apbbf, Apbf, Deduper, Digest, ExactWindow, Filter, KeyedSipHasher, Merge, MergeError,
    PartitionedBloom, Slack, SlidingBloom, Snapshot, TimedFilter, Window, Windowed,
};
use proptest::prelude::*;

/// The window of the timed filters, in time units.
const SPAN: u64 = 1_000;

/// One empty filter of each mergeable configuration, sized for the whole
/// stream (at most one arrival per time unit over all nodes), and whether
/// its merged state is the union of bits (equal bytes in any order).
fn empties() -> Vec<(Filter, bool)> {
    vec![
        (
            Apbf::with_time_span(SPAN, 4, 6, 3_000).unwrap().into(),
            true,
        ),
        (
            Apbbf::with_time_span(SPAN, 3, 6, 32, 512, 4)
                .unwrap()
                .into(),
            true,
        ),
        (
            SlidingBloom::with_time_span(SPAN, Slack::LeastSpace, 2 * SPAN, 0.01)
                .unwrap()
                .into(),
            false,
        ),
        (
            ExactWindow::<Digest>::with_time_span(SPAN, 4 * SPAN)
                .unwrap()
                .into(),
            false,
        ),
        (Filter::exact(Window::Unbounded).unwrap(), false),
        (
            PartitionedBloom::with_items(4_000, 0.01).unwrap().into(),
            true,
        ),
    ]
}

/// A stream of `(key, node, time)`: keys from a universe of `universe`
/// (so items repeat within and across nodes), times rising by 0 or 1.
fn stream() -> impl Strategy<Value = Vec<(u64, usize, u64)>> {
    (
        proptest::collection::vec((0u64..600, 0usize..3, 0u64..2), 1..1_500),
        0u64..5_000,
    )
        .prop_map(|(steps, start)| {
            let mut now = start;
            steps
                .into_iter()
                .map(|(key, node, step)| {
                    now += step;
                    (key, node, now)
                })
                .collect()
        })
}

/// The filters of `nodes` nodes over their shares of `events`, and one
/// filter over the whole stream.
fn split(empty: &Filter, events: &[(u64, usize, u64)], nodes: usize) -> (Vec<Filter>, Filter) {
    let mut parts = vec![empty.clone(); nodes];
    let mut whole = empty.clone();
    for &(key, node, now) in events {
        parts[node % nodes].insert_at(Digest::mixed(key), now);
        whole.insert_at(Digest::mixed(key), now);
    }
    (parts, whole)
}

fn merged(parts: &[&Filter]) -> Filter {
    let mut m = parts[0].clone();
    for p in &parts[1..] {
        m.merge(p).unwrap();
    }
    m
}

/// The answers of `f` for every key of the universe and some never
/// inserted, at times `at`.
fn answers(f: &Filter, at: &[u64]) -> Vec<bool> {
    at.iter()
        .flat_map(|&t| (0..700u64).map(move |k| f.contains_at(Digest::mixed(k), t)))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Every item seen by any node within the window is reported by the
    /// merge, which agrees with the filter of the whole stream (bit for
    /// bit for the unions of bits).
    #[test]
    fn a_merge_reports_what_any_node_saw(events in stream()) {
        let end = events.last().unwrap().2;
        for (empty, bits) in empties() {
            let (parts, whole) = split(&empty, &events, 3);
            let m = merged(&parts.iter().collect::<Vec<_>>());
            prop_assert_eq!(m.generations_closed_early(), 0, "{}", empty.family());
            for &(key, _, at) in &events {
                let within = match m.window() {
                    Window::Time(t) => end - at < t,
                    _ => true,
                };
                if within {
                    prop_assert!(m.contains_at(Digest::mixed(key), end), "{}: {key} at {at}", empty.family());
                }
            }
            if bits {
                prop_assert_eq!(m.to_bytes(), whole.to_bytes(), "{}", empty.family());
            }
        }
    }

    /// `a ∪ b = b ∪ a` and `(a ∪ b) ∪ c = a ∪ (b ∪ c)` in every answer (in
    /// the bytes for the unions of bits); merging an empty filter into a
    /// filter changes nothing, and merging a filter into an empty one
    /// gives that filter.
    #[test]
    fn merge_is_commutative_and_associative_and_empty_is_neutral(events in stream()) {
        let end = events.last().unwrap().2;
        let at = [end, end + SPAN / 3, end + SPAN - 1];
        for (empty, bits) in empties() {
            let name = empty.family();
            let (parts, _) = split(&empty, &events, 3);
            let (a, b, c) = (&parts[0], &parts[1], &parts[2]);
            let ab = merged(&[a, b]);
            let ba = merged(&[b, a]);
            let ab_c = merged(&[&ab, c]);
            let a_bc = merged(&[a, &merged(&[b, c])]);
            prop_assert_eq!(answers(&ab, &at), answers(&ba, &at), "{}", name);
            prop_assert_eq!(answers(&ab_c, &at), answers(&a_bc, &at), "{}", name);
            if bits {
                prop_assert_eq!(ab.to_bytes(), ba.to_bytes(), "{}", name);
                prop_assert_eq!(ab_c.to_bytes(), a_bc.to_bytes(), "{}", name);
            }
            let mut with_empty = a.clone();
            with_empty.merge(&empty).unwrap();
            prop_assert_eq!(with_empty.to_bytes(), a.to_bytes(), "{}", name);
            let mut into_empty = empty.clone();
            into_empty.merge(a).unwrap();
            prop_assert_eq!(into_empty.to_bytes(), a.to_bytes(), "{}", name);
        }
    }
}

#[test]
fn count_windows_are_refused_as_such() {
    let count: Vec<Filter> = vec![
        Apbf::new(4, 6, 3_000).unwrap().into(),
        Apbbf::new(3, 6, 32, 512, 4).unwrap().into(),
        SlidingBloom::least_space(1_000, 0.01).unwrap().into(),
        ExactWindow::<Digest>::new(1_000).unwrap().into(),
        ddf::Shf::new(1_000, 16).unwrap().into(),
        ddf::CompactShf::new(1_000, 16).unwrap().into(),
        ddf::A2::new(8_192, 4, 500).unwrap().into(),
        ddf::BlockDecayingBloom::new(1_000, 10_000, 4, 4)
            .unwrap()
            .into(),
        ddf::queued_qht(50_000, 0.1).unwrap().into(),
    ];
    for e in refusals(count, |e| matches!(e, MergeError::CountWindow { .. })) {
        assert!(e.contains("count window"), "{e}");
    }
}

/// The refusal of each filter merged with itself, checked by `is`, as text.
fn refusals(filters: Vec<Filter>, is: fn(&MergeError) -> bool) -> Vec<String> {
    filters
        .into_iter()
        .map(|f| {
            let e = f.clone().merge(&f).unwrap_err();
            assert!(is(&e), "{}: {e}", f.family());
            e.to_string()
        })
        .collect()
}

#[test]
fn states_one_stream_left_behind_are_refused_with_a_reason() {
    let saturating: Vec<Filter> = vec![
        ddf::Qht::new(1_000, 4, 8).unwrap().into(),
        ddf::StreamingCuckoo::new(1_000, 4, 8).unwrap().into(),
        ddf::StableBloom::new(10_000, 3, 4, 10).unwrap().into(),
    ];
    for e in refusals(saturating, |e| matches!(e, MergeError::Unsupported { .. })) {
        assert!(e.contains("one stream") || e.contains("same size"), "{e}");
    }
}

#[test]
fn other_kinds_parameters_and_keys_are_named() {
    let mut apbf: Filter = Apbf::with_time_span(SPAN, 4, 6, 3_000).unwrap().into();
    let sliding: Filter = SlidingBloom::with_time_span(SPAN, Slack::LeastSpace, 2 * SPAN, 0.01)
        .unwrap()
        .into();
    let e = apbf.merge(&sliding).unwrap_err();
    assert!(matches!(e, MergeError::Kind { .. }), "{e}");
    assert!(e.to_string().contains("APBF") && e.to_string().contains("sliding Bloom"));
    // A parameter, with both values.
    let wider: Filter = Apbf::with_time_span(SPAN, 4, 6, 4_000).unwrap().into();
    let e = apbf.merge(&wider).unwrap_err();
    assert_eq!(e, MergeError::parameter("m", 3_000, 4_000));
    let longer: Filter = Apbf::with_time_span(2 * SPAN, 4, 6, 3_000).unwrap().into();
    let e = apbf.merge(&longer).unwrap_err().to_string();
    assert!(e.contains("period"), "{e}");
    let count: Filter = Apbf::new(4, 6, 3_000).unwrap().into();
    let e = apbf.merge(&count).unwrap_err();
    assert_eq!(e, MergeError::parameter("window", "time", "count"));
    let span: Filter = ExactWindow::<Digest>::with_time_span(2 * SPAN, 4 * SPAN)
        .unwrap()
        .into();
    let mut exact: Filter = ExactWindow::<Digest>::with_time_span(SPAN, 4 * SPAN)
        .unwrap()
        .into();
    assert!(matches!(
        exact.merge(&span).unwrap_err(),
        MergeError::Parameter { name: "window", .. }
    ));
    // Hash keys: a merge of dedupers needs one key.
    let mut a = Deduper::with_hasher(apbf.clone(), KeyedSipHasher::with_seed(1));
    let b = Deduper::with_hasher(apbf.clone(), KeyedSipHasher::with_seed(2));
    assert_eq!(a.merge(&b), Err(MergeError::HashKey));
    let c = Deduper::with_hasher(apbf, KeyedSipHasher::with_seed(1));
    assert_eq!(a.merge(&c), Ok(()));
}

#[test]
fn generations_out_of_step_are_refused_as_an_epoch_difference() {
    // One side overloaded: a generation closed early there, so its
    // segments no longer hold the generations the other side's do.
    let empty = Apbf::with_time_span(SPAN, 4, 6, 3_000).unwrap();
    let (mut calm, mut busy) = (empty.clone(), empty.clone());
    calm.insert_at(Digest::mixed(0), 10);
    for i in 0..2 * empty.generation() {
        busy.insert_at(Digest::mixed(i), 10);
    }
    assert!(busy.generations_closed_early() > 0);
    let e = calm.merge(&busy).unwrap_err();
    assert!(matches!(e, MergeError::Epoch { .. }), "{e}");
    assert!(e.to_string().contains("closed early"), "{e}");
    // Nothing changed on refusal.
    let mut again = empty.clone();
    again.insert_at(Digest::mixed(0), 10);
    assert_eq!(calm.to_bytes(), again.to_bytes());
}
