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

/// The exact window without a plan: the front ends build it by window
/// (`ddf dedup --exact`, the command's shards), the planner by its
/// [`Config`].
impl crate::Filter {
    /// The exact window (Theorem 1) over `window`: the last `w`
    /// insertions, every item of the last `t` time units (no cap: its
    /// memory follows the arrival rate), or the whole stream (an exact
    /// set). Fails as [`ExactWindow::new`](ddf_exact::ExactWindow::new)
    /// and [`with_time_span`](ddf_exact::ExactWindow::with_time_span) do.
    ///
    /// ```
    /// use ddf::{Filter, Window, Windowed};
    ///
    /// let f = Filter::exact(Window::Count(1_000))?;
    /// assert_eq!(f.window(), Window::Count(1_000));
    /// assert!(Filter::exact(Window::Count(0)).is_err());
    /// # Ok::<(), ddf::ParamError>(())
    /// ```
    pub fn exact(window: ddf_core::Window) -> Result<Self, ParamError> {
        use ddf_core::Window;
        use ddf_exact::ExactWindow;
        Ok(Self::from(match window {
            Window::Count(w) => ExactWindow::new(w)?,
            Window::Time(t) => ExactWindow::with_time_span(t, u64::MAX)?,
            Window::Unbounded => ExactWindow::unbounded(),
        }))
    }

    /// The exact window over the last `span` time units holding at most
    /// `capacity` items (an item beyond it evicts the oldest early); fails
    /// as [`ExactWindow::with_time_span`](ddf_exact::ExactWindow::with_time_span)
    /// does.
    pub fn exact_time(span: u64, capacity: u64) -> Result<Self, ParamError> {
        ddf_exact::ExactWindow::with_time_span(span, capacity).map(Self::from)
    }

    /// The exact window's state for a count window of `w` items, at the
    /// full window ([`ExactWindow::sizing`](ddf_exact::ExactWindow::sizing)):
    /// what [`exact`](Self::exact) reaches, allocating nothing.
    pub fn exact_sizing(w: u64) -> Result<ddf_core::Prediction, ParamError> {
        ddf_exact::ExactWindow::sizing(w)
    }
}
