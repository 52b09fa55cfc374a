//! `ddf dedup`: records in, first occurrences out, in order.
//!
//! Records are split out of the reader's chunks and handled in blocks of
//! [`BLOCK`]: keys are cut out and hashed, the block's digests go to the
//! filter's batch path (`observe_batch`, which prefetches), or one by one to
//! `observe_at` for a time window, and the records are written in input
//! order. Signals and checkpoints are looked at between blocks.

use crate::choose::{self, Choice};
use crate::cli::{DedupArgs, OnBad};
use crate::engine::{self, Engine, describe_window};
use crate::input::{self, Msg, Source};
use crate::key::{Extractor, KeySpec, TimeSpec};
use crate::state::{self, Meta};
use crate::{Fail, progress::Progress};
use ddf::KeyedSipHasher;
use ddf::{Digest, DuplicateFilter, Verdict, Window, Windowed};
use serde_json::json;
use std::io::{self, IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Records per block handed to the filter at once.
const BLOCK: usize = 256;

/// How long the loop waits for input before it looks at signals again.
const POLL: Duration = Duration::from_millis(100);

/// Counts for `--stats`.
#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    records: u64,
    duplicates: u64,
    bad: u64,
    bytes: u64,
}

/// A record's fate within a block.
#[derive(Debug, Clone, Copy)]
enum Fate {
    /// Hashed: the index of its digest in the block.
    Key(usize),
    /// No key or time.
    Bad,
}

/// One record inside the current chunk (or the carried-over buffer).
#[derive(Debug, Clone, Copy)]
struct Rec {
    start: usize,
    end: usize,
    /// Whether a terminator followed it in the input.
    terminated: bool,
    /// Whether to write a terminator after it even though the input had
    /// none (the unterminated last record of an input that is not the last).
    add_terminator: bool,
    line: u64,
}

/// Everything the loop needs besides the records.
struct Run {
    filter: Engine,
    hasher: KeyedSipHasher,
    extractor: Extractor,
    timed: bool,
    on_bad: OnBad,
    mode: Output,
    terminator: u8,
    strip_cr: bool,
    counts: Counts,
    clock_ms: Option<u64>,
    out: io::BufWriter<io::StdoutLock<'static>>,
    // Scratch, reused across blocks.
    digests: Vec<Digest>,
    times: Vec<u64>,
    verdicts: Vec<Verdict>,
    fates: Vec<Fate>,
}

/// What to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Output {
    Unique,
    Duplicates,
    Mark,
}

/// Why the loop stopped early.
#[derive(Debug)]
enum Stop {
    /// The reader of our output went away.
    BrokenPipe,
    /// An error to report (exit 1).
    Fail(String),
}

impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Stop::BrokenPipe
        } else {
            Stop::Fail(format!("cannot write the output: {e}"))
        }
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl Run {
    /// Handles the records `recs` of `buf`, which came from input `name`.
    fn block(&mut self, buf: &[u8], recs: &[Rec], name: &str) -> Result<(), Stop> {
        self.digests.clear();
        self.times.clear();
        self.fates.clear();
        let arrival = if self.timed && matches!(self.extractor.time, TimeSpec::None) {
            Some(now_ms())
        } else {
            None
        };
        for (i, r) in recs.iter().enumerate() {
            let rec = self.record(buf, r);
            match self.extractor.extract(rec) {
                Ok(x) => {
                    self.fates.push(Fate::Key(self.digests.len()));
                    self.digests.push(ddf::hash::digest(&self.hasher, &*x.key));
                    if self.timed {
                        self.times.push(x.time_ms.or(arrival).unwrap_or(0));
                    }
                }
                Err(why) => {
                    if self.on_bad == OnBad::Fail {
                        // The records before it are handled and written,
                        // as if the input had ended there.
                        self.block(buf, &recs[..i], name)?;
                        return Err(Stop::Fail(format!(
                            "{name}:{}: bad record: {why} (see --on-bad-record)",
                            r.line
                        )));
                    }
                    self.fates.push(Fate::Bad);
                }
            }
        }
        self.verdicts.clear();
        let times = self.timed.then_some(&self.times[..]);
        engine::observe(&mut self.filter, &self.digests, times, &mut self.verdicts);
        if let Some(&t) = self.times.iter().max() {
            self.clock_ms = Some(self.clock_ms.map_or(t, |c| c.max(t)));
        }
        for (i, r) in recs.iter().enumerate() {
            let rec = self.record(buf, r);
            self.counts.records += 1;
            let (write, tag): (bool, &[u8]) = match self.fates[i] {
                Fate::Key(k) => {
                    let dup = self.verdicts[k] == Verdict::Duplicate;
                    self.counts.duplicates += u64::from(dup);
                    match self.mode {
                        Output::Unique => (!dup, b""),
                        Output::Duplicates => (dup, b""),
                        Output::Mark => (true, if dup { b"dup\t" } else { b"new\t" }),
                    }
                }
                Fate::Bad => {
                    self.counts.bad += 1;
                    let keep = self.on_bad == OnBad::Keep;
                    match self.mode {
                        Output::Unique => (keep, b""),
                        Output::Duplicates => (false, b""),
                        Output::Mark => (keep, b"bad\t"),
                    }
                }
            };
            if write {
                self.out.write_all(tag)?;
                self.out.write_all(rec)?;
                if r.terminated || r.add_terminator {
                    self.out.write_all(&[self.terminator])?;
                }
            }
        }
        Ok(())
    }

    /// The record's bytes, without its terminator (nor a CR before it under
    /// `--strip-cr`).
    fn record<'b>(&self, buf: &'b [u8], r: &Rec) -> &'b [u8] {
        let rec = &buf[r.start..r.end];
        if self.strip_cr && r.terminated {
            rec.strip_suffix(b"\r").unwrap_or(rec)
        } else {
            rec
        }
    }
}

