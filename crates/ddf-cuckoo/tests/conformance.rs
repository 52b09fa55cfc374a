//! The shared contract for the streaming cuckoo filter.

use ddf_core::conformance;
use ddf_core::testing::{Conformance, Promise};
use ddf_cuckoo::{StreamRule, StreamingCuckoo, ZeroPolicy};

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
// Large: a repeat is not stored again, so nothing is dropped and nothing
// forgotten (the stream has fewer distinct items than cells).
conformance!(
    roomy,
    StreamingCuckoo::new(1 << 13, 4, 16).unwrap(),
    Conformance::default().promise(Promise::Ever)
);
// The QHT paper's rule: the stream's frequent items overflow their two
// buckets (inserting an item more than 2b times drops copies), so no promise.
conformance!(
    roomy_insert_always,
    StreamingCuckoo::new(1 << 13, 4, 16)
        .unwrap()
        .with_stream_rule(StreamRule::InsertAlways),
    Conformance::default().promise(Promise::None)
);
