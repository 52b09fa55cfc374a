//! The plan's rules: generations, tag and remainder widths, layouts and their refusals.

use super::shape::remainder_bits;
use super::*;

fn count(n: u64, slack: Slack, fpr: f64) -> Result<Plan, ParamError> {
    Plan::new(Request::count(n, slack, None, fpr))
}

/// Lines from a word table of 8 MiB on, within a quarter more space;
/// never for a rate their remainders miss, in the caches, or when the
/// least space is asked for.
#[test]
fn lines_beyond_the_caches_within_the_margin() {
    let w = 1 << 22;
    let least = |r: Request| Plan::new(r.with_choice(LayoutChoice::LeastSpace)).unwrap();
    for request in [
        Request::count(w, Slack::AtMost(w), None, 1e-3),
        Request::time(w / 64, Slack::AtMost(w / 64), w, 1e-3),
    ] {
        let auto = Plan::new(request).unwrap();
        let words = Plan::new(request.with_choice(LayoutChoice::Words)).unwrap();
        assert_eq!(auto.layout, Layout::Line);
        assert_ne!(words.layout, Layout::Line);
        assert!(words.table_bits() >= BEYOND_CACHE_BITS);
        assert!(auto.table_bits() as f64 <= words.table_bits() as f64 * (1.0 + LINE_SPACE_MARGIN));
        assert!(auto.false_positive_bound() <= 1e-3);
        let least = least(request);
        assert_ne!(least.layout, Layout::Line);
        assert!(least.table_bits() < words.table_bits());
    }
    let in_cache = Request::count(1 << 18, Slack::AtMost(1 << 18), None, 1e-3);
    assert_ne!(Plan::new(in_cache).unwrap().layout, Layout::Line);
    let tighter = Request::count(w, Slack::AtMost(w), None, 1e-8);
    assert_ne!(Plan::new(tighter).unwrap().layout, Layout::Line);
}

/// Rates 16-bit remainders miss get wide lines: 16 cells of `32 − s`
/// remainder bits, within the margin of the word layout; the default of
/// the front ends (1e-6, a slack of 1 %) among them.
#[test]
fn tight_rates_get_wide_lines() {
    let w = 1 << 24;
    for (slack, fpr) in [(w, 1e-6), (w / 100, 1e-6), (w / 100, 1e-5), (w, 1e-7)] {
        let request = Request::count(w, Slack::AtMost(slack), None, fpr);
        let p = Plan::new(request).unwrap();
        assert_eq!(p.layout, Layout::Line, "slack {slack}, fpr {fpr}");
        let shape = p.line_shape().unwrap();
        assert!(shape.is_wide());
        assert_eq!(p.cells_per_bucket, 16);
        assert_eq!(p.remainder_bits, 32 - p.tag_bits);
        assert!(p.false_positive_bound() <= fpr);
        let words = Plan::new(request.with_choice(LayoutChoice::Words)).unwrap();
        assert!(p.table_bits() as f64 <= words.table_bits() as f64 * (1.0 + LINE_SPACE_MARGIN));
    }
    // More than 32 − s bits: no line at all.
    let mut request = Request::count(1 << 20, Slack::AtMost(1 << 20), None, 1e-9);
    request.layout = Some(Layout::Line);
    let err = Plan::new(request).unwrap_err();
    assert_eq!(err.param(), "fpr");
    assert!(err.expected().contains("bits"), "{err}");
}

#[test]
fn least_space_picks_about_log_inverse_epsilon_generations() {
    for (k, lo, hi) in [(4, 2, 16), (8, 4, 32), (12, 6, 40)] {
        let p = count(1_000_000, Slack::LeastSpace, 2f64.powi(-k)).unwrap();
        assert!(
            (lo..=hi).contains(&p.generations),
            "k = {k}: c = {}",
            p.generations
        );
        assert!(p.false_positive_bound() <= 2f64.powi(-k));
        // Load of the most active entries at most the design load.
        let load = p.max_active as f64 / p.cells() as f64;
        assert!(
            load <= DESIGN_LOAD && load > DESIGN_LOAD - 0.01,
            "load {load}"
        );
        assert_eq!(p.tag_modulus, 1 << p.tag_bits);
        // The ages of the active generations and a sweep fit the tag;
        // one bit fewer would not.
        let sweep = p.sweep_generations;
        assert!(sweep >= (p.generations + 1).div_ceil(SCAN_SPEEDUP));
        assert_eq!(p.generations + sweep + 1, u64::from(p.tag_modulus));
        assert!(
            p.generations + 1 + (p.generations + 1).div_ceil(SCAN_SPEEDUP) > 1 << (p.tag_bits - 1)
        );
    }
}

#[test]
fn slack_is_kept_for_every_small_case() {
    for n in 1..=60u64 {
        for m in 0..=70u64 {
            let p = count(n, Slack::AtMost(m), 2f64.powi(-6)).unwrap();
            let c = p.generations;
            assert!(p.slack <= m, "n = {n}, m = {m}: c = {c}, slack {}", p.slack);
            assert!(c * p.generation_len >= n, "window covered");
            assert_eq!(p.slack, (c + 1) * n.div_ceil(c) - 1 - n);
        }
    }
}

