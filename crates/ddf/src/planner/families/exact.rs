//! The exact window (Theorem 1).

use super::*;

/// Count windows only.
pub(crate) fn candidate(n: &Need) -> Result<Candidate, String> {
    count_only(n).and_then(|w| window(n, w))
}

/// Theorem 1's FIFO and counting dictionary ([`ddf_exact::ExactWindow::sizing`]).
fn window(need: &Need, w: u64) -> Result<Candidate, String> {
    let p = ddf_exact::ExactWindow::sizing(w).map_err(why)?;
    Ok(Candidate::new(
        Config::Exact { window: w },
        p,
        Some(w),
        need.seed,
    ))
}
