//! The registry of checks: one module per family, one `checks()` list each.

mod a2;
mod adversary;
mod apbbf;
pub(crate) mod apbf;
mod bdbf;
mod bloom;
mod bounds;
mod common;
mod concurrent;
mod cuckoo;
mod exact;
mod merge;
mod overload;
mod plan;
mod queue;
mod quotient;
mod sbf;
mod shared;
mod shf;
mod sliding;
mod stream;

use crate::Check;
pub(crate) use common::{distinct_run, uniform_run};

/// Every registered check, in report order.
pub(crate) fn all() -> Vec<Check> {
    let mut all = Vec::new();
    all.extend(stream::checks());
    all.extend(exact::checks());
    all.extend(bloom::checks());
    all.extend(shf::checks());
    all.extend(queue::checks());
    all.extend(bounds::checks());
    all.extend(sliding::checks());
    all.extend(sbf::checks());
    all.extend(a2::checks());
    all.extend(bdbf::checks());
    all.extend(apbf::checks());
    all.extend(apbbf::checks());
    all.extend(quotient::checks());
    all.extend(cuckoo::checks());
    all.extend(plan::checks());
    all.extend(shared::checks());
    all.extend(merge::checks());
    all.extend(concurrent::checks());
    all.extend(adversary::checks());
    all.extend(overload::checks());
    all
}
