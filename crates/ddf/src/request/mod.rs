//! The front door: what a user can ask for, in one type, and the one
//! answer to it.
//!
//! The `ddf` command, the Python package and the Redis module each read a
//! user's words in their own syntax (flags, keyword arguments, command
//! arguments) into a [`Request`], and ask it for the filter
//! ([`Request::choose`]) or the ranked list ([`Request::candidates`]).
//! Everything after the syntax happens here once: the defaults
//! ([`DEFAULT_FPR`], [`DEFAULT_RATE`]), the checks of every field and of
//! their combinations, the choice between the exact filter and the
//! planner, the named family, and the refusal when nothing fits. A refusal
//! ([`Refusal`]) is written in the caller's [`Vocabulary`], so a command
//! user reads `--misses-ok` where a Python user reads `misses_ok=True`,
//! and nobody reads the planner's method names.
//!
//! ```
//! use ddf::request::{Request, Vocabulary};
//!
//! let req = Request { window: Some(100_000), fpr: Some(1e-3), ..Request::default() };
//! let choice = req.choose(&Vocabulary::RUST)?;
//! assert!(choice.fpr <= 1e-3 && !choice.false_negatives);
//! let filter = choice.build()?;
//! # let _ = filter;
//!
//! // A fixed budget cannot follow the whole stream without misses.
//! let whole = Request { max_memory: Some(1 << 20), ..Request::default() };
//! let no = whole.choose(&Vocabulary::RUST).unwrap_err();
//! assert!(no.to_string().contains("allow_misses"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod parse;
pub mod time;

pub use parse::{parse_duration_ms, parse_size};

use crate::{Candidate, Cost, Family, Filter, ParamError, PlanError, Requirements, Window, plan};
use std::fmt;

/// The false-positive rate a filter is sized for when the request gives
/// neither a rate nor a memory budget: one unseen key in a million
/// reported as a duplicate.
pub const DEFAULT_FPR: f64 = 1e-6;

/// The arrivals per second a time window is sized for when the request
/// gives neither a rate nor a capacity.
pub const DEFAULT_RATE: f64 = 1000.0;

/// The largest count window, and the most arrivals a time window may be
/// sized for: the state limit of every family (2^40).
pub const MAX_WINDOW: u64 = ddf_param::MAX_STATE_BITS;

/// The largest memory budget, in bytes (2^40 bits).
pub const MAX_MEMORY_BYTES: u64 = ddf_param::MAX_STATE_BITS / 8;

/// How far beyond the window a key may still be reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Slack {
    /// In the window's own unit: records for a count window, milliseconds
    /// for a time window.
    Units(u64),
    /// Text read by the window: a count of records for a count window, a
    /// duration (`5s`) for a time window.
    Text(String),
}

/// What a user can ask of a filter, in the units every front end shares:
/// windows of records or of milliseconds, rates per second, sizes in bytes.
///
/// Every field is optional; [`Request::default`] asks for the exact filter
/// of the whole stream.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Request {
    /// Remember the last this many records.
    pub window: Option<u64>,
    /// Remember the records of the last this many milliseconds.
    pub within_ms: Option<u64>,
    /// Expected records per second, to size a time window
    /// (default [`DEFAULT_RATE`]).
    pub rate: Option<f64>,
    /// Expected records per time window, to size it (instead of `rate`).
    pub capacity: Option<u64>,
    /// The false-positive rate not to exceed (default [`DEFAULT_FPR`]
    /// unless `max_memory` is given alone).
    pub fpr: Option<f64>,
    /// The most state, in bytes.
    pub max_memory: Option<u64>,
    /// Whether keys within the window may be missed.
    pub misses_ok: bool,
    /// The number of distinct keys of the whole stream.
    pub distinct: Option<f64>,
    /// How far beyond the window a key may still be reported (default:
    /// the planner's, 1 % of the window).
    pub slack: Option<Slack>,
    /// The family to use instead of the planner's first choice.
    pub family: Option<Family>,
    /// Remember every key of the window (no false positives but 64-bit
    /// digest collisions).
    pub exact: bool,
}

