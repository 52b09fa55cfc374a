//! `sliding-space`: bits per element and false-positive rate of the windowed filters, next to the Naor–Yogev lower bound.

use super::{Producer, Table};
use crate::Options;
use crate::sliding_rows::{APBBF_QUOTED, SWAMP_QUOTED, space_rows};
use ddf_core::{Digest, DuplicateFilter, Windowed};
use ddf_hash::KeyedSipHasher;
use ddf_sim::{run_seeds, threads};
use ddf_sliding::{LayoutChoice, Slack, SlidingBloom};
use ddf_theory::sliding_bloom::{
    lower_bound_bits, succinct_construction_bits, theorem_1_1_bits, theorem_1_1_generations,
};

pub(crate) fn producers() -> Vec<Producer> {
    vec![
        Producer {
            name: "sliding-space",
            make: sliding_space,
        },
        Producer {
            name: "sliding-space-breakdown",
            make: sliding_space_breakdown,
        },
    ]
}

/// A windowed filter the table can measure.
trait WindowedFilter: DuplicateFilter + Windowed + Send {}
impl<F: DuplicateFilter + Windowed + Send> WindowedFilter for F {}

/// Builds a filter for a window `n`, a slack (`None`: whatever slack gives
/// the least space) and `ε`; `None` when the family cannot meet them.
type Build = fn(u64, Option<u64>, f64) -> Option<Box<dyn WindowedFilter>>;

/// A filter family in the comparison: its name and its builder.
struct Candidate {
    name: &'static str,
    build: Build,
}

/// The measured filters. APBF and APBBF (`ddf-apbf`) and SHF (`ddf-shf`)
/// join with one line each once their crates land.
fn candidates() -> Vec<Candidate> {
    vec![
        Candidate {
            name: "naor-yogev",
            build: |n, m, eps| Some(Box::new(sliding(n, m, eps, Plan::Auto)?)),
        },
        Candidate {
            name: "naor-yogev-least-space",
            build: |n, m, eps| Some(Box::new(sliding(n, m, eps, Plan::LeastSpace)?)),
        },
    ]
}

/// How a row's sliding Bloom filter is planned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plan {
    /// `SlidingBloom::new`: the default, buckets that favour speed.
    Auto,
    /// `LayoutChoice::LeastSpace`: the fewest bits.
    LeastSpace,
}

impl Plan {
    fn label(self) -> &'static str {
        match self {
            Plan::Auto => "auto",
            Plan::LeastSpace => "least-space",
        }
    }
}

/// The sliding Bloom filter of a row, `None` if it cannot meet the row.
fn sliding(n: u64, m: Option<u64>, eps: f64, plan: Plan) -> Option<SlidingBloom> {
    let slack = m.map_or(Slack::LeastSpace, Slack::AtMost);
    match plan {
        Plan::Auto => SlidingBloom::new(n, slack, eps),
        Plan::LeastSpace => SlidingBloom::planned(n, slack, None, eps, LayoutChoice::LeastSpace),
    }
    .ok()
}

/// The false-positive rate of items older than `n + slack`: an all-distinct
/// stream of four reaches, then a query of every item that left the reach
/// (at most `cap` of them).
fn measured_fp(f: &mut dyn WindowedFilter, n: u64, cap: u64, seed: u64) -> f64 {
    let hasher = KeyedSipHasher::with_seed(seed);
    let d = |id: u64| -> Digest { ddf_hash::digest(&hasher, &id) };
    let reach = n + f.slack();
    let total = 4 * reach;
    for id in 0..total {
        f.insert(d(id));
    }
    let old = (total - reach - 1).min(cap);
    let fps = (0..old).filter(|&id| f.contains(d(id))).count();
    fps as f64 / old as f64
}

/// The construction at Theorem 1.1's `c` (rounded up) with an ideal succinct
/// dictionary, counted exactly (`succinct_construction_bits`).
fn succinct_bits(n: f64, m: f64, eps: f64) -> f64 {
    succinct_construction_bits(n, theorem_1_1_generations(n, m, eps), eps)
}

fn slack_label(m: Option<u64>) -> String {
    m.map_or_else(|| "inf".to_string(), |m| m.to_string())
}

