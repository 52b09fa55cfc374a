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

/// A group of three filters of one rule: the same shape, or one of them
/// with other rows, cells or zero policy (so that the group hooks must fall
/// back for it).
fn group<I: ddf_qht::Insertion>(odd: u8, seed: u64) -> Vec<ddf_qht::QuotientFilter<I>> {
    (0..3u64)
        .map(|i| {
            let (rows, k) = match (odd, i) {
                (1, 1) => (61, 3),
                (2, 2) => (53, 4),
                _ => (53, 3),
            };
            let f = ddf_qht::QuotientFilter::<I>::new(rows, k, 5)
                .unwrap()
                .with_seed(seed ^ i);
            if (odd, i) == (3, 0) {
                f.with_zero_policy(ZeroPolicy::MapToOne)
            } else {
                f
            }
        })
        .collect()
}

/// `any_contains` and `observe_in_group` of a group against asking the
/// filters one at a time: same answers, verdicts, states and draws.
fn group_hooks_are_one_by_one<I: ddf_qht::Insertion>(
    odd: u8,
    seed: u64,
    newest: usize,
    skip: usize,
    items: &[u64],
) -> Result<(), TestCaseError>
where
    ddf_qht::QuotientFilter<I>: ddf_core::Snapshot,
{
    use ddf_core::Snapshot;
    let (mut grouped, mut single) = (group::<I>(odd, seed), group::<I>(odd, seed));
    let ds: Vec<Digest> = items.iter().map(|&x| Digest::mixed(x)).collect();
    for &d in &ds {
        let want = single
            .iter()
            .enumerate()
            .any(|(i, f)| i != skip && f.contains(d));
        prop_assert_eq!(DuplicateFilter::any_contains(&grouped, skip, d), want);
    }
    let mut got = Vec::new();
    DuplicateFilter::observe_in_group(&mut grouped, newest, &ds, &mut got, &mut Vec::new());
    let want: Vec<Verdict> = ds
        .iter()
        .map(|&d| {
            let older = single
                .iter()
                .enumerate()
                .any(|(i, f)| i != newest && f.contains(d));
            let seen = single[newest].observe(d).is_duplicate();
            Verdict::from_seen(older || seen)
        })
        .collect();
    prop_assert_eq!(got, want);
    for (g, s) in grouped.iter().zip(&single) {
        prop_assert!(g.to_bytes() == s.to_bytes(), "states differ");
    }
    Ok(())
}

proptest! {
    /// The group hooks (what a queue asks its subfilters through) answer as
    /// the filters one at a time, for groups of one shape (derived once)
    /// and of mixed shapes (each filter on its own).
    #[test]
    fn group_hooks_match_one_at_a_time(
        odd in 0u8..4,
        seed in any::<u64>(),
        newest in 0usize..3,
        skip in 0usize..4,
        items in prop::collection::vec(0u64..400, 0..300),
    ) {
        group_hooks_are_one_by_one::<ddf_qht::Distinct>(odd, seed, newest, skip, &items)?;
        group_hooks_are_one_by_one::<ddf_qht::Duplicates>(odd, seed, newest, skip, &items)?;
        group_hooks_are_one_by_one::<ddf_qht::Fifo>(odd, seed, newest, skip, &items)?;
    }
}
