//! Property tests: ranges, monotonicity, limits and agreement with naive forms where those are accurate.

use ddf_theory::bloom::{partitioned_fp, slice_fill_ratio, standard_fp};
use ddf_theory::numerics::{find_root, minimize, one_minus_pow1m, pow1m};
use ddf_theory::sliding_bloom::{
    construction_bits, dictionary_bits, lower_bound_bits, optimal_generations, theorem_1_1_bits,
};
use ddf_theory::sliding_window::{
    ep_inf_lower_bound, ep_n_lower_bound, ep_n_paper_form, near_exact_fp,
};
use ddf_theory::stats::{
    binomial_pmf, clopper_pearson_interval, normal_quantile, student_t_quantile, wilson_interval,
    z_for_confidence,
};
use ddf_theory::stream::{
    expected_distinct, expected_duplicates, expected_windowed_duplicate_fraction,
    expected_windowed_duplicates,
};
use proptest::prelude::*;

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Where `1 − x` is exact enough (x not tiny) and n moderate, `powf` is accurate too.
    #[test]
    fn pow1m_agrees_with_naive_powf(x in 1e-3_f64..0.999, n in 0.0_f64..1000.0) {
        let naive = (1.0 - x).powf(n);
        // powf amplifies the rounding of 1 − x by n; allow for it.
        let tolerance = 1e-15 * (1.0 + n);
        prop_assert!(close(pow1m(x, n), naive, tolerance) || naive < 1e-290);
        prop_assert!((pow1m(x, n) + one_minus_pow1m(x, n) - 1.0).abs() <= 2e-16);
    }

    #[test]
    fn pow1m_is_a_probability_and_monotone(x in 0.0_f64..=1.0, n in 0.0_f64..1e12, extra in 0.0_f64..1e6) {
        let p = pow1m(x, n);
        prop_assert!((0.0..=1.0).contains(&p));
        prop_assert!(pow1m(x, n + extra) <= p);
        prop_assert!(one_minus_pow1m(x, n + extra) >= one_minus_pow1m(x, n));
    }

    #[test]
    fn brent_finds_roots_of_known_functions(root in -100.0_f64..100.0, width in 0.1_f64..50.0, skew in 0.0_f64..1.0) {
        let lo = root - width * skew;
        let hi = root + width * (1.0 - skew) + 1e-3;
        let cubic = |x: f64| (x - root) * (x * x + 1.0);
        let found = find_root(cubic, lo, hi, 0.0).unwrap();
        prop_assert!((found - root).abs() <= 1e-13 * root.abs().max(1.0));
        let exp_shift = |x: f64| (x - root).exp_m1();
        let found = find_root(exp_shift, lo, hi, 0.0).unwrap();
        prop_assert!((found - root).abs() <= 1e-13 * root.abs().max(1.0));
    }

    #[test]
    fn brent_minimises_parabolas(vertex in -50.0_f64..50.0, curvature in 0.01_f64..100.0) {
        let m = minimize(|x: f64| curvature * (x - vertex).powi(2) + 3.0, -100.0, 100.0, 1e-12).unwrap();
        prop_assert!((m.arg - vertex).abs() <= 1e-6 * vertex.abs().max(1.0));
        prop_assert!((m.value - 3.0).abs() <= 1e-10);
    }

    #[test]
    fn wilson_contains_the_point_estimate(trials in 1_u64..2_000_000_000, frac in 0.0_f64..=1.0, confidence in 0.5_f64..0.999_999) {
        let successes = ((trials as f64) * frac).floor() as u64;
        let (lo, hi) = wilson_interval(successes, trials, z_for_confidence(confidence));
        let p_hat = successes as f64 / trials as f64;
        prop_assert!(0.0 <= lo && lo <= p_hat && p_hat <= hi && hi <= 1.0, "{lo} {p_hat} {hi}");
    }

    /// Clopper–Pearson is wider than Wilson for small counts at usual levels.
    ///
    /// Not at every level: at 99% and above Wilson is the wider one near 0 and
    /// n (0 of n: Wilson's upper end is z²/(n + z²), Clopper–Pearson's about
    /// ln(2/α)/n, which is smaller once z² > ln(2/α)); at 95% only 0 of n
    /// (n ≥ 46) is an exception. Checked exhaustively for n ≤ 150 offline.
    #[test]
    fn clopper_pearson_is_wider_than_wilson_for_small_counts(trials in 2_u64..150, frac in 0.0_f64..1.0, confidence in 0.5_f64..=0.95) {
        let successes = 1 + ((trials - 1) as f64 * frac).floor() as u64;
        prop_assume!(successes < trials);
        let (w_lo, w_hi) = wilson_interval(successes, trials, z_for_confidence(confidence));
        let (c_lo, c_hi) = clopper_pearson_interval(successes, trials, confidence);
        prop_assert!(c_hi - c_lo >= w_hi - w_lo - 1e-12, "cp {c_lo}..{c_hi} wilson {w_lo}..{w_hi}");
    }

    /// The defining property of Clopper–Pearson: for every p, the interval
    /// covers p with probability at least the confidence level.
    #[test]
    fn clopper_pearson_covers_at_least_the_nominal_level(trials in 1_u64..40, p in 0.001_f64..0.999, confidence in 0.5_f64..0.9999) {
        let coverage: f64 = (0..=trials)
            .filter(|&s| {
                let (lo, hi) = clopper_pearson_interval(s, trials, confidence);
                lo <= p && p <= hi
            })
            .map(|s| binomial_pmf(s, trials, p))
            .sum();
        prop_assert!(coverage >= confidence - 1e-9, "coverage {coverage}");
    }

    #[test]
    fn quantiles_are_monotone_and_t_is_heavier_than_normal(p in 0.5001_f64..0.999_999, df in 1.0_f64..1e6) {
        let z = normal_quantile(p);
        prop_assert!(normal_quantile(p + 1e-5 * (1.0 - p)) > z);
        let t = student_t_quantile(p, df);
        prop_assert!(t >= z * (1.0 - 1e-12), "t {t} z {z}");
    }

    /// Theorem 4 of the sliding-window paper: a probability, falling in M, rising to its asymptote in n.
    #[test]
    fn theorem4_bound_is_a_probability_falling_in_memory(
        log2_gamma in 1.0_f64..64.0,
        memory in 0.0_f64..1e9,
        more_memory in 0.0_f64..1e9,
        extra_items in 1.0_f64..1e12,
    ) {
        let gamma = 2f64.powf(log2_gamma);
        let n = memory + more_memory + extra_items;
        let bound = ep_n_lower_bound(memory, n, gamma);
        prop_assert!((0.0..=1.0).contains(&bound));
        prop_assert!(ep_n_lower_bound(memory + more_memory, n, gamma) <= bound * (1.0 + 1e-12));
        // The finite-n bound lies below its n → ∞ limit.
        prop_assert!(bound <= ep_inf_lower_bound(memory, gamma) * (1.0 + 1e-12) + 1e-300);
        // The bound rises with n.
        prop_assert!(ep_n_lower_bound(memory, n * 2.0, gamma) >= bound * (1.0 - 1e-12));
        // The printed form (the last M stream items kept) never beats the bound.
        let printed = ep_n_paper_form(memory, n, gamma);
        prop_assert!(printed >= bound - 1e-12 * bound.max(1e-300), "printed {printed} bound {bound}");
    }

    #[test]
    fn near_exact_fp_is_about_one_over_w(w in 2.0_f64..1e15) {
        let fp = near_exact_fp(w);
        // 1/w − (w − 1)/(2w³) ≤ FP ≤ 1/w (Bonferroni), up to a few ulps of rounding.
        let upper = 1.0 / w;
        let lower = 1.0 / w - 0.5 / (w * w);
        prop_assert!(fp <= upper * (1.0 + 1e-14) && fp >= lower * (1.0 - 1e-14));
    }

    #[test]
    fn stream_counts_are_consistent(n in 0.0_f64..1e12, log2_u in 0.0_f64..64.0, w in 0.0_f64..1e9) {
        let u = 2f64.powf(log2_u);
        let duplicates = expected_duplicates(n, u);
        prop_assert!(duplicates >= 0.0 && duplicates <= (n - 1.0).max(0.0) * (1.0 + 1e-12));
        // Every item is a first occurrence or a duplicate.
        if n >= 1.0 {
            let distinct = expected_distinct(n, u);
            prop_assert!(close(distinct + duplicates, n, 1e-12));
        }
        let windowed = expected_windowed_duplicates(n, u, w);
        prop_assert!(windowed >= 0.0 && windowed <= duplicates * (1.0 + 1e-12));
        let fraction = expected_windowed_duplicate_fraction(n, u, w);
        prop_assert!((0.0..=1.0).contains(&fraction));
    }

    #[test]
    fn bloom_rates_are_probabilities_rising_with_load(n in 0.0_f64..1e9, extra in 1.0_f64..1e6, m in 1.0_f64..1e9, k in 1.0_f64..30.0) {
        let p = partitioned_fp(n, m, k);
        prop_assert!((0.0..=1.0).contains(&p));
        prop_assert!(partitioned_fp(n + extra, m, k) >= p);
        prop_assert!(slice_fill_ratio(n + extra, m) >= slice_fill_ratio(n, m));
        // At equal memory the unpartitioned filter is never worse.
        prop_assert!(standard_fp(n, k * m, k) <= p * (1.0 + 1e-12));
    }
}

