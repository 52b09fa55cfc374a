//! Keeping the candidates that meet every requirement, ranking them, and
//! saying per family why none did.

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
}

impl PlanError {
    /// The requirement an [`Invalid`](Self::Invalid) error names.
    pub fn param(&self) -> Option<&'static str> {
        match self {
            PlanError::Invalid(e) => Some(e.param()),
            PlanError::NoCandidate(_) => None,
        }
    }

    /// The families excluded and why (empty for an invalid requirement).
    pub fn exclusions(&self) -> &[Exclusion] {
        match self {
            PlanError::Invalid(_) => &[],
            PlanError::NoCandidate(list) => list,
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
        }
    }
}

impl std::error::Error for PlanError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PlanError::Invalid(e) => Some(e),
            PlanError::NoCandidate(_) => None,
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

/// Keeps the sized candidates that meet `req` and ranks them: with a
/// target, least memory first; with a budget alone, least `FPR + FNR`;
/// ties to fewer accesses, then less memory (for candidates rated at
/// saturation, where `FPR + FNR` is about 1 for all: the least FNR). The
/// final tie-break is the registry's entry order: `sized` comes in that
/// order (`crate::registry::ADAPTERS`) and the sort is stable.
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
        primary.then(a.accesses.total_cmp(&b.accesses)).then(last)
    });
    Ok(kept)
}
