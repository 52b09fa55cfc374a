//! The standard normal quantile (Wichura's AS 241) and two-sided `z` values.

// Coefficients and reference values keep every published digit so they can be
// checked against their source; the compiler rounds them to f64.
#![allow(clippy::excessive_precision)]

use super::half_alpha;

// Wichura, "Algorithm AS 241: The percentage points of the normal
// distribution", Applied Statistics 37 (1988), PPND16: rational
// approximations of degree 7, relative accuracy about 1e-16.

/// Numerator, central region `|p − ½| ≤ 0.425`.
const A: [f64; 8] = [
    3.387_132_872_796_366_608,
    133.141_667_891_784_377_45,
    1_971.590_950_306_551_442_7,
    13_731.693_765_509_461_125,
    45_921.953_931_549_871_457,
    67_265.770_927_008_700_853,
    33_430.575_583_588_128_105,
    2_509.080_928_730_122_672_7,
];
/// Denominator, central region.
const B: [f64; 8] = [
    1.0,
    42.313_330_701_600_911_252,
    687.187_007_492_057_908_3,
    5_394.196_021_424_751_107_7,
    21_213.794_301_586_595_867,
    39_307.895_800_092_710_61,
    28_729.085_735_721_942_674,
    5_226.495_278_852_854_561,
];
/// Numerator, intermediate tail `r = √(−ln min(p, 1 − p)) ≤ 5`.
const C: [f64; 8] = [
    1.423_437_110_749_683_577_34,
    4.630_337_846_156_545_295_9,
    5.769_497_221_460_691_405_5,
    3.647_848_324_763_204_605_04,
    1.270_458_252_452_368_382_58,
    0.241_780_725_177_450_611_77,
    0.022_723_844_989_269_184_583_3,
    7.745_450_142_783_414_076_4e-4,
];
/// Denominator, intermediate tail.
const D: [f64; 8] = [
    1.0,
    2.053_191_626_637_758_821_87,
    1.676_384_830_183_803_849_4,
    0.689_767_334_985_100_004_55,
    0.148_103_976_427_480_074_59,
    0.015_198_666_563_616_457_196_6,
    5.475_938_084_995_344_946e-4,
    1.050_750_071_644_416_843_24e-9,
];
/// Numerator, far tail `r > 5`.
const E: [f64; 8] = [
    6.657_904_643_501_103_777_2,
    5.463_784_911_164_114_369_9,
    1.784_826_539_917_291_335_8,
    0.296_560_571_828_504_891_23,
    0.026_532_189_526_576_123_093,
    0.001_242_660_947_388_078_438_6,
    2.711_555_568_743_487_578_15e-5,
    2.010_334_399_292_288_132_65e-7,
];
/// Denominator, far tail.
const F: [f64; 8] = [
    1.0,
    0.599_832_206_555_887_937_69,
    0.136_929_880_922_735_805_31,
    0.014_875_361_290_850_614_852_5,
    7.868_691_311_456_132_591e-4,
    1.846_318_317_510_054_681_8e-5,
    1.421_511_758_316_445_888_7e-7,
    2.044_263_103_389_939_785_64e-15,
];

fn horner(coefficients: &[f64; 8], x: f64) -> f64 {
    coefficients.iter().rev().fold(0.0, |acc, &c| acc * x + c)
}

/// The standard normal quantile `Φ⁻¹(p)`: the `z` with `P(Z ≤ z) = p`.
///
/// Wichura's algorithm AS 241 (PPND16), relative error below about 1e-15
/// over `(0, 1)` (checked against arbitrary-precision values from `p = 1e-300`
/// to `1 − 1e-16`). Tail values are computed from `min(p, 1 − p)`, so pass
/// the small tail mass directly rather than `1 − tiny`. Returns `−∞` at 0,
/// `+∞` at 1 and NaN outside `[0, 1]`.
///
/// ```
/// use ddf_theory::stats::normal_quantile;
/// assert!((normal_quantile(0.975) - 1.959_963_984_540_054).abs() < 1e-15);
/// assert_eq!(normal_quantile(0.5), 0.0);
/// ```
pub fn normal_quantile(p: f64) -> f64 {
    if !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    let q = p - 0.5;
    if q.abs() <= 0.425 {
        let r = 0.180_625 - q * q;
        return q * horner(&A, r) / horner(&B, r);
    }
    let tail = if q < 0.0 { p } else { 1.0 - p };
    let r = (-tail.ln()).sqrt();
    let z = if r <= 5.0 {
        let r = r - 1.6;
        horner(&C, r) / horner(&D, r)
    } else {
        let r = r - 5.0;
        horner(&E, r) / horner(&F, r)
    };
    if q < 0.0 { -z } else { z }
}

/// The two-sided critical value for a confidence level: the `z` with
/// `P(|Z| ≤ z) = confidence` for a standard normal `Z`.
///
/// Computed as `−Φ⁻¹((1 − confidence)/2)`, so levels close to 1 keep their
/// precision. Use it as the `z` of [`super::wilson_interval`].
///
/// # Panics
///
/// If `confidence` is not strictly between 0 and 1.
///
/// ```
/// use ddf_theory::stats::z_for_confidence;
/// assert!((z_for_confidence(0.95) - 1.959_963_984_540_054).abs() < 1e-14);
/// assert!((z_for_confidence(0.9999) - 3.890_591_886_413_121).abs() < 1e-13);
/// ```
pub fn z_for_confidence(confidence: f64) -> f64 {
    -normal_quantile(half_alpha(confidence))
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn quantiles_match_reference_values() {
        // Reference values from 40-digit arithmetic (mpmath).
        let cases = [
            (1e-300, -37.047_096_299_361_2),
            (1e-20, -9.262_340_089_798_408),
            (1e-9, -5.997_807_015_007_687),
            (1e-4, -3.719_016_485_455_681),
            (0.025, -1.959_963_984_540_054),
            (0.075, -1.439_531_470_938_456),
            (0.3, -0.524_400_512_708_040_8),
            (0.9, 1.281_551_565_544_600_6),
            (0.99995, 3.890_591_886_413_121),
        ];
        for (p, z) in cases {
            assert_relative_eq!(normal_quantile(p), z, max_relative = 2e-15);
        }
    }

    #[test]
    fn quantile_is_odd_and_handles_ends() {
        for &p in &[0.01, 0.2, 0.4] {
            assert_relative_eq!(
                normal_quantile(p),
                -normal_quantile(1.0 - p),
                max_relative = 1e-12
            );
        }
        assert_eq!(normal_quantile(0.0), f64::NEG_INFINITY);
        assert_eq!(normal_quantile(1.0), f64::INFINITY);
        assert!(normal_quantile(-0.1).is_nan() && normal_quantile(f64::NAN).is_nan());
    }

    #[test]
    fn two_sided_z_values() {
        // 50-digit references (mpmath) at the f64 nearest each level.
        assert_relative_eq!(
            z_for_confidence(0.9),
            1.644_853_626_951_472_8,
            max_relative = 1e-15
        );
        assert_relative_eq!(
            z_for_confidence(0.99),
            2.575_829_303_548_900_5,
            max_relative = 1e-15
        );
        assert_relative_eq!(
            z_for_confidence(0.9999),
            3.890_591_886_413_120_7,
            max_relative = 1e-15
        );
        assert_relative_eq!(
            z_for_confidence(0.999_999),
            4.891_638_475_692_931_8,
            max_relative = 1e-15
        );
    }

    #[test]
    #[should_panic(expected = "confidence level")]
    fn rejects_a_certain_confidence() {
        z_for_confidence(1.0);
    }
}
