//! Checks of merging filters kept on several nodes (`ddf::Filter::merge`,
//! `ddf_theory::merge`): one stream split at random across 2 and 8 nodes,
//! each node's filter planned for the combined rate, the nodes' filters
//! merged, then judged against an exact oracle of the whole stream: no
//! item of the window missed, and the false-positive rate of fresh items
//! within the family's prediction at the combined rate.

use crate::outcome::Outcome;
use crate::{Check, Ctx};
use ddf::hash::SplitMix64;
use ddf::theory::merge::node_capacity;
use ddf::{Digest, Family, Filter, Requirements, TimedFilter, plan};
use ddf_sim::Arrivals;
use std::collections::HashMap;

const MERGE: &str = "merged nodes (ddf_theory::merge: union of the nodes' states, rate at the combined arrival rate)";

/// The time window, in time units.
const SPAN: u64 = 1_000_000;
/// Mean gap between arrivals of the combined stream: 10⁵ items per window.
const MEAN_GAP: f64 = 10.0;
/// The rate target every node is planned for.
const FPR: f64 = 0.01;
/// The share of arrivals that repeat a key of the last window.
const REPEATS: u64 = 3;

macro_rules! merge_checks {
    ($($slug:literal, $nodes:literal, $no_fn:literal, $fpr:literal;)*) => {
        vec![$(
            Check {
                id: $no_fn,
                paper: MERGE,
                run: |ctx| run(ctx, $slug, $nodes).no_fn(),
            },
            Check {
                id: $fpr,
                paper: MERGE,
                run: |ctx| run(ctx, $slug, $nodes).fpr(),
            },
        )*]
    };
}

pub(crate) fn checks() -> Vec<Check> {
    merge_checks! {
        "apbf", 2, "merge/apbf-2-nodes-no-fn", "merge/apbf-2-nodes-fpr";
        "apbf", 8, "merge/apbf-8-nodes-no-fn", "merge/apbf-8-nodes-fpr";
        "apbbf", 2, "merge/apbbf-2-nodes-no-fn", "merge/apbbf-2-nodes-fpr";
        "apbbf", 8, "merge/apbbf-8-nodes-no-fn", "merge/apbbf-8-nodes-fpr";
        "sliding", 2, "merge/sliding-2-nodes-no-fn", "merge/sliding-2-nodes-fpr";
        "sliding", 8, "merge/sliding-8-nodes-no-fn", "merge/sliding-8-nodes-fpr";
        "exact", 2, "merge/exact-2-nodes-no-fn", "merge/exact-2-nodes-fpr";
        "exact", 8, "merge/exact-8-nodes-no-fn", "merge/exact-8-nodes-fpr";
        "bloom", 2, "merge/bloom-2-nodes-no-fn", "merge/bloom-2-nodes-fpr";
        "bloom", 8, "merge/bloom-8-nodes-no-fn", "merge/bloom-8-nodes-fpr";
    }
}

/// What one run measured: the window's items missed by the merge, fresh
/// items reported, and the prediction.
struct Measured {
    family: &'static str,
    nodes: usize,
    /// Items of the window (the oracle's) asked, and missed.
    asked: u64,
    missed: u64,
    /// Fresh items asked, and reported.
    fresh: u64,
    false_positives: u64,
    /// The planner's rate for the combined stream.
    predicted: f64,
    config: String,
    /// Why the run could not be made.
    error: Option<String>,
}

impl Measured {
    fn failed(family: &'static str, nodes: usize, error: String) -> Measured {
        Measured {
            family,
            nodes,
            asked: 0,
            missed: 0,
            fresh: 0,
            false_positives: 0,
            predicted: 0.0,
            config: String::new(),
            error: Some(error),
        }
    }

    fn note(&self) -> String {
        format!(
            "{} over {} nodes ({}): {}/{} window items missed, {}/{} fresh items reported, \
             predicted rate {:.3e}{}",
            self.family,
            self.nodes,
            self.config,
            self.missed,
            self.asked,
            self.false_positives,
            self.fresh,
            self.predicted,
            self.error
                .as_deref()
                .map(|e| format!("; {e}"))
                .unwrap_or_default()
        )
    }

    /// Every item of the window is reported: an exact check (the merge's
    /// promise holds for every item, with no early close at this rate).
    fn no_fn(self) -> Outcome {
        let bad = if self.error.is_some() || self.asked == 0 {
            1.0
        } else {
            self.missed as f64
        };
        Outcome::exact(0.0, bad).note(self.note())
    }

