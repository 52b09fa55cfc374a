//! A primary and a replica give identical answers; failover keeps them.

mod common;
use common::{Server, ask};
use std::time::Duration;

/// Waits until `replica` reports its link to the primary up.
fn wait_linked(replica: &mut redis::Connection) {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let info: String = redis::cmd("INFO")
            .arg("replication")
            .query(replica)
            .expect("info");
        if info.contains("master_link_status:up") {
            return;
        }
        assert!(std::time::Instant::now() < deadline, "replica never linked");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `WAIT 1 0` bounded by the connection's read timeout: every write so far
/// reached the replica.
fn wait_replicated(primary: &mut redis::Connection) {
    let acked: i64 = redis::cmd("WAIT")
        .arg(1)
        .arg(10_000)
        .query(primary)
        .expect("wait");
    assert_eq!(acked, 1, "the replica acknowledged");
}

fn clock_of(c: &mut redis::Connection, key: &str) -> u64 {
    let info: Vec<redis::Value> = redis::cmd("DDF.INFO").arg(key).query(c).expect("info");
    let at = info
        .iter()
        .position(|v| matches!(v, redis::Value::BulkString(b) if b == b"Clock ms"))
        .expect("Clock ms");
    match &info[at + 1] {
        redis::Value::Int(ms) => *ms as u64,
        other => panic!("{other:?}"),
    }
}

fn exists_at(c: &mut redis::Connection, key: &str, ms: u64, items: &[&str]) -> Vec<i64> {
    redis::cmd("DDF.EXISTS")
        .arg(key)
        .arg("AT")
        .arg(ms)
        .arg(items)
        .query(c)
        .expect("exists")
}

#[test]
fn a_replica_answers_as_its_primary_and_survives_failover() {
    let mut primary = Server::start(&[]);
    let port = primary.port.to_string();
    let replica = Server::start(&["--replicaof", "127.0.0.1", &port]);
    let mut p = primary.conn();
    let mut r = replica.conn();
    wait_linked(&mut r);

    let _: () = redis::cmd("DDF.RESERVE")
        .arg(&["c", "WINDOW", "500", "ERROR", "0.01"])
        .query(&mut p)
        .expect("reserve c");
    // A short time window on the server clock: the primary's clock moves
    // past it during the test.
    let _: () = redis::cmd("DDF.RESERVE")
        .arg(&[
            "t", "WITHIN", "300", "CAPACITY", "2000", "ERROR", "0.01", "SLACK", "10",
        ])
        .query(&mut p)
        .expect("reserve t");
    // A long one for the failover check.
    let _: () = redis::cmd("DDF.RESERVE")
        .arg(&[
            "long", "WITHIN", "3600000", "CAPACITY", "10000", "ERROR", "0.001",
        ])
        .query(&mut p)
        .expect("reserve long");

    let items: Vec<String> = (0..1500).map(|i| format!("i{}", (i * 7) % 1000)).collect();
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    let mut observed = Vec::new();
    for (round, chunk) in items.chunks(250).enumerate() {
        observed.push(ask(&mut p, "DDF.OBSERVE", "c", chunk));
        observed.push(ask(&mut p, "DDF.OBSERVE", "t", chunk));
        ask(&mut p, "DDF.OBSERVE", "long", chunk);
        if round == 2 {
            // Let the primary's clock pass the 300 ms window.
            std::thread::sleep(Duration::from_millis(400));
        }
    }
    // The caller's clock: a call whose AT is the clock the filter ran at is
    // replicated as it came, one behind it with the clock applied.
    let _: () = redis::cmd("DDF.RESERVE")
        .arg(&["at", "WITHIN", "300", "CAPACITY", "2000", "ERROR", "0.01"])
        .query(&mut p)
        .expect("reserve at");
    for (ms, chunk) in [1_000u64, 1_200, 900, 1_250, 5_000, 4_000]
        .into_iter()
        .zip(items.chunks(250))
    {
        let _: Vec<i64> = redis::cmd("DDF.OBSERVE")
            .arg("at")
            .arg("AT")
            .arg(ms)
            .arg(chunk)
            .query(&mut p)
            .expect("observe at");
    }
    wait_replicated(&mut p);
    let dump = |c: &mut redis::Connection| -> Vec<u8> {
        redis::cmd("DUMP").arg("at").query(c).expect("dump")
    };
    assert_eq!(
        dump(&mut r),
        dump(&mut p),
        "the replica's state is the primary's"
    );
    assert_eq!(clock_of(&mut r, "at"), 5_000);
    // Without AT, the replica answers at the latest time replicated (5,000
    // in the caller's unit), as the primary did after that write; its own
    // clock (epoch milliseconds) would have forgotten everything.
    let recent: Vec<&str> = items[1000..1250].to_vec();
    let on_primary = exists_at(&mut p, "at", 5_000, &recent);
    assert!(on_primary.iter().all(|&d| d == 1), "{on_primary:?}");
    assert_eq!(ask(&mut r, "DDF.EXISTS", "at", &recent), on_primary);
    assert_eq!(
        ask(&mut r, "DDF.EXISTS", "at", &items[..250]),
        exists_at(&mut p, "at", 5_000, &items[..250]),
    );

    let probes: Vec<String> = (0..1200).map(|i| format!("i{i}")).collect();
    let probes: Vec<&str> = probes.iter().map(String::as_str).collect();
    assert_eq!(
        ask(&mut r, "DDF.EXISTS", "c", &probes),
        ask(&mut p, "DDF.EXISTS", "c", &probes)
    );
    let now = clock_of(&mut p, "t");
    assert_eq!(
        clock_of(&mut r, "t"),
        now,
        "the replica applied the primary's clock"
    );
    let on_p = exists_at(&mut p, "t", now, &probes);
    assert_eq!(exists_at(&mut r, "t", now, &probes), on_p);
    // The window moved: some of the items seen early are forgotten.
    assert!(
        on_p.iter().sum::<i64>() < 1000,
        "{}",
        on_p.iter().sum::<i64>()
    );
    let info_p: redis::Value = redis::cmd("DDF.INFO").arg("c").query(&mut p).expect("info");
    let info_r: redis::Value = redis::cmd("DDF.INFO").arg("c").query(&mut r).expect("info");
    assert_eq!(info_p, info_r);

    // Failover: every write acknowledged, the primary killed, the replica
    // promoted; everything observed before is a duplicate there.
    wait_replicated(&mut p);
    primary.kill();
    let _: () = redis::cmd("REPLICAOF")
        .arg(&["NO", "ONE"])
        .query(&mut r)
        .expect("promote");
    let again = ask(&mut r, "DDF.OBSERVE", "long", &items);
    assert!(
        again.iter().all(|&d| d == 1),
        "a missed item after failover"
    );
}
