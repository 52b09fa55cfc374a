//! Fuzzes the snapshot decoder of `ddf_sliding::SlidingBloom`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| ddf_fuzz::decode_and_use::<ddf_sliding::SlidingBloom>(data));
