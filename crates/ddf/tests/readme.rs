//! The bits-per-element columns of the guide (`src/guide/2-at-a-glance.md`, the
//! `ddf::guide` page) are what the planner computes from ddf-theory: a
//! change to a sizing function shows up here.

use ddf::{Requirements, plan};

/// The window (or distinct items) of the README's table.
const N: u64 = 1 << 16;

/// Bits per element of `family`'s planned configuration at rate `p`.
fn bits(family: &str, p: f64) -> f64 {
    let req = match family {
        "partitioned Bloom" => Requirements::unbounded().distinct_items(N as f64),
        // Its slack, k generations, is beyond the default 1 % of the window.
        "APBF" | "APBBF" => Requirements::count(N).max_slack(u64::MAX),
        _ => Requirements::count(N),
    };
    let list = plan(&req.fpr(p).max_accesses(1e12)).expect("valid requirements");
    let c = list
        .iter()
        .find(|c| c.family() == family)
        .unwrap_or_else(|| panic!("no {family} candidate"));
    c.memory_bits as f64 / N as f64
}

const FAMILIES: [&str; 7] = [
    "exact window",
    "SHF",
    "compact SHF",
    "APBF",
    "APBBF",
    "sliding Bloom",
    "partitioned Bloom",
];

#[test]
fn readme_bits_per_element_match_the_planner() {
    let guide = include_str!("../src/guide/2-at-a-glance.md");
    for family in FAMILIES {
        let cells = format!("| {:.1} | {:.1} |", bits(family, 0.01), bits(family, 0.001));
        let row = guide
            .lines()
            .find(|l| l.starts_with(&format!("| {family} ")))
            .unwrap_or_else(|| panic!("no guide row for {family}"));
        assert!(row.contains(&cells), "{family}: expected {cells} in\n{row}");
    }
}
