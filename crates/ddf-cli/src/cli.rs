//! The command line: subcommands, flags and their help text.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// The exit-code table every help page ends with.
macro_rules! exit_codes {
    () => {
        "\
Exit codes:
  0    success
  1    a bad record with --on-bad-record fail, an I/O error, or a bad or
       mismatched state file
  2    usage error (bad or conflicting flags, or no filter meets them)
  130  stopped by SIGINT (state saved first when --state is given)
  143  stopped by SIGTERM (state saved first when --state is given)
A closed output pipe (`ddf dedup big.txt | head -1`) ends the run quietly
with status 0."
    };
}

const EXIT_CODES: &str = exit_codes!();

/// Deduplicate records (lines, CSV fields, JSON Lines) in bounded memory,
/// over the whole stream, the last N records, or a time span, with a stated
/// false-positive rate.
#[derive(Debug, Parser)]
#[command(name = "ddf", version, after_help = EXIT_CODES)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Write each record that is not a duplicate, byte for byte, in input order.
    #[command(after_help = DEDUP_HELP)]
    Dedup(Box<DedupArgs>),
    /// Show the planner's ranked filters for a window and an error target.
    #[command(after_help = EXIT_CODES)]
    Plan(PlanCmd),
    /// Merge state files of one filter kept on several nodes (same window,
    /// parameters and hash key) into one that answers for every node's
    /// records.
    #[command(after_help = MERGE_HELP)]
    Merge {
        /// The state files written by `ddf dedup --state`, two or more.
        #[arg(required = true, num_args = 2.., value_name = "STATE")]
        inputs: Vec<PathBuf>,
        /// Where to write the merged state (written atomically; may be one
        /// of the inputs).
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
    },
    /// Describe a state file: family, parameters, window, memory, records
    /// seen, clock, format version (never the hash key).
    #[command(after_help = EXIT_CODES)]
    Inspect {
        /// The state file written by `ddf dedup --state`.
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

const DEDUP_HELP: &str = concat!(
    "\
Examples:
  ddf dedup access.log > unique.log
  ddf dedup --window 1000000 --fpr 1e-3 -f 2 -d , export.csv
  ddf dedup --within 1h --time-json /ts --json /id events.jsonl

Without a window and without --distinct, the whole stream is deduplicated
exactly: memory grows with the number of distinct keys, as with sort -u.
Keys are hashed with SipHash-1-3 under a secret random key; an exact filter
is exact on these 64-bit digests (two distinct keys collide with probability
2^-64).

",
    exit_codes!()
);

const MERGE_HELP: &str = concat!(
    "\
Examples:
  ddf dedup --within 1h --time-field 1 --state empty.state < /dev/null
  cp empty.state node1.state; cp empty.state node2.state   # one hash key
  ddf dedup --within 1h --time-field 1 --state node1.state part1.log > out1.log
  ddf dedup --within 1h --time-field 1 --state node2.state part2.log > out2.log
  ddf merge node1.state node2.state -o all.state

Time windows (generations on the records' clock) and whole-stream Bloom
filters merge; count windows (--window) do not: a count is a property of
one stream. Size every node for the whole stream's rate (--rate), since the
merged state holds every node's records. Nodes must share the hash key:
start them from copies of one state file.

",
    exit_codes!()
);

/// What to do with a record whose key or time is missing or unparsable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum OnBad {
    /// Drop it from the output.
    Skip,
    /// Write it to the output as if new (it is not remembered).
    Keep,
    /// Stop with exit status 1, naming the file and line.
    Fail,
}

/// How integer timestamps are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TimeUnit {
    /// Seconds since the Unix epoch (fractions allowed).
    S,
    /// Milliseconds since the Unix epoch.
    Ms,
    /// Microseconds since the Unix epoch.
    Us,
    /// Nanoseconds since the Unix epoch.
    Ns,
}

/// The window, accuracy and size flags shared by `dedup` and `plan`.
#[derive(Debug, Clone, Args)]
pub(crate) struct PlanArgs {
    /// Remember only the last N records.
    #[arg(long, value_name = "N")]
    pub(crate) window: Option<u64>,

    /// Remember only records of the last DURATION (e.g. 90s, 15min, 24h),
    /// by the record's time (--time-field, --time-json) or the arrival clock.
    #[arg(long, value_name = "DURATION", value_parser = ddf::request::parse_duration_ms)]
    pub(crate) within: Option<u64>,

