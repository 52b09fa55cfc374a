//! Transparent huge pages for tables far larger than the caches.
//!
//! A filter of tens of MiB probed at random misses the TLB on almost every
//! access when its memory is mapped in 4 KiB pages: the page walk comes on
//! top of the cache miss, and it is what stops the batch path's prefetching
//! from paying further (a prefetch that misses the TLB waits for the walk).
//! Mapped in 2 MiB pages, such a table needs a few dozen TLB entries.
//!
//! [`filled_vec`] reserves the memory, asks the kernel
//! (`madvise(MADV_HUGEPAGE)`, Linux) to back its 2 MiB-aligned interior with
//! huge pages, and only then writes the initial value, so the pages are
//! faulted in under that advice. The advice is a hint: where the kernel
//! refuses (huge pages disabled, another OS), the vector is the same, in
//! ordinary pages. This module is the second place in `ddf-bits` that
//! allows `unsafe`, for the one system call, with a `// SAFETY:` comment.
#![allow(unsafe_code)]

use std::mem::MaybeUninit;

/// The huge page size of x86_64 and of most aarch64 kernels.
pub const HUGE_PAGE_BYTES: usize = 2 << 20;

/// The size from which [`filled_vec`] asks for huge pages: 8 MiB, four huge
/// pages, beyond what a second-level TLB of 1,536 entries covers in 4 KiB
/// pages (6 MiB). Measured (APBF and APBBF, `ddf-apbf`'s
/// `examples/profile`): at 64 MiB huge pages took 16–28 % off an
/// observation, one by one and in batches; at 7.7 MiB the difference was
/// within the noise of a loaded machine, so smaller tables keep the lazily
/// mapped zero pages of an ordinary allocation.
pub const HUGE_MIN_BYTES: usize = 8 << 20;

/// `len` copies of `value`, with the memory advised for transparent huge
/// pages first when it spans at least [`HUGE_MIN_BYTES`].
///
/// Unlike `vec![0; len]`, whose zero pages the kernel maps lazily, every
/// page is written here (that is what faults it in as a huge page), so the
/// memory is resident from the start.
pub fn filled_vec<T: Clone>(len: usize, value: T) -> Vec<T> {
    let mut v = Vec::with_capacity(len);
    if len.saturating_mul(size_of::<T>()) >= HUGE_MIN_BYTES {
        advise_huge(v.spare_capacity_mut());
    }
    v.resize(len, value);
    v
}

/// A vector of `len` values made by `make`, advised for huge pages as
/// [`filled_vec`] is: for element types that are not `Clone` (atomic words).
pub fn vec_from_fn<T>(len: usize, mut make: impl FnMut() -> T) -> Vec<T> {
    let mut v = Vec::with_capacity(len);
    if len.saturating_mul(size_of::<T>()) >= HUGE_MIN_BYTES {
        advise_huge(v.spare_capacity_mut());
    }
    v.extend((0..len).map(|_| make()));
    v
}

/// A copy of `src`, with the memory advised for transparent huge pages
/// first when it spans at least [`HUGE_MIN_BYTES`], as [`filled_vec`]
/// does: a clone of a large table probed at random keeps the TLB reach of
/// the original.
///
/// ```
/// let v = ddf_bits::pages::copied_vec(&[1u64, 2, 3]);
/// assert_eq!(v, [1, 2, 3]);
/// ```
pub fn copied_vec<T: Clone>(src: &[T]) -> Vec<T> {
    let mut v = Vec::with_capacity(src.len());
    if size_of_val(src) >= HUGE_MIN_BYTES {
        advise_huge(v.spare_capacity_mut());
    }
    v.extend_from_slice(src);
    v
}

/// Whether the kernel backs the advised ranges with huge pages at all
/// (Linux: `enabled` is `always` or `madvise`); for tests and reports.
pub fn huge_pages_available() -> bool {
    std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
        .is_ok_and(|s| s.contains("[always]") || s.contains("[madvise]"))
}

/// Advises the whole 2 MiB pages inside `region` for huge pages; a refusal
/// is ignored (the memory stays in ordinary pages).
fn advise_huge<T>(region: &mut [MaybeUninit<T>]) {
    let start = region.as_mut_ptr() as usize;
    let end = start + size_of_val(region);
    let first = start.next_multiple_of(HUGE_PAGE_BYTES);
    let last = end - end % HUGE_PAGE_BYTES;
    if last > first {
        madvise_huge(first, last - first);
    }
}

#[cfg(target_os = "linux")]
fn madvise_huge(addr: usize, len: usize) {
    // SAFETY: `addr..addr + len` is a whole number of pages inside an
    // allocation this function's caller owns exclusively (the spare capacity
    // of a fresh vector), so no other object's memory is affected.
    // `MADV_HUGEPAGE` only sets the kernel's paging policy for the range:
    // it changes neither the contents nor the validity of any byte, and it
    // frees nothing. Its result is deliberately ignored: on refusal the
    // range keeps ordinary pages.
    let _ = unsafe { libc::madvise(addr as *mut libc::c_void, len, libc::MADV_HUGEPAGE) };
}

#[cfg(not(target_os = "linux"))]
fn madvise_huge(_addr: usize, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contents_are_the_value_at_every_size() {
        for len in [
            0usize,
            1,
            1000,
            HUGE_MIN_BYTES / 8 - 1,
            HUGE_MIN_BYTES / 8 + 3,
        ] {
            let v = filled_vec(len, 7u64);
            assert_eq!(v.len(), len);
            assert!(v.iter().all(|&x| x == 7), "len {len}");
        }
        #[derive(Clone, PartialEq, Debug)]
        #[repr(align(64))]
        struct Line([u64; 8]);
        let v = filled_vec(HUGE_MIN_BYTES / 64 + 1, Line([1; 8]));
        assert!(v.iter().all(|l| *l == Line([1; 8])));
        assert_eq!(v.as_ptr() as usize % 64, 0);
    }
}
