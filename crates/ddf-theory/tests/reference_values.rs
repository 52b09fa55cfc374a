//! Pins the numerics against values computed in 40- to 60-digit arithmetic (mpmath).
//!
//! Each reference was computed from the mathematical definition (incomplete
//! beta integrals, direct binomial sums, quadrature of the t density), not
//! from the algorithms under test.

// References are quoted with the digits they were computed to; the compiler rounds them to f64.
#![allow(clippy::excessive_precision)]

use approx::assert_relative_eq;
use ddf_theory::numerics::{ln_binomial, ln_gamma, regularized_beta};
use ddf_theory::sliding_window::{
    ep_inf_lower_bound, ep_inf_paper_form, ep_n_lower_bound, ep_n_paper_form, near_exact_fp,
};
use ddf_theory::stats::{clopper_pearson_interval, student_t_quantile, student_t_sf};
use ddf_theory::stream::{
    expected_duplicate_fraction, expected_duplicates, expected_windowed_duplicates,
};

#[test]
fn ln_gamma_references() {
    let cases = [
        (0.1, 2.252_712_651_734_206),
        (3.7, 1.428_072_326_665_387_9),
        (9.99, 12.779_315_214_350_193),
        (10.01, 12.824_350_262_448_248),
        (150.5, 602.513_954_870_585_4),
        (1e6, 12_815_504.569_147_612),
    ];
    for (x, reference) in cases {
        assert_relative_eq!(ln_gamma(x), reference, max_relative = 1e-14);
    }
    assert_relative_eq!(
        ln_binomial(1_000_000_000_000_000, 123_456),
        2_940_114.686_118_675,
        max_relative = 1e-14
    );
}

#[test]
fn incomplete_beta_references() {
    let cases = [
        (0.5, 5e4, 2e-5, 0.842_701_830_736_187_2),
        (50.0, 70.0, 0.4, 0.359_134_608_834_494_5),
        (1000.0, 1000.0, 0.49, 0.185_552_659_431_511_66),
        (3.0, 1e5, 1e-5, 0.080_304_156_195_560_49),
    ];
    for (a, b, x, reference) in cases {
        assert_relative_eq!(regularized_beta(a, b, x), reference, max_relative = 1e-12);
    }
}

#[test]
fn student_t_references() {
    let sf_cases = [
        (2.5, 4.0, 0.033_383_272_405_994_07),
        (10.0, 3.0, 0.001_064_199_529_207_075),
        (0.3, 50.0, 0.382_710_440_127_651_6),
        (6.0, 1000.0, 1.377_684_586_688_734_6e-9),
    ];
    for (t, df, reference) in sf_cases {
        assert_relative_eq!(student_t_sf(t, df), reference, max_relative = 1e-12);
    }
    // (df, upper tail mass, quantile): every branch of student_t_quantile.
    let quantile_cases = [
        (3.0, 0.025, 3.182_446_305_283_709_6),
        (3.0, 5e-5, 28.000_130_010_948_975),
        (3.0, 1e-12, 10_331.108_244_292_486),
        (5.0, 0.025, 2.570_581_835_636_315_5),
        (5.0, 5e-5, 11.177_710_070_278_614),
        (5.0, 1e-12, 393.956_959_577_603_77),
        (29.0, 0.025, 2.045_229_642_132_704_3),
        (29.0, 5e-5, 4.505_511_631_210_961_6),
        (29.0, 1e-12, 11.613_158_011_561_407),
        (100.0, 0.025, 1.983_971_518_523_552_3),
        (100.0, 5e-5, 4.053_336_701_201_518),
        (100.0, 1e-12, 8.025_825_594_493_253),
        (1000.0, 0.025, 1.962_339_080_826_408_5),
        (1000.0, 5e-5, 3.906_343_736_701_381_2),
        (1000.0, 1e-12, 7.124_228_925_314_409),
        (99_999.0, 0.025, 1.959_987_707_771_844_8),
        (99_999.0, 5e-5, 3.890_748_846_955_418_4),
        (99_999.0, 1e-12, 7.035_371_751_273_791_6),
        (1e7, 0.025, 1.959_964_221_767_205_5),
        (1e7, 5e-5, 3.890_593_455_947_018_3),
        (1e7, 1e-12, 7.034_492_703_526_16),
    ];
    for (df, tail, reference) in quantile_cases {
        // The lower tail takes the mass exactly; 1 − tail would round it.
        assert_relative_eq!(
            student_t_quantile(tail, df),
            -reference,
            max_relative = 1e-12
        );
    }
}