    /// The rate of fresh items: each is reported independently given the
    /// merged state, with probability at most the prediction for the
    /// combined stream (the planner sizes for the Poisson arrival bound, so
    /// the fill stays at or below the design): a binomial bound, failing
    /// only if the Clopper–Pearson interval lies above it. The exact
    /// window's prediction is 0, so one report fails.
    fn fpr(self) -> Outcome {
        if self.error.is_some() || self.fresh == 0 {
            return Outcome::exact(0.0, 1.0).note(self.note());
        }
        let out = if self.predicted == 0.0 {
            Outcome::exact(0.0, self.false_positives as f64)
        } else {
            Outcome::binomial_at_most(self.predicted, self.false_positives, self.fresh)
        };
        out.note(self.note())
    }
}

/// Plans the family `slug` for the combined stream: a time window of
/// [`SPAN`] at the combined rate, or, for the whole-stream Bloom filter,
/// the distinct items of the whole stream.
fn planned(slug: &str, items: u64) -> Result<(Filter, f64, String), String> {
    let family: Family = slug.parse().map_err(|e| format!("{e}"))?;
    if family == Family::Exact {
        // The exact window is built, not planned: its capacity is the
        // combined stream's arrivals per window (`ddf_theory::merge`).
        let capacity = node_capacity(1.0 / MEAN_GAP, SPAN as f64, 1e-9).ceil() as u64;
        let f = Filter::exact_time(SPAN, capacity).map_err(|e| e.to_string())?;
        return Ok((f, 0.0, format!("exact window, capacity {capacity}")));
    }
    let req = if family == Family::Bloom {
        Requirements::unbounded()
            .fpr(FPR)
            .distinct_items(items as f64)
    } else {
        // Any slack: the checks are of the window and of fresh items.
        Requirements::time(SPAN, 1.0 / MEAN_GAP)
            .fpr(FPR)
            .max_slack(u64::MAX)
    };
    let candidate = plan(&req)
        .map_err(|e| e.to_string())?
        .into_iter()
        .find(|c| Family::of(&c.config) == family)
        .ok_or_else(|| format!("the planner offers no {slug} filter"))?;
    let filter = candidate.build().map_err(|e| e.to_string())?;
    Ok((filter, candidate.fpr, format!("{}", candidate)))
}

/// One stream of Poisson arrivals (mean gap [`MEAN_GAP`]), one key in
/// [`REPEATS`] of ten a repeat of a key of the last window, split across
/// `nodes` at random; the nodes' filters merged; the merge asked about
/// every key of the last window and as many fresh keys.
fn run(ctx: &Ctx, slug: &'static str, nodes: usize) -> Measured {
    let windows = ctx.pick(2u64, 3);
    let items = windows * (SPAN as f64 / MEAN_GAP) as u64;
    let (empty, predicted, config) = match planned(slug, items) {
        Ok(p) => p,
        Err(e) => return Measured::failed(slug, nodes, e),
    };
    let seed = ctx.seeds(0x3e76 + nodes as u64, 1)[0];
    let mut rng = SplitMix64::new(seed);
    let mut arrivals = Arrivals::poisson(MEAN_GAP, seed ^ 0x5a).expect("gap > 0");
    let mut parts = vec![empty.clone(); nodes];
    let mut last: HashMap<u64, u64> = HashMap::new();
    let mut recent: Vec<u64> = Vec::new();
    let window_items = (SPAN as f64 / MEAN_GAP) as usize;
    let mut now = 0;
    for i in 0..items {
        now = arrivals.next_time();
        let key = if !recent.is_empty() && rng.below(10) < REPEATS {
            recent[rng.below(recent.len() as u64) as usize]
        } else {
            i
        };
        if recent.len() < window_items {
            recent.push(key);
        } else {
            recent[(i as usize) % window_items] = key;
        }
        last.insert(key, now);
        parts[rng.below(nodes as u64) as usize].insert_at(Digest::mixed(key), now);
    }
    let mut merged = parts[0].clone();
    for p in &parts[1..] {
        if let Err(e) = merged.merge(p) {
            return Measured::failed(slug, nodes, format!("merge refused: {e}"));
        }
    }
    let whole_stream = !merged.is_timed();
    let (mut asked, mut missed) = (0, 0);
    for (&key, &at) in &last {
        if whole_stream || now - at < SPAN {
            asked += 1;
            missed += u64::from(!merged.contains_at(Digest::mixed(key), now));
        }
    }
    let fresh = asked.max(10_000);
    let false_positives = (0..fresh)
        .filter(|j| merged.contains_at(Digest::mixed((1 << 62) | j), now))
        .count() as u64;
    Measured {
        family: slug,
        nodes,
        asked,
        missed,
        fresh,
        false_positives,
        predicted,
        config: format!(
            "{config}; {} closed early",
            merged.generations_closed_early()
        ),
        error: None,
    }
}
