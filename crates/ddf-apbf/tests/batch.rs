//! Property test: the batch path (prefetching) equals the one-by-one path.

use ddf_apbf::{Apbbf, Apbf};
use ddf_core::Digest;
use ddf_core::testing::assert_batches_match;
use proptest::collection::vec;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Small generations, so that shifts happen inside batches, and many
    /// duplicates, so that queries hit and take the other path.
    #[test]
    fn batches_match_one_by_one(
        items in vec(0u64..500, 0..3000),
        cuts in vec(1usize..90, 1..6),
    ) {
        let ds: Vec<Digest> = items.iter().map(|&x| Digest::mixed(x)).collect();
        let f = Apbf::new(4, 6, 300).unwrap();
        assert_batches_match(f.clone(), f, &ds, &cuts);
        let f = Apbbf::new(3, 8, 4, 512, 4).unwrap();
        assert_batches_match(f.clone(), f, &ds, &cuts);
        let f = Apbbf::new(2, 5, 10, 64, 4).unwrap();
        assert_batches_match(f.clone(), f, &ds, &cuts);
        // At least 16 Mbit, so that the batch path prefetches.
        let f = Apbbf::new(3, 8, 3_000, 512, 4).unwrap();
        assert!(ddf_core::DuplicateFilter::memory_bits(&f) >= 1 << 24);
        assert_batches_match(f.clone(), f, &ds, &cuts);
    }
}
