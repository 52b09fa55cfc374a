//! The `(n, slack, ε)` rows of the sliding Bloom filter's space
//! comparison, shared by the `sliding-space` tables and the space check
//! that must hold at each of them.

/// SWAMP's memory as the APBF paper's Table 4 quotes it (read from Figure 3(a)
/// of the SWAMP paper): window 2^16, no slack, `(ε, bits per element)`.
pub(crate) const SWAMP_QUOTED: [(f64, f64); 4] = [
    (0.019_765_4, 32.0),
    (0.001_799_3, 39.8),
    (0.000_122_6, 48.5),
    (0.000_000_9, 64.6),
];

/// APBBF in the same table of the APBF paper: `(k, l, ε, bits per element)`;
/// its slack is `k` generations of `w/l` insertions.
pub(crate) const APBBF_QUOTED: [(u64, u64, f64, f64); 4] = [
    (2, 5, 0.019_765_4, 16.2),
    (3, 8, 0.001_799_3, 23.9),
    (2, 5, 0.000_122_6, 32.6),
    (3, 8, 0.000_000_9, 48.0),
];

/// The `(n, slack, ε)` of every row of `sliding-space` (a slack of `None`
/// is `m = ∞`): `n` of 2^16 and 10^6, `ε` of 2^-4, 2^-8 and 2^-12 with
/// slacks of ∞, n/4, n/16 and n/64, and the quoted points of the APBF
/// paper's Table 4 at `n = 2^16`, for a like-for-like row of each measured
/// filter.
pub(crate) fn space_rows() -> Vec<(u64, Option<u64>, f64)> {
    let mut configs: Vec<(u64, Option<u64>, f64)> = Vec::new();
    for n in [1u64 << 16, 1_000_000] {
        for k in [4, 8, 12] {
            for m in [None, Some(n / 4), Some(n / 16), Some(n / 64)] {
                configs.push((n, m, 2f64.powi(-k)));
            }
        }
    }
    for &(eps, _) in &SWAMP_QUOTED {
        configs.push((1 << 16, Some(0), eps));
    }
    for &(k, l, eps, _) in &APBBF_QUOTED {
        configs.push((1 << 16, Some((1 << 16) * k / l), eps));
    }
    configs
}
