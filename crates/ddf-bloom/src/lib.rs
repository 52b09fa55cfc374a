//! Bloom-family duplicate filters: partitioned Bloom, Stable Bloom, A2 and the block-decaying Bloom filter.
#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

/// The core items a user of this crate alone needs (from `ddf-core`): the
/// filter traits, the verdict, the hashing `Deduper` front and the errors.
#[doc(no_inline)]
pub use ddf_core::{
    DecodeError, Deduper, Digest, DuplicateFilter, KeyedSipHasher, Merge, MergeError, ParamError,
    Snapshot, TimedFilter, Verdict, Window, Windowed, digest,
};

mod a2;
mod atomic;
mod bdbf;
mod partitioned;
mod stable;

pub use a2::A2;
pub use atomic::AtomicPartitionedBloom;
pub use bdbf::{BlockDecayingBloom, MAX_COUNTER_BITS};
pub use partitioned::{MAX_SLICES, PartitionedBloom};
pub use stable::{DEFAULT_SEED, MAX_CELL_BITS, MAX_PROBES, StableBloom};

/// Checks that a snapshot holds exactly the words `bits` bits need, before
/// anything is allocated from the parameters that imply `bits`.
fn expect_words(
    words: &[u64],
    bits: u64,
    field: &'static str,
) -> Result<(), ddf_core::DecodeError> {
    let expected = ddf_param::state_words(field, bits)?;
    if words.len() == expected {
        Ok(())
    } else {
        Err(ddf_core::DecodeError::invalid(
            field,
            format!(
                "{} words where the parameters imply {expected}",
                words.len()
            ),
        ))
    }
}

#[cfg(feature = "serde")]
ddf_core::impl_serde_via_snapshot!(PartitionedBloom, StableBloom, A2, BlockDecayingBloom);