fn sliding_space(opts: &Options) -> Table {
    let cap = if opts.quick { 200_000 } else { 2_000_000 };
    let configs = space_rows();

    let mut rows: Vec<Vec<String>> = Vec::new();
    for c in candidates() {
        let index: Vec<u64> = (0..configs.len() as u64).collect();
        let measured = run_seeds(&index, threads(), |i| {
            let (n, m, eps) = configs[i as usize];
            (c.build)(n, m, eps).map(|mut f| {
                let bits = f.memory_bits() as f64 / n as f64;
                let seed = ddf_hash::mix64(opts.seed ^ ddf_hash::mix64(i));
                (bits, measured_fp(f.as_mut(), n, cap, seed))
            })
        });
        for (&(n, m, eps), result) in configs.iter().zip(measured) {
            if let Some((bits, fp)) = result {
                rows.push(vec![
                    n.to_string(),
                    slack_label(m),
                    format!("{eps:e}"),
                    c.name.to_string(),
                    format!("{bits:.2}"),
                    format!("{fp:.3e}"),
                ]);
            }
        }
    }
    for &(n, m, eps) in &configs {
        let mf = m.map_or(f64::INFINITY, |m| m as f64);
        let nf = n as f64;
        if mf > 0.0 {
            rows.push(vec![
                n.to_string(),
                slack_label(m),
                format!("{eps:e}"),
                "lower-bound-thm-1.2".to_string(),
                format!("{:.2}", lower_bound_bits(nf, mf, eps) / nf),
                String::new(),
            ]);
            rows.push(vec![
                n.to_string(),
                slack_label(m),
                format!("{eps:e}"),
                "construction-thm-1.1".to_string(),
                format!("{:.2}", theorem_1_1_bits(nf, mf, eps) / nf),
                String::new(),
            ]);
            rows.push(vec![
                n.to_string(),
                slack_label(m),
                format!("{eps:e}"),
                "construction-succinct".to_string(),
                format!("{:.2}", succinct_bits(nf, mf, eps) / nf),
                String::new(),
            ]);
        }
    }
    for &(eps, bits) in &SWAMP_QUOTED {
        rows.push(vec![
            (1u64 << 16).to_string(),
            "0".to_string(),
            format!("{eps:e}"),
            "swamp-quoted".to_string(),
            format!("{bits:.1}"),
            String::new(),
        ]);
    }
    for &(k, l, eps, bits) in &APBBF_QUOTED {
        rows.push(vec![
            (1u64 << 16).to_string(),
            ((1u64 << 16) * k / l).to_string(),
            format!("{eps:e}"),
            format!("apbbf-quoted-k{k}-l{l}"),
            format!("{bits:.1}"),
            String::new(),
        ]);
    }
    // Rows of one configuration together, measured filters first.
    rows.sort_by(|a, b| {
        let key = |r: &Vec<String>| {
            (
                r[0].parse::<u64>().unwrap_or(0),
                r[2].parse::<f64>().map(|e| -e.log2()).unwrap_or(0.0),
                r[1].parse::<u64>().map_or(u64::MAX, |m| m),
            )
        };
        let (ka, kb) = (key(a), key(b));
        ka.0.cmp(&kb.0)
            .then(ka.1.total_cmp(&kb.1))
            .then(ka.2.cmp(&kb.2).reverse())
    });

    Table {
        name: "sliding-space",
        header: vec!["n", "slack", "epsilon", "filter", "bits_per_element", "measured_fp"],
        rows,
        note: "Space and false positives of windowed filters that report every item of the last `n` \
               insertions, may report the `slack` insertions before them, and report older or unseen \
               items with probability at most `epsilon` (the (n, m, ε) problem of Naor and Yogev, *Tight \
               Bounds for Sliding Bloom Filters*, §1.1; `inf` is m = ∞). `naor-yogev` is `ddf-sliding` \
               measured: bits per element are its `memory_bits / n`, `measured_fp` the rate over items \
               older than n + m after four such spans of distinct items, up to 2·10^5 queries (`--quick`) \
               or 2·10^6, so rates near 10^-6 read as 0 and a count k has a standard error of about √k \
               (its slack is at most the one asked for; with `inf` it is about n/c); the default plan, \
               `SlidingBloom::new`, whose buckets favour speed. `naor-yogev-least-space` is the same \
               filter planned for the least space (`LayoutChoice::LeastSpace`: design load 0.95, packed or \
               aligned buckets, whichever is smaller, and the remainder width and bucket count of fewest \
               bits, at three to four times the default's time an observe); it is within 2.5 bits of `construction-succinct` \
               at every row (`cargo xtask verify`, `sliding/least-space-near-succinct`). `lower-bound-thm-1.2` is Theorem 1.2 without its \
               −O(n) term, `construction-thm-1.1` the paper's own space at c = max(log2(1/ε), n/m) as its \
               formula prices it (no cost for the dictionary beyond log2(1/ε) bits of hash per entry), \
               `construction-succinct` the same c with an ideal succinct dictionary counted exactly, \
               ℬ(n'/ε, n') + n'·⌈log2(2c + 3)⌉ (see docs/errata.md). `swamp-quoted` and `apbbf-quoted-*` are the numbers of Table 4 of \
               *Age-Partitioned Bloom Filters* (SWAMP read off a figure of its paper, zero slack; APBBF \
               with slack k/l of the window), not measured here. APBF, APBBF and SHF get measured rows \
               once their crates land. No row means the filter cannot meet those parameters (a zero \
               slack at ε = 9·10^-7 needs tags and remainders wider than a 32-bit cell)."
            .into(),
    }
}

