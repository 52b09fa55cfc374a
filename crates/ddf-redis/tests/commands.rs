//! Every command and its errors, against a real server.

mod common;
use common::{Server, ask, error_of};

/// The crate README's example, read from the README itself: the release
/// build it names loads the library cargo builds, and every `redis-cli` line
/// of its `sh` block, run in order against the module as built, prints its
/// `text` block (in `redis-cli`'s format), so the README cannot drift.
#[test]
fn the_readme_example() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("read README.md");
    let shell = fenced_block(&readme, "sh");
    let printed = fenced_block(&readme, "text");
    assert!(
        shell.contains(&"cargo build --release -p ddf-redis"),
        "the README builds the release module: {shell:?}"
    );
    let load = shell
        .iter()
        .find_map(|l| l.strip_prefix("redis-server --loadmodule "))
        .expect("the README starts redis-server with --loadmodule");
    let built = common::module_path();
    assert_eq!(
        std::path::Path::new(load.trim()),
        std::path::Path::new("target/release").join(built.file_name().expect("file name")),
        "the README's --loadmodule path names the library cargo builds"
    );

    let server = Server::start(&[]);
    let mut c = server.conn();
    let mut out = Vec::new();
    for line in shell.iter().filter_map(|l| l.strip_prefix("redis-cli ")) {
        assert!(
            !line.contains(['"', '\'']),
            "quoted arguments are not split here: {line}"
        );
        let words: Vec<&str> = line.split_whitespace().collect();
        let reply: redis::Value = redis::cmd(words[0])
            .arg(&words[1..])
            .query(&mut c)
            .unwrap_or_else(|e| panic!("{line}: {e}"));
        out.extend(cli_lines(&reply));
    }
    assert_eq!(out, printed, "the README's output block");

    // EXISTS on the README's key answers alike and records nothing.
    assert_eq!(ask(&mut c, "DDF.EXISTS", "events", &["a", "c"]), [1, 0]);
    assert_eq!(ask(&mut c, "DDF.OBSERVE", "events", &["c"]), [0]);
}

/// The lines of the first fenced block tagged `tag` in `markdown`.
fn fenced_block<'a>(markdown: &'a str, tag: &str) -> Vec<&'a str> {
    let open = format!("```{tag}");
    let mut lines = markdown.lines().skip_while(|l| l.trim_end() != open);
    assert!(lines.next().is_some(), "README.md has no {open} block");
    lines.take_while(|l| l.trim_end() != "```").collect()
}

/// A reply as `redis-cli` prints it to a terminal (the shapes the README's
/// example uses: status, integers, strings, flat arrays).
fn cli_lines(reply: &redis::Value) -> Vec<String> {
    use redis::Value;
    let one = |v: &Value| match v {
        Value::Okay => "OK".to_string(),
        Value::SimpleString(s) => s.clone(),
        Value::Int(i) => format!("(integer) {i}"),
        Value::BulkString(b) => format!("\"{}\"", String::from_utf8_lossy(b)),
        Value::Nil => "(nil)".to_string(),
        other => panic!("no redis-cli rendering here for {other:?}"),
    };
    match reply {
        Value::Array(items) if items.is_empty() => vec!["(empty array)".to_string()],
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| format!("{}) {}", i + 1, one(v)))
            .collect(),
        v => vec![one(v)],
    }
}

