//! Property tests: no false negatives where each type promises none, and
//! snapshots that restore the exact state.

use ddf_bloom::{A2, BlockDecayingBloom, PartitionedBloom, StableBloom};
use ddf_core::{Digest, DuplicateFilter, Snapshot, Verdict};
use proptest::prelude::*;

/// A stream of ids from a small alphabet, so repeats come at all distances.
fn stream() -> impl Strategy<Value = Vec<u64>> {
    prop::collection::vec(0u64..300, 0..1500)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn partitioned_bloom_never_forgets(k in 1u32..8, m in 1u64..2000, items in stream()) {
        let mut f = PartitionedBloom::new(k, m).unwrap();
        for &id in &items {
            f.insert(Digest::mixed(id));
        }
        prop_assert!(items.iter().all(|&id| f.contains(Digest::mixed(id))));
    }

    #[test]
    fn a2_keeps_the_last_capacity_insertions(m in 64u64..4096, k in 1u32..6, n in 1u64..200, items in stream()) {
        let mut f = A2::new(m, k, n).unwrap();
        for (i, &id) in items.iter().enumerate() {
            f.insert(Digest::mixed(id));
            let start = (i + 1).saturating_sub(n as usize);
            for &back in &items[start..=i] {
                prop_assert!(f.contains(Digest::mixed(back)));
            }
        }
    }

    #[test]
    fn bdbf_keeps_the_window(w in 1u64..300, d in 2u32..7, m in 16u64..4096, k in 1u32..5, items in stream()) {
        let mut f = BlockDecayingBloom::new(w, m, d, k).unwrap();
        let mut history: Vec<u64> = Vec::new();
        for &id in &items {
            let expected_dup = history.iter().rev().take(w as usize).any(|&x| x == id);
            let v = f.observe(Digest::mixed(id));
            prop_assert!(!expected_dup || v == Verdict::Duplicate);
            history.push(id);
        }
    }

    #[test]
    fn sbf_snapshot_resumes_the_generator(m in 8u64..512, p in 1u64..8, items in stream()) {
        let mut f = StableBloom::new(m, 2, 2, p.min(m)).unwrap().with_seed(m ^ p);
        let half = items.len() / 2;
        for &id in &items[..half] {
            f.insert(Digest::mixed(id));
        }
        let mut g = StableBloom::from_bytes(&f.to_bytes()).unwrap();
        for &id in &items[half..] {
            prop_assert_eq!(f.observe(Digest::mixed(id)), g.observe(Digest::mixed(id)));
        }
        prop_assert_eq!(f, g);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Constructors answer every small input with a filter or a
    /// `ParamError`, never a panic.
    #[test]
    fn constructors_never_panic(
        a in 0u64..50_000,
        b in 0u32..40,
        c in 0u32..70,
        d in 0u64..50_000,
        fpr in -0.5f64..1.5,
    ) {
        let _ = PartitionedBloom::new(c, a);
        let _ = PartitionedBloom::with_items(d, fpr);
        let _ = StableBloom::new(a, b, c, d);
        let _ = StableBloom::with_memory(a, b, c, fpr);
        let _ = A2::new(a, c, d);
        let _ = A2::with_window(d, fpr);
        let _ = A2::with_memory(a, fpr);
        let _ = BlockDecayingBloom::new(d, a, b, c);
        let _ = BlockDecayingBloom::with_memory(a, d);
    }
}
