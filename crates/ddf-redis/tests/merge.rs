//! `DDF.MERGE` on real `redis-server` processes: keys over two halves of
//! a stream, merged, answer as one key over the whole stream; keys of
//! another server join through `DUMP`/`RESTORE`; refusals name the
//! difference and leave the destination as it was.

mod common;

use common::{Server, error_of};

/// `DDF.OBSERVE`/`DDF.EXISTS` on `key` at time `ms`.
fn at(c: &mut redis::Connection, cmd: &str, key: &str, ms: u64, items: &[String]) -> Vec<i64> {
    redis::cmd(cmd)
        .arg(key)
        .arg("AT")
        .arg(ms)
        .arg(items)
        .query(c)
        .unwrap_or_else(|e| panic!("{cmd} {key}: {e}"))
}

fn reserve(c: &mut redis::Connection, key: &str, spec: &[&str]) {
    let _: () = redis::cmd("DDF.RESERVE")
        .arg(key)
        .arg(spec)
        .query(c)
        .unwrap_or_else(|e| panic!("reserve {key}: {e}"));
}

/// Items `0..n` in batches of 50, one batch per 100 ms from 1 s on, every
/// other batch to each half: `(time, items)` of half `h`, or all.
fn batches(n: u64, half: Option<u64>) -> Vec<(u64, Vec<String>)> {
    (0..n / 50)
        .filter(|b| half.is_none_or(|h| b % 2 == h))
        .map(|b| {
            let items = (b * 50..(b + 1) * 50)
                .map(|i| format!("item-{}", i % 3_000))
                .collect();
            (1_000 + 100 * b, items)
        })
        .collect()
}

#[test]
fn merged_halves_answer_as_the_whole_stream() {
    let server = Server::start(&[]);
    let mut c = server.conn();
    let sized = [
        "WITHIN", "60000", "CAPACITY", "20000", "ERROR", "0.001", "SLACK", "60000",
    ];
    let families: [&[&str]; 3] = [
        &["WITHIN", "60000", "EXACT"],
        &[&sized[..], &["FILTER", "apbf"]].concat(),
        &[&sized[..], &["FILTER", "sliding"]].concat(),
    ];
    let probe: Vec<String> = (0..3_500).map(|i| format!("item-{i}")).collect();
    for (f, family) in families.iter().enumerate() {
        let [one, two, whole] = ["one", "two", "whole"].map(|k| format!("{{m{f}}}{k}"));
        for key in [&one, &two, &whole] {
            reserve(
                &mut c,
                key,
                &[family, &["HASHKEY", common::TEST_HASHKEY][..]].concat(),
            );
        }
        for (key, half) in [(&one, Some(0)), (&two, Some(1)), (&whole, None)] {
            for (ms, items) in batches(10_000, half) {
                at(&mut c, "DDF.OBSERVE", key, ms, &items);
            }
        }
        let ok: String = redis::cmd("DDF.MERGE")
            .arg(&one)
            .arg(&two)
            .query(&mut c)
            .unwrap();
        assert_eq!(ok, "OK");
        let end = 1_000 + 100 * (10_000 / 50 - 1);
        for ms in [end, end + 30_000] {
            assert_eq!(
                at(&mut c, "DDF.EXISTS", &one, ms, &probe),
                at(&mut c, "DDF.EXISTS", &whole, ms, &probe),
                "{family:?} at {ms}"
            );
        }
        // Every item observed within the window is reported.
        let seen = at(&mut c, "DDF.EXISTS", &one, end, &probe[..3_000]);
        assert!(seen.iter().all(|&x| x == 1), "{family:?}");
    }
}

#[test]
fn keys_of_another_server_join_through_dump_and_restore() {
    let (here, there) = (Server::start(&[]), Server::start(&[]));
    let (mut c, mut d) = (here.conn(), there.conn());
    let spec = [
        "WITHIN",
        "60000",
        "CAPACITY",
        "20000",
        "SLACK",
        "120000",
        "FILTER",
        "apbf",
        "HASHKEY",
        common::TEST_HASHKEY,
    ];
    reserve(&mut c, "dest", &spec);
    reserve(&mut d, "src", &spec);
    let mine: Vec<String> = vec!["a".into(), "b".into()];
    let theirs: Vec<String> = vec!["c".into()];
    at(&mut c, "DDF.OBSERVE", "dest", 5_000, &mine);
    at(&mut d, "DDF.OBSERVE", "src", 6_000, &theirs);
    let payload: Vec<u8> = redis::cmd("DUMP").arg("src").query(&mut d).unwrap();
    let _: () = redis::cmd("RESTORE")
        .arg("src")
        .arg(0)
        .arg(payload)
        .query(&mut c)
        .unwrap();
    let _: () = redis::cmd("DDF.MERGE")
        .arg("dest")
        .arg("src")
        .query(&mut c)
        .unwrap();
    let all: Vec<String> = vec!["a".into(), "b".into(), "c".into(), "d".into()];
    assert_eq!(at(&mut c, "DDF.EXISTS", "dest", 7_000, &all), [1, 1, 1, 0]);
}

#[test]
fn refusals_name_the_difference_and_change_nothing() {
    let server = Server::start(&[]);
    let mut c = server.conn();
    let time = [
        "WITHIN", "60000", "CAPACITY", "20000", "SLACK", "120000", "FILTER", "apbf",
    ];
    reserve(
        &mut c,
        "a",
        &[&time[..], &["HASHKEY", common::TEST_HASHKEY]].concat(),
    );
    reserve(&mut c, "b", &time);
    let items: Vec<String> = vec!["x".into()];
    at(&mut c, "DDF.OBSERVE", "a", 1_000, &items);
    at(&mut c, "DDF.OBSERVE", "b", 1_000, &["y".to_string()]);
    let before: Vec<u8> = redis::cmd("DUMP").arg("a").query(&mut c).unwrap();
    let e = error_of(&mut c, &["DDF.MERGE", "a", "b"]);
    assert!(e.contains("hash key") && e.contains('b'), "{e}");
    let count = [
        "WINDOW",
        "1000",
        "SLACK",
        "100000",
        "FILTER",
        "apbf",
        "HASHKEY",
        common::TEST_HASHKEY,
    ];
    reserve(&mut c, "count", &count);
    reserve(&mut c, "count2", &count);
    let e = error_of(&mut c, &["DDF.MERGE", "count", "count2"]);
    assert!(e.contains("count window"), "{e}");
    let e = error_of(&mut c, &["DDF.MERGE", "a", "count"]);
    assert!(e.contains("window"), "{e}");
    // A later source refused: the earlier one is not merged either.
    reserve(
        &mut c,
        "c",
        &[&time[..], &["HASHKEY", common::TEST_HASHKEY]].concat(),
    );
    at(&mut c, "DDF.OBSERVE", "c", 2_000, &["z".to_string()]);
    assert!(error_of(&mut c, &["DDF.MERGE", "a", "c", "b"]).contains("hash key"));
    let after: Vec<u8> = redis::cmd("DUMP").arg("a").query(&mut c).unwrap();
    assert_eq!(before, after);
    assert!(error_of(&mut c, &["DDF.MERGE", "missing", "a"]).contains("no such key"));
    assert!(error_of(&mut c, &["DDF.MERGE", "a", "missing"]).contains("no such key"));
    let _: () = redis::cmd("SET").arg("s").arg("1").query(&mut c).unwrap();
    assert!(error_of(&mut c, &["DDF.MERGE", "a", "s"]).contains("WRONGTYPE"));
    assert!(error_of(&mut c, &["DDF.MERGE", "a"]).contains("wrong number"));
}
