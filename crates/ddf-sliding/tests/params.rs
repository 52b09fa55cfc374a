//! Random parameters, boundaries included, give a filter or a `ParamError`
//! naming the parameter: never a panic or an absurd allocation.

use ddf_core::testing::params::{check, probability, size};
use ddf_sliding::{Slack, SlidingBloom};
use proptest::prelude::*;

const NAMES: &[&str] = &[
    "window",
    "time_span",
    "slack",
    "capacity",
    "generations",
    "fpr",
    "load",
];

fn slack() -> impl Strategy<Value = Slack> {
    prop_oneof![Just(Slack::LeastSpace), size().prop_map(Slack::AtMost)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn constructors(
        window in size(),
        slack in slack(),
        fpr in probability(),
        generations in size(),
        capacity in size(),
        load in probability(),
    ) {
        if let Some(f) = check(SlidingBloom::new(window, slack, fpr), NAMES)? {
            check(f.with_design_load(load), NAMES)?;
        }
        check(SlidingBloom::least_space(window, fpr), NAMES)?;
        check(SlidingBloom::with_generations(window, generations, fpr), NAMES)?;
        check(SlidingBloom::with_time_span(window, slack, capacity, fpr), NAMES)?;
    }
}
