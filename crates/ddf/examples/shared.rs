//! Plan a filter for several threads, observe from them, save it to a file
//! and load it back without naming its family.
//!
//! `cargo run -p ddf --example shared`; `tests/example.rs` runs the same
//! code in `cargo test`.

use ddf::{DuplicateFilter, Filter, KeyedSipHasher, Requirements, Shared, Verdict, Windowed};
use std::error::Error;
use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::sync::Barrier;

fn main() -> Result<(), Box<dyn Error>> {
    for line in run()? {
        println!("{line}");
    }
    Ok(())
}

/// What the example prints: the plan, the threads' tallies, and the shards
/// as loaded back from the file.
pub(crate) fn run() -> Result<Vec<String>, Box<dyn Error>> {
    let mut out = Vec::new();
    let threads = 4usize;

    // The last 20,000 events over all threads, at most 0.1% false positives,
    // no misses inside the window: 4 shards, and the window promise may fail
    // at a given moment with probability at most 1e-9. The shards together
    // hold about 1,500 events beyond the window: allow a slack of 2,000.
    let req = Requirements::count(20_000)
        .fpr(0.001)
        .max_slack(2_000)
        .seed(7);
    let plan = ddf::plan_sharded(&req, 4, 1e-9)?;
    let best = &plan.candidates[0];
    out.push(format!(
        "plan: {} shards of {} ({:?} each), {} bits in all, merged slack ≈ {}",
        plan.shards,
        best.family(),
        plan.shard_span,
        plan.memory_bits(best),
        plan.merged_slack(best)
    ));

    // A fixed key so the run replays (use `plan.build(best)` for a secret one).
    let hasher = KeyedSipHasher::with_seed(7);
    let shared: Shared<Filter> = plan.build_with_hasher(best, hasher.clone())?;

    // Each thread sends 10,000 events; one in four repeats an event the
    // same thread sent 999 events earlier. A count window counts the merged
    // stream, so how far back that is depends on the other threads: a thread
    // the scheduler leaves waiting can find its repeats pushed out of the
    // window. The threads here meet every 250 events, so a repeat is at most
    // 4·(999 + 250) = 4,996 merged events back: inside every shard's window,
    // whatever the scheduler does.
    let lockstep = Barrier::new(threads);
    let tallies: Vec<(u64, u64)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (shared, lockstep) = (&shared, &lockstep);
                s.spawn(move || {
                    let (mut repeats_caught, mut new_reported) = (0, 0);
                    for i in 0..10_000u64 {
                        if i % 250 == 0 {
                            lockstep.wait();
                        }
                        let repeat = i >= 1_000 && i % 4 == 0;
                        let event = if repeat { (t, i - 999) } else { (t, i) };
                        let dup = shared.observe(&event) == Verdict::Duplicate;
                        match (repeat, dup) {
                            (true, true) => repeats_caught += 1,
                            (false, true) => new_reported += 1,
                            _ => {}
                        }
                    }
                    (repeats_caught, new_reported)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (t, (caught, false_alarms)) in tallies.iter().enumerate() {
        out.push(format!(
            "thread {t}: {caught} of 2250 repeats caught, {false_alarms} new events reported"
        ));
    }

    // Save: every shard's snapshot, one after the other, in shard order.
    let path = std::env::temp_dir().join(format!("ddf-shared-example-{}.snap", std::process::id()));
    let mut file = BufWriter::new(File::create(&path)?);
    for written in shared.each_shard(|_, f| f.write_to(&mut file)) {
        written?;
    }
    file.flush()?;
    drop(file);

    // Load: `Filter::read_from` reads whatever kind each snapshot holds.
    let mut reader = BufReader::new(File::open(&path)?);
    let mut filters = Vec::new();
    for i in 0..plan.shards {
        let f = Filter::read_from(&mut reader)?;
        out.push(format!(
            "shard {i}: {}, window {:?}, slack {}, {} bits",
            f.family(),
            f.window(),
            f.slack(),
            f.memory_bits()
        ));
        filters.push(f);
    }
    std::fs::remove_file(&path)?;

    // The loaded shards, with the same key, remember what was observed.
    let restored = Shared::from_parts(filters, hasher)?;
    let remembered = (0..threads).all(|t| restored.contains(&(t, 9_999u64)));
    out.push(format!("restored: latest events remembered: {remembered}"));
    Ok(out)
}
