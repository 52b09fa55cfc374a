//! serde round trip through JSON: a filter serializes as its snapshot bytes
//! and comes back through the validating decoder (feature `serde`).
#![cfg(feature = "serde")]

ddf_core::serde_round_trip!(
    json,
    ddf_sliding::SlidingBloom::new(500, ddf_sliding::Slack::AtMost(100), 1.0 / 256.0).unwrap(),
    serde_json
);
