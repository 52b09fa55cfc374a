//! Random parameters, boundaries included, give a filter or a `ParamError`
//! naming the parameter: never a panic or an absurd allocation.

#![cfg(all(feature = "queue", feature = "qht"))]

use ddf::queued_qht;
use ddf_core::testing::params::{check, probability, size};
use proptest::prelude::*;

proptest! {
    // Each case plans by up to ~16 evaluations of the queued-QHT rule.
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn queued_qht_from_window_and_rate(window in size(), fpr in probability()) {
        check(queued_qht(window, fpr), &["window", "fpr"])?;
    }
}
