//! The allocator of the module: the server's own inside `redis-server` or
//! `valkey-server`, the system's elsewhere.
//!
//! Inside the server every allocation must go through `RedisModule_Alloc`,
//! so `INFO memory`'s `used_memory` (and `maxmemory`) count the filters. The
//! same crate is also an `rlib` linked into tests and the client helpers,
//! where no server exists; there the pointer is unset and the system
//! allocator serves. The server sets the pointer in `RedisModule_OnLoad`
//! before the module allocates anything, and never unsets it, so no block
//! crosses from one allocator to the other.
//!
//! `RedisModule_Alloc` promises only the alignment of the server's malloc:
//! jemalloc's size classes align a block to its size, but a server built
//! with `MALLOC=libc` (Valkey's PyPI build, for one) gives 16 bytes at
//! most. A layout that asks for more than a pointer's alignment therefore
//! gets a larger block, aligned here, with the server's pointer stored just
//! before the aligned one for `dealloc`.

use redis_module::raw;
use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::c_void;

/// The server's allocator once the module API is initialised, the system's
/// before (and in processes that are not a server).
#[derive(Debug, Clone, Copy, Default)]
pub struct ServerAlloc;

/// The alignment every server allocator gives: a pointer's (a size
/// prefix before the block, where malloc cannot tell a block's size, leaves
/// no more).
const SERVER_ALIGN: usize = std::mem::align_of::<usize>();

/// Room for the server's pointer before an aligned block.
const STASH: usize = std::mem::size_of::<*mut u8>();

/// Where a block of alignment `align` (a power of two above
/// `SERVER_ALIGN`) starts in a server block at address `raw` (a multiple
/// of `SERVER_ALIGN`) of `size + align` bytes: the first multiple of
/// `align` at least `STASH` bytes in, so at most `align` bytes in and the
/// `size` bytes fit.
fn aligned_offset(raw: usize, align: usize) -> usize {
    (raw + STASH).next_multiple_of(align) - raw
}

/// Whether the module API (and with it the server's allocator) is present.
fn in_server() -> bool {
    // SAFETY: a plain read of a function pointer written once, at module
    // load, before any other code of this crate runs in the server.
    unsafe { raw::RedisModule_Alloc }.is_some()
}

/// `RedisModule_Alloc(bytes)`; null when the module API is absent.
fn server_alloc(bytes: usize) -> *mut u8 {
    // SAFETY: a plain read of the pointer written once at module load.
    let alloc = unsafe { raw::RedisModule_Alloc };
    match alloc {
        // SAFETY: `RedisModule_Alloc` takes any size and returns a block of
        // it (or null).
        Some(alloc) => unsafe { alloc(bytes) }.cast(),
        None => std::ptr::null_mut(),
    }
}

/// `RedisModule_Free(block)`.
///
/// # Safety
///
/// `block` came from `server_alloc` and is not used again.
unsafe fn server_free(block: *mut u8) {
    // SAFETY: a plain read of the pointer written once at module load.
    let free = unsafe { raw::RedisModule_Free };
    if let Some(free) = free {
        // SAFETY: the caller's contract; the pointers are never unset, so
        // the allocator that made `block` frees it.
        unsafe { free(block.cast::<c_void>()) }
    }
}

// SAFETY: both allocators uphold `GlobalAlloc`; the choice between them is
// fixed for the life of the process (see the module docs), so each block is
// freed by the allocator that made it; over-aligned blocks are placed by
// `aligned_offset` inside a server block large enough for them.
unsafe impl GlobalAlloc for ServerAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !in_server() {
            // SAFETY: forwarded contract of `GlobalAlloc::alloc`.
            return unsafe { System.alloc(layout) };
        }
        let align = layout.align();
        if align <= SERVER_ALIGN {
            return server_alloc(layout.size());
        }
        let Some(bytes) = layout.size().checked_add(align) else {
            return std::ptr::null_mut();
        };
        let block = server_alloc(bytes);
        if block.is_null() {
            return block;
        }
        let offset = aligned_offset(block.addr(), align);
        // SAFETY: `STASH <= offset <= align`, so the aligned pointer and the
        // stash slot before it (pointer-aligned, as `align` is a larger
        // power of two) lie inside the block of `size + align` bytes.
        unsafe {
            let aligned = block.add(offset);
            aligned.sub(STASH).cast::<*mut u8>().write(block);
            aligned
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if !in_server() {
            // SAFETY: `ptr` came from `System` (see above).
            return unsafe { System.dealloc(ptr, layout) };
        }
        if layout.align() <= SERVER_ALIGN {
            // SAFETY: `ptr` came from `server_alloc` unchanged.
            return unsafe { server_free(ptr) };
        }
        // SAFETY: an over-aligned block stored its server block just
        // before itself in `alloc`.
        unsafe { server_free(ptr.sub(STASH).cast::<*mut u8>().read()) }
    }
}

#[cfg(test)]
mod tests {
    use super::{SERVER_ALIGN, STASH, aligned_offset};
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn an_over_aligned_block_fits_in_its_server_block(
            words in 1usize..1 << 40,
            shift in SERVER_ALIGN.trailing_zeros() + 1..13,
        ) {
            let raw = words * SERVER_ALIGN;
            let align = 1usize << shift;
            let offset = aligned_offset(raw, align);
            prop_assert_eq!((raw + offset) % align, 0);
            prop_assert!(offset >= STASH, "room for the server's pointer");
            prop_assert!(offset <= align, "the size still fits: {}", offset);
        }
    }
}
