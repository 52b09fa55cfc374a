//! Runs `examples/quickstart.rs` as a user of `cargo add ddf` would, and
//! checks what it prints.

#[path = "../examples/quickstart.rs"]
#[allow(dead_code)]
mod quickstart;

#[test]
fn the_quickstart_example_plans_builds_and_deduplicates() {
    let lines = quickstart::run().expect("the example's requirements are valid");
    // At least the exact window, SHF and the sliding Bloom filter (the APBF's
    // slack exceeds the default), and the run's tally.
    assert!(lines.len() >= 4, "{lines:#?}");
    let last = lines.last().unwrap();
    // No misses inside the window was required; false alarms stay near 0.1%.
    assert!(last.contains(" 0 repeats missed"), "{last}");
    let alarms: u64 = last
        .split(", ")
        .nth(2)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("a count of new events reported");
    assert!(alarms < 200, "{last}");
}