proptest! {
    // Each interval at up to 10^9 trials sums O(√n) binomial terms per evaluation: few cases.
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn clopper_pearson_contains_the_point_estimate(trials in 1_u64..1_000_000_000, frac in 0.0_f64..=1.0) {
        let successes = ((trials as f64) * frac).floor() as u64;
        let (lo, hi) = clopper_pearson_interval(successes, trials, 0.9999);
        let p_hat = successes as f64 / trials as f64;
        prop_assert!(0.0 <= lo && lo <= p_hat && p_hat <= hi && hi <= 1.0, "{lo} {p_hat} {hi}");
    }
}

#[test]
fn one_minus_pow1m_needs_no_precision_from_one_minus_x() {
    // One in a trillion collides, over a billion trials: 1e-3 to first order.
    let p = one_minus_pow1m(1e-12_f64, 1e9);
    assert!(close(p, -(-1e-3_f64).exp_m1(), 1e-12));
    assert_eq!(1.0 - (1.0 - 1e-17_f64).powf(1e9), 0.0);
    assert!(close(one_minus_pow1m(1e-17_f64, 1e9), 1e-8, 1e-8));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Theorem 1.1's construction never beats Theorem 1.2's bound, and both
    /// grow as ε shrinks or the slack tightens.
    #[test]
    fn sliding_bloom_bounds_are_ordered(
        n in 1e3_f64..1e9,
        k in 2.0_f64..30.0,
        slack_fraction in 1e-4_f64..4.0,
    ) {
        let eps = 2f64.powf(-k);
        for m in [n * slack_fraction, f64::INFINITY] {
            let lower = lower_bound_bits(n, m, eps);
            prop_assert!(theorem_1_1_bits(n, m, eps) >= lower);
            prop_assert!(lower_bound_bits(n, m, eps / 2.0) > lower);
            prop_assert!(lower_bound_bits(n, m / 2.0, eps) >= lower);
        }
        let c = optimal_generations(eps);
        prop_assert!(c >= 1.0 && c <= k + 1.0, "c = {c}");
        prop_assert!(construction_bits(n, c, eps) <= construction_bits(n, c.round().max(1.0), eps) * (1.0 + 1e-12));
    }

    #[test]
    fn dictionary_bits_grow_with_the_universe(big_m in 10_u64..1_000_000_000, frac in 0.0_f64..1.0, extra in 1_u64..1000) {
        let n = ((big_m as f64) * frac).floor() / 2.0;
        let n = n.floor();
        prop_assert!(dictionary_bits((big_m + extra) as f64, n) >= dictionary_bits(big_m as f64, n));
        // ℬ(M, n) ≤ n·log2(e·M/n).
        if n >= 1.0 {
            prop_assert!(dictionary_bits(big_m as f64, n) <= n * (std::f64::consts::E * big_m as f64 / n).log2() + 1.0);
        }
    }

    /// F is a probability, grows with any slice's match probability, and
    /// Algorithm 1's two outcomes exhaust it.
    #[test]
    fn apbf_recursions_are_consistent(
        k in 1_usize..8,
        l in 1_usize..10,
        seed in prop::collection::vec(0.0_f64..=1.0, 18),
        bump in 0_usize..18,
    ) {
        use ddf_theory::apbf::{false_positive, query_cost};
        let r: Vec<f64> = seed[..k + l].to_vec();
        let f = false_positive(k, &r);
        prop_assert!((0.0..=1.0 + 1e-12).contains(&f));
        let q = query_cost(k, &r);
        prop_assert!((q.p_true - f).abs() <= 1e-12);
        prop_assert!((q.p_true + q.p_false - 1.0).abs() <= 1e-12);
        if q.p_false > 1e-9 {
            prop_assert!(q.accesses_false >= 1.0 - 1e-9);
        }
        if q.p_true > 1e-9 {
            prop_assert!(q.accesses_true >= k as f64 - 1e-9);
        }
        let mut higher = r.clone();
        let i = bump % (k + l);
        higher[i] = (higher[i] + 0.3).min(1.0);
        prop_assert!(false_positive(k, &higher) >= f - 1e-12);
    }

    /// More decrements keep more cells at zero: a lower stable rate.
    #[test]
    fn stable_bloom_rate_falls_with_decrements(m in 100.0_f64..1e7, k in 1.0_f64..8.0, p in 1.0_f64..100.0, d in 1_u32..8) {
        use ddf_theory::stable_bloom::{any_probe_rate, stable_fp};
        prop_assume!(k < m);
        let max = f64::from((1u32 << d) - 1);
        let fp = stable_fp(m, k, p, max);
        prop_assert!((0.0..=1.0).contains(&fp));
        prop_assert!(stable_fp(m, k, p + 1.0, max) <= fp);
        prop_assert!(any_probe_rate(m, k, p, max) >= fp - 1e-15);
    }

    /// A blocked filter is a probability that grows with its load.
    #[test]
    fn blocked_rate_grows_with_load(lambda in 0.0_f64..200.0, extra in 0.0_f64..50.0, wide in any::<bool>(), b in 1_u32..4) {
        use ddf_theory::blocked_bloom::blocked_fp;
        let block = if wide { 512 } else { 64 };
        let b = 1 << b;
        let p = blocked_fp(lambda, block, b);
        prop_assert!((0.0..=1.0 + 1e-12).contains(&p));
        prop_assert!(blocked_fp(lambda + extra, block, b) >= p - 1e-12);
    }
}

