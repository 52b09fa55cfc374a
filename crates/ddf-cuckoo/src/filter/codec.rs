//! The snapshot of a [`StreamingCuckoo`] and its validating decoder.

use super::*;
use ddf_core::snapshot::{self, Decoder, Encoder};

/// Body: buckets (u64), cells per bucket (u32), fingerprint bits (u8), zero
/// policy (u8), max kicks (u32), stream rule (u8: 0 lookup first, 1 insert
/// always; from layout version 2), full-table policy (u8: 0 evict, 1 walk;
/// from layout version 3), generator seed and state (u64 each), dropped
/// count (u64), table words. Decoding checks the parameters as
/// [`StreamingCuckoo::new`] does, and that every bucket is filled in order;
/// the occupied count is recounted from the table.
/// A version 1 snapshot was written when `observe` inserted every item, so
/// it decodes with [`StreamRule::InsertAlways`] and goes on as it was;
/// versions 1 and 2 walked in a full table, so they decode with
/// [`FullTable::Walk`].
impl Snapshot for StreamingCuckoo {
    const KIND: u16 = snapshot::kind::CUCKOO;
    const VERSION: u16 = 3;

    fn encode_body(&self, out: &mut Encoder) {
        out.put_u64(self.buckets());
        out.put_u32(self.cells_per_bucket() as u32);
        out.put_u8(self.fingerprint_bits() as u8);
        out.put_zero_policy(self.zero_policy());
        out.put_u32(self.max_kicks);
        out.put_u8(match self.rule {
            StreamRule::LookupFirst => 0,
            StreamRule::InsertAlways => 1,
        });
        out.put_u8(match self.full_table {
            FullTable::Evict => 0,
            FullTable::Walk => 1,
        });
        out.put_rng(&self.rng);
        out.put_u64(self.dropped);
        out.put_words(self.cells.as_words());
    }

    fn decode_body(input: &mut Decoder<'_>, version: u16) -> Result<Self, DecodeError> {
        let buckets = input.u64("buckets")?;
        let b = input.u32("cells_per_bucket")? as usize;
        let bits = u32::from(input.u8("fingerprint_bits")?);
        let policy = input.zero_policy("zero_policy")?;
        let max_kicks = input.u32("max_kicks")?;
        let rule = if version < 2 {
            StreamRule::InsertAlways
        } else {
            match input.u8("stream_rule")? {
                0 => StreamRule::LookupFirst,
                1 => StreamRule::InsertAlways,
                v => {
                    return Err(DecodeError::invalid(
                        "stream_rule",
                        format!("{v}, expected 0 (lookup first) or 1 (insert always)"),
                    ));
                }
            }
        };
        let full_table = if version < 3 {
            FullTable::Walk
        } else {
            match input.u8("full_table")? {
                0 => FullTable::Evict,
                1 => FullTable::Walk,
                v => {
                    return Err(DecodeError::invalid(
                        "full_table",
                        format!("{v}, expected 0 (evict) or 1 (walk)"),
                    ));
                }
            }
        };
        let rng = input.rng("generator")?;
        let dropped = input.u64("dropped")?;
        let words = input.words("cells")?;
        let fingerprinter = check_params(buckets, b, bits)?.with_policy(policy);
        // The word count is checked against the parameters before use.
        let cells = CellRows::from_words(buckets, b, bits, words)?;
        let mut f = Self::from_parts(cells, fingerprinter);
        f.max_kicks = ddf_param::ensure_range("max_kicks", max_kicks, 0..=Self::MAX_KICKS)?;
        f.rng = rng;
        f.dropped = dropped;
        f.rule = rule;
        f.full_table = full_table;
        let rules = RowRules {
            distinct: false,
            filled_in_order: policy != ZeroPolicy::TreatAsValue,
        };
        f.cells
            .check_rows(rules, |_| true)
            .map_err(|v| DecodeError::invalid("cells", v.to_string()))?;
        f.occupied = (0..f.buckets())
            .map(|r| (0..b).filter(|&j| f.cells.get(r, j) != 0).count() as u64)
            .sum();
        Ok(f)
    }
}
