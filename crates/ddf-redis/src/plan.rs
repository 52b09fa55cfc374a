//! The one place that turns `DDF.RESERVE` arguments into a filter: the
//! planner adapter.
//!
//! `ddf::plan` ranks configurations for a window and an error target
//! (`ddf::Requirements`); this module picks one and builds it. When the
//! planner's signature or `Candidate::build`'s return type changes, this file
//! is the only one to adjust.

use ddf::{Candidate, Filter, Requirements, plan};

/// The filter a key stores: any family the planner offers.
pub(crate) type Inner = Filter;

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
    let chosen = candidates
        .into_iter()
        .find(|c| family.is_none_or(|f| family_matches(c.family(), f)))
        .ok_or_else(|| match family {
            Some(f) => format!("no {f} filter meets these requirements"),
            None => "no filter meets these requirements".to_string(),
        })?;
    let bytes = chosen.memory_bits.div_ceil(8);
    if bytes > cap_bytes {
        return Err(format!(
            "the {} filter needs {bytes} bytes, over ddf.max-memory = {cap_bytes}",
            chosen.family()
        ));
    }
    let filter = Filter::try_from(&chosen).map_err(|e| e.to_string())?;
    Ok((chosen, filter))
}

/// Whether `name` (as typed after `FILTER`) names the planner's `family`:
/// case and separators ignored, a prefix is enough, so `sliding`,
/// `SLIDING-BLOOM` and `sliding bloom` all name "sliding Bloom".
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn family_names_match_loosely_but_not_emptily() {
        assert!(family_matches("sliding Bloom", "SLIDING-BLOOM"));
        assert!(family_matches("sliding Bloom", "sliding"));
        assert!(family_matches("APBF", "apbf"));
        assert!(family_matches("APBBF", "apbbf"));
        assert!(!family_matches("APBBF", "apbf"));
        assert!(!family_matches("APBF", "qht"));
        assert!(!family_matches("APBF", "--"));
    }

    #[test]
    fn the_cap_is_checked_before_building() {
        let req = Requirements::count(1 << 30).target_fpr(1e-3);
        let e = plan_filter(&req, None, 1 << 20).expect_err("over the cap");
        assert!(e.contains("ddf.max-memory"), "{e}");
        let (c, f) = plan_filter(&Requirements::count(1000).target_fpr(1e-2), None, 1 << 20)
            .expect("a small filter");
        assert_eq!(ddf::DuplicateFilter::memory_bits(&f), c.memory_bits);
    }
}
