//! Runs `examples/quickstart.rs` as a user of `cargo add ddf` would, and
//! checks what it prints.

#[path = "../examples/quickstart.rs"]
#[allow(dead_code)]
mod quickstart;

#[test]
fn the_quickstart_example_plans_builds_and_deduplicates() {
    let lines = quickstart::run().expect("the example's requirements are valid");
    // At least the exact window, SHF, CSHF, APBF and the sliding Bloom filter.
    assert!(lines.len() >= 5, "{lines:#?}");
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

#[path = "../examples/shared.rs"]
#[allow(dead_code)]
mod shared;

#[test]
fn the_shared_example_observes_from_threads_and_reloads_any_kind() {
    let lines = shared::run().expect("the example runs");
    assert!(lines[0].starts_with("plan: 4 shards of "), "{lines:#?}");
    // No misses inside the window were required: every repeat is caught.
    for t in 0..4 {
        let line = &lines[1 + t];
        assert!(line.contains(" 2250 of 2250 repeats caught"), "{line}");
    }
    // Four shards loaded back, each reporting its window and slack.
    let shards: Vec<_> = lines.iter().filter(|l| l.starts_with("shard ")).collect();
    assert_eq!(shards.len(), 4, "{lines:#?}");
    assert!(
        shards.iter().all(|l| l.contains("window Count(")),
        "{shards:#?}"
    );
    assert_eq!(
        lines.last().unwrap(),
        "restored: latest events remembered: true"
    );
}
