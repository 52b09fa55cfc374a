//! Merging filters kept on several nodes over shares of one stream
//! (`ddf::Filter::merge`, `ddf merge`, `Dedup.merge`, `DDF.MERGE`).
//!
//! `N` nodes each keep a filter over their share of the stream; merging
//! the filters answers "seen on any node within the window". What holds:
//!
//! - **No false negative.** A merged filter reports every item either side
//!   reported: Bloom-type state (APBF and APBBF segments, the partitioned
//!   Bloom filter) is the bitwise union, which only adds bits; the sliding
//!   Bloom filter keeps each entry at the younger of its two ages; the
//!   exact window replays both sides' items in time order. An item seen by
//!   any node within the window is reported by the merge, under each
//!   family's own condition (no early close since its latest occurrence).
//! - **False positives at the combined rate.** The union of the nodes'
//!   states is the state of one filter that saw the combined stream (bit
//!   for bit for the age-partitioned filters, whose generations sit on the
//!   grid `⌊t/τ⌋` of the shared clock). Its false-positive rate is the
//!   family's prediction at the combined arrival rate `λ = Σ λᵢ`
//!   ([`combined_rate`]), not at one node's share.
//! - **Sizing for `N` nodes.** So every node is sized for the whole
//!   stream: a time window `t` at the combined rate, a capacity of
//!   [`node_capacity`] items per window (the Poisson bound of
//!   [`poisson_arrival_bound`](crate::stream::poisson_arrival_bound) at
//!   `λ·t`), and a whole-stream filter for the distinct items of all nodes.
//!   A node sized for its share alone would fill past its design when
//!   merged: the merged rate would exceed the prediction, and a time
//!   window's generations would close early.
//! - **What never merges.** A count window (the last `w` insertions) is a
//!   property of one stream's order: two nodes' last `w` items are not the
//!   last `w` of the union. Filters whose state is what one stream left
//!   behind (QHT rows, cuckoo buckets, decaying cells) have no union of the
//!   same size either.

/// The arrival rate of the combined stream of nodes with rates `rates`:
/// their sum, the rate every node's filter is sized for. NaN if a rate is
/// negative or not finite.
///
/// ```
/// use ddf_theory::merge::combined_rate;
/// assert_eq!(combined_rate(&[100.0, 250.0, 650.0]), 1_000.0);
/// assert!(combined_rate(&[1.0, -1.0]).is_nan());
/// ```
pub fn combined_rate(rates: &[f64]) -> f64 {
    if rates.iter().any(|r| !(r.is_finite() && *r >= 0.0)) {
        return f64::NAN;
    }
    rates.iter().sum()
}

/// The capacity (items per window) each of the nodes of a merged time
/// window is sized for: arrivals of the combined stream, rate `rate` per
/// time unit over a window of `span` units, exceeded with probability at
/// most `tail`: `poisson_arrival_bound(rate·span, tail)`. NaN as that bound.
///
/// ```
/// use ddf_theory::merge::node_capacity;
/// // 8 nodes of 125 items/s each, a 60 s window: sized for 60,000 and some.
/// let c = node_capacity(8.0 * 125.0, 60.0, 1e-9);
/// assert!(c > 60_000.0 && c < 62_000.0);
/// ```
pub fn node_capacity(rate: f64, span: f64, tail: f64) -> f64 {
    crate::stream::poisson_arrival_bound(rate * span, tail)
}