/// How a front end spells each field of a [`Request`], so a refusal names
/// what the user typed: `--max-memory` on the command line, `max_memory=`
/// in Python, `MAXMEMORY` in Redis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Vocabulary {
    /// What the front end calls its inputs as a whole (`flags`, `arguments`).
    pub arguments: &'static str,
    /// [`Request::window`].
    pub window: &'static str,
    /// [`Request::within_ms`].
    pub within: &'static str,
    /// [`Request::rate`].
    pub rate: &'static str,
    /// [`Request::capacity`].
    pub capacity: &'static str,
    /// [`Request::fpr`].
    pub fpr: &'static str,
    /// [`Request::max_memory`].
    pub max_memory: &'static str,
    /// [`Request::misses_ok`], as it is switched on.
    pub misses_ok: &'static str,
    /// [`Request::distinct`].
    pub distinct: &'static str,
    /// [`Request::slack`].
    pub slack: &'static str,
    /// [`Request::family`].
    pub family: &'static str,
    /// [`Request::exact`], as it is switched on.
    pub exact: &'static str,
}

impl Vocabulary {
    /// The field names of [`Request`] itself, for Rust callers.
    pub const RUST: Vocabulary = Vocabulary {
        arguments: "fields",
        window: "window",
        within: "within_ms",
        rate: "rate",
        capacity: "capacity",
        fpr: "fpr",
        max_memory: "max_memory",
        misses_ok: "allow_misses",
        distinct: "distinct",
        slack: "slack",
        family: "family",
        exact: "exact",
    };

    /// Every name, in a fixed order (the tests map messages between
    /// vocabularies with it).
    pub fn names(&self) -> [&'static str; 12] {
        [
            self.arguments,
            self.window,
            self.within,
            self.rate,
            self.capacity,
            self.fpr,
            self.max_memory,
            self.misses_ok,
            self.distinct,
            self.slack,
            self.family,
            self.exact,
        ]
    }
}

/// Why a request has no filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reason {
    /// A field is out of its range.
    Invalid,
    /// Two fields that cannot go together (a count and a time window, a
    /// rate without a time window, …).
    Conflict,
    /// The exact filter takes a window and nothing else.
    ExactTakesOnlyAWindow,
    /// A fixed memory budget over the whole stream without misses allowed.
    FixedMemoryWholeStream,
    /// An approximate filter of the whole stream without a budget or a
    /// count of distinct keys.
    WholeStreamUnbounded,
    /// The family named is unknown or does not meet the request.
    Family,
    /// No filter meets the request.
    NoFilter,
    /// The family is not compiled into this build.
    NotCompiled,
}

/// A request refused: the [`Reason`] and one message in the caller's
/// [`Vocabulary`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// What kind of refusal it is.
    pub reason: Reason,
    message: String,
}

impl Refusal {
    fn new(reason: Reason, message: impl Into<String>) -> Self {
        Refusal {
            reason,
            message: message.into(),
        }
    }

    /// The message, as a front end shows it.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Refusal {}

/// The filter a request gets, before it is built: the family, the window,
/// the parameters and what they predict.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    /// The family's slug ([`Family::slug`]).
    pub family: &'static str,
    /// The window (time windows in milliseconds).
    pub window: Window,
    /// The parameters, as text.
    pub config: String,
    /// Predicted false-positive rate (0 for the exact filter).
    pub fpr: f64,
    /// Predicted false-negative rate (0 when guaranteed).
    pub fnr: f64,
    /// Whether keys within the window can be missed.
    pub false_negatives: bool,
    /// State bits (for the exact filter: at the full count window, or 0
    /// where it grows with the keys).
    pub memory_bits: u64,
    /// How far beyond the window a key may still be reported, in the
    /// window's unit.
    pub slack: u64,
    /// Expected memory accesses of one observation of a new key.
    pub accesses: f64,
    /// Whether the rates are the saturated worst case.
    pub saturated: bool,
    /// The planner's cost class ([`Cost::predict`]).
    pub cost: Cost,
    /// The slug of a cheaper candidate of about its memory ranked before it
    /// (the planner's cost rule), if any.
    pub dominated_by: Option<&'static str>,
    /// The planned candidate; `None` for the exact filter.
    pub candidate: Option<Candidate>,
}

