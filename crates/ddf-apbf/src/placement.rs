//! Where a slice places an item's probe: linearly, or spread first in
//! small slices.

use ddf_core::Digest;
use ddf_core::snapshot::DecodeError;

/// How a slice turns an item's probe value `x` into a bit of its `m`.
///
/// Two items' probes differ by `Δa + p·Δb` in segment `p`, a linear
/// sequence, and the multiply-shift reduction keeps the top bits of `x`:
/// in slices of a few hundred bits, two items that share a bit in one
/// slice then tend to share it in the next ones too, and the
/// false-positive rate rises above `F`, which takes the slices' bits as
/// independent (7 % above at `k = 10`, `l = 24`, `m = 217`;
/// `docs/errata.md`). An xor-shift and an odd multiplication (a bijection)
/// before the reduction break the line, at 25–40 % more time per
/// operation in cache, so slices of [`SPREAD_BELOW`] bits or more keep
/// the linear placement, whose excess there is within the checks' noise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Placement {
    /// `⌊x·m/2^64⌋`: slices of at least [`SPREAD_BELOW`] bits, and every
    /// filter of snapshot layout 2, which answers as it was written.
    Linear,
    /// `⌊spread(x)·m/2^64⌋`: slices of fewer bits.
    Spread,
}

impl std::fmt::Display for Placement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Placement::Linear => "linear (snapshot layout 2)",
            Placement::Spread => "spread",
        })
    }
}

/// Slices of fewer bits spread their probes ([`Placement::for_slice_bits`]).
///
/// The linear placement's excess over `F` falls as `1/m`: at `k = 10`,
/// `l = 24` it was 6.9 % at 217 bits, 4.5 % at 434, 0.7 % at 1,736, 0.45 %
/// at 3,472, 0.4 % at 13,888 and 0.0 % at 55,552 (±0.26 %, 1.6·10⁷ queries
/// each, `docs/errata.md`); the rate at the worst point, which the planner
/// promises, is 2–3 % above the average the excess adds to.
pub(crate) const SPREAD_BELOW: u64 = 1 << 12;

/// The odd multiplier of [`Placement::Spread`] (SplitMix64's second one).
const SPREAD_MULTIPLIER: u64 = 0x94d0_49bb_1331_11eb;

impl Placement {
    /// The placement a new filter with slices of `m` bits uses.
    pub(crate) fn for_slice_bits(m: u64) -> Placement {
        if m < SPREAD_BELOW {
            Placement::Spread
        } else {
            Placement::Linear
        }
    }

    /// The bit of `0..m` probe value `x` falls on.
    #[inline(always)]
    pub(crate) fn place(self, x: u64, m: u64) -> u64 {
        let x = match self {
            Placement::Linear => x,
            Placement::Spread => (x ^ (x >> 32)).wrapping_mul(SPREAD_MULTIPLIER),
        };
        Digest::new(x).reduce(m)
    }

    /// The snapshot byte: 0 linear, 1 spread.
    pub(crate) fn byte(self) -> u8 {
        match self {
            Placement::Linear => 0,
            Placement::Spread => 1,
        }
    }

    /// The placement of a snapshot byte.
    pub(crate) fn from_byte(byte: u8) -> Result<Placement, DecodeError> {
        match byte {
            0 => Ok(Placement::Linear),
            1 => Ok(Placement::Spread),
            _ => Err(DecodeError::invalid("placement", "must be 0 or 1")),
        }
    }
}
