//! The shared contract, for every quotient filter and zero policy.

use ddf_core::conformance;
use ddf_qht::{Qht, Qhtd, Qqhtd, Sqf, ZeroPolicy};

conformance!(qht, Qht::new(512, 4, 8).unwrap().with_seed(11));
conformance!(qht_one_bucket, Qht::with_memory(6_000, 1, 3).unwrap());
conformance!(
    qht_zero_as_value,
    Qht::new(300, 2, 4)
        .unwrap()
        .with_zero_policy(ZeroPolicy::TreatAsValue)
);
conformance!(qhtd, Qhtd::new(512, 4, 8).unwrap().with_seed(12));
conformance!(
    qqhtd,
    Qqhtd::new(512, 4, 8)
        .unwrap()
        .with_zero_policy(ZeroPolicy::MapToOne)
);
conformance!(qqhtd_long_rows, Qqhtd::new(64, 16, 6).unwrap());
conformance!(
    sqf,
    Sqf::with_memory(30_000, 2, 8, 2).unwrap().with_seed(13)
);
conformance!(sqf_recommended, Sqf::new(10, 4, 2, 1).unwrap());