impl Choice {
    /// Builds the filter: the planned candidate, or the exact filter of the
    /// window (uncapped over a time span, so its memory follows the
    /// arrivals).
    pub fn build(&self) -> Result<Filter, ParamError> {
        match &self.candidate {
            Some(c) => Filter::try_from(c),
            None => exact_filter(self.window),
        }
    }

    fn planned(window: Window, c: &Candidate) -> Choice {
        Choice {
            family: Family::of(&c.config).slug(),
            window,
            config: format!("{:?}", c.config),
            fpr: c.fpr,
            fnr: c.fnr,
            false_negatives: c.false_negatives,
            memory_bits: c.memory_bits,
            slack: c.slack,
            accesses: c.accesses,
            saturated: c.saturated,
            cost: c.cost,
            // A slug, as `family` is.
            dominated_by: c
                .dominated_by
                .map(|by| by.parse::<Family>().map_or(by, Family::slug)),
            candidate: Some(c.clone()),
        }
    }
}

#[cfg(feature = "exact")]
fn exact_filter(window: Window) -> Result<Filter, ParamError> {
    Filter::exact(window)
}

#[cfg(not(feature = "exact"))]
fn exact_filter(_: Window) -> Result<Filter, ParamError> {
    Err(ParamError::new("exact", "off", "the exact feature"))
}

/// The exact filter of `window`, described as a [`Choice`].
#[cfg(feature = "exact")]
fn exact_choice(window: Window, v: &Vocabulary) -> Result<Choice, Refusal> {
    let sized = |w: u64| {
        Filter::exact_sizing(w).map_err(|e| {
            Refusal::new(
                Reason::Invalid,
                format!("{} {w} is too large for the exact filter: {e}", v.window),
            )
        })
    };
    let (memory_bits, accesses) = match window {
        Window::Count(n) => {
            let p = sized(n)?;
            (p.memory_bits, p.accesses)
        }
        // It grows with the keys: no fixed size; the accesses are the
        // count window's.
        _ => (0, sized(1)?.accesses),
    };
    Ok(Choice {
        family: "exact",
        window,
        config: match window {
            Window::Unbounded => "exact set of 64-bit digests".into(),
            _ => "exact window of 64-bit digests".into(),
        },
        fpr: 0.0,
        fnr: 0.0,
        false_negatives: false,
        memory_bits,
        slack: 0,
        accesses,
        saturated: false,
        cost: Cost::predict(memory_bits, accesses, 0),
        dominated_by: None,
        candidate: None,
    })
}

#[cfg(not(feature = "exact"))]
fn exact_choice(_: Window, v: &Vocabulary) -> Result<Choice, Refusal> {
    Err(Refusal::new(
        Reason::NotCompiled,
        format!(
            "this build has no exact filter: give {} or {} with {} or {}",
            v.window, v.within, v.fpr, v.max_memory
        ),
    ))
}

/// Bytes in binary units (`1.5 MiB`), for messages.
fn human_bytes(b: u64) -> String {
    bytesize::ByteSize(b).display().iec().to_string()
}

/// A duration in milliseconds as text every front end reads (`1h 30m`).
fn human_ms(ms: u64) -> String {
    humantime::format_duration(std::time::Duration::from_millis(ms)).to_string()
}

impl Request {
    /// The window asked for (time windows in milliseconds).
    pub fn window_asked(&self) -> Window {
        match (self.window, self.within_ms) {
            (Some(n), _) => Window::Count(n),
            (None, Some(ms)) => Window::Time(ms),
            (None, None) => Window::Unbounded,
        }
    }

