//! APBF and APBBF.

use super::*;

/// The arrivals a time slice of `⌈span/parts⌉` must hold for Poisson
/// arrivals at rate `λ`, and that slice.
fn arrivals_per(span: u64, parts: u64, rate: f64) -> (u64, u64) {
    let slice = span.div_ceil(parts.max(1));
    let mean = slice as f64 * rate;
    let cap = ddf_theory::stream::poisson_arrival_bound(mean, crate::planner::ARRIVAL_TAIL).ceil();
    (slice, (cap as u64).max(1))
}

/// The insertions one of `l` window generations must hold: `⌈w/l⌉` for a
/// count window, the arrivals of one time slice `⌈t/l⌉` for a time window.
fn generation_of(need: &Need, l: u32) -> u64 {
    match need.span {
        Span::Time { span, rate } => arrivals_per(span, u64::from(l), rate).1,
        _ => need.items().div_ceil(u64::from(l)),
    }
}

/// The window in its own unit (insertions or time units) and, for a
/// time window, its span `t`.
fn window_of(need: &Need) -> (u64, Option<u64>) {
    match need.span {
        Span::Time { span, .. } => (span, Some(span)),
        _ => (need.items(), None),
    }
}

/// APBF (count or time windows): the family's `(k, l, m)` for the goal, each of the `l` window
/// generations holding [`generation_of`], then its sizing.
pub(crate) fn apbf(need: &Need) -> Result<Candidate, String> {
    windowed(need)?;
    use ddf_apbf::Apbf;
    let (k, l, m) = Apbf::parameters_for(need.goal, |l| generation_of(need, l)).map_err(why)?;
    let (window, time_span) = window_of(need);
    let p = match time_span {
        Some(span) => Apbf::sizing_timed(span, k, l, m),
        None => Apbf::sizing(k, l, m),
    }
    .map_err(why)?;
    let config = Config::Apbf {
        k,
        l,
        slice_bits: m,
        time_span,
    };
    Ok(Candidate::new(config, p, Some(window), need.seed))
}

/// APBBF (APBF paper §6): the family's block shape and `(k, l)` for the
/// goal, each generation holding [`generation_of`], then its sizing.
pub(crate) fn apbbf(need: &Need) -> Result<Candidate, String> {
    windowed(need)?;
    use ddf_apbf::Apbbf;
    let (window, time_span) = window_of(need);
    let sizing = |s: &ddf_apbf::ApbbfParameters| {
        let (k, l, blocks, bb, b) = (s.k, s.l, s.blocks, s.block_bits, s.bits_per_block);
        match time_span {
            Some(span) => Apbbf::sizing_timed(span, k, l, blocks, bb, b),
            None => Apbbf::sizing(k, l, blocks, bb, b),
        }
    };
    // Fewer segments take more slack: only within the slack accepted.
    let s = Apbbf::parameters_for(
        need.goal,
        |l| generation_of(need, l),
        |s| sizing(s).is_ok_and(|p| p.slack <= need.max_slack),
    )
    .map_err(why)?;
    let (k, l, blocks, bb, b) = (s.k, s.l, s.blocks, s.block_bits, s.bits_per_block);
    let p = sizing(&s).map_err(why)?;
    let config = Config::Apbbf {
        k,
        l,
        blocks,
        block_bits: bb,
        bits_per_block: b,
        time_span,
    };
    Ok(Candidate::new(config, p, Some(window), need.seed))
}
