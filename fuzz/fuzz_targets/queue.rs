//! Fuzzes the snapshot decoder of `ddf_queue::Queue` (here of compact SHFs),
//! including its nested subfilter snapshots.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    ddf_fuzz::decode_and_use::<ddf_queue::Queue<ddf_shf::CompactShf>>(data)
});
