//! The registry of checks: one module per family, one `checks()` list each.

mod a2;
mod adversary;
mod apbbf;
pub(crate) mod apbf;
mod bdbf;
mod bloom;
mod bounds;
mod common;
mod cuckoo;
mod exact;
mod plan;
mod queue;
mod quotient;
mod sbf;
mod shf;
mod sliding;
mod stream;

use crate::verify::Check;
use ddf_core::DuplicateFilter;
use ddf_hash::KeyedSipHasher;
use ddf_sim::{Distinct, EvalConfig, Report, Uniform, evaluate};

/// One run of `filter` over a uniform stream of `alphabet` items, hashed
/// with a key derived from `seed`: the papers' artificial streams.
pub(crate) fn uniform_run<F: DuplicateFilter + ?Sized>(
    filter: &mut F,
    alphabet: u64,
    seed: u64,
    cfg: &EvalConfig,
) -> Report {
    let mut src = Uniform::new(alphabet, seed).expect("alphabets in checks are at least 1");
    evaluate(filter, &mut src, &KeyedSipHasher::with_seed(seed), cfg)
}

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
    all.extend(adversary::checks());
    all
}

/// One run of `filter` over an all-distinct stream (every item unseen, so
/// every DUPLICATE is a false positive), hashed with a key derived from `seed`.
pub(crate) fn distinct_run<F: DuplicateFilter + ?Sized>(
    filter: &mut F,
    seed: u64,
    cfg: &EvalConfig,
) -> Report {
    evaluate(
        filter,
        &mut Distinct::new(seed << 20),
        &KeyedSipHasher::with_seed(seed),
        cfg,
    )
}
