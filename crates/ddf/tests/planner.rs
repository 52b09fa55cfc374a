//! The planner's promises: no panic on any requirements, every candidate
//! builds with the memory it predicts, errors name the requirement.

use ddf::{Config, Requirements, Span, plan};
use proptest::prelude::*;

fn span() -> impl Strategy<Value = Span> {
    prop_oneof![
        (0u64..50_000).prop_map(Span::Count),
        (
            0u64..2_000,
            prop_oneof![Just(f64::NAN), Just(-1.0), 0.0f64..50.0]
        )
            .prop_map(|(span, rate)| Span::Time { span, rate }),
        Just(Span::Unbounded),
    ]
}

fn requirements() -> impl Strategy<Value = Requirements> {
    (
        span(),
        proptest::option::of(prop_oneof![Just(0.0), Just(1.0), 1e-7f64..0.6]),
        proptest::option::of(0u64..(1 << 22)),
        any::<bool>(),
        proptest::option::of(0u64..100_000),
        proptest::option::of(prop_oneof![Just(0.5), 1.0f64..1e7]),
        any::<u64>(),
    )
        .prop_map(|(span, target, budget, fns, slack, distinct, seed)| {
            let mut r = match span {
                Span::Count(w) => Requirements::count(w),
                Span::Time { span, rate } => Requirements::time(span, rate),
                Span::Unbounded => Requirements::unbounded(),
            };
            if let Some(p) = target {
                r = r.target_fpr(p);
            }
            if let Some(m) = budget {
                r = r.memory_budget(m);
            }
            if let Some(s) = slack {
                r = r.max_slack(s);
            }
            if let Some(n) = distinct {
                r = r.distinct_items(n);
            }
            r.allow_false_negatives(fns).seed(seed)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn plans_never_panic_and_every_candidate_builds_as_predicted(req in requirements()) {
        let Ok(candidates) = plan(&req) else { return Ok(()) };
        for c in &candidates {
            let filter = c.build().map_err(|e| TestCaseError::fail(format!("{c}: {e}")))?;
            prop_assert_eq!(filter.memory_bits(), c.memory_bits, "{}", c);
            prop_assert!(c.fpr >= 0.0 && c.fpr <= 1.0, "{}", c);
            prop_assert!(c.fnr >= 0.0 && c.fnr <= 1.0, "{}", c);
            prop_assert!(c.accesses >= 1.0, "{}", c);
            if c.is_timed() {
                let timed = c.build_timed().map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert_eq!(timed.memory_bits(), c.memory_bits);
            } else {
                prop_assert!(c.build_timed().is_err());
            }
        }
    }
}

#[test]
fn errors_name_the_requirement() {
    let param = |r: Requirements| plan(&r).unwrap_err().param();
    assert_eq!(param(Requirements::count(1000)), "target_fpr");
    assert_eq!(param(Requirements::count(0).target_fpr(0.01)), "window");
    assert_eq!(param(Requirements::count(10).target_fpr(1.5)), "target_fpr");
    assert_eq!(
        param(Requirements::count(10).memory_budget(0)),
        "memory_bits"
    );
    assert_eq!(param(Requirements::time(0, 1.0).target_fpr(0.01)), "span");
    assert_eq!(
        param(Requirements::time(10, f64::NAN).target_fpr(0.01)),
        "rate"
    );
    assert_eq!(
        param(
            Requirements::unbounded()
                .target_fpr(0.01)
                .distinct_items(0.0)
        ),
        "distinct_items"
    );
}

#[test]
fn a_target_ranks_by_memory_and_every_candidate_meets_it() {
    let list = plan(&Requirements::count(100_000).target_fpr(0.01)).unwrap();
    assert!(list.len() >= 3, "{list:?}");
    assert!(
        list.windows(2)
            .all(|p| p[0].memory_bits <= p[1].memory_bits)
    );
    assert!(list.iter().all(|c| c.fpr <= 0.01 && !c.false_negatives));
}

#[test]
fn a_budget_alone_ranks_by_error_and_false_negatives_need_consent() {
    let req = Requirements::count(10_000).memory_budget(100_000);
    let strict = plan(&req).unwrap();
    assert!(strict.iter().all(|c| !c.false_negatives));
    let loose = plan(&req.clone().allow_false_negatives(true)).unwrap();
    assert!(
        loose
            .iter()
            .any(|c| matches!(c.config, Config::QueuedBloom { .. }))
    );
    assert!(
        loose
            .windows(2)
            .all(|p| p[0].fpr + p[0].fnr <= p[1].fpr + p[1].fnr)
    );
    assert!(loose.iter().all(|c| c.memory_bits <= 100_000));
}

#[test]
fn slack_limits_are_kept() {
    let list = plan(&Requirements::count(10_000).target_fpr(0.01).max_slack(0)).unwrap();
    assert!(!list.is_empty() && list.iter().all(|c| c.slack == 0));
}

#[test]
fn unbounded_streams_need_a_count_of_distinct_items() {
    let none = plan(&Requirements::unbounded().target_fpr(0.01)).unwrap();
    assert!(none.is_empty());
    let bloom = plan(
        &Requirements::unbounded()
            .target_fpr(0.01)
            .distinct_items(1e5),
    )
    .unwrap();
    assert!(matches!(bloom[0].config, Config::Bloom { .. }));
    let qht = plan(
        &Requirements::unbounded()
            .memory_budget(1 << 20)
            .distinct_items(1e6)
            .allow_false_negatives(true),
    )
    .unwrap();
    assert!(qht.iter().any(|c| matches!(c.config, Config::Qht { .. })));
}
