//! The one place that turns `DDF.RESERVE` arguments into a filter: the
//! library's front door ([`ddf::Request`]) chooses it, or refuses in the
//! command's words ([`VOCABULARY`]); this module adds the per-key cap.

use ddf::request::Vocabulary;
use ddf::{Choice, Filter, Request};

/// The filter a key stores: any family the planner offers.
pub(crate) type Inner = Filter;

/// How `DDF.RESERVE` spells each field of a request.
pub(crate) const VOCABULARY: Vocabulary = Vocabulary {
    arguments: "arguments",
    window: "WINDOW",
    within: "WITHIN",
    rate: "RATE",
    capacity: "CAPACITY",
    fpr: "ERROR",
    max_memory: "MAXMEMORY",
    misses_ok: "MISSES-OK",
    distinct: "DISTINCT",
    slack: "SLACK",
    family: "FILTER",
    exact: "EXACT",
};

/// The filter `req` gets, and the filter built from it.
///
/// A choice whose state exceeds `cap_bytes` (the module's per-key cap) is an
/// error, checked before anything is allocated.
pub(crate) fn plan_filter(req: &Request, cap_bytes: u64) -> Result<(Choice, Inner), String> {
    let chosen = req.choose(&VOCABULARY).map_err(|e| e.to_string())?;
    let bytes = chosen.memory_bits.div_ceil(8);
    if bytes > cap_bytes {
        return Err(format!(
            "the {} filter needs {bytes} bytes, over ddf.max-memory = {cap_bytes}",
            chosen.family
        ));
    }
    let filter = chosen
        .build()
        .map_err(|e| format!("cannot build the {} filter: {e}", chosen.family))?;
    Ok((chosen, filter))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_is_checked_before_building() {
        let req = Request {
            window: Some(1 << 30),
            fpr: Some(1e-3),
            ..Request::default()
        };
        let e = plan_filter(&req, 1 << 20).expect_err("over the cap");
        assert!(e.contains("ddf.max-memory"), "{e}");
        let small = Request {
            window: Some(1000),
            fpr: Some(1e-2),
            ..Request::default()
        };
        let (c, f) = plan_filter(&small, 1 << 20).expect("a small filter");
        assert_eq!(ddf::DuplicateFilter::memory_bits(&f), c.memory_bits);
    }

    #[test]
    fn refusals_name_the_arguments() {
        let e = plan_filter(
            &Request {
                max_memory: Some(1 << 20),
                ..Request::default()
            },
            1 << 30,
        )
        .unwrap_err();
        assert!(e.contains("MISSES-OK") && e.contains("DISTINCT"), "{e}");
    }
}
