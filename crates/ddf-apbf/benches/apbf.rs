//! Insert and query speed of APBF and APBBF.
fn main() {}
