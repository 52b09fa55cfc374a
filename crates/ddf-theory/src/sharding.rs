//! Sharding a windowed filter across threads (`ddf::Shared`).
//!
//! A sharded front sends each item to one of `S` shards by its digest, and
//! every shard is its own filter. What happens to each window kind:
//!
//! - **Time window `t`**: unchanged. An item and its repeats go to the same
//!   shard, and "within the last `t` time units" does not depend on which
//!   other items the shard saw. Each shard sees a thinned Poisson stream of
//!   rate `λ/S`, so it is sized for that rate.
//! - **Count window `w`** over the merged stream: the last `w` merged items
//!   fall into the shards as a multinomial, each shard's share
//!   `N_j ~ Binomial(w, 1/S)` (digest bits are independent of the items'
//!   order). If every shard remembers its last `w_s` insertions, every item
//!   of the last `w` merged ones is remembered unless some `N_j > w_s`. By
//!   the union bound over shards,
//!
//!   `P(some N_j > w_s) ≤ S · P(Binomial(w, 1/S) > w_s)`,
//!
//!   so [`shard_window`] picks the smallest `w_s` with
//!   `P(Binomial(w, 1/S) > w_s) ≤ δ/S`: at any given moment, with
//!   probability at least `1 − δ`, no item of the last `w` merged items is
//!   outside its shard's window (no false negative where the shard's filter
//!   promises none). A single repeat at merged distance `g ≤ w` is missed
//!   with probability at most `δ/S`.
//! - **False positives**: an item unseen within the window goes to one shard
//!   and is reported with that shard's rate, so the sharded rate is the
//!   per-shard rate (each shard sized for `w_s`).
//! - **Slack** (in merged items) becomes random: a shard forgets after
//!   `w_s + s_s` of its own insertions, about `S·(w_s + s_s)` merged items,
//!   so the expected merged slack is [`merged_slack`]`= S·(w_s + s_s) − w`.
//!
//! Memory is `S` shards of a filter for `w_s ≥ w/S` items: a little more than
//! one filter for `w`, the price of the `1 − δ` promise.

use crate::stats::{binomial_sf, binomial_upper_quantile};

/// The per-shard count window `w_s`: the smallest with
/// `P(Binomial(w, 1/S) > w_s) ≤ δ/S` (module docs). `None` unless
/// `window ≥ 1`, `shards ≥ 1` and `0 < delta < 1`. One shard needs `w`.
///
/// ```
/// use ddf_theory::sharding::{shard_window, shard_window_miss_bound};
/// let ws = shard_window(100_000, 8, 1e-6).unwrap();
/// // A little above the mean share of 12_500.
/// assert!(ws > 12_500 && ws < 13_500);
/// assert!(shard_window_miss_bound(100_000, 8, ws) <= 1e-6);
/// ```
pub fn shard_window(window: u64, shards: u64, delta: f64) -> Option<u64> {
    if window == 0 || shards == 0 || !(delta > 0.0 && delta < 1.0) {
        return None;
    }
    if shards == 1 {
        return Some(window);
    }
    let p = 1.0 / shards as f64;
    Some(binomial_upper_quantile(window, p, delta / shards as f64).max(1))
}

/// The union bound `min(1, S · P(Binomial(w, 1/S) > w_s))` on the
/// probability that, at a given moment, some item of the last `w` merged
/// items is outside its shard's window of `w_s` (module docs).
pub fn shard_window_miss_bound(window: u64, shards: u64, shard_window: u64) -> f64 {
    if shards <= 1 {
        return if shard_window >= window { 0.0 } else { 1.0 };
    }
    let p = 1.0 / shards as f64;
    (shards as f64 * binomial_sf(shard_window, window, p)).min(1.0)
}

/// A lower bound on the same probability: `1 − (1 − q)^S` with
/// `q = P(Binomial(w, 1/S) > w_s)`. Multinomial shares are negatively
/// associated, so `P(every N_j ≤ w_s) ≤ (1 − q)^S`. With
/// [`shard_window_miss_bound`] it brackets the true probability:
/// `1 − (1 − q)^S ≤ P ≤ S·q`.
pub fn shard_window_miss_lower(window: u64, shards: u64, shard_window: u64) -> f64 {
    if shards <= 1 {
        return if shard_window >= window { 0.0 } else { 1.0 };
    }
    let q = binomial_sf(shard_window, window, 1.0 / shards as f64);
    // `1 − (1 − q)^S`, computed without cancellation for tiny `q`.
    -((-q).ln_1p() * shards as f64).exp_m1()
}

/// The expected slack in merged items of `S` shards that each remember
/// `w_s + s_s` of their own insertions, for a merged window `w`:
/// `S·(w_s + s_s) − w` (saturating at 0 and `u64::MAX`).
pub fn merged_slack(window: u64, shards: u64, shard_window: u64, shard_slack: u64) -> u64 {
    shards
        .saturating_mul(shard_window.saturating_add(shard_slack))
        .saturating_sub(window)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_shard_is_the_window_itself() {
        assert_eq!(shard_window(1000, 1, 0.01), Some(1000));
        assert_eq!(shard_window_miss_bound(1000, 1, 1000), 0.0);
    }

    #[test]
    fn invalid_inputs_give_none() {
        assert_eq!(shard_window(0, 4, 0.1), None);
        assert_eq!(shard_window(10, 0, 0.1), None);
        assert_eq!(shard_window(10, 4, 0.0), None);
        assert_eq!(shard_window(10, 4, 1.0), None);
        assert_eq!(shard_window(10, 4, f64::NAN), None);
    }

    #[test]
    fn the_shard_window_is_the_smallest_meeting_delta() {
        for &(w, s, d) in &[(1000, 2, 0.05), (1000, 16, 1e-3), (1 << 20, 64, 1e-9)] {
            let ws = shard_window(w, s, d).unwrap();
            assert!(shard_window_miss_bound(w, s, ws) <= d);
            assert!(shard_window_miss_bound(w, s, ws - 1) > d);
            assert!(ws >= w / s && ws <= w);
            let lower = shard_window_miss_lower(w, s, ws);
            assert!(lower <= shard_window_miss_bound(w, s, ws));
        }
    }

    #[test]
    fn more_shards_never_need_a_larger_shard_window_in_total_below_w() {
        // Each shard's window shrinks as shards are added.
        let mut last = u64::MAX;
        for s in [1, 2, 4, 8, 16, 32] {
            let ws = shard_window(100_000, s, 1e-6).unwrap();
            assert!(ws < last);
            last = ws;
        }
    }

    #[test]
    fn merged_slack_saturates() {
        assert_eq!(merged_slack(100, 4, 30, 5), 40);
        assert_eq!(merged_slack(100, 4, 20, 0), 0);
        assert_eq!(merged_slack(1, u64::MAX, 2, 0), u64::MAX - 1);
    }
}
