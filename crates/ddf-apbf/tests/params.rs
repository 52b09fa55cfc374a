//! Random parameters, boundaries included, give a filter or a `ParamError`
//! naming the parameter: never a panic or an absurd allocation.

use ddf_apbf::{Apbbf, Apbf, AtomicApbf};
use ddf_core::testing::params::{check, probability, size, width};
use proptest::prelude::*;

const NAMES: &[&str] = &[
    "k",
    "l",
    "m",
    "window",
    "fp",
    "npws",
    "blocks",
    "block_bits",
    "bits_per_block",
    "time_span",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn apbf(
        k in width(),
        l in width(),
        m in size(),
        window in size(),
        fp in probability(),
        npws in probability().prop_map(|p| 2.0 * p),
        span in size(),
    ) {
        if let Some(f) = check(Apbf::new(k, l, m), NAMES)? {
            check(f.timed(span), NAMES)?;
        }
        if let Some(f) = check(Apbf::with_window(window, fp), NAMES)? {
            check(f.timed(span), NAMES)?;
        }
        check(Apbf::with_window_and_npws(window, fp, npws), NAMES)?;
    }

    #[test]
    fn atomic_apbf(
        k in width(),
        l in width(),
        m in size(),
        window in size(),
        fp in probability(),
        span in size(),
    ) {
        if let Some(f) = check(AtomicApbf::new(k, l, m), NAMES)? {
            check(f.timed(span), NAMES)?;
        }
        if let Some(f) = check(AtomicApbf::with_window(window, fp), NAMES)? {
            check(f.timed(span), NAMES)?;
        }
    }

    #[test]
    fn apbbf(
        k in width(),
        l in width(),
        blocks in size(),
        block_bits in width(),
        b in width(),
        window in size(),
        fp in probability(),
        span in size(),
    ) {
        if let Some(f) = check(Apbbf::new(k, l, blocks, block_bits, b), NAMES)? {
            check(f.timed(span), NAMES)?;
        }
        check(Apbbf::with_window_shape(window, k, l, block_bits, b), NAMES)?;
        if let Some(f) = check(Apbbf::with_window(window, fp), NAMES)? {
            check(f.timed(span), NAMES)?;
        }
    }
}
