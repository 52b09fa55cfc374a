//! Insert and query speed of the Bloom family at the QHT paper's 1 Mbit.
fn main() {}
