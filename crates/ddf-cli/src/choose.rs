//! From the window, accuracy and size flags to one filter.

use crate::cli::{DEFAULT_FPR, PlanArgs};
use crate::engine::{self, Engine};
use ddf::{Candidate, Requirements, Window};

/// The filter the flags ask for, before it is built.
#[derive(Debug, Clone)]
pub(crate) struct Choice {
    /// `--filter` name of the family.
    pub(crate) family: &'static str,
    /// The window (time windows in milliseconds).
    pub(crate) window: Window,
    /// The parameters, as text.
    pub(crate) config: String,
    /// Predicted false-positive rate.
    pub(crate) fpr: f64,
    /// Predicted false-negative rate (0 when guaranteed).
    pub(crate) fnr: f64,
    /// Predicted state bits (for the exact filter: at the full window, or 0
    /// for the whole stream, where it grows).
    pub(crate) memory_bits: u64,
    /// The planned candidate; `None` for the exact filter.
    pub(crate) candidate: Option<Candidate>,
}

impl Choice {
    /// Builds the filter.
    pub(crate) fn build(&self) -> Result<Engine, String> {
        match &self.candidate {
            Some(c) => engine::build(c),
            None => engine::exact(self.window),
        }
    }
}

/// The window the flags ask for.
pub(crate) fn window(args: &PlanArgs) -> Window {
    match (args.window, args.within) {
        (Some(w), _) => Window::Count(w),
        (None, Some(ms)) => Window::Time(ms),
        (None, None) => Window::Unbounded,
    }
}

/// The exact filter for `w`; its size is the exact window's own sizing.
fn exact_choice(w: Window) -> Result<Choice, String> {
    let bits = match w {
        Window::Count(n) => {
            ddf::Filter::exact_sizing(n)
                .map_err(|e| format!("cannot size the exact window: {e}"))?
                .memory_bits
        }
        _ => 0,
    };
    Ok(Choice {
        family: "exact",
        window: w,
        config: match w {
            Window::Unbounded => "exact set of 64-bit digests".into(),
            _ => "exact window of 64-bit digests".into(),
        },
        fpr: 0.0,
        fnr: 0.0,
        memory_bits: bits,
        candidate: None,
    })
}

/// Why `--max-memory` alone cannot follow the whole stream, in one line.
const FIXED_MEMORY_MISSES: &str = "in fixed memory, a filter of the whole stream \
     misses: once full it must forget old keys to take new ones; add --misses-ok to \
     accept that, or --window N / --within DURATION to remember only recent records, \
     or --distinct N if you know how many distinct keys will come";

/// The planner's requirements for the flags, or `None` when the flags ask
/// for the exact filter.
pub(crate) fn requirements(args: &PlanArgs) -> Result<Option<Requirements>, String> {
    let w = window(args);
    if args.exact {
        return Ok(None);
    }
    let mut req = match w {
        Window::Count(n) => Requirements::count(n),
        Window::Time(ms) => {
            if !(args.rate.is_finite() && args.rate > 0.0) {
                return Err(format!(
                    "--rate must be a positive number, not {}",
                    args.rate
                ));
            }
            Requirements::time(ms, args.rate / 1000.0)
        }
        Window::Unbounded => match args.distinct {
            Some(_) => Requirements::unbounded(),
            None if args.filter.is_none() && args.max_memory.is_none() && !args.misses_ok => {
                // Nothing bounds the stream: the exact set is the only
                // filter with a guaranteed error.
                return Ok(None);
            }
            // Fixed memory, misses accepted: the filters that forget, rated
            // at saturation by the planner.
            None if args.max_memory.is_some() && args.misses_ok => Requirements::unbounded(),
            None if args.max_memory.is_some() => return Err(FIXED_MEMORY_MISSES.into()),
            None => {
                return Err("without --window or --within, an approximate filter needs \
                     --max-memory SIZE with --misses-ok (a filter that forgets), or \
                     --distinct N (the expected number of distinct keys); or use --exact"
                    .into());
            }
        },
    };
    match (args.fpr, args.max_memory) {
        (Some(p), _) => req = req.fpr(p),
        (None, None) => req = req.fpr(DEFAULT_FPR),
        (None, Some(_)) => {}
    }
    if let Some(bytes) = args.max_memory {
        req = req.memory_budget(bytes.saturating_mul(8));
    }
    if let Some(n) = args.distinct {
        req = req.distinct_items(n);
    }
    if let Some(s) = &args.slack {
        let slack = match w {
            Window::Count(_) => s
                .parse::<u64>()
                .map_err(|_| format!("--slack {s:?}: a number of records for --window"))?,
            Window::Time(_) => {
                crate::cli::parse_duration_ms(s).map_err(|e| format!("--slack {s:?}: {e}"))?
            }
            Window::Unbounded => return Err("--slack needs --window or --within".into()),
        };
        req = req.max_slack(slack);
    }
    Ok(Some(req.allow_false_negatives(args.misses_ok)))
}

/// The ranked candidates (empty for the exact filter).
pub(crate) fn candidates(args: &PlanArgs) -> Result<Vec<Candidate>, String> {
    match requirements(args)? {
        Some(req) => engine::plan(&req),
        None => Ok(Vec::new()),
    }
}

/// The one filter the flags ask for.
pub(crate) fn choose(args: &PlanArgs) -> Result<Choice, String> {
    let w = window(args);
    let Some(req) = requirements(args)? else {
        return exact_choice(w);
    };
    let all = engine::plan(&req)?;
    let pick = match &args.filter {
        None => &all[0],
        Some(name) => all
            .iter()
            .find(|c| engine::candidate_family(c) == name)
            .ok_or_else(|| {
                let names: Vec<_> = all.iter().map(engine::candidate_family).collect();
                format!(
                    "--filter {name} does not meet these flags; the filters that do: {}",
                    names.join(", ")
                )
            })?,
    };
    Ok(Choice {
        family: engine::candidate_family(pick),
        window: w,
        config: format!("{:?}", pick.config),
        fpr: pick.fpr,
        fnr: pick.fnr,
        memory_bits: pick.memory_bits,
        candidate: Some(pick.clone()),
    })
}