    /// Checks every field and their combinations, naming them in `v`.
    fn check(&self, v: &Vocabulary) -> Result<(), Refusal> {
        let conflict = |m: String| Err(Refusal::new(Reason::Conflict, m));
        let invalid = |m: String| Err(Refusal::new(Reason::Invalid, m));
        if self.window.is_some() && self.within_ms.is_some() {
            return conflict(format!(
                "give {} (a count of records) or {} (a duration), not both",
                v.window, v.within
            ));
        }
        if let Some(n) = self.window
            && !(1..=MAX_WINDOW).contains(&n)
        {
            return invalid(format!(
                "{} must be a count of records from 1 to 2^40, not {n}",
                v.window
            ));
        }
        if self.within_ms == Some(0) {
            return invalid(format!("{} must be at least 1ms", v.within));
        }
        if self.exact {
            let given: Vec<&str> = [
                (self.fpr.is_some(), v.fpr),
                (self.max_memory.is_some(), v.max_memory),
                (self.misses_ok, v.misses_ok),
                (self.family.is_some(), v.family),
                (self.distinct.is_some(), v.distinct),
                (self.rate.is_some(), v.rate),
                (self.capacity.is_some(), v.capacity),
                (self.slack.is_some(), v.slack),
            ]
            .into_iter()
            .filter_map(|(on, name)| on.then_some(name))
            .collect();
            if !given.is_empty() {
                return Err(Refusal::new(
                    Reason::ExactTakesOnlyAWindow,
                    format!(
                        "{} keeps every key of the window, with no false positives: it takes \
                         a window alone, not {}",
                        v.exact,
                        given.join(" or ")
                    ),
                ));
            }
        }
        if self.rate.is_some() && self.capacity.is_some() {
            return conflict(format!(
                "give {} (records per second) or {} (records per window), not both",
                v.rate, v.capacity
            ));
        }
        if let Some(r) = self.rate
            && !(r.is_finite() && r > 0.0)
        {
            return invalid(format!(
                "{} must be a positive number of records per second, not {r}",
                v.rate
            ));
        }
        if self.capacity == Some(0) {
            return invalid(format!("{} must be at least 1 record", v.capacity));
        }
        if (self.rate.is_some() || self.capacity.is_some()) && self.within_ms.is_none() {
            let name = if self.rate.is_some() {
                v.rate
            } else {
                v.capacity
            };
            return conflict(format!("{name} sizes a time window: give {} too", v.within));
        }
        if let Some(p) = self.fpr
            && !(p > 0.0 && p < 1.0)
        {
            return invalid(format!("{} must be in (0, 1), not {p}", v.fpr));
        }
        if let Some(m) = self.max_memory
            && !(1..=MAX_MEMORY_BYTES).contains(&m)
        {
            return invalid(format!(
                "{} must be from 1 byte to {}, not {m} bytes",
                v.max_memory,
                human_bytes(MAX_MEMORY_BYTES)
            ));
        }
        if let Some(n) = self.distinct
            && !(n.is_finite() && (1.0..=MAX_WINDOW as f64).contains(&n))
        {
            return invalid(format!(
                "{} must be a count of keys from 1 to 2^40, not {n}",
                v.distinct
            ));
        }
        if self.slack.is_some() && self.window.is_none() && self.within_ms.is_none() {
            return conflict(format!("{} needs {} or {}", v.slack, v.window, v.within));
        }
        Ok(())
    }

    /// Expected arrivals per millisecond of a time window of `ms`.
    fn rate_per_ms(&self, ms: u64) -> f64 {
        match self.capacity {
            Some(n) => n as f64 / ms as f64,
            None => self.rate.unwrap_or(DEFAULT_RATE) / 1000.0,
        }
    }

    /// The slack in the window's unit, if one is given.
    fn slack_units(&self, v: &Vocabulary) -> Result<Option<u64>, Refusal> {
        let bad = |m: String| Refusal::new(Reason::Invalid, m);
        Ok(match (&self.slack, self.window_asked()) {
            (None, _) => None,
            (Some(Slack::Units(n)), _) => Some(*n),
            (Some(Slack::Text(s)), Window::Count(_)) => {
                Some(s.trim().parse::<u64>().map_err(|_| {
                    bad(format!(
                        "{} {s:?}: a count of records for {}",
                        v.slack, v.window
                    ))
                })?)
            }
            (Some(Slack::Text(s)), Window::Time(_)) => {
                Some(parse_duration_ms(s).map_err(|e| bad(format!("{}: {e}", v.slack)))?)
            }
            (Some(_), Window::Unbounded) => None,
        })
    }

