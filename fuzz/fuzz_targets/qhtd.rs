//! Fuzzes the snapshot decoder of `ddf_qht::Qhtd`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| ddf_fuzz::decode_and_use::<ddf_qht::Qhtd>(data));