#[test]
fn count_windows_forget_and_time_windows_take_the_callers_clock() {
    let server = Server::start(&[]);
    let mut c = server.conn();
    let _: () = redis::cmd("DDF.RESERVE")
        .arg(&["w", "WINDOW", "100", "ERROR", "0.001", "SLACK", "10"])
        .arg(&["HASHKEY", common::TEST_HASHKEY])
        .query(&mut c)
        .expect("reserve");
    assert_eq!(ask(&mut c, "DDF.OBSERVE", "w", &["x"]), [0]);
    let filler: Vec<String> = (0..200).map(|i| format!("f{i}")).collect();
    let filler: Vec<&str> = filler.iter().map(String::as_str).collect();
    let answers = ask(&mut c, "DDF.OBSERVE", "w", &filler);
    assert_eq!(answers.len(), 200);
    // 200 > window + slack: x is forgotten (no false positive expected at
    // this size for one query with ε = 1e-3... but a false positive is
    // possible, so ask about several forgotten items and allow one).
    let gone = ask(&mut c, "DDF.EXISTS", "w", &filler[..50]);
    assert!(gone.iter().sum::<i64>() <= 1, "{gone:?}");
    assert!(error_of(&mut c, &["DDF.OBSERVE", "w", "AT", "5", "y"]).contains("AT applies"));

    let _: () = redis::cmd("DDF.RESERVE")
        .arg(&["t", "WITHIN", "1000", "CAPACITY", "1000", "ERROR", "0.001"])
        .query(&mut c)
        .expect("reserve");
    let at = |c: &mut redis::Connection, cmd: &str, ms: u64, items: &[&str]| -> Vec<i64> {
        redis::cmd(cmd)
            .arg("t")
            .arg("AT")
            .arg(ms)
            .arg(items)
            .query(c)
            .expect(cmd)
    };
    assert_eq!(at(&mut c, "DDF.OBSERVE", 10_000, &["a"]), [0]);
    assert_eq!(at(&mut c, "DDF.OBSERVE", 10_500, &["a", "b"]), [1, 0]);
    assert_eq!(at(&mut c, "DDF.EXISTS", 10_900, &["a", "b"]), [1, 1]);
    // Long past window and slack.
    assert_eq!(at(&mut c, "DDF.EXISTS", 100_000, &["a", "b"]), [0, 0]);
    // A clock that steps back runs at the latest reading.
    assert_eq!(at(&mut c, "DDF.EXISTS", 0, &["b"]), [1]);
}

#[test]
fn info_reports_the_plan() {
    let server = Server::start(&[]);
    let mut c = server.conn();
    let _: () = redis::cmd("DDF.RESERVE")
        .arg(&["k", "WINDOW", "1000", "ERROR", "0.01"])
        .query(&mut c)
        .expect("reserve");
    ask(&mut c, "DDF.OBSERVE", "k", &["a", "b"]);
    let info: Vec<redis::Value> = redis::cmd("DDF.INFO").arg("k").query(&mut c).expect("info");
    let text: Vec<String> = info
        .iter()
        .map(|v| match v {
            redis::Value::BulkString(b) => String::from_utf8_lossy(b).into_owned(),
            redis::Value::Int(i) => i.to_string(),
            other => format!("{other:?}"),
        })
        .collect();
    let field = |name: &str| {
        let at = text
            .iter()
            .position(|t| t == name)
            .unwrap_or_else(|| panic!("{name}"));
        text[at + 1].clone()
    };
    assert_eq!(field("Family"), "sliding");
    assert_eq!(field("Window"), "count");
    assert_eq!(field("Items"), "1000");
    assert_eq!(field("Observed"), "2");
    let fpr: f64 = field("Predicted FPR").parse().expect("a number");
    assert!(fpr > 0.0 && fpr <= 0.01);
    let bytes: i64 = field("Filter bytes").parse().expect("a number");
    let usage: i64 = redis::cmd("MEMORY")
        .arg(&["USAGE", "k"])
        .query(&mut c)
        .expect("usage");
    assert!(
        bytes > 0 && usage >= bytes,
        "MEMORY USAGE {usage} < filter {bytes}"
    );
}