/// Runs `ddf dedup`; the exit status on success or signal.
pub(crate) fn run(args: &DedupArgs) -> Result<u8, Fail> {
    let choice = choose::choose(&args.plan).map_err(Fail::Usage)?;
    let sources = Source::from_args(&args.files);
    let timed = matches!(choice.window, Window::Time(_));
    let extractor = Extractor {
        key: match (&args.field, &args.json) {
            (Some(n), _) => {
                if *n == 0 {
                    return Err(Fail::Usage("--field counts from 1".into()));
                }
                KeySpec::Field(*n)
            }
            (None, Some(p)) => KeySpec::Json(p.clone()),
            (None, None) => KeySpec::Whole,
        },
        time: match (&args.time_field, &args.time_json) {
            (Some(0), _) => return Err(Fail::Usage("--time-field counts from 1".into())),
            (Some(n), _) => TimeSpec::Field(*n),
            (None, Some(p)) => TimeSpec::Json(p.clone()),
            (None, None) => TimeSpec::None,
        },
        delimiter: args.delimiter,
        unit: args.time_unit,
    };
    let time_source = match extractor.time {
        TimeSpec::None if timed => "arrival",
        TimeSpec::None => "none",
        TimeSpec::Field(_) => "field",
        TimeSpec::Json(_) => "json",
    };

    // The filter: from the state file when it matches the flags, else new.
    let mut records_before = 0;
    let mut clock_ms = None;
    let loaded = match &args.state {
        Some(path) if !args.reset => state::load(path).map_err(Fail::Run)?,
        _ => None,
    };
    let (filter, hasher) = match loaded {
        Some(l) => {
            let (fam, win) = (engine::family(&l.filter), l.filter.window());
            if fam != choice.family || win != choice.window {
                return Err(Fail::Run(format!(
                    "state file {} holds a {fam} filter over {}, but the flags ask for a {} \
                     filter over {}; pass --reset to replace it",
                    args.state
                        .as_ref()
                        .map_or(String::new(), |p| p.display().to_string()),
                    describe_window(win),
                    choice.family,
                    describe_window(choice.window),
                )));
            }
            records_before = l.meta.records_seen;
            clock_ms = l.meta.clock_ms;
            (l.filter, l.hasher)
        }
        None => {
            let hasher = match args.seed {
                Some(s) => KeyedSipHasher::with_seed(s),
                None => KeyedSipHasher::try_new()
                    .map_err(|e| Fail::Run(format!("no OS randomness for the hash key: {e}")))?,
            };
            (choice.build().map_err(Fail::Usage)?, hasher)
        }
    };
    if args.verbose {
        eprintln!(
            "ddf: {} filter ({}) over {}: {} memory, predicted FPR {:.3e}, FNR {:.3e}, slack {}",
            engine::family(&filter),
            choice.config,
            describe_window(filter.window()),
            human_bytes(filter.memory_bits().div_ceil(8)),
            choice.fpr,
            choice.fnr,
            filter.slack(),
        );
    }

    // Signals only set flags; the loop acts on them between blocks.
    let sigint = Arc::new(AtomicBool::new(false));
    let sigterm = Arc::new(AtomicBool::new(false));
    for (sig, flag) in [
        (signal_hook::consts::SIGINT, &sigint),
        (signal_hook::consts::SIGTERM, &sigterm),
    ] {
        signal_hook::flag::register(sig, Arc::clone(flag))
            .map_err(|e| Fail::Run(format!("cannot handle signals: {e}")))?;
    }

    let show_progress = !args.no_progress && (args.progress || io::stderr().is_terminal());
    let mut progress = show_progress.then(|| Progress::new(Source::total_bytes(&sources)));
    let names: Vec<String> = sources.iter().map(Source::name).collect();
    let n_inputs = sources.len();
    let (rx, back) = input::spawn(sources);

    let mut run = Run {
        filter,
        hasher,
        extractor,
        timed,
        on_bad: args.on_bad_record,
        mode: if args.mark {
            Output::Mark
        } else if args.duplicates {
            Output::Duplicates
        } else {
            Output::Unique
        },
        terminator: if args.zero { 0 } else { b'\n' },
        strip_cr: args.strip_cr,
        counts: Counts::default(),
        clock_ms,
        out: io::BufWriter::with_capacity(1 << 16, io::stdout().lock()),
        digests: Vec::with_capacity(BLOCK),
        times: Vec::with_capacity(BLOCK),
        verdicts: Vec::with_capacity(BLOCK),
        fates: Vec::with_capacity(BLOCK),
    };
    let save = |run: &Run| -> Result<(), Fail> {
        match &args.state {
            Some(path) => state::save(
                path,
                &run.filter,
                &run.hasher,
                &Meta {
                    config: choice.config.clone(),
                    fpr: choice.fpr,
                    records_seen: records_before + run.counts.records,
                    clock_ms: run.clock_ms,
                    time_source: time_source.into(),
                },
            )
            .map_err(Fail::Run),
            None => Ok(()),
        }
    };

    let started = Instant::now();
    let mut last_checkpoint = Instant::now();
    let checkpoint = args.checkpoint.map(Duration::from_millis);
    let mut carry: Vec<u8> = Vec::new();
    let mut line: u64 = 0;
    let mut recs: Vec<Rec> = Vec::with_capacity(BLOCK);
    let term = run.terminator;
    let mut signal_exit: Option<u8> = None;
    let outcome: Result<(), Stop> = 'outer: loop {
        if sigint.load(Ordering::Relaxed) {
            signal_exit = Some(130);
            break Ok(());
        }
        if sigterm.load(Ordering::Relaxed) {
            signal_exit = Some(143);
            break Ok(());
        }
        if let Some(every) = checkpoint
            && last_checkpoint.elapsed() >= every
        {
            save(&run)?;
            last_checkpoint = Instant::now();
        }
        if let Some(p) = progress.as_mut() {
            p.tick(run.counts.records, run.counts.duplicates, run.counts.bytes);
        }
        let msg = match rx.recv_timeout(POLL) {
            Ok(m) => m,
            Err(RecvTimeoutError::Timeout) => {
                // Idle input: let the reader downstream see what we have.
                if let Err(e) = run.out.flush() {
                    break Err(e.into());
                }
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => break Ok(()),
        };
        match msg {
            Msg::Error { input, error } => {
                break Err(Stop::Fail(format!("cannot read {}: {error}", names[input])));
            }
            Msg::End { input } => {
                if !carry.is_empty() {
                    line += 1;
                    let r = Rec {
                        start: 0,
                        end: carry.len(),
                        terminated: false,
                        add_terminator: input + 1 < n_inputs,
                        line,
                    };
                    if let Err(e) = run.block(&carry, &[r], &names[input]) {
                        break Err(e);
                    }
                    carry.clear();
                }
                line = 0;
            }
            Msg::Data { input, bytes } => {
                run.counts.bytes += bytes.len() as u64;
                let mut pos = 0;
                // Finish the record carried over from the last chunk.
                if !carry.is_empty() {
                    match memchr::memchr(term, &bytes) {
                        Some(i) => {
                            carry.extend_from_slice(&bytes[..i]);
                            line += 1;
                            let r = Rec {
                                start: 0,
                                end: carry.len(),
                                terminated: true,
                                add_terminator: false,
                                line,
                            };
                            if let Err(e) = run.block(&carry, &[r], &names[input]) {
                                break Err(e);
                            }
                            carry.clear();
                            pos = i + 1;
                        }
                        None => {
                            carry.extend_from_slice(&bytes);
                            pos = bytes.len();
                        }
                    }
                }
                let base = pos;
                let mut it = memchr::memchr_iter(term, &bytes[base..]);
                loop {
                    recs.clear();
                    for i in it.by_ref() {
                        let end = base + i;
                        line += 1;
                        recs.push(Rec {
                            start: pos,
                            end,
                            terminated: true,
                            add_terminator: false,
                            line,
                        });
                        pos = end + 1;
                        if recs.len() == BLOCK {
                            break;
                        }
                    }
                    if recs.is_empty() {
                        break;
                    }
                    if let Err(e) = run.block(&bytes, &recs, &names[input]) {
                        break 'outer Err(e);
                    }
                }
                carry.extend_from_slice(&bytes[pos..]);
                let _ = back.try_send(bytes);
            }
        }
    };
    // Whatever stopped the loop, the records handled so far were remembered:
    // the state is saved unless the run failed on input or output.
    let flushed = match outcome {
        Ok(()) => run.out.flush().map_err(Stop::from),
        Err(e) => Err(e),
    };
    if let Some(p) = progress.as_mut() {
        p.finish(run.counts.records, run.counts.duplicates, run.counts.bytes);
    }
    let status = match flushed {
        Ok(()) | Err(Stop::BrokenPipe) => {
            save(&run)?;
            signal_exit.unwrap_or(0)
        }
        Err(Stop::Fail(msg)) => {
            // A rerun after fixing the input starts from the old state:
            // saving now would make it call this run's records duplicates.
            let _ = run.out.flush();
            return Err(Fail::Run(msg));
        }
    };
    if args.stats || args.stats_json {
        report(args, &choice, &run.filter, &run.counts, started.elapsed());
    }
    Ok(status)
}

