//! Property test: the batch path (prefetching) equals the one-by-one path.

use ddf_core::Digest;
use ddf_core::testing::assert_batches_match;
use ddf_cuckoo::StreamingCuckoo;
use proptest::collection::vec;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A small table past saturation: relocations, random kicks and dropped
    /// fingerprints, with many duplicates.
    #[test]
    fn batches_match_one_by_one(
        items in vec(0u64..600, 0..3000),
        cuts in vec(1usize..90, 1..6),
        seed in any::<u64>(),
    ) {
        let ds: Vec<Digest> = items.iter().map(|&x| Digest::mixed(x)).collect();
        let f = StreamingCuckoo::new(53, 4, 6).unwrap().with_seed(seed);
        assert_batches_match(f.clone(), f, &ds, &cuts);
        let f = StreamingCuckoo::new(97, 1, 4).unwrap().with_max_kicks(20).unwrap();
        assert_batches_match(f.clone(), f, &ds, &cuts);
    }
}
