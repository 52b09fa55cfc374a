//! What every fuzz target does with its input: decode it as a snapshot, and
//! if that succeeds, use the filter.
//!
//! Random bytes almost never pass the snapshot checksum, so half the inputs
//! (first byte even) are taken as a *body* and sealed with a correct envelope
//! and checksum first: that way the fuzzer reaches the field validation of
//! each decoder, not only the envelope check.

use ddf_core::snapshot::{self, Snapshot};
use ddf_core::{Digest, DuplicateFilter};

/// Decodes `data` as a snapshot of `F` (raw, or as a body behind a valid
/// envelope) and, if it decodes, observes a few items, re-encodes, and checks
/// that the re-encoded snapshot decodes to the same bytes.
pub fn decode_and_use<F: DuplicateFilter + Snapshot>(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else { return };
    let bytes = if mode % 2 == 0 { snapshot::seal(F::KIND, F::VERSION, 0, &[], rest) } else { rest.to_vec() };
    if let Ok(mut filter) = F::from_bytes(&bytes) {
        let again = filter.to_bytes();
        let back = F::from_bytes(&again).expect("a decoded filter's own snapshot must decode");
        assert_eq!(back.to_bytes(), again, "re-encoding is not stable");
        for i in 0..64u64 {
            filter.observe(Digest::mixed(i % 17));
        }
        let _ = filter.memory_bits();
    }
}
