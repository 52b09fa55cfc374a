//! Every family's sizing function applies its constructor's rule: it
//! accepts exactly the parameters the constructor accepts (the APBF may
//! refuse more, to bound its access model) and predicts the built filter's
//! `memory_bits`, without building it.

use ddf::apbf::Apbf;
use ddf::{
    CompactShf, Digest, DuplicateFilter, ExactWindow, ParamError, PartitionedBloom, Prediction,
    Qht, Shf,
};
use proptest::prelude::*;

/// The sizing's verdict against the constructor's (the same parameter
/// named on failure), and equal memory when both accept.
fn agree<F: DuplicateFilter>(
    sized: Result<Prediction, ParamError>,
    built: Result<F, ParamError>,
) -> Result<(), TestCaseError> {
    match (sized, built) {
        (Ok(p), Ok(f)) => prop_assert_eq!(p.memory_bits, f.memory_bits()),
        (Err(a), Err(b)) => prop_assert_eq!(a.param(), b.param()),
        (Ok(p), Err(e)) => prop_assert!(false, "sizing {p:?}, constructor {e}"),
        (Err(e), Ok(f)) => prop_assert!(false, "sizing {e}, constructor {} bits", f.memory_bits()),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn exact_and_shf(w in 0u64..5000, h in 0u32..70) {
        agree(ExactWindow::sizing(w), ExactWindow::<Digest>::new(w))?;
        agree(Shf::sizing(w, h), Shf::new(w, h))?;
        agree(CompactShf::sizing(w, h), CompactShf::new(w, h))?;
    }

    #[test]
    fn apbf(k in 0u32..40, l in 0u32..40, m in 0u64..3000) {
        // Every (k, l) here is within the access model's bound.
        agree(Apbf::sizing(k, l, m), Apbf::new(k, l, m))?;
    }

    #[test]
    fn partitioned_bloom(k in 0u32..70, m in 0u64..5000, n in 0.0f64..1e4) {
        agree(PartitionedBloom::sizing(k, m, n), PartitionedBloom::new(k, m))?;
    }

    #[test]
    fn qht(rows in 0u64..3000, k in 0usize..10, s in 0u32..36) {
        agree(Qht::sizing(rows, k, s, 1e6), Qht::new(rows, k, s))?;
    }
}
