//! serde round trip through JSON: a filter serializes as its snapshot bytes
//! and comes back through the validating decoder (feature `serde`).
#![cfg(feature = "serde")]

ddf_core::serde_round_trip!(json, ddf_exact::ExactWindow::new(100).unwrap(), serde_json);