#[test]
fn the_breakdown_sums_to_memory() {
    for (n, slack, k) in [
        (1u64 << 16, Slack::LeastSpace, 4),
        (1_000_000, Slack::AtMost(15_625), 12),
        (10, Slack::AtMost(0), 8),
    ] {
        let p = count(n, slack, 2f64.powi(-k)).unwrap();
        let b = p.breakdown();
        let sum = b.fingerprint
            + b.extra_generation
            + b.tags
            + b.bucket_compare
            + b.unused_cells
            + b.padding
            + b.stash
            + b.counters;
        assert!((sum - b.total).abs() < 1e-9 * b.total, "{b:?}");
        assert_eq!(b.total, p.memory_bits() as f64 / n as f64);
        assert!(b.bucket_compare > 0.0 && b.unused_cells > 0.0);
    }
}

#[test]
fn zero_slack_means_one_insertion_per_generation() {
    let p = count(100, Slack::AtMost(0), 0.01).unwrap();
    assert_eq!((p.generations, p.generation_len, p.slack), (100, 1, 0));
}

#[test]
fn time_slack_zero_is_impossible() {
    let err = Plan::new(Request::time(1000, Slack::AtMost(0), 100, 0.01)).unwrap_err();
    assert_eq!(err.param(), "slack");
    let p = Plan::new(Request::time(1000, Slack::AtMost(1), 100, 0.01)).unwrap();
    assert_eq!((p.generations, p.generation_len, p.slack), (1000, 1, 1));
}

#[test]
fn remainder_bits_meet_epsilon_exactly() {
    for (active, buckets, eps) in [
        (1000u64, 266u64, 2f64.powi(-8)),
        (5, 2, 0.5),
        (1 << 20, 1 << 18, 1e-6),
    ] {
        let r = remainder_bits(active, buckets, eps);
        let bound = |r: u32| 2.0 * active as f64 / (buckets as f64 * (2f64.powi(r as i32) - 1.0));
        assert!(bound(r) <= eps);
        assert!(r == 1 || bound(r - 1) > eps);
    }
}

#[test]
fn impossible_requests_name_their_parameter() {
    assert_eq!(
        count(0, Slack::LeastSpace, 0.01).unwrap_err().param(),
        "window"
    );
    assert_eq!(
        count(10, Slack::LeastSpace, 0.0).unwrap_err().param(),
        "fpr"
    );
    assert_eq!(
        count(10, Slack::LeastSpace, 1.0).unwrap_err().param(),
        "fpr"
    );
    assert_eq!(
        count(10, Slack::LeastSpace, 1e-12).unwrap_err().param(),
        "fpr"
    );
    assert_eq!(
        count(1 << 40, Slack::LeastSpace, 0.01).unwrap_err().param(),
        "capacity"
    );
    // A zero slack over a large window needs tags wider than a cell.
    assert_eq!(
        count(1 << 28, Slack::AtMost(0), 0.01).unwrap_err().param(),
        "slack"
    );
    let fixed = Plan::new(Request::count(100, Slack::AtMost(5), Some(4), 0.01));
    assert_eq!(fixed.unwrap_err().param(), "generations");
}

/// Least-space plans: packed or aligned, whichever is smaller, at
/// [`LEAST_SPACE_LOAD`], with `(B, r)` fitted for the fewest bits. They keep
/// the rate bound and the load, and never take more bits than the rule by
/// the load would at the same load and layout.
#[test]
fn least_space_plans_keep_rate_and_load_in_fewer_bits() {
    let mut narrower = 0;
    for n in [1_000u64, 65_536, 1_000_000] {
        for fpr in [
            0.0625,
            1.97654e-2,
            1.7993e-3,
            2f64.powi(-12),
            1.226e-4,
            9e-7,
        ] {
            for slack in [
                Slack::LeastSpace,
                Slack::AtMost(n / 4),
                Slack::AtMost(n / 64),
            ] {
                let request = Request::count(n, slack, None, fpr);
                let Ok(least) = Plan::new(request.with_choice(LayoutChoice::LeastSpace)) else {
                    continue;
                };
                let at = format!("n {n}, fpr {fpr}, {slack:?}");
                assert_ne!(least.layout, Layout::Line, "{at}");
                assert_eq!(least.request.load, LEAST_SPACE_LOAD, "{at}");
                assert!(least.false_positive_bound() <= fpr, "{at}");
                assert!(least.max_active as f64 <= LEAST_SPACE_LOAD * least.cells() as f64);
                let by_load = Plan::new(Request {
                    fit: Fit::Load,
                    layout: Some(least.layout),
                    ..least.request
                })
                .unwrap();
                assert!(least.table_bits() <= by_load.table_bits(), "{at}");
                assert!(
                    least.table_bits() < Plan::new(request).unwrap().table_bits(),
                    "{at}"
                );
                narrower += usize::from(least.remainder_bits < by_load.remainder_bits);
            }
        }
    }
    // Somewhere the rounding of `r` is worth more buckets.
    assert!(narrower > 0);
}
