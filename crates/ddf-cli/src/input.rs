//! Reading, splitting and hashing off the filtering thread.
//!
//! With `--threads 1`, a second thread reads the inputs one after the other
//! in large chunks, cuts each chunk into records, extracts and hashes their
//! keys, and sends [`Block`]s over a bounded channel, so on two cores the
//! reading and hashing of one chunk overlap with the filtering of the
//! previous one. With more, one thread reads and cuts at the last
//! terminator of each chunk, and `N` workers split and hash the blocks;
//! [`Inbox`] hands them to the dedup loop in input order. The loop waits
//! with a timeout, so a signal or a checkpoint is handled even while
//! standard input is idle.
//!
//! A record that straddles two reads stays in the buffer and the next read
//! appends to it, so no record is ever copied more than once, however long.

use crate::key::{Extractor, TimeSpec};
use ddf::{Digest, KeyedSipHasher};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

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

/// A block's hashed keys, in record order: digests alone for a filter
/// without time, digests with their times (milliseconds) for a time window.
/// The run chooses the kind once ([`Parse::timed`]); a recycled block keeps
/// it.
#[derive(Debug)]
pub(crate) enum Keys {
    /// For a window of records or the whole stream.
    Digests(Vec<Digest>),
    /// For a window of time.
    Stamped(Vec<(Digest, u64)>),
}

impl Default for Keys {
    fn default() -> Self {
        Keys::Digests(Vec::new())
    }
}

impl Keys {
    /// Empty keys of the kind a run with (`timed`) or without time takes.
    pub(crate) fn new(timed: bool) -> Self {
        if timed {
            Keys::Stamped(Vec::new())
        } else {
            Keys::Digests(Vec::new())
        }
    }

    /// Empties them as the kind `timed` asks for: a fresh block takes the
    /// run's kind here, once; a recycled one keeps its kind and allocation.
    fn reset(&mut self, timed: bool) {
        match self {
            Keys::Digests(v) if !timed => v.clear(),
            Keys::Stamped(v) if timed => v.clear(),
            _ => *self = Keys::new(timed),
        }
    }

    /// Empties them, keeping their kind and allocation.
    pub(crate) fn clear(&mut self) {
        match self {
            Keys::Digests(v) => v.clear(),
            Keys::Stamped(v) => v.clear(),
        }
    }

    /// How many keys.
    pub(crate) fn len(&self) -> usize {
        match self {
            Keys::Digests(v) => v.len(),
            Keys::Stamped(v) => v.len(),
        }
    }

    /// Appends a key; `time` is kept only by stamped keys.
    pub(crate) fn push(&mut self, d: Digest, time: u64) {
        match self {
            Keys::Digests(v) => v.push(d),
            Keys::Stamped(v) => v.push((d, time)),
        }
    }

    /// The latest time among stamped keys (`None` without time or keys).
    pub(crate) fn latest_time(&self) -> Option<u64> {
        match self {
            Keys::Digests(_) => None,
            Keys::Stamped(v) => v.iter().map(|&(_, t)| t).max(),
        }
    }
}