/// Where the sliding Bloom filter's bits go, per window element, at every
/// configuration of `sliding-space` for `n = 2^16` that it can build
/// (`SlidingBloom::space_breakdown`), next to Theorem 1.1.
fn sliding_space_breakdown(_opts: &Options) -> Table {
    let n = 1u64 << 16;
    let mut rows = Vec::new();
    for (_, m, eps) in space_rows().into_iter().filter(|r| r.0 == n) {
        for plan in [Plan::Auto, Plan::LeastSpace] {
            if let Some(f) = sliding(n, m, eps, plan) {
                rows.push(breakdown_row(n, m, eps, plan, &f));
            }
        }
    }
    Table {
        name: "sliding-space-breakdown",
        header: vec![
            "n",
            "slack",
            "epsilon",
            "plan",
            "c",
            "remainder_bits",
            "tag_bits",
            "cells_per_bucket",
            "design_load",
            "fingerprint",
            "extra_generation",
            "tags",
            "bucket_compare",
            "unused_cells",
            "padding",
            "stash_and_counters",
            "total",
            "construction_thm_1_1",
            "construction_succinct",
        ],
        rows,
        note: BREAKDOWN_NOTE.into(),
    }
}

const BREAKDOWN_NOTE: &str = "Where the bits of `ddf-sliding`'s sliding Bloom filter go, in bits per window \
     element (`SlidingBloom::space_breakdown`; the parts sum to `total`, its `memory_bits / n`), for the \
     default plan (`auto`, `SlidingBloom::new`) and the least-space one (`least-space`, \
     `LayoutChoice::LeastSpace`). `fingerprint` is log2(1/ε), the leading term of Theorems 1.1 and 1.2; \
     `extra_generation` the hashes of the (c + 1)-th generation, (n'/n − 1)·log2(1/ε) with \
     n' = (c + 1)·⌈n/c⌉; `tags` n'/n·s; `bucket_compare` n'/n·(r − log2(1/ε)), the remainder bits a \
     query comparing 2·b cells at load α needs beyond one comparison (log2(2bα), 2.85 at b = 4 and \
     α = 0.9) plus the rounding of r; `unused_cells` the cells no active entry fills (the design load \
     and the small-table margin); `padding` the bits of each bucket's 64- or 128-bit word that no cell \
     uses; `stash_and_counters` the 16 reserved stash entries and the counters. Theorem 1.1 \
     (`construction_thm_1_1`) prices no dictionary overhead at all; `construction_succinct` is its c \
     with an ideal succinct dictionary counted exactly, ℬ(n'/ε, n') + n'·⌈log2(2c + 3)⌉.";

/// One row of `sliding-space-breakdown`.
fn breakdown_row(n: u64, m: Option<u64>, eps: f64, plan: Plan, f: &SlidingBloom) -> Vec<String> {
    let b = f.space_breakdown();
    let nf = n as f64;
    let mf = m.map_or(f64::INFINITY, |m| m as f64);
    let (thm, succinct) = if mf > 0.0 {
        (
            format!("{:.2}", theorem_1_1_bits(nf, mf, eps) / nf),
            format!("{:.2}", succinct_bits(nf, mf, eps) / nf),
        )
    } else {
        (String::new(), String::new())
    };
    vec![
        n.to_string(),
        slack_label(m),
        format!("{eps:e}"),
        plan.label().to_string(),
        f.generations().to_string(),
        f.remainder_bits().to_string(),
        f.tag_bits().to_string(),
        f.cells_per_bucket().to_string(),
        format!("{:.2}", f.design_load()),
        format!("{:.2}", b.fingerprint),
        format!("{:.2}", b.extra_generation),
        format!("{:.2}", b.tags),
        format!("{:.2}", b.bucket_compare),
        format!("{:.2}", b.unused_cells),
        format!("{:.2}", b.padding),
        format!("{:.2}", b.stash + b.counters),
        format!("{:.2}", b.total),
        thm,
        succinct,
    ]
}
