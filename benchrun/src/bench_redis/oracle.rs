//! The exact facts of the stream every answer of the benchmark is checked against.

use super::*;

/// The exact facts of the stream the checks compare with.
#[derive(Debug)]
pub(super) struct Oracle {
    /// For each item, the index of its previous occurrence ([`NONE`] if new).
    pub(super) previous: Vec<u32>,
    pub(super) distinct: u64,
}

pub(super) const NONE: u32 = u32::MAX;

impl Oracle {
    pub(super) fn new(items: &[&[u8]]) -> Oracle {
        let previous = previous_occurrence(items);
        let distinct = previous.iter().filter(|&&p| p == NONE).count() as u64;
        Oracle { previous, distinct }
    }
}

/// For each item, the index of its previous occurrence, or [`NONE`].
pub(super) fn previous_occurrence(items: &[&[u8]]) -> Vec<u32> {
    let mut last: HashMap<&[u8], u32> = HashMap::with_capacity(items.len() / 4);
    items
        .iter()
        .enumerate()
        .map(|(i, item)| last.insert(item, i as u32).unwrap_or(NONE))
        .collect()
}

/// Items whose previous occurrence ran less than each of `thresholds` ms
/// before them, when item `i` happens at `i` ms and a call of `per_call`
/// items runs at the time of its first.
pub(super) fn repeats_within(previous: &[u32], per_call: usize, thresholds: &[u64]) -> Vec<u64> {
    let time = |i: usize| (i - i % per_call) as u64;
    let mut counts = vec![0u64; thresholds.len()];
    for (i, &p) in previous.iter().enumerate() {
        if p == NONE {
            continue;
        }
        let gap = time(i) - time(p as usize);
        for (c, &t) in counts.iter_mut().zip(thresholds) {
            *c += u64::from(gap < t);
        }
    }
    counts
}

/// Distinct items among the last `window` of the stream.
pub(super) fn distinct_in_last(previous: &[u32], window: u64) -> u64 {
    let start = previous.len().saturating_sub(window as usize);
    previous[start..]
        .iter()
        .filter(|&&p| p == NONE || (p as usize) < start)
        .count() as u64
}
