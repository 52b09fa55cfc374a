//! `ddf dedup`: records in, first occurrences out, in order.
//!
//! [`run`] is three steps: [`open`] checks the flags, loads or builds the
//! filter and starts reading ([`input`]: blocks of records with their keys'
//! digests, in input order); [`drive`] hands each block's digests to the
//! filter's batch path (`observe_batch`, or `observe_batch_stamped` for a
//! time window, both of which prefetch), or to the sharded exact filter's
//! workers ([`shards`]), and writes the records in input order, looking at
//! signals and checkpoints between blocks; [`finish`] flushes, saves the
//! state and writes the summary.

use crate::choose;
use crate::cli::{self, DedupArgs, OnBad};
use crate::engine::{self, Engine, describe_window};
use crate::input::{self, Block, Fate, Inbox, Msg, Parse, Source};
use crate::key::{Extractor, KeySpec, TimeSpec};
use crate::shards::{self, Pool};
use crate::state::{self, Meta};
use crate::{Fail, progress::Progress};
use ddf::KeyedSipHasher;
use ddf::{Choice, DuplicateFilter, Request, Verdict, Window, Windowed};
use serde_json::json;
use std::io::{self, IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

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

/// Everything the loop needs besides the records.
struct Run {
    filter: Engine,
    on_bad: OnBad,
    mode: Output,
    terminator: u8,
    counts: Counts,
    clock_ms: Option<u64>,
    out: io::BufWriter<io::StdoutLock<'static>>,
    /// Scratch, reused across blocks.
    verdicts: Vec<Verdict>,
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

impl Run {
    /// Observes a block's digests and writes its records.
    fn block(&mut self, b: &Block) -> Result<(), Stop> {
        let mut verdicts = std::mem::take(&mut self.verdicts);
        verdicts.clear();
        engine::observe(&mut self.filter, &b.keys, &mut verdicts);
        let written = self.write(b, &verdicts);
        self.verdicts = verdicts;
        written
    }

    /// Writes a block's records given its keys' verdicts.
    fn write(&mut self, b: &Block, verdicts: &[Verdict]) -> Result<(), Stop> {
        self.counts.bytes += b.new_bytes;
        if let Some(t) = b.keys.latest_time() {
            self.clock_ms = Some(self.clock_ms.map_or(t, |c| c.max(t)));
        }
        for (r, fate) in b.recs.iter().zip(&b.fates) {
            self.counts.records += 1;
            let (write, tag): (bool, &[u8]) = match *fate {
                Fate::Key(k) => {
                    let dup = verdicts[k] == Verdict::Duplicate;
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
                self.out.write_all(b.record(r))?;
                if r.terminated || r.add_terminator {
                    self.out.write_all(&[self.terminator])?;
                }
            }
        }
        // The records before the bad one are written, as if the input had
        // ended there.
        match &b.fail {
            Some(why) => Err(Stop::Fail(why.clone())),
            None => Ok(()),
        }
    }
}

/// Runs `ddf dedup`; the exit status on success or signal.
pub(crate) fn run(args: &DedupArgs) -> Result<u8, Fail> {
    let mut session = open(args)?;
    let stopped = drive(&mut session);
    finish(session, stopped)
}

/// A run between [`open`] and [`finish`].
struct Session<'a> {
    args: &'a DedupArgs,
    request: Request,
    choice: Choice,
    run: Run,
    hasher: KeyedSipHasher,
    /// Records seen by the runs before this one (from the state file).
    records_before: u64,
    time_source: &'static str,
    inbox: Inbox,
    /// The sharded exact filter, when it filters on several threads; then
    /// `run.filter` is unused.
    pool: Option<Pool>,
    names: Vec<String>,
    progress: Option<Progress>,
    sigint: Arc<AtomicBool>,
    sigterm: Arc<AtomicBool>,
    started: Instant,
}

/// How [`drive`] ended: the loop's outcome, and the exit status a signal
/// asked for.
struct Stopped {
    outcome: Result<(), Stop>,
    signal_exit: Option<u8>,
}

/// The key and time extractor the flags ask for.
fn extractor(args: &DedupArgs) -> Result<Extractor, Fail> {
    Ok(Extractor {
        key: match (&args.field, &args.json) {
            (Some(0), _) => return Err(Fail::Usage("--field counts from 1".into())),
            (Some(n), _) => KeySpec::Field(*n),
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
    })
}

/// The filter and hash key: from the state file when it matches the flags,
/// else new. Also the records seen and the clock of the earlier runs.
fn filter_and_key(
    args: &DedupArgs,
    request: &Request,
    choice: &Choice,
) -> Result<(Engine, KeyedSipHasher, u64, Option<u64>), Fail> {
    let loaded = match &args.state {
        Some(path) if !args.reset => state::load(path).map_err(Fail::Run)?,
        _ => None,
    };
    if let Some(l) = loaded {
        l.meta
            .resumes(&l.filter, request, choice, &choose::VOCABULARY)
            .map_err(|why| {
                Fail::Run(format!(
                    "state file {}: {why}; pass --reset to replace it",
                    args.state
                        .as_ref()
                        .map_or(String::new(), |p| p.display().to_string()),
                ))
            })?;
        return Ok((l.filter, l.hasher, l.meta.records_seen, l.meta.clock_ms));
    }
    let hasher = match args.seed {
        Some(s) => KeyedSipHasher::with_seed(s),
        None => KeyedSipHasher::try_new()
            .map_err(|e| Fail::Run(format!("no OS randomness for the hash key: {e}")))?,
    };
    let filter = choice
        .build()
        .map_err(|e| Fail::Usage(format!("cannot build the {} filter: {e}", choice.family)))?;
    Ok((filter, hasher, 0, None))
}

/// Checks the flags, loads or builds the filter, installs the signal
/// handlers and starts reading.
fn open(args: &DedupArgs) -> Result<Session<'_>, Fail> {
    let request = choose::request(&args.plan).map_err(Fail::Usage)?;
    let choice = request
        .choose(&choose::VOCABULARY)
        .map_err(|e| Fail::Usage(e.to_string()))?;
    let threads = args.threads.unwrap_or_else(cli::default_threads);
    let sources = Source::from_args(&args.files);
    let timed = matches!(choice.window, Window::Time(_));
    let extractor = extractor(args)?;
    let time_source = match extractor.time {
        TimeSpec::None if timed => "arrival",
        TimeSpec::None => "none",
        TimeSpec::Field(_) => "field",
        TimeSpec::Json(_) => "json",
    };
    let (filter, hasher, records_before, clock_ms) = filter_and_key(args, &request, &choice)?;
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
    let progress = show_progress.then(|| Progress::new(Source::total_bytes(&sources)));
    let names: Vec<String> = sources.iter().map(Source::name).collect();
    let parse = Parse {
        extractor,
        hasher: hasher.clone(),
        terminator: if args.zero { 0 } else { b'\n' },
        strip_cr: args.strip_cr,
        timed,
        fail_on_bad: args.on_bad_record == OnBad::Fail,
    };
    let terminator = parse.terminator;
    let pool = if shards::sharded(&choice, threads, args.state.is_some()) {
        Some(Pool::start(choice.window, threads, hasher.clone()).map_err(Fail::Run)?)
    } else {
        if args.threads.is_some_and(|t| t > 1) {
            eprintln!(
                "ddf: note: the {} filter over {} runs on one filtering thread (only the \
                 exact filter without --state is sharded); --threads {threads} splits and \
                 hashes",
                choice.family,
                describe_window(choice.window)
            );
        }
        None
    };
    if args.verbose {
        let memory = pool
            .as_ref()
            .map_or_else(|| filter.memory_bits(), Pool::memory_bits);
        eprintln!(
            "ddf: {} filter ({}) over {}: {} memory, predicted FPR {:.3e}, FNR {:.3e}, slack {}; \
             {threads} thread{}{}",
            engine::family(&filter),
            choice.config,
            describe_window(filter.window()),
            human_bytes(memory.div_ceil(8)),
            choice.fpr,
            choice.fnr,
            filter.slack(),
            if threads == 1 { "" } else { "s" },
            if pool.is_some() {
                format!(", {} shards", shards::SHARDS)
            } else {
                String::new()
            },
        );
    }
    let inbox = input::spawn(sources, parse, threads);
    let run = Run {
        filter,
        on_bad: args.on_bad_record,
        mode: if args.mark {
            Output::Mark
        } else if args.duplicates {
            Output::Duplicates
        } else {
            Output::Unique
        },
        terminator,
        counts: Counts::default(),
        clock_ms,
        out: io::BufWriter::with_capacity(1 << 16, io::stdout().lock()),
        verdicts: Vec::new(),
    };
    Ok(Session {
        args,
        request,
        choice,
        run,
        hasher,
        records_before,
        time_source,
        inbox,
        pool,
        names,
        progress,
        sigint,
        sigterm,
        started: Instant::now(),
    })
}

impl Session<'_> {
    /// Writes the blocks the pool has filtered: every one sent when `all`,
    /// else those it can give without idling its workers.
    fn written(&mut self, all: bool) -> Result<(), Stop> {
        let Some(pool) = self.pool.as_mut() else {
            return Ok(());
        };
        let mut verdicts = std::mem::take(&mut self.run.verdicts);
        let mut done = Ok(());
        while done.is_ok() {
            match pool.next(all, &mut verdicts) {
                Ok(Some(b)) => {
                    done = self.run.write(&b, &verdicts);
                    self.inbox.recycle(b);
                }
                Ok(None) => break,
                Err(e) => done = Err(Stop::Fail(e)),
            }
        }
        self.run.verdicts = verdicts;
        done
    }

    /// What `--stats` says of the filter: family, window, slack, memory.
    fn facts(&self) -> Facts {
        let f = &self.run.filter;
        Facts {
            family: engine::family(f),
            window: f.window(),
            slack: self.pool.as_ref().map_or_else(|| f.slack(), Pool::slack),
            memory_bits: self
                .pool
                .as_ref()
                .map_or_else(|| f.memory_bits(), Pool::memory_bits),
        }
    }

    /// Saves the state when `--state` is given.
    fn save(&self) -> Result<(), Fail> {
        let Some(path) = &self.args.state else {
            return Ok(());
        };
        let meta = Meta {
            records_seen: self.records_before + self.run.counts.records,
            clock_ms: self.run.clock_ms,
            ..Meta::new(&self.choice, &self.request, self.time_source)
        };
        state::save(path, &self.run.filter, &self.hasher, &meta).map_err(Fail::Run)
    }
}

/// Filters the blocks in input order until the input ends, a signal comes
/// or something fails; saves the state every `--checkpoint`.
fn drive(s: &mut Session<'_>) -> Result<Stopped, Fail> {
    let mut last_checkpoint = Instant::now();
    let checkpoint = s.args.checkpoint.map(Duration::from_millis);
    loop {
        // Relaxed: a flag carries no data to synchronise with; a signal
        // seen one poll later only delays the stop.
        let signalled = [(&s.sigint, 130), (&s.sigterm, 143)]
            .into_iter()
            .find_map(|(flag, status)| flag.load(Ordering::Relaxed).then_some(status));
        if let Some(status) = signalled {
            // The blocks already given to the filter are written.
            return Ok(Stopped {
                outcome: s.written(true),
                signal_exit: Some(status),
            });
        }
        if let Some(every) = checkpoint
            && last_checkpoint.elapsed() >= every
        {
            s.save()?;
            last_checkpoint = Instant::now();
        }
        let c = s.run.counts;
        if let Some(p) = s.progress.as_mut() {
            p.tick(c.records, c.duplicates, c.bytes);
        }
        let outcome = match s.inbox.recv_timeout(POLL) {
            Ok(Msg::Block(b)) => match s.pool.as_mut() {
                Some(pool) => {
                    pool.submit(b);
                    s.written(false)
                }
                None => {
                    let done = s.run.block(&b);
                    s.inbox.recycle(b);
                    done
                }
            },
            Ok(Msg::Error { input, error }) => Err(Stop::Fail(format!(
                "cannot read {}: {error}",
                s.names[input]
            ))),
            // Idle input: let the reader downstream see what we have.
            Err(RecvTimeoutError::Timeout) => s
                .written(true)
                .and_then(|()| s.run.out.flush().map_err(Stop::from)),
            Err(RecvTimeoutError::Disconnected) => {
                return Ok(Stopped {
                    outcome: s.written(true),
                    signal_exit: None,
                });
            }
        };
        if let Err(e) = outcome {
            return Ok(Stopped {
                outcome: Err(e),
                signal_exit: None,
            });
        }
    }
}

/// Flushes the output, saves the state (unless the run failed on input or
/// output) and writes the summary; the exit status.
fn finish(mut s: Session<'_>, stopped: Result<Stopped, Fail>) -> Result<u8, Fail> {
    let Stopped {
        outcome,
        signal_exit,
    } = stopped?;
    // Whatever stopped the loop, the records handled so far were remembered:
    // the state is saved unless the run failed on input or output.
    let flushed = match outcome {
        Ok(()) => s.run.out.flush().map_err(Stop::from),
        Err(e) => Err(e),
    };
    let c = s.run.counts;
    if let Some(p) = s.progress.as_mut() {
        p.finish(c.records, c.duplicates, c.bytes);
    }
    let status = match flushed {
        Ok(()) | Err(Stop::BrokenPipe) => {
            s.save()?;
            signal_exit.unwrap_or(0)
        }
        Err(Stop::Fail(msg)) => {
            // A rerun after fixing the input starts from the old state:
            // saving now would make it call this run's records duplicates.
            let _ = s.run.out.flush();
            return Err(Fail::Run(msg));
        }
    };
    if s.args.stats || s.args.stats_json {
        report(s.args, &s.choice, &s.facts(), &c, s.started.elapsed());
    }
    Ok(status)
}

/// The filter as `--stats` describes it, sharded or not.
struct Facts {
    family: &'static str,
    window: Window,
    slack: u64,
    memory_bits: u64,
}

/// Writes the `--stats` / `--stats-json` summary to stderr.
fn report(args: &DedupArgs, choice: &Choice, filter: &Facts, c: &Counts, took: Duration) {
    let secs = took.as_secs_f64().max(1e-9);
    let memory = filter.memory_bits.div_ceil(8);
    if args.stats_json {
        let v = json!({
            "records": c.records,
            "unique": c.records - c.duplicates - c.bad,
            "duplicates": c.duplicates,
            "bad_records": c.bad,
            "bytes": c.bytes,
            "seconds": took.as_secs_f64(),
            "filter": filter.family,
            "config": choice.config,
            "window": state::window_json(filter.window),
            "slack": filter.slack,
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
            filter.family,
            describe_window(filter.window),
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
