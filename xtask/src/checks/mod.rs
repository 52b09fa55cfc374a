//! The registry of checks: one module per family, one `checks()` list each.

mod a2;
mod apbbf;
mod apbf;
mod bdbf;
mod bloom;
mod common;
mod exact;
mod sbf;
mod stream;

use crate::verify::Check;

/// Every registered check, in report order.
pub(crate) fn all() -> Vec<Check> {
    let mut all = Vec::new();
    all.extend(stream::checks());
    all.extend(exact::checks());
    all.extend(bloom::checks());
    all.extend(sbf::checks());
    all.extend(a2::checks());
    all.extend(bdbf::checks());
    all.extend(apbf::checks());
    all.extend(apbbf::checks());
    all
}
