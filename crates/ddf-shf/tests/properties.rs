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