/// Whole records of one input, with their keys' digests.
#[derive(Debug, Default)]
pub(crate) struct Block {
    /// The input the records came from.
    pub(crate) input: usize,
    buf: Vec<u8>,
    /// Bytes read from the input for this block (for progress).
    pub(crate) new_bytes: u64,
    pub(crate) recs: Vec<Rec>,
    pub(crate) fates: Vec<Fate>,
    /// The keys' digests (with their times for a time window).
    pub(crate) keys: Keys,
    /// Why the record after the last one of the block is bad, which
    /// stopped reading (`--on-bad-record fail`); [`Inbox`] adds the input's
    /// name and the line.
    pub(crate) fail: Option<String>,
    /// Whether the input ended with this block (set by the reader when
    /// splitting and hashing run on other threads).
    ended: bool,
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
        self.keys.clear();
        self.fail = None;
        self.ended = false;
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

/// Blocks and read errors in input order, whatever thread made them.
///
/// Every message carries its sequence number; one that arrives before its
/// turn waits here. The blocks in flight are bounded (a pool, see
/// [`spawn`]), so this buffer is too.
pub(crate) struct Inbox {
    rx: Receiver<(u64, Msg)>,
    next: u64,
    early: BTreeMap<u64, Msg>,
    back: SyncSender<Block>,
    names: Vec<String>,
    /// Records delivered so far from each input: the line of a bad record.
    lines: Vec<u64>,
}

impl Inbox {
    /// The next message in input order, or `Timeout` when none came within
    /// `wait`, or `Disconnected` when the inputs are done.
    pub(crate) fn recv_timeout(&mut self, wait: Duration) -> Result<Msg, RecvTimeoutError> {
        let deadline = Instant::now() + wait;
        loop {
            if let Some(m) = self.early.remove(&self.next) {
                return Ok(self.deliver(m));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            let (seq, m) = self.rx.recv_timeout(left)?;
            if seq == self.next {
                return Ok(self.deliver(m));
            }
            self.early.insert(seq, m);
        }
    }

    /// Gives a used block back to the reader.
    pub(crate) fn recycle(&self, b: Block) {
        let _ = self.back.try_send(b);
    }

    /// Counts the block's records and names the input and line of its bad
    /// record.
    fn deliver(&mut self, mut m: Msg) -> Msg {
        self.next += 1;
        if let Msg::Block(b) = &mut m {
            let line = &mut self.lines[b.input];
            if let Some(why) = b.fail.take() {
                b.fail = Some(format!(
                    "{}:{}: bad record: {why} (see --on-bad-record)",
                    self.names[b.input],
                    *line + b.recs.len() as u64 + 1
                ));
            }
            *line += b.recs.len() as u64;
        }
        m
    }
}

/// Starts reading. With `threads == 1`, one thread reads, splits and
/// hashes (the pipeline of one filtering thread beside one reader). With
/// more, one thread reads and cuts the input at the last terminator of
/// each chunk, and `threads` workers split and hash the blocks, whichever
/// is free taking the next; [`Inbox`] puts them back in order. Used blocks
/// come back through [`Inbox::recycle`], so reading does not allocate once
/// the first blocks circulate, and with several workers the reader waits
/// for a used block once `pool` blocks exist, which bounds the memory in
/// flight.
pub(crate) fn spawn(sources: Vec<Source>, parse: Parse, threads: usize) -> Inbox {
    let names: Vec<String> = sources.iter().map(Source::name).collect();
    let inputs = sources.len();
    let threads = threads.max(1);
    let pool = if threads == 1 {
        usize::MAX
    } else {
        2 * threads + IN_FLIGHT + 2
    };
    let (tx, rx) = sync_channel::<(u64, Msg)>(IN_FLIGHT + threads - 1);
    let (back_tx, back_rx) = sync_channel::<Block>(pool.min(4 * threads + IN_FLIGHT + 2));
    if threads == 1 {
        let tx = tx.clone();
        thread::spawn(move || {
            let mut seq = 0;
            read_inputs(
                &sources,
                parse.terminator,
                || Some(back_rx.try_recv().unwrap_or_default()),
                |mut m| {
                    let mut stop = false;
                    if let Msg::Block(b) = &mut m {
                        let last = b.input + 1 == inputs;
                        process(b, &parse, last);
                        stop = b.fail.is_some();
                    }
                    seq += 1;
                    tx.send((seq - 1, m)).is_ok() && !stop
                },
            );
        });
    } else {
        let (work_tx, work_rx) = sync_channel::<(u64, Block)>(threads);
        let work_rx = Arc::new(Mutex::new(work_rx));
        for _ in 0..threads {
            let (work_rx, tx, parse) = (Arc::clone(&work_rx), tx.clone(), parse.clone());
            thread::spawn(move || {
                loop {
                    // The lock is held only while waiting for the next
                    // block, never while working on one.
                    let next = match work_rx.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => return,
                    };
                    let Ok((seq, mut b)) = next else { return };
                    let last = b.input + 1 == inputs;
                    process(&mut b, &parse, last);
                    if tx.send((seq, Msg::Block(b))).is_err() {
                        return;
                    }
                }
            });
        }
        let terminator = parse.terminator;
        let tx = tx.clone();
        thread::spawn(move || {
            let (mut seq, mut made) = (0u64, 0usize);
            read_inputs(
                &sources,
                terminator,
                || {
                    if made < pool {
                        made += 1;
                        Some(back_rx.try_recv().unwrap_or_default())
                    } else {
                        back_rx.recv().ok()
                    }
                },
                |m| {
                    seq += 1;
                    match m {
                        Msg::Block(b) => work_tx.send((seq - 1, b)).is_ok(),
                        error => tx.send((seq - 1, error)).is_ok(),
                    }
                },
            );
        });
    }
    drop(tx);
    Inbox {
        rx,
        next: 0,
        early: BTreeMap::new(),
        back: back_tx,
        lines: vec![0; names.len()],
        names,
    }
}

/// Reads the inputs one after the other into blocks of whole records (the
/// last record of an input may lack its terminator) and hands each to
/// `send`, unsplit, until `send` returns false. `fresh` gives an empty
/// block, or `None` to stop.
fn read_inputs(
    sources: &[Source],
    terminator: u8,
    mut fresh: impl FnMut() -> Option<Block>,
    mut send: impl FnMut(Msg) -> bool,
) {
    for (input, source) in sources.iter().enumerate() {
        let mut reader: Box<dyn Read> = match source {
            Source::Stdin => Box::new(io::stdin().lock()),
            Source::File(p) => match File::open(p) {
                Ok(f) => Box::new(f),
                Err(error) => {
                    send(Msg::Error { input, error });
                    return;
                }
            },
        };
        // The partial record at the end of the last read.
        let mut tail: Vec<u8> = Vec::new();
        loop {
            let Some(mut b) = fresh() else { return };
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
                        send(Msg::Error { input, error });
                        return;
                    }
                };
                b.buf.truncate(old + n);
                b.new_bytes += n as u64;
                if n == 0 {
                    break true;
                }
                if memchr::memchr(terminator, &b.buf[scanned..]).is_some() {
                    break false;
                }
                scanned = b.buf.len();
            };
            if !ended {
                // The loop above stopped at a terminator, so there is one.
                let whole = memchr::memrchr(terminator, &b.buf).map_or(0, |i| i + 1);
                tail.extend_from_slice(&b.buf[whole..]);
                b.buf.truncate(whole);
            }
            b.ended = ended;
            if !send(Msg::Block(b)) || ended {
                break;
            }
        }
    }
}

