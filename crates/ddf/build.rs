//! Sets `cfg(some_families_off)` when a family feature is switched off, so
//! that the items only some families use (planner helpers, the forwarding
//! macros' arms, the registry's generated functions) allow, each where it
//! sits, the lints an absent family leaves (listing every feature in each
//! attribute is what it replaces).

/// The family features of `Cargo.toml`.
const FAMILIES: [&str; 8] = [
    "EXACT", "QHT", "CUCKOO", "BLOOM", "APBF", "SHF", "QUEUE", "SLIDING",
];

fn main() {
    println!("cargo::rustc-check-cfg=cfg(some_families_off)");
    println!("cargo::rerun-if-changed=build.rs");
    let off = FAMILIES
        .iter()
        .any(|f| std::env::var_os(format!("CARGO_FEATURE_{f}")).is_none());
    if off {
        println!("cargo::rustc-cfg=some_families_off");
    }
}