    /// The planner's requirements for the request, or `None` when it asks
    /// for the exact filter (by [`exact`](Self::exact), or the whole stream
    /// with nothing approximate asked).
    pub fn requirements(&self, v: &Vocabulary) -> Result<Option<Requirements>, Refusal> {
        self.check(v)?;
        if self.exact {
            return Ok(None);
        }
        let approximate = self.fpr.is_some()
            || self.max_memory.is_some()
            || self.misses_ok
            || self.family.is_some();
        let mut req = match self.window_asked() {
            Window::Count(n) => Requirements::count(n),
            Window::Time(ms) => {
                let rate = self.rate_per_ms(ms);
                if ms as f64 * rate > MAX_WINDOW as f64 {
                    return Err(Refusal::new(
                        Reason::Invalid,
                        format!(
                            "{} of {} at this {} holds more than 2^40 records",
                            v.within,
                            human_ms(ms),
                            if self.capacity.is_some() {
                                v.capacity
                            } else {
                                v.rate
                            }
                        ),
                    ));
                }
                Requirements::time(ms, rate)
            }
            Window::Unbounded => match (self.distinct, self.max_memory) {
                (Some(_), _) => Requirements::unbounded(),
                // Nothing bounds the stream and nothing approximate is
                // asked: the exact set is the only filter with a guarantee.
                (None, _) if !approximate => return Ok(None),
                (None, Some(_)) if self.misses_ok => Requirements::unbounded(),
                (None, Some(_)) => {
                    return Err(Refusal::new(
                        Reason::FixedMemoryWholeStream,
                        format!(
                            "in fixed memory, a filter of the whole stream misses: once full \
                             it must forget old keys to take new ones; add {} to accept that, \
                             or {} / {} to remember only recent records, or {} if you know \
                             how many distinct keys will come",
                            v.misses_ok, v.window, v.within, v.distinct
                        ),
                    ));
                }
                (None, None) => {
                    return Err(Refusal::new(
                        Reason::WholeStreamUnbounded,
                        format!(
                            "without {} or {}, an approximate filter needs {} with {} (a \
                             filter that forgets), or {} (the expected number of distinct \
                             keys); or use {}",
                            v.window, v.within, v.max_memory, v.misses_ok, v.distinct, v.exact
                        ),
                    ));
                }
            },
        };
        match (self.fpr, self.max_memory) {
            (Some(p), _) => req = req.fpr(p),
            (None, None) => req = req.fpr(DEFAULT_FPR),
            (None, Some(_)) => {}
        }
        if let Some(bytes) = self.max_memory {
            req = req.memory_budget(bytes.saturating_mul(8));
        }
        if let Some(n) = self.distinct {
            req = req.distinct_items(n);
        }
        if let Some(s) = self.slack_units(v)? {
            req = req.max_slack(s);
        }
        Ok(Some(req.allow_false_negatives(self.misses_ok)))
    }

    /// Every filter that meets the request, best first: the planner's
    /// ranking, or the exact filter alone. A named family does not narrow
    /// the list ([`choose`](Self::choose) picks it).
    pub fn candidates(&self, v: &Vocabulary) -> Result<Vec<Choice>, Refusal> {
        let window = self.window_asked();
        let Some(req) = self.requirements(v)? else {
            return Ok(vec![exact_choice(window, v)?]);
        };
        match plan(&req) {
            Ok(all) => Ok(all.iter().map(|c| Choice::planned(window, c)).collect()),
            Err(e) => Err(self.refusal(&e, None, v)),
        }
    }

    /// The one filter the request asks for: the named family, else the
    /// planner's first choice, else the exact filter.
    pub fn choose(&self, v: &Vocabulary) -> Result<Choice, Refusal> {
        let all = self.candidates(v)?;
        let Some(f) = self.family else {
            return Ok(all.into_iter().next().expect("never empty"));
        };
        if let Some(c) = all.iter().find(|c| c.family == f.slug()) {
            return Ok(c.clone());
        }
        let names: Vec<&str> = all.iter().map(|c| c.family).collect();
        let hint = match self.relaxations(Some(f), v) {
            Some(h) => format!(" ({h})"),
            None => String::new(),
        };
        Err(Refusal::new(
            Reason::Family,
            format!(
                "{} {} does not meet these {}{hint}; the families that do: {}",
                v.family,
                f.slug(),
                v.arguments,
                names.join(", ")
            ),
        ))
    }

