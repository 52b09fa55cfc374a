//! `ddf`: deduplicate records from files or standard input in bounded
//! memory, over the whole stream, the last N records or a time span.
//!
//! The subcommands are `dedup` (the filter), `plan` (the planner's ranked
//! choices for a set of flags), `merge` (state files of several nodes into
//! one) and `inspect` (what a state file holds). See
//! the crate README for examples, and `ddf --help`.
#![forbid(unsafe_code)]

mod choose;
mod cli;
mod dedup;
mod engine;
mod input;
mod key;
mod merge;
mod progress;
mod report;
mod shards;
mod state;

use clap::Parser;
use std::process::ExitCode;

/// Why a command failed, which decides the exit status.
#[derive(Debug)]
pub(crate) enum Fail {
    /// Flags that cannot work together (exit 2, as clap's own errors).
    Usage(String),
    /// Bad input, bad state, I/O (exit 1).
    Run(String),
}

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let result = match &cli.command {
        cli::Command::Dedup(args) => dedup::run(args),
        cli::Command::Plan(args) => report::plan(args).map(|()| 0),
        cli::Command::Merge { inputs, output } => merge::run(inputs, output).map(|()| 0),
        cli::Command::Inspect { file, json } => report::inspect(file, *json).map(|()| 0),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(Fail::Usage(msg)) => {
            eprintln!("ddf: error: {msg}");
            ExitCode::from(2)
        }
        Err(Fail::Run(msg)) => {
            eprintln!("ddf: error: {msg}");
            ExitCode::from(1)
        }
    }
}
