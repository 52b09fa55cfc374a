//! Merging filters kept over parts of one stream: the [`Merge`] trait and
//! [`MergeError`], the reason a merge is refused.
//!
//! When one machine is not enough, each node keeps its own filter over its
//! share of the stream; merging their filters answers "seen on any node in
//! the window". A merge is meaningful only for filters of the same kind,
//! parameters and hash key whose window is a time window on a shared clock
//! (generations `⌊t/τ⌋`, aligned to the clock's zero) or the whole stream.
//! A count window counts the insertions of one stream, so filters over
//! count windows never merge.
//!
//! The promise of a merged filter: every item seen by either side within
//! the window is reported (no false negative, as each side promised), and
//! its false-positive rate is the family's prediction at the combined
//! arrival rate. Each node is therefore sized for the whole stream's rate,
//! not its share (`ddf_theory::merge`).

use std::fmt;

/// A filter that merges with another of its type: afterwards `self`
/// answers for the items of both streams.
pub trait Merge {
    /// Merges `other` into `self`, or says why the two cannot merge (and
    /// leaves `self` unchanged). Merging an empty filter changes nothing.
    fn merge(&mut self, other: &Self) -> Result<(), MergeError>;
}

/// Why two filters cannot merge: the first difference found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MergeError {
    /// Different filter types (families).
    Kind {
        /// The family of the filter merged into.
        this: String,
        /// The family of the other filter.
        other: String,
    },
    /// The same type with a different parameter.
    Parameter {
        /// The parameter's name.
        name: &'static str,
        /// Its value in the filter merged into.
        this: String,
        /// Its value in the other filter.
        other: String,
    },
    /// The items were hashed under different keys, so equal items have
    /// different digests.
    HashKey,
    /// Generations that do not start on the same grid of the shared clock.
    Epoch {
        /// Where the generations of the filter merged into start.
        this: String,
        /// Where those of the other filter start.
        other: String,
    },
    /// A count window: the last `w` insertions of one stream.
    CountWindow {
        /// The family.
        family: &'static str,
    },
    /// A family whose state keeps no union: the reason.
    Unsupported {
        /// The family.
        family: &'static str,
        /// Why its state cannot merge.
        reason: &'static str,
    },
}

impl MergeError {
    /// A parameter that differs, with both values.
    pub fn parameter(
        name: &'static str,
        this: impl fmt::Display,
        other: impl fmt::Display,
    ) -> Self {
        MergeError::Parameter {
            name,
            this: this.to_string(),
            other: other.to_string(),
        }
    }

    /// `Ok` when `this == other`, else the [`Parameter`](Self::Parameter)
    /// error naming `name` and both values.
    pub fn check<T: PartialEq + fmt::Display>(
        name: &'static str,
        this: T,
        other: T,
    ) -> Result<(), Self> {
        if this == other {
            Ok(())
        } else {
            Err(Self::parameter(name, this, other))
        }
    }
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MergeError::Kind { this, other } => {
                write!(f, "cannot merge a {other} filter into a {this} filter")
            }
            MergeError::Parameter { name, this, other } => write!(
                f,
                "cannot merge filters whose {name} differs: {this} here, {other} in the other"
            ),
            MergeError::HashKey => f.write_str(
                "cannot merge filters whose hash keys differ: equal items have different digests \
                 (start every node from one state, or give them one key)",
            ),
            MergeError::Epoch { this, other } => write!(
                f,
                "cannot merge filters whose generations are not aligned: {this} here, {other} in the other"
            ),
            MergeError::CountWindow { family } => write!(
                f,
                "cannot merge {family} filters over a count window: a count is a property of one \
                 stream (use a time window)"
            ),
            MergeError::Unsupported { family, reason } => {
                write!(f, "cannot merge {family} filters: {reason}")
            }
        }
    }
}

impl std::error::Error for MergeError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_refusal_names_its_difference() {
        let p = MergeError::check("k", 3, 4).unwrap_err().to_string();
        assert!(p.contains('k') && p.contains('3') && p.contains('4'), "{p}");
        assert_eq!(MergeError::check("k", 3, 3), Ok(()));
        let c = MergeError::CountWindow { family: "APBF" }.to_string();
        assert!(c.contains("count window") && c.contains("APBF"), "{c}");
        let e = MergeError::Epoch {
            this: "opened at 5".into(),
            other: "opened at 0".into(),
        }
        .to_string();
        assert!(e.contains("opened at 5") && e.contains("aligned"), "{e}");
        assert!(MergeError::HashKey.to_string().contains("hash key"));
        let k = MergeError::Kind {
            this: "APBF".into(),
            other: "QHT".into(),
        }
        .to_string();
        assert!(k.contains("APBF") && k.contains("QHT"), "{k}");
    }
}
