//! serde round trip through JSON: a filter serializes as its snapshot bytes
//! and comes back through the validating decoder (feature `serde`).
#![cfg(feature = "serde")]

ddf_core::serde_round_trip!(json, ddf_apbf::Apbf::new(4, 6, 2_000).unwrap(), serde_json);