#[test]
fn clopper_pearson_at_a_billion_trials() {
    // 99.99% intervals; references from direct 40-digit binomial sums.
    let cases = [
        (
            1,
            1_000_000_000,
            5.000_125_004_166_147e-14,
            1.250_667_121_323_765_6e-8,
        ),
        (
            5,
            1_000_000_000,
            3.830_233_610_397_500_2e-10,
            2.047_381_174_193_683e-8,
        ),
        (
            100,
            1_000_000_000,
            6.570_822_502_600_776e-8,
            1.448_907_213_525_659_2e-7,
        ),
        (
            3,
            1_000_000,
            6.809_068_723_404_989e-8,
            1.675_074_492_958_318_2e-5,
        ),
    ];
    for (successes, trials, lo_ref, hi_ref) in cases {
        let (lo, hi) = clopper_pearson_interval(successes, trials, 0.9999);
        assert_relative_eq!(lo, lo_ref, max_relative = 1e-10);
        assert_relative_eq!(hi, hi_ref, max_relative = 1e-10);
    }
}

#[test]
fn clopper_pearson_in_the_normal_regime_and_by_symmetry() {
    let n = 1_000_000_000_u64;
    // Half of a billion: the exact interval is p̂ ± z·√(p̂q̂/n) up to O(1/n).
    let (lo, hi) = clopper_pearson_interval(n / 2, n, 0.9999);
    let half_width = 3.890_591_886_413_121 * (0.25 / n as f64).sqrt();
    assert_relative_eq!(0.5 - lo, half_width, max_relative = 1e-3);
    assert_relative_eq!(hi - 0.5, half_width, max_relative = 1e-3);
    // Failures mirror successes (up to the rounding of values next to 1:
    // 1 − hi is known only to about 1e-16/5e-14 relative).
    let (lo_one, hi_one) = clopper_pearson_interval(1, n, 0.9999);
    let (lo_all, hi_all) = clopper_pearson_interval(n - 1, n, 0.9999);
    assert_relative_eq!(1.0 - hi_all, lo_one, max_relative = 1e-2);
    assert_relative_eq!(1.0 - lo_all, hi_one, max_relative = 1e-7);
    // Zero events: the closed form 1 − (α/2)^(1/n) ≈ ln(2/α)/n.
    let (lo, hi) = clopper_pearson_interval(0, n, 0.9999);
    assert_eq!(lo, 0.0);
    assert_relative_eq!(hi, (2.0f64 / 1e-4).ln() / n as f64, max_relative = 1e-8);
}

#[test]
fn stream_and_window_references() {
    assert_relative_eq!(
        expected_duplicates(1e6, 2f64.powi(64)),
        2.710_502_720_708_280_9e-8,
        max_relative = 1e-12
    );
    assert_relative_eq!(
        expected_duplicates(1e6, 1e6),
        367_879.257_231_645_1,
        max_relative = 1e-12
    );
    assert_relative_eq!(
        expected_duplicate_fraction(1.5e8, 2f64.powi(26)),
        0.600_466_704_360_098_8,
        max_relative = 1e-12
    );
    assert_relative_eq!(
        expected_windowed_duplicates(1e7, 2f64.powi(16), 1000.0),
        151_423.222_758_294_62,
        max_relative = 1e-12
    );
    assert_relative_eq!(
        ep_n_paper_form(1e6, 1e8, 2f64.powi(26)),
        0.980_906_704_599_062_7,
        max_relative = 1e-12
    );
    assert_relative_eq!(
        ep_inf_paper_form(1e6, 2f64.powi(26)),
        0.985_209_311_593_711,
        max_relative = 1e-12
    );
    // The corrected bound, 1 − M/(|Γ|·(1 − (1 − 1/|Γ|)^n)), in double precision
    // with log1p/expm1.
    assert_relative_eq!(
        ep_n_lower_bound(1e6, 1e8, 2f64.powi(26)),
        0.980_764_095_309_442,
        max_relative = 1e-12
    );
    assert_relative_eq!(
        ep_inf_lower_bound(1e6, 2f64.powi(26)),
        0.985_098_838_806_152_3,
        max_relative = 1e-12
    );
    assert_relative_eq!(
        near_exact_fp(1e6),
        9.999_995_000_006_667e-7,
        max_relative = 1e-12
    );
}
