//! Checks of the queuing construction (§5) against Theorems 7 and 8.

use super::{distinct_run, uniform_run};
use crate::outcome::Outcome;
use crate::verify::{Check, Ctx};
use ddf_core::{DuplicateFilter, Window};
use ddf_exact::ExactWindow;
use ddf_queue::Queue;
use ddf_shf::CompactShf;
use ddf_sim::EvalConfig;
use ddf_theory::queue::{SubfilterModel, fnr_queue, fnr_queue_as_printed, fpr_queue};
use ddf_theory::shf::stored_hashes_fp;

const THM7: &str = "sliding-window §5.3 Thm 7";
const THM8: &str = "sliding-window §5.3 Thm 8 (corrected)";
const ALPHABET: u64 = 1 << 16;

pub(crate) fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "queue/exact-subfilters-fnr",
            paper: THM8,
            run: exact_fnr,
        },
        Check {
            id: "queue/theorem8-as-printed-refuted",
            paper: "sliding-window §5.3 Thm 8 as printed",
            run: printed_fnr,
        },
        Check {
            id: "queue/cshf-subfilters-fpr",
            paper: THM7,
            run: cshf_fpr,
        },
        Check {
            id: "queue/cshf-subfilters-fnr",
            paper: THM8,
            run: cshf_fnr,
        },
        Check {
            id: "queue/planned-er",
            paper: "sliding-window §5.4",
            run: planned_er,
        },
    ]
}

/// A subfilter with neither false positives nor false negatives.
fn perfect() -> impl SubfilterModel {
    (|_: f64| 0.0, |_: f64| 0.0)
}

/// A CSHF subfilter of `h`-bit hashes: `FP_η = 1 − (1 − 2^(−h))^η`, no FN.
fn cshf_model(h: u32) -> impl SubfilterModel {
    (
        move |eta: f64| stored_hashes_fp(f64::from(h), eta),
        |_: f64| 0.0,
    )
}

/// The FNR of a queue per run on a uniform stream over 2^16 items, against
/// the exact labels of the paper's window `w = c·L`, after `warmup` items.
fn fnr_runs<F: DuplicateFilter>(
    ctx: &Ctx,
    salt: u64,
    w: u64,
    make: impl Fn() -> F + Sync,
) -> Vec<f64> {
    let items = ctx.pick(300_000, 3_000_000);
    let cfg = EvalConfig::new(Window::Count(w), 4 * w + items).warmup(4 * w);
    ctx.per_seed(salt, 8, 24, |seed| {
        uniform_run(&mut make(), ALPHABET, seed, &cfg).fnr()
    })
}

fn exact_queue() -> Queue<ExactWindow> {
    Queue::new(10, 100, |_| Ok(ExactWindow::unbounded())).expect("valid queue")
}

/// Exact subfilters miss only what the last rotation dropped.
fn exact_fnr(ctx: &Ctx) -> Outcome {
    let runs = fnr_runs(ctx, 401, 1_000, exact_queue);
    Outcome::runs(fnr_queue(&perfect(), 10, 100, ALPHABET as f64), &runs)
        .note("L = 10, c = 100, exact subfilters, U = 2^16, window c·L = 1000")
}

/// Theorem 8 as printed predicts about (1 − 1/L)^(L−1) ≈ 0.39 for the same queue.
fn printed_fnr(ctx: &Ctx) -> Outcome {
    let runs = fnr_runs(ctx, 401, 1_000, exact_queue);
    Outcome::refutes(
        fnr_queue_as_printed(&perfect(), 10, 100, ALPHABET as f64),
        &runs,
    )
    .note("same runs as queue/exact-subfilters-fnr; see docs/errata.md")
}

const CSHF_L: usize = 5;
const CSHF_C: u64 = 1_000;

/// Five CSHFs of 20,000 bits and 1,000 insertions each: 20-bit hashes.
fn cshf_queue() -> Queue<CompactShf> {
    Queue::with_memory(CSHF_L, CSHF_C, 100_000, |s| {
        CompactShf::with_memory(s.bits, s.capacity)
    })
    .expect("fits")
}

fn cshf_fpr(ctx: &Ctx) -> Outcome {
    let h = cshf_queue().iter().next().map_or(0, CompactShf::hash_bits);
    let w = CSHF_C * CSHF_L as u64;
    let cfg = EvalConfig::new(Window::Count(w), w + ctx.pick(100_000, 1_000_000)).warmup(w);
    let runs = ctx.per_seed(402, 8, 24, |seed| {
        distinct_run(&mut cshf_queue(), seed, &cfg).fpr()
    });
    Outcome::runs(fpr_queue(&cshf_model(h), CSHF_L as u64, CSHF_C), &runs).note(format!(
        "L = 5, c = 1000, M = 10^5 (h = {h}), all-distinct stream"
    ))
}

fn cshf_fnr(ctx: &Ctx) -> Outcome {
    let h = cshf_queue().iter().next().map_or(0, CompactShf::hash_bits);
    let runs = fnr_runs(ctx, 403, CSHF_C * CSHF_L as u64, cshf_queue);
    Outcome::runs(
        fnr_queue(&cshf_model(h), CSHF_L as u64, CSHF_C, ALPHABET as f64),
        &runs,
    )
    .note(format!("L = 5, c = 1000, M = 10^5 (h = {h}), U = 2^16"))
}

/// `Queue::for_window` picks `L` by §5.4 and predicts its error; the queue
/// it builds must make that error on the stream the prediction assumes.
fn planned_er(ctx: &Ctx) -> Outcome {
    let (w, m) = (6_000u64, 120_000u64);
    let build = || {
        // A CSHF of b bits over c insertions stores floor(b/c)-bit hashes.
        let model = |bits: f64, c: u64| cshf_model((bits / c as f64).floor().min(64.0) as u32);
        Queue::for_window(w, m, ALPHABET as f64, 12, model, |s| {
            CompactShf::with_memory(s.bits, s.capacity)
        })
    };
    let (queue, plan) = build().expect("fits");
    let window = queue.capacity() * queue.subfilters() as u64;
    let items = ctx.pick(300_000, 3_000_000);
    let cfg = EvalConfig::new(Window::Count(window), 4 * window + items).warmup(4 * window);
    let runs = ctx.per_seed(404, 8, 24, |seed| {
        uniform_run(&mut build().expect("fits").0, ALPHABET, seed, &cfg).er()
    });
    Outcome::runs(plan.predicted_er(), &runs).note(format!(
        "w = {w}, M = {m}: chose L = {}, c = {}, {} bits each",
        plan.subfilters, plan.capacity, plan.subfilter_bits
    ))
}
