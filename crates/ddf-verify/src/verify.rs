//! `cargo xtask verify`: run every registered check, report, and fail on any failure.

use crate::checks;
use crate::outcome::Outcome;
use crate::paths::output_dir;
use crate::{Check, Ctx, Options};
use serde::Serialize;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

#[derive(Debug, Serialize)]
struct Row {
    id: &'static str,
    /// `quick` or `full`: durations are only comparable within a mode.
    mode: &'static str,
    paper: &'static str,
    predicted: f64,
    measured: f64,
    tolerance: f64,
    pass: bool,
    rule: String,
    note: String,
    seconds: f64,
}

/// Runs the checks selected by `opts`; `Ok(true)` if all passed.
pub fn run(opts: &Options) -> Result<bool, String> {
    let all = checks::all();
    let selected: Vec<Check> = all
        .into_iter()
        .filter(|c| opts.only.as_ref().is_none_or(|s| c.id.contains(s.as_str())))
        .collect();
    if opts.list {
        for c in &selected {
            println!("{:<44} {}", c.id, c.paper);
        }
        return Ok(true);
    }
    if selected.is_empty() {
        return Err(format!(
            "no check id contains `{}`",
            opts.only.as_deref().unwrap_or("")
        ));
    }
    let ctx = Ctx {
        quick: opts.quick,
        seed: opts.seed,
    };
    let mode = if opts.quick { "quick" } else { "full" };
    eprintln!(
        "verify: {} checks, {mode} mode, seed {}, {} threads",
        selected.len(),
        opts.seed,
        ddf_sim::threads()
    );
    let dir = output_dir().map_err(|e| format!("creating target/ddf: {e}"))?;
    let previous = previous_seconds(&dir.join("verify.json"), mode);
    let started = Instant::now();
    let mut rows: Vec<Row> = Vec::with_capacity(selected.len());
    for (i, check) in selected.iter().enumerate() {
        eprint!("[{:>3}/{}] {:<44} ", i + 1, selected.len(), check.id);
        let t = Instant::now();
        let outcome = std::panic::catch_unwind(|| (check.run)(&ctx)).unwrap_or_else(|panic| {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            Outcome {
                pass: false,
                rule: "the check panicked".into(),
                ..Outcome::exact(f64::NAN, f64::NAN)
            }
            .note(format!("panic: {msg}"))
        });
        let seconds = t.elapsed().as_secs_f64();
        let done: Vec<f64> = rows.iter().map(|r| r.seconds).chain([seconds]).collect();
        let left = estimate_left(&selected[i + 1..], &previous, &done);
        eprintln!(
            "{} ({seconds:.1} s); elapsed {}, {}",
            if outcome.pass { "ok" } else { "FAILED" },
            clock(started.elapsed()),
            match left {
                _ if i + 1 == selected.len() => "done".to_string(),
                Some(left) => format!("about {} left", clock(left)),
                None => "time left unknown".to_string(),
            }
        );
        rows.push(Row {
            id: check.id,
            mode,
            paper: check.paper,
            predicted: outcome.predicted,
            measured: outcome.measured,
            tolerance: outcome.tolerance,
            pass: outcome.pass,
            rule: outcome.rule,
            note: outcome.note,
            seconds,
        });
    }
    let failed = rows.iter().filter(|r| !r.pass).count();
    print!("{}", console_table(&rows));
    let summary = format!(
        "{} checks, {} passed, {failed} failed, in {:.0} s ({mode} mode, seed {})",
        rows.len(),
        rows.len() - failed,
        started.elapsed().as_secs_f64(),
        opts.seed
    );
    println!("{summary}");
    eprintln!("{}", slowest(&rows, 5));
    let md = markdown(&rows, &summary);
    std::fs::write(dir.join("verify.md"), md).map_err(|e| format!("writing verify.md: {e}"))?;
    let json = serde_json::to_string_pretty(&rows).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("verify.json"), json + "\n")
        .map_err(|e| format!("writing verify.json: {e}"))?;
    eprintln!("wrote {} and verify.json", dir.join("verify.md").display());
    Ok(failed == 0)
}

/// Seconds per check id from an earlier run's `verify.json`, rows of `mode`
/// only; empty when the file is missing or unreadable (the estimate then
/// comes from this run alone).
fn previous_seconds(path: &std::path::Path, mode: &str) -> HashMap<String, f64> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return HashMap::new();
    };
    let Ok(serde_json::Value::Array(rows)) = serde_json::from_str(&text) else {
        return HashMap::new();
    };
    rows.iter()
        .filter(|r| r.get("mode").and_then(|m| m.as_str()) == Some(mode))
        .filter_map(|r| {
            Some((
                r.get("id")?.as_str()?.to_string(),
                r.get("seconds")?.as_f64()?,
            ))
        })
        .collect()
}

