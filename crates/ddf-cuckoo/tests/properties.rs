//! Property tests: Fan et al.'s guarantee before the first drop, and the
//! bookkeeping of drops after it.

use ddf_core::{Digest, DuplicateFilter};
use ddf_cuckoo::{StreamRule, StreamingCuckoo};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// While nothing has been dropped, every inserted item is found.
    #[test]
    fn no_false_negative_before_a_drop(
        buckets in 1u64..200, b in 1usize..6, bits in 4u32..16, kicks in 0u32..50, seed in any::<u64>(),
        items in prop::collection::vec(any::<u64>(), 0..600),
    ) {
        let mut f = StreamingCuckoo::new(buckets, b, bits).unwrap().with_max_kicks(kicks).unwrap().with_seed(seed);
        let mut inserted = Vec::new();
        for &x in &items {
            let d = Digest::new(x);
            f.observe(d);
            inserted.push(d);
            if f.dropped() > 0 {
                break;
            }
            prop_assert!(inserted.iter().all(|&e| f.contains(e)));
        }
    }

    /// Every insertion of an item not found (every insertion, under the
    /// paper's rule) either adds a fingerprint to the table or drops one:
    /// stored + dropped = such insertions, and stored ≤ m·b. Under the
    /// default rule an item found leaves the table as it was.
    #[test]
    fn stored_plus_dropped_is_insertions(
        buckets in 1u64..64, b in 1usize..5, kicks in 0u32..30, always in any::<bool>(),
        items in prop::collection::vec(any::<u64>(), 0..800),
    ) {
        let rule = if always { StreamRule::InsertAlways } else { StreamRule::LookupFirst };
        let mut f = StreamingCuckoo::new(buckets, b, 6).unwrap().with_max_kicks(kicks).unwrap()
            .with_stream_rule(rule);
        let mut stores = 0u64;
        for &x in &items {
            let d = Digest::new(x);
            if always || !f.contains(d) {
                stores += 1;
            } else {
                let before = f.clone();
                f.insert(d);
                prop_assert_eq!(f.table().as_words(), before.table().as_words());
                prop_assert_eq!(f.dropped(), before.dropped());
                continue;
            }
            f.insert(d);
        }
        let stored: usize = (0..buckets).map(|i| f.table().count_occupied(i)).sum();
        prop_assert_eq!(stored as u64 + f.dropped(), stores);
        prop_assert!(stored as u64 <= buckets * b as u64);
    }

    /// Each stored fingerprint sits in one of its two buckets: relocating it
    /// to its alternate and back returns to where it is.
    #[test]
    fn stored_fingerprints_can_move_home(items in prop::collection::vec(any::<u64>(), 1..400)) {
        let mut f = StreamingCuckoo::new(37, 2, 7).unwrap();
        let mut kept = Vec::new();
        for &x in &items {
            let d = Digest::new(x);
            f.insert(d);
            kept.push(d);
        }
        if f.dropped() == 0 {
            for d in kept {
                let (i1, i2, fp) = f.locate(d);
                prop_assert_eq!(f.alternate(i1, fp), i2);
                prop_assert!(f.table().find(i1, fp).is_some() || f.table().find(i2, fp).is_some());
            }
        }
    }
}
