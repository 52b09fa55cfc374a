//! Property test: the batch path (prefetching) equals the one-by-one path.

use ddf_core::Digest;
use ddf_core::testing::assert_batches_match;
use ddf_sliding::{Slack, SlidingBloom};
use proptest::collection::vec;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A short window: generations end, the scan runs and stale cells are
    /// overwritten inside batches; the small alphabet repeats items.
    #[test]
    fn batches_match_one_by_one(
        items in vec(0u64..700, 0..3000),
        cuts in vec(1usize..90, 1..6),
        seed in any::<u64>(),
    ) {
        let ds: Vec<Digest> = items.iter().map(|&x| Digest::mixed(x)).collect();
        let f = SlidingBloom::new(200, Slack::AtMost(60), 1.0 / 64.0).unwrap().with_seed(seed);
        assert_batches_match(f.clone(), f, &ds, &cuts);
        let f = SlidingBloom::least_space(300, 1.0 / 1024.0).unwrap().with_design_load(0.94).unwrap();
        assert_batches_match(f.clone(), f, &ds, &cuts);
    }
}
