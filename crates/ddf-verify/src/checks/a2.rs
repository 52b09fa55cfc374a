//! Checks of A2 on a windowed stream: its false-positive rate through a
//! buffer period, how it forgets between `n` and `2n`, and no false
//! negatives within its capacity.

use super::common::{Fresh, item, no_false_negatives};
use crate::outcome::Outcome;
use crate::{Check, Ctx};
use ddf_bloom::A2;
use ddf_core::{DuplicateFilter, Window};
use ddf_hash::KeyedSipHasher;
use ddf_sim::{run_seeds, threads};
use ddf_theory::a2::{phase_fp, retention};

const YOON: &str = "A2 (Yoon; APBF paper §3.2), sliding-window paper §4.3";

pub(crate) fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "a2/window-fpr",
            paper: YOON,
            run: window_fpr,
        },
        Check {
            id: "a2/retention",
            paper: YOON,
            run: retention_check,
        },
        Check {
            id: "a2/no-false-negatives",
            paper: YOON,
            run: no_fn,
        },
    ]
}

/// The sliding-window paper's A2 for `w = 4000` at 10 %: n = 2000, k = 5.
fn filter() -> A2 {
    A2::with_window(4_000, 0.1).expect("valid parameters")
}

/// Observes how `run` measures A2 at every `stride`-th phase of one buffer
/// period, after two periods of distinct items; `run(f, j, inserted)` gets
/// the filter, its phase (items in `active1`) and the items so far.
fn per_run<T: Send>(
    ctx: &Ctx,
    salt: u64,
    stride: u64,
    run: impl Fn(&A2, &mut Fresh, u64, u64) -> T + Sync,
) -> Vec<Vec<T>> {
    let seeds = ctx.seeds(salt, ctx.pick(16, 40));
    run_seeds(&seeds, threads(), |seed| {
        let hasher = KeyedSipHasher::with_seed(seed);
        let mut f = filter();
        let n = f.capacity();
        let mut fresh = Fresh::new(seed);
        let mut out = Vec::new();
        for id in 0..4 * n {
            f.insert(item(&hasher, id));
            if id >= 2 * n && (id - 2 * n).is_multiple_of(stride) {
                out.push(run(&f, &mut fresh, f.active_count(), id + 1));
            }
        }
        out
    })
}

/// Fresh items at phases spread over two periods: the rate against the mean
/// of `1 − (1 − fp(j))(1 − fp(n))` over the same phases. Runs are the samples.
fn window_fpr(ctx: &Ctx) -> Outcome {
    let queries = ctx.pick(2_000, 10_000);
    let stride = 97;
    let f = filter();
    let (n, m, k) = (
        f.capacity() as f64,
        f.buffer_bits() as f64,
        f64::from(f.probes()),
    );
    let table = phase_table(&f);
    let runs = per_run(ctx, 41, stride, |f, fresh, j, _| {
        (fresh.rate(queries, |d| f.contains(d)), table[j as usize])
    });
    let measured: Vec<f64> = runs
        .iter()
        .map(|r| r.iter().map(|x| x.0).sum::<f64>() / r.len() as f64)
        .collect();
    // Every run probes the same phases, so the prediction is the same.
    let predicted = runs[0].iter().map(|x| x.1).sum::<f64>() / runs[0].len() as f64;
    Outcome::runs(predicted, &measured).note(format!(
        "w = 4000, n = {n}, m = {m}, k = {k}; phases every {stride} insertions, {queries} queries each"
    ))
}

/// Items `e ∈ (n, 2n]` insertions old, queried at every phase of two
/// periods. An item is held while the buffer it went into (or was found in)
/// is `active1` or `active2`; over a whole period that is
/// `a2::retention(n, e)` of them (slightly more: items found in `active1`
/// by a false positive do not advance the buffers). The others are
/// reported at the phase's false-positive rate.
fn retention_check(ctx: &Ctx) -> Outcome {
    let f = filter();
    let n = f.capacity();
    let nf = n as f64;
    let ages: Vec<u64> = (1..=8).map(|i| n + i * n / 8).collect();
    let table = phase_table(&f);
    let seeds = ctx.seeds(43, ctx.pick(16, 40));
    let results = run_seeds(&seeds, threads(), |seed| {
        let hasher = KeyedSipHasher::with_seed(seed);
        let mut f = filter();
        // The rotation count when each item went into (or was found in) active1.
        let mut epoch_of: Vec<u64> = Vec::with_capacity(4 * n as usize);
        let mut epoch = 0u64;
        let (mut hits, mut expected, mut count) = (0u64, 0.0, 0u64);
        for id in 0..4 * n {
            let before = f.active_count();
            f.insert(item(&hasher, id));
            if f.active_count() < before {
                epoch += 1;
            }
            epoch_of.push(epoch);
            if id < 2 * n {
                continue;
            }
            let j = f.active_count() as usize;
            for &e in &ages {
                let old = id - e;
                let held = epoch - epoch_of[old as usize] <= 1;
                hits += u64::from(f.contains(item(&hasher, old)));
                expected += if held { 1.0 } else { table[j] };
                count += 1;
            }
        }
        (hits as f64 / count as f64, expected / count as f64)
    });
    // Which items are held depends a little on each run's own false
    // positives, so each run is compared with its own prediction: the
    // samples are the differences, recentred on the mean prediction.
    let predicted = results.iter().map(|r| r.1).sum::<f64>() / results.len() as f64;
    let measured: Vec<f64> = results.iter().map(|r| r.0 - r.1 + predicted).collect();
    let mean_retention =
        ages.iter().map(|&e| retention(nf, e as f64)).sum::<f64>() / ages.len() as f64;
    Outcome::runs(predicted, &measured).note(format!(
        "n = {n}; ages n + i·n/8, i = 1..8, at every phase of two periods; \
         a2::retention averages {mean_retention:.4} over these ages"
    ))
}

/// `phase_fp(j)` for every phase `j = 0..=n` of `f`'s shape.
fn phase_table(f: &A2) -> Vec<f64> {
    let (n, m, k) = (f.capacity(), f.buffer_bits() as f64, f64::from(f.probes()));
    (0..=n)
        .map(|j| phase_fp(j as f64, n as f64, m, k))
        .collect()
}

fn no_fn(ctx: &Ctx) -> Outcome {
    let n = filter().capacity();
    no_false_negatives(
        ctx,
        44,
        Window::Count(n),
        1 << 14,
        ctx.pick(200_000, 2_000_000),
        |_| filter(),
    )
}
