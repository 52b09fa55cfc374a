//! The shared contract, one line per filter type of the family.

use ddf_bloom::{A2, AtomicPartitionedBloom, BlockDecayingBloom, PartitionedBloom, StableBloom};
use ddf_core::conformance;
use ddf_core::testing::{Conformance, Promise};

conformance!(
    partitioned_bloom,
    PartitionedBloom::new(5, 20_000).unwrap(),
    Conformance::default()
        .promise(Promise::Ever)
        .budget_bits(100_000)
);
conformance!(
    atomic_partitioned_bloom,
    AtomicPartitionedBloom::new(5, 20_000).unwrap(),
    Conformance::default()
        .promise(Promise::Ever)
        .budget_bits(100_000)
);
conformance!(
    stable_bloom,
    StableBloom::new(20_000, 2, 3, 10).unwrap().with_seed(9),
    Conformance::default().budget_bits(40_000)
);
conformance!(
    a2,
    A2::new(8_192, 4, 500).unwrap(),
    Conformance::default()
        .promise(Promise::LastInsertions(500))
        .budget_bits(16_384)
);
conformance!(
    block_decaying_bloom,
    BlockDecayingBloom::new(700, 16_384, 4, 4).unwrap(),
    Conformance::default()
        .promise(Promise::LastInsertions(700))
        .budget_bits(65_536)
);
