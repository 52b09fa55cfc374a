//! Snapshots of a `SlidingBloom`: parameters, clock, cells and stash, validated on the way in.

use crate::buckets::Buckets;
use crate::filter::{ClockState, SlidingBloom};
use crate::plan::{CELLS_PER_BUCKET, Clock, Fit, Layout, Plan, Request, Slack};
use crate::table::{EntryKey, Table};
use ddf_bits::CellRows;
use ddf_core::TimeClock;
use ddf_core::snapshot::{self, DecodeError, Decoder, Encoder, Snapshot};
use std::collections::BTreeSet;

const CLOCK_COUNT: u8 = 0;
const CLOCK_TIME: u8 = 1;
const SLACK_AT_MOST: u8 = 0;
const SLACK_LEAST_SPACE: u8 = 1;
const LAYOUT_PACKED: u8 = 0;
const LAYOUT_ALIGNED: u8 = 1;
const LAYOUT_LINE: u8 = 2;
const FIT_LOAD: u8 = 0;
const FIT_BITS: u8 = 1;

/// Body: the request (clock, window, slack, capacity, generations asked for,
/// fpr, design load, from layout 5 the bucket layout and from layout 6 the
/// fit of buckets to load and rate), the derived geometry (c, buckets, remainder and tag bits, checked
/// against a rebuild), the clock (generation, insertions in it, generations closed early,
/// latest time, clock regressions,
/// insertions, seed, generator, scan position), the cells as words and the
/// stash as sorted `(bucket, remainder, tag)` triples.
impl Snapshot for SlidingBloom {
    const KIND: u16 = snapshot::kind::SLIDING_BLOOM;
    // Layout 2 added the clock and overload counters; layout 3 counts
    // generations modulo 2^s with a faster scan (tags of layout 2 meant
    // modulo 2c + 3) and bounds the stash. Older layouts are not read.
    // Layout 4 has layout 3's bytes; it marks that the scan is paid in
    // strides of `SCAN_STRIDE` buckets, so a generation's scan may lag
    // layout 3's pacing by up to a stride. A layout-3 reader restoring it
    // would assume the lagging buckets visited and could miss the sweep's
    // deadline, so it must refuse the bytes; this reader takes both (a
    // layout-3 state is at or ahead of the pacing assumed here, and a scan
    // ahead only visits buckets early).
    // Layout 5 adds the bucket layout: packed four-cell rows, as layouts 3
    // and 4 stored every table, aligned words of as many cells as fit, or
    // (a later value of the same byte) lines of 16-bit remainders and tag
    // planes, which earlier readers refuse as an unknown layout. Lines with
    // more remainder bits (wide lines, rates 16 bits miss) keep the same
    // byte and bytes; the stored remainder width tells them apart, and a
    // reader that knows only 16-bit lines refuses them when it rebuilds
    // the plan (its lines cannot meet the stored rate).
    // Layout 6 adds the fit: how the plan chose the bucket count and the
    // remainder width (by the design load, the only rule before, or for
    // the fewest bits, which least-space plans use). A reader of layout 5
    // would rebuild another geometry from a least-space filter's request,
    // so the version moves; layouts 3 to 5 read as fitted by the load.
    const VERSION: u16 = 6;
    const OLDEST_VERSION: u16 = 3;

    fn encode_body(&self, out: &mut Encoder) {
        let plan = self.plan();
        let request = plan.request;
        out.put_u8(match request.clock {
            Clock::Count => CLOCK_COUNT,
            Clock::Time => CLOCK_TIME,
        });
        out.put_u64(request.window);
        match request.slack {
            Slack::AtMost(m) => {
                out.put_u8(SLACK_AT_MOST);
                out.put_u64(m);
            }
            Slack::LeastSpace => {
                out.put_u8(SLACK_LEAST_SPACE);
                out.put_u64(0);
            }
        }
        out.put_u64(request.capacity);
        out.put_u64(request.generations.unwrap_or(0));
        out.put_f64(request.fpr);
        out.put_f64(request.load);
        out.put_u8(match plan.layout {
            Layout::Packed => LAYOUT_PACKED,
            Layout::Aligned => LAYOUT_ALIGNED,
            Layout::Line => LAYOUT_LINE,
        });
        out.put_u8(match request.fit {
            Fit::Load => FIT_LOAD,
            Fit::Bits => FIT_BITS,
        });
        out.put_u64(plan.generations);
        out.put_u64(plan.buckets);
        out.put_u8(plan.remainder_bits as u8);
        out.put_u8(plan.tag_bits as u8);
        let clock = self.clock_state();
        for v in [
            clock.generation,
            clock.in_generation,
            clock.closed_early,
            clock.clock.latest(),
            clock.clock.regressions(),
            clock.insertions,
            clock.seed,
            clock.rng,
            self.table().scan_position(),
        ] {
            out.put_u64(v);
        }
        out.put_words(&self.table().cells().words());
        let stash = self.table().stash();
        out.put_u64(stash.len() as u64);
        for (key, &tag) in stash {
            out.put_u64(key.bucket);
            out.put_u32(key.remainder);
            out.put_u32(tag);
        }
    }

