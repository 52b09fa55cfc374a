//! Property test: the batch path (prefetching) equals the one-by-one path.

use ddf_core::Digest;
use ddf_core::testing::assert_batches_match;
use ddf_qht::{Qht, Qhtd, Qqhtd, Sqf};
use proptest::collection::vec;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Small tables and a small alphabet: many duplicates, rows that fill,
    /// random evictions, and items whose row the previous item just changed.
    #[test]
    fn batches_match_one_by_one(
        items in vec(0u64..400, 0..3000),
        cuts in vec(1usize..90, 1..6),
        seed in any::<u64>(),
    ) {
        let ds: Vec<Digest> = items.iter().map(|&x| Digest::mixed(x)).collect();
        let qht = Qht::new(37, 3, 4).unwrap().with_seed(seed);
        assert_batches_match(qht.clone(), qht, &ds, &cuts);
        let qhtd = Qhtd::new(29, 4, 3).unwrap().with_seed(seed);
        assert_batches_match(qhtd.clone(), qhtd, &ds, &cuts);
        let qq = Qqhtd::new(41, 2, 5).unwrap();
        assert_batches_match(qq.clone(), qq, &ds, &cuts);
        let sqf = Sqf::new(5, 2, 3, 1).unwrap().with_seed(seed);
        assert_batches_match(sqf.clone(), sqf, &ds, &cuts);
    }
}
