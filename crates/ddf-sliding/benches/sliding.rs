//! Speed of the sliding Bloom filter.
fn main() {}
