//! The progress line on stderr: records per second, duplicate share, and
//! bytes read of the total when every input is a file.

use std::io::Write;
use std::time::{Duration, Instant};

/// How often the line is redrawn.
const EVERY: Duration = Duration::from_millis(500);

/// A progress line, redrawn in place with `\r`.
#[derive(Debug)]
pub(crate) struct Progress {
    total: Option<u64>,
    started: Instant,
    last: Instant,
    drawn: bool,
}

impl Progress {
    /// A progress line for inputs of `total` bytes (unknown for pipes).
    pub(crate) fn new(total: Option<u64>) -> Self {
        let now = Instant::now();
        Progress {
            total,
            started: now,
            last: now,
            drawn: false,
        }
    }

    /// Redraws the line if it is due.
    pub(crate) fn tick(&mut self, records: u64, duplicates: u64, bytes: u64) {
        if self.last.elapsed() >= EVERY {
            self.draw(records, duplicates, bytes);
        }
    }

    /// Draws the final line and ends it.
    pub(crate) fn finish(&mut self, records: u64, duplicates: u64, bytes: u64) {
        self.draw(records, duplicates, bytes);
        eprintln!();
    }

    fn draw(&mut self, records: u64, duplicates: u64, bytes: u64) {
        self.last = Instant::now();
        self.drawn = true;
        let secs = self.started.elapsed().as_secs_f64().max(1e-9);
        let share = 100.0 * duplicates as f64 / records.max(1) as f64;
        let read = crate::dedup::human_bytes(bytes);
        let of = match self.total {
            Some(t) if t > 0 => format!(
                " of {} ({:.0}%)",
                crate::dedup::human_bytes(t),
                100.0 * bytes as f64 / t as f64
            ),
            _ => String::new(),
        };
        let mut err = std::io::stderr().lock();
        // A failed progress write must not stop the run.
        let _ = write!(
            err,
            "\r\x1b[2Kddf: {records} records, {:.0}/s, {share:.1}% duplicates, {read}{of} read",
            records as f64 / secs
        );
        let _ = err.flush();
    }
}
