//! Keeping the candidates that meet every requirement, ranking them, and
//! saying per family why none did.
//!
//! **Ranking.** With a target rate, least memory first; with a memory
//! budget alone, least predicted `FPR + FNR`; ties to the cheaper
//! [`Cost`](super::Cost), then to fewer accesses.
//!
//! **Cost rule** (with a target rate, where every candidate kept meets it):
//! a candidate is *dominated* by another that needs at most
//! [`DOMINANCE_MEMORY`] (1.25×) its memory and whose predicted memory time
//! ([`Cost::memory_ns`](super::Cost::memory_ns)) is less than half its own
//! ([`DOMINANCE_COST`]: for tables of one cache tier that do not scan, more
//! than twice the accesses). A dominated candidate is **ranked after every
//! candidate that dominates it**, not dropped: `plan(..)[0]` is never
//! dominated, and a caller who asks for a family by name (the command's
//! `--filter`, the Redis module's `FILTER`, the Python package's
//! `family=`) still finds it. [`Candidate::dominated_by`] names the first
//! of its dominators. With a budget alone the rule does not apply: the
//! error the user asked to minimize ranks, cost only breaks ties.

use super::{Candidate, Need, Requirements};
use ddf_core::ParamError;
use std::fmt;

/// Why one family offers no candidate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exclusion {
    /// The family's name (as [`Candidate::family`] gives it).
    pub family: &'static str,
    /// The requirement it cannot meet, in words.
    pub reason: String,
}

/// Why [`plan`](super::plan) has no configuration to offer.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum PlanError {
    /// A requirement is out of range, or neither a target nor a budget was
    /// given: the [`ParamError`] names it.
    Invalid(ParamError),
    /// The requirements are valid but no family compiled in meets them: one
    /// [`Exclusion`] per family, naming the requirement that excluded it.
    NoCandidate(Vec<Exclusion>),
    /// [`plan_sharded`](crate::plan_sharded) over a count window: the
    /// binomial excess of `shards` shards, `S·w_s − w` merged insertions
    /// (each shard holds the `1 − δ/S` quantile of its share), is itself
    /// merged slack and exceeds the `max_slack` accepted; `fits` shards
    /// (the largest count a bisection over `1..S` finds, at least 1) keep
    /// it within the limit.
    TooManyShards {
        /// The shard count asked for.
        shards: usize,
        /// Its binomial excess, in merged insertions.
        excess: u64,
        /// The slack accepted ([`Requirements::slack_limit`](super::Requirements::slack_limit)).
        max_slack: u64,
        /// A shard count whose excess is at most `max_slack`.
        fits: usize,
    },
}

impl PlanError {
    /// The requirement an [`Invalid`](Self::Invalid) error names, or
    /// `shards` for [`TooManyShards`](Self::TooManyShards).
    pub fn param(&self) -> Option<&'static str> {
        match self {
            PlanError::Invalid(e) => Some(e.param()),
            PlanError::NoCandidate(_) => None,
            PlanError::TooManyShards { .. } => Some("shards"),
        }
    }

    /// The families excluded and why (empty for the other errors).
    pub fn exclusions(&self) -> &[Exclusion] {
        match self {
            PlanError::NoCandidate(list) => list,
            PlanError::Invalid(_) | PlanError::TooManyShards { .. } => &[],
        }
    }
}

impl From<ParamError> for PlanError {
    fn from(e: ParamError) -> Self {
        PlanError::Invalid(e)
    }
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::Invalid(e) => write!(f, "invalid requirements: {e}"),
            PlanError::NoCandidate(list) if list.is_empty() => {
                write!(
                    f,
                    "no filter meets the requirements: no family is compiled in"
                )
            }
            PlanError::NoCandidate(list) => {
                write!(f, "no filter meets the requirements")?;
                for e in list {
                    write!(f, "; {}: {}", e.family, e.reason)?;
                }
                Ok(())
            }
            PlanError::TooManyShards {
                shards,
                excess,
                max_slack,
                fits,
            } => write!(
                f,
                "{shards} shards hold {excess} merged insertions beyond the window (the \
                 binomial excess S·w_s − w), above max_slack {max_slack}: {fits} shards \
                 meet it, or raise max_slack to {excess}"
            ),
        }
    }
}

impl std::error::Error for PlanError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PlanError::Invalid(e) => Some(e),
            PlanError::NoCandidate(_) | PlanError::TooManyShards { .. } => None,
        }
    }
}

