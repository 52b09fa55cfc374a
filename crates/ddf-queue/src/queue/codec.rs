//! The snapshot of a [`Queue`]: its header, the nested subfilters, and the
//! subfilters' kind read without decoding them.

use super::*;

/// The kind code of the subfilters in a queue body (the one
/// [`Queue::<F>::decode_body`](Snapshot::decode_body) would read), without
/// consuming `body`: a reader that holds several kinds (`ddf::Filter`) picks
/// `F` from it. Fails if the body ends before the first subfilter.
pub fn subfilter_kind(body: &Decoder<'_>) -> Result<u16, DecodeError> {
    let mut d = body.clone();
    Header::read(&mut d)?;
    d.u16("subfilter")
}

impl<F: Snapshot> Queue<F> {
    /// The kind code of this queue's subfilters, as [`subfilter_kind`]
    /// reads it from a body: what a reader of several kinds compares.
    pub const SUBFILTER_KIND: u16 = F::KIND;
}

/// The fields before the subfilters, as written (checked by `decode_body`).
struct Header {
    subfilters: u64,
    capacity: u64,
    newest: u64,
    filled: u64,
    timed: bool,
    span: u64,
    started: u64,
    time: TimeClock,
    closed_early: u64,
}

impl Header {
    /// Reads the fields in the order `encode_body` writes them; the one
    /// place that knows the layout of a queue body's head.
    fn read(input: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        Ok(Header {
            subfilters: input.u64("subfilters")?,
            capacity: input.u64("capacity")?,
            newest: input.u64("newest")?,
            filled: input.u64("filled")?,
            timed: input.bool("time slicing")?,
            span: input.u64("span")?,
            started: input.u64("started")?,
            time: TimeClock::decode(input)?,
            closed_early: input.u64("generations closed early")?,
        })
    }
}

/// Body: `L`, `c`, the newest index, insertions into it, the time slicing
/// (flag, span, start, latest time, clock regressions, early rotations), then the `L` subfilters in storage order,
/// each as a nested snapshot.
impl<F: DuplicateFilter + Snapshot> Snapshot for Queue<F> {
    const KIND: u16 = snapshot::kind::QUEUE;
    // Layout 2 added the clock and overload counters; layout 1 is not read.
    const VERSION: u16 = 2;
    const OLDEST_VERSION: u16 = 2;

    fn encode_body(&self, out: &mut Encoder) {
        out.put_u64(self.subfilters.len() as u64);
        out.put_u64(self.capacity);
        out.put_u64(self.newest as u64);
        out.put_u64(self.filled);
        out.put_bool(self.slices.is_some());
        let s = self.slices.unwrap_or(Slices::new(0));
        out.put_u64(s.span);
        out.put_u64(s.started);
        s.time.encode(out);
        out.put_u64(s.closed_early);
        for f in &self.subfilters {
            out.put_nested(f);
        }
    }

    fn decode_body(input: &mut Decoder<'_>, _version: u16) -> Result<Self, DecodeError> {
        let Header {
            subfilters: l,
            capacity,
            newest,
            filled,
            timed,
            span,
            started,
            time,
            closed_early,
        } = Header::read(input)?;
        let l = ensure_range("subfilters", l, 1..=MAX_SUBFILTERS as u64)? as usize;
        let capacity = ensure_positive("capacity", capacity)?;
        // A count window rotates at `c`; a time window rotates a full
        // subfilter at the next insertion, so it may hold exactly `c`.
        let most = if timed { capacity } else { capacity - 1 };
        if newest >= l as u64 || filled > most {
            return Err(DecodeError::invalid(
                "queue clock",
                "newest index or fill outside the queue",
            ));
        }
        let now = time.latest();
        let slices = if timed {
            if span == 0 || started > now || now - started >= span.saturating_mul(l as u64) || l < 2
            {
                return Err(DecodeError::invalid(
                    "time slicing",
                    "span, start and clock inconsistent",
                ));
            }
            Some(Slices {
                span,
                started,
                time,
                closed_early,
            })
        } else {
            if span != 0 || started != 0 || time != TimeClock::new() || closed_early != 0 {
                return Err(DecodeError::invalid(
                    "time slicing",
                    "set on a queue without a time span",
                ));
            }
            None
        };
        let mut subfilters = Vec::with_capacity(l.min(input.remaining()));
        for _ in 0..l {
            subfilters.push(input.nested::<F>("subfilter")?);
        }
        Ok(Queue {
            subfilters,
            newest: newest as usize,
            capacity,
            filled,
            slices,
            scratch: Scratch::default(),
        })
    }
}