/// Splits a block from [`read_inputs`] into records and hashes their keys.
fn process(b: &mut Block, parse: &Parse, last_input: bool) {
    let whole = split(b, parse.terminator, parse.strip_cr);
    if whole < b.buf.len() {
        // Only the last block of an input has bytes after its last
        // terminator: its unterminated last record.
        b.recs.push(Rec {
            start: whole,
            end: b.buf.len(),
            terminated: false,
            add_terminator: !last_input,
        });
    }
    hash(b, parse);
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
fn hash(b: &mut Block, parse: &Parse) {
    let arrival = (parse.timed && matches!(parse.extractor.time, TimeSpec::None)).then(now_ms);
    let Block {
        buf,
        recs,
        fates,
        keys,
        fail,
        ..
    } = b;
    keys.reset(parse.timed);
    // One loop per kind of keys: no record asks which kind it is.
    let failed = match keys {
        Keys::Digests(v) => hash_into(buf, recs, fates, parse, |d, _| {
            v.push(d);
            v.len() - 1
        }),
        Keys::Stamped(v) => hash_into(buf, recs, fates, parse, |d, time| {
            v.push((d, time.or(arrival).unwrap_or(0)));
            v.len() - 1
        }),
    };
    if let Some((i, why)) = failed {
        *fail = Some(why);
        recs.truncate(i);
    }
}

/// [`hash`]'s loop: every record's key hashed and handed to `push` with its
/// time if it has one (`push` gives the key's index), or its fate `Bad`; the
/// first bad record's index and reason under `--on-bad-record fail`.
fn hash_into(
    buf: &[u8],
    recs: &[Rec],
    fates: &mut Vec<Fate>,
    parse: &Parse,
    mut push: impl FnMut(Digest, Option<u64>) -> usize,
) -> Option<(usize, String)> {
    for (i, r) in recs.iter().enumerate() {
        match parse.extractor.extract(&buf[r.start..r.end]) {
            Ok(x) => {
                let d = ddf::hash::digest(&parse.hasher, &*x.key);
                fates.push(Fate::Key(push(d, x.time_ms)));
            }
            Err(why) if parse.fail_on_bad => return Some((i, why)),
            Err(_) => fates.push(Fate::Bad),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block of `n` records from input `input`, failing after them when
    /// `fail` is given.
    fn block(input: usize, n: usize, fail: Option<&str>) -> Block {
        let mut b = Block::default();
        b.reset(input);
        for _ in 0..n {
            b.recs.push(Rec {
                start: 0,
                end: 0,
                terminated: true,
                add_terminator: false,
            });
        }
        b.fail = fail.map(String::from);
        b
    }

    /// An inbox over inputs named `names`, the sender of its messages, and
    /// the receiver of the blocks it sends back (kept open by the caller).
    fn inbox_over(names: &[&str]) -> (SyncSender<(u64, Msg)>, Inbox, Receiver<Block>) {
        let (tx, rx) = sync_channel(8);
        let (back, back_rx) = sync_channel(8);
        let inbox = Inbox {
            rx,
            next: 0,
            early: BTreeMap::new(),
            back,
            names: names.iter().map(|n| n.to_string()).collect(),
            lines: vec![0; names.len()],
        };
        (tx, inbox, back_rx)
    }

    /// Messages that arrive out of order come out in sequence order, and a
    /// bad record's line counts the records of the blocks before it.
    #[test]
    fn inbox_restores_input_order_and_lines() {
        let (tx, mut inbox, _back) = inbox_over(&["a", "b"]);
        tx.send((2, Msg::Block(block(1, 5, None)))).unwrap();
        tx.send((0, Msg::Block(block(0, 3, None)))).unwrap();
        tx.send((3, Msg::Block(block(1, 2, Some("no field 2")))))
            .unwrap();
        tx.send((1, Msg::Block(block(0, 4, None)))).unwrap();
        drop(tx);
        let wait = Duration::from_secs(5);
        let mut got = Vec::new();
        while let Ok(Msg::Block(b)) = inbox.recv_timeout(wait) {
            got.push((b.input, b.recs.len(), b.fail));
        }
        assert_eq!(
            got,
            [
                (0, 3, None),
                (0, 4, None),
                (1, 5, None),
                (
                    1,
                    2,
                    Some("b:8: bad record: no field 2 (see --on-bad-record)".into())
                ),
            ]
        );
        assert!(matches!(
            inbox.recv_timeout(wait),
            Err(RecvTimeoutError::Disconnected)
        ));
    }

    /// A sequence number not yet come is waited for until the timeout.
    #[test]
    fn inbox_times_out_on_a_gap() {
        let (tx, mut inbox, _back) = inbox_over(&["a"]);
        tx.send((1, Msg::Block(block(0, 1, None)))).unwrap();
        assert!(matches!(
            inbox.recv_timeout(Duration::from_millis(20)),
            Err(RecvTimeoutError::Timeout)
        ));
        tx.send((0, Msg::Block(block(0, 1, None)))).unwrap();
        for _ in 0..2 {
            assert!(matches!(
                inbox.recv_timeout(Duration::from_secs(5)),
                Ok(Msg::Block(_))
            ));
        }
    }
}
