//! The allocator of the module: Redis's own inside `redis-server`, the
//! system's elsewhere.
//!
//! Inside the server every allocation must go through `RedisModule_Alloc`,
//! so `INFO memory`'s `used_memory` (and `maxmemory`) count the filters. The
//! same crate is also an `rlib` linked into tests and the client helpers,
//! where no server exists; there the pointer is unset and the system
//! allocator serves. The server sets the pointer in `RedisModule_OnLoad`
//! before the module allocates anything, and never unsets it, so no block
//! crosses from one allocator to the other.

use redis_module::alloc::RedisAlloc;
use redis_module::raw;
use std::alloc::{GlobalAlloc, Layout, System};

/// Redis's allocator once the module API is initialised, the system's
/// before (and in processes that are not a Redis server).
#[derive(Debug, Clone, Copy, Default)]
pub struct ServerAlloc;

/// Whether the module API (and with it Redis's allocator) is present.
fn in_server() -> bool {
    // SAFETY: a plain read of a function pointer written once, at module
    // load, before any other code of this crate runs in the server.
    unsafe { raw::RedisModule_Alloc }.is_some()
}

// SAFETY: both allocators uphold `GlobalAlloc`; the choice between them is
// fixed for the life of the process (see the module docs), so each block is
// freed by the allocator that made it.
unsafe impl GlobalAlloc for ServerAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if in_server() {
            // SAFETY: forwarded contract of `GlobalAlloc::alloc`.
            unsafe { RedisAlloc.alloc(layout) }
        } else {
            // SAFETY: forwarded contract of `GlobalAlloc::alloc`.
            unsafe { System.alloc(layout) }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if in_server() {
            // SAFETY: `ptr` came from `RedisAlloc` (see above).
            unsafe { RedisAlloc.dealloc(ptr, layout) }
        } else {
            // SAFETY: `ptr` came from `System` (see above).
            unsafe { System.dealloc(ptr, layout) }
        }
    }
}
