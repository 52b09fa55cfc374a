//! A bijective 64-bit mixer shared by derivations, the generator and the fast hasher.

/// The 64-bit finaliser of SplitMix64 (Stafford's "Mix13" constants).
///
/// A bijection on `u64` with full avalanche: every input bit flips each output
/// bit with probability close to 1/2. It derives secondary values from a
/// digest (the second probe step, rehashed fingerprints) without a second pass
/// over the item.
#[inline]
#[must_use]
pub const fn mix64(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The golden-ratio increment of SplitMix64, `floor(2^64 / phi)`, odd.
pub(crate) const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;
