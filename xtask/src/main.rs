//! ddf's task runner: `cargo xtask test | setup | verify | tables | figures | bench |
//! bench-growth | bench-cli | bench-redis | bench-threads | bench-python | test-python`.

mod bench;
mod bench_cli;
mod bench_growth;
mod bench_redis;
mod bench_threads;
mod checks;
mod fig5;
mod figures;
mod outcome;
mod paths;
mod python;
mod tables;
mod test;
mod verify;

use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask <command> [options]

commands:
  test     the README's test command: `setup`, then every test of the
           workspace (`cargo test --workspace`; further arguments go to it),
           then the Python package's (`test-python`)
  setup    install the Debian packages the tests need when missing
           (redis-server, libclang-dev, python3-venv; apt-get as root, else
           says what to run)
  verify   check theory against simulation for every filter
           --quick            CI-sized streams (a few minutes on 2 cores)
           --only SUBSTRING   run only checks whose id contains SUBSTRING
           --seed N           base seed of every stream (default 1)
           --list             list the checks and exit
  tables   write reproduced paper tables to target/ddf/tables/
           --quick            shorter streams (the output says so)
           --only SUBSTRING   only tables whose name contains SUBSTRING
           --seed N           base seed (default 1)
  figures  draw the papers' figures as SVG in target/ddf/figures/ from the
           tables' CSVs (run `cargo xtask tables` first)
  bench    run the benchmark suite (filters, hardware floor, peer crates) and
           write target/ddf/bench.md and bench.json
           --quick            short criterion times, u64 keys and distinct streams only
           --only REGEX       criterion filter on benchmark ids
           --docs             also rewrite docs/performance.md and the README's table
           --all-cells        with --quick: quick times, but every cell of the matrix
           then the growth table (bench-growth)
  bench-growth  the steady-state growth table: every windowed family the
           planner offers at windows 2^14, 2^18, 2^22 and 2^25, each fed 2w
           items first, one by one and batched, against the one-line floor
           and the exact window; write target/ddf/growth.md and growth.json
           --quick            short criterion times, windows up to 2^22
           --only REGEX       criterion filter on benchmark ids
           --docs             also rewrite docs/performance.md and the README's table
  bench-cli  time the `ddf` binary against huniq, runiq, awk and sort -u on
           one file of real records; write target/ddf/bench-cli/bench-cli.md
           --lines N          records in the file (default 100000000)
           --docs             also rewrite docs/performance.md and the CLI README's table
  bench-redis  the ddf-redis module (DDF.OBSERVE, 1/16/256 items per call)
           against SET NX EX and SADD on one redis-server: items/s and
           used_memory; write target/ddf/bench-redis/bench-redis.md
           --items N          items in the stream (default 10000000)
           --window W         the DDF window in items (default 1000000)
           --threads T        connections (default 4)
           --docs             also rewrite docs/performance.md and the Redis README's table
  bench-threads  aggregate observe throughput of distinct u64 keys from 1, 2, 4,
           8 (and more, up to the cores) threads, windows 2^20 and 2^26 at
           FPR 1e-3: ddf::Shared of every windowed family the planner returns
           (one by one and observe_many), one Mutex around one filter,
           fastbloom's AtomicBloomFilter, a DashMap time window, one
           Mutex<HashSet>; write target/ddf/bench-threads/bench-threads.md
           --quick            a sanity run (fewer items; 1, 2 and 8 threads)
           --docs             also rewrite docs/performance.md and the README's row
  bench-python  the Python package (crates/ddf-py) one by one and batched
           against rbloom, pyprobables, dict + deque and set, beside Rust's
           Deduper::observe_many: items/s and peak memory; write
           target/ddf/bench-python/bench-python.md
           --sizes N,N        key counts (default 1000000,10000000)
           --reps R           alternating runs, best kept (default 3)
           --docs             also rewrite docs/performance.md and the package README's table
  test-python  build the Python package with maturin into target/py-venv and
           run its pytest suite (crates/ddf-py/tests)
";

/// Options shared by the commands.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub(crate) quick: bool,
    pub(crate) only: Option<String>,
    pub(crate) seed: u64,
    pub(crate) list: bool,
    pub(crate) docs: bool,
    pub(crate) all_cells: bool,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut opts = Options {
        quick: false,
        only: None,
        seed: 1,
        list: false,
        docs: false,
        all_cells: false,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--quick" => opts.quick = true,
            "--list" => opts.list = true,
            "--docs" => opts.docs = true,
            "--all-cells" => opts.all_cells = true,
            "--only" => opts.only = Some(it.next().ok_or("--only needs a SUBSTRING")?.clone()),
            "--seed" => {
                let v = it.next().ok_or("--seed needs a number")?;
                opts.seed = v
                    .parse()
                    .map_err(|_| format!("--seed: `{v}` is not a non-negative integer"))?;
            }
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
    // Commands with options of their own.
    let own = match command.as_str() {
        "test" => Some(test::run_tests(rest)),
        "setup" => Some(test::setup()),
        "bench-cli" => Some(bench_cli::run(rest)),
        "bench-redis" => Some(bench_redis::run(rest)),
        "bench-threads" => Some(bench_threads::run(rest)),
        "bench-python" => Some(python::bench(rest)),
        "test-python" if !rest.is_empty() => {
            Some(Err(format!("test-python takes no options, not {rest:?}")))
        }
        "test-python" => Some(python::test()),
        _ => None,
    };
    if let Some(result) = own {
        return match result {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::FAILURE,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let opts = match parse(rest) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let result = match command.as_str() {
        "verify" => verify::run(&opts),
        "tables" => tables::run(&opts),
        "figures" => figures::run(&opts),
        "bench" => bench::run(&opts).and_then(|ok| Ok(ok && bench_growth::run(&opts)?)),
        "bench-growth" => bench_growth::run(&opts),
        "help" | "--help" | "-h" => {
            print!("{USAGE}");
            Ok(true)
        }
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