    // The help names the library's default.
    #[arg(long, value_name = "PER_SECOND",
        help = format!("Expected records per second, to size a filter for --within [default: {}]", ddf::request::DEFAULT_RATE))]
    pub(crate) rate: Option<f64>,

    /// Expected records per --within window, to size it (instead of --rate).
    #[arg(long, value_name = "N")]
    pub(crate) capacity: Option<u64>,

    /// Expected distinct keys in the whole stream, to size an approximate
    /// filter when there is no window (else the whole stream is exact).
    #[arg(long, value_name = "N")]
    pub(crate) distinct: Option<f64>,

    #[arg(long, value_name = "P",
        help = format!("Largest share of new records reported as duplicates [default: {:e}, unless --max-memory is given alone]", ddf::request::DEFAULT_FPR))]
    pub(crate) fpr: Option<f64>,

    /// Most memory the filter may use (e.g. 64MiB, 1GB). With it alone
    /// (no --fpr given), the filter with the least error that fits is chosen.
    #[arg(long, value_name = "SIZE", value_parser = ddf::request::parse_size)]
    pub(crate) max_memory: Option<u64>,

    /// No false positives: remember every key of the window (64-bit
    /// digests). It takes the window alone.
    #[arg(long)]
    pub(crate) exact: bool,

    /// How far beyond the window a record may still be reported: records
    /// for --window, a DURATION for --within. Default: 1 % of the window
    /// (at least 1 ms); the APBF and the smallest sliding Bloom filters need
    /// more.
    #[arg(long, value_name = "N|DURATION")]
    pub(crate) slack: Option<String>,

    /// Use this family instead of the planner's first choice: its name as
    /// `ddf plan` lists it, or its display name (case and separators
    /// ignored).
    #[arg(long, value_name = "NAME")]
    pub(crate) filter: Option<String>,

    /// Accept filters that may miss duplicates (false negatives).
    #[arg(long)]
    pub(crate) misses_ok: bool,
}

/// Flags of `ddf plan`.
#[derive(Debug, Args)]
pub(crate) struct PlanCmd {
    #[command(flatten)]
    pub(crate) plan: PlanArgs,

    /// Print JSON instead of a table.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Flags of `ddf dedup`.
#[derive(Debug, Args)]
pub(crate) struct DedupArgs {
    /// Input files; standard input when none, `-` for standard input.
    #[arg(value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,

    #[command(flatten)]
    pub(crate) plan: PlanArgs,

    /// Records end with NUL instead of newline.
    #[arg(short = 'z', long = "zero-terminated")]
    pub(crate) zero: bool,

    /// Remove a CR before the LF from each record (key and output), so
    /// CRLF and LF lines compare equal. By default the CR is data.
    #[arg(long, conflicts_with = "zero")]
    pub(crate) strip_cr: bool,

    /// The key is field N (from 1) of the record, split at --delimiter.
    #[arg(short = 'f', long, value_name = "N", conflicts_with = "json")]
    pub(crate) field: Option<usize>,

    /// The field delimiter for --field and --time-field (one byte).
    #[arg(short = 'd', long, value_name = "CHAR", default_value = "\t", value_parser = parse_delimiter)]
    pub(crate) delimiter: u8,

    /// The key is the JSON value at this RFC 6901 pointer (e.g. /user/id)
    /// of each JSON Lines record, compared as compact JSON text (the
    /// string "7" and the number 7 differ).
    #[arg(long, value_name = "POINTER", value_parser = parse_pointer)]
    pub(crate) json: Option<String>,

