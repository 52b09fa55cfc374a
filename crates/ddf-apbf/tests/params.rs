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
    "fpr",
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
        fpr in probability(),
        npws in probability().prop_map(|p| 2.0 * p),
        span in size(),
    ) {
        if check(Apbf::new(k, l, m), NAMES)?.is_some() {
            check(Apbf::with_time_span(span, k, l, m), NAMES)?;
        }
        if let Some(f) = check(Apbf::with_window(window, fpr), NAMES)? {
            check(Apbf::with_time_span(span, f.k(), f.l(), f.slice_bits()), NAMES)?;
        }
        check(Apbf::with_window_and_npws(window, fpr, npws), NAMES)?;
    }

    #[test]
    fn atomic_apbf(
        k in width(),
        l in width(),
        m in size(),
        window in size(),
        fpr in probability(),
        span in size(),
    ) {
        if check(AtomicApbf::new(k, l, m), NAMES)?.is_some() {
            check(AtomicApbf::with_time_span(span, k, l, m), NAMES)?;
        }
        if let Some(f) = check(AtomicApbf::with_window(window, fpr), NAMES)? {
            check(AtomicApbf::with_time_span(span, f.k(), f.l(), f.slice_bits()), NAMES)?;
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
        fpr in probability(),
        span in size(),
    ) {
        if check(Apbbf::new(k, l, blocks, block_bits, b), NAMES)?.is_some() {
            check(Apbbf::with_time_span(span, k, l, blocks, block_bits, b), NAMES)?;
        }
        check(Apbbf::with_window_shape(window, k, l, block_bits, b), NAMES)?;
        if let Some(f) = check(Apbbf::with_window(window, fpr), NAMES)? {
            let (bb, bpb) = (f.block_bits(), f.bits_per_block());
            check(Apbbf::with_time_span(span, f.k(), f.l(), f.blocks(), bb, bpb), NAMES)?;
        }
    }
}