    /// The planner's error in the caller's words.
    fn refusal(&self, e: &PlanError, family: Option<Family>, v: &Vocabulary) -> Refusal {
        if let Some(param) = e.param() {
            // The checks above cover every range the planner checks; this
            // names the field should the two ever differ.
            let field = match param {
                "fpr" => v.fpr,
                "memory_bits" => v.max_memory,
                "distinct_items" => v.distinct,
                "rate" => v.rate,
                "span" => v.within,
                _ => v.window,
            };
            return Refusal::new(Reason::Invalid, format!("{field} is out of range: {e}"));
        }
        let mut message = format!("no filter meets these {}", v.arguments);
        match self.relaxations(family, v) {
            Some(h) => message = format!("{message}: {h}"),
            None => message = format!("{message}; {} keeps every key exactly", v.exact),
        }
        Refusal::new(Reason::NoFilter, message)
    }

    /// What to change so that a filter (of `family`, if given) meets the
    /// request: each relaxation the planner itself accepts, in words.
    fn relaxations(&self, family: Option<Family>, v: &Vocabulary) -> Option<String> {
        let meets = |r: &Request| -> Option<Candidate> {
            let req = r.requirements(v).ok()??;
            plan(&req)
                .ok()?
                .into_iter()
                .find(|c| family.is_none_or(|f| Family::of(&c.config) == f))
        };
        let unit = |n: u64| match self.window_asked() {
            Window::Time(_) => human_ms(n),
            _ => format!("{n} records"),
        };
        let misses = (!self.misses_ok).then(|| Request {
            misses_ok: true,
            ..self.clone()
        });
        let any_slack = (self.window.is_some() || self.within_ms.is_some()).then(|| Request {
            slack: Some(Slack::Units(u64::MAX)),
            ..self.clone()
        });
        let any_memory = (self.max_memory.is_some() && self.fpr.is_some()).then(|| Request {
            max_memory: None,
            ..self.clone()
        });
        let say_misses = |c: &Candidate| {
            format!(
                "add {}: the filters that meet the rest miss keys within the window (predicted \
                 FNR {:.1e})",
                v.misses_ok, c.fnr
            )
        };
        let say_slack = |c: &Candidate| {
            format!(
                "raise {} to {}: the filters that meet the rest report keys that far beyond \
                 the window",
                v.slack,
                unit(c.slack)
            )
        };
        let say_memory = |c: &Candidate| {
            format!(
                "raise {} to {} or {}: the least filter that meets the rest needs that much",
                v.max_memory,
                human_bytes(c.memory_bits.div_ceil(8)),
                v.fpr
            )
        };
        let mut hints = Vec::new();
        if let Some(c) = misses.as_ref().and_then(meets) {
            hints.push(say_misses(&c));
        }
        if let Some(c) = any_slack.as_ref().and_then(meets) {
            hints.push(say_slack(&c));
        }
        if let Some(c) = any_memory.as_ref().and_then(meets) {
            hints.push(say_memory(&c));
        }
        if hints.is_empty() {
            // No one change is enough: all of them together, if that is.
            let all = Request {
                misses_ok: true,
                slack: any_slack.as_ref().and(Some(Slack::Units(u64::MAX))),
                max_memory: if any_memory.is_some() {
                    None
                } else {
                    self.max_memory
                },
                ..self.clone()
            };
            let c = meets(&all)?;
            let mut all_hints = Vec::new();
            if misses.is_some() {
                all_hints.push(say_misses(&c));
            }
            if any_slack.is_some() {
                all_hints.push(say_slack(&c));
            }
            if any_memory.is_some() {
                all_hints.push(say_memory(&c));
            }
            return Some(all_hints.join("; and "));
        }
        Some(hints.join("; or "))
    }
}

/// Reads a family name for `v`'s family field: a slug or a display name
/// ([`Family::named`]); an unknown name is refused, listing the slugs.
pub fn family_named(name: &str, v: &Vocabulary) -> Result<Family, Refusal> {
    Family::named(name).ok_or_else(|| {
        Refusal::new(
            Reason::Family,
            format!(
                "{} {name:?} is not a family; the families are {}",
                v.family,
                Family::SLUGS.join(", ")
            ),
        )
    })
}

#[cfg(all(test, feature = "exact", feature = "apbf", feature = "shf"))]
mod tests {
    use super::*;

    const V: Vocabulary = Vocabulary::RUST;