mod qht_properties {
    use ddf_theory::qht::{
        fnr_inf, fnr_inf_limit, fp_m, fp_m_first_empty, fpr_inf, qhtd_fp_m, qhtd_fpr_inf,
        qqhtd_fnr_inf, sqf_fpr_inf, sqf_fpr_inf_approx,
    };
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Both FP_m curves rise from 0 towards k/S; filling empty cells first
        /// never errs less than the full-row model.
        #[test]
        fn fp_curves_rise_to_k_over_s(
            rows in 1u32..2000, k in 1u32..17, extra in 0u32..64, m in 0u32..200_000, dm in 1u32..5000,
        ) {
            let s = f64::from(k + extra);
            let (rows, k, m) = (f64::from(rows), f64::from(k), f64::from(m));
            let limit = fpr_inf(k, s);
            let paper = fp_m(m, rows, k, s);
            let exact = fp_m_first_empty(m, rows, k, s);
            prop_assert!((0.0..=limit * (1.0 + 1e-12)).contains(&paper));
            prop_assert!((0.0..=limit * (1.0 + 1e-12)).contains(&exact));
            prop_assert!(exact >= paper * (1.0 - 1e-9) - 1e-15);
            prop_assert!(fp_m_first_empty(m + f64::from(dm), rows, k, s) >= exact * (1.0 - 1e-12));
            let qhtd = qhtd_fp_m(m, rows, k, s);
            prop_assert!((0.0..=qhtd_fpr_inf(k, s) * (1.0 + 1e-12)).contains(&qhtd));
        }

