//! Plan a filter for a window and an error target, then deduplicate with it.
//!
//! `cargo run -p ddf --example quickstart`; `tests/example.rs` runs the same
//! code in `cargo test`.

use ddf::{Deduper, DuplicateFilter, Requirements, Verdict, plan};

fn main() -> Result<(), ddf::PlanError> {
    for line in run()? {
        println!("{line}");
    }
    Ok(())
}

/// What the example prints: the ranked plan and the run's tally.
pub(crate) fn run() -> Result<Vec<String>, ddf::PlanError> {
    let mut out = Vec::new();

    // Deduplicate the last 50,000 events with at most 0.1% false positives
    // for events older than the window plus the default slack (1 % of it)
    // and no misses inside the window.
    let req = Requirements::count(50_000).fpr(0.001).seed(7);
    let candidates = plan(&req)?;
    for c in &candidates {
        out.push(c.to_string());
    }

    // The first choice, behind the usual front with a fixed hash key so the
    // run replays exactly (use `Deduper::new` for a secret random key).
    let best = &candidates[0];
    let mut seen = Deduper::with_seed(best.build()?, 7);
    let (mut missed, mut false_alarms) = (0u64, 0u64);
    for i in 0..50_000u64 {
        // A new event, then a repeat of the one 1,000 steps back (2,000
        // insertions ago: well inside the window).
        if seen.observe(&format!("event-{i}")) == Verdict::Duplicate {
            false_alarms += 1;
        }
        if i >= 1_000 && seen.observe(&format!("event-{}", i - 1_000)) == Verdict::Unseen {
            missed += 1;
        }
    }
    out.push(format!(
        "{}: {} bits, {missed} repeats missed, {false_alarms} new events reported in 50000",
        best.family(),
        seen.filter().memory_bits()
    ));
    Ok(out)
}