#[test]
fn bad_arguments_are_clear_errors() {
    let server = Server::start(&["--ddf.max-memory", "1048576"]);
    let mut c = server.conn();
    let cases: &[(&[&str], &str)] = &[
        (
            &["DDF.RESERVE", "k", "WINDOW", "0", "ERROR", "0.01"],
            "WINDOW must be a count of records from 1 to 2^40, not 0",
        ),
        (
            &["DDF.RESERVE", "k", "WITHIN", "0", "ERROR", "0.01"],
            "WITHIN must be at least 1ms",
        ),
        (
            &["DDF.RESERVE", "k", "WINDOW", "10", "ERROR", "nan"],
            "finite",
        ),
        (
            &["DDF.RESERVE", "k", "WINDOW", "10", "ERROR", "1.5"],
            "ERROR must be in (0, 1), not 1.5",
        ),
        (
            &["DDF.RESERVE", "k", "WINDOW", "10", "ERROR", "0"],
            "ERROR must be in (0, 1), not 0",
        ),
        (
            &["DDF.RESERVE", "k", "WINDOW", "-3", "ERROR", "0.01"],
            "non-negative",
        ),
        (
            &[
                "DDF.RESERVE",
                "k",
                "WINDOW",
                "99999999999999999999",
                "ERROR",
                "0.1",
            ],
            "non-negative",
        ),
        (
            &[
                "DDF.RESERVE",
                "k",
                "WINDOW",
                "2000000000000",
                "ERROR",
                "0.01",
            ],
            "WINDOW must be a count of records from 1 to 2^40",
        ),
        (
            &["DDF.RESERVE", "k", "WINDOW", "10000000", "ERROR", "0.001"],
            "max-memory",
        ),
        (
            &[
                "DDF.RESERVE",
                "k",
                "WINDOW",
                "10",
                "WITHIN",
                "10",
                "ERROR",
                "0.1",
            ],
            "give WINDOW (a count of records) or WITHIN (a duration), not both",
        ),
        (
            &["DDF.RESERVE", "k", "WINDOW", "10", "EXACT", "ERROR", "0.1"],
            "EXACT keeps every key of the window, with no false positives: it takes a window alone, not ERROR",
        ),
        (
            &["DDF.RESERVE", "k", "MAXMEMORY", "1MiB"],
            "in fixed memory, a filter of the whole stream misses",
        ),
        (
            &["DDF.RESERVE", "k", "WINDOW", "10", "ERROR", "0.1", "BOGUS"],
            "unknown argument",
        ),
        (
            &[
                "DDF.RESERVE",
                "k",
                "WINDOW",
                "10",
                "ERROR",
                "0.1",
                "FILTER",
                "qht",
            ],
            "FILTER qht does not meet these arguments",
        ),
        (
            &[
                "DDF.RESERVE",
                "k",
                "WINDOW",
                "10",
                "ERROR",
                "0.1",
                "FILTER",
                "apb",
            ],
            "FILTER \"apb\" is not a family; the families are exact, shf,",
        ),
        (
            &[
                "DDF.RESERVE",
                "k",
                "WINDOW",
                "10",
                "ERROR",
                "0.1",
                "HASHKEY",
                "zz",
            ],
            "HASHKEY",
        ),
        (
            &[
                "DDF.RESERVE",
                "k",
                "WINDOW",
                "10",
                "CAPACITY",
                "5",
                "ERROR",
                "0.1",
            ],
            "CAPACITY",
        ),
        (&["DDF.OBSERVE", "missing", "a"], "no such key"),
        (&["DDF.INFO", "missing"], "not found"),
        (&["DDF.LOADSTATE", "k", "not a payload"], "refusing"),
        (&["DDF.OBSERVE", "k"], "wrong number"),
        (&["DDF.INFO"], "wrong number"),
    ];
    for (args, needle) in cases {
        let e = error_of(&mut c, args);
        assert!(e.contains(needle), "{args:?}: {e}");
    }
    // A plain string key is the wrong type for every command.
    let _: () = redis::cmd("SET")
        .arg(&["s", "1"])
        .query(&mut c)
        .expect("set");
    for args in [
        &["DDF.OBSERVE", "s", "a"][..],
        &["DDF.EXISTS", "s", "a"],
        &["DDF.INFO", "s"],
    ] {
        let e = error_of(&mut c, args);
        assert!(e.contains("WRONGTYPE"), "{args:?}: {e}");
    }
    assert!(
        error_of(
            &mut c,
            &["DDF.RESERVE", "s", "WINDOW", "10", "ERROR", "0.1"]
        )
        .contains("exists")
    );
    // An existing filter is not reserved twice.
    let _: () = redis::cmd("DDF.RESERVE")
        .arg(&["k", "WINDOW", "10", "ERROR", "0.1"])
        .query(&mut c)
        .expect("reserve");
    assert!(
        error_of(
            &mut c,
            &["DDF.RESERVE", "k", "WINDOW", "10", "ERROR", "0.1"]
        )
        .contains("exists")
    );
    // The server is alive after all of it; EXISTS on a missing key is 0s.
    assert_eq!(ask(&mut c, "DDF.EXISTS", "nothing", &["a", "b"]), [0, 0]);
}

#[test]
fn autocreate_is_a_module_option() {
    let server = Server::start(&[
        "--ddf.autocreate",
        "yes",
        "--ddf.autocreate-capacity",
        "1000",
    ]);
    let mut c = server.conn();
    assert_eq!(ask(&mut c, "DDF.OBSERVE", "fresh", &["a", "a"]), [0, 1]);
    let info: Vec<redis::Value> = redis::cmd("DDF.INFO")
        .arg("fresh")
        .query(&mut c)
        .expect("info");
    assert!(format!("{info:?}").contains("time"));
}
