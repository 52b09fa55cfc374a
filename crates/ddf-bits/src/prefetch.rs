//! Cache prefetch hints: the one place in `ddf` that issues them.
//!
//! Batch operations hash a block of items, work out the memory each will
//! touch, ask for those cache lines here, and only then probe in order, so
//! that the misses of many items overlap instead of queueing one after the
//! other. A prefetch is a hint: it never changes a result, it never faults
//! (an address is only formed from an element that exists), and on targets
//! without a stable prefetch instruction it does nothing.
#![allow(unsafe_code)]

/// Asks for the cache line holding `slice[index]`, to be read soon.
/// An index out of range is ignored.
#[inline(always)]
pub fn prefetch_read<T>(slice: &[T], index: usize) {
    if let Some(item) = slice.get(index) {
        prefetch_ref(item);
    }
}

/// Asks for the cache line holding `slice[index]`, to be written soon.
/// An index out of range is ignored.
///
/// x86_64 has no write hint in its baseline instruction set, so this is the
/// read hint there; the line arrives shared and the store upgrades it, which
/// still hides the memory latency.
#[inline(always)]
pub fn prefetch_write<T>(slice: &[T], index: usize) {
    prefetch_read(slice, index);
}

/// Asks for the cache line holding `*item`.
#[inline(always)]
pub fn prefetch_ref<T>(item: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let p = core::ptr::from_ref(item).cast::<i8>();
        // SAFETY: `_mm_prefetch` needs SSE, which every x86_64 CPU has (it
        // is in the target's baseline feature set). The instruction only
        // hints the cache: it never dereferences `p` architecturally and
        // cannot fault, and `p` points into a live borrow anyway.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = item;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_never_fault_or_change_data() {
        let v: Vec<u64> = (0..1000).collect();
        for i in [0, 7, 999, 1000, usize::MAX] {
            prefetch_read(&v, i);
            prefetch_write(&v, i);
        }
        prefetch_ref(&v[3]);
        let empty: [u8; 0] = [];
        prefetch_read(&empty, 0);
        assert_eq!(v.iter().sum::<u64>(), 999 * 1000 / 2);
    }
}
