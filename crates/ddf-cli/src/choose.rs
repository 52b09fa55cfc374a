//! From the window, accuracy and size flags to the library's
//! [`ddf::Request`]; the library chooses the filter, or refuses in the
//! flags' words ([`VOCABULARY`]).

use crate::cli::PlanArgs;
use ddf::Request;
use ddf::request::{Slack, Vocabulary, family_named};

/// How the command spells each field of a request.
pub(crate) const VOCABULARY: Vocabulary = Vocabulary {
    arguments: "flags",
    window: "--window",
    within: "--within",
    rate: "--rate",
    capacity: "--capacity",
    fpr: "--fpr",
    max_memory: "--max-memory",
    misses_ok: "--misses-ok",
    distinct: "--distinct",
    slack: "--slack",
    family: "--filter",
    exact: "--exact",
};

/// The request the flags make.
pub(crate) fn request(args: &PlanArgs) -> Result<Request, String> {
    Ok(Request {
        window: args.window,
        within_ms: args.within,
        rate: args.rate,
        capacity: args.capacity,
        fpr: args.fpr,
        max_memory: args.max_memory,
        misses_ok: args.misses_ok,
        distinct: args.distinct,
        slack: args.slack.clone().map(Slack::Text),
        family: args
            .filter
            .as_deref()
            .map(|name| family_named(name, &VOCABULARY))
            .transpose()
            .map_err(|e| e.to_string())?,
        exact: args.exact,
    })
}
