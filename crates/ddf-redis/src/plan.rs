//! The one place that turns `DDF.RESERVE` arguments into a filter: the
//! planner adapter.
//!
//! `ddf::plan` ranks configurations for a window and an error target
//! (`ddf::Requirements`); this module picks one and builds it. When the
//! planner's signature or `Candidate::build`'s return type changes, this file
//! is the only one to adjust.

use ddf::{Candidate, Family, Filter, Requirements, plan};

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
    let family = family.map(family_named).transpose()?;
    let candidates = plan(req).map_err(|e| e.to_string())?;
    let chosen = candidates
        .into_iter()
        .find(|c| family.is_none_or(|f| Family::of(&c.config) == f))
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

/// The family `name` (as typed after `FILTER`) names: a slug of the
/// registry (`ddf::Family`) or a display name, case and separators ignored,
/// so `sliding`, `SLIDING-BLOOM` and `Sliding Bloom` all name the sliding
/// Bloom filter. An unknown name is an error listing the slugs.
pub(crate) fn family_named(name: &str) -> Result<Family, String> {
    let squash = |s: &str| -> String {
        s.chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let wanted = squash(name);
    Family::ALL
        .iter()
        .copied()
        .find(|f| !wanted.is_empty() && (squash(f.slug()) == wanted || squash(f.name()) == wanted))
        .ok_or_else(|| {
            format!(
                "unknown FILTER '{name}' (the families are {})",
                Family::SLUGS.join(", ")
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn family_names_are_slugs_or_names_case_and_separators_ignored() {
        let named = |s: &str| family_named(s).map(Family::slug);
        assert_eq!(named("SLIDING-BLOOM"), Ok("sliding"));
        assert_eq!(named("sliding"), Ok("sliding"));
        assert_eq!(named("apbf"), Ok("apbf"));
        assert_eq!(named("APBBF"), Ok("apbbf"));
        assert_eq!(named("partitioned bloom"), Ok("bloom"));
        assert_eq!(named("Compact_SHF"), Ok("compact-shf"));
        for bad in ["--", "", "apb", "slid"] {
            let e = family_named(bad).unwrap_err();
            assert!(
                e.contains("unknown FILTER") && e.contains("queued-qht"),
                "{e}"
            );
        }
        for &f in Family::ALL {
            assert_eq!(family_named(f.slug()), Ok(f));
            assert_eq!(family_named(f.name()), Ok(f));
        }
    }

    #[test]
    fn the_cap_is_checked_before_building() {
        let req = Requirements::count(1 << 30).fpr(1e-3);
        let e = plan_filter(&req, None, 1 << 20).expect_err("over the cap");
        assert!(e.contains("ddf.max-memory"), "{e}");
        let (c, f) = plan_filter(&Requirements::count(1000).fpr(1e-2), None, 1 << 20)
            .expect("a small filter");
        assert_eq!(ddf::DuplicateFilter::memory_bits(&f), c.memory_bits);
    }
}
