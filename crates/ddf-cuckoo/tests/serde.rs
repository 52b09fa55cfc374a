//! serde round trip: a filter serializes as its snapshot bytes and comes
//! back through the validating decoder (feature `serde`).
#![cfg(feature = "serde")]

use ddf_core::{Digest, DuplicateFilter, Snapshot};

#[test]
fn json_round_trip_answers_as_the_original() {
    let mut f = ddf_cuckoo::StreamingCuckoo::new(64, 4, 8).unwrap();
    for i in 0..300 {
        f.observe(Digest::mixed(i % 170));
    }
    let json = serde_json::to_string(&f).unwrap();
    let mut g: ddf_cuckoo::StreamingCuckoo = serde_json::from_str(&json).unwrap();
    assert_eq!(g.to_bytes(), f.to_bytes());
    for i in 0..300 {
        assert_eq!(
            g.observe(Digest::mixed(i % 250)),
            f.observe(Digest::mixed(i % 250))
        );
    }
    // Corrupt bytes are rejected by the decoder, not accepted or panicked on.
    let mut bytes = f.to_bytes();
    bytes[20] ^= 1;
    let bad = serde_json::to_string(&bytes).unwrap();
    assert!(serde_json::from_str::<ddf_cuckoo::StreamingCuckoo>(&bad).is_err());
}