        /// FNR_∞ lies below its U → ∞ limit and grows with the alphabet.
        #[test]
        fn fnr_inf_grows_with_the_alphabet(
            rows in 2u32..5000, k in 1u32..9, extra in 1u32..60, u in 10.0f64..1e9, factor in 1.0f64..100.0,
        ) {
            let (rows, k, s) = (f64::from(rows), f64::from(k), f64::from(k + extra));
            let f = fnr_inf(rows, k, s, u);
            prop_assert!(f >= 0.0 && f <= fnr_inf_limit(k, s) + 1e-12);
            prop_assert!(fnr_inf(rows, k, s, u * factor) >= f - 1e-12);
            let q = qqhtd_fnr_inf(rows, k, s, u);
            prop_assert!((0.0..=1.0).contains(&q));
        }

        /// SQF's exact asymptotic FPR is a probability, grows with k, and
        /// reaches 1 once a row can hold every fingerprint.
        #[test]
        fn sqf_fpr_is_monotone_in_k(r in 2u32..14, rp in 1u32..6, k in 1u32..40) {
            prop_assume!(rp < r);
            let p = sqf_fpr_inf(f64::from(k), r, rp);
            let next = sqf_fpr_inf(f64::from(k + 1), r, rp);
            prop_assert!(p > 0.0 && p <= 1.0 + 1e-12);
            prop_assert!(next >= p - 1e-12);
            prop_assert!(sqf_fpr_inf_approx(f64::from(k), r, rp) > 0.0);
        }
    }
}

proptest! {
    /// Nodes sized by `merge::node_capacity` at the combined rate hold
    /// at least the combined stream's mean arrivals, more than any share.
    #[test]
    fn node_capacity_covers_the_combined_stream(
        rates in proptest::collection::vec(0.0f64..1e4, 1..16), span in 1.0f64..1e5,
    ) {
        use ddf_theory::merge::{combined_rate, node_capacity};
        let total = combined_rate(&rates);
        prop_assert!((total - rates.iter().sum::<f64>()).abs() <= 1e-9 * total.max(1.0));
        let c = node_capacity(total, span, 1e-9);
        prop_assert!(c >= total * span);
        for r in &rates {
            prop_assert!(c >= node_capacity(*r, span, 1e-9) - 1e-6);
        }
    }
}