    #[test]
    fn defaults_are_applied_once() {
        let r = Request {
            within_ms: Some(60_000),
            ..Request::default()
        };
        let req = r.requirements(&V).unwrap().unwrap();
        assert_eq!(
            req,
            Requirements::time(60_000, DEFAULT_RATE / 1000.0)
                .fpr(DEFAULT_FPR)
                .allow_false_negatives(false)
        );
        assert_eq!(Request::default().choose(&V).unwrap().family, "exact");
    }

    #[test]
    fn exact_takes_a_window_alone() {
        let r = Request {
            window: Some(1000),
            exact: true,
            fpr: Some(1e-3),
            ..Request::default()
        };
        let e = r.choose(&V).unwrap_err();
        assert_eq!(e.reason, Reason::ExactTakesOnlyAWindow);
        assert!(e.message().contains("not fpr"), "{e}");
        let ok = Request { fpr: None, ..r };
        let c = ok.choose(&V).unwrap();
        assert_eq!((c.family, c.window), ("exact", Window::Count(1000)));
        assert_eq!(
            crate::Windowed::window(&c.build().unwrap()),
            Window::Count(1000)
        );
    }

    #[test]
    fn fixed_memory_over_the_whole_stream_is_one_short_message() {
        let r = Request {
            max_memory: Some(1 << 20),
            ..Request::default()
        };
        let e = r.choose(&V).unwrap_err();
        assert_eq!(e.reason, Reason::FixedMemoryWholeStream);
        assert!(e.message().len() < 300, "{e}");
        let fine = Request {
            misses_ok: true,
            ..r
        };
        assert!(fine.choose(&V).unwrap().saturated);
    }

    #[test]
    fn refusals_use_the_callers_words_never_the_planners() {
        // A vocabulary of its own: every name bracketed, so any name in a
        // message is seen to come from it.
        let cli = Vocabulary {
            arguments: "<arguments>",
            window: "<window>",
            within: "<within>",
            rate: "<rate>",
            capacity: "<capacity>",
            fpr: "<fpr>",
            max_memory: "<max-memory>",
            misses_ok: "<misses-ok>",
            distinct: "<distinct>",
            slack: "<slack>",
            family: "<family>",
            exact: "<exact>",
        };
        let cases = [
            Request {
                window: Some(1000),
                max_memory: Some(16),
                fpr: Some(1e-3),
                ..Request::default()
            },
            Request {
                window: Some(100_000),
                fpr: Some(1e-3),
                family: Some(Family::named("apbf").unwrap()),
                ..Request::default()
            },
            Request {
                window: Some(10),
                within_ms: Some(10),
                ..Request::default()
            },
        ];
        for r in cases {
            let e = r.choose(&cli).unwrap_err();
            for rust in [
                "allow_false_negatives",
                "memory_budget",
                "max_slack",
                "distinct_items",
            ] {
                assert!(!e.message().contains(rust), "{e}");
            }
            assert!(e.message().contains("<"), "{e}");
        }
    }

    #[test]
    fn a_named_family_is_chosen_or_refused_with_the_change_it_needs() {
        let apbf = Family::named("APBF").unwrap();
        let r = Request {
            window: Some(1000),
            fpr: Some(0.01),
            family: Some(apbf),
            ..Request::default()
        };
        let e = r.choose(&V).unwrap_err();
        assert_eq!(e.reason, Reason::Family);
        assert!(e.message().contains("raise slack"), "{e}");
        let ok = Request {
            slack: Some(Slack::Text("1000".into())),
            ..r
        };
        assert_eq!(ok.choose(&V).unwrap().family, "apbf");
        assert!(family_named("nope", &V).is_err());
    }
}

impl Request {
    /// The request with its defaults spelled out (the rate of a time
    /// window, the target rate) and its slack in the window's unit: two
    /// requests that ask for the same filter compare equal resolved.
    pub fn resolved(&self) -> Request {
        let mut r = self.clone();
        let window = self.window_asked();
        if matches!(window, Window::Time(_)) && r.capacity.is_none() && r.rate.is_none() {
            r.rate = Some(DEFAULT_RATE);
        }
        if !r.exact && r.fpr.is_none() && r.max_memory.is_none() {
            r.fpr = Some(DEFAULT_FPR);
        }
        if let Ok(Some(units)) = self.slack_units(&Vocabulary::RUST) {
            r.slack = Some(Slack::Units(units));
        }
        r
    }
}
