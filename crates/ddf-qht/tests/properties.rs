//! Property tests: row invariants, and every filter against a plain model of its paper's algorithm.

use ddf_core::{Digest, DuplicateFilter, Verdict};
use ddf_hash::SplitMix64;
use ddf_qht::{Qht, Qhtd, Qqhtd, Sqf, ZeroPolicy};
use proptest::prelude::*;
use std::collections::VecDeque;

/// The paper's Algorithm 1 (or its QHTD variant) on a `Vec` of rows, with
/// the same generator draws as the packed implementation.
struct Model {
    rows: Vec<Vec<u32>>,
    rng: SplitMix64,
    keep_duplicates: bool,
}

impl Model {
    fn new(rows: u64, k: usize, seed: u64, keep_duplicates: bool) -> Model {
        Model {
            rows: vec![vec![0; k]; rows as usize],
            rng: SplitMix64::new(seed),
            keep_duplicates,
        }
    }

    fn observe(&mut self, row: u64, fp: u32) -> Verdict {
        let cells = &mut self.rows[row as usize];
        let present = cells.contains(&fp);
        if !present || self.keep_duplicates {
            let k = cells.len();
            let j = match cells.iter().position(|&c| c == 0) {
                Some(j) => j,
                None if k == 1 => 0,
                None => self.rng.below(k as u64) as usize,
            };
            cells[j] = fp;
        }
        Verdict::from_seen(present)
    }
}

fn digests(raw: &[u64]) -> impl Iterator<Item = Digest> + '_ {
    raw.iter().map(|&x| Digest::mixed(x))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A QHT row never holds the same fingerprint twice, and QHT agrees with
    /// the model of Algorithm 1 verdict by verdict and cell by cell.
    #[test]
    fn qht_rows_hold_distinct_fingerprints(
        rows in 1u64..40, k in 1usize..9, bits in 3u32..9, seed in any::<u64>(),
        items in prop::collection::vec(0u64..600, 0..1500),
    ) {
        let mut f = Qht::new(rows, k, bits).unwrap().with_seed(seed);
        let mut model = Model::new(rows, k, seed, false);
        for d in digests(&items) {
            let (row, fp) = f.locate(d);
            prop_assert_eq!(f.observe(d), model.observe(row, fp));
        }
        for r in 0..rows {
            let cells: Vec<u32> = f.table().row_iter(r).collect();
            prop_assert_eq!(&cells, &model.rows[r as usize]);
            let mut occupied: Vec<u32> = cells.iter().copied().filter(|&c| c != 0).collect();
            let before = occupied.len();
            occupied.sort_unstable();
            occupied.dedup();
            prop_assert_eq!(occupied.len(), before, "row {} repeats a fingerprint", r);
        }
    }

    /// QHTD agrees with the model that stores duplicates too.
    #[test]
    fn qhtd_matches_its_model(
        rows in 1u64..30, k in 1usize..6, seed in any::<u64>(),
        items in prop::collection::vec(0u64..300, 0..1000),
    ) {
        let mut f = Qhtd::new(rows, k, 4).unwrap().with_seed(seed);
        let mut model = Model::new(rows, k, seed, true);
        for d in digests(&items) {
            let (row, fp) = f.locate(d);
            prop_assert_eq!(f.observe(d), model.observe(row, fp));
        }
        for r in 0..rows {
            prop_assert_eq!(f.table().row_iter(r).collect::<Vec<_>>(), model.rows[r as usize].clone());
        }
    }

    /// A QQHTD row keeps insertion order: it holds the row's latest `k`
    /// fingerprints, newest first, and answers by membership among them.
    #[test]
    fn qqhtd_rows_keep_insertion_order(
        rows in 1u64..20, k in 1usize..20, bits in 1u32..12,
        items in prop::collection::vec(0u64..400, 0..1200),
    ) {
        let mut f = Qqhtd::new(rows, k.min(1 << bits), bits)
            .unwrap()
            .with_zero_policy(ZeroPolicy::Rehash);
        let k = f.cells_per_row();
        let mut queues: Vec<VecDeque<u32>> = vec![VecDeque::new(); rows as usize];
        for d in digests(&items) {
            let (row, fp) = f.locate(d);
            let q = &mut queues[row as usize];
            let expected = Verdict::from_seen(q.contains(&fp));
            prop_assert_eq!(f.observe(d), expected);
            q.push_front(fp);
            q.truncate(k);
        }
        for r in 0..rows {
            let mut expected: Vec<u32> = queues[r as usize].iter().copied().collect();
            expected.resize(k, 0);
            prop_assert_eq!(f.table().row_iter(r).collect::<Vec<_>>(), expected);
        }
    }

    /// SQF is Algorithm 1 over its own fingerprints: same model, and its rows
    /// hold distinct fingerprints too.
    #[test]
    fn sqf_matches_algorithm1(
        rows in 1u64..30, k in 1usize..5, r in 2u32..12, rp in 1u32..4, seed in any::<u64>(),
        items in prop::collection::vec(0u64..500, 0..1000),
    ) {
        prop_assume!(rp < r);
        let mut f = Sqf::with_rows(rows, k, r, rp).unwrap().with_seed(seed);
        let mut model = Model::new(rows, k, seed, false);
        for d in digests(&items) {
            let (row, fp) = f.locate(d);
            prop_assert_eq!(f.observe(d), model.observe(row, fp));
        }
        for r in 0..rows {
            prop_assert_eq!(f.table().row_iter(r).collect::<Vec<_>>(), model.rows[r as usize].clone());
        }
    }

    /// `insert` alone leaves the same state as `observe`.
    #[test]
    fn insert_equals_observe(items in prop::collection::vec(0u64..200, 0..500), seed in any::<u64>()) {
        let mut a = Qht::new(8, 3, 3).unwrap().with_seed(seed);
        let mut b = a.clone();
        for d in digests(&items) {
            a.observe(d);
            b.insert(d);
        }
        prop_assert_eq!(a.cells(), b.cells());
    }
}
