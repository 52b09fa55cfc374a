//! Reading the inputs on their own thread, in large chunks.
//!
//! A reader thread reads the inputs one after the other and sends chunks
//! over a bounded channel. The dedup loop waits on that channel with a
//! timeout, so a signal or a checkpoint is handled even while standard input
//! is idle, and reading overlaps with hashing on a second core.

use std::fs::File;
use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread;

/// Bytes per read: large enough that a read is cheap next to hashing its
/// records, small enough that the chunks in flight add little to the RSS.
const CHUNK: usize = 1 << 18;

/// Chunks in flight between the reader and the loop.
const IN_FLIGHT: usize = 4;

/// One input: a file or standard input.
#[derive(Debug, Clone)]
pub(crate) enum Source {
    Stdin,
    File(PathBuf),
}

impl Source {
    /// The name errors use.
    pub(crate) fn name(&self) -> String {
        match self {
            Source::Stdin => "<stdin>".into(),
            Source::File(p) => p.display().to_string(),
        }
    }

    /// `FILE…` as sources: none means standard input, `-` is standard input.
    pub(crate) fn from_args(files: &[PathBuf]) -> Vec<Source> {
        if files.is_empty() {
            return vec![Source::Stdin];
        }
        files
            .iter()
            .map(|f| {
                if f.as_os_str() == "-" {
                    Source::Stdin
                } else {
                    Source::File(f.clone())
                }
            })
            .collect()
    }

    /// The total bytes of the inputs when every one is a regular file.
    pub(crate) fn total_bytes(sources: &[Source]) -> Option<u64> {
        sources.iter().try_fold(0u64, |acc, s| match s {
            Source::File(p) => {
                let m = std::fs::metadata(p).ok()?;
                m.is_file().then(|| acc + m.len())
            }
            Source::Stdin => None,
        })
    }
}

/// What the reader sends.
#[derive(Debug)]
pub(crate) enum Msg {
    /// Bytes of input `input`.
    Data { input: usize, bytes: Vec<u8> },
    /// Input `input` ended.
    End { input: usize },
    /// Input `input` could not be opened or read.
    Error { input: usize, error: io::Error },
}

/// Starts the reader thread. Used buffers come back through the returned
/// sender, so reading does not allocate after the first chunks.
pub(crate) fn spawn(sources: Vec<Source>) -> (Receiver<Msg>, SyncSender<Vec<u8>>) {
    let (tx, rx) = sync_channel::<Msg>(IN_FLIGHT);
    let (back_tx, back_rx) = sync_channel::<Vec<u8>>(IN_FLIGHT + 2);
    thread::spawn(move || {
        for (input, source) in sources.iter().enumerate() {
            let mut reader: Box<dyn Read> = match source {
                Source::Stdin => Box::new(io::stdin().lock()),
                Source::File(p) => match File::open(p) {
                    Ok(f) => Box::new(f),
                    Err(error) => {
                        let _ = tx.send(Msg::Error { input, error });
                        return;
                    }
                },
            };
            loop {
                let mut buf = back_rx.try_recv().unwrap_or_default();
                buf.resize(CHUNK, 0);
                match reader.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        buf.truncate(n);
                        if tx.send(Msg::Data { input, bytes: buf }).is_err() {
                            return;
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(error) => {
                        let _ = tx.send(Msg::Error { input, error });
                        return;
                    }
                }
            }
            if tx.send(Msg::End { input }).is_err() {
                return;
            }
        }
    });
    (rx, back_tx)
}
