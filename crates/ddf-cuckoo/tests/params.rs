//! Random parameters, boundaries included, give a filter or a `ParamError`
//! naming the parameter: never a panic or an absurd allocation.

use ddf_core::testing::params::{check, check_budget, count_usize, size, width};
use ddf_cuckoo::StreamingCuckoo;
use proptest::prelude::*;

const NAMES: &[&str] = &[
    "buckets",
    "cells_per_bucket",
    "fingerprint_bits",
    "memory_bits",
    "max_kicks",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn constructors(
        buckets in size(),
        cells in count_usize(),
        bits in width(),
        memory in size(),
        kicks in prop_oneof![0u32..1_000, Just(1 << 16), Just((1 << 16) + 1), Just(u32::MAX)],
    ) {
        if let Some(f) = check(StreamingCuckoo::new(buckets, cells, bits), NAMES)? {
            check(f.with_max_kicks(kicks), NAMES)?;
        }
        check_budget(StreamingCuckoo::with_memory(memory, cells, bits), memory, NAMES)?;
    }
}