/// Writes the `--stats` / `--stats-json` summary to stderr.
fn report(args: &DedupArgs, choice: &Choice, filter: &Engine, c: &Counts, took: Duration) {
    let secs = took.as_secs_f64().max(1e-9);
    let memory = filter.memory_bits().div_ceil(8);
    if args.stats_json {
        let v = json!({
            "records": c.records,
            "unique": c.records - c.duplicates - c.bad,
            "duplicates": c.duplicates,
            "bad_records": c.bad,
            "bytes": c.bytes,
            "seconds": took.as_secs_f64(),
            "filter": engine::family(filter),
            "config": choice.config,
            "window": state::window_json(filter.window()),
            "slack": filter.slack(),
            "memory_bytes": memory,
            "predicted_fpr": choice.fpr,
            "predicted_fnr": choice.fnr,
        });
        eprintln!("{v}");
    }
    if args.stats {
        eprintln!(
            "records {}, duplicates {} ({:.2}%), bad records {}\n\
             filter {} over {}, memory {}, predicted FPR {:.3e}{}\n\
             {:.2} s, {:.0} records/s, {:.1} MB/s",
            c.records,
            c.duplicates,
            100.0 * c.duplicates as f64 / (c.records.max(1)) as f64,
            c.bad,
            engine::family(filter),
            describe_window(filter.window()),
            human_bytes(memory),
            choice.fpr,
            if choice.fnr > 0.0 {
                format!(", predicted FNR {:.3e}", choice.fnr)
            } else {
                String::new()
            },
            secs,
            c.records as f64 / secs,
            c.bytes as f64 / secs / 1e6,
        );
    }
}

/// Bytes in binary units.
pub(crate) fn human_bytes(b: u64) -> String {
    bytesize::ByteSize(b).display().iec().to_string()
}
