//! The shared contract for both hash filters.

use ddf_core::conformance;
use ddf_core::testing::{Conformance, Promise};
use ddf_shf::{CompactShf, Shf};

conformance!(
    shf,
    Shf::with_memory(100_000, 1_000).unwrap(),
    Conformance::default()
        .promise(Promise::LastInsertions(1_000))
        .budget_bits(100_000)
);
conformance!(
    shf_narrow_hashes,
    Shf::new(500, 6).unwrap(),
    Conformance::default().promise(Promise::LastInsertions(500))
);
conformance!(
    compact_shf,
    CompactShf::with_memory(20_000, 1_000).unwrap(),
    Conformance::default()
        .promise(Promise::LastInsertions(1_000))
        .budget_bits(20_000)
);
conformance!(
    compact_shf_wide_hashes,
    CompactShf::new(300, 53).unwrap(),
    Conformance::default().promise(Promise::LastInsertions(300))
);
