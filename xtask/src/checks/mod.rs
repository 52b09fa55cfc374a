//! The registry of checks: one module per family, one `checks()` list each.

mod bloom;
mod cuckoo;
mod exact;
mod quotient;
mod stream;

use crate::verify::Check;

/// Every registered check, in report order.
pub(crate) fn all() -> Vec<Check> {
    let mut all = Vec::new();
    all.extend(stream::checks());
    all.extend(exact::checks());
    all.extend(bloom::checks());
    all.extend(quotient::checks());
    all.extend(cuckoo::checks());
    all
}