/// The time the checks still to run should take: each one's duration in the
/// earlier run if known, else the mean duration of the checks run so far.
/// `None` if nothing has run yet and some check has no earlier time.
fn estimate_left(
    rest: &[Check],
    previous: &HashMap<String, f64>,
    done: &[f64],
) -> Option<Duration> {
    let mean = (!done.is_empty()).then(|| done.iter().sum::<f64>() / done.len() as f64);
    let mut total = 0.0;
    for c in rest {
        total += match previous.get(c.id) {
            Some(&s) => s,
            None => mean?,
        };
    }
    Some(Duration::from_secs_f64(total.max(0.0)))
}

/// `12 s`, `3 min 05 s`, `1 h 02 min`: plain text, readable in a log file.
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, (s % 3600) / 60),
    }
}

/// The `n` slowest checks with their times, one line.
fn slowest(rows: &[Row], n: usize) -> String {
    let mut by_time: Vec<&Row> = rows.iter().collect();
    by_time.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
    let named: Vec<String> = by_time
        .iter()
        .take(n)
        .map(|r| format!("{} {:.1} s", r.id, r.seconds))
        .collect();
    format!("slowest: {}", named.join(", "))
}

/// Numbers in a fixed width: plain for ordinary magnitudes, scientific for tiny ones.
fn num(x: f64) -> String {
    if x == 0.0 || x.is_nan() || (1e-3..1e3).contains(&x.abs()) {
        format!("{x:.6}")
    } else {
        format!("{x:.4e}")
    }
}

fn console_table(rows: &[Row]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n{:<6} {:<44} {:>14} {:>14} {:>12}",
        "", "check", "predicted", "measured", "tolerance"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{:<6} {:<44} {:>14} {:>14} {:>12}",
            if r.pass { "ok" } else { "FAIL" },
            r.id,
            num(r.predicted),
            num(r.measured),
            num(r.tolerance)
        );
    }
    out
}

fn markdown(rows: &[Row], summary: &str) -> String {
    let mut out = String::from("# cargo xtask verify\n\n");
    let _ = writeln!(out, "{summary}\n");
    out.push_str("| | check | paper | predicted | measured | tolerance | rule | note |\n");
    out.push_str("| --- | --- | --- | ---: | ---: | ---: | --- | --- |\n");
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | `{}` | {} | {} | {} | {} | {} | {} |",
            if r.pass { "ok" } else { "**FAIL**" },
            r.id,
            r.paper,
            num(r.predicted),
            num(r.measured),
            num(r.tolerance),
            r.rule.replace('|', "\\|"),
            r.note.replace('|', "\\|")
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_text_is_plain_and_estimates_add_up() {
        assert_eq!(clock(Duration::from_secs(12)), "12 s");
        assert_eq!(clock(Duration::from_secs(185)), "3 min 05 s");
        assert_eq!(clock(Duration::from_secs(3720)), "1 h 02 min");
        let all = checks::all();
        let rest = &all[..3];
        let mut previous = HashMap::new();
        previous.insert(rest[0].id.to_string(), 10.0);
        // One known (10 s), two at the mean of the runs so far (4 s each).
        let left = estimate_left(rest, &previous, &[2.0, 6.0]).unwrap();
        assert!((left.as_secs_f64() - 18.0).abs() < 1e-9);
        assert!(estimate_left(rest, &previous, &[]).is_none());
        previous.extend(rest.iter().map(|c| (c.id.to_string(), 1.0)));
        assert_eq!(
            estimate_left(rest, &previous, &[]),
            Some(Duration::from_secs(3))
        );
        let row = |id, seconds| Row {
            id,
            mode: "full",
            paper: "",
            predicted: 0.0,
            measured: 0.0,
            tolerance: 0.0,
            pass: true,
            rule: String::new(),
            note: String::new(),
            seconds,
        };
        let rows = [row("a/x", 1.0), row("b/y", 9.0), row("c/z", 3.0)];
        assert_eq!(slowest(&rows, 2), "slowest: b/y 9.0 s, c/z 3.0 s");
    }

    #[test]
    fn previous_times_are_read_per_mode() {
        let dir = std::env::temp_dir().join(format!("ddf-verify-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("verify.json");
        std::fs::write(
            &path,
            r#"[{"id":"a/x","mode":"full","seconds":5.0},{"id":"b/y","mode":"quick","seconds":1.0}]"#,
        )
        .unwrap();
        let full = previous_seconds(&path, "full");
        assert_eq!(full.len(), 1);
        assert_eq!(full.get("a/x"), Some(&5.0));
        assert!(previous_seconds(&dir.join("missing.json"), "full").is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn check_ids_are_unique_and_well_formed() {
        let all = checks::all();
        let mut ids: Vec<&str> = all.iter().map(|c| c.id).collect();
        for id in &ids {
            let (family, what) = id.split_once('/').unwrap_or(("", ""));
            assert!(
                !family.is_empty() && !what.is_empty(),
                "check id `{id}` is not family/what"
            );
            assert!(
                id.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "/-_.".contains(c)),
                "{id}"
            );
        }
        let n = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), n, "duplicate check ids");
        assert!(all.iter().all(|c| !c.paper.is_empty()));
    }
}