    /// The record's time is field N (from 1), for --within.
    #[arg(
        long,
        value_name = "N",
        requires = "within",
        conflicts_with = "time_json"
    )]
    pub(crate) time_field: Option<usize>,

    /// The record's time is the JSON value at this pointer, for --within.
    #[arg(long, value_name = "POINTER", requires = "within", value_parser = parse_pointer)]
    pub(crate) time_json: Option<String>,

    /// Unit of numeric times; RFC 3339 strings (2024-05-01T12:00:00Z) are
    /// always accepted.
    #[arg(long, value_enum, default_value = "s")]
    pub(crate) time_unit: TimeUnit,

    /// A record whose key or time is missing or unparsable (or a line that
    /// is not JSON) is skipped, kept, or stops the run.
    #[arg(long, value_enum, default_value = "fail")]
    pub(crate) on_bad_record: OnBad,

    /// Print only the repeats instead of the first occurrences.
    #[arg(long, conflicts_with = "mark")]
    pub(crate) duplicates: bool,

    /// Print every record, prefixed with `new<TAB>`, `dup<TAB>` or `bad<TAB>`.
    #[arg(long)]
    pub(crate) mark: bool,

    /// Write a summary to stderr at the end.
    #[arg(long)]
    pub(crate) stats: bool,

    /// Write the summary to stderr as JSON.
    #[arg(long)]
    pub(crate) stats_json: bool,

    /// Show a progress line on stderr even when it is not a terminal.
    #[arg(long, conflicts_with = "no_progress")]
    pub(crate) progress: bool,

    /// Never show the progress line.
    #[arg(long)]
    pub(crate) no_progress: bool,

    /// Print the planner's pick on stderr before starting.
    #[arg(short, long)]
    pub(crate) verbose: bool,

    /// Load the filter and its hash key from FILE when it exists; save it
    /// at the end, on SIGINT/SIGTERM and every --checkpoint (mode 0600:
    /// it holds the secret key).
    #[arg(long, value_name = "FILE")]
    pub(crate) state: Option<PathBuf>,

    /// Also save the state every DURATION.
    #[arg(long, value_name = "DURATION", requires = "state", value_parser = ddf::request::parse_duration_ms)]
    pub(crate) checkpoint: Option<u64>,

    /// Ignore (and replace) an existing state file, even a corrupt or
    /// mismatched one.
    #[arg(long, requires = "state")]
    pub(crate) reset: bool,

    /// Derive the hash key from this seed: reproducible runs, NOT secret.
    /// A key loaded from --state takes precedence.
    #[arg(long, value_name = "SEED")]
    pub(crate) seed: Option<u64>,

    /// Threads that split records and hash keys, beside one reading thread
    /// (1: one thread reads and hashes, one filters). The exact filter
    /// without --state also filters on N threads; every other filter on
    /// one. Output, verdicts and state do not depend on N. [default: the
    /// cores present less one, at least 1 and at most 8]
    #[arg(long, value_name = "N", value_parser = parse_threads)]
    pub(crate) threads: Option<usize>,
}

/// The largest `--threads`: far more than a reader and a filter can feed.
pub(crate) const MAX_THREADS: usize = 64;

/// The default `--threads`: the cores present less one, at least 1 and at
/// most [`DEFAULT_THREADS_CAP`]. At `--threads 1` the reading-and-hashing
/// thread and the filtering thread already keep about 1.7 cores busy on a
/// windowed run, so on 2 cores more workers only compete with them (the
/// `--threads 2` runs measured there were 5–25 % slower in wall time).
pub(crate) fn default_threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, usize::from)
        .saturating_sub(1)
        .clamp(1, DEFAULT_THREADS_CAP)
}

/// The cap of the default `--threads`: beyond it the one filtering thread
/// is the bottleneck and more threads only cost memory.
pub(crate) const DEFAULT_THREADS_CAP: usize = 8;

/// `--threads`: a whole number from 1 to [`MAX_THREADS`].
fn parse_threads(s: &str) -> Result<usize, String> {
    let range = format!("a whole number from 1 to {MAX_THREADS}");
    let n: usize = s.trim().parse().map_err(|_| range.clone())?;
    if (1..=MAX_THREADS).contains(&n) {
        Ok(n)
    } else {
        Err(range)
    }
}

/// One byte, or `\t`.
fn parse_delimiter(s: &str) -> Result<u8, String> {
    match s.as_bytes() {
        [b] => Ok(*b),
        b"\\t" => Ok(b'\t'),
        _ => Err("one byte (e.g. , or \\t)".into()),
    }
}

/// An RFC 6901 pointer: empty or starting with `/`.
fn parse_pointer(s: &str) -> Result<String, String> {
    if s.is_empty() || s.starts_with('/') {
        Ok(s.to_string())
    } else {
        Err(format!(
            "an RFC 6901 JSON pointer starts with / (did you mean /{s}?)"
        ))
    }
}
