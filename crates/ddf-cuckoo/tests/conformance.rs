//! The shared contract for the streaming cuckoo filter.

use ddf_core::conformance;
use ddf_core::testing::{Conformance, Promise};
use ddf_cuckoo::{StreamingCuckoo, ZeroPolicy};

// Saturated: the conformance stream has far more distinct items than cells.
conformance!(
    saturated,
    StreamingCuckoo::new(256, 4, 8).unwrap().with_seed(3)
);
conformance!(
    one_cell_buckets,
    StreamingCuckoo::with_memory(6_000, 1, 3)
        .unwrap()
        .with_zero_policy(ZeroPolicy::MapToOne)
);
conformance!(
    zero_as_value,
    StreamingCuckoo::new(100, 2, 5)
        .unwrap()
        .with_zero_policy(ZeroPolicy::TreatAsValue)
        .with_max_kicks(8)
        .unwrap()
);
// Large: the stream's frequent items still overflow their two buckets
// (inserting an item more than 2b times drops copies), so no promise.
conformance!(
    roomy,
    StreamingCuckoo::new(1 << 13, 4, 16).unwrap(),
    Conformance::default().promise(Promise::None)
);
