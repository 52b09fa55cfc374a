//! Fuzzes the snapshot decoder of `ddf_shf::Shf`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| ddf_fuzz::decode_and_use::<ddf_shf::Shf>(data));