    fn decode_body(input: &mut Decoder<'_>, version: u16) -> Result<Self, DecodeError> {
        let clock = match input.u8("clock")? {
            CLOCK_COUNT => Clock::Count,
            CLOCK_TIME => Clock::Time,
            c => return Err(DecodeError::invalid("clock", format!("unknown clock {c}"))),
        };
        let window = input.u64("window")?;
        let slack = match (input.u8("slack kind")?, input.u64("slack")?) {
            (SLACK_AT_MOST, m) => Slack::AtMost(m),
            (SLACK_LEAST_SPACE, 0) => Slack::LeastSpace,
            (k, v) => {
                return Err(DecodeError::invalid(
                    "slack",
                    format!("kind {k} with value {v}"),
                ));
            }
        };
        let capacity = input.u64("capacity")?;
        let generations = match input.u64("generations")? {
            0 => None,
            c => Some(c),
        };
        if clock == Clock::Count && capacity != window {
            return Err(DecodeError::invalid(
                "capacity",
                "a count window's capacity is its window",
            ));
        }
        let fpr = input.f64("fpr")?;
        let load = input.f64("load")?;
        // Layouts 3 and 4 are packed and have no layout byte.
        let layout = match version {
            ..=4 => Layout::Packed,
            _ => match input.u8("layout")? {
                LAYOUT_PACKED => Layout::Packed,
                LAYOUT_ALIGNED => Layout::Aligned,
                LAYOUT_LINE => Layout::Line,
                l => {
                    return Err(DecodeError::invalid(
                        "layout",
                        format!("unknown layout {l}"),
                    ));
                }
            },
        };
        let fit = match version {
            ..=5 => Fit::Load,
            _ => match input.u8("fit")? {
                FIT_LOAD => Fit::Load,
                FIT_BITS => Fit::Bits,
                f => return Err(DecodeError::invalid("fit", format!("unknown fit {f}"))),
            },
        };
        // Plan first and allocate only once the cells are known to be there.
        let plan = Plan::new(Request {
            clock,
            window,
            slack,
            capacity,
            generations,
            fpr,
            load,
            layout: Some(layout),
            words_only: false,
            fit,
        })?;
        let derived = (
            input.u64("generations used")?,
            input.u64("buckets")?,
            u32::from(input.u8("remainder bits")?),
            u32::from(input.u8("tag bits")?),
        );
        if derived
            != (
                plan.generations,
                plan.buckets,
                plan.remainder_bits,
                plan.tag_bits,
            )
        {
            return Err(DecodeError::invalid(
                "geometry",
                "the stored table geometry differs from the one its parameters give",
            ));
        }
        let state = ClockState {
            generation: input.u64("generation")?,
            in_generation: input.u64("insertions in generation")?,
            closed_early: input.u64("generations closed early")?,
            clock: TimeClock::decode(input)?,
            insertions: input.u64("insertions")?,
            seed: input.u64("seed")?,
            rng: input.u64("generator")?,
        };
        let scan = input.u64("scan position")?;
        let consistent = match clock {
            Clock::Count => {
                state.generation == state.insertions / plan.generation_len
                    && state.in_generation == state.insertions % plan.generation_len
                    && state.clock == TimeClock::new()
                    && state.closed_early == 0
            }
            Clock::Time => {
                // The generation is the time generation plus the early closes.
                state.closed_early <= state.generation
                    && state.generation - state.closed_early
                        == state.clock.latest() / plan.generation_len
                    && state.in_generation <= state.insertions
            }
        };
        if !consistent || scan >= plan.buckets {
            return Err(DecodeError::invalid(
                "clock",
                "generation, insertions, time and scan position disagree",
            ));
        }
        let cell_bits = plan.remainder_bits + plan.tag_bits;
        let expected_words = plan.table_bits().div_ceil(64);
        let words = input.words("cells")?;
        if words.len() as u64 != expected_words {
            return Err(DecodeError::invalid(
                "cells",
                format!(
                    "{} words where the parameters imply {expected_words}",
                    words.len()
                ),
            ));
        }
        let per_bucket = plan.cells_per_bucket;
        let cells = match layout {
            Layout::Aligned => Buckets::aligned_from_words(
                &words,
                plan.buckets,
                per_bucket,
                cell_bits,
            )
            .map_err(|b| {
                DecodeError::invalid("cells", format!("bucket {b} has bits beyond its cells"))
            })?,
            Layout::Packed => Buckets::packed(
                CellRows::from_words(plan.buckets, CELLS_PER_BUCKET, cell_bits, words)
                    .map_err(|e| DecodeError::invalid("cells", e.to_string()))?,
            ),
            Layout::Line => {
                let shape = plan.line_shape().ok_or_else(|| {
                    DecodeError::invalid("tag_bits", "more tag bits than a line holds")
                })?;
                Buckets::lines_from_words(&words, plan.buckets, shape).map_err(|b| {
                    DecodeError::invalid("cells", format!("line {b} has tag bits of no entry"))
                })?
            }
        };
        let fresh = SlidingBloom::from_plan(plan)?;
        let mut table = Table::restore(&plan, cells, scan);
        let modulus = plan.tag_modulus;
        let tag_mask = (1u32 << plan.tag_bits) - 1;
        let mut keys = BTreeSet::new();
        for b in 0..plan.buckets {
            for j in 0..per_bucket {
                let v = table.cells().get(b, j);
                if v == 0 {
                    continue;
                }
                let (remainder, tag) = (v >> plan.tag_bits, v & tag_mask);
                if remainder == 0 || tag >= modulus {
                    return Err(DecodeError::invalid(
                        "cells",
                        format!(
                            "cell {j} of bucket {b} holds {v:#x}: no remainder or a tag ≥ {modulus}"
                        ),
                    ));
                }
                if !keys.insert(table.key_of(b, remainder)) {
                    return Err(DecodeError::invalid(
                        "cells",
                        format!("bucket {b} repeats an entry of its pair"),
                    ));
                }
            }
        }
        let count = input.u64("stash")?;
        if count > crate::STASH_CAPACITY as u64 {
            return Err(DecodeError::invalid(
                "stash",
                format!(
                    "{count} entries where the stash holds at most {}",
                    crate::STASH_CAPACITY
                ),
            ));
        }
        if count > (input.remaining() / 16) as u64 {
            return Err(DecodeError::Truncated { field: "stash" });
        }
        let remainder_max = (((1u64 << plan.remainder_bits) - 1) as u32).max(1);
        for _ in 0..count {
            let key = EntryKey {
                bucket: input.u64("stash bucket")?,
                remainder: input.u32("stash remainder")?,
            };
            let tag = input.u32("stash tag")?;
            let valid = key.bucket < plan.buckets
                && (1..=remainder_max).contains(&key.remainder)
                && table.key_of(key.bucket, key.remainder) == key
                && tag < modulus
                && !keys.contains(&key)
                && table.stash_insert(key, tag);
            if !valid {
                return Err(DecodeError::invalid(
                    "stash",
                    format!("entry {key:?} with tag {tag} is out of range or repeats one"),
                ));
            }
        }
        Ok(SlidingBloom::restore(fresh, table, state))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ddf_core::{Digest, DuplicateFilter};

    #[test]
    fn layout_3_bytes_are_read_as_layout_4() {
        // Layout 4 wrote layout 3's bytes; this reader takes both as four
        // cells a bucket, and refuses what came before.
        let v4: &[u8] = include_bytes!("../tests/data/sliding-v4-narrow-count.bin");
        let env = snapshot::open(v4).unwrap();
        assert_eq!(env.version, 4);
        let f = SlidingBloom::from_bytes(v4).unwrap();
        let v3 = snapshot::seal(SlidingBloom::KIND, 3, 0, &[], env.body);
        assert_eq!(
            SlidingBloom::from_bytes(&v3).unwrap().to_bytes(),
            f.to_bytes()
        );
        let v2 = snapshot::seal(SlidingBloom::KIND, 2, 0, &[], env.body);
        assert!(SlidingBloom::from_bytes(&v2).is_err());
    }

    #[test]
    fn layout_6_round_trips_every_bucket_layout_and_fit() {
        for layout in [Layout::Packed, Layout::Aligned, Layout::Line] {
            let mut request = Request::count(1000, Slack::LeastSpace, None, 1e-3);
            request.layout = Some(layout);
            let mut f = SlidingBloom::from_request(request).unwrap();
            assert_eq!(f.plan().layout, layout);
            let mut rng = ddf_hash::SplitMix64::new(4);
            for _ in 0..1500 {
                f.insert(Digest::new(rng.next_u64()));
            }
            let bytes = f.to_bytes();
            assert_eq!(snapshot::open(&bytes).unwrap().version, 6);
            let back = SlidingBloom::from_bytes(&bytes).unwrap();
            assert_eq!(back.to_bytes(), bytes);
            assert_eq!(back.plan().layout, layout);
        }
    }
}
