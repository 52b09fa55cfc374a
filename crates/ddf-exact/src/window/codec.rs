//! The snapshot of an [`ExactWindow`] and its validating decoder.

use super::*;

const MODE_COUNT: u8 = 0;
const MODE_TIME: u8 = 1;
const MODE_UNBOUNDED: u8 = 2;

/// Body: mode (u8), window parameter (u64), capacity (u64, time mode; 0
/// otherwise), latest time and clock regressions (u64 each, 0 outside time
/// mode), early expiries (u64), then the items as
/// length-prefixed words — oldest first, `key, timestamp` pairs in time mode,
/// sorted keys for the unbounded set (its dictionary has no order).
impl Snapshot for ExactWindow<Digest, MixState> {
    const KIND: u16 = snapshot::kind::EXACT_WINDOW;
    // Layout 2 added the clock and overload counters; layout 1 is not read.
    const VERSION: u16 = 2;
    const OLDEST_VERSION: u16 = 2;

    fn encode_body(&self, out: &mut Encoder) {
        let (mode, param) = match self.window {
            Window::Count(w) => (MODE_COUNT, w),
            Window::Time(t) => (MODE_TIME, t),
            Window::Unbounded => (MODE_UNBOUNDED, 0),
        };
        out.put_u8(mode);
        out.put_u64(param);
        out.put_u64(if mode == MODE_TIME { self.capacity } else { 0 });
        self.clock.encode(out);
        out.put_u64(self.closed_early);
        let words: Vec<u64> = match self.window {
            Window::Count(_) => self.fifo.iter().map(|i| i.key.get()).collect(),
            Window::Time(_) => self.fifo.iter().flat_map(|i| [i.key.get(), i.at]).collect(),
            Window::Unbounded => {
                let mut keys: Vec<u64> = self.dict.keys().into_iter().map(|k| k.get()).collect();
                keys.sort_unstable();
                keys
            }
        };
        out.put_words(&words);
    }

    fn decode_body(input: &mut Decoder<'_>, _version: u16) -> Result<Self, DecodeError> {
        let mode = input.u8("mode")?;
        let param = input.u64("window")?;
        let capacity = input.u64("capacity")?;
        let clock = TimeClock::decode(input)?;
        let closed_early = input.u64("early expiries")?;
        let now = clock.latest();
        if mode != MODE_TIME && (capacity != 0 || clock != TimeClock::new() || closed_early != 0) {
            return Err(DecodeError::invalid(
                "capacity",
                "capacity, clock and early expiries belong to time windows",
            ));
        }
        let words = input.words("items")?;
        let mut f = match mode {
            MODE_COUNT => ExactWindow::new(param)?,
            MODE_TIME => ExactWindow::with_time_span(param, capacity)?,
            MODE_UNBOUNDED if param == 0 => ExactWindow::unbounded(),
            MODE_UNBOUNDED => {
                return Err(DecodeError::invalid(
                    "window",
                    "the unbounded set has no window",
                ));
            }
            m => return Err(DecodeError::invalid("mode", format!("unknown mode {m}"))),
        };
        match mode {
            MODE_COUNT => {
                if words.len() as u64 > param {
                    return Err(DecodeError::invalid(
                        "items",
                        "more items than the window holds",
                    ));
                }
                for w in words {
                    f.insert_key(Digest::new(w));
                }
            }
            MODE_TIME => {
                if words.len() % 2 != 0 || (words.len() / 2) as u64 > capacity {
                    return Err(DecodeError::invalid(
                        "items",
                        "time-window items come in key, timestamp pairs, at most capacity of them",
                    ));
                }
                let mut last = 0;
                for pair in words.chunks_exact(2) {
                    let ts = pair[1];
                    if ts < last || ts > now || now - ts >= param {
                        return Err(DecodeError::invalid(
                            "items",
                            "timestamps out of order or outside the window",
                        ));
                    }
                    last = ts;
                    f.insert_key_at(Digest::new(pair[0]), ts);
                }
            }
            _ => {
                if words.windows(2).any(|p| p[0] >= p[1]) {
                    return Err(DecodeError::invalid(
                        "items",
                        "set keys must be sorted and distinct",
                    ));
                }
                for w in words {
                    f.insert_key(Digest::new(w));
                }
            }
        }
        f.clock = clock;
        f.closed_early = closed_early;
        Ok(f)
    }
}
