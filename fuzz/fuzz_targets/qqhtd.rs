//! Fuzzes the snapshot decoder of `ddf_qht::Qqhtd`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| ddf_fuzz::decode_and_use::<ddf_qht::Qqhtd>(data));
