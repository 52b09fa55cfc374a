//! Theorem 4 of the sliding-window paper: no filter with `M` bits errs less
//! than the bound on a uniform stream. Every family's filter gets a line here.

use super::uniform_run;
use crate::outcome::Outcome;
use crate::verify::{Check, Ctx};
use ddf_core::{DuplicateFilter, Window};
use ddf_queue::Queue;
use ddf_shf::{CompactShf, Shf};
use ddf_sim::EvalConfig;
use ddf_theory::sliding_window::ep_n_lower_bound;

const THM4: &str = "sliding-window §4.1 Thm 4";
const M: u64 = 100_000;
const ALPHABET: u64 = 1 << 18;

pub(crate) fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "bounds/thm4-shf",
            paper: THM4,
            run: |c| above_bound(c, 501, || Shf::with_memory(M, 2_000).expect("fits")),
        },
        Check {
            id: "bounds/thm4-cshf",
            paper: THM4,
            run: |c| above_bound(c, 502, || CompactShf::with_memory(M, 5_000).expect("fits")),
        },
        Check {
            id: "bounds/thm4-queued-cshf",
            paper: THM4,
            run: |c| {
                above_bound(c, 503, || {
                    Queue::with_memory(5, 1_000, M, |s| CompactShf::with_memory(s.bits, s.capacity))
                        .expect("fits")
                })
            },
        },
    ]
}

/// The filter's error rate `FPR + FNR` for the whole-stream problem (the
/// setting of Theorem 4) over the last tenth of a uniform stream of `n > M`
/// items, one value per run, against the bound at the start of that
/// stretch: the bound grows with `n`, so it holds for every counted item.
pub(crate) fn above_bound<F: DuplicateFilter>(
    ctx: &Ctx,
    salt: u64,
    make: impl Fn() -> F + Sync,
) -> Outcome {
    let n = ctx.pick(1_000_000u64, 4_000_000);
    let counted_from = n - n / 10;
    let bits = make().memory_bits();
    let cfg = EvalConfig::new(Window::Unbounded, n).warmup(counted_from);
    let runs = ctx.per_seed(salt, 6, 16, |seed| {
        uniform_run(&mut make(), ALPHABET, seed, &cfg).er()
    });
    Outcome::runs_at_least(
        ep_n_lower_bound(bits as f64, counted_from as f64, ALPHABET as f64),
        &runs,
    )
    .note(format!(
        "M = {bits} bits, U = 2^18, items {counted_from}..{n}"
    ))
}
