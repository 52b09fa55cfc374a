//! Reading, splitting and hashing on their own thread.
//!
//! A second thread reads the inputs one after the other in large chunks,
//! cuts each chunk into records, extracts and hashes their keys, and sends
//! [`Block`]s over a bounded channel. The dedup loop only drives the filter
//! and writes, so on two cores the reading and hashing of one chunk overlap
//! with the filtering of the previous one. The loop waits on the channel with
//! a timeout, so a signal or a checkpoint is handled even while standard
//! input is idle.
//!
//! A record that straddles two reads stays in the buffer and the next read
//! appends to it, so no record is ever copied more than once, however long.

use crate::key::{Extractor, TimeSpec};
use ddf::{Digest, KeyedSipHasher};
use std::fs::File;
use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread;
use std::time::{SystemTime, UNIX_EPOCH};

/// Bytes per read: large enough that a read and a block are cheap next to
/// hashing their records, small enough that the blocks in flight add little
/// to the resident memory.
const CHUNK: usize = 1 << 17;

/// Blocks in flight between the reader and the loop.
const IN_FLIGHT: usize = 2;

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

/// How the reader turns bytes into digests.
#[derive(Debug, Clone)]
pub(crate) struct Parse {
    pub(crate) extractor: Extractor,
    pub(crate) hasher: KeyedSipHasher,
    pub(crate) terminator: u8,
    pub(crate) strip_cr: bool,
    /// Whether the filter keeps time: then every key gets a time.
    pub(crate) timed: bool,
    /// `--on-bad-record fail`: stop at the first bad record.
    pub(crate) fail_on_bad: bool,
}

/// One record inside its block's buffer.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rec {
    start: usize,
    end: usize,
    /// Whether a terminator followed it in the input.
    pub(crate) terminated: bool,
    /// Whether to write a terminator after it even though the input had
    /// none (the unterminated last record of an input that is not the last).
    pub(crate) add_terminator: bool,
}

/// A record's fate.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Fate {
    /// Hashed: the index of its digest in the block.
    Key(usize),
    /// No key or time.
    Bad,
}

/// Whole records of one input, with their digests.
#[derive(Debug, Default)]
pub(crate) struct Block {
    /// The input the records came from.
    pub(crate) input: usize,
    buf: Vec<u8>,
    /// Bytes read from the input for this block (for progress).
    pub(crate) new_bytes: u64,
    pub(crate) recs: Vec<Rec>,
    pub(crate) fates: Vec<Fate>,
    /// Digests of the keys, for a filter without time.
    pub(crate) digests: Vec<Digest>,
    /// Digests with their times (milliseconds), for a time window.
    pub(crate) stamped: Vec<(Digest, u64)>,
    /// The error that stopped reading after the last record of the block
    /// (`--on-bad-record fail`), naming input and line.
    pub(crate) fail: Option<String>,
}

impl Block {
    /// The record's bytes, without its terminator (nor a CR before it under
    /// `--strip-cr`).
    pub(crate) fn record(&self, r: &Rec) -> &[u8] {
        &self.buf[r.start..r.end]
    }

    fn reset(&mut self, input: usize) {
        self.input = input;
        self.buf.clear();
        self.new_bytes = 0;
        self.recs.clear();
        self.fates.clear();
        self.digests.clear();
        self.stamped.clear();
        self.fail = None;
    }
}

/// What the reader sends.
#[derive(Debug)]
pub(crate) enum Msg {
    /// Records of an input.
    Block(Block),
    /// Input `input` could not be opened or read.
    Error { input: usize, error: io::Error },
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Starts the reader thread. Used blocks come back through the returned
/// sender, so reading does not allocate once the first blocks circulate.
pub(crate) fn spawn(sources: Vec<Source>, parse: Parse) -> (Receiver<Msg>, SyncSender<Block>) {
    let (tx, rx) = sync_channel::<Msg>(IN_FLIGHT);
    let (back_tx, back_rx) = sync_channel::<Block>(IN_FLIGHT + 2);
    thread::spawn(move || {
        let names: Vec<String> = sources.iter().map(Source::name).collect();
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
            let last_input = input + 1 == sources.len();
            let mut line: u64 = 0;
            // The partial record at the end of the last read.
            let mut tail: Vec<u8> = Vec::new();
            loop {
                let mut b = back_rx.try_recv().unwrap_or_default();
                b.reset(input);
                b.buf.append(&mut tail);
                // Read until the buffer holds a whole record or the input ends.
                let mut scanned = 0;
                let ended = loop {
                    let old = b.buf.len();
                    b.buf.resize(old + CHUNK, 0);
                    let n = match read_some(&mut reader, &mut b.buf[old..]) {
                        Ok(n) => n,
                        Err(error) => {
                            let _ = tx.send(Msg::Error { input, error });
                            return;
                        }
                    };
                    b.buf.truncate(old + n);
                    b.new_bytes += n as u64;
                    if n == 0 {
                        break true;
                    }
                    if memchr::memchr(parse.terminator, &b.buf[scanned..]).is_some() {
                        break false;
                    }
                    scanned = b.buf.len();
                };
                let whole = split(&mut b, parse.terminator, parse.strip_cr);
                if ended {
                    if whole < b.buf.len() {
                        b.recs.push(Rec {
                            start: whole,
                            end: b.buf.len(),
                            terminated: false,
                            add_terminator: !last_input,
                        });
                    }
                } else {
                    tail.extend_from_slice(&b.buf[whole..]);
                    b.buf.truncate(whole);
                }
                hash(&mut b, &parse, &names[input], &mut line);
                let stop = b.fail.is_some();
                if tx.send(Msg::Block(b)).is_err() || stop {
                    return;
                }
                if ended {
                    break;
                }
            }
        }
    });
    (rx, back_tx)
}

/// One read, retried when interrupted by a signal.
fn read_some(reader: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match reader.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            other => return other,
        }
    }
}

/// Cuts the terminated records out of the block's buffer; returns where the
/// unterminated rest starts.
fn split(b: &mut Block, terminator: u8, strip_cr: bool) -> usize {
    let mut pos = 0;
    for end in memchr::memchr_iter(terminator, &b.buf) {
        let cut = if strip_cr && end > pos && b.buf[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        b.recs.push(Rec {
            start: pos,
            end: cut,
            terminated: true,
            add_terminator: false,
        });
        pos = end + 1;
    }
    pos
}

/// Extracts and hashes the key (and time) of every record of the block.
/// Under `--on-bad-record fail`, the first bad record ends the block (it and
/// what follows are dropped) and sets `fail`.
fn hash(b: &mut Block, parse: &Parse, name: &str, line: &mut u64) {
    let arrival = (parse.timed && matches!(parse.extractor.time, TimeSpec::None)).then(now_ms);
    let Block {
        buf,
        recs,
        fates,
        digests,
        stamped,
        fail,
        ..
    } = b;
    for (i, r) in recs.iter().enumerate() {
        *line += 1;
        match parse.extractor.extract(&buf[r.start..r.end]) {
            Ok(x) => {
                let d = ddf::hash::digest(&parse.hasher, &*x.key);
                if parse.timed {
                    fates.push(Fate::Key(stamped.len()));
                    stamped.push((d, x.time_ms.or(arrival).unwrap_or(0)));
                } else {
                    fates.push(Fate::Key(digests.len()));
                    digests.push(d);
                }
            }
            Err(why) if parse.fail_on_bad => {
                *fail = Some(format!(
                    "{name}:{line}: bad record: {why} (see --on-bad-record)"
                ));
                recs.truncate(i);
                return;
            }
            Err(_) => fates.push(Fate::Bad),
        }
    }
}
