//! The one place that turns `DDF.RESERVE` arguments into a filter: the
//! planner adapter.
//!
//! `ddf::plan` ranks configurations for a window and an error target
//! (`ddf::Requirements`); this module picks one and builds it. When the
//! planner's signature or `Candidate::build`'s return type changes, this file
//! is the only one to adjust.

use ddf::{Candidate, Requirements, SlidingBloom, plan};

/// The filter a key stores.
///
/// Until `ddf::Filter` (one enum over every family) lands, the module stores
/// the sliding Bloom filter of Naor–Yogev: the one family with both a count
/// and a time mode, no misses in the window and a chosen slack.
pub(crate) type Inner = SlidingBloom;

/// The planner's first admissible choice for `req`, restricted to `family`
/// when the caller named one, and the filter built from it.
///
/// A choice whose state exceeds `cap_bytes` (the module's per-key cap) is an
/// error, checked before anything is allocated.
pub(crate) fn plan_filter(
    req: &Requirements,
    family: Option<&str>,
    cap_bytes: u64,
) -> Result<(Candidate, Inner), String> {
    let candidates = plan(req).map_err(|e| e.to_string())?;
    let wanted = |c: &Candidate| family.is_none_or(|f| family_matches(c.family(), f));
    let chosen = candidates
        .into_iter()
        .find(|c| wanted(c) && buildable(c))
        .ok_or_else(|| match family {
            Some(f) => format!("no {f} filter meets these requirements in this module"),
            None => "no filter meets these requirements".to_string(),
        })?;
    let bytes = chosen.memory_bits.div_ceil(8);
    if bytes > cap_bytes {
        return Err(format!(
            "the {} filter needs {bytes} bytes, over ddf.max-memory = {cap_bytes}",
            chosen.family()
        ));
    }
    let filter = build(&chosen)?;
    Ok((chosen, filter))
}

/// Whether `name` (as typed after `FILTER`) names the planner's `family`:
/// case and separators ignored, so `sliding`, `SLIDING-BLOOM` and
/// `sliding bloom` all name "sliding Bloom".
pub(crate) fn family_matches(family: &str, name: &str) -> bool {
    let squash = |s: &str| -> String {
        s.chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let (family, name) = (squash(family), squash(name));
    !name.is_empty() && family.starts_with(&name)
}

/// Whether the module can store `c`'s family.
fn buildable(c: &Candidate) -> bool {
    matches!(c.config, ddf::Config::Sliding { .. })
}

/// Builds the filter of a candidate [`buildable`] accepted.
fn build(c: &Candidate) -> Result<Inner, String> {
    match c.config {
        ddf::Config::Sliding {
            window,
            slack,
            epsilon,
            capacity,
        } => {
            let f = match capacity {
                Some(cap) => SlidingBloom::with_time_span(window, slack, cap, epsilon),
                None => SlidingBloom::new(window, slack, epsilon),
            };
            f.map(|f| f.with_seed(c.seed)).map_err(|e| e.to_string())
        }
        _ => Err(format!("the {} family is not stored by this module", c.family())),
    }
}
