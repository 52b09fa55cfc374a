//! Strategies and checks for the constructor property tests in every crate's
//! `tests/params.rs`.

use crate::ParamError;
use crate::filter::DuplicateFilter;
use crate::snapshot::Snapshot;
use ddf_hash::Digest;
use proptest::prelude::{Just, prop_assert, prop_assert_eq, prop_oneof};
use proptest::sample::select;
use proptest::strategy::Strategy;
use proptest::test_runner::TestCaseError;
use std::fmt::Debug;

/// Values of a `u64` size, count, window or time span: 0, 1, small,
/// and huge (2^41 up to `u64::MAX`, boundaries included).
pub fn size() -> impl Strategy<Value = u64> {
    prop_oneof![
        2 => select(vec![0u64, 1, 2, 3]),
        3 => 4u64..5_000,
        1 => select(vec![
            1u64 << 41,
            (1 << 41) + 1,
            1 << 53,
            1 << 62,
            (1 << 62) + 1,
            1 << 63,
            u64::MAX - 1,
            u64::MAX,
        ]),
        1 => (1u64 << 41)..=u64::MAX,
    ]
}

/// Values of a small `u32` parameter (bit widths, probe and slice
/// counts): 0 to 70, and boundaries up to `u32::MAX`.
pub fn width() -> impl Strategy<Value = u32> {
    prop_oneof![
        4 => 0u32..=70,
        1 => select(vec![64u32, 65, 100, 511, 512, 513, 4_095, 4_096, 4_097, 1 << 16, u32::MAX]),
    ]
}

/// As [`width`], for `usize` parameters (cells per row, subfilters).
pub fn count_usize() -> impl Strategy<Value = usize> {
    prop_oneof![
        4 => 0usize..=70,
        1 => select(vec![100usize, 4_095, 4_096, 4_097, 1 << 20, usize::MAX]),
    ]
}

/// Values of an `f64` probability or ratio: NaN, ±∞, negatives, 0, 1,
/// above 1, denormals, and ordinary values in (0, 1).
pub fn probability() -> impl Strategy<Value = f64> {
    prop_oneof![
        1 => select(vec![
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -1.0,
            -0.0,
            0.0,
            1.0,
            1.5,
            f64::MIN_POSITIVE,
            5e-324,
            1e-300,
            f64::EPSILON,
            1.0 - f64::EPSILON,
            f64::MAX,
        ]),
        3 => 1e-6f64..1.0,
        1 => Just(0.5),
    ]
}

/// Checks one constructor's answer: an error must name one of `names`
/// (and say what it expected); a filter must work: it observes items,
/// its snapshot restores, and `clear` keeps its size. Returns the filter.
pub fn check<F>(built: Result<F, ParamError>, names: &[&str]) -> Result<Option<F>, TestCaseError>
where
    F: DuplicateFilter + Snapshot + Debug,
{
    match built {
        Err(e) => {
            prop_assert!(
                names.contains(&e.param()),
                "error `{}` names `{}`, not one of {:?}",
                e,
                e.param(),
                names
            );
            prop_assert!(!e.expected().is_empty(), "error `{}` says nothing", e);
            Ok(None)
        }
        Ok(mut f) => {
            let bits = f.memory_bits();
            for i in 0..64 {
                f.observe(Digest::mixed(i % 40));
            }
            let restored = F::from_bytes(&f.to_bytes());
            prop_assert!(restored.is_ok(), "snapshot rejected: {:?}", restored.err());
            f.clear();
            prop_assert_eq!(f.memory_bits(), bits, "clear changed memory_bits");
            Ok(Some(f))
        }
    }
}

/// As [`check`], for a constructor given a memory budget: a filter must
/// fit in `budget_bits` (a larger state is an error, not a surprise).
pub fn check_budget<F>(
    built: Result<F, ParamError>,
    budget_bits: u64,
    names: &[&str],
) -> Result<Option<F>, TestCaseError>
where
    F: DuplicateFilter + Snapshot + Debug,
{
    let out = check(built, names)?;
    if let Some(f) = &out {
        prop_assert!(
            f.memory_bits() <= budget_bits,
            "{} bits built for a budget of {}",
            f.memory_bits(),
            budget_bits
        );
    }
    Ok(out)
}