/// The first requirement `c` fails, in words, or `None` when it meets all.
fn unmet(req: &Requirements, need: &Need, c: &Candidate) -> Option<String> {
    if c.false_negatives && !req.false_negatives {
        return Some(format!(
            "misses items within the window (predicted FNR {:.3e}); allow_false_negatives(true) accepts it",
            c.fnr
        ));
    }
    if c.slack > need.max_slack {
        return Some(format!(
            "slack {} beyond the window exceeds max_slack {}",
            c.slack, need.max_slack
        ));
    }
    if let Some(m) = need.budget
        && c.memory_bits > m
    {
        return Some(format!(
            "needs {} bits, above memory_budget {m}",
            c.memory_bits
        ));
    }
    if let Some(p) = need.target()
        && (c.fpr.is_nan() || c.fpr > p)
    {
        return Some(format!("FPR {:.3e} above fpr {p:e}", c.fpr));
    }
    if c.accesses.is_nan() || c.accesses > req.max_accesses {
        return Some(format!(
            "{:.1} accesses per operation, above max_accesses {}",
            c.accesses, req.max_accesses
        ));
    }
    None
}

/// Orders two predicted error rates by their first nine decimals:
/// saturated rates are `FPR + (1 − FPR)` for several families, equal but
/// for rounding, and rounding must not rank them (rounded keys keep the
/// order total, as `sort_by` needs).
fn error_order(a: f64, b: f64) -> std::cmp::Ordering {
    let key = |x: f64| (x * 1e9).round();
    key(a).total_cmp(&key(b))
}

/// How much more memory than a candidate another may take and still
/// dominate it (the cost rule of the module docs).
const DOMINANCE_MEMORY: f64 = 1.25;

/// How many times a dominating candidate's memory time a dominated one
/// exceeds (the cost rule of the module docs).
const DOMINANCE_COST: f64 = 2.0;

/// Whether `cheap` dominates `costly`: at most [`DOMINANCE_MEMORY`] times
/// its memory at less than `1/`[`DOMINANCE_COST`] of its memory time.
fn dominates(cheap: &Candidate, costly: &Candidate) -> bool {
    cheap.memory_bits as f64 <= DOMINANCE_MEMORY * costly.memory_bits as f64
        && costly.cost.memory_ns() > DOMINANCE_COST * cheap.cost.memory_ns()
}

/// Reorders `ranked` so that every candidate comes after all those that
/// dominate it, otherwise keeping the order: each place goes to the first
/// candidate left that no other candidate left dominates. Domination
/// halves the memory time at each step, so it has no cycle and some
/// candidate is always free.
fn demote_dominated(ranked: Vec<Candidate>) -> Vec<Candidate> {
    let mut left = ranked;
    let mut out = Vec::with_capacity(left.len());
    while !left.is_empty() {
        let free = (0..left.len())
            .find(|&i| !left.iter().any(|d| dominates(d, &left[i])))
            .unwrap_or(0);
        let mut next = left.remove(free);
        next.dominated_by = out
            .iter()
            .find(|d: &&Candidate| dominates(d, &next))
            .map(Candidate::family);
        out.push(next);
    }
    out
}

/// Keeps the sized candidates that meet `req` and ranks them (module
/// docs): with a target, least memory first, then the cost rule; with a
/// budget alone, least `FPR + FNR`; ties to the cheaper cost, then fewer
/// accesses, then less memory (for candidates rated at saturation, where
/// `FPR + FNR` is about 1 for all: the least FNR). The final tie-break is
/// the registry's entry order: `sized` comes in that order
/// (`crate::registry::ADAPTERS`) and the sort is stable.
/// `sized` holds, per family, its candidate or why it has none.
pub(super) fn rank(
    req: &Requirements,
    need: &Need,
    sized: Vec<(&'static str, Result<Candidate, String>)>,
) -> Result<Vec<Candidate>, PlanError> {
    let mut kept = Vec::new();
    let mut excluded = Vec::new();
    for (family, outcome) in sized {
        match outcome.and_then(|c| match unmet(req, need, &c) {
            None => Ok(c),
            Some(why) => Err(why),
        }) {
            Ok(c) => kept.push(c),
            Err(reason) => excluded.push(Exclusion { family, reason }),
        }
    }
    if kept.is_empty() {
        return Err(PlanError::NoCandidate(excluded));
    }
    let by_memory = need.target().is_some();
    kept.sort_by(|a, b| {
        let primary = if by_memory {
            a.memory_bits.cmp(&b.memory_bits)
        } else {
            error_order(a.fpr + a.fnr, b.fpr + b.fnr)
        };
        // Saturated candidates share FPR + FNR ≈ 1: within the target, the
        // one that misses least (the higher FPR) first; further ties keep
        // the registry's entry order (QHT first among them).
        let last = if a.saturated && b.saturated {
            error_order(a.fnr, b.fnr)
        } else {
            a.memory_bits.cmp(&b.memory_bits)
        };
        primary
            .then(a.cost.one_ns.total_cmp(&b.cost.one_ns))
            .then(a.accesses.total_cmp(&b.accesses))
            .then(last)
    });
    Ok(if by_memory {
        demote_dominated(kept)
    } else {
        kept
    })
}
