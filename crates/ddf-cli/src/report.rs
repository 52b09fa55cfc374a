//! `ddf plan` and `ddf inspect`: what the planner would pick, what a state
//! file holds.

use crate::Fail;
use crate::choose;
use crate::cli::PlanCmd;
use crate::dedup::human_bytes;
use crate::engine::{self, describe_window};
use crate::state::{self, window_json};
use ddf::{DuplicateFilter, Windowed};
use serde_json::json;
use std::path::Path;

/// Prints the ranked candidates for the flags, as a table or JSON.
pub(crate) fn plan(cmd: &PlanCmd) -> Result<(), Fail> {
    let args = &cmd.plan;
    let request = choose::request(args).map_err(Fail::Usage)?;
    let candidates = request
        .candidates(&choose::VOCABULARY)
        .map_err(|e| Fail::Usage(e.to_string()))?;
    // The one filter `ddf dedup` would use: the named family, or the first.
    let chosen = request
        .choose(&choose::VOCABULARY)
        .map_err(|e| Fail::Usage(e.to_string()))?;
    let window = candidates[0].window;
    let rows: Vec<serde_json::Value> = candidates
        .iter()
        .map(|c| {
            json!({
                "family": c.family,
                "config": c.config,
                "memory_bytes": c.memory_bits.div_ceil(8),
                "fpr": c.fpr, "fnr": c.fnr,
                "false_negatives": c.false_negatives,
                "slack": c.slack, "accesses": c.accesses,
                "cost": cost_json(&c.cost, c.dominated_by),
                "saturated": c.saturated,
            })
        })
        .collect();
    if cmd.json {
        let v = json!({
            "window": window_json(window),
            "candidates": rows,
            "chosen": { "family": chosen.family, "config": chosen.config, "fpr": chosen.fpr },
        });
        println!("{v:#}");
        return Ok(());
    }
    println!("window: {}", describe_window(window));
    if matches!(window, ddf::Window::Unbounded) && candidates[0].candidate.is_none() {
        println!(
            "(the exact set grows with the distinct keys; give --distinct N for a fixed size)"
        );
    }
    if candidates.iter().any(|c| c.saturated) {
        println!(
            "(rates at saturation, the worst case: without --distinct the stream is taken \
             to bring ever-new keys, where FPR + FNR is about 1)"
        );
    }
    println!(
        "{:<4} {:<13} {:>12} {:>10} {:>10} {:>8} {:>9}  {:<34} parameters",
        "rank", "family", "memory", "FPR", "FNR", "slack", "accesses", "cost (one/batch)"
    );
    for (i, r) in rows.iter().enumerate() {
        let unit = match window {
            ddf::Window::Time(_) => "ms",
            _ => "",
        };
        println!(
            "{:<4} {:<13} {:>12} {:>10.3e} {:>10.3e} {:>8} {:>9.1}  {:<34} {}",
            i + 1,
            r["family"].as_str().unwrap_or(""),
            human_bytes(r["memory_bytes"].as_u64().unwrap_or(0)),
            r["fpr"].as_f64().unwrap_or(0.0),
            r["fnr"].as_f64().unwrap_or(0.0),
            format!("{}{unit}", r["slack"].as_u64().unwrap_or(0)),
            r["accesses"].as_f64().unwrap_or(0.0),
            r["cost"]["class"].as_str().unwrap_or(""),
            r["config"].as_str().unwrap_or(""),
        );
    }
    let yields: Vec<String> = candidates
        .iter()
        .filter_map(|c| c.dominated_by.map(|by| format!("{} after {by}", c.family)))
        .collect();
    if !yields.is_empty() {
        println!(
            "(* ranked after a candidate that needs at most 1.25x its memory and costs under \
             half as much: {})",
            yields.join(", ")
        );
    }
    Ok(())
}

/// The planner's cost model for one row: its class as printed (with `*`
/// when a cheaper candidate of about its memory ranks before it), the
/// table's cache tier and the predicted nanoseconds.
fn cost_json(cost: &ddf::Cost, dominated_by: Option<&str>) -> serde_json::Value {
    let mark = if dominated_by.is_some() { " *" } else { "" };
    json!({
        "class": format!("{cost}{mark}"),
        "lines": cost.lines, "scanned_words": cost.scanned_words,
        "tier": cost.tier.to_string(),
        "one_ns": cost.one_ns, "batch_ns": cost.batch_ns,
        "dominated_by": dominated_by,
    })
}

/// Describes a state file, never its key.
pub(crate) fn inspect(path: &Path, as_json: bool) -> Result<(), Fail> {
    let l = state::load(path)
        .map_err(Fail::Run)?
        .ok_or_else(|| Fail::Run(format!("no state file at {}", path.display())))?;
    let f = &l.filter;
    if as_json {
        let v = json!({
            "file": path.display().to_string(),
            "file_bytes": l.file_bytes,
            "state_version": l.version,
            "snapshot_format": l.snapshot_format,
            "snapshot_kind": l.snapshot_kind,
            "family": engine::family(f),
            "config": l.meta.config,
            "window": window_json(f.window()),
            "slack": f.slack(),
            "memory_bits": f.memory_bits(),
            "predicted_fpr": l.meta.fpr,
            "records_seen": l.meta.records_seen,
            "clock_ms": l.meta.clock_ms,
            "time_source": l.meta.time_source,
            "hash": "SipHash-1-3, secret key (not shown)",
        });
        println!("{v:#}");
        return Ok(());
    }
    println!("file:         {} ({} bytes)", path.display(), l.file_bytes);
    println!(
        "format:       state layout {}, filter snapshot format {}, kind {:#06x} ({})",
        l.version,
        l.snapshot_format,
        l.snapshot_kind,
        engine::kind_name(l.snapshot_kind)
    );
    println!("family:       {}", engine::family(f));
    println!("parameters:   {}", l.meta.config);
    println!("window:       {}", describe_window(f.window()));
    println!("slack:        {}", f.slack());
    println!(
        "memory:       {} ({} bits)",
        human_bytes(f.memory_bits().div_ceil(8)),
        f.memory_bits()
    );
    println!("planned FPR:  {:.3e}", l.meta.fpr);
    println!("records seen: {}", l.meta.records_seen);
    match l.meta.clock_ms {
        Some(ms) => println!(
            "clock:        {} ms ({}, from {} time)",
            ms,
            humantime::format_rfc3339_millis(
                std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms)
            ),
            l.meta.time_source
        ),
        None => println!("clock:        none"),
    }
    println!("hash key:     SipHash-1-3, secret (not shown)");
    Ok(())
}
