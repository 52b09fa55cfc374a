//! APBF false positives over time and under duplicates (APBF paper Figures 6 and 7): measured against the fill-ratio theory.

use super::{Producer, Table};
use crate::Options;
use crate::derive_seeds;
use ddf_apbf::Apbf;
use ddf_core::{DuplicateFilter, Window};
use ddf_hash::KeyedSipHasher;
use ddf_sim::{Distinct, EvalConfig, Report, evaluate, run_seeds, threads};
use ddf_theory::apbf::false_positive;
use ddf_theory::numerics::one_minus_pow1m;

pub(crate) fn producers() -> Vec<Producer> {
    vec![
        Producer {
            name: "apbf-fp-time",
            make: fp_over_time,
        },
        Producer {
            name: "apbf-fp-duplicates",
            make: fp_with_duplicates,
        },
    ]
}

/// The window of Figure 6, its stream length and the bucket of the curve.
const WINDOW: u64 = 1_000;
const INSERTIONS: u64 = 10_000;
const BUCKET: u64 = 100;

/// The fill ratio of every logical slice after `n` insertions from empty,
/// generations of `g` closing at the next insertion once full (Algorithm 1):
/// slice `i < k` has received the `i` full generations before the current
/// one (those that exist) and the current one's `j` items; slice `i ≥ k`
/// the `k` generations from `cur − i`.
fn fill_after(k: usize, l: usize, m: f64, g: u64, n: u64) -> Vec<f64> {
    let cur = if n == 0 { 0 } else { (n - 1) / g } as i64;
    let j = (n as i64 - cur * g as i64) as f64;
    let k = k as i64;
    (0..k + l as i64)
        .map(|i| {
            // Generations `cur − i ..= cur − i + k − 1` that exist; the current
            // one (index `cur`) holds `j` items, the others `g`.
            let (lo, hi) = ((cur - i).max(0), (cur - i + k - 1).min(cur - 1));
            let full = (hi - lo + 1).max(0) as f64;
            let current = if i < k { j } else { 0.0 };
            one_minus_pow1m(1.0 / m, full * g as f64 + current)
        })
        .collect()
}

fn fp_over_time(opts: &Options) -> Table {
    let runs = if opts.quick { 40 } else { 400 };
    let mut rows = Vec::new();
    for (i, fp) in [0.1f64, 0.01, 0.001].into_iter().enumerate() {
        let make = || Apbf::with_window(WINDOW, fp).expect("valid APBF");
        let proto = make();
        let (k, l, g, m) = (
            proto.k() as usize,
            proto.l() as usize,
            proto.generation(),
            proto.slice_bits() as f64,
        );
        let seeds = derive_seeds(opts.seed, 0xf16 + i as u64, runs);
        let reports: Vec<Report> = run_seeds(&seeds, threads(), |seed| {
            let cfg = EvalConfig::new(Window::Count(WINDOW), INSERTIONS).curve(BUCKET);
            let mut f = make();
            f.clear();
            evaluate(
                &mut f,
                &mut Distinct::new(seed << 20),
                &KeyedSipHasher::with_seed(seed),
                &cfg,
            )
        });
        let merged = Report::merged(&reports);
        for b in &merged.curve {
            // The bucket's mean predicted rate over its insertions.
            let theory = (b.start..b.start + BUCKET)
                .map(|n| false_positive(k, &fill_after(k, l, m, g, n)))
                .sum::<f64>()
                / BUCKET as f64;
            rows.push(vec![
                format!("{fp}"),
                k.to_string(),
                l.to_string(),
                (b.start + BUCKET).to_string(),
                format!("{:.6e}", b.fp_probability()),
                format!("{theory:.6e}"),
            ]);
        }
    }
    Table {
        name: "apbf-fp-time",
        header: vec![
            "target_fp",
            "k",
            "l",
            "insertions",
            "measured_fp",
            "theory_fp",
        ],
        rows,
        note: format!(
            "APBF paper Figure 6: false-positive rate of APBFs built by `Apbf::with_window({WINDOW}, fp)`, \
             starting empty, over {INSERTIONS} distinct insertions, in buckets of {BUCKET}; {runs} runs merged. \
             `theory_fp` is the `F` recursion (§5.3) over the fill ratios each slice has reached, averaged \
             over the bucket: it rises while the first `k + l` generations arrive, then follows the \
             sawtooth of the steady state, peaking just before each shift."
        ),
    }
}

/// APBF paper Figure 7: the worst-point false-positive rate of a
/// `(k, l) = (4, 3)` filter as the stream's duplicate rate grows, measured
/// with fresh queries and predicted by the `F` recursion over the distinct
/// items each slice received (the check `apbf/fp-with-duplicates`).
fn fp_with_duplicates(opts: &Options) -> Table {
    let (g, queries, runs) = if opts.quick {
        (1_000, 20_000, 4)
    } else {
        (5_000, 100_000, 16)
    };
    let rates: Vec<f64> = (0..10).map(|i| f64::from(i) / 10.0).collect();
    let mut rows = Vec::new();
    for (i, &rate) in rates.iter().enumerate() {
        let seeds = derive_seeds(opts.seed, 0xf17 + i as u64, runs);
        let out = run_seeds(&seeds, threads(), |seed| {
            crate::checks::apbf::duplicated_run(seed, rate, g, queries, 3)
        });
        let mean = |f: fn(&(f64, f64)) -> f64| out.iter().map(f).sum::<f64>() / out.len() as f64;
        rows.push(vec![
            format!("{rate:.1}"),
            format!("{:.6e}", mean(|r| r.0)),
            format!("{:.6e}", mean(|r| r.1)),
        ]);
    }
    Table {
        name: "apbf-fp-duplicates",
        header: vec!["duplicate_rate", "measured_fp", "theory_fp"],
        rows,
        note: format!(
            "APBF paper Figure 7 (sharing effect): an APBF with k = 4, l = 3, g = {g} on a stream where \
             each item is, with the given probability, a copy of one of the last l·g; the rate of fresh \
             queries at the worst point (just before a shift), {runs} runs of 3 points each. The theory \
             is the F recursion over fill ratios computed from the distinct items each slice received."
        ),
    }
}
