//! SHF and Compact SHF.

use super::*;

/// SHF: count windows only.
pub(crate) fn candidate(n: &Need) -> Result<Candidate, String> {
    count_only(n).and_then(|w| shf(n, w, false))
}

/// Compact SHF: count windows only.
pub(crate) fn compact(n: &Need) -> Result<Candidate, String> {
    count_only(n).and_then(|w| shf(n, w, true))
}

/// SHF or CSHF: the family's hash width for the goal, then its sizing.
fn shf(need: &Need, w: u64, compact: bool) -> Result<Candidate, String> {
    use ddf_shf::{CompactShf, Shf};
    let goal = need.goal;
    let (h, p) = if compact {
        let h = CompactShf::parameters_for(goal, w).map_err(why)?;
        (h, CompactShf::sizing(w, h).map_err(why)?)
    } else {
        let h = Shf::parameters_for(goal, w).map_err(why)?;
        (h, Shf::sizing(w, h).map_err(why)?)
    };
    let config = if compact {
        Config::CompactShf {
            window: w,
            hash_bits: h,
        }
    } else {
        Config::Shf {
            window: w,
            hash_bits: h,
        }
    };
    Ok(Candidate::new(config, p, Some(w), need.seed))
}
