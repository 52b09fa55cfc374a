//! Thirty-two 16-bit lanes compared with one value at once: the probe of a
//! bucket that is a whole cache line.
//!
//! A line of 64 bytes holds 32 `u16` lanes. [`equal_and_zero`] answers,
//! for every lane, whether it holds a given value and whether it is zero,
//! as two 32-bit masks (bit `i` for lane `i`). On x86-64 it is SSE2, part of
//! every x86-64 target: four loads, eight compares, four packs and four
//! byte-mask extractions, the same instructions whatever the lanes hold, so
//! a probe has no branch that depends on the data. Elsewhere it is a loop
//! the compiler may vectorize. Both give the same masks (tested).
//!
//! This is the third module of `ddf-bits` that allows `unsafe`, for the
//! unaligned vector loads, each with a `// SAFETY:` comment.
#![allow(unsafe_code)]

/// Lanes in a line.
pub const LANES: usize = 32;

/// For every lane of `line`: whether it equals `value` (first mask) and
/// whether it is zero (second mask); bit `i` is lane `i`.
///
/// ```
/// let mut line = [0u16; 32];
/// line[3] = 7;
/// line[30] = 7;
/// line[5] = 9;
/// let (equal, zero) = ddf_bits::lanes16::equal_and_zero(&line, 7);
/// assert_eq!(equal, 1 << 3 | 1 << 30);
/// assert_eq!(zero, !(1 << 3 | 1 << 5 | 1 << 30));
/// ```
#[inline(always)]
pub fn equal_and_zero(line: &[u16; LANES], value: u16) -> (u32, u32) {
    imp::equal_and_zero(line, value)
}

#[cfg(target_arch = "x86_64")]
mod imp {
    use super::LANES;
    use core::arch::x86_64::{
        __m128i, _mm_cmpeq_epi16, _mm_loadu_si128, _mm_movemask_epi8, _mm_packs_epi16,
        _mm_set1_epi16, _mm_setzero_si128,
    };

    #[inline(always)]
    pub(super) fn equal_and_zero(line: &[u16; LANES], value: u16) -> (u32, u32) {
        let at = line.as_ptr().cast::<__m128i>();
        // SAFETY: SSE2 is part of every x86-64 target, so these instructions
        // exist wherever this code runs. The four unaligned 16-byte loads
        // read bytes 0..16, 16..32, 32..48 and 48..64 of `line`, which is
        // 64 bytes long, through a pointer derived from the whole array;
        // `_mm_loadu_si128` needs no alignment.
        unsafe {
            let words = [
                _mm_loadu_si128(at),
                _mm_loadu_si128(at.add(1)),
                _mm_loadu_si128(at.add(2)),
                _mm_loadu_si128(at.add(3)),
            ];
            let mut masks = [0u32; 2];
            for (mask, probe) in masks
                .iter_mut()
                .zip([_mm_set1_epi16(value as i16), _mm_setzero_si128()])
            {
                let eq = words.map(|w| _mm_cmpeq_epi16(w, probe));
                // A lane compares to all ones or zero; the saturating pack
                // keeps it as one byte, whose top bit the mask collects.
                let low = _mm_movemask_epi8(_mm_packs_epi16(eq[0], eq[1])) as u32;
                let high = _mm_movemask_epi8(_mm_packs_epi16(eq[2], eq[3])) as u32;
                *mask = low | high << 16;
            }
            (masks[0], masks[1])
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod imp {
    pub(super) use super::portable::equal_and_zero;
}

/// The definition, lane by lane: the reference of the tests, and the
/// implementation where there is no SSE2.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
mod portable {
    use super::LANES;

    #[inline(always)]
    pub(super) fn equal_and_zero(line: &[u16; LANES], value: u16) -> (u32, u32) {
        let (mut equal, mut zero) = (0u32, 0u32);
        for (i, &lane) in line.iter().enumerate() {
            equal |= u32::from(lane == value) << i;
            zero |= u32::from(lane == 0) << i;
        }
        (equal, zero)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_match_the_lane_by_lane_definition() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for round in 0..20_000u32 {
            let mut line = [0u16; LANES];
            // Few distinct values, so equal lanes, zeros and the extremes
            // (0x8000 and 0xffff, where a signed compare would differ) are common.
            let values = [0u16, 1, 0x7fff, 0x8000, 0xffff, (round & 0xffff) as u16];
            for lane in &mut line {
                *lane = values[(next() % values.len() as u64) as usize];
            }
            for &value in &values {
                assert_eq!(
                    equal_and_zero(&line, value),
                    portable::equal_and_zero(&line, value),
                    "round {round}, value {value:#x}"
                );
            }
        }
    }

    #[test]
    fn every_lane_is_seen() {
        for i in 0..LANES {
            let mut line = [1u16; LANES];
            line[i] = 0xabcd;
            assert_eq!(equal_and_zero(&line, 0xabcd), (1 << i, 0));
            line[i] = 0;
            assert_eq!(equal_and_zero(&line, 0xabcd), (0, 1 << i));
        }
    }
}
