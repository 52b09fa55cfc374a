//! Property test: the partitioned filter's batch path (prefetching) equals
//! the one-by-one path.

use ddf_bloom::PartitionedBloom;
use ddf_core::Digest;
use ddf_core::testing::assert_batches_match;
use proptest::collection::vec;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn batches_match_one_by_one(
        items in vec(0u64..500, 0..3000),
        cuts in vec(1usize..90, 1..6),
    ) {
        let ds: Vec<Digest> = items.iter().map(|&x| Digest::mixed(x)).collect();
        let f = PartitionedBloom::new(4, 700).unwrap();
        assert_batches_match(f.clone(), f, &ds, &cuts);
        // At least 16 Mbit, so that the batch path prefetches.
        let f = PartitionedBloom::new(4, 1 << 22).unwrap();
        assert_batches_match(f.clone(), f, &ds, &cuts);
    }
}
