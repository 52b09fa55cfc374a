//! Theorem 4 of the sliding-window paper: no filter with `M` bits errs less
//! than the bound on a uniform stream. Every family's filter gets a line here.

use super::uniform_run;
use crate::fig5;
use crate::outcome::Outcome;
use crate::verify::{Check, Ctx};
use ddf_apbf::{Apbbf, Apbf};
use ddf_bloom::{A2, BlockDecayingBloom, PartitionedBloom};
use ddf_core::{DuplicateFilter, Window};
use ddf_exact::ExactWindow;
use ddf_qht::{Qhtd, Qqhtd};
use ddf_queue::Queue;
use ddf_shf::{CompactShf, Shf};
use ddf_sim::EvalConfig;
use ddf_sliding::SlidingBloom;
use ddf_theory::sliding_window::ep_n_lower_bound;

const THM4: &str = "sliding-window §4.1 Thm 4";
const M: u64 = 100_000;
const ALPHABET: u64 = 1 << 18;

/// A Theorem 4 check of the filter `make` builds.
macro_rules! thm4 {
    ($id:expr, $salt:expr, $make:expr) => {
        Check {
            id: $id,
            paper: THM4,
            run: |c| above_bound(c, $salt, $make),
        }
    };
}

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
        thm4!("bounds/thm4-exact-window", 504, || {
            ExactWindow::new(1_000).expect("valid")
        }),
        thm4!("bounds/thm4-bloom", 505, || {
            PartitionedBloom::new(4, M / 4).expect("valid")
        }),
        thm4!("bounds/thm4-sbf", 506, || fig5::Family::Sbf
            .build(M, 1)
            .expect("fits")),
        thm4!("bounds/thm4-a2", 507, || A2::from_memory(M, 0.1)
            .expect("fits")),
        thm4!("bounds/thm4-bdbf", 508, || {
            BlockDecayingBloom::from_memory(M, 6_000).expect("fits")
        }),
        thm4!("bounds/thm4-apbf", 509, || Apbf::new(10, 6, M / 16)
            .expect("valid")),
        thm4!("bounds/thm4-apbbf", 510, || {
            // 8 segments of 24 blocks of 512 bits: 98,304 bits.
            Apbbf::new(4, 4, 24, 512, 8).expect("valid")
        }),
        thm4!("bounds/thm4-sliding-bloom", 511, || {
            SlidingBloom::least_space(2_000, 0.01).expect("valid")
        }),
        thm4!("bounds/thm4-qht", 512, || fig5::Family::Qht
            .build(M, 1)
            .expect("fits")),
        thm4!("bounds/thm4-qhtd", 513, || Qhtd::with_memory(M, 2, 3)
            .expect("fits")),
        thm4!("bounds/thm4-qqhtd", 514, || Qqhtd::with_memory(M, 2, 3)
            .expect("fits")),
        thm4!("bounds/thm4-sqf", 515, || fig5::Family::Sqf
            .build(M, 1)
            .expect("fits")),
        thm4!("bounds/thm4-cuckoo", 516, || fig5::Family::Cuckoo
            .build(M, 1)
            .expect("fits")),
        thm4!("bounds/thm4-queued-qht", 517, || fig5::qht_queue(
            10_000, 10, 1
        )),
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
    let n = ctx.pick(400_000u64, 4_000_000);
    let counted_from = n - n / 10;
    let bits = make().memory_bits();
    let cfg = EvalConfig::new(Window::Unbounded, n).warmup(counted_from);
    let runs = ctx.per_seed(salt, 4, 16, |seed| {
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
