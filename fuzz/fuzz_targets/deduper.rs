//! Fuzzes the decoder of a `Deduper` snapshot: filter plus hasher identity and key.
#![no_main]
use ddf_core::Deduper;
use ddf_exact::ExactWindow;
use ddf_hash::KeyedSipHasher;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(mut d) = Deduper::<ExactWindow, KeyedSipHasher>::from_bytes(data) {
        d.observe(&1u64);
        let again = d.to_bytes();
        assert!(Deduper::<ExactWindow, KeyedSipHasher>::from_bytes(&again).is_ok());
    }
});
