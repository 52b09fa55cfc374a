//! Random parameters, boundaries included, give a filter or a `ParamError`
//! naming the parameter: never a panic or an absurd allocation.

use ddf_bloom::{A2, AtomicPartitionedBloom, BlockDecayingBloom, PartitionedBloom, StableBloom};
use ddf_core::testing::params::{check, check_budget, probability, size, width};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn partitioned(slices in width(), slice_bits in size(), items in size(), fpr in probability()) {
        let names = &["slices", "slice_bits", "items", "fpr"];
        check(PartitionedBloom::new(slices, slice_bits), names)?;
        check(PartitionedBloom::with_items(items, fpr), names)?;
        check(AtomicPartitionedBloom::new(slices, slice_bits), names)?;
        check(AtomicPartitionedBloom::with_items(items, fpr), names)?;
    }

    #[test]
    fn stable(
        cells in size(),
        cell_bits in width(),
        probes in width(),
        decrements in size(),
        memory in size(),
        fpr in probability(),
    ) {
        let names = &["cells", "cell_bits", "probes", "decrements", "memory_bits", "fpr"];
        check(StableBloom::new(cells, cell_bits, probes, decrements), names)?;
        check_budget(StableBloom::with_memory(memory, cell_bits, probes, fpr), memory, names)?;
    }

    #[test]
    fn a2(
        buffer_bits in size(),
        probes in width(),
        capacity in size(),
        window in size(),
        memory in size(),
        fpr in probability(),
    ) {
        let names = &["buffer_bits", "probes", "capacity", "window", "memory_bits", "fpr"];
        check(A2::new(buffer_bits, probes, capacity), names)?;
        check(A2::with_window(window, fpr), names)?;
        check_budget(A2::with_memory(memory, fpr), memory, names)?;
    }

    #[test]
    fn block_decaying(
        window in size(),
        counters in size(),
        counter_bits in width(),
        probes in width(),
        memory in size(),
        fpr in probability(),
    ) {
        let names = &["window", "counters", "counter_bits", "probes", "memory_bits", "fpr"];
        check(BlockDecayingBloom::new(window, counters, counter_bits, probes), names)?;
        check(BlockDecayingBloom::with_window(window, fpr), names)?;
        check_budget(BlockDecayingBloom::with_memory(memory, window), memory, names)?;
    }
}
