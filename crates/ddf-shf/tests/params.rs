//! Random parameters, boundaries included, give a filter or a `ParamError`
//! naming the parameter: never a panic or an absurd allocation.

use ddf_core::testing::params::{check, check_budget, size, width};
use ddf_shf::{CompactShf, Shf};
use proptest::prelude::*;

const NAMES: &[&str] = &["window", "hash_bits", "memory_bits"];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn constructors(window in size(), hash_bits in width(), memory in size()) {
        check(Shf::new(window, hash_bits), NAMES)?;
        check_budget(Shf::with_memory(memory, window), memory, NAMES)?;
        check(Shf::near_exact(window), NAMES)?;
        check(CompactShf::new(window, hash_bits), NAMES)?;
        check_budget(CompactShf::with_memory(memory, window), memory, NAMES)?;
        check(CompactShf::near_exact(window), NAMES)?;
    }
}
