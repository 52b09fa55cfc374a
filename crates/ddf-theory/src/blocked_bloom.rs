//! Blocked Bloom filters: the false-positive rate of a filter whose items
//! each set `b` bits inside one block of `B` bits.
//!
//! Source: Putze, Sanders, Singler, *Cache-, hash-, and space-efficient
//! Bloom filters* (2009), as used by the APBF paper §6 for the segments of
//! an APBBF: a hash picks a block of `B` bits (a 64-bit word or a 512-bit
//! cache line), the block is itself a partitioned filter of `b` parts of
//! `B/b` bits, and an item sets one bit per part.
//!
//! Symbols: `B` (`block_bits`), `b` (`bits_per_block`), `λ` the mean number
//! of items per block. With `n` items over many blocks the count in one
//! block is Poisson with mean `λ = n/blocks`, which is where a blocked
//! filter loses accuracy against a plain one: some blocks are overfull.

use std::f64::consts::LN_2;

use crate::numerics::{ln_gamma, one_minus_pow1m};

/// The false-positive rate of a partitioned block of `B` bits in `b` parts
/// holding `items` items: `(1 − (1 − b/B)^items)^b`.
///
/// ```
/// use ddf_theory::blocked_bloom::block_fp;
/// // 16 bits in 4 parts of 4 bits, one item: each part has 1 bit of 4 set.
/// assert!((block_fp(1.0, 16, 4) - 0.25f64.powi(4)).abs() < 1e-15);
/// ```
pub fn block_fp(items: f64, block_bits: u32, bits_per_block: u32) -> f64 {
    let part = f64::from(block_bits) / f64::from(bits_per_block);
    one_minus_pow1m(1.0 / part, items).powi(bits_per_block as i32)
}

/// The false-positive rate of a blocked Bloom filter with a mean of `λ`
/// items per block (Putze, Sanders, Singler, §3):
/// `Σ_i Poisson(i; λ) · block_fp(i)`.
///
/// The sum runs until the Poisson tail is below `1e-17` of the total.
///
/// ```
/// use ddf_theory::blocked_bloom::{block_fp, blocked_fp};
/// // Spreading items over blocks costs accuracy: convexity of block_fp.
/// assert!(blocked_fp(10.0, 64, 4) > block_fp(10.0, 64, 4));
/// assert_eq!(blocked_fp(0.0, 64, 4), 0.0);
/// ```
pub fn blocked_fp(lambda: f64, block_bits: u32, bits_per_block: u32) -> f64 {
    if lambda <= 0.0 {
        return 0.0;
    }
    // Sum outwards from the mode so the terms that matter come first.
    let mode = lambda.floor();
    let term = |i: f64| (i * lambda.ln() - lambda - ln_gamma(i + 1.0)).exp();
    let mut total = 0.0;
    let mut i = mode;
    loop {
        let t = term(i);
        total += t * block_fp(i, block_bits, bits_per_block);
        if t < 1e-17 * total.max(1e-300) || i > mode + 10.0 * lambda.sqrt() + 100.0 {
            break;
        }
        i += 1.0;
    }
    let mut i = mode - 1.0;
    while i >= 0.0 {
        let t = term(i);
        total += t * block_fp(i, block_bits, bits_per_block);
        if t < 1e-17 * total.max(1e-300) {
            break;
        }
        i -= 1.0;
    }
    total
}

/// The number of items after which each part of a block reaches fill ratio
/// ½, `c = ln ½ / ln(1 − b/B)`: the capacity per block of a blocked filter
/// dimensioned like the APBF paper's (§6, Table 3).
///
/// For large parts it tends to `(B/b)·ln 2`, the partitioned filter's.
///
/// ```
/// use ddf_theory::blocked_bloom::block_capacity;
/// assert!((block_capacity(512, 4) - 88.38).abs() < 0.01);
/// ```
pub fn block_capacity(block_bits: u32, bits_per_block: u32) -> f64 {
    let part = f64::from(block_bits) / f64::from(bits_per_block);
    -LN_2 / (-1.0 / part).ln_1p()
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn poisson_mixture_is_normalised_and_exact_for_small_lambda() {
        // With block_fp ≡ 1 (one bit per part of one bit) the sum is the
        // Poisson mass without the i = 0 term.
        let lambda = 3.7;
        assert_relative_eq!(
            blocked_fp(lambda, 1, 1),
            1.0 - (-lambda).exp(),
            max_relative = 1e-13
        );
        // λ → 0: one item in the block with probability ≈ λ.
        let tiny = 1e-6;
        assert_relative_eq!(
            blocked_fp(tiny, 64, 4),
            tiny * block_fp(1.0, 64, 4),
            max_relative = 1e-5
        );
    }

    #[test]
    fn large_blocks_approach_the_partitioned_filter() {
        // Blocks of 2^20 bits barely vary in load relative to their size.
        let lambda = block_capacity(1 << 20, 4);
        assert_relative_eq!(
            blocked_fp(lambda, 1 << 20, 4),
            1.0 / 16.0,
            max_relative = 1e-3
        );
    }
}
