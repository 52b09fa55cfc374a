//! Property tests: no false negatives within the window, and both filters
//! agree with a brute-force scan of the window's hashes.

use ddf_core::{Digest, DuplicateFilter, Verdict};
use ddf_shf::{CompactShf, Shf};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// With `h`-bit hashes, both filters say DUPLICATE exactly when the new
    /// hash equals one of the last `w` hashes: no false negative ever, and
    /// false positives only through hash collisions.
    #[test]
    fn both_match_brute_force(
        w in 1u64..40,
        h in 1u32..=64,
        items in prop::collection::vec(0u64..60, 0..300),
    ) {
        let mut shf = Shf::new(w, h).unwrap();
        let mut cshf = CompactShf::new(w, h).unwrap();
        let digests: Vec<Digest> = items.iter().map(|&i| Digest::mixed(i)).collect();
        for (i, &d) in digests.iter().enumerate() {
            let start = i.saturating_sub(w as usize);
            let hash = |d: Digest| d.top_bits(h);
            let expected = digests[start..i].iter().any(|&e| hash(e) == hash(d));
            let in_window = items[start..i].contains(&items[i]);
            prop_assert!(expected || !in_window);
            prop_assert_eq!(shf.observe(d), Verdict::from_seen(expected));
            prop_assert_eq!(cshf.observe(d), Verdict::from_seen(expected));
        }
    }
}

/// A filter above the batch path's prefetch floor (`2^24` bits of state):
/// `w = 2^18` hashes of 32 bits.
fn large_shf() -> Shf {
    let f = Shf::new(1 << 18, 32).unwrap();
    assert!(f.memory_bits() >= 1 << 24);
    f
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    /// The prefetching batch path gives the verdicts and answers of the one
    /// by one path, on a large filter whose ring is full (so every insertion
    /// evicts and the eviction hints are live) and on a fresh one.
    #[test]
    fn large_batches_are_one_by_one(
        prefill in prop::sample::select(vec![0u64, 1 << 18]),
        items in prop::collection::vec(0u64..5_000, 1..3_000),
        cuts in prop::collection::vec(0usize..70, 1..80),
    ) {
        let (mut single, mut batched) = (large_shf(), large_shf());
        for i in 0..prefill {
            let d = Digest::mixed(!i);
            single.observe(d);
            batched.observe(d);
        }
        let digests: Vec<Digest> = items.iter().map(|&i| Digest::mixed(i)).collect();
        let want: Vec<Verdict> = digests.iter().map(|&d| single.observe(d)).collect();
        let mut got = Vec::new();
        let mut at = 0;
        for &c in cuts.iter().cycle() {
            if at == digests.len() {
                break;
            }
            let end = (at + c).min(digests.len());
            batched.observe_batch(&digests[at..end], &mut got);
            at = end;
        }
        prop_assert_eq!(&got, &want);
        let probes: Vec<Digest> = (0..2_000).map(Digest::mixed).collect();
        let mut answers = Vec::new();
        batched.contains_batch(&probes, &mut answers);
        let one: Vec<bool> = probes.iter().map(|&d| single.contains(d)).collect();
        prop_assert_eq!(answers, one);
    }
}
