//! ddf's benchmark runners, run by `cargo xtask bench | bench-growth | bench-cli |
//! bench-redis | bench-threads | bench-python` as a process of their own, so that xtask
//! links none of the peers they measure (redis, dashmap, fastbloom).

mod bench;
mod bench_cli;
mod bench_growth;
mod bench_python;
mod bench_redis;
mod bench_threads;

use ddf_verify::{outcome, paths};
use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo run --release -p benchrun -- <command> [options]
       (cargo xtask <command> runs this; `cargo xtask help` lists the options)

commands: bench, bench-growth, bench-cli, bench-redis, bench-threads, bench-python";

/// The options of `bench`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Options {
    pub(crate) quick: bool,
    pub(crate) only: Option<String>,
    pub(crate) docs: bool,
    pub(crate) all_cells: bool,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut opts = Options::default();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--quick" => opts.quick = true,
            "--docs" => opts.docs = true,
            "--all-cells" => opts.all_cells = true,
            "--only" => opts.only = Some(it.next().ok_or("--only needs a REGEX")?.clone()),
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    Ok(opts)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((command, rest)) = args.split_first() else {
        eprint!("{USAGE}");
        return ExitCode::from(2);
    };
    let result = match command.as_str() {
        // The suite, then the steady-state growth table.
        "bench" => parse(rest).and_then(|opts| Ok(bench::run(&opts)? && bench_growth::run(&opts)?)),
        "bench-growth" => parse(rest).and_then(|opts| bench_growth::run(&opts)),
        "bench-cli" => bench_cli::run(rest),
        "bench-redis" => bench_redis::run(rest),
        "bench-threads" => bench_threads::run(rest),
        "bench-python" => bench_python::bench(rest),
        other => {
            eprintln!("error: unknown command `{other}`\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_options_parse_and_reject_unknown_ones() {
        let args = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        let o = parse(&args("--quick --only apbf --docs --all-cells")).unwrap();
        assert!(o.quick && o.docs && o.all_cells);
        assert_eq!(o.only.as_deref(), Some("apbf"));
        assert!(parse(&args("--only")).is_err());
        assert!(parse(&args("--seed 3")).is_err());
    }
}
