//! Random parameters, boundaries included, give a filter or a `ParamError`
//! naming the parameter: never a panic or an absurd allocation.

use ddf_core::testing::params::{check, check_budget, count_usize, size, width};
use ddf_qht::{Qht, Qhtd, Qqhtd, Sqf};
use proptest::prelude::*;

const QHT: &[&str] = &["rows", "cells_per_row", "fingerprint_bits", "memory_bits"];
const SQF: &[&str] = &["q", "rows", "cells_per_row", "r", "r_prime", "memory_bits"];

/// `q` for `Sqf::new`: small tables, or beyond the 2^40-row limit.
fn q() -> impl Strategy<Value = u32> {
    prop_oneof![0u32..=12, 41u32..=70, Just(u32::MAX)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn quotient_filters(rows in size(), k in count_usize(), s in width(), memory in size()) {
        check(Qht::new(rows, k, s), QHT)?;
        check(Qhtd::new(rows, k, s), QHT)?;
        check(Qqhtd::new(rows, k, s), QHT)?;
        check_budget(Qht::with_memory(memory, k, s), memory, QHT)?;
        check_budget(Qhtd::with_memory(memory, k, s), memory, QHT)?;
        check_budget(Qqhtd::with_memory(memory, k, s), memory, QHT)?;
    }

    #[test]
    fn sqf(
        q in q(),
        rows in size(),
        k in count_usize(),
        r in width(),
        r_prime in width(),
        memory in size(),
    ) {
        check(Sqf::new(q, k, r, r_prime), SQF)?;
        check(Sqf::with_rows(rows, k, r, r_prime), SQF)?;
        check_budget(Sqf::with_memory(memory, k, r, r_prime), memory, SQF)?;
        check_budget(Sqf::with_memory_power_of_two(memory, k, r, r_prime), memory, SQF)?;
    }
}
