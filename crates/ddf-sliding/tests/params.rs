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
    "epsilon",
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
        epsilon in probability(),
        generations in size(),
        capacity in size(),
        load in probability(),
    ) {
        if let Some(f) = check(SlidingBloom::new(window, slack, epsilon), NAMES)? {
            check(f.with_design_load(load), NAMES)?;
        }
        check(SlidingBloom::least_space(window, epsilon), NAMES)?;
        check(SlidingBloom::with_generations(window, generations, epsilon), NAMES)?;
        check(SlidingBloom::with_time_span(window, slack, capacity, epsilon), NAMES)?;
    }
}
