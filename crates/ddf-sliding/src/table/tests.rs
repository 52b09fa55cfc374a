//! Tests of the word-lane table: SWAR lanes against scalar ages, probes, relocation and the scan.
use super::*;
use crate::plan::{Request, Slack};

fn table(window: u64, generations: u64, fpr: f64) -> (Plan, Table) {
    let plan = Plan::new(Request::count(
        window,
        Slack::LeastSpace,
        Some(generations),
        fpr,
    ))
    .unwrap();
    let t = Table::new(&plan);
    (plan, t)
}

#[test]
fn lane_flags_agree_with_scalar_ages() {
    // Cells from 5 to 32 bits, tags of 2 to 8 bits.
    for (c, eps) in [
        (1, 0.3),
        (3, 0.01),
        (14, 2f64.powi(-10)),
        (62, 2f64.powi(-20)),
        (120, 0.05),
    ] {
        let (plan, t) = table(1000, c, eps);
        let mut rng = SplitMix64::new(c);
        for current in 0..plan.tag_modulus {
            let ages = t.ages(current, plan.tag_modulus, c as u32);
            for _ in 0..50 {
                let cells: Vec<u32> = (0..plan.cells_per_bucket)
                    .map(|_| match rng.below(4) {
                        0 => 0,
                        _ => {
                            let rem = 1 + rng.below((1 << plan.remainder_bits) - 1) as u32;
                            (rem << plan.tag_bits) | rng.below(u64::from(plan.tag_modulus)) as u32
                        }
                    })
                    .collect();
                let row = cells.iter().enumerate().fold(0u128, |acc, (j, &v)| {
                    acc | u128::from(v) << (j as u32 * t.wide.width)
                });
                let (free, stale) = t.wide.free_and_stale(row, &ages);
                for (j, &v) in cells.iter().enumerate() {
                    let old = v != 0 && !ages.is_active(v & t.tag_mask);
                    let top = j as u32 * t.wide.width + t.wide.width - 1;
                    let bit = |flags: u128| flags >> top & 1 == 1;
                    assert_eq!(bit(stale), old, "c {c}, current {current}, cell {v:#x}");
                    assert_eq!(bit(free), v == 0 || old);
                }
                // Flags sit at the top bit of their lane only.
                assert_eq!((free | stale) & !t.wide.highs, 0);
                assert_eq!(t.wide.count(free), free.count_ones());
                assert_eq!(t.wide.count(stale), stale.count_ones());
                if t.narrow_rows {
                    // The u64 lanes say the same.
                    let narrow = t.narrow.free_and_stale(row as u64, &ages);
                    assert_eq!(narrow, (free as u64, stale as u64));
                    assert_eq!(t.narrow.count(free as u64), free.count_ones());
                }
                // Both words find the same first cell of each remainder
                // (by the first bit of its lane).
                for &v in &cells {
                    let rem = v >> plan.tag_bits;
                    let wide = t.wide.find(row, t.wide.wanted(rem));
                    let scalar = cells
                        .iter()
                        .position(|&u| u >> plan.tag_bits == rem)
                        .map(|j| j as u32 * t.wide.width);
                    assert_eq!(wide, scalar);
                    if t.narrow_rows {
                        assert_eq!(t.narrow.find(row as u64, t.narrow.wanted(rem)), scalar);
                    }
                }
            }
        }
    }
}

#[test]
fn alternate_is_an_involution() {
    let (plan, t) = table(10_000, 8, 0.01);
    for b in (0..plan.buckets).step_by(7) {
        for rem in [1u32, 2, 77, (1 << plan.remainder_bits) - 1] {
            let other = t.alternate(b, rem);
            assert!(other < plan.buckets);
            assert_eq!(t.alternate(other, rem), b);
            assert_eq!(t.key(b, rem), t.key(other, rem));
        }
    }
}

#[test]
fn full_buckets_relocate_then_stash_then_drop_and_count() {
    // Three buckets, twelve cells, up to 40 keys: those the table cannot
    // place reach the stash; once it holds STASH_CAPACITY, the homeless
    // entry is dropped and counted, never silently.
    let (plan, mut t) = table(4, 1, 0.5);
    let ages = t.ages(0, plan.tag_modulus, 1);
    let mut rng = SplitMix64::new(1);
    let keys = ((1u32 << plan.remainder_bits) - 1).min(40);
    for rem in 1..=keys {
        assert_eq!(t.upsert(t.slot(0, rem), 0, &ages, &mut rng), None);
        assert!(t.stash_len() <= STASH_CAPACITY);
    }
    let cells = plan.cells();
    let placed = u64::from(keys);
    assert_eq!(
        t.occupied() + t.stash_len() as u64 + t.stash_overflows(),
        placed
    );
    assert!(t.occupied() <= cells);
    if t.stash_overflows() > 0 {
        assert_eq!(t.stash_len(), STASH_CAPACITY);
    }
    let found = (1..=keys)
        .filter(|&rem| t.lookup(t.slot(0, rem)).is_some())
        .count() as u64;
    assert_eq!(found, placed - t.stash_overflows());
    assert!(placed > cells + STASH_CAPACITY as u64 || t.stash_overflows() == 0);
}
